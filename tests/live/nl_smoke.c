/* SPDX-License-Identifier: PostgreSQL */
/* nl_smoke.c - live test of src/netlink.c against the real kernel (root).
 *
 *   nl_smoke [N]               take over from a dead daemon, register,
 *                              read N SECCOMP records of a child and a
 *                              drain marker, check lost, unregister
 *   nl_smoke --expect-refusal  another audit daemon runs: netlink_open must
 *                              fail with -EEXIST and name it
 *
 * NL_SMOKE_DUMP=FILE writes the lines read to FILE (for ausearch -if).
 * Only one process can be the audit daemon: run it under
 * "flock /run/pgsc-audit.lock" (tests/live/nl_smoke.sh does).
 * Build: gcc -std=c11 -D_GNU_SOURCE -I src tests/live/nl_smoke.c
 *        src/netlink.c src/util.c -laudit -lseccomp
 */
#include <errno.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "netlink.h"

#define BUF_SIZE (1024 * 1024)
#define SMALL_CAP 1000          /* a few lines: the next one must wait */
#define TIMEOUT_S 120.0

static void
fail(const char *fmt, ...) PGSC_PRINTF(1, 2);

static void
fail(const char *fmt, ...)
{
	va_list ap;

	fputs("nl_smoke: FAIL: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void
figures(const char *when, struct netlink_figures *f)
{
	char *cause = NULL;
	int rc = netlink_figures_get(f, &cause);

	if (rc < 0)
		fail("netlink_figures_get (%s): %s", when,
		     cause ? cause : strerror(-rc));
	printf("nl_smoke: %-14s enabled=%u pid=%u lost=%u backlog=%u/%u "
	       "wait=%u", when, f->enabled, f->pid, f->lost, f->backlog,
	       f->backlog_limit, f->backlog_wait_time);
	if (f->has_wait_actual)
		printf(" wait_actual=%u", f->backlog_wait_time_actual);
	printf("\n");
}

/* --expect-refusal: an audit daemon runs, so opening must fail. */
static int
expect_refusal(void)
{
	struct netlink_figures f;
	struct netlink *s = NULL;
	char *cause = NULL, want[32];
	int rc;

	figures("before", &f);
	if (f.pid == 0)
		fail("no audit daemon is registered; nothing to refuse");
	rc = netlink_open(8192, 60000, &s, &cause);
	if (rc == 0) {
		netlink_close(s);
		fail("netlink_open succeeded next to pid %u", f.pid);
	}
	printf("nl_smoke: refused: rc=%d (%s), cause: %s\n", rc,
	       strerror(-rc), cause ? cause : "(none)");
	snprintf(want, sizeof(want), "pid %u ", f.pid);
	if (rc != -EEXIST || cause == NULL || strstr(cause, want) == NULL)
		fail("expected -EEXIST and a cause naming pid %u", f.pid);
	free(cause);
	figures("after", &f);
	printf("nl_smoke: ok refusal\n");
	return 0;
}

/*
 * Leave a dead registered daemon behind: a child registers and is
 * killed without unregistering.  It is waited for dead but not reaped
 * (WNOWAIT), so it is a zombie whose pid kill(pid, 0) still reports.
 * Returns the child's pid.
 */
static pid_t
dead_daemon(void)
{
	int pfd[2];
	char c;
	pid_t pid;

	if (pipe(pfd) < 0)
		fail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		struct netlink *s = NULL;
		char *cause = NULL;

		c = netlink_open(0, 0, &s, &cause) == 0 ? 'y' : 'n';
		if (c == 'n')
			fprintf(stderr, "nl_smoke: child: %s\n", cause);
		if (write(pfd[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1 || c != 'y')
		fail("the child could not register");
	close(pfd[0]);
	kill(pid, SIGKILL);
	/* dead, not reaped: SIGKILL is delivered when the child next runs,
	 * and until then it is alive (a loaded machine's fresh-clone run
	 * saw netlink_open refuse it so) */
	{
		siginfo_t si;

		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0)
			fail("waitid: %s", strerror(errno));
	}
	return pid;
}

/* The workload: @n getppid() calls, each logged by SCMP_ACT_LOG. */
static void
child_run(long n) __attribute__((noreturn));

static void
child_run(long n)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	long i;

	if (ctx == NULL ||
	    seccomp_rule_add(ctx, SCMP_ACT_LOG, SCMP_SYS(getppid), 0) < 0 ||
	    seccomp_load(ctx) < 0) {
		fprintf(stderr, "nl_smoke: child: cannot load the filter\n");
		_exit(2);
	}
	seccomp_release(ctx);
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);   /* glibc could cache it one day */
	_exit(0);
}

struct tally {
	char seccomp_pid[32];
	const char *marker;
	FILE *dump;
	long seccomp, lines, other;
	int marker_seen;
	double last_seccomp;
};

/* Check and count the lines of one read; all lines are whole. */
static void
tally_lines(struct tally *t, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;

	if (len > 0 && buf[len - 1] != '\n')
		fail("a read did not end with a whole line");
	if (t->dump != NULL && fwrite(buf, 1, len, t->dump) != len)
		fail("cannot write the dump: %s", strerror(errno));
	for (; p < end; p = nl + 1) {
		size_t n;
		char line[16384];

		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)(nl - p);
		if (n >= sizeof(line))
			fail("a line of %zu bytes", n);
		memcpy(line, p, n);
		line[n] = '\0';
		t->lines++;
		if (strncmp(line, "type=", 5) != 0 ||
		    strstr(line, " msg=audit(") == NULL ||
		    memchr(line, '\0', n) != NULL)
			fail("not an audit.log line: %s", line);
		if (t->lines <= 2)
			printf("nl_smoke: line %ld: %s\n", t->lines, line);
		if (strncmp(line, "type=SECCOMP msg=", 17) == 0 &&
		    strstr(line, t->seccomp_pid) != NULL) {
			if (strstr(line, " syscall=110 ") == NULL)
				fail("unexpected record: %s", line);
			if (++t->seccomp == 1)
				printf("nl_smoke: first: %s\n", line);
			t->last_seccomp = util_now();
		} else if (strncmp(line, "type=USER msg=", 14) == 0 &&
			   strstr(line, t->marker) != NULL) {
			printf("nl_smoke: marker: %s\n", line);
			t->marker_seen = 1;
		} else {
			t->other++;
		}
	}
}

int
main(int argc, char **argv)
{
	struct netlink_figures before, opened, after;
	struct netlink *s = NULL;
	struct tally t;
	char *cause = NULL, *buf, marker[64];
	long n = 5000, reads = 0, small = 0, nospc = 0;
	double t0, deadline;
	int rc, status, sz;
	socklen_t szlen = sizeof(sz);
	pid_t child, dead;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && strcmp(argv[1], "--expect-refusal") == 0)
		return expect_refusal();
	if (argc > 2 && strcmp(argv[1], "--child") == 0)
		child_run(atol(argv[2]));
	if (argc > 1 && (n = atol(argv[1])) <= 0)
		fail("usage: nl_smoke [N] | nl_smoke --expect-refusal");
	if (geteuid() != 0)
		fail("must run as root (the audit daemon role)");
	buf = malloc(BUF_SIZE);
	if (buf == NULL)
		fail("out of memory");

	figures("start", &before);
	if (before.pid != 0 && kill((pid_t)before.pid, 0) == 0)
		fail("pid %u is the audit daemon; run under flock "
		     "/run/pgsc-audit.lock with no auditd", before.pid);

	/* 1. take over from a registered daemon that died */
	dead = dead_daemon();
	figures("dead daemon", &before);
	rc = netlink_open(8192, 60000, &s, &cause);
	if (rc < 0)
		fail("netlink_open after the daemon died: %s",
		     cause ? cause : strerror(-rc));
	waitpid(dead, NULL, 0);
	figures("opened", &opened);
	if (opened.pid != (uint32_t)getpid())
		fail("registered pid is %u, not ours (%d)", opened.pid,
		     (int)getpid());
	if (opened.enabled != 1)
		fail("audit is not enabled after netlink_open");
	if (getsockopt(netlink_fd(s), SOL_SOCKET, SO_RCVBUF, &sz, &szlen) == 0)
		printf("nl_smoke: SO_RCVBUF %d bytes\n", sz);
	if (sz < 8 * 1024 * 1024)
		fail("receive buffer %d is under 8 MiB", sz);

	/* 2. the workload */
	t0 = util_now();
	child = fork();
	if (child < 0)
		fail("fork: %s", strerror(errno));
	if (child == 0) {
		/* exec'd, so that under valgrind (which lacks seccomp(2))
		 * the workload runs natively */
		char num[32];

		snprintf(num, sizeof(num), "%ld", n);
		execlp(argv[0], argv[0], "--child", num, (char *)NULL);
		_exit(3);
	}

	/* 3. read up to the marker sent after the child exited */
	memset(&t, 0, sizeof(t));
	snprintf(t.seccomp_pid, sizeof(t.seccomp_pid), " pid=%d ", (int)child);
	snprintf(marker, sizeof(marker), "nl-smoke-%d-%ld", (int)getpid(),
		 (long)time(NULL));
	t.marker = marker;
	if (getenv("NL_SMOKE_DUMP") != NULL &&
	    (t.dump = fopen(getenv("NL_SMOKE_DUMP"), "w")) == NULL)
		fail("%s: %s", getenv("NL_SMOKE_DUMP"), strerror(errno));
	deadline = t0 + TIMEOUT_S;
	while (!t.marker_seen) {
		struct pollfd pfd = { netlink_fd(s), POLLIN, 0 };
		size_t cap = (reads & 1) ? SMALL_CAP : BUF_SIZE;
		long got;

		if (util_now() > deadline)
			fail("timeout: %ld of %ld records, marker %s",
			     t.seccomp, n, child ? "not sent" : "not seen");
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
				fail("the child failed (status %#x)", status);
			printf("nl_smoke: child done in %.3f s\n",
			       util_now() - t0);
			child = 0;
			rc = netlink_send_marker(marker, &cause);
			if (rc < 0)
				fail("netlink_send_marker: %s",
				     cause ? cause : strerror(-rc));
		}
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			fail("poll: %s", strerror(errno));
		got = netlink_read(s, buf, cap);
		reads++;
		if (got == -ENOSPC && cap == SMALL_CAP) {
			nospc++;
			continue;
		}
		if (got < 0)
			fail("netlink_read: %s", strerror((int)-got));
		if (cap == SMALL_CAP && got > 0)
			small++;
		tally_lines(&t, buf, (size_t)got);
	}
	if (t.dump != NULL && fclose(t.dump) != 0)
		fail("cannot write the dump: %s", strerror(errno));
	printf("nl_smoke: %ld lines (%ld SECCOMP of the child, %ld other) "
	       "in %ld reads, %ld small, %ld -ENOSPC\n", t.lines, t.seccomp,
	       t.other, reads, small, nospc);
	if (t.last_seccomp > t0)
		printf("nl_smoke: %.0f records/s (fork to last record)\n",
		       (double)t.seccomp / (t.last_seccomp - t0));
	if (t.seccomp != n)
		fail("%ld SECCOMP records of the child, expected %ld",
		     t.seccomp, n);

	/* 4. nothing lost */
	figures("drained", &after);
	if (after.lost != opened.lost)
		printf("nl_smoke: WARNING: the kernel lost %u records "
		       "meanwhile\n", after.lost - opened.lost);
	if (after.has_wait_actual)
		printf("nl_smoke: processes waited %u jiffies for the "
		       "backlog\n", after.backlog_wait_time_actual -
		       opened.backlog_wait_time_actual);

	/* 5. unregister */
	netlink_close(s);
	figures("closed", &after);
	if (after.pid != 0)
		fail("pid %u is still registered after netlink_close",
		     after.pid);
	if (after.enabled != 1)
		fail("audit enabled=%u after netlink_close", after.enabled);
	printf("nl_smoke: ok %ld records\n", n);
	free(buf);
	free(cause);
	return 0;
}
