/* SPDX-License-Identifier: PostgreSQL */
/* test_proctree.c - unit tests for proctree.c: ancestry, roles, PID reuse,
 * children whose records come before their fork record, process titles. */
#include "unit.h"
#include "proctree.h"
#include "roles.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG_EXE "/usr/lib/postgresql/15/bin/postgres"
#define PGCTL_EXE "/usr/lib/postgresql/15/bin/pg_ctl"
#define DASH_EXE "/usr/bin/dash"

/* x86_64 numbers used as markers: each process makes its own. */
enum {
	NR_READ = 0, NR_WRITE = 1, NR_POLL = 7, NR_BRK = 12,
	NR_RT_SIGACTION = 13, NR_RT_SIGPROCMASK = 14, NR_PREAD64 = 17,
	NR_DUP2 = 33, NR_ACCEPT = 43, NR_SENDTO = 44, NR_BIND = 49,
	NR_CLONE = 56, NR_VFORK = 58, NR_EXECVE = 59, NR_WAIT4 = 61,
	NR_UNAME = 63, NR_FSYNC = 74, NR_GETPPID = 110, NR_CLOCK_NANOSLEEP = 230,
	NR_EXIT_GROUP = 231, NR_CLONE3 = 435, NR_PTRACE = 101, NR_MOUNT = 165,
};

/* Stream time in milliseconds after T0 (a time of the recorded log). */
#define T0 1796277282LL

static struct proctree *tree;
static uint64_t serial;
static struct pgsc_record rec;

struct agg_row {
	char *role;
	uint32_t arch;
	int32_t nr;
	uint64_t count;
	int64_t example_pid;
};

static struct agg_row rows[512];
static size_t nrows;

struct proc_row {
	int64_t pid, ppid;
	int parent_known;
	uint64_t birth_serial;
	double birth;
	char *role;
	uint64_t records;
};

static struct proc_row procs[256];
static size_t nprocs;
static int cur_uid = 101;       /* uid= of the records made below; -1: none */
static const char *cur_node;    /* node= of the records made below; NULL: none */

/* "uid=N " for the records, or nothing when cur_uid < 0 */
static const char *
uid_field(void)
{
	static char buf[32];

	if (cur_uid < 0)
		return "";
	snprintf(buf, sizeof(buf), "uid=%d ", cur_uid);
	return buf;
}

/* ---------------------------------------------------------------- */
/* Feeding                                                             */

static void
record_line(const char *line)
{
	int rc = pgsc_record_decode(line, strlen(line), &rec);

	if (rc != 0)
		fail_msg("decode (%s): %s", pgsc_reject_name(rc), line);
	proctree_record(tree, &rec);
}

static void
hdr(char *buf, size_t sz, const char *type, long ms, uint64_t ser)
{
	snprintf(buf, sz, "%s%s%stype=%s msg=audit(%lld.%03ld:%llu): ",
		 cur_node ? "node=" : "", cur_node ? cur_node : "",
		 cur_node ? " " : "", type, T0 + ms / 1000, ms % 1000,
		 (unsigned long long)ser);
}

/* A standalone SECCOMP record (one event), as the feed delivers it. */
static void
sc(long ms, int pid, const char *comm, const char *exe, int nr)
{
	char line[1024], h[128];

	hdr(h, sizeof(h), "SECCOMP", ms, ++serial);
	snprintf(line, sizeof(line),
		 "%sauid=4294967295 %sgid=104 ses=4294967295 pid=%d "
		 "comm=\"%s\" exe=\"%s\" sig=0 arch=c000003e syscall=%d "
		 "compat=0 ip=0x7f9be62afdd4 code=0x7ffc0000" GS
		 "AUID=\"unset\" UID=\"postgres\" GID=\"postgres\" "
		 "ARCH=x86_64 SYSCALL=unknown-syscall(-1)",
		 h, uid_field(), pid, comm, exe, nr);
	record_line(line);
	proctree_event_end(tree);
}

static void
sc_n(long ms, int pid, const char *comm, const char *exe, int nr, int n)
{
	for (int i = 0; i < n; i++)
		sc(ms, pid, comm, exe, nr);
}

static void
pg(long ms, int pid, int nr, int n)
{
	sc_n(ms, pid, "postgres", PG_EXE, nr, n);
}

static void
hex(char *out, const char *s)
{
	for (; *s; s++, out += 2)
		sprintf(out, "%02X", (unsigned char)*s);
	*out = '\0';
}

/* The SYSCALL record of one event; @tail is what follows "comm=.. exe=..". */
static void
syscall_line(long ms, uint64_t ser, int nr, const char *res, int ppid,
	     int pid, const char *comm, const char *exe)
{
	char line[1024], h[128];

	hdr(h, sizeof(h), "SYSCALL", ms, ser);
	snprintf(line, sizeof(line),
		 "%sarch=c000003e syscall=%d %s a1=0 a2=0 a3=8 items=0 "
		 "ppid=%d pid=%d auid=4294967295 %sgid=104 euid=101 "
		 "suid=101 fsuid=101 egid=104 sgid=104 fsgid=104 tty=(none) "
		 "ses=4294967295 comm=\"%s\" exe=\"%s\" key=\"pgsc\"" GS
		 "ARCH=x86_64 SYSCALL=x AUID=\"unset\" UID=\"postgres\"",
		 h, nr, res, ppid, pid, uid_field(), comm, exe);
	record_line(line);
}

static void
proctitle_line(long ms, uint64_t ser, const char *title)
{
	char line[4096], h[128], hx[2 * 1024 + 1];

	hdr(h, sizeof(h), "PROCTITLE", ms, ser);
	hex(hx, title);
	snprintf(line, sizeof(line), "%sproctitle=%s", h, hx);
	record_line(line);
}

/* fork/vfork/clone/clone3 by @pid, creating @child; one event. */
static uint64_t
fork_ev(long ms, int nr, int ppid, int pid, const char *comm, const char *exe,
	int child, const char *title)
{
	char res[128];
	uint64_t ser = ++serial;

	snprintf(res, sizeof(res), "success=yes exit=%d a0=%s", child,
		 nr == NR_CLONE ? "1200011" : "7ffe610df960");
	syscall_line(ms, ser, nr, res, ppid, pid, comm, exe);
	if (title != NULL)
		proctitle_line(ms, ser, title);
	proctree_event_end(tree);
	return ser;
}

/* execve by @pid of @exe; @argv is the EXECVE record's body. */
static void
exec_ev(long ms, int ppid, int pid, const char *comm, const char *exe,
	const char *argv, const char *title)
{
	char line[4096], h[128];
	uint64_t ser = ++serial;

	syscall_line(ms, ser, NR_EXECVE, "success=yes exit=0 a0=55df4c7b44fd",
		     ppid, pid, comm, exe);
	hdr(h, sizeof(h), "EXECVE", ms, ser);
	snprintf(line, sizeof(line), "%s%s", h, argv);
	record_line(line);
	hdr(h, sizeof(h), "CWD", ms, ser);
	snprintf(line, sizeof(line), "%scwd=\"/tmp/rec/data\"", h);
	record_line(line);
	if (title != NULL)
		proctitle_line(ms, ser, title);
	proctree_event_end(tree);
}

/* exit_group of any process with the title the kernel cached. */
static void
exit_ev_exe(long ms, int ppid, int pid, const char *comm, const char *exe,
	    const char *title)
{
	uint64_t ser = ++serial;

	syscall_line(ms, ser, NR_EXIT_GROUP, "a0=0", ppid, pid, comm, exe);
	if (title != NULL)
		proctitle_line(ms, ser, title);
	proctree_event_end(tree);
}

/* exit_group of a postgres process with the title the kernel cached. */
static void
exit_ev(long ms, int ppid, int pid, const char *title)
{
	exit_ev_exe(ms, ppid, pid, "postgres", PG_EXE, title);
}

/* ---------------------------------------------------------------- */
/* Results                                                             */

static int
agg_cb(void *arg, const struct role_agg *a)
{
	(void)arg;
	assert_true(nrows < ARRAY_SIZE(rows));
	rows[nrows].role = strdup(a->role);
	rows[nrows].arch = a->arch;
	rows[nrows].nr = a->nr;
	rows[nrows].count = a->count;
	rows[nrows].example_pid = a->example_pid;
	/* one row per (role, arch, nr) */
	for (size_t i = 0; i < nrows; i++)
		assert_false(strcmp(rows[i].role, a->role) == 0 &&
			     rows[i].arch == a->arch && rows[i].nr == a->nr);
	nrows++;
	return 0;
}

static int
proc_cb(void *arg, const struct proc_info *p)
{
	(void)arg;
	assert_true(nprocs < ARRAY_SIZE(procs));
	procs[nprocs].pid = p->pid;
	procs[nprocs].ppid = p->ppid;
	procs[nprocs].parent_known = p->parent_known;
	procs[nprocs].birth_serial = p->birth_serial;
	procs[nprocs].birth = p->birth;
	procs[nprocs].role = strdup(p->role);
	procs[nprocs].records = p->records;
	nprocs++;
	return 0;
}

static void
finish(void)
{
	assert_int_equal(proctree_finish(tree), 0);
	assert_int_equal(proctree_each_agg(tree, agg_cb, NULL), 0);
	assert_int_equal(proctree_each_proc(tree, proc_cb, NULL), 0);
}

/* Count of syscall @nr under @role. */
static uint64_t
count(const char *role, int nr)
{
	for (size_t i = 0; i < nrows; i++)
		if (strcmp(rows[i].role, role) == 0 && rows[i].nr == nr &&
		    rows[i].arch == X86_64)
			return rows[i].count;
	return 0;
}

/* A count that must be @n: of syscall @nr under @role. */
struct want {
	const char *role;
	int nr;
	uint64_t n;
};

static void
expect_counts(const struct want *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (count(w[i].role, w[i].nr) != w[i].n)
			print_message("%s nr=%d\n", w[i].role, w[i].nr);
		assert_int_equal(count(w[i].role, w[i].nr), w[i].n);
	}
}

/* Count of syscall @nr under any role. */
static uint64_t
count_all(int nr)
{
	uint64_t n = 0;

	for (size_t i = 0; i < nrows; i++)
		if (rows[i].nr == nr)
			n += rows[i].count;
	return n;
}

/* Role of the @k-th (0-based) process listed with @pid. */
static const char *
role_of_pid(int64_t pid, int k)
{
	for (size_t i = 0; i < nprocs; i++)
		if (procs[i].pid == pid && k-- == 0)
			return procs[i].role;
	return NULL;
}

static const struct proc_row *
proc_of_pid(int64_t pid, int k)
{
	for (size_t i = 0; i < nprocs; i++)
		if (procs[i].pid == pid && k-- == 0)
			return &procs[i];
	return NULL;
}

static void
dump(void)
{
	for (size_t i = 0; i < nrows; i++)
		print_message("agg  %-28s nr=%-4d count=%llu pid=%lld\n",
			      rows[i].role, rows[i].nr,
			      (unsigned long long)rows[i].count,
			      (long long)rows[i].example_pid);
	for (size_t i = 0; i < nprocs; i++)
		print_message("proc pid=%lld ppid=%lld known=%d role=%s "
			      "records=%llu\n", (long long)procs[i].pid,
			      (long long)procs[i].ppid, procs[i].parent_known,
			      procs[i].role,
			      (unsigned long long)procs[i].records);
}

static int
setup(void **state)
{
	(void)state;
	serial = 1000;
	nrows = nprocs = 0;
	cur_uid = 101;
	cur_node = NULL;
	return proctree_new(NULL, &tree);
}

static int
teardown(void **state)
{
	(void)state;
	if (getenv("PGSC_TEST_VERBOSE") != NULL)
		dump();
	proctree_free(tree);
	tree = NULL;
	for (size_t i = 0; i < nrows; i++)
		free(rows[i].role);
	for (size_t i = 0; i < nprocs; i++)
		free(procs[i].role);
	nrows = nprocs = 0;
	return 0;
}

/* ---------------------------------------------------------------- */
/* A server like the recorded one: pg_ctl (5511) forks 5514, which execs
 * /bin/sh -c "exec postgres ...", then postgres: the postmaster. */

#define PM 5514

/*
 * A child of the postmaster, @pid, forked at @t (clone), making @n calls
 * @nr at @t_sc, exiting at @t_exit with @title.
 */
static void
child_life(long t, int pid, long t_sc, int nr, int n, long t_exit,
	   const char *title)
{
	fork_ev(t, NR_CLONE, 5511, PM, "postgres", PG_EXE, pid, NULL);
	pg(t_sc, pid, nr, n);
	exit_ev(t_exit, PM, pid, title);
}

static void
start_postmaster(void)
{
	sc(0, 5511, "pg_ctl", PGCTL_EXE, NR_WAIT4);
	fork_ev(10, NR_CLONE, 5510, 5511, "pg_ctl", PGCTL_EXE, PM, NULL);
	sc(11, PM, "pg_ctl", PGCTL_EXE, NR_EXECVE);
	exec_ev(12, 5511, PM, "sh", DASH_EXE,
		"argc=3 a0=\"/bin/sh\" a1=\"-c\" a2=6578656320222F7573722F6C69"
		"622F706F737467726573716C2F31352F62696E2F706F73746772657322",
		NULL);
	sc(13, PM, "sh", DASH_EXE, NR_EXECVE);
	exec_ev(14, 5511, PM, "postgres", PG_EXE,
		"argc=5 a0=\"" PG_EXE "\" a1=\"-D\" a2=\"/tmp/rec/data\" "
		"a3=\"-k\" a4=\"/tmp/rec/sock\"", NULL);
	pg(20, PM, NR_BIND, 1);
	pg(21, PM, NR_ACCEPT, 3);
}

static void
test_postmaster_backend(void **state)
{
	uint64_t ser;
	const struct proc_row *b;

	(void)state;
	start_postmaster();
	ser = fork_ev(100, NR_CLONE, 5511, PM, "postgres", PG_EXE, 5523, NULL);
	pg(101, 5523, NR_PREAD64, 2);
	pg(102, 5523, NR_SENDTO, 1);
	pg(103, PM, NR_ACCEPT, 1);
	exit_ev(200, PM, 5523, "postgres: alice db [local] idle");
	finish();

	assert_int_equal(count("client backend", NR_PREAD64), 2);
	assert_int_equal(count("client backend", NR_SENDTO), 1);
	assert_int_equal(count("postmaster", NR_ACCEPT), 4);
	assert_int_equal(count("postmaster", NR_BIND), 1);
	/* the postmaster's records before its exec are its own too */
	assert_int_equal(count("postmaster", NR_EXECVE), 2);
	assert_int_equal(count("postmaster", NR_PREAD64), 0);
	assert_int_equal(count("client backend", NR_ACCEPT), 0);
	/* pg_ctl has no known parent: not part of any server */
	assert_int_equal(count("unattributed", NR_WAIT4), 1);
	assert_int_equal(count("postmaster", NR_WAIT4), 0);

	assert_string_equal(role_of_pid(PM, 0), "postmaster");
	b = proc_of_pid(5523, 0);
	assert_non_null(b);
	assert_string_equal(b->role, "client backend");
	assert_int_equal(b->ppid, PM);
	assert_int_equal(b->parent_known, 1);
	assert_int_equal(b->birth_serial, ser);
	assert_int_equal(b->records, 3);
	assert_null(proc_of_pid(5523, 1));
}

static void
test_auxiliary_titles(void **state)
{
	(void)state;
	start_postmaster();
	fork_ev(100, NR_CLONE, 5511, PM, "postgres", PG_EXE, 5515, NULL);
	fork_ev(101, NR_CLONE, 5511, PM, "postgres", PG_EXE, 5516, NULL);
	fork_ev(102, NR_CLONE, 5511, PM, "postgres", PG_EXE, 5517, NULL);
	pg(110, 5515, NR_FSYNC, 2);
	pg(111, 5516, NR_POLL, 3);
	pg(112, 5517, NR_CLOCK_NANOSLEEP, 4);
	exit_ev(300, PM, 5515, "postgres: checkpointer ");
	exit_ev(301, PM, 5516, "postgres: main: walwriter ");
	/* 5517 never exits: a postgres child of the postmaster, no title */
	finish();

	assert_int_equal(count("checkpointer", NR_FSYNC), 2);
	assert_int_equal(count("walwriter", NR_POLL), 3);
	assert_int_equal(count(PGSC_ROLE_BACKEND_UNKNOWN, NR_CLOCK_NANOSLEEP),
			 4);
	assert_int_equal(count("postmaster", NR_FSYNC), 0);
	assert_int_equal(count("client backend", NR_FSYNC), 0);
	assert_string_equal(role_of_pid(5515, 0), "checkpointer");
	assert_string_equal(role_of_pid(5516, 0), "walwriter");
}

/*
 * COPY ... TO PROGRAM: the backend's clone3 child (real pids 5635/5636)
 * logs its records before the backend's clone3 SYSCALL record, with the
 * same timestamp, then execs /bin/sh.
 */
static void
child_first(long child_ms)
{
	pg(150, PM, NR_ACCEPT, 1);
	fork_ev(160, NR_CLONE, 5511, PM, "postgres", PG_EXE, 5635, NULL);
	pg(170, 5635, NR_READ, 1);
	/* the child, before its parent's fork record */
	pg(child_ms, 5636, NR_RT_SIGPROCMASK, 3);
	pg(child_ms, 5636, NR_RT_SIGACTION, 2);
	pg(child_ms, 5636, NR_DUP2, 1);
	fork_ev(175, NR_CLONE3, PM, 5635, "postgres", PG_EXE, 5636,
		"postgres: alice db [local] COPY");
	pg(child_ms, 5635, NR_UNAME, 1);
	exec_ev(child_ms + 1, 5635, 5636, "sh", DASH_EXE,
		"argc=3 a0=\"sh\" a1=\"-c\" a2=636174203E2F6465762F6E756C6C",
		"sh -c cat >/dev/null");
	sc_n(child_ms + 2, 5636, "sh", DASH_EXE, NR_BRK, 2);
	exit_ev(400, PM, 5635, "postgres: alice db [local] COPY");
	finish();

	assert_int_equal(count("descendant/client backend", NR_RT_SIGPROCMASK),
			 3);
	assert_int_equal(count("descendant/client backend", NR_RT_SIGACTION),
			 2);
	assert_int_equal(count("descendant/client backend", NR_DUP2), 1);
	assert_int_equal(count("descendant/client backend", NR_BRK), 2);
	assert_int_equal(count("client backend", NR_READ), 1);
	assert_int_equal(count("client backend", NR_UNAME), 1);
	/* nothing of the child's is lost or given to its parent */
	assert_int_equal(count_all(NR_RT_SIGPROCMASK), 3);
	assert_int_equal(count_all(NR_BRK), 2);
	assert_int_equal(count("client backend", NR_RT_SIGPROCMASK), 0);
	assert_string_equal(role_of_pid(5636, 0), "descendant/client backend");
	assert_null(proc_of_pid(5636, 1));
	assert_int_equal(proc_of_pid(5636, 0)->ppid, 5635);
}

static void
test_child_before_parent_same_time(void **state)
{
	(void)state;
	start_postmaster();
	child_first(175);
}

static void
test_child_before_parent_later_time(void **state)
{
	(void)state;
	start_postmaster();
	child_first(179);
}

/* A process that lived before the fork of a new holder of its pid and
 * whose fork we never saw: records after the fork go to the new child. */
static void
test_child_after_stale_provisional(void **state)
{
	(void)state;
	start_postmaster();
	/* 5700: some postgres process seen since before the server started */
	sc(30, 5700, "postgres", PG_EXE, NR_GETPPID);
	child_life(100, 5700, 100, NR_PREAD64, 2, 200,
		   "postgres: alice db [local] idle");
	finish();
	assert_int_equal(count("client backend", NR_PREAD64), 2);
	assert_int_equal(count("client backend", NR_GETPPID), 0);
	assert_int_equal(count("unattributed", NR_GETPPID), 1);
}

static void
test_pid_reuse(void **state)
{
	const struct proc_row *a, *b;

	(void)state;
	start_postmaster();
	child_life(100, 5600, 101, NR_READ, 2, 150,
		   "postgres: alice db [local] idle");
	/* the same pid, forked again by the postmaster */
	child_life(300, 5600, 301, NR_CLOCK_NANOSLEEP, 3, 400,
		   "postgres: checkpointer ");
	finish();

	assert_int_equal(count("client backend", NR_READ), 2);
	assert_int_equal(count("checkpointer", NR_CLOCK_NANOSLEEP), 3);
	assert_int_equal(count("client backend", NR_CLOCK_NANOSLEEP), 0);
	assert_int_equal(count("checkpointer", NR_READ), 0);
	a = proc_of_pid(5600, 0);
	b = proc_of_pid(5600, 1);
	assert_non_null(a);
	assert_non_null(b);
	assert_null(proc_of_pid(5600, 2));
	assert_int_not_equal(a->birth_serial, b->birth_serial);
	assert_true(a->birth < b->birth);
	assert_string_equal(a->role, "client backend");
	assert_string_equal(b->role, "checkpointer");
}

/* PID reuse where the second holder's records precede its fork record. */
static void
test_pid_reuse_child_first(void **state)
{
	(void)state;
	start_postmaster();
	child_life(100, 5600, 101, NR_READ, 2, 150,
		   "postgres: alice db [local] idle");
	pg(300, 5600, NR_CLOCK_NANOSLEEP, 3);
	child_life(300, 5600, 301, NR_CLOCK_NANOSLEEP, 1, 400,
		   "postgres: checkpointer ");
	finish();

	assert_int_equal(count("client backend", NR_READ), 2);
	assert_int_equal(count("checkpointer", NR_CLOCK_NANOSLEEP), 4);
	assert_int_equal(count_all(NR_CLOCK_NANOSLEEP), 4);
}

/*
 * PID reuse of a non-postgres process.  When pgsc.rules audited exit_group
 * only for the postgres binary, every other process (here a "cat") stayed
 * "live" in the tree for ever, and when its pid was later given to a new
 * clone3 child whose records come before the fork record (docs/design.md
 * §7: every time for vfork-style spawns), the old process took them.
 * pgsc.rules now audit every exit_group, so the old holder's exit is in the
 * stream, as below.
 */
static void
test_pid_reuse_after_unaudited_exit(void **state)
{
	(void)state;
	start_postmaster();
	/* an unrelated shell (5800, parent known) runs a child 5801 */
	fork_ev(50, NR_CLONE, 1, 5800, "bash", "/usr/bin/bash", 5801, NULL);
	exec_ev(51, 5800, 5801, "cat", "/usr/bin/cat", "argc=1 a0=\"cat\"",
		NULL);
	sc(52, 5801, "cat", "/usr/bin/cat", NR_FSYNC);
	exit_ev_exe(53, 5800, 5801, "cat", "/usr/bin/cat", "cat");
	/* 5801 has exited.  Much later the backend 5635
	 * spawns a program that gets pid 5801. */
	fork_ev(160, NR_CLONE, 5511, PM, "postgres", PG_EXE, 5635, NULL);
	pg(170, 5635, NR_READ, 1);
	pg(5000, 5801, NR_RT_SIGPROCMASK, 3);
	fork_ev(5000, NR_CLONE3, PM, 5635, "postgres", PG_EXE, 5801,
		"postgres: alice db [local] COPY");
	exec_ev(5001, 5635, 5801, "sh", DASH_EXE,
		"argc=3 a0=\"sh\" a1=\"-c\" a2=636174203E2F6465762F6E756C6C",
		NULL);
	sc_n(5002, 5801, "sh", DASH_EXE, NR_BRK, 2);
	exit_ev(6000, PM, 5635, "postgres: alice db [local] COPY");
	finish();

	assert_int_equal(count("descendant/client backend", NR_BRK), 2);
	/* fsync stays with the unrelated cat; the new child's early
	 * records go to the child, not to the old holder of its pid. */
	assert_int_equal(count("unrelated", NR_FSYNC), 1);
	assert_int_equal(count("postmaster", NR_FSYNC), 0);
	assert_int_equal(count("descendant/client backend", NR_RT_SIGPROCMASK),
			 3);
	assert_int_equal(count("unrelated", NR_RT_SIGPROCMASK), 0);
}

/* A second scenario in one test: a fresh tree with the hints @h. */
static void
rerun(void **state, const struct proctree_hints *h)
{
	teardown(state);
	setup(state);
	proctree_free(tree);
	assert_int_equal(proctree_new(h, &tree), 0);
}

static void
test_unattributed_and_hint(void **state)
{
	static const int64_t hint[] = { 4242, 6000 };
	struct proctree_hints h = { hint, ARRAY_SIZE(hint), NULL };

	(void)state;
	/* no fork record, no hint, no children */
	pg(0, 6000, NR_ACCEPT, 2);
	pg(1, 6001, NR_READ, 1);
	finish();
	assert_int_equal(count("unattributed", NR_ACCEPT), 2);
	assert_int_equal(count("postmaster", NR_ACCEPT), 0);
	assert_string_equal(role_of_pid(6000, 0), "unattributed");

	rerun(state, &h);
	pg(0, 6000, NR_ACCEPT, 2);
	pg(1, 6001, NR_READ, 1);
	finish();
	assert_int_equal(count("postmaster", NR_ACCEPT), 2);
	assert_int_equal(count("unattributed", NR_ACCEPT), 0);
	/* the hint names 6000 only */
	assert_int_equal(count("unattributed", NR_READ), 1);
	assert_string_equal(role_of_pid(6000, 0), "postmaster");
}

/*
 * Foreign (docs/roles.md §2, §7): another program, another uid than
 * any postgres process ran as, no parent: no server's.  A program of a
 * server's uid, or one linked to the server by a fork record, is not.
 * The residual risk: a server's child that runs a setuid program as
 * root, recorded without the rules (no fork record), is foreign, and its
 * calls are in neither list; with the rules it is the backend's
 * descendant and they are.
 */
static void
run_foreign(int rules)
{
	start_postmaster();
	if (rules)
		fork_ev(100, NR_CLONE, 5511, PM, "postgres", PG_EXE, 5600, NULL);
	pg(101, 5600, NR_PREAD64, 2);
	if (rules) {
		fork_ev(102, NR_CLONE, PM, 5600, "postgres", PG_EXE, 5601,
			NULL);
		cur_uid = 0;
		exec_ev(103, 5600, 5601, "passwd", "/usr/bin/passwd",
			"argc=1 a0=\"passwd\"", NULL);
	}
	cur_uid = 0;
	sc_n(104, 5601, "passwd", "/usr/bin/passwd", NR_MOUNT, 3);
	/* noise: python3 as root, never a child of the server */
	sc_n(105, 8000, "python3", "/usr/bin/python3", NR_PTRACE, 4);
	/* a shell of the server's uid without a parent: could be its */
	cur_uid = 101;
	sc_n(106, 8100, "sh", DASH_EXE, NR_UNAME, 5);
	if (rules)
		exit_ev(107, PM, 5600, "postgres: alice db [local] idle");
	finish();
}

static void
test_foreign(void **state)
{
	run_foreign(0);
	assert_int_equal(count(PGSC_ROLE_FOREIGN, NR_PTRACE), 4);
	assert_int_equal(count(PGSC_ROLE_UNATTRIBUTED, NR_UNAME), 5);
	/* the residual risk: the backend's setuid child, without rules */
	assert_int_equal(count(PGSC_ROLE_FOREIGN, NR_MOUNT), 3);
	assert_false(pgsc_role_in_server(PGSC_ROLE_FOREIGN));
	assert_true(roles_provisional(PGSC_ROLE_FOREIGN));

	rerun(state, NULL);
	run_foreign(1);
	assert_int_equal(count("descendant/client backend", NR_MOUNT), 3);
	assert_int_equal(count(PGSC_ROLE_FOREIGN, NR_MOUNT), 0);
	assert_int_equal(count(PGSC_ROLE_FOREIGN, NR_PTRACE), 4);
	assert_int_equal(count(PGSC_ROLE_UNATTRIBUTED, NR_UNAME), 5);
}

/*
 * --server-user: a user's own postgres (a copied binary, its own cluster)
 * forms a tree like the server's; with the server's uid given, its
 * processes are not PostgreSQL's, so nothing of it reaches the lists.
 * A process that changes uid (su) is judged by its last record.
 */
static void
run_two_servers(void)
{
	/* the real server, uid 101 */
	start_postmaster();
	child_life(100, 5600, 101, NR_PREAD64, 2, 102,
		   "postgres: alice db [local] idle");
	/* a user's, uid 1000, forked by the user's shell 7000 */
	cur_uid = 1000;
	sc(200, 7000, "bash", "/usr/bin/bash", NR_READ);
	fork_ev(201, NR_CLONE, 6999, 7000, "bash", "/usr/bin/bash", 7001,
		NULL);
	exec_ev(202, 7000, 7001, "postgres", "/home/mallory/postgres",
		"argc=3 a0=\"postgres\" a1=\"-D\" a2=\"d\"", NULL);
	sc_n(203, 7001, "postgres", "/home/mallory/postgres", NR_PTRACE, 3);
	fork_ev(204, NR_CLONE, 7000, 7001, "postgres",
		"/home/mallory/postgres", 7002, NULL);
	sc_n(205, 7002, "postgres", "/home/mallory/postgres", NR_MOUNT, 4);
	exit_ev_exe(206, 7001, 7002, "postgres", "/home/mallory/postgres",
		    "postgres: mallory db [local] idle");
	/* root's su that becomes the server's uid, then runs postgres */
	cur_uid = 0;
	fork_ev(300, NR_CLONE, 1, 6998, "su", "/usr/bin/su", 7100, NULL);
	sc(301, 7100, "su", "/usr/bin/su", NR_UNAME);
	cur_uid = 101;
	exec_ev(302, 6998, 7100, "postgres", PG_EXE,
		"argc=2 a0=\"postgres\" a1=\"--single\"", NULL);
	pg(303, 7100, NR_FSYNC, 1);
	finish();
}

static void
test_server_user(void **state)
{
	struct proctree_hints h = { NULL, 0, NULL, 1, 101 };

	/* without the option, the user's server counts */
	run_two_servers();
	assert_int_equal(count("postmaster", NR_PTRACE), 3);
	assert_int_equal(count("client backend", NR_MOUNT), 4);
	assert_int_equal(count("client backend", NR_PREAD64), 2);

	rerun(state, &h);
	run_two_servers();
	assert_int_equal(count("unrelated", NR_PTRACE), 3);
	assert_int_equal(count("unrelated", NR_MOUNT), 4);
	assert_int_equal(count("postmaster", NR_PTRACE), 0);
	assert_int_equal(count("client backend", NR_MOUNT), 0);
	/* the server is unchanged */
	assert_int_equal(count("client backend", NR_PREAD64), 2);
	/* su as root, then postgres as the server's uid */
	assert_int_equal(count("standalone", NR_FSYNC), 1);
}

/* ---------------------------------------------------------------- */
/* Forged identities (docs/security.md §2).  Each puts ptrace
 * into the records; it must reach no role of the server.             */

static uint64_t
ptrace_in_server(void)
{
	uint64_t n = 0;

	for (size_t i = 0; i < nrows; i++)
		if (rows[i].nr == NR_PTRACE &&
		    pgsc_role_in_server(rows[i].role))
			n += rows[i].count;
	return n;
}

/*
 * A record with another node= on a local backend's pid: another host's
 * process (or a forgery written into a log that gathers several hosts),
 * never that backend, even with --postmaster-pid and --server-user.  Its
 * exit does not end the backend either.
 */
static void
test_forgery_node(void **state)
{
	static const int64_t pm[] = { PM };
	struct proctree_hints h = { pm, 1, NULL, 1, 101 };

	rerun(state, &h);
	start_postmaster();
	fork_ev(100, NR_CLONE, 5511, PM, "postgres", PG_EXE, 5600, NULL);
	pg(101, 5600, NR_PREAD64, 2);
	cur_node = "evil";
	pg(102, 5600, NR_PTRACE, 3);
	exit_ev(103, PM, 5600, "postgres: checkpointer ");
	/* and a process of that node with the --postmaster-pid */
	pg(104, PM, NR_PTRACE, 1);
	cur_node = NULL;
	pg(110, 5600, NR_PREAD64, 1);
	exit_ev(200, PM, 5600, "postgres: alice db [local] idle");
	finish();
	assert_int_equal(count("client backend", NR_PREAD64), 3);
	assert_int_equal(count("client backend", NR_PTRACE), 0);
	assert_int_equal(count("checkpointer", NR_PTRACE), 0);
	assert_int_equal(ptrace_in_server(), 0);
	assert_int_equal(count_all(NR_PTRACE), 4);
}

/*
 * A postgres process with no postgres parent, whose exit record shows
 * ppid=1, and the title of a checkpointer: its title alone must not make
 * it the server's checkpointer, with or without --postmaster-pid and
 * --server-user (it runs as the server's uid).  A real checkpointer whose
 * fork was not seen but whose ppid= is the postmaster still is one.
 */
static void
forged_orphan(void)
{
	start_postmaster();
	pg(100, 9000, NR_PTRACE, 3);
	exit_ev(101, 1, 9000, "postgres: checkpointer ");
	/* a checkpointer that existed before its fork could be seen */
	pg(102, 5602, NR_FSYNC, 2);
	exit_ev(103, PM, 5602, "postgres: checkpointer ");
	finish();
}

static void
test_forgery_title_orphan(void **state)
{
	static const int64_t pm[] = { PM };
	struct proctree_hints h = { pm, 1, NULL, 1, 101 };

	forged_orphan();
	assert_int_equal(count("checkpointer", NR_PTRACE), 0);
	assert_int_equal(ptrace_in_server(), 0);
	assert_int_equal(count("checkpointer", NR_FSYNC), 2);
	rerun(state, &h);
	forged_orphan();
	assert_int_equal(count("checkpointer", NR_PTRACE), 0);
	assert_int_equal(ptrace_in_server(), 0);
	assert_int_equal(count("checkpointer", NR_FSYNC), 2);
	/* a parent seen to be something else: a title never places it */
	rerun(state, &h);
	start_postmaster();
	pg(100, 9000, NR_PTRACE, 3);
	fork_ev(99, NR_CLONE, 1, 8999, "bash", "/usr/bin/bash", 9000, NULL);
	exit_ev(101, 8999, 9000, "postgres: checkpointer ");
	finish();
	assert_int_equal(ptrace_in_server(), 0);
}

/*
 * A client's own role and database names: role "a:" on a database
 * "checkpointer" is "postgres: a: checkpointer [local] idle", a client
 * backend, not a checkpointer of a cluster "a".  With a server that has
 * a cluster name, learnt from its auxiliary processes, the same holds,
 * and a walsender's title is read with that name.
 */
static void
test_forgery_client_names(void **state)
{
	(void)state;
	start_postmaster();
	child_life(100, 5600, 101, NR_PTRACE, 3, 102,
		   "postgres: a: checkpointer [local] idle");
	child_life(110, 5601, 111, NR_FSYNC, 1, 112, "postgres: checkpointer ");
	finish();
	assert_int_equal(count("client backend", NR_PTRACE), 3);
	assert_int_equal(count("checkpointer", NR_PTRACE), 0);
	assert_int_equal(count("checkpointer", NR_FSYNC), 1);

	/* a server with cluster_name "main" */
	rerun(state, NULL);
	start_postmaster();
	child_life(100, 5600, 101, NR_PTRACE, 3, 102,
		   "postgres: main: a: checkpointer [local] idle");
	child_life(103, 5603, 104, NR_PTRACE, 1, 105,
		   "postgres: main: checkpointer db "
		   "10.0.0.1(5) idle");
	/* a walsender ends before the server's auxiliary processes */
	child_life(106, 5604, 107, NR_SENDTO, 2, 108,
		   "postgres: main: walsender rep [local] streaming 0/3000000");
	fork_ev(110, NR_CLONE, 5511, PM, "postgres", PG_EXE, 5601, NULL);
	pg(111, 5601, NR_FSYNC, 1);
	fork_ev(112, NR_CLONE, 5511, PM, "postgres", PG_EXE, 5602, NULL);
	pg(113, 5602, NR_UNAME, 1);
	exit_ev(200, PM, 5601, "postgres: main: checkpointer ");
	exit_ev(201, PM, 5602, "postgres: main: walwriter ");
	finish();
	assert_int_equal(count("client backend", NR_PTRACE), 4);
	assert_int_equal(ptrace_in_server(), 4);
	assert_int_equal(count("checkpointer", NR_PTRACE), 0);
	assert_int_equal(count("checkpointer", NR_FSYNC), 1);
	assert_int_equal(count("walwriter", NR_UNAME), 1);
	assert_int_equal(count("walsender", NR_SENDTO), 2);
}

/* A postgres process with no fork record but a known postgres child is
 * a postmaster too; its children are then classified by title. */
static void
test_postmaster_by_child(void **state)
{
	(void)state;
	pg(0, 6100, NR_ACCEPT, 1);
	fork_ev(10, NR_CLONE, 1, 6100, "postgres", PG_EXE, 6101, NULL);
	pg(11, 6101, NR_READ, 1);
	exit_ev(20, 6100, 6101, "postgres: bob db 10.0.0.1(5432) SELECT");
	finish();
	assert_int_equal(count("postmaster", NR_ACCEPT), 1);
	assert_int_equal(count("client backend", NR_READ), 1);
}

static void
test_unrelated(void **state)
{
	(void)state;
	sc(0, 7000, "bash", "/usr/bin/bash", NR_WAIT4);
	fork_ev(10, NR_CLONE, 1, 7000, "bash", "/usr/bin/bash", 7001, NULL);
	exec_ev(11, 7000, 7001, "cat", "/usr/bin/cat", "argc=1 a0=\"cat\"",
		"cat");
	sc_n(12, 7001, "cat", "/usr/bin/cat", NR_READ, 2);
	finish();
	assert_int_equal(count("unrelated", NR_READ), 2);
	assert_string_equal(role_of_pid(7001, 0), "unrelated");
	/* bash itself has no known parent, and no postgres process (no
	 * server uid) is in the stream: foreign */
	assert_int_equal(count("foreign", NR_WAIT4), 1);
	assert_false(pgsc_role_in_server("unrelated"));
	assert_false(pgsc_role_in_server("unattributed"));
	assert_false(pgsc_role_in_server("foreign"));
	assert_false(pgsc_role_in_server("standalone"));
	assert_true(pgsc_role_in_server("postmaster"));
	assert_true(pgsc_role_in_server("descendant/client backend"));
}

static void
test_standalone(void **state)
{
	(void)state;
	fork_ev(0, NR_CLONE, 1, 7100, "bash", "/usr/bin/bash", 7101, NULL);
	exec_ev(1, 7100, 7101, "postgres", PG_EXE,
		"argc=4 a0=\"" PG_EXE "\" a1=\"--single\" a2=\"-D\" "
		"a3=\"/tmp/rec/data\"", NULL);
	pg(2, 7101, NR_PREAD64, 2);
	/* --single spelled inside another word is not --single */
	fork_ev(3, NR_CLONE, 1, 7100, "bash", "/usr/bin/bash", 7102, NULL);
	exec_ev(4, 7100, 7102, "postgres", PG_EXE,
		"argc=3 a0=\"" PG_EXE "\" a1=\"-D\" a2=\"/tmp/--single\"",
		NULL);
	pg(5, 7102, NR_ACCEPT, 1);
	fork_ev(6, NR_CLONE, 7102, 7102, "postgres", PG_EXE, 7103, NULL);
	pg(7, 7103, NR_READ, 1);
	exit_ev(8, 7102, 7103, "postgres: checkpointer ");
	finish();
	assert_int_equal(count("standalone", NR_PREAD64), 2);
	assert_int_equal(count("postmaster", NR_PREAD64), 0);
	assert_string_equal(role_of_pid(7101, 0), "standalone");
	assert_int_equal(count("postmaster", NR_ACCEPT), 1);
	assert_int_equal(count("checkpointer", NR_READ), 1);
}

/* initdb's children (postgres --boot via sh) are standalone. */
static void
test_standalone_under_initdb(void **state)
{
	(void)state;
	fork_ev(0, NR_CLONE3, 5496, 5497, "initdb",
		"/usr/lib/postgresql/15/bin/initdb", 5498, NULL);
	exec_ev(1, 5497, 5498, "sh", DASH_EXE,
		"argc=3 a0=\"sh\" a1=\"-c\" a2=\"x\"", NULL);
	fork_ev(2, NR_VFORK, 5497, 5498, "sh", DASH_EXE, 5499, NULL);
	exec_ev(3, 5498, 5499, "postgres", PG_EXE,
		"argc=3 a0=\"" PG_EXE "\" a1=\"-F\" a2=\"-X\"", NULL);
	pg(4, 5499, NR_PREAD64, 1);
	finish();
	assert_int_equal(count("standalone", NR_PREAD64), 1);
}

/* A clone with CLONE_THREAD makes a thread, not a child process. */
static void
test_thread_clone_ignored(void **state)
{
	char res[128];

	(void)state;
	start_postmaster();
	snprintf(res, sizeof(res), "success=yes exit=5550 a0=3d0f00");
	syscall_line(100, ++serial, NR_CLONE, res, 5511, PM, "postgres",
		     PG_EXE);
	proctree_event_end(tree);
	pg(101, PM, NR_POLL, 1);
	finish();
	assert_null(proc_of_pid(5550, 0));
	assert_int_equal(count("postmaster", NR_POLL), 1);
}

#define PRUNE_KEEP 30.0

/*
 * clone3 children that never exec and make no record are taken for
 * threads: no processes row, forgotten after the keep time.  A clone3
 * child that execs (posix_spawn) and a clone child with no record yet
 * are kept and stored.
 */
static void
test_clone3_threads(void **state)
{
	size_t before;

	(void)state;
	start_postmaster();
	for (int i = 0; i < 50; i++)
		fork_ev(100 + i, NR_CLONE3, 5511, PM, "postgres", PG_EXE,
			9000 + i, NULL);
	fork_ev(200, NR_CLONE3, 5511, PM, "postgres", PG_EXE, 9100, NULL);
	exec_ev(201, PM, 9100, "sh", DASH_EXE, "argc=1 a0=\"sh\"", NULL);
	fork_ev(202, NR_CLONE, 5511, PM, "postgres", PG_EXE, 9101, NULL);
	before = proctree_nprocs(tree);
	/* within the keep time nothing goes */
	pg(300, PM, NR_POLL, 1);
	assert_int_equal(proctree_prune(tree, PRUNE_KEEP), 0);
	assert_int_equal(proctree_each_proc(tree, proc_cb, NULL), 0);
	assert_null(proc_of_pid(9000, 0));
	assert_null(proc_of_pid(9049, 0));
	assert_non_null(proc_of_pid(9100, 0));
	assert_non_null(proc_of_pid(9101, 0));
	for (size_t i = 0; i < nprocs; i++)
		free(procs[i].role);
	nprocs = 0;
	/* long after: the 50 thread entries go, the rest stays */
	pg(40000, PM, NR_POLL, 1);
	assert_int_equal(proctree_prune(tree, PRUNE_KEEP), 50);
	assert_int_equal(proctree_nprocs(tree), before - 50);
	/* a later record of a pruned id starts afresh */
	sc(40001, 9001, "x", "/usr/bin/x", NR_READ);
	pg(40002, 9101, NR_SENDTO, 1);
	finish();
	assert_int_equal(count(PGSC_ROLE_UNATTRIBUTED, NR_READ), 1);
	assert_int_equal(count("backend", NR_SENDTO), 1);
	assert_int_equal(count("postmaster", NR_POLL), 2);
}

static void
test_title_role(void **state)
{
	static const struct {
		const char *title, *role;
	} cases[] = {
		{ "postgres: checkpointer ", "checkpointer" },
		{ "postgres: checkpointer", "checkpointer" },
		{ "postgres: main: walwriter", "walwriter" },
		{ "postgres: main: alice db [local] idle", "client backend" },
		{ "postgres: alice db [local] idle", "client backend" },
		{ "postgres: alice db [local] idle in transaction (aborted)",
		  "client backend" },
		{ "postgres: bob db 10.0.0.1(5432) SELECT", "client backend" },
		{ "postgres: bob db [::1](40000) SELECT", "client backend" },
		{ "postgres: walsender rep [local] streaming 0/3000000",
		  "walsender" },
		{ "postgres: parallel worker for PID 12", "parallel worker" },
		{ "postgres: autovacuum worker mydb", "autovacuum worker" },
		{ "postgres: autovacuum launcher ", "autovacuum launcher" },
		{ "postgres: background writer ", "background writer" },
		{ "postgres: logical replication launcher ",
		  "logical replication launcher" },
		{ "postgres: startup recovering 000000010000000000000001",
		  "startup" },
		{ "postgres: archiver last was 000000010000000000000001",
		  "archiver" },
		{ "postgres: logger ", "logger" },
		{ "postgres: TimescaleDB Background Worker Scheduler",
		  "background worker" },
		/* a role "a:" on a database "checkpointer" */
		{ "postgres: a: checkpointer [local] idle", "client backend" },
		{ "postgres: a: walsender [local] idle", "client backend" },
		{ "postgres: main: checkpointer", "checkpointer" },
		/* a user named checkpointer is still a client backend */
		{ "postgres: checkpointer db [local] idle", "client backend" },
		{ "postgres: walwriter walwriter 10.1.1.1(1) idle",
		  "client backend" },
		{ "postmaster: checkpointer ", "checkpointer" },
		{ "/usr/bin/postgres -D x", NULL },
		{ "/usr/lib/postgresql/15/bin/postgres -D /tmp/rec/data", NULL },
		{ "postgres -D x", NULL },
		{ "postgres:", NULL },
		{ "postgres: ", NULL },
		{ "", NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *r = pgsc_title_role(cases[i].title);

		if (cases[i].role == NULL) {
			if (r != NULL)
				fail_msg("\"%s\" -> \"%s\", expected NULL",
					 cases[i].title, r);
		} else if (r == NULL || strcmp(r, cases[i].role) != 0) {
			fail_msg("\"%s\" -> \"%s\", expected \"%s\"",
				 cases[i].title, r ? r : "(null)",
				 cases[i].role);
		}
	}
	assert_null(pgsc_title_role(NULL));
}

/*
 * PostgreSQL role and database names may contain spaces ("app user"); the
 * title is then "postgres: app user db [local] idle".
 */
static void
test_title_role_spaces(void **state)
{
	(void)state;
	/*
	 * With a space in the user or database name the host word is not
	 * the third word; a client backend must not fall through to the
	 * auxiliary names ("checkpointer x" is a user here).
	 */
	assert_string_equal(pgsc_title_role("postgres: app user db [local] "
					    "idle"), "client backend");
	assert_string_equal(pgsc_title_role("postgres: alice my db "
					    "10.0.0.1(5432) idle"),
			    "client backend");
	assert_string_equal(pgsc_title_role("postgres: checkpointer x db "
					    "[local] idle"), "client backend");
}

/*
 * The titles PostgreSQL 16 to 18 gives its new processes, as their source
 * writes them (PostgreSQL 18.3):
 *
 * - auxiliary processes: AuxiliaryProcessMainCommon() (auxprocess.c) and
 *   ReplSlotSyncWorkerMain() (slotsync.c) call
 *	init_ps_display(NULL);
 *   which takes GetBackendTypeDesc(MyBackendType) (miscinit.c):
 *	backendDesc = gettext_noop("walsummarizer");
 *	backendDesc = gettext_noop("slotsync worker");
 *	backendDesc = gettext_noop("io worker");
 *   and writes (ps_status.c, init_ps_display()):
 *	PROGRAM_NAME_PREFIX "%s: %s ", cluster_name, fixed_part
 * - an io worker then shows its number, IoWorkerMain() (method_worker.c):
 *	sprintf(cmd, "%d", MyIoWorkerId);
 *	set_ps_display(cmd);
 * - a logical replication worker shows its bgw_name
 *   (bgworker.c: init_ps_display(worker->bgw_name);), which
 *   logicalrep_worker_launch() (launcher.c) sets to
 *	"logical replication apply worker for subscription %u",
 *	"logical replication parallel apply worker for subscription %u",
 *	"logical replication tablesync worker for subscription %u sync %u",
 *   all one type for pgsc (docs/roles.md §4).
 * - a dead-end client backend ("dead-end client backend") exits in
 *   BackendInitialize() (backend_startup.c) before
 *	init_ps_display(ps_data.data);
 *   so it has no title of its own (test_title_dead_end).
 */
static void
test_title_role_pg18(void **state)
{
	static const struct {
		const char *title, *role;
	} cases[] = {
		{ "postgres: walsummarizer ", "walsummarizer" },
		{ "postgres: main: walsummarizer ", "walsummarizer" },
		{ "postgres: slotsync worker ", "slotsync worker" },
		{ "postgres: main: slotsync worker ", "slotsync worker" },
		{ "postgres: io worker 0", "io worker" },
		{ "postgres: io worker 12", "io worker" },
		{ "postgres: main: io worker 0", "io worker" },
		{ "postgres: logical replication apply worker for "
		  "subscription 16385", "logical replication worker" },
		{ "postgres: logical replication parallel apply worker for "
		  "subscription 16385", "logical replication worker" },
		{ "postgres: logical replication tablesync worker for "
		  "subscription 16385 sync 16384",
		  "logical replication worker" },
		{ "postgres: main: logical replication parallel apply worker "
		  "for subscription 16385", "logical replication worker" },
		/* a user "io" on a database "worker" is a client backend */
		{ "postgres: io worker [local] idle", "client backend" },
		{ "postgres: walsummarizer db 10.0.0.1(5432) idle",
		  "client backend" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *r = pgsc_title_role(cases[i].title);

		if (r == NULL || strcmp(r, cases[i].role) != 0)
			fail_msg("\"%s\" -> \"%s\", expected \"%s\"",
				 cases[i].title, r ? r : "(null)",
				 cases[i].role);
	}
}

/*
 * A dead-end client backend keeps the postmaster's command line: no type
 * from its title.  It never runs a session, so no preset holds it by its
 * own name (docs/roles.md §5); the new auxiliary types are in none
 * either, and the slotsync worker, which calls InitPostgres(), is in rfc.
 */
static void
test_title_dead_end(void **state)
{
	static const char *const presets[] = { "client", "rfc", "pgseccomp" };

	(void)state;
	assert_null(pgsc_title_role("/usr/lib/postgresql/18/bin/postgres "
				    "-D /var/lib/postgresql/18/main"));
	for (size_t i = 0; i < ARRAY_SIZE(presets); i++) {
		struct strset s = { 0 };

		assert_int_equal(roles_session_parse(presets[i], &s, NULL), 0);
		assert_false(strset_has(&s, "dead-end client backend"));
		/* rfc: every process that calls InitPostgres() but autovacuum
		 * workers; slotsync.c: InitPostgres(dbname, ...) */
		assert_int_equal(strset_has(&s, "slotsync worker"),
				 strcmp(presets[i], "rfc") == 0);
		assert_false(strset_has(&s, "io worker"));
		assert_false(strset_has(&s, "walsummarizer"));
		strset_free(&s);
	}
	assert_true(roles_known("dead-end client backend"));
	assert_true(roles_known("io worker"));
	assert_true(roles_known("walsummarizer"));
	assert_true(roles_known("slotsync worker"));
	assert_true(roles_known("descendant/io worker"));
}

/* ---------------------------------------------------------------- */
/* Pruning: a long daemon run keeps memory bounded.                    */

/*
 * 4000 backends, one every 50 ms of stream time (200 s), pids reused at
 * random distances (some while the old holder is still in memory, some
 * after it was pruned); every fourth backend runs a shell whose records
 * come before the fork record (the vfork-style case).  Pruning after every
 * 100 backends, as a live collector does after each commit, must keep the
 * processes in memory near what 30 s of exits make (about 750), far below
 * the 5000 made, and lose or move no count.
 */
static void
test_prune_bounded(void **state)
{
	const int n = 4000, every = 100;
	size_t max = 0, pruned = 0;
	char title[64];

	(void)state;
	start_postmaster();
	for (int i = 0; i < n; i++) {
		long ms = 100 + 50L * i;
		int pid = 10000 + (int)((i * 7919L) % 600);
		int kid = 20000 + (int)((i * 104729L) % 300);

		fork_ev(ms, NR_CLONE, 5511, PM, "postgres", PG_EXE, pid, NULL);
		pg(ms + 1, pid, NR_SENDTO, 3);
		if (i % 4 == 0) {
			/* the shell's records before its parent's fork */
			sc(ms + 2, kid, "postgres", PG_EXE, NR_DUP2);
			fork_ev(ms + 2, NR_CLONE3, PM, pid, "postgres", PG_EXE,
				kid, NULL);
			exec_ev(ms + 3, pid, kid, "sh", DASH_EXE,
				"argc=1 a0=\"sh\"", NULL);
			sc_n(ms + 3, kid, "sh", DASH_EXE, NR_BRK, 2);
			exit_ev_exe(ms + 4, pid, kid, "sh", DASH_EXE, NULL);
		}
		snprintf(title, sizeof(title), "postgres: u%d db [local] idle",
			 i);
		exit_ev(ms + 5, PM, pid, title);
		if (i % every == every - 1) {
			pruned += proctree_prune(tree, PRUNE_KEEP);
			if (proctree_nprocs(tree) > max)
				max = proctree_nprocs(tree);
		}
	}
	print_message("prune: %zu pruned, at most %zu in memory\n", pruned,
		      max);
	/* 600 s of 50 ms backends in the window, plus their shells, plus
	 * one batch between prunes; without pruning it would be 5000+ */
	assert_true(max > 0 && max <= 1000);
	assert_true(pruned >= (size_t)n);
	assert_int_equal(proctree_finish(tree), 0);
	assert_int_equal(proctree_each_agg(tree, agg_cb, NULL), 0);
	assert_int_equal(count("client backend", NR_SENDTO), 3 * n);
	assert_int_equal(count("descendant/client backend", NR_DUP2), n / 4);
	assert_int_equal(count("descendant/client backend", NR_BRK), 2 * n / 4);
	assert_int_equal(count_all(NR_SENDTO), 3 * n);
	assert_int_equal(count_all(NR_DUP2), n / 4);
	assert_int_equal(count_all(NR_BRK), 2 * n / 4);
}

/*
 * A parent that exits before its child is kept as long as the child is in
 * memory (the child's role is read through it), however old its exit; a
 * pruned pid starts afresh.
 */
static void
test_prune_keeps_parents(void **state)
{
	(void)state;
	start_postmaster();
	fork_ev(100, NR_CLONE, 5511, PM, "postgres", PG_EXE, 6000, NULL);
	pg(101, 6000, NR_SENDTO, 1);
	fork_ev(102, NR_CLONE3, PM, 6000, "postgres", PG_EXE, 6001, NULL);
	exec_ev(103, 6000, 6001, "sh", DASH_EXE, "argc=1 a0=\"sh\"", NULL);
	exit_ev(104, PM, 6000, "postgres: alice db [local] COPY");
	/* the shell lives on for 200 s; the prunes must keep 6000 */
	for (int k = 1; k <= 20; k++) {
		sc(104 + 10000L * k, 6001, "sh", DASH_EXE, NR_BRK);
		proctree_prune(tree, PRUNE_KEEP);
	}
	exit_ev_exe(210000, 6000, 6001, "sh", DASH_EXE, NULL);
	/* a new process with the old backend's pid, long after */
	sc(240000, 6000, "sh", DASH_EXE, NR_UNAME);
	/* gone now: 6000 (old) once 6001 went; the new 6000 stays */
	sc(260000, 7000, "x", "/usr/bin/x", NR_READ);
	proctree_prune(tree, PRUNE_KEEP);
	proctree_prune(tree, PRUNE_KEEP);
	assert_int_equal(proctree_finish(tree), 0);
	assert_int_equal(proctree_each_agg(tree, agg_cb, NULL), 0);
	assert_int_equal(proctree_each_proc(tree, proc_cb, NULL), 0);
	assert_int_equal(count("descendant/client backend", NR_BRK), 20);
	assert_int_equal(count("client backend", NR_SENDTO), 1);
	/* the new 6000 is not the old backend's: no parent, no role */
	assert_int_equal(count("unattributed", NR_UNAME), 1);
	assert_null(proc_of_pid(6001, 0));
	assert_non_null(proc_of_pid(6000, 0));
	assert_int_equal(proc_of_pid(6000, 0)->parent_known, 0);
}

/* ---------------------------------------------------------------- */
/* A live collector killed and restarted (docs/robustness.md): a commit
 * stores the counts of open processes under the role they have then
 * (open_counts); the restart gives them back, and the roles come out as
 * in an uninterrupted run. */

#define UNREL 7100

struct role_count {
	char *role;
	int32_t nr;
	uint64_t count;
};

struct counts {
	struct role_count r[256];
	size_t n;
};

static void
counts_add(struct counts *c, const char *role, int32_t nr, int64_t n)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->r[i].nr == nr && strcmp(c->r[i].role, role) == 0) {
			assert_true(n >= 0 || c->r[i].count >= (uint64_t)-n);
			c->r[i].count += (uint64_t)n;
			return;
		}
	assert_true(n > 0);
	assert_true(c->n < ARRAY_SIZE(c->r));
	c->r[c->n].role = strdup(role);
	c->r[c->n].nr = nr;
	c->r[c->n].count = (uint64_t)n;
	c->n++;
}

static uint64_t
counts_get(const struct counts *c, const char *role, int32_t nr)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->r[i].nr == nr && strcmp(c->r[i].role, role) == 0)
			return c->r[i].count;
	return 0;
}

static void
counts_free(struct counts *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->r[i].role);
	c->n = 0;
}

static int
counts_cb(void *arg, const struct role_agg *a)
{
	counts_add(arg, a->role, a->nr, (int64_t)a->count);
	return 0;
}

/*
 * Processes that are never seen to exit (killed by a signal, or older
 * than the collection) must not stay in memory for ever: 20,000 distinct
 * pids of a program outside the servers, one a second, none exiting, are
 * forgotten an hour (stream time) after their last record, their counts
 * kept; a postmaster whose pid is still alive is kept however idle; a
 * backend killed unseen (no exit_group) goes once its pid is reused.
 */
static int
pm_rows_cb(void *arg, const struct proc_info *p)
{
	if (p->pid == PM) {
		assert_string_equal(p->role, "postmaster");
		++*(int *)arg;
	}
	return 0;
}

/*
 * A commit for memory's sake (proctree_prune_due()) comes after 8,192 new
 * processes in a small tree, and after a quarter of what the last prune
 * kept in a large one: a fleet's collector holds every node's processes,
 * and a fixed count made it commit every few seconds (docs/fleet.md).
 */
static void
test_prune_due_growth(void **state)
{
	int pid = 200000, n;

	(void)state;
	/* a fresh tree: 8,192 */
	for (n = 0; n < 8191; n++)
		sc(1000, pid++, "true", "/usr/bin/true", NR_UNAME);
	assert_false(proctree_prune_due(tree));
	sc(1000, pid++, "true", "/usr/bin/true", NR_UNAME);
	assert_true(proctree_prune_due(tree));
	/* 40,000 kept by a prune (none exited): a quarter is 10,000 */
	for (n = 8192; n < 40000; n++)
		sc(1000, pid++, "true", "/usr/bin/true", NR_UNAME);
	assert_int_equal(proctree_prune(tree, PRUNE_KEEP), 0);
	assert_int_equal(proctree_nprocs(tree), 40000);
	for (n = 0; n < 9999; n++)
		sc(2000, pid++, "true", "/usr/bin/true", NR_UNAME);
	assert_false(proctree_prune_due(tree));
	sc(2000, pid++, "true", "/usr/bin/true", NR_UNAME);
	assert_true(proctree_prune_due(tree));
}

static void
test_prune_forgets_unexited(void **state)
{
	int pm_rows = 0;

	const int n = 20000;
	size_t max = 0;

	(void)state;
	start_postmaster();
	fork_ev(100, NR_CLONE, 5511, PM, "postgres", PG_EXE, 5600, NULL);
	pg(101, 5600, NR_SENDTO, 1);
	for (int i = 0; i < n; i++) {
		long ms = 1000L + 1000L * i;

		sc(ms, 100000 + i, "true", "/usr/bin/true", NR_UNAME);
		if (i == 5000) {
			/* 5600 was killed: its pid goes to a new backend */
			fork_ev(ms, NR_CLONE, 5511, PM, "postgres", PG_EXE,
				5600, NULL);
			pg(ms + 1, 5600, NR_READ, 1);
			exit_ev(ms + 2, PM, 5600,
				"postgres: alice db [local] idle");
		}
		if (i % 100 == 99) {
			/* a commit writes them, then the prune */
			assert_int_equal(proctree_each_proc(tree, pm_rows_cb,
							    &pm_rows), 0);
			proctree_prune(tree, PRUNE_KEEP);
			if (proctree_nprocs(tree) > max)
				max = proctree_nprocs(tree);
		}
	}
	print_message("forget: at most %zu processes in memory of %d\n", max,
		      n);
	/* an hour of pids, one a second, plus one batch */
	assert_true(max <= 3600 + 300);
	assert_int_equal(proctree_finish(tree), 0);
	assert_int_equal(proctree_each_agg(tree, agg_cb, NULL), 0);
	assert_int_equal(count_all(NR_UNAME), n);
	assert_int_equal(count("postmaster", NR_ACCEPT), 3);
	/* killed unseen: no title, its type unknown */
	assert_int_equal(count(PGSC_ROLE_BACKEND_UNKNOWN, NR_SENDTO), 1);
	assert_int_equal(count("client backend", NR_READ), 1);
	/* the postmaster, idle since, is still the same process */
	pm_rows = 0;
	assert_int_equal(proctree_each_proc(tree, pm_rows_cb, &pm_rows), 0);
	assert_int_equal(pm_rows, 1);
}

/* What a commit stores: open counts and processes, copied. */
struct saved {
	struct proc_count open[256];
	size_t nopen;
	struct proc_info procs[64];
	size_t nprocs;
};

static char *
dup_or_null(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

static int
open_cb(void *arg, const struct proc_count *c)
{
	struct saved *sv = arg;

	assert_true(sv->nopen < ARRAY_SIZE(sv->open));
	sv->open[sv->nopen] = *c;
	sv->open[sv->nopen].role = strdup(c->role);
	sv->open[sv->nopen].node = dup_or_null(c->node);
	sv->nopen++;
	return 0;
}

static int
saved_proc_cb(void *arg, const struct proc_info *p)
{
	struct saved *sv = arg;
	struct proc_info *q;

	assert_true(sv->nprocs < ARRAY_SIZE(sv->procs));
	q = &sv->procs[sv->nprocs++];
	*q = *p;
	q->exe = dup_or_null(p->exe);
	q->comm = dup_or_null(p->comm);
	q->title = dup_or_null(p->title);
	q->role = dup_or_null(p->role);
	q->node = dup_or_null(p->node);
	return 0;
}

static void
saved_free(struct saved *sv)
{
	for (size_t i = 0; i < sv->nopen; i++) {
		free((char *)(uintptr_t)sv->open[i].role);
		free((char *)(uintptr_t)sv->open[i].node);
	}
	for (size_t i = 0; i < sv->nprocs; i++) {
		free((char *)(uintptr_t)sv->procs[i].node);
		free((char *)(uintptr_t)sv->procs[i].exe);
		free((char *)(uintptr_t)sv->procs[i].comm);
		free((char *)(uintptr_t)sv->procs[i].title);
		free((char *)(uintptr_t)sv->procs[i].role);
	}
}

static int
saved_has_open(const struct saved *sv, const struct proc_info *p)
{
	for (size_t i = 0; i < sv->nopen; i++)
		if (sv->open[i].pid == p->pid && sv->open[i].birth == p->birth)
			return 1;
	return 0;
}

static int
by_birth(const void *a, const void *b)
{
	const struct proc_info *x = a, *y = b;

	if (x->birth != y->birth)
		return x->birth < y->birth ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * Up to the commit: a postmaster; a backend with no title yet ("backend");
 * the backend's child whose records come before the fork record (kept
 * one by one, "unattributed"); a child of pg_ctl that has not exec'd
 * postgres yet ("unrelated").
 */
static void
restart_part1(void)
{
	start_postmaster();
	fork_ev(30, NR_CLONE, 5510, 5511, "pg_ctl", PGCTL_EXE, UNREL, NULL);
	sc_n(31, UNREL, "pg_ctl", PGCTL_EXE, NR_GETPPID, 2);
	fork_ev(100, NR_CLONE, 5511, PM, "postgres", PG_EXE, 5523, NULL);
	pg(101, 5523, NR_PREAD64, 2);
	pg(176, 5636, NR_RT_SIGPROCMASK, 3);
	/* a backend's child, no record of its own yet */
	fork_ev(180, NR_CLONE, PM, 5523, "postgres", PG_EXE, 5700, NULL);
}

/* After it: the fork record of 5636, the backend's exit with its title,
 * the exec of postgres by 7100. */
static void
restart_part2(void)
{
	fork_ev(175, NR_CLONE3, PM, 5523, "postgres", PG_EXE, 5636,
		"postgres: alice db [local] COPY");
	pg(177, 5636, NR_DUP2, 1);
	pg(178, 5523, NR_PREAD64, 1);
	exit_ev(400, PM, 5523, "postgres: alice db [local] idle");
	exec_ev(500, 5511, UNREL, "postgres", PG_EXE,
		"argc=3 a0=\"" PG_EXE "\" a1=\"-D\" a2=\"/tmp/rec/d2\"", NULL);
	pg(501, UNREL, NR_BIND, 1);
	/* all of 5700's records come after the commit */
	sc_n(190, 5700, "sh", "/usr/bin/dash", NR_FSYNC, 4);
}

/*
 * A live commit writes only the open count rows that changed: a model of
 * the open_counts table, fed as round.c feeds the store (a row to
 * replace must be there; a new one must not), holds after each commit
 * exactly what proctree_each_open() lists, and a record of one syscall of
 * a settled process is one row, replaced.
 */
struct model_row {
	char node[32], role[64];
	int64_t pid;
	double birth, first, last;
	int pending;
	uint32_t arch;
	int32_t nr;
	uint64_t count;
};

struct model {
	struct model_row r[256];
	size_t n;
	size_t puts, replaced;
};

static int
model_same_key(const struct model_row *m, const struct proc_count *c,
	       int first)
{
	return m->pid == c->pid && m->birth == c->birth &&
	       strcmp(m->node, c->node ? c->node : "") == 0 &&
	       m->pending == c->pending && m->arch == c->arch &&
	       m->nr == c->nr && (!first || m->first == c->first);
}

static int
model_del(void *arg, const char *node, int64_t pid, double birth)
{
	struct model *md = arg;
	size_t k = 0;

	for (size_t i = 0; i < md->n; i++)
		if (md->r[i].pid != pid || md->r[i].birth != birth ||
		    strcmp(md->r[i].node, node ? node : "") != 0)
			md->r[k++] = md->r[i];
	md->n = k;
	return 0;
}

static void
model_set(struct model_row *m, const struct proc_count *c)
{
	snprintf(m->node, sizeof(m->node), "%s", c->node ? c->node : "");
	snprintf(m->role, sizeof(m->role), "%s", c->role);
	m->pid = c->pid;
	m->birth = c->birth;
	m->pending = c->pending;
	m->arch = c->arch;
	m->nr = c->nr;
	m->count = c->count;
	m->first = c->first;
	m->last = c->last;
}

static int
model_put(void *arg, const struct proc_count *c)
{
	struct model *md = arg;

	md->puts++;
	for (size_t i = 0; i < md->n; i++) {
		if (!model_same_key(&md->r[i], c, !c->replace))
			continue;
		/* the statement of an insert adds (kept records of one time) */
		assert_true(c->replace || c->pending);
		if (c->replace) {
			assert_int_equal(c->pending, 0);
			assert_string_equal(md->r[i].role, c->role);
			md->replaced++;
			md->r[i].count = c->count;
		} else {
			md->r[i].count += c->count;
		}
		md->r[i].first = c->first;
		md->r[i].last = c->last;
		return 0;
	}
	/* a row to replace is in the store */
	assert_false(c->replace);
	assert_true(md->n < ARRAY_SIZE(md->r));
	model_set(&md->r[md->n++], c);
	return 0;
}

static int
model_list(void *arg, const struct proc_count *c)
{
	struct model *md = arg;

	for (size_t i = 0; i < md->n; i++)
		if (model_same_key(&md->r[i], c, 1)) {
			md->r[i].count += c->count;
			return 0;
		}
	assert_true(md->n < ARRAY_SIZE(md->r));
	model_set(&md->r[md->n++], c);
	return 0;
}

static int
model_cmp(const void *a, const void *b)
{
	const struct model_row *x = a, *y = b;
	int c = strcmp(x->node, y->node);

	if (c == 0)
		c = (x->pid > y->pid) - (x->pid < y->pid);
	if (c == 0)
		c = (x->birth > y->birth) - (x->birth < y->birth);
	if (c == 0)
		c = x->pending - y->pending;
	if (c == 0)
		c = (x->arch > y->arch) - (x->arch < y->arch);
	if (c == 0)
		c = (x->nr > y->nr) - (x->nr < y->nr);
	if (c == 0)
		c = (x->first > y->first) - (x->first < y->first);
	return c;
}

/* One live commit into @md; the rows it holds are then the tree's. */
static void
model_commit(struct model *md, int all)
{
	struct model *want = calloc(1, sizeof(*want));

	assert_non_null(want);
	if (all)
		md->n = 0;
	md->puts = md->replaced = 0;
	assert_int_equal(proctree_each_changed_open(tree, all, model_del,
						    model_put, md), 0);
	proctree_open_committed(tree);
	assert_int_equal(proctree_each_open(tree, model_list, want), 0);
	assert_int_equal(md->n, want->n);
	qsort(md->r, md->n, sizeof(md->r[0]), model_cmp);
	qsort(want->r, want->n, sizeof(want->r[0]), model_cmp);
	for (size_t i = 0; i < md->n; i++) {
		assert_int_equal(model_cmp(&md->r[i], &want->r[i]), 0);
		assert_int_equal(md->r[i].count, want->r[i].count);
		assert_true(md->r[i].last == want->r[i].last);
		assert_string_equal(md->r[i].role, want->r[i].role);
	}
	free(want);
}

static void
test_open_rows_changed(void **state)
{
	struct model *md = calloc(1, sizeof(*md));

	(void)state;
	assert_non_null(md);
	restart_part1();
	model_commit(md, 1);
	assert_true(md->n > 5);
	/* nothing new: nothing written */
	model_commit(md, 0);
	assert_int_equal(md->puts, 0);
	/* one more record of a syscall the postmaster has: its row only */
	pg(190, PM, NR_ACCEPT, 1);
	model_commit(md, 0);
	assert_int_equal(md->puts, 1);
	assert_int_equal(md->replaced, 1);
	/* a syscall it did not have: one new row */
	pg(191, PM, NR_DUP2, 2);
	model_commit(md, 0);
	assert_int_equal(md->puts, 1);
	assert_int_equal(md->replaced, 0);
	/* roles learnt, kept records settled, an exit, a record earlier
	 * than the first of its row */
	restart_part2();
	pg(5, PM, NR_BIND, 1);
	model_commit(md, 0);
	/* a commit rolled back: everything again, into a cleared table */
	pg(600, PM, NR_ACCEPT, 1);
	proctree_rows_unwritten(tree);
	model_commit(md, 1);
	pg(601, PM, NR_ACCEPT, 1);
	model_commit(md, 0);
	assert_int_equal(md->puts, 1);
	assert_int_equal(md->replaced, 1);
	free(md);
}

static void
test_restart_reattributes(void **state)
{
	struct counts clean = { 0 }, committed = { 0 }, restarted = { 0 };
	struct saved *sv = calloc(1, sizeof(*sv));
	struct proctree *first;
	uint64_t given = 0, open_total = 0;

	(void)state;
	assert_non_null(sv);
	/* the uninterrupted run */
	restart_part1();
	restart_part2();
	assert_int_equal(proctree_finish(tree), 0);
	assert_int_equal(proctree_each_agg(tree, counts_cb, &clean), 0);
	assert_int_equal(counts_get(&clean, "client backend", NR_PREAD64), 3);
	assert_int_equal(counts_get(&clean, "descendant/client backend",
				    NR_RT_SIGPROCMASK), 3);
	assert_int_equal(counts_get(&clean, "postmaster", NR_GETPPID), 2);
	assert_int_equal(counts_get(&clean, "descendant/client backend",
				    NR_FSYNC), 4);
	proctree_free(tree);

	/* the killed run: part 1, a commit */
	serial = 1000;
	assert_int_equal(proctree_new(NULL, &tree), 0);
	restart_part1();
	assert_int_equal(proctree_snapshot(tree, counts_cb, &committed), 0);
	assert_int_equal(proctree_each_open(tree, open_cb, sv), 0);
	assert_int_equal(proctree_each_proc(tree, saved_proc_cb, sv), 0);
	/* the commit holds provisional roles: the case to get right */
	assert_int_equal(counts_get(&committed, PGSC_ROLE_BACKEND_UNKNOWN,
				    NR_PREAD64), 2);
	assert_int_equal(counts_get(&committed, PGSC_ROLE_UNATTRIBUTED,
				    NR_RT_SIGPROCMASK), 3);
	assert_int_equal(counts_get(&committed, PGSC_ROLE_UNRELATED,
				    NR_GETPPID), 2);
	for (size_t i = 0; i < sv->nopen; i++)
		open_total += sv->open[i].count;
	/* kept records come one by one, with their time */
	for (size_t i = 0; i < sv->nopen; i++)
		if (sv->open[i].nr == NR_RT_SIGPROCMASK)
			assert_int_equal(sv->open[i].pending, 1);

	/* the restart: seed what is alive or has open counts, oldest
	 * first, and take what goes back to processes out of the base */
	first = tree;
	assert_int_equal(proctree_new(NULL, &tree), 0);
	qsort(sv->procs, sv->nprocs, sizeof(sv->procs[0]), by_birth);
	for (size_t i = 0; i < sv->nprocs; i++) {
		const struct proc_info *p = &sv->procs[i];

		if (p->exited && !saved_has_open(sv, p))
			continue;
		assert_int_equal(proctree_seed_open(tree, p), 0);
		for (size_t k = 0; k < sv->nopen; k++) {
			const struct proc_count *c = &sv->open[k];
			int rc;

			if (c->pid != p->pid || c->birth != p->birth)
				continue;
			rc = proctree_seed_count(tree, c);
			assert_true(rc == 0 || rc == 1);
			if (rc == 1) {
				counts_add(&committed, c->role, c->nr,
					   -(int64_t)c->count);
				given += c->count;
			}
		}
	}
	proctree_free(first);
	/* every open count went back to its process */
	assert_int_equal(given, open_total);
	assert_true(given > 0);

	/* part 2 into the restarted tree; result: base + its aggregates */
	restart_part2();
	assert_int_equal(proctree_finish(tree), 0);
	assert_int_equal(proctree_each_agg(tree, counts_cb, &restarted), 0);
	for (size_t i = 0; i < committed.n; i++)
		if (committed.r[i].count > 0)
			counts_add(&restarted, committed.r[i].role,
				   committed.r[i].nr,
				   (int64_t)committed.r[i].count);
	for (size_t i = 0; i < clean.n; i++) {
		if (counts_get(&restarted, clean.r[i].role, clean.r[i].nr) !=
		    clean.r[i].count)
			print_message("differs: %s nr=%d clean %llu "
				      "restarted %llu\n", clean.r[i].role,
				      clean.r[i].nr,
				      (unsigned long long)clean.r[i].count,
				      (unsigned long long)counts_get(
					      &restarted, clean.r[i].role,
					      clean.r[i].nr));
		assert_int_equal(counts_get(&restarted, clean.r[i].role,
					    clean.r[i].nr), clean.r[i].count);
	}
	for (size_t i = 0; i < restarted.n; i++)
		assert_int_equal(counts_get(&clean, restarted.r[i].role,
					    restarted.r[i].nr),
				 restarted.r[i].count);
	counts_free(&clean);
	counts_free(&committed);
	counts_free(&restarted);
	saved_free(sv);
	free(sv);
}

/*
 * A restart as src/live.c makes it: a new tree (with @h), seeded with the
 * rows not seen to exit and those with open counts, oldest first, each
 * given back its open counts.
 */
static void
restart_from(struct saved *sv, const struct proctree_hints *h)
{
	proctree_free(tree);
	assert_int_equal(proctree_new(h, &tree), 0);
	qsort(sv->procs, sv->nprocs, sizeof(sv->procs[0]), by_birth);
	for (size_t i = 0; i < sv->nprocs; i++) {
		const struct proc_info *p = &sv->procs[i];

		if (p->exited && !saved_has_open(sv, p))
			continue;
		assert_int_equal(proctree_seed_open(tree, p), 0);
		for (size_t k = 0; k < sv->nopen; k++)
			if (sv->open[k].pid == p->pid &&
			    sv->open[k].birth == p->birth)
				assert_true(proctree_seed_count(tree,
							       &sv->open[k]) >= 0);
	}
}

/*
 * --server-user across a restart: the processes table keeps each
 * process's uid, so a user's postgres seeded by a continued round is
 * still not a server's, even when the records after the restart carry
 * no uid= (here: none at all, the case that only the stored uid covers).
 */
static void
test_server_user_restart(void **state)
{
	struct proctree_hints h = { NULL, 0, NULL, 1, 101 };
	struct saved *sv = calloc(1, sizeof(*sv));
	int found = 0;

	(void)state;
	assert_non_null(sv);
	proctree_free(tree);
	assert_int_equal(proctree_new(&h, &tree), 0);
	cur_uid = 1000;
	sc(200, 7000, "bash", "/usr/bin/bash", NR_READ);
	fork_ev(201, NR_CLONE, 6999, 7000, "bash", "/usr/bin/bash", 7001,
		NULL);
	exec_ev(202, 7000, 7001, "postgres", "/home/mallory/postgres",
		"argc=3 a0=\"postgres\" a1=\"-D\" a2=\"d\"", NULL);
	sc_n(203, 7001, "postgres", "/home/mallory/postgres", NR_PTRACE, 3);
	/* the commit */
	assert_int_equal(proctree_each_open(tree, open_cb, sv), 0);
	assert_int_equal(proctree_each_proc(tree, saved_proc_cb, sv), 0);
	for (size_t i = 0; i < sv->nprocs; i++) {
		if (sv->procs[i].pid != 7001)
			continue;
		assert_int_equal(sv->procs[i].uid, 1000);
		found = 1;
	}
	assert_true(found);
	/* the restart */
	restart_from(sv, &h);
	cur_uid = -1;
	fork_ev(300, NR_CLONE, 7000, 7001, "postgres",
		"/home/mallory/postgres", 7002, NULL);
	sc_n(301, 7002, "postgres", "/home/mallory/postgres", NR_MOUNT, 4);
	exit_ev_exe(302, 7001, 7002, "postgres", "/home/mallory/postgres",
		    "postgres: mallory db [local] idle");
	finish();
	assert_int_equal(count("unrelated", NR_MOUNT), 4);
	assert_int_equal(count("client backend", NR_MOUNT), 0);
	assert_int_equal(count("postmaster", NR_PTRACE), 0);
	saved_free(sv);
	free(sv);
}

/* saved_proc_cb() that replaces the row of the same (pid, birth), as the
 * processes table's INSERT OR REPLACE does across commits. */
static int
saved_proc_replace_cb(void *arg, const struct proc_info *p)
{
	struct saved *sv = arg;

	for (size_t i = 0; i < sv->nprocs; i++) {
		struct proc_info *q = &sv->procs[i];

		if (q->pid != p->pid || q->birth != p->birth)
			continue;
		free((char *)(uintptr_t)q->exe);
		free((char *)(uintptr_t)q->comm);
		free((char *)(uintptr_t)q->title);
		free((char *)(uintptr_t)q->role);
		free((char *)(uintptr_t)q->node);
		sv->procs[i] = sv->procs[--sv->nprocs];
		break;
	}
	return saved_proc_cb(arg, p);
}

/* A live commit: the open counts replaced, the processes upserted. */
static void
commit(struct saved *sv)
{
	for (size_t i = 0; i < sv->nopen; i++) {
		free((char *)(uintptr_t)sv->open[i].role);
		free((char *)(uintptr_t)sv->open[i].node);
	}
	sv->nopen = 0;
	assert_int_equal(proctree_each_open(tree, open_cb, sv), 0);
	assert_int_equal(proctree_each_proc(tree, saved_proc_replace_cb, sv),
			 0);
}

/*
 * The parts of a stream that a collector reads with a kill between them:
 * RESTART_BEFORE up to the kill (@sv: where its commits go, NULL when
 * nothing is killed), RESTART_COMMITTED after the last commit (only when
 * killed), RESTART_AFTER after the restart (or with no break).
 */
enum restart_part { RESTART_BEFORE, RESTART_COMMITTED, RESTART_AFTER };
typedef void restart_fn(enum restart_part, struct saved *sv, void *arg);

/*
 * Read the stream of @fn twice: without a break, then with a commit, a
 * kill and a restart (restart_from()) between its parts.  The counts of
 * @clean must hold after the first, those of @killed after the second.
 */
static void
restart_run(void **state, restart_fn *fn, void *arg,
	    const struct want *clean, size_t nclean,
	    const struct want *killed, size_t nkilled)
{
	struct saved *sv = calloc(1, sizeof(*sv));

	assert_non_null(sv);
	fn(RESTART_BEFORE, NULL, arg);
	fn(RESTART_AFTER, NULL, arg);
	finish();
	expect_counts(clean, nclean);
	teardown(state);
	setup(state);

	fn(RESTART_BEFORE, sv, arg);
	commit(sv);
	fn(RESTART_COMMITTED, sv, arg);
	restart_from(sv, NULL);
	fn(RESTART_AFTER, sv, arg);
	finish();
	expect_counts(killed, nkilled);
	saved_free(sv);
	free(sv);
}

static void
stale_part(enum restart_part part, struct saved *sv, void *arg)
{
	(void)arg;
	if (part == RESTART_AFTER) {
		sc_n(200, 7001, "sh", DASH_EXE, NR_UNAME, 4);
		exit_ev_exe(210, 7000, 7001, "sh", DASH_EXE, NULL);
		return;
	}
	if (part != RESTART_BEFORE)
		return;
	/* 7001's records come before its parent's fork record */
	sc_n(100, 7001, "sh", DASH_EXE, NR_BRK, 3);
	if (sv != NULL)  /* commit A: 7001 is provisional, born at 100 */
		assert_int_equal(proctree_each_proc(tree,
						    saved_proc_replace_cb, sv),
				 0);
	fork_ev(99, NR_CLONE, 6999, 7000, "bash", "/usr/bin/bash", 7001, NULL);
	/* the parent, which made no record, exits */
	exit_ev_exe(150, 6999, 7000, "bash", "/usr/bin/bash", NULL);
	sc_n(160, 7001, "sh", DASH_EXE, NR_BRK, 2);
	/* then commit B and the kill */
}

/*
 * The row a provisional process left at an earlier commit stays behind,
 * not exited, once a fork record adopts it (its birth changes).  After a
 * restart it must not take the pid from the adopted process, also when
 * that one's parent is not in memory any more (it exited, no counts):
 * the adopted one's row says its fork record was seen.
 */
static void
test_restart_stale_provisional(void **state)
{
	static const struct want clean[] = {
		{ "unrelated", NR_UNAME, 4 },
	}, killed[] = {
		{ "unrelated", NR_UNAME, 4 },
		{ PGSC_ROLE_UNATTRIBUTED, NR_UNAME, 0 },
	};

	restart_run(state, stale_part, NULL, clean, ARRAY_SIZE(clean), killed,
		    ARRAY_SIZE(killed));
}

/*
 * The crash-live "unattributed|126" failure (docs/robustness.md), as
 * pg_ctl's posix_spawn child makes it in the recorded log: the child's
 * records come before its parent's clone3 record.  Commit A sees the child
 * provisional (row born at its first record); the fork record adopts it; it
 * exits; commit B; the kill.  The adopted process is exited now, with its
 * counts still open (or pruned), so nothing in memory holds the pid when
 * the restart reads the processes table.  The row of commit A must not come
 * back as a live process: when the pid is reused (the next copy of the
 * workload) and the new child's records again come first, it would take
 * them, and they would go to "unattributed" instead of "unrelated".  With
 * @prune the adopted process is forgotten before commit B, as a live
 * collector does after a commit.
 */
static void
adopted_part(enum restart_part part, struct saved *sv, void *arg)
{
	int prune = *(const int *)arg;

	if (part == RESTART_AFTER) {
		/* The pid comes again, a new spawn whose records come first
		 * again. */
		sc_n(90000, 7001, "pg_ctl", PGCTL_EXE, NR_UNAME, 4);
		fork_ev(89999, NR_CLONE3, 6999, 7000, "pg_ctl", PGCTL_EXE, 7001,
			NULL);
		sc_n(90001, 7001, "pg_ctl", PGCTL_EXE, NR_UNAME, 1);
		exit_ev_exe(90002, 7000, 7001, "pg_ctl", PGCTL_EXE, NULL);
		return;
	}
	if (part != RESTART_BEFORE)
		return;
	sc(50, 7000, "pg_ctl", PGCTL_EXE, NR_WAIT4);
	sc_n(100, 7001, "pg_ctl", PGCTL_EXE, NR_RT_SIGACTION, 3);
	if (sv != NULL) /* commit A */
		assert_int_equal(proctree_each_proc(tree,
						    saved_proc_replace_cb, sv),
				 0);
	fork_ev(99, NR_CLONE3, 6999, 7000, "pg_ctl", PGCTL_EXE, 7001, NULL);
	sc_n(101, 7001, "pg_ctl", PGCTL_EXE, NR_BRK, 2);
	exit_ev_exe(150, 7000, 7001, "pg_ctl", PGCTL_EXE, NULL);
	if (prune) {
		/* a live collector prunes right after a commit */
		sc(60000, 7000, "pg_ctl", PGCTL_EXE, NR_WAIT4);
		if (sv != NULL)
			commit(sv);
		assert_true(proctree_prune(tree, 30.0) > 0);
	}
}

static void
restart_adopted(void **state, int prune)
{
	static const struct want clean[] = {
		{ "unrelated", NR_UNAME, 5 },
		{ "unrelated", NR_RT_SIGACTION, 3 },
	}, killed[] = {
		{ "unrelated", NR_UNAME, 5 },
		{ PGSC_ROLE_UNATTRIBUTED, NR_UNAME, 0 },
	};

	/* commit B, then the kill */
	restart_run(state, adopted_part, &prune, clean, ARRAY_SIZE(clean),
		    killed, ARRAY_SIZE(killed));
}

/*
 * A local process and another node's with the same pid, both alive at
 * the kill: the store keeps each one's node, so the restart seeds both
 * and each keeps its own records and role.
 */
static void
node_part(enum restart_part part, struct saved *sv, void *arg)
{
	(void)sv;
	(void)arg;
	if (part == RESTART_COMMITTED)
		return;
	if (part == RESTART_BEFORE) {
		fork_ev(10, NR_CLONE, 1, 7000, "bash", "/usr/bin/bash", 7001,
			NULL);
		sc(11, 7001, "sh", DASH_EXE, NR_BRK);
		cur_node = "other";
		sc(12, 7001, "x", "/usr/bin/x", NR_READ);
		cur_node = NULL;
		return;
	}
	sc(20, 7001, "sh", DASH_EXE, NR_UNAME);
	cur_node = "other";
	sc(21, 7001, "x", "/usr/bin/x", NR_FSYNC);
	cur_node = NULL;
}

static void
test_restart_node(void **state)
{
	static const struct want w[] = {
		{ "unrelated", NR_BRK, 1 },
		{ "unrelated", NR_UNAME, 1 },
		/* no postgres in the stream: no server uid, foreign */
		{ PGSC_ROLE_FOREIGN, NR_READ, 1 },
		{ PGSC_ROLE_FOREIGN, NR_FSYNC, 1 },
	};

	restart_run(state, node_part, NULL, w, ARRAY_SIZE(w), w, ARRAY_SIZE(w));
}

/*
 * An exit_group event split by the feed's forced hand-over (a writer that
 * paused mid-event while a commit was due): its PROCTITLE comes after the
 * event was applied.  The title still types the backend, also when a
 * commit and a kill came in between.  Without it the backend stayed
 * "backend" (157 records in a crash-live run under load).
 */
static void
late_part(enum restart_part part, struct saved *sv, void *arg)
{
	uint64_t *ser = arg;

	(void)sv;
	if (part == RESTART_COMMITTED)
		return;
	if (part == RESTART_BEFORE) {
		start_postmaster();
		fork_ev(100, NR_CLONE, 5511, PM, "postgres", PG_EXE, 5600,
			NULL);
		pg(101, 5600, NR_PREAD64, 2);
		*ser = ++serial;
		syscall_line(102, *ser, NR_EXIT_GROUP, "a0=0", PM, 5600,
			     "postgres", PG_EXE);
		proctree_event_end(tree);
		return;
	}
	proctitle_line(102, *ser, "postgres: alice db [local] idle");
	proctree_event_end(tree);
}

static void
test_late_title(void **state)
{
	static const struct want clean[] = {
		{ "client backend", NR_PREAD64, 2 },
	}, killed[] = {
		{ "client backend", NR_PREAD64, 2 },
		{ PGSC_ROLE_BACKEND_UNKNOWN, NR_PREAD64, 0 },
	};
	uint64_t ser = 0;

	restart_run(state, late_part, &ser, clean, ARRAY_SIZE(clean), killed,
		    ARRAY_SIZE(killed));
}

/*
 * A postgres process whose fork was not seen, typed by its title (a live
 * collector reads it from /proc while the process runs) at a commit, then
 * killed; after the restart its exit record shows ppid=1: the title no
 * longer places it (title_parent_ok()), after a restart as without one.
 * Without recomputing, the committed "checkpointer" stayed (a
 * crash-live-auditd run: another cluster's background writer and
 * walwriter on the shared machine).
 */
static void
revoked_part(enum restart_part part, struct saved *sv, void *arg)
{
	(void)arg;
	if (part == RESTART_BEFORE) {
		pg(100, 9000, NR_PTRACE, 3);
		return;
	}
	if (part == RESTART_AFTER) {
		exit_ev(200, 1, 9000, "postgres: checkpointer ");
		return;
	}
	/* what the commit wrote with the title /proc gave */
	for (size_t i = 0; i < sv->nprocs; i++) {
		if (sv->procs[i].pid != 9000)
			continue;
		free((char *)(uintptr_t)sv->procs[i].title);
		free((char *)(uintptr_t)sv->procs[i].role);
		sv->procs[i].title = strdup("postgres: checkpointer ");
		sv->procs[i].role = strdup("checkpointer");
	}
}

static void
test_restart_title_revoked(void **state)
{
	static const struct want clean[] = {
		{ PGSC_ROLE_UNATTRIBUTED, NR_PTRACE, 3 },
	}, killed[] = {
		{ "checkpointer", NR_PTRACE, 0 },
	};

	restart_run(state, revoked_part, NULL, clean, ARRAY_SIZE(clean),
		    killed, ARRAY_SIZE(killed));
}

static void
test_restart_adopted_exited(void **state)
{
	restart_adopted(state, 0);
}

static void
test_restart_adopted_pruned(void **state)
{
	restart_adopted(state, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_postmaster_backend, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_auxiliary_titles, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_child_before_parent_same_time, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_child_before_parent_later_time, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_child_after_stale_provisional, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pid_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pid_reuse_child_first,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_pid_reuse_after_unaudited_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unattributed_and_hint,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_postmaster_by_child, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unrelated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_standalone, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_standalone_under_initdb,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_clone_ignored, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_clone3_threads, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_server_user, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_server_user_restart, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_forgery_node, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_forgery_title_orphan,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_forgery_client_names,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_stale_provisional,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_adopted_exited,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_node, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_late_title, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_restart_title_revoked,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_adopted_pruned,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune_bounded, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_prune_keeps_parents, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_prune_due_growth, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_prune_forgets_unexited,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart_reattributes,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_rows_changed, setup,
						teardown),
		cmocka_unit_test(test_title_role),
		cmocka_unit_test(test_title_role_spaces),
		cmocka_unit_test(test_title_role_pg18),
		cmocka_unit_test(test_title_dead_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
