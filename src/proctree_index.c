/* SPDX-License-Identifier: PostgreSQL */
/* proctree_index.c - the process tree's data: processes, index, aggregates. */
/*
 * The bottom of the process tree, calling no other proctree*.c file (the
 * order is index, roles in proctree.c, events, then proctree_agg.c; a
 * file calls only those before it).  A process is kept under its node
 * and pid in an open-addressing index that always holds the live process
 * of a pid; its syscalls are counted per (arch, nr), or kept one by one
 * while it is provisional (a child whose fork record has not come yet,
 * proctree_event.c).  pt_fold() moves a process's counts into the
 * aggregates of a role, given by the callers above (proctree.c's
 * early rollup, proctree_agg.c's prune and finish), and pt_forget()
 * drops a process already folded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "proctree.h"
#include "proctree-int.h"

const char *
pt_intern(struct proctree *t, const char *s)
{
	const char *r = strset_intern(&t->roles, s);

	if (r == NULL) {
		t->oom = 1;
		return PGSC_ROLE_UNATTRIBUTED;
	}
	return r;
}

void
pt_set_str(struct proctree *t, char **dst, const char *s)
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

/* The slot of (@node, @pid) in @map of @cap (a power of two) slots: its
 * entry, or the empty slot where it goes. */
static inline struct pid_slot *
map_slot(struct pid_slot *map, size_t cap, const char *node, int64_t pid)
{
	size_t j = key_hash(node, pid) & (cap - 1);

	while (map[j].p != NULL && (map[j].pid != pid || map[j].node != node))
		j = (j + 1) & (cap - 1);
	return &map[j];
}

struct proc *
pt_map_get(struct proctree *t, const char *node, int64_t pid)
{
	if (t->mapcap == 0)
		return NULL;
	return map_slot(t->map, t->mapcap, node, pid)->p;
}

static int
map_put(struct proctree *t, struct proc *p)
{
	struct pid_slot *s;

	if ((t->mapn + 1) * 2 > t->mapcap) {
		size_t ncap = t->mapcap ? t->mapcap * 2 : 1024;
		struct pid_slot *nm = calloc(ncap, sizeof(*nm));

		if (nm == NULL)
			return -ENOMEM;
		for (size_t i = 0; i < t->mapcap; i++)
			if (t->map[i].p != NULL)
				*map_slot(nm, ncap, t->map[i].node,
					  t->map[i].pid) = t->map[i];
		free(t->map);
		t->map = nm;
		t->mapcap = ncap;
	}
	s = map_slot(t->map, t->mapcap, p->node, p->pid);
	if (s->p == NULL) {
		s->pid = p->pid;
		s->node = p->node;
		t->mapn++;
	}
	s->p = p;
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
	i = (size_t)(map_slot(t->map, t->mapcap, node, pid) - t->map);
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
const char *
pt_node_intern(struct proctree *t, const char *name)
{
	const char *n;

	if (name == NULL || *name == '\0')
		return NULL;
	n = strhash_intern(&t->nodes, name);
	if (n == NULL)
		t->oom = 1;
	return n;
}

struct proc *
pt_proc_new(struct proctree *t, const char *node, int64_t pid, double when)
{
	struct proc *p, *older = pt_map_get(t, node, pid);

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
	p->seq = t->nseq++;
	if (older != NULL) {
		/* the map's entry is the newest of its pid in memory */
		p->pid_prev = older;
		older->pid_next = p;
	}
	t->all[t->nall++] = p;
	return p;
oom:
	t->oom = 1;
	return NULL;
}

void
pt_fifo_push(struct proctree *t, struct proc *p)
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

void
pt_sys_add(struct proctree *t, struct proc *p, uint32_t arch, int32_t nr,
	uint64_t count, double first, double last)
{
	size_t lo = 0, hi = p->nsys;

	/* sorted by (arch, nr): binary search, a process has ~100 entries */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		struct sysent *e = &p->sys[mid];

		if (e->arch == arch && e->nr == nr) {
			e->count += count;
			util_widen_span(&e->first, &e->last, first, last);
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
	p->sys[lo] = (struct sysent){ arch, nr, count, first, last, 0 };
	p->nsys++;
}

/* Fold a provisional process's kept records into its counts. */
void
pt_settle(struct proctree *t, struct proc *p)
{
	for (size_t i = 0; i < p->npend; i++)
		pt_sys_add(t, p, p->pend[i].arch, p->pend[i].nr, 1, p->pend[i].t,
			p->pend[i].t);
	free(p->pend);
	p->pend = NULL;
	p->npend = p->cappend = 0;
	p->provisional = 0;
}

void
pt_settle_old(struct proctree *t)
{
	while (t->fifo_n > 0) {
		struct proc *p = t->fifo[t->fifo_head];

		if (p->provisional && p->first_t + SETTLE_SECS > t->now)
			break;
		if (p->provisional)
			pt_settle(t, p);
		p->in_fifo = 0;
		t->fifo_head++;
		t->fifo_n--;
	}
}

/* The live process for @pid, or a new provisional one. */
struct proc *
pt_current(struct proctree *t, const char *node, int64_t pid, double when)
{
	struct proc *p = pt_map_get(t, node, pid);

	if (p != NULL && !p->exited)
		return p;
	p = pt_proc_new(t, node, pid, when);
	if (p == NULL)
		return NULL;
	p->provisional = 1;
	pt_fifo_push(t, p);
	return p;
}

/* Does @p run a postgres binary (and not as another uid than the
 * server's, --server-user)? */
int
pt_is_pg(const struct proc *p)
{
	const char *b;

	if (p == NULL || p->exe == NULL || p->foreign)
		return 0;
	b = strrchr(p->exe, '/');
	b = b ? b + 1 : p->exe;
	return util_exe_is(b, "postgres") || util_exe_is(b, "postmaster");
}

/* A postgres process's uid is a server's uid: remembered, so that a
 * process of another program, another uid and no parent can be told to be
 * no server's (role foreign, docs/roles.md). */
static void
note_server_uid(struct proctree *t, const struct proc *p)
{
	/* the uid known already is the common case, and costs less than
	 * pt_is_pg(): this runs twice for every SECCOMP record */
	if (p->uid < 0 || t->pg_uids_full)
		return;
	for (size_t i = 0; i < t->npg_uids; i++)
		if (t->pg_uids[i] == p->uid)
			return;
	if (!pt_is_pg(p))
		return;
	if (t->npg_uids == ARRAY_SIZE(t->pg_uids))
		t->pg_uids_full = 1;
	else
		t->pg_uids[t->npg_uids++] = p->uid;
}

/* Could @uid be a server's: --server-user's, or one a postgres process
 * ran as?  When more uids ran postgres than are remembered, every uid
 * could. */
int
proctree_uid_is_server(const struct proctree *t, int64_t uid)
{
	if (t->pg_uids_full)
		return 1;
	if (t->hints.has_server_uid && (uint64_t)uid == t->hints.server_uid)
		return 1;
	for (size_t i = 0; i < t->npg_uids; i++)
		if (t->pg_uids[i] == uid)
			return 1;
	return 0;
}

/* --server-user: a postgres binary run by another uid is not a server's
 * (docs/security.md); the last uid a record gave counts. */
void
pt_note_uid(struct proctree *t, struct proc *p, int64_t uid)
{
	if (uid < 0)
		return;
	p->uid = uid;
	if (t->hints.has_server_uid)
		p->foreign = (uint64_t)uid != t->hints.server_uid;
	note_server_uid(t, p);
}

/* A ppid= of one of its SYSCALL records: the first one, and a later one
 * that differs (a reparenting, or a forgery), are kept: a title places a
 * process only when every parent observed is that server's postmaster
 * (title_parent_ok()). */
void
pt_note_ppid(struct proc *p, int64_t ppid)
{
	if (ppid < 0)
		return;
	if (p->ppid_hint < 0)
		p->ppid_hint = ppid;
	else if (ppid != p->ppid_hint)
		p->ppid_other = ppid;
}

void
pt_note_exe(struct proctree *t, struct proc *p, const char *exe,
	 const char *comm, double when)
{
	if (exe != NULL && *exe != '\0' && (p->exe == NULL || when >= p->exe_t)) {
		pt_set_str(t, &p->exe, exe);
		p->exe_t = when;
		note_server_uid(t, p);
	}
	if (comm != NULL && *comm != '\0' && (p->comm == NULL || when >= p->exe_t))
		pt_set_str(t, &p->comm, comm);
}

/* ---------------------------------------------------------------- */
/* Aggregates per (role, arch, nr)                                    */

static uint64_t
agg_hash(const char *node, const char *role, uint32_t arch, int32_t nr)
{
	uint64_t k = ((uint64_t)(uintptr_t)role ^ (uint64_t)(uintptr_t)node) *
		     0x9e3779b97f4a7c15ULL;

	k ^= ((uint64_t)arch << 20) ^ (uint64_t)(uint32_t)nr;
	return pid_hash((int64_t)k);
}

/* The slot of (@node, @role, @arch, @nr) in @v of @cap (a power of two)
 * slots: its aggregate, or the empty slot where it goes. */
static inline struct role_agg *
agg_slot(struct role_agg *v, size_t cap, const char *node, const char *role,
	 uint32_t arch, int32_t nr)
{
	size_t j = agg_hash(node, role, arch, nr) & (cap - 1);

	while (v[j].role != NULL &&
	       (v[j].role != role || v[j].arch != arch || v[j].nr != nr ||
		v[j].node != node))
		j = (j + 1) & (cap - 1);
	return &v[j];
}

/*
 * Add to the aggregate of (@p's node, @role, @arch, @nr).  Its example is
 * the process of the fold of lowest @rank: the first fold made, since the
 * ranks of the folds made while reading grow, and those of the folds at
 * the end of an import come after them in the order the processes were
 * made (FOLD_RANK_END), which is the order proctree_finish() folds them
 * in.  An import's early fold (proctree_fold_exited()) comes before some
 * folds made while reading but takes the rank of the fold at the end it
 * stands for, so the example is the same.
 */
static void
agg_add(struct proctree *t, const char *role, uint32_t arch, int32_t nr,
	uint64_t count, double first, double last, const struct proc *p,
	uint64_t rank)
{
	struct role_agg *a;

	if ((t->aggn + 1) * 2 > t->aggcap) {
		size_t ncap = t->aggcap ? t->aggcap * 2 : 512;
		struct role_agg *na = calloc(ncap, sizeof(*na));

		if (na == NULL) {
			t->oom = 1;
			return;
		}
		for (size_t i = 0; i < t->aggcap; i++)
			if (t->aggs[i].role != NULL)
				*agg_slot(na, ncap, t->aggs[i].node,
					  t->aggs[i].role, t->aggs[i].arch,
					  t->aggs[i].nr) = t->aggs[i];
		free(t->aggs);
		t->aggs = na;
		t->aggcap = ncap;
	}
	a = agg_slot(t->aggs, t->aggcap, p->node, role, arch, nr);
	if (a->role != NULL) {
		a->count += count;
		util_widen_span(&a->first, &a->last, first, last);
		if (rank >= a->example_rank)
			return;
		a->example_pid = p->pid;
		a->example_exe = p->exe ? strset_intern(&t->exes, p->exe)
				       : NULL;
		a->example_rank = rank;
	} else {
		/* interned: the process may be pruned before the aggregate
		 * goes */
		*a = (struct role_agg){ role, arch, nr, count, first, last,
					p->pid,
					p->exe ? strset_intern(&t->exes, p->exe)
					       : NULL,
					p->node, rank };
		t->aggn++;
	}
	if (p->exe != NULL && a->example_exe == NULL)
		t->oom = 1;
}

/* Fold @p's counts into the aggregates of @role, for good: from now on
 * @role is its role (->rolled).  A fold made while reading (a rollup, a
 * prune) ranks after those made before it (agg_add()). */
void
pt_fold(struct proctree *t, struct proc *p, const char *role)
{
	pt_fold_ranked(t, p, role, t->nfolds++);
}

/* pt_fold() with the rank of the fold given (agg_add()): an import's end
 * and its early folds, FOLD_RANK_END | p->seq. */
void
pt_fold_ranked(struct proctree *t, struct proc *p, const char *role,
	       uint64_t rank)
{
	role = pt_intern(t, role);
	for (size_t i = 0; i < p->nsys; i++)
		agg_add(t, role, p->sys[i].arch, p->sys[i].nr, p->sys[i].count,
			p->sys[i].first, p->sys[i].last, p, rank);
	free(p->sys);
	p->sys = NULL;
	p->nsys = p->capsys = 0;
	for (size_t i = 0; i < p->args.n; i++) {
		struct args_obs o = p->args.e[i];

		o.role = role;
		if (args_tab_add(&t->args, &o) < 0)
			t->oom = 1;
	}
	args_tab_free(&p->args);
	p->rolled = role;
}

/*
 * The argument values of a SYSCALL event of args.c's set go to the
 * caller's table, found as a SECCOMP record's caller is (pt_current(): a
 * pid not known yet is a provisional process a fork record may claim,
 * told the exe and uid), and reach its role's table with its counts
 * (pt_fold()).  A clone's caller is only looked up: the fork rules record
 * every clone, threads' too, and a tree that made processes for them
 * would differ from one without --args (do_fork() makes the parent of a
 * process it links).
 */
void
pt_args_note(struct proctree *t, const struct event *e, int clone)
{
	struct args_obs o;
	struct proc *p;

	if (!args_extract(e->arch, e->syscall, e->a, &o))
		return;
	if (clone) {
		p = pt_map_get(t, e->node, e->pid);
		if (p == NULL || p->exited)
			return;
	} else {
		p = pt_current(t, e->node, e->pid, e->t);
		if (p == NULL)
			return;
		pt_note_ppid(p, e->ppid);
		pt_note_exe(t, p, e->exe, e->comm, e->t);
		pt_note_uid(t, p, e->uid);
	}
	if (args_tab_add(&p->args, &o) < 0)
		t->oom = 1;
}

/* ---------------------------------------------------------------- */
/* Lifetime: new, forget, free                                        */

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

static void
proc_free(struct proc *p)
{
	void *owned[] = { p->exe, p->comm, p->title, p->argv, p->cluster,
			  p->sys, p->pend, p };

	args_tab_free(&p->args);
	for (size_t i = 0; i < ARRAY_SIZE(owned); i++)
		free(owned[i]);
}

/* Forget @p, whose counts were folded (proctree_prune()): its parent no
 * longer counts it, its pid no longer finds it. */
void
pt_forget(struct proctree *t, struct proc *p)
{
	if (p->parent != NULL)
		p->parent->nkids--;
	if (pt_map_get(t, p->node, p->pid) == p)
		map_del(t, p->node, p->pid);
	if (t->exit_p == p)
		t->exit_p = NULL;
	if (p->seeded)
		t->nseeded--;
	if (p->pid_prev != NULL)
		p->pid_prev->pid_next = p->pid_next;
	if (p->pid_next != NULL)
		p->pid_next->pid_prev = p->pid_prev;
	proc_free(p);
}

/* Free the strings of the event being put together (proctree_event.c). */
void
pt_ev_clear(struct event *e)
{
	/* the end of every SECCOMP record's event finds nothing to clear:
	 * every field is set only with has_syscall, or is one of the four
	 * strings */
	if (!e->has_syscall && e->exe == NULL && e->comm == NULL &&
	    e->title == NULL && e->argv == NULL)
		return;
	free(e->exe);
	free(e->comm);
	free(e->title);
	free(e->argv);
	memset(e, 0, sizeof(*e));
}

void
proctree_free(struct proctree *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->nall; i++)
		proc_free(t->all[i]);
	pt_ev_clear(&t->ev);
	strset_free(&t->roles);
	strset_free(&t->exes);
	strhash_free(&t->nodes);
	free(t->gone);
	args_tab_free(&t->args);
	void *owned[] = { t->all, t->map, t->fifo, t->aggs, t };

	for (size_t i = 0; i < ARRAY_SIZE(owned); i++)
		free(owned[i]);
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
int
pt_maybe_thread(const struct proc *p)
{
	return p->clone3 && !p->execd && !p->exited && p->records == 0 &&
	       p->nkids == 0 && p->kids_out == 0 && !p->provisional &&
	       p->npend == 0 && p->nsys == 0 && p->title == NULL &&
	       !p->has_pg_child && !p->seeded;
}

/* Processes in memory (for tests and diagnostics). */
size_t
proctree_nprocs(const struct proctree *t)
{
	return t->nall;
}
