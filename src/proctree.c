/* SPDX-License-Identifier: PostgreSQL */
/* proctree.c - the process tree from the audit stream, roles, aggregates. */
/*
 * SECCOMP records carry pid, comm and exe but no ppid, so the tree comes
 * from the SYSCALL records of pgsc.rules (DESIGN §3):
 *   fork/vfork/clone/clone3  pid= is the parent, exit= the child;
 *   execve/execveat          exe= is the new program, EXECVE its argv;
 *   exit_group (postgres)    PROCTITLE is the title that gives the type.
 *
 * A process is its pid plus its birth (the fork record), never the pid
 * alone: pids are reused (132 backends in 5 s under pgbench -C).
 *
 * A child's records often arrive before its parent's fork record (always
 * with vfork-style spawns, up to 262 records), because the parent's record
 * is written when its syscall returns.  Records of a pid we have no live
 * process for therefore start a provisional process whose records are
 * kept one by one, with their times.  When the fork record arrives, the
 * records at or after the fork time (timestamps are taken at syscall
 * entry and never put a child first) move to the child.  A provisional
 * process that no fork record claims within SETTLE_SECS of stream time,
 * or that grows past PEND_MAX records, is settled: a process that existed
 * before collection started (or a log recorded without the rules).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgsc-int.h"

#define PEND_MAX 4096
#define SETTLE_SECS 10.0
/* proctree_prune(): a process outside the servers with no record for
 * this long (stream time) is taken as gone (docs/robustness.md) */
#define FORGET_SECS 3600.0
/* proctree_prune_due(): processes made since the last prune that call
 * for a commit (and its prune) before the commit interval is up */
#define PRUNE_GROWTH 8192
#define CLONE_THREAD_FLAG 0x00010000ULL
#define MAX_DEPTH 256

struct sysent {
	uint32_t arch;
	int32_t nr;
	uint64_t count;
	double first, last;
};

struct pend {
	uint32_t arch;
	int32_t nr;
	double t;
};

struct proc {
	int64_t pid;
	const char *node;           /* interned node= name; NULL: the local
				     * host */
	int64_t ppid_hint;          /* first ppid= of its SYSCALL records */
	int64_t ppid_other;         /* a later, different ppid=, -1: none */
	char *cluster;              /* cluster_name its postgres children's
				     * titles taught (learn_cluster()) */
	int64_t uid;                /* last uid= of its records, -1: none */
	struct proc *parent;
	uint64_t birth_serial;
	double birth_t;
	double key_birth;           /* its birth in the store once stored */
	double first_t, last_t, exe_t;
	char *exe, *comm, *title, *argv;
	unsigned forked : 1;        /* its fork record was seen */
	unsigned exited : 1;
	unsigned provisional : 1;   /* records still kept one by one */
	unsigned has_pg_child : 1;
	unsigned role_busy : 1;
	unsigned in_fifo : 1;       /* still in t->fifo */
	unsigned clone3 : 1;        /* made by clone3: a thread, or a spawn */
	unsigned execd : 1;         /* an execve record of it was seen */
	unsigned foreign : 1;       /* its last uid= is not the server's */
	uint32_t nkids;             /* processes in memory with ->parent == us */
	struct sysent *sys;
	size_t nsys, capsys;
	struct pend *pend;
	size_t npend, cappend;
	uint64_t records;
	const char *role;           /* interned; set at finish or rollup */
	const char *fixed;          /* role carried over from an earlier round */
	unsigned seeded : 1;
	unsigned stored : 1;        /* written under key_birth (proc_birth()) */
	unsigned fork_known : 1;    /* seeded from a row whose fork record was
				     * seen, whether its parent is in memory
				     * or not */
	const char *rolled;         /* syscalls already folded under this */
};

struct agg {
	const char *role;           /* interned */
	uint32_t arch;
	int32_t nr;
	uint64_t count;
	double first, last;
	int64_t example_pid;
	const char *example_exe;
};

struct event {
	int has_syscall;
	const char *node;
	uint32_t arch;
	int64_t syscall, pid, ppid, exit, uid;
	int success, has_exit;
	uint64_t a0, serial;
	double t;
	char *exe, *comm, *title, *argv;
};

struct proctree {
	struct proctree_hints hints;

	struct proc **all;
	size_t nall, capall;

	/* (node, pid) -> current process, open addressing (linear
	 * probing); node is an interned pointer */
	struct { int64_t pid; const char *node; struct proc *p; } *map;
	size_t mapcap, mapn;

	/* provisional processes in creation order, for settling */
	struct proc **fifo;
	size_t fifo_head, fifo_n, fifo_cap;

	double now;                 /* latest record time seen */

	struct event ev;

	struct strset roles;        /* interned role names */
	struct strset exes;         /* interned example_exe of aggregates */
	struct strset nodes;        /* interned node= names */

	struct agg *aggs;           /* open addressing */
	size_t aggcap, aggn;

	size_t nall_pruned;         /* processes in memory after the last prune */

	/* the last exit_group applied without a title (late_title()) */
	struct proc *exit_p;
	uint64_t exit_serial;
	const char *exit_node;

	int oom;
	int finished;
};

static const char *title_rest(const char *title);
static const char *title_cluster(const char *rest, size_t *n);
static const char *title_role_in(const char *title, const char *cluster,
				 size_t clen);
static const char *role_of(struct proctree *t, struct proc *p, int memo,
			   int depth);

/* ---------------------------------------------------------------- */

static double
rec_time(const struct pgsc_record *r)
{
	return (double)r->sec + r->msec / 1000.0;
}

static const char *
intern(struct proctree *t, const char *s)
{
	const char *r = strset_intern(&t->roles, s);

	if (r == NULL) {
		t->oom = 1;
		return PGSC_ROLE_UNATTRIBUTED;
	}
	return r;
}

static void
set_str(struct proctree *t, char **dst, const char *s)
{
	char *n;

	if (s == NULL || *s == '\0')
		return;
	if (*dst != NULL && strcmp(*dst, s) == 0)
		return;
	n = strdup(s);
	if (n == NULL) {
		t->oom = 1;
		return;
	}
	free(*dst);
	*dst = n;
}

static uint64_t
pid_hash(int64_t pid)
{
	uint64_t k = (uint64_t)pid;

	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

/*
 * Processes are keyed by node and pid: records with another node= come
 * from another host (a remote auditd's, forwarded), whose pids say
 * nothing about ours, so a record is never counted to a process of
 * another node (docs/security.md).  Records without node= are the local
 * host's (node NULL).  The store keeps the node of each process
 * (schemas/005_process_node.sql), so a restart seeds it under it.
 */

static uint64_t
key_hash(const char *node, int64_t pid)
{
	return pid_hash(pid ^ (int64_t)((uint64_t)(uintptr_t)node *
					0x9e3779b97f4a7c15ULL));
}

static struct proc *
map_get(struct proctree *t, const char *node, int64_t pid)
{
	size_t j;

	if (t->mapcap == 0)
		return NULL;
	j = key_hash(node, pid) & (t->mapcap - 1);
	while (t->map[j].p != NULL) {
		if (t->map[j].pid == pid && t->map[j].node == node)
			return t->map[j].p;
		j = (j + 1) & (t->mapcap - 1);
	}
	return NULL;
}

static int
map_put(struct proctree *t, struct proc *p)
{
	size_t j;

	if ((t->mapn + 1) * 2 > t->mapcap) {
		size_t ncap = t->mapcap ? t->mapcap * 2 : 1024;
		__typeof__(t->map) nm = calloc(ncap, sizeof(*nm));

		if (nm == NULL)
			return -ENOMEM;
		for (size_t i = 0; i < t->mapcap; i++) {
			if (t->map[i].p == NULL)
				continue;
			j = key_hash(t->map[i].node, t->map[i].pid) &
			    (ncap - 1);
			while (nm[j].p != NULL)
				j = (j + 1) & (ncap - 1);
			nm[j] = t->map[i];
		}
		free(t->map);
		t->map = nm;
		t->mapcap = ncap;
	}
	j = key_hash(p->node, p->pid) & (t->mapcap - 1);
	while (t->map[j].p != NULL) {
		if (t->map[j].pid == p->pid && t->map[j].node == p->node) {
			t->map[j].p = p;
			return 0;
		}
		j = (j + 1) & (t->mapcap - 1);
	}
	t->map[j].pid = p->pid;
	t->map[j].node = p->node;
	t->map[j].p = p;
	t->mapn++;
	return 0;
}

/* Remove the entry of (@node, @pid), shifting later entries of its
 * cluster back. */
static void
map_del(struct proctree *t, const char *node, int64_t pid)
{
	size_t mask = t->mapcap - 1, i, j;

	if (t->mapcap == 0)
		return;
	i = key_hash(node, pid) & mask;
	while (t->map[i].p != NULL &&
	       (t->map[i].pid != pid || t->map[i].node != node))
		i = (i + 1) & mask;
	if (t->map[i].p == NULL)
		return;
	for (j = (i + 1) & mask; t->map[j].p != NULL; j = (j + 1) & mask) {
		size_t home = key_hash(t->map[j].node, t->map[j].pid) & mask;
		/* may the entry at j move to i?  Not if its home is
		 * cyclically in (i, j]. */
		int stays = i <= j ? (i < home && home <= j)
				   : (i < home || home <= j);

		if (!stays) {
			t->map[i] = t->map[j];
			i = j;
		}
	}
	t->map[i].p = NULL;
	t->map[i].pid = 0;
	t->map[i].node = NULL;
	t->mapn--;
}

/* The interned node @name, NULL for the local host (NULL or ""). */
static const char *
node_intern(struct proctree *t, const char *name)
{
	const char *n;

	if (name == NULL || *name == '\0')
		return NULL;
	n = strset_intern(&t->nodes, name);
	if (n == NULL)
		t->oom = 1;
	return n;
}

static const char *
rec_node(struct proctree *t, const struct pgsc_record *r)
{
	return r->has_node ? node_intern(t, r->node) : NULL;
}

static struct proc *
proc_new(struct proctree *t, const char *node, int64_t pid, double when)
{
	struct proc *p;

	if (t->nall == t->capall) {
		size_t ncap = t->capall ? t->capall * 2 : 256;
		struct proc **na = realloc(t->all, ncap * sizeof(*na));

		if (na == NULL)
			goto oom;
		t->all = na;
		t->capall = ncap;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		goto oom;
	p->pid = pid;
	p->node = node;
	p->ppid_hint = -1;
	p->ppid_other = -1;
	p->uid = -1;
	p->first_t = p->last_t = when;
	if (map_put(t, p) < 0) {
		free(p);
		goto oom;
	}
	t->all[t->nall++] = p;
	return p;
oom:
	t->oom = 1;
	return NULL;
}

static void
fifo_push(struct proctree *t, struct proc *p)
{
	if (t->fifo_head + t->fifo_n == t->fifo_cap) {
		if (t->fifo_head > 0) {
			memmove(t->fifo, t->fifo + t->fifo_head,
				t->fifo_n * sizeof(*t->fifo));
			t->fifo_head = 0;
		}
		if (t->fifo_n == t->fifo_cap) {
			size_t ncap = t->fifo_cap ? t->fifo_cap * 2 : 256;
			struct proc **nf = realloc(t->fifo, ncap * sizeof(*nf));

			if (nf == NULL) {
				t->oom = 1;
				return;
			}
			t->fifo = nf;
			t->fifo_cap = ncap;
		}
	}
	t->fifo[t->fifo_head + t->fifo_n++] = p;
	p->in_fifo = 1;
}

static void
sys_add(struct proctree *t, struct proc *p, uint32_t arch, int32_t nr,
	uint64_t count, double first, double last)
{
	size_t lo = 0, hi = p->nsys;

	/* sorted by (arch, nr): binary search, a process has ~100 entries */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		struct sysent *e = &p->sys[mid];

		if (e->arch == arch && e->nr == nr) {
			e->count += count;
			if (first < e->first)
				e->first = first;
			if (last > e->last)
				e->last = last;
			return;
		}
		if (e->arch < arch || (e->arch == arch && e->nr < nr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (p->nsys == p->capsys) {
		size_t ncap = p->capsys ? p->capsys * 2 : 4;
		struct sysent *ns = realloc(p->sys, ncap * sizeof(*ns));

		if (ns == NULL) {
			t->oom = 1;
			return;
		}
		p->sys = ns;
		p->capsys = ncap;
	}
	memmove(p->sys + lo + 1, p->sys + lo, (p->nsys - lo) * sizeof(*p->sys));
	p->sys[lo] = (struct sysent){ arch, nr, count, first, last };
	p->nsys++;
}

/* Fold a provisional process's kept records into its counts. */
static void
settle(struct proctree *t, struct proc *p)
{
	for (size_t i = 0; i < p->npend; i++)
		sys_add(t, p, p->pend[i].arch, p->pend[i].nr, 1, p->pend[i].t,
			p->pend[i].t);
	free(p->pend);
	p->pend = NULL;
	p->npend = p->cappend = 0;
	p->provisional = 0;
}

static void
settle_old(struct proctree *t)
{
	while (t->fifo_n > 0) {
		struct proc *p = t->fifo[t->fifo_head];

		if (p->provisional && p->first_t + SETTLE_SECS > t->now)
			break;
		if (p->provisional)
			settle(t, p);
		p->in_fifo = 0;
		t->fifo_head++;
		t->fifo_n--;
	}
}

/* The live process for @pid, or a new provisional one. */
static struct proc *
current(struct proctree *t, const char *node, int64_t pid, double when)
{
	struct proc *p = map_get(t, node, pid);

	if (p != NULL && !p->exited)
		return p;
	p = proc_new(t, node, pid, when);
	if (p == NULL)
		return NULL;
	p->provisional = 1;
	fifo_push(t, p);
	return p;
}

/* --server-user: a postgres binary run by another uid is not a server's
 * (docs/security.md); the last uid a record gave counts. */
static void
note_uid(const struct proctree *t, struct proc *p, int64_t uid)
{
	if (uid < 0)
		return;
	p->uid = uid;
	if (t->hints.has_server_uid)
		p->foreign = (uint64_t)uid != t->hints.server_uid;
}

/* A ppid= of one of its SYSCALL records: the first one, and a later one
 * that differs (a reparenting, or a forgery), are kept: a title places a
 * process only when every parent observed is that server's postmaster
 * (title_parent_ok()). */
static void
note_ppid(struct proc *p, int64_t ppid)
{
	if (ppid < 0)
		return;
	if (p->ppid_hint < 0)
		p->ppid_hint = ppid;
	else if (ppid != p->ppid_hint)
		p->ppid_other = ppid;
}

static void
note_exe(struct proctree *t, struct proc *p, const char *exe,
	 const char *comm, double when)
{
	if (exe != NULL && *exe != '\0' && (p->exe == NULL || when >= p->exe_t)) {
		set_str(t, &p->exe, exe);
		p->exe_t = when;
	}
	if (comm != NULL && *comm != '\0' && (p->comm == NULL || when >= p->exe_t))
		set_str(t, &p->comm, comm);
}

static void
seccomp_record(struct proctree *t, const struct pgsc_record *r)
{
	double when = rec_time(r);
	struct proc *p = current(t, rec_node(t, r), r->pid, when);

	if (p == NULL)
		return;
	if (when < p->first_t)
		p->first_t = when;
	if (when > p->last_t)
		p->last_t = when;
	p->records++;
	note_exe(t, p, r->exe, r->comm, when);
	note_uid(t, p, r->uid);
	if (p->provisional) {
		if (p->npend == p->cappend) {
			size_t ncap = p->cappend ? p->cappend * 2 : 8;
			struct pend *np;

			if (p->npend >= PEND_MAX) {
				settle(t, p);
				goto counted;
			}
			np = realloc(p->pend, ncap * sizeof(*np));
			if (np == NULL) {
				t->oom = 1;
				return;
			}
			p->pend = np;
			p->cappend = ncap;
		}
		p->pend[p->npend++] = (struct pend){ r->arch, (int32_t)r->syscall,
						     when };
		return;
	}
counted:
	sys_add(t, p, r->arch, (int32_t)r->syscall, 1, when, when);
}

/* ---------------------------------------------------------------- */
/* Roles                                                              */

static int
is_pg(const struct proc *p)
{
	const char *b;

	if (p == NULL || p->exe == NULL || p->foreign)
		return 0;
	b = strrchr(p->exe, '/');
	b = b ? b + 1 : p->exe;
	return util_exe_is(b, "postgres") || util_exe_is(b, "postmaster");
}

static int
exe_is(const struct proc *p, const char *name)
{
	const char *b;

	if (p->exe == NULL)
		return 0;
	b = strrchr(p->exe, '/');
	b = b ? b + 1 : p->exe;
	return strcmp(b, name) == 0;
}

/*
 * Does an argv say this postgres runs without a postmaster?  PostgreSQL
 * takes these modes only as argv[1]; "-C name" may come anywhere.  Only
 * argv[1] is tested for the others, so that an option value holding one
 * of the words ("-c cluster_name='x -V'") cannot make a server vanish
 * from the lists.
 */
static int
standalone_argv(const char *argv)
{
	static const char *const first[] = {
		"--single", "--boot", "--describe-config", "-V", "--version",
		"--check", "-?", "--help", "-C",
	};
	const char *p, *w, *e;
	size_t n;

	if (argv == NULL || (p = strchr(argv, ' ')) == NULL)
		return 0;
	w = p + 1;
	e = strchr(w, ' ');
	n = e ? (size_t)(e - w) : strlen(w);
	for (size_t i = 0; i < ARRAY_SIZE(first); i++)
		if (strlen(first[i]) == n && memcmp(w, first[i], n) == 0)
			return 1;
	/* "-C" later, as a word of its own, followed by a GUC name */
	for (p = strstr(argv, " -C "); p != NULL; p = strstr(p + 1, " -C ")) {
		w = p + 4;
		if ((*w >= 'a' && *w <= 'z') || *w == '_')
			return 1;
	}
	return 0;
}

static int
has_tool_ancestor(const struct proc *p)
{
	for (int d = 0; p != NULL && d < MAX_DEPTH; d++, p = p->parent)
		if (exe_is(p, "initdb") || exe_is(p, "pg_upgrade"))
			return 1;
	return 0;
}

static int
hinted_pid(const struct proctree *t, int64_t pid)
{
	for (size_t i = 0; i < t->hints.n_postmaster_pids; i++)
		if (t->hints.postmaster_pids[i] == pid)
			return 1;
	return 0;
}

/* --postmaster-pid names pids of this host: not another node's. */
static int
hinted_postmaster(const struct proctree *t, const struct proc *p)
{
	if (p->node != NULL)
		return 0;
	for (size_t i = 0; i < t->hints.n_postmaster_pids; i++)
		if (t->hints.postmaster_pids[i] == p->pid)
			return 1;
	return 0;
}

static const char *
pglog_type(const struct proctree *t, const struct proc *p)
{
	if (t->hints.pglog == NULL)
		return NULL;
	return pglog_lookup(t->hints.pglog, p->pid, p->first_t);
}

static const char *
descendant_of(struct proctree *t, const char *ar)
{
	char buf[160];

	if (!pgsc_role_in_server(ar) || roles_is_descendant(ar))
		return ar;
	if (roles_descendant(buf, sizeof(buf), ar) < 0)
		return ar;
	return intern(t, buf);
}

/*
 * A postgres child's title teaches its parent (if that is a postmaster:
 * the server) its cluster_name, when it is an auxiliary process's title
 * (title_cluster(): never a client's).  The first one counts.
 */
static void
learn_cluster(struct proctree *t, struct proc *p)
{
	const char *c;
	size_t n = 0;

	if (p->title == NULL || p->parent == NULL || p->parent->cluster != NULL ||
	    !is_pg(p) || !is_pg(p->parent))
		return;
	c = title_cluster(title_rest(p->title), &n);
	if (c == NULL)
		return;
	p->parent->cluster = strndup(c, n);
	if (p->parent->cluster == NULL)
		t->oom = 1;
}

/* The role a postmaster's postgres child's title names, parsed with the
 * server's cluster name; NULL without a server title. */
static const char *
child_title_role(struct proctree *t, struct proc *p)
{
	const char *c;

	if (p->title == NULL)
		return NULL;
	learn_cluster(t, p);
	c = p->parent != NULL ? p->parent->cluster : NULL;
	return title_role_in(p->title, c, c != NULL ? strlen(c) : 0);
}

/*
 * May a title (alone) place @p, a postgres process whose parent is not in
 * memory, in a server?  Only when no parent observed says otherwise:
 * every ppid= of its SYSCALL records (the first, and a later different
 * one) must be a postmaster we know, named by --postmaster-pid or in
 * memory with that role.  A process whose exit record shows ppid=1 is
 * nobody's checkpointer, whatever its title (docs/security.md).
 */
static int
title_parent_ok(struct proctree *t, struct proc *p, int depth)
{
	int64_t pp[2] = { p->ppid_hint, p->ppid_other };

	if (p->parent != NULL)
		return 0;
	for (int k = 0; k < 2; k++) {
		struct proc *q;

		if (pp[k] < 0)
			continue;
		if (p->node == NULL && hinted_pid(t, pp[k]))
			continue;
		q = map_get(t, p->node, pp[k]);
		if (q == NULL || q == p || !is_pg(q) ||
		    strcmp(role_of(t, q, 0, depth + 1), PGSC_ROLE_POSTMASTER) != 0)
			return 0;
	}
	return 1;
}

/* The type of a postmaster's postgres child. */
static const char *
backend_type(struct proctree *t, struct proc *p)
{
	const char *r = NULL;

	if (p->title != NULL)
		r = child_title_role(t, p);
	if (r == NULL)
		r = pglog_type(t, p);
	if (r != NULL && strcmp(r, "standalone backend") == 0)
		r = PGSC_ROLE_STANDALONE;
	if (r == NULL || strcmp(r, "postmaster") == 0)
		r = PGSC_ROLE_BACKEND_UNKNOWN;
	return intern(t, r);
}

/*
 * The role of a process (see docs/roles.md).  @memo caches results on the
 * process; without it the role is computed afresh, for early rollup.
 */
static const char *
role_of(struct proctree *t, struct proc *p, int memo, int depth)
{
	const char *r;
	struct proc *par = p->parent, *a;

	if (p->rolled != NULL)
		return p->rolled;
	if (p->fixed != NULL)
		return p->fixed;
	if (memo && p->role != NULL)
		return p->role;
	if (depth > MAX_DEPTH || p->role_busy)
		return PGSC_ROLE_UNATTRIBUTED;
	p->role_busy = 1;
	if (is_pg(p)) {
		if (par != NULL && is_pg(par)) {
			const char *pr = role_of(t, par, memo, depth + 1);

			if (strcmp(pr, PGSC_ROLE_POSTMASTER) == 0)
				r = backend_type(t, p);
			else
				r = descendant_of(t, pr);
		} else if (standalone_argv(p->argv) || has_tool_ancestor(p)) {
			r = PGSC_ROLE_STANDALONE;
		} else if (hinted_postmaster(t, p) || p->has_pg_child ||
			   (p->argv != NULL && par != NULL)) {
			r = PGSC_ROLE_POSTMASTER;
		} else {
			const char *lt = pglog_type(t, p);

			if (lt != NULL && strcmp(lt, "standalone backend") == 0)
				r = PGSC_ROLE_STANDALONE;
			else if (lt != NULL)
				r = intern(t, lt);
			else if (p->title != NULL && pgsc_title_role(p->title) &&
				 title_parent_ok(t, p, depth))
				r = intern(t, pgsc_title_role(p->title));
			else
				r = PGSC_ROLE_UNATTRIBUTED;
		}
	} else {
		int d = 0;

		for (a = par; a != NULL && !is_pg(a) && d < MAX_DEPTH; a = a->parent)
			d++;
		if (a != NULL && is_pg(a))
			r = descendant_of(t, role_of(t, a, memo, depth + 1));
		else if (par != NULL)
			r = PGSC_ROLE_UNRELATED;
		else
			r = PGSC_ROLE_UNATTRIBUTED;
	}
	p->role_busy = 0;
	if (memo)
		p->role = r;
	return r;
}

/* ---------------------------------------------------------------- */
/* Aggregates per (role, arch, nr)                                    */

static uint64_t
agg_hash(const char *role, uint32_t arch, int32_t nr)
{
	uint64_t k = (uint64_t)(uintptr_t)role * 0x9e3779b97f4a7c15ULL;

	k ^= ((uint64_t)arch << 20) ^ (uint64_t)(uint32_t)nr;
	return pid_hash((int64_t)k);
}

static void
agg_add(struct proctree *t, const char *role, uint32_t arch, int32_t nr,
	uint64_t count, double first, double last, const struct proc *p)
{
	size_t j;
	struct agg *a;

	if ((t->aggn + 1) * 2 > t->aggcap) {
		size_t ncap = t->aggcap ? t->aggcap * 2 : 512;
		struct agg *na = calloc(ncap, sizeof(*na));

		if (na == NULL) {
			t->oom = 1;
			return;
		}
		for (size_t i = 0; i < t->aggcap; i++) {
			if (t->aggs[i].role == NULL)
				continue;
			j = agg_hash(t->aggs[i].role, t->aggs[i].arch,
				     t->aggs[i].nr) & (ncap - 1);
			while (na[j].role != NULL)
				j = (j + 1) & (ncap - 1);
			na[j] = t->aggs[i];
		}
		free(t->aggs);
		t->aggs = na;
		t->aggcap = ncap;
	}
	j = agg_hash(role, arch, nr) & (t->aggcap - 1);
	while ((a = &t->aggs[j])->role != NULL) {
		if (a->role == role && a->arch == arch && a->nr == nr) {
			a->count += count;
			if (first < a->first)
				a->first = first;
			if (last > a->last)
				a->last = last;
			return;
		}
		j = (j + 1) & (t->aggcap - 1);
	}
	/* interned: the process may be pruned before the aggregate goes */
	*a = (struct agg){ role, arch, nr, count, first, last, p->pid,
			   p->exe ? strset_intern(&t->exes, p->exe) : NULL };
	if (p->exe != NULL && a->example_exe == NULL)
		t->oom = 1;
	t->aggn++;
}

static void
fold(struct proctree *t, struct proc *p, const char *role)
{
	role = intern(t, role);
	for (size_t i = 0; i < p->nsys; i++)
		agg_add(t, role, p->sys[i].arch, p->sys[i].nr, p->sys[i].count,
			p->sys[i].first, p->sys[i].last, p);
	free(p->sys);
	p->sys = NULL;
	p->nsys = p->capsys = 0;
	p->rolled = role;
}

/*
 * A postgres child of a postmaster that has exited with its title known
 * will not change role any more: fold its counts now, so memory stays
 * bounded by the live processes, not by every backend of a long run.
 */
static void
try_rollup(struct proctree *t, struct proc *p)
{
	const char *r;

	if (!p->exited || !p->forked || p->provisional || p->title == NULL ||
	    !is_pg(p) || !is_pg(p->parent))
		return;
	p->parent->has_pg_child = 1;
	if (strcmp(role_of(t, p->parent, 0, 0), PGSC_ROLE_POSTMASTER) != 0)
		return;
	r = child_title_role(t, p);
	if (r == NULL)
		return;
	/* "X: ..." before the server's cluster name is known: X may be the
	 * cluster (a walsender's title then reads as a client's), so the
	 * role may still change; proctree_prune() folds it later */
	if (p->parent->cluster == NULL && title_rest(p->title) != NULL) {
		const char *w = title_rest(p->title), *sp = strchr(w, ' ');

		if (sp != NULL && sp > w && sp[-1] == ':')
			return;
	}
	fold(t, p, intern(t, r));
}

/* ---------------------------------------------------------------- */
/* Events                                                             */

static void
ev_clear(struct event *e)
{
	free(e->exe);
	free(e->comm);
	free(e->title);
	free(e->argv);
	memset(e, 0, sizeof(*e));
}

static void
do_fork(struct proctree *t, struct event *e)
{
	struct proc *parent, *child, *cur;
	const char *name = pgsc_syscall_name(e->arch, (int)e->syscall);

	if (e->success != 1 || !e->has_exit || e->exit <= 0)
		return;
	/* clone(CLONE_THREAD) makes a thread, not a process; clone3 hides
	 * its flags, but a thread's id never appears as a record's pid=
	 * (always a tgid), so such a child just stays empty. */
	if (name != NULL && strcmp(name, "clone") == 0 &&
	    (e->a0 & CLONE_THREAD_FLAG))
		return;
	parent = current(t, e->node, e->pid, e->t);
	if (parent == NULL)
		return;
	note_ppid(parent, e->ppid);
	note_exe(t, parent, e->exe, e->comm, e->t);
	note_uid(t, parent, e->uid);

	cur = map_get(t, e->node, e->exit);
	if (cur != NULL && !cur->forked && cur->first_t + 0.0005 >= e->t &&
	    (cur->parent == NULL)) {
		/* the child's records came first: adopt them */
		child = cur;
	} else {
		child = proc_new(t, e->node, e->exit, e->t);
		if (child == NULL)
			return;
		if (cur != NULL && cur->provisional && !cur->forked) {
			/* an older process of the same pid: records at or
			 * after the fork time belong to the new child */
			size_t k = 0;

			for (size_t i = 0; i < cur->npend; i++) {
				struct pend *pe = &cur->pend[i];

				if (pe->t + 0.0005 >= e->t) {
					sys_add(t, child, pe->arch, pe->nr, 1,
						pe->t, pe->t);
					child->records++;
					cur->records--;
				} else {
					cur->pend[k++] = *pe;
				}
			}
			cur->npend = k;
			if (child->records > 0) {
				child->exe = cur->exe ? strdup(cur->exe) : NULL;
				child->comm = cur->comm ? strdup(cur->comm) : NULL;
				child->exe_t = cur->exe_t;
			}
			cur->exited = 1;
		} else if (cur != NULL && cur != child) {
			/* the kernel gave its pid to a new process: the
			 * old holder is gone, whether its exit was seen
			 * or not (killed by a signal: no exit_group) */
			cur->exited = 1;
		}
	}
	child->parent = parent;
	parent->nkids++;
	child->forked = 1;
	child->clone3 = name != NULL && strcmp(name, "clone3") == 0;
	/* a fork keeps the uid; a record of the child's own may say more */
	if (child->records == 0) {
		child->uid = parent->uid;
		child->foreign = parent->foreign;
	}
	child->birth_serial = e->serial;
	child->birth_t = e->t;
	if (e->t < child->first_t)
		child->first_t = e->t;
	if (child->provisional)
		settle(t, child);
	/* Until it execs, a child runs its parent's program. */
	if (child->exe == NULL)
		note_exe(t, child, parent->exe, parent->comm, e->t - 1e-6);
	try_rollup(t, child);
}

static void
apply_event(struct proctree *t, struct event *e)
{
	const char *name = pgsc_syscall_name(e->arch, (int)e->syscall);
	struct proc *p;

	if (name == NULL)
		return;
	if (strcmp(name, "clone") == 0 || strcmp(name, "clone3") == 0 ||
	    strcmp(name, "fork") == 0 || strcmp(name, "vfork") == 0) {
		do_fork(t, e);
		return;
	}
	if (strcmp(name, "execve") == 0 || strcmp(name, "execveat") == 0) {
		if (e->success != 1)
			return;
		p = current(t, e->node, e->pid, e->t);
		if (p == NULL)
			return;
		note_ppid(p, e->ppid);
		/* exe= of the execve record is the new program */
		p->execd = 1;
		note_uid(t, p, e->uid);
		set_str(t, &p->exe, e->exe);
		set_str(t, &p->comm, e->comm);
		p->exe_t = e->t;
		if (e->argv != NULL)
			set_str(t, &p->argv, e->argv);
		return;
	}
	/* exit (a thread's) does not end the process: only exit_group */
	if (strcmp(name, "exit_group") == 0) {
		p = current(t, e->node, e->pid, e->t);
		if (p == NULL)
			return;
		note_ppid(p, e->ppid);
		note_exe(t, p, e->exe, e->comm, e->t);
		note_uid(t, p, e->uid);
		if (e->title != NULL) {
			set_str(t, &p->title, e->title);
			learn_cluster(t, p);
		}
		if (e->t > p->last_t)
			p->last_t = e->t;
		p->exited = 1;
		if (e->title == NULL) {
			t->exit_p = p;
			t->exit_serial = e->serial;
			t->exit_node = e->node;
		}
		try_rollup(t, p);
		return;
	}
	/* any other audited syscall still tells us who the caller is */
	p = map_get(t, e->node, e->pid);
	if (p != NULL && !p->exited)
		note_ppid(p, e->ppid);
}

/*
 * A PROCTITLE record after its event was applied: a live collector whose
 * commit was due hands over an event auparse still held (src/feed.c) when
 * the rest of it has not come for a commit interval (a writer that paused
 * mid-event: crash-live under load), and the title of an exit_group comes
 * alone.  It is the title of the last exit_group applied without one when
 * the serial is the same; after a restart (the hand-over, the commit, the
 * kill), of the one seeded process that exited at its time without a
 * title.  Without it a backend stayed "backend" (157 records in one
 * crash-live run).
 */
static void
late_title(struct proctree *t, const struct pgsc_record *r)
{
	const char *node = rec_node(t, r);
	struct proc *p = NULL;
	double when = rec_time(r);

	if (r->title[0] == '\0')
		return;
	if (t->exit_p != NULL && t->exit_serial == r->serial &&
	    t->exit_node == node) {
		p = t->exit_p;
	} else if (t->exit_p == NULL) {
		for (size_t i = 0; i < t->nall; i++) {
			struct proc *q = t->all[i];

			if (!q->seeded || !q->exited || q->title != NULL ||
			    q->node != node || q->last_t != when)
				continue;
			if (p != NULL)
				return; /* two candidates: none */
			p = q;
		}
	}
	if (p == NULL || p->title != NULL)
		return;
	set_str(t, &p->title, r->title);
	learn_cluster(t, p);
	t->exit_p = NULL;
	try_rollup(t, p);
}

void
proctree_record(struct proctree *t, const struct pgsc_record *r)
{
	double when = rec_time(r);

	if (t->finished)
		return;
	if (when > t->now) {
		t->now = when;
		settle_old(t);
	}
	switch (r->type) {
	case PGSC_REC_SECCOMP:
		seccomp_record(t, r);
		break;
	case PGSC_REC_SYSCALL:
		if (t->ev.has_syscall) {
			/* two SYSCALL records in one event: apply the first */
			apply_event(t, &t->ev);
			ev_clear(&t->ev);
		}
		t->ev.has_syscall = 1;
		t->ev.node = rec_node(t, r);
		t->ev.arch = r->arch;
		t->ev.syscall = r->syscall;
		t->ev.pid = r->pid;
		t->ev.ppid = r->ppid;
		t->ev.uid = r->uid;
		t->ev.exit = r->exit;
		t->ev.has_exit = r->has_exit;
		t->ev.success = r->success;
		t->ev.a0 = r->a0;
		t->ev.serial = r->serial;
		t->ev.t = when;
		set_str(t, &t->ev.exe, r->exe);
		set_str(t, &t->ev.comm, r->comm);
		break;
	case PGSC_REC_EXECVE:
		set_str(t, &t->ev.argv, r->title);
		break;
	case PGSC_REC_PROCTITLE:
		if (!t->ev.has_syscall) {
			late_title(t, r);
			break;
		}
		set_str(t, &t->ev.title, r->title);
		break;
	default:
		break;
	}
}

void
proctree_event_end(struct proctree *t)
{
	if (t->ev.has_syscall)
		apply_event(t, &t->ev);
	ev_clear(&t->ev);
}

/* ---------------------------------------------------------------- */

int
proctree_new(const struct proctree_hints *hints, struct proctree **out)
{
	struct proctree *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return -ENOMEM;
	if (hints != NULL)
		t->hints = *hints;
	*out = t;
	return 0;
}

void
proctree_free(struct proctree *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->nall; i++) {
		struct proc *p = t->all[i];

		free(p->exe);
		free(p->comm);
		free(p->title);
		free(p->argv);
		free(p->cluster);
		free(p->sys);
		free(p->pend);
		free(p);
	}
	free(t->all);
	free(t->map);
	free(t->fifo);
	free(t->aggs);
	ev_clear(&t->ev);
	strset_free(&t->roles);
	strset_free(&t->exes);
	strset_free(&t->nodes);
	free(t);
}

static void
proc_free(struct proc *p)
{
	free(p->exe);
	free(p->comm);
	free(p->title);
	free(p->argv);
	free(p->cluster);
	free(p->sys);
	free(p->pend);
	free(p);
}

/*
 * An entry that is most likely a thread: clone3 hides its flags, and
 * glibc makes threads with it (and posix_spawn children, which exec at
 * once).  A thread's id is never a record's pid= (that is the tgid) and a
 * thread has no exit_group of its own, so such an entry would stay empty
 * and open for ever.  It is not stored (proctree_each_proc()) and is
 * forgotten after @keep (proctree_prune()); a clone3 child that is a
 * process and makes records later starts afresh, as after a prune.
 */
static int
maybe_thread(const struct proc *p)
{
	return p->clone3 && !p->execd && !p->exited && p->records == 0 &&
	       p->nkids == 0 && !p->provisional && p->npend == 0 &&
	       p->nsys == 0 && p->title == NULL && !p->has_pg_child &&
	       !p->seeded;
}

/*
 * A process that is not seen to exit but has made no record for
 * FORGET_SECS of stream time, outside the servers (not a postgres
 * program, no role in a server, no child in memory), is taken as gone:
 * processes killed by a signal make no exit_group record, and those that
 * ran before collection started may exit unseen, so without this every
 * such pid ever seen would stay in memory (2M distinct pids took 1.68 GB,
 * issue 10).  It is marked exited, so that the next commit stores it so
 * (a restart must not seed it as live: it would take the pid), and goes
 * at the prune after that.  A later record of its pid starts a new
 * process, as after an exit.  Postgres processes are never forgotten:
 * their roles are read through them; an entry of one that died unseen
 * goes when the kernel gives its pid to a new process (do_fork()).
 */
static int
forgettable(struct proctree *t, struct proc *p)
{
	return !p->exited && !p->provisional && !p->in_fifo &&
	       p->nkids == 0 && p->npend == 0 && !p->role_busy &&
	       !is_pg(p) && !p->has_pg_child &&
	       p->last_t + FORGET_SECS < t->now &&
	       !pgsc_role_in_server(role_of(t, p, 0, 0));
}

/*
 * Forget processes that exited more than @keep seconds of stream time ago,
 * after folding their counts into the aggregates under the role they have
 * now.  A live collector calls this right after a commit, which wrote each
 * of them to the processes table as exited with that same role, so memory
 * stays bounded by the live processes and a window of recent exits, not by
 * every process of a day of churn.
 *
 * Kept whatever their age: processes still provisional or waiting to be
 * settled (child-before-parent records), and parents of processes still in
 * memory (their roles are read through ->parent).  @keep should be well
 * above SETTLE_SECS: a late fork record must still find its parent.
 * A pruned pid starts afresh at its next record, as after an exit.
 * Entries taken for threads (maybe_thread()) go after @keep too, and
 * processes taken as gone (forgettable()) at the prune after the one that
 * marked them.  Returns how many processes were forgotten.
 */
size_t
proctree_prune(struct proctree *t, double keep)
{
	size_t k = 0, n = 0;

	if (t->finished)
		return 0;
	for (size_t i = 0; i < t->nall; i++) {
		struct proc *p = t->all[i];

		if (forgettable(t, p)) {
			p->exited = 1;
			t->all[k++] = p;
			continue;
		}
		if ((!p->exited && !maybe_thread(p)) || p->provisional ||
		    p->in_fifo || p->nkids > 0 || p->npend > 0 ||
		    p->role_busy || p->last_t + keep >= t->now) {
			t->all[k++] = p;
			continue;
		}
		if (p->nsys > 0)
			fold(t, p, role_of(t, p, 0, 0));
		if (p->parent != NULL)
			p->parent->nkids--;
		if (map_get(t, p->node, p->pid) == p)
			map_del(t, p->node, p->pid);
		if (t->exit_p == p)
			t->exit_p = NULL;
		proc_free(p);
		n++;
	}
	t->nall = k;
	t->nall_pruned = k;
	return n;
}

/*
 * Is a commit (and the prune after it) due for memory's sake?  A live
 * collector far behind (a file: source catching up, a burst) reads a lot
 * of stream time per commit interval, and prunes only after a commit,
 * since whatever it forgets must be stored first: 200,000 distinct pids
 * were all in memory at once before the first commit of a catching-up
 * collector.  So it commits as soon as PRUNE_GROWTH processes were made
 * since the last prune: memory is bounded by what the stream holds
 * (tests/bench/bench-pids.sh), not by how fast it is read.
 */
int
proctree_prune_due(const struct proctree *t)
{
	return t->nall >= t->nall_pruned + PRUNE_GROWTH;
}

/* Processes in memory (for tests and diagnostics). */
size_t
proctree_nprocs(const struct proctree *t)
{
	return t->nall;
}

/*
 * A live collector asks the running processes for what the stream has not
 * told yet: a postgres process that has not exited has no PROCTITLE, but
 * its ps title is its /proc/PID/cmdline.  The pid may have been reused
 * since our last record of it, so the title is taken only when the live
 * process runs the same program and started no later than our first
 * record of it.
 */
void
proctree_proc_titles(struct proctree *t)
{
	long hz = sysconf(_SC_CLK_TCK);
	double boot = 0;
	FILE *f = fopen("/proc/stat", "re");
	char line[256];

	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (strncmp(line, "btime ", 6) == 0)
				boot = strtod(line + 6, NULL);
		fclose(f);
	}
	if (hz <= 0 || boot <= 0)
		return;
	for (size_t i = 0; i < t->nall; i++) {
		struct proc *p = t->all[i];
		char path[64], buf[PGSC_TITLE_MAX + 1], exe[PGSC_EXE_MAX + 1];
		char stat[1024], *rp;
		ssize_t n;
		int fd;
		double start;

		if (p->exited || p->title != NULL || !is_pg(p) ||
		    p->node != NULL)
			continue;
		snprintf(path, sizeof(path), "/proc/%lld/exe", (long long)p->pid);
		n = readlink(path, exe, sizeof(exe) - 1);
		if (n <= 0)
			continue;
		exe[n] = '\0';
		if (strcmp(exe, p->exe) != 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%lld/stat", (long long)p->pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, stat, sizeof(stat) - 1);
		close(fd);
		if (n <= 0)
			continue;
		stat[n] = '\0';
		/* field 22 (starttime) counts from the ")" that ends comm */
		rp = strrchr(stat, ')');
		if (rp == NULL)
			continue;
		{
			unsigned long long st = 0;
			int field = 2;

			for (char *q = rp + 1; *q != '\0' && field < 22; q++)
				if (*q == ' ' && ++field == 22)
					st = strtoull(q + 1, NULL, 10);
			start = boot + (double)st / (double)hz;
		}
		if (start > p->first_t + 1.0)
			continue; /* a later process with the same pid */
		snprintf(path, sizeof(path), "/proc/%lld/cmdline", (long long)p->pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		for (ssize_t k = 0; k < n; k++)
			if (buf[k] == '\0' || (unsigned char)buf[k] < 0x20)
				buf[k] = ' ';
		while (n > 0 && buf[n - 1] == ' ')
			n--;
		buf[n] = '\0';
		if (pgsc_title_role(buf) != NULL) {
			set_str(t, &p->title, buf);
			learn_cluster(t, p);
		}
	}
}

int
proctree_seed(struct proctree *t, const struct proc_info *pi)
{
	struct proc *p, *par = NULL;
	const char *node = node_intern(t, pi->node);

	if (pi->parent_known && pi->ppid >= 0)
		par = map_get(t, node, pi->ppid);
	p = proc_new(t, node, pi->pid, pi->birth);
	if (p == NULL)
		return -ENOMEM;
	p->parent = par;
	if (par != NULL)
		par->nkids++;
	p->ppid_hint = pi->ppid;
	p->forked = par != NULL;
	p->fork_known = pi->parent_known ? 1 : 0;
	p->birth_serial = pi->birth_serial;
	p->birth_t = pi->birth;
	p->last_t = pi->last;
	p->seeded = 1;
	p->stored = 1;
	p->key_birth = pi->birth;
	note_uid(t, p, pi->uid);
	set_str(t, &p->exe, pi->exe);
	set_str(t, &p->comm, pi->comm);
	set_str(t, &p->title, pi->title);
	if (pi->role != NULL && strcmp(pi->role, PGSC_ROLE_UNATTRIBUTED) != 0)
		p->fixed = intern(t, pi->role);
	return t->oom ? -ENOMEM : 0;
}

/*
 * A process's birth in the store (processes and open_counts are keyed by
 * pid and birth): the time of its fork record, or of its first record
 * when no fork record was seen, until a commit writes it; from then on
 * the birth it was written under, whatever comes later.  A child whose
 * records come before its parent's fork record (always for posix_spawn
 * and vfork children) used to be written under its first record's time
 * while provisional, then under the fork's once the fork record adopted
 * it, and its first row stayed behind as a live process with no parent.
 * A restart seeded that ghost once the real process had exited (or was
 * pruned); it took the pid, and the records of the pid's next process
 * that came before their fork record were counted to it, as
 * unattributed: the crash-live "unattributed|126" failure (pg_ctl's
 * spawn of 126 records in the recorded log; tests
 * test_restart_adopted_exited, test_restart_adopted_pruned).  An import
 * writes each process once, at the end: births there are fork times.
 */
static double
proc_birth(const struct proc *p)
{
	if (p->stored)
		return p->key_birth;
	return p->forked ? p->birth_t : p->first_t;
}

/*
 * Continue a crashed live round (src/live.c): seed a process the last
 * commit left open.  Unlike proctree_seed(), a provisional committed role
 * is not kept when the parent is in memory: the role is computed again
 * through it, as an uninterrupted run would.  The open counts follow with
 * proctree_seed_count().  Call oldest first, so that parents come first.
 */
int
proctree_seed_open(struct proctree *t, const struct proc_info *pi)
{
	struct proc *p, *q = map_get(t, node_intern(t, pi->node), pi->pid);
	int rc;

	/*
	 * A provisional process that a fork record adopted later has a new
	 * birth (the fork's): its row of the earlier commit stays behind,
	 * as not exited.  It must not hide the adopted process of its pid:
	 * while that one lives, records of the pid are its own, so no other
	 * process of the pid without a fork record can start after it.
	 * Its open counts (if any) then stay in the committed base.
	 */
	if (q != NULL && !q->exited && (q->forked || q->fork_known) &&
	    !pi->parent_known &&
	    pi->birth + 0.001 >= q->birth_t)
		return 0;
	rc = proctree_seed(t, pi);
	if (rc < 0)
		return rc;
	p = map_get(t, node_intern(t, pi->node), pi->pid);
	p->records = pi->records;
	p->exited = pi->exited ? 1 : 0;
	if (p->fixed != NULL && p->parent != NULL && roles_provisional(p->fixed))
		p->fixed = NULL;
	/* the processes table keeps the argv where no title is known */
	if (p->title != NULL && pgsc_title_role(p->title) == NULL &&
	    p->argv == NULL) {
		p->argv = p->title;
		p->title = NULL;
	}
	/* a role its title alone gave (no fork record seen) is computed
	 * again from the title and the ppid= kept in its row: a later
	 * ppid= may still revoke it (title_parent_ok()), as it does in an
	 * uninterrupted run */
	if (p->fixed != NULL && !pi->parent_known && p->title != NULL &&
	    is_pg(p))
		p->fixed = NULL;
	if (p->parent != NULL && is_pg(p) && is_pg(p->parent))
		p->parent->has_pg_child = 1;
	learn_cluster(t, p);
	return t->oom ? -ENOMEM : 0;
}

int
proctree_seed_count(struct proctree *t, const struct proc_count *c)
{
	struct proc *p = map_get(t, node_intern(t, c->node), c->pid);

	if (p == NULL || !p->seeded || proc_birth(p) != c->birth ||
	    c->count == 0)
		return 0;
	if (!c->pending) {
		sys_add(t, p, c->arch, c->nr, c->count, c->first, c->last);
		return t->oom ? -ENOMEM : 1;
	}
	if (p->forked || p->rolled != NULL || p->npend + c->count > PEND_MAX)
		return 0;
	if (p->npend + c->count > p->cappend) {
		size_t ncap = p->cappend ? p->cappend : 32;
		struct pend *np;

		while (ncap < p->npend + c->count)
			ncap *= 2;
		np = realloc(p->pend, ncap * sizeof(*np));
		if (np == NULL)
			return -ENOMEM;
		p->pend = np;
		p->cappend = ncap;
	}
	for (uint64_t k = 0; k < c->count; k++)
		p->pend[p->npend++] = (struct pend){ c->arch, c->nr, c->first };
	if (!p->provisional) {
		p->provisional = 1;
		if (!p->in_fifo)
			fifo_push(t, p);
	}
	return t->oom ? -ENOMEM : 1;
}

int
proctree_finish(struct proctree *t)
{
	if (t->finished)
		return t->oom ? -ENOMEM : 0;
	proctree_event_end(t);
	for (size_t i = 0; i < t->nall; i++)
		if (t->all[i]->provisional)
			settle(t, t->all[i]);
	for (size_t i = 0; i < t->nall; i++) {
		struct proc *p = t->all[i];

		if (p->parent != NULL && is_pg(p) && is_pg(p->parent))
			p->parent->has_pg_child = 1;
	}
	for (size_t i = 0; i < t->nall; i++) {
		struct proc *p = t->all[i];
		const char *r = role_of(t, p, 1, 0);

		if (p->nsys > 0 || p->rolled == NULL)
			fold(t, p, r);
		p->role = p->rolled;
	}
	t->finished = 1;
	return t->oom ? -ENOMEM : 0;
}

/*
 * The counts so far, without settling anything: the rolled-up aggregates
 * plus, for every process still open, its counts under the role it would
 * have now.  A live collector commits this snapshot whole (replacing the
 * previous one), so a role learnt later corrects earlier commits.
 */
int
proctree_snapshot(struct proctree *t,
		  int (*cb)(void *arg, const struct role_agg *a), void *arg)
{
	int rc = proctree_each_agg(t, cb, arg);

	for (size_t i = 0; rc == 0 && i < t->nall; i++) {
		struct proc *p = t->all[i];
		const char *r;
		struct role_agg ra;

		if (p->nsys == 0 && p->npend == 0)
			continue;
		r = intern(t, role_of(t, p, 0, 0));
		ra.role = r;
		ra.example_pid = p->pid;
		ra.example_exe = p->exe;
		for (size_t k = 0; rc == 0 && k < p->nsys; k++) {
			ra.arch = p->sys[k].arch;
			ra.nr = p->sys[k].nr;
			ra.count = p->sys[k].count;
			ra.first = p->sys[k].first;
			ra.last = p->sys[k].last;
			rc = cb(arg, &ra);
		}
		for (size_t k = 0; rc == 0 && k < p->npend; k++) {
			ra.arch = p->pend[k].arch;
			ra.nr = p->pend[k].nr;
			ra.count = 1;
			ra.first = ra.last = p->pend[k].t;
			rc = cb(arg, &ra);
		}
	}
	return rc;
}

/*
 * What proctree_snapshot() wrote for the processes still open, one entry
 * per process and syscall (kept records one per time), with the role it
 * used: a live commit stores them, so that a restart can take them back.
 */
int
proctree_each_open(struct proctree *t,
		   int (*cb)(void *arg, const struct proc_count *c), void *arg)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < t->nall; i++) {
		struct proc *p = t->all[i];
		struct proc_count c;

		if (p->nsys == 0 && p->npend == 0)
			continue;
		c.pid = p->pid;
		c.node = p->node;
		c.birth = proc_birth(p);
		c.role = intern(t, role_of(t, p, 0, 0));
		c.pending = 0;
		for (size_t k = 0; rc == 0 && k < p->nsys; k++) {
			c.arch = p->sys[k].arch;
			c.nr = p->sys[k].nr;
			c.count = p->sys[k].count;
			c.first = p->sys[k].first;
			c.last = p->sys[k].last;
			rc = cb(arg, &c);
		}
		c.pending = 1;
		c.count = 1;
		for (size_t k = 0; rc == 0 && k < p->npend; k++) {
			c.arch = p->pend[k].arch;
			c.nr = p->pend[k].nr;
			c.first = c.last = p->pend[k].t;
			rc = cb(arg, &c);
		}
	}
	return rc;
}

int
proctree_each_agg(struct proctree *t,
		  int (*cb)(void *arg, const struct role_agg *a), void *arg)
{
	for (size_t i = 0; i < t->aggcap; i++) {
		const struct agg *a = &t->aggs[i];
		struct role_agg ra;
		int rc;

		if (a->role == NULL)
			continue;
		ra.role = a->role;
		ra.arch = a->arch;
		ra.nr = a->nr;
		ra.count = a->count;
		ra.first = a->first;
		ra.last = a->last;
		ra.example_pid = a->example_pid;
		ra.example_exe = a->example_exe;
		rc = cb(arg, &ra);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int
proctree_each_proc(struct proctree *t,
		   int (*cb)(void *arg, const struct proc_info *p), void *arg)
{
	for (size_t i = 0; i < t->nall; i++) {
		struct proc *p = t->all[i];
		struct proc_info pi;
		int rc;

		/*
		 * Empty entries (exits of unknown processes) add nothing but
		 * noise to the processes table.  A live child with no record
		 * yet is kept: a continued round starts from this table, and
		 * its fork record is behind the stored position, so without
		 * the row its first records would have no parent.  Threads
		 * made with clone3 look the same and are left out.
		 */
		if (p->records == 0 && !p->has_pg_child && p->title == NULL &&
		    p->argv == NULL && !p->seeded &&
		    !(p->forked && !p->exited && !maybe_thread(p)))
			continue;
		pi.pid = p->pid;
		pi.node = p->node;
		pi.ppid = p->parent ? p->parent->pid : p->ppid_hint;
		pi.parent_known = p->parent != NULL;
		pi.birth = proc_birth(p);
		/* from now on the process is this row (proc_birth()) */
		p->key_birth = pi.birth;
		p->stored = 1;
		pi.birth_serial = p->forked ? p->birth_serial : 0;
		pi.last = p->last_t;
		pi.exe = p->exe;
		pi.comm = p->comm;
		pi.title = p->title ? p->title : p->argv;
		pi.role = p->role ? p->role
				  : p->rolled ? p->rolled
				  : role_of(t, t->all[i], 0, 0);
		pi.records = p->records;
		pi.exited = p->exited;
		pi.uid = p->uid;
		rc = cb(arg, &pi);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* Titles                                                             */

static int
word_eq(const char *s, const char *w)
{
	size_t n = strlen(w);

	return strncmp(s, w, n) == 0 && (s[n] == '\0' || s[n] == ' ');
}

static const struct { const char *prefix, *role; } aux_titles[] = {
	{ "autovacuum launcher", "autovacuum launcher" },
	{ "autovacuum worker", "autovacuum worker" },
	{ "background writer", "background writer" },
	{ "checkpointer", "checkpointer" },
	{ "walwriter", "walwriter" },
	{ "walreceiver", "walreceiver" },
	{ "archiver", "archiver" },
	{ "startup", "startup" },
	{ "logger", "logger" },
	{ "stats collector", "stats collector" },
	{ "logical replication launcher", "logical replication launcher" },
	{ "logical replication worker", "logical replication worker" },
	{ "logical replication apply worker", "logical replication worker" },
	{ "logical replication tablesync worker", "logical replication worker" },
	{ "parallel worker", "parallel worker" },
};

/* What follows "postgres: " (or "postmaster: "); NULL for another title. */
static const char *
title_rest(const char *title)
{
	if (title == NULL)
		return NULL;
	if (strncmp(title, "postgres: ", 10) == 0)
		return title + 10;
	if (strncmp(title, "postmaster: ", 12) == 0)
		return title + 12;
	return NULL;
}

static const char *
aux_role(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(aux_titles); i++)
		if (word_eq(s, aux_titles[i].prefix))
			return aux_titles[i].role;
	return NULL;
}

/*
 * Is there a client's host word ("[local]", or "addr(port)") at or after
 * the third word of @s?  A client backend's title is "user database host
 * activity" (PostgreSQL 15, BackendInitialize()), the host word always
 * there; the user and database names may hold spaces, so the host word
 * may come later, never earlier.  No auxiliary process has one.
 */
static int
has_host_word(const char *s)
{
	const char *w2 = s;

	for (int k = 0; k < 2 && w2 != NULL; k++) {
		w2 = strchr(w2, ' ');
		if (w2 != NULL)
			w2++;
	}
	if (w2 == NULL)
		return 0;
	for (const char *h = w2; h != NULL && *h != '\0'; ) {
		size_t hl = strcspn(h, " ");

		if ((hl == 7 && strncmp(h, "[local]", 7) == 0) ||
		    (hl > 2 && h[hl - 1] == ')' && memchr(h, '(', hl) != NULL))
			return 1;
		h = strchr(h, ' ');
		if (h != NULL)
			h++;
	}
	return 0;
}

/*
 * The cluster name a title of an auxiliary process shows: "C: AUX..."
 * with C one word and AUX an auxiliary process's name, and no client's
 * host word anywhere.  A client backend's title always has a host word,
 * so no client can teach a cluster name (a role "a:" on a database
 * "checkpointer" is "a: checkpointer [local] idle").  Returns C and its
 * length in *@n, or NULL.
 */
static const char *
title_cluster(const char *rest, size_t *n)
{
	const char *sp;

	if (rest == NULL || (sp = strchr(rest, ' ')) == NULL ||
	    sp - rest < 2 || sp[-1] != ':')
		return NULL;
	if (aux_role(sp + 1) == NULL || has_host_word(rest))
		return NULL;
	*n = (size_t)(sp - 1 - rest);
	return rest;
}

/*
 * The backend type a title names, with @cluster (@clen bytes; NULL when
 * none is known) the cluster_name of the server the process belongs to:
 * "postgres: " then "CLUSTER: " when that server has one, then
 *   "walsender user [database] host activity",
 *   "user database host activity" (a client backend),
 *   an auxiliary process's name ("checkpointer", "autovacuum worker db"),
 *   anything else: a background worker's type.
 * The user and database names are the client's: they are never read as
 * a cluster name or a backend type.  One ambiguity is PostgreSQL's own:
 * a client whose role is named "walsender" shows the title of a
 * walsender (docs/roles.md).
 */
static const char *
title_role_in(const char *title, const char *cluster, size_t clen)
{
	const char *s = title_rest(title), *r;

	if (s == NULL)
		return NULL;
	if (cluster != NULL && strncmp(s, cluster, clen) == 0 &&
	    s[clen] == ':' && s[clen + 1] == ' ')
		s += clen + 2;
	if (*s == '\0')
		return NULL;
	if (word_eq(s, "walsender") && has_host_word(s))
		return "walsender";
	if (has_host_word(s))
		return "client backend";
	r = aux_role(s);
	return r != NULL ? r : "background worker";
}

/*
 * Without knowing the server: the cluster name only from the title
 * itself, when it is an auxiliary process's ("postgres: main: walwriter").
 */
const char *
pgsc_title_role(const char *title)
{
	const char *c;
	size_t n = 0;

	c = title_cluster(title_rest(title), &n);
	return title_role_in(title, c, n);
}
