/* SPDX-License-Identifier: PostgreSQL */
/* proctree_agg.c - counts per (role, arch, nr), and the tree handed out. */
/*
 * A process's counts are folded into the aggregate of its role once that
 * role is final (at its rollup, its prune, or proctree_finish()).  The
 * iterators hand the store the aggregates, the processes and the counts
 * of processes still open, for a commit or the end of an import.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "proctree-int.h"

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

static void
agg_add(struct proctree *t, const char *role, uint32_t arch, int32_t nr,
	uint64_t count, double first, double last, const struct proc *p)
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
		return;
	}
	/* interned: the process may be pruned before the aggregate goes */
	*a = (struct role_agg){ role, arch, nr, count, first, last, p->pid,
				p->exe ? strset_intern(&t->exes, p->exe) : NULL,
				p->node };
	if (p->exe != NULL && a->example_exe == NULL)
		t->oom = 1;
	t->aggn++;
}

void
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
 * The counts of open process @p, one entry per syscall and then one per
 * kept record, under the role it would have now.
 */
static int
open_counts(struct proctree *t, struct proc *p,
	    int (*cb)(void *arg, const struct proc_count *c), void *arg)
{
	struct proc_count c;
	int rc = 0;

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
	return rc;
}

struct snap_arg {
	int (*cb)(void *arg, const struct role_agg *a);
	void *arg;
	const struct proc *p;
};

static int
snap_count(void *arg, const struct proc_count *c)
{
	const struct snap_arg *sa = arg;
	struct role_agg ra = {
		.role = c->role, .arch = c->arch, .nr = c->nr,
		.count = c->count, .first = c->first, .last = c->last,
		.example_pid = sa->p->pid, .example_exe = sa->p->exe,
		.node = sa->p->node,
	};

	return sa->cb(sa->arg, &ra);
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
	struct snap_arg sa = { cb, arg, NULL };
	int rc = proctree_each_agg(t, cb, arg);

	for (size_t i = 0; rc == 0 && i < t->nall; i++) {
		sa.p = t->all[i];
		if (sa.p->nsys == 0 && sa.p->npend == 0)
			continue;
		rc = open_counts(t, t->all[i], snap_count, &sa);
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

		if (p->nsys == 0 && p->npend == 0)
			continue;
		rc = open_counts(t, p, cb, arg);
	}
	return rc;
}

int
proctree_each_agg(struct proctree *t,
		  int (*cb)(void *arg, const struct role_agg *a), void *arg)
{
	for (size_t i = 0; i < t->aggcap; i++) {
		int rc;

		if (t->aggs[i].role == NULL)
			continue;
		rc = cb(arg, &t->aggs[i]);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* A signature of the row @pi: the commit that wrote it and one that
 * would write the same row find the same value. */
static uint64_t
row_sig(const struct proc_info *pi)
{
	const char *s[5] = { pi->node, pi->exe, pi->comm, pi->title, pi->role };
	int64_t v[5] = { pi->pid, pi->ppid, pi->parent_known, pi->exited,
			 pi->uid };
	double d[2] = { pi->birth, pi->last };
	uint64_t h = util_hash(v, sizeof(v), pi->records);

	h = util_hash(d, sizeof(d), h ^ pi->birth_serial);
	for (int i = 0; i < 5; i++)
		h = s[i] ? util_hash(s[i], strlen(s[i]), h + (uint64_t)i)
			 : h * 31 + (uint64_t)i;
	return h != 0 ? h : 1;
}

static int
each_proc(struct proctree *t, int changed,
	  int (*cb)(void *arg, const struct proc_info *p), void *arg)
{
	for (size_t i = 0; i < t->nall; i++) {
		struct proc *p = t->all[i];
		struct proc_info pi;
		uint64_t sig = 0;
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
		if (changed) {
			sig = row_sig(&pi);
			if (sig == p->row_sig)
				continue;
		}
		rc = cb(arg, &pi);
		if (rc != 0)
			return rc;
		if (changed)
			p->row_sig = sig;
	}
	return 0;
}

int
proctree_each_proc(struct proctree *t,
		   int (*cb)(void *arg, const struct proc_info *p), void *arg)
{
	return each_proc(t, 0, cb, arg);
}

int
proctree_each_changed_proc(struct proctree *t,
			   int (*cb)(void *arg, const struct proc_info *p),
			   void *arg)
{
	return each_proc(t, 1, cb, arg);
}

void
proctree_rows_unwritten(struct proctree *t)
{
	for (size_t i = 0; i < t->nall; i++)
		t->all[i]->row_sig = 0;
}
