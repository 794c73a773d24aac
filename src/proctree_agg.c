/* SPDX-License-Identifier: PostgreSQL */
/* proctree_agg.c - counts folded at prune and finish; the tree handed out. */
/*
 * The top of the process tree: it calls the files below it (the data in
 * proctree_index.c, the roles of proctree.c, the events) and none calls
 * it.  A process's counts are folded into the aggregate of its role once
 * that role is final: at its rollup (proctree.c), its prune or
 * proctree_finish().  The iterators hand the store the aggregates, the
 * processes and the counts of processes still open, for a commit or the
 * end of an import.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "proctree.h"
#include "proctree-int.h"

/* ---------------------------------------------------------------- */
/* Folding: pruning and the end                                       */

/*
 * A process that is not seen to exit but has made no record for
 * FORGET_SECS of stream time, outside the servers (not a postgres
 * program, no role in a server, no child in memory), is taken as gone:
 * processes killed by a signal make no exit_group record, and those that
 * ran before collection started may exit unseen, so without this every
 * such pid ever seen would stay in memory (2M distinct pids took 1.68
 * GB).  It is marked exited, so that the next commit stores it so
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
	       !pt_is_pg(p) && !p->has_pg_child &&
	       p->last_t + FORGET_SECS < t->now &&
	       !pgsc_role_in_server(pt_role_of(t, p, 0, 0));
}

/* @p, whose open counts a commit stored, is forgotten: remember to delete
 * them. */
static void
gone_add(struct proctree *t, const struct proc *p)
{
	if (t->ngone == t->capgone) {
		size_t cap = t->capgone ? t->capgone * 2 : 256;
		struct open_gone *g = realloc(t->gone, cap * sizeof(*g));

		if (g == NULL) {
			t->gone_lost = 1;
			return;
		}
		t->gone = g;
		t->capgone = cap;
	}
	t->gone[t->ngone++] = (struct open_gone){ p->node, p->pid,
						  p->open_birth };
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
 * Entries taken for threads (pt_maybe_thread()) go after @keep too, and
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
		if ((!p->exited && !pt_maybe_thread(p)) || p->provisional ||
		    p->in_fifo || p->nkids > 0 || p->npend > 0 ||
		    p->role_busy || p->last_t + keep >= t->now) {
			t->all[k++] = p;
			continue;
		}
		if (p->nsys > 0 || p->args.n > 0)
			pt_fold(t, p, pt_role_of(t, p, 0, 0));
		if (p->open_sig != 0)
			gone_add(t, p);
		pt_forget(t, p);
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
 * collector.  So it commits as soon as the tree has grown by a quarter
 * of what the last prune kept, and by PRUNE_GROWTH at least: memory is
 * bounded by what the stream holds (tests/bench/bench-pids.sh), not by
 * how fast it is read.  Growth in proportion, not a fixed count: a
 * fleet's collector holds every node's processes, and a fixed 8,192 made
 * its commits come every few seconds whatever the commit interval, each
 * rewriting every node's changed rows (docs/fleet.md).  A quarter, not
 * the whole: letting the tree double took bench-pids from 33 MB to 130.
 */
int
proctree_prune_due(const struct proctree *t)
{
	size_t growth = t->nall_pruned / 4 > PRUNE_GROWTH ?
			t->nall_pruned / 4 : PRUNE_GROWTH;

	return t->nall >= t->nall_pruned + growth;
}

/*
 * The row of @p in *@pi; 0 when it has none.  Empty entries (exits of
 * unknown processes) add nothing but noise to the processes table.  A
 * live child with no record yet is kept: a continued round starts from
 * this table, and its fork record is behind the stored position, so
 * without the row its first records would have no parent.  Threads made
 * with clone3 look the same and are left out.
 */
static int
proc_row(struct proctree *t, struct proc *p, struct proc_info *pi)
{
	if (p->records == 0 && !p->has_pg_child && p->title == NULL &&
	    p->argv == NULL && !p->seeded &&
	    !(p->forked && !p->exited && !pt_maybe_thread(p)))
		return 0;
	pi->pid = p->pid;
	pi->node = p->node;
	pi->ppid = p->parent ? p->parent->pid : p->ppid_hint;
	pi->parent_known = p->parent != NULL;
	pi->birth = pt_proc_birth(p);
	/* from now on the process is this row (pt_proc_birth()) */
	p->key_birth = pi->birth;
	p->stored = 1;
	pi->birth_serial = p->forked ? p->birth_serial : 0;
	pi->last = p->last_t;
	pi->exe = p->exe;
	pi->comm = p->comm;
	pi->title = p->title ? p->title : p->argv;
	pi->role = p->role ? p->role
			   : p->rolled ? p->rolled
			   : pt_role_of(t, p, 0, 0);
	pi->records = p->records;
	pi->exited = p->exited;
	pi->uid = p->uid;
	return 1;
}

/* Is an early fold due: has the tree grown by @growth processes since the
 * last (or by a quarter of what that one kept, when more)? */
int
proctree_fold_due(const struct proctree *t, size_t growth)
{
	size_t g = t->nall_folded / 4 > growth ? t->nall_folded / 4 : growth;

	return !t->finished && t->nall >= t->nall_folded + g;
}

/*
 * An import keeps every process until its end, where proctree_finish()
 * gives each its role and its one commit writes their rows: a long log's
 * processes were all in memory at once (29,045 in the synthesized 1M log
 * bench.sh used before it recorded one; docs/internals.md, part 3).
 * The early fold writes, during the import and in its transaction, the
 * row of each process that nothing later can change, folds its counts as
 * proctree_finish() would, and forgets it:
 *   - it exited after its fork record: no record, exec or child comes to
 *     it any more (a later record of its pid is a new process), nor a
 *     late title (t->exit_p);
 *   - it has no child in memory (its children's roles and rows read it
 *     through ->parent), and no argument values (args.c adds them to the
 *     role's table in the order of the folds, which would change);
 *   - its role is final (pt_final_role());
 *   - no older process of its node and pid is in memory: rows of one key
 *     replace each other (INSERT OR REPLACE), and the end wrote them in
 *     the order the processes were made.
 * What the end reads of a forgotten process is kept on its parent: that
 * it had children (pt_maybe_thread()) and postgres ones (has_pg_child).
 * A pid's lookups that no longer find it find what they would have found
 * in effect: it has exited (pt_current() makes a new process either way),
 * and title_parent_ok() wants a postmaster, which it is not
 * (pt_final_role() leaves postmasters to the end).  Its aggregate's
 * example is the one the end's fold gives (agg_add()'s ranks).
 */
static int
fold_early(const struct proctree *t, const struct proc *p)
{
	return p->exited && p->forked && p->nkids == 0 && p->args.n == 0 &&
	       p->pid_prev == NULL && !p->in_fifo && p->npend == 0 &&
	       !p->provisional && p != t->exit_p;
}

int
proctree_fold_exited(struct proctree *t,
		     int (*cb)(void *arg, const struct proc_info *p),
		     void *arg, uint64_t *rows)
{
	size_t k = 0;
	int rc = 0;

	for (size_t i = 0; i < t->nall; i++) {
		struct proc *p = t->all[i];
		struct proc_info pi;
		const char *r;

		if (rc != 0 || !fold_early(t, p) ||
		    (r = pt_final_role(t, p, 0)) == NULL) {
			t->all[k++] = p;
			continue;
		}
		/* what proctree_finish() gives it */
		if (p->pg_kids_out > 0 && pt_is_pg(p))
			p->has_pg_child = 1;
		if (p->nsys > 0 || p->rolled == NULL)
			pt_fold_ranked(t, p, r, FOLD_RANK_END | p->seq);
		p->role = p->rolled;
		if (proc_row(t, p, &pi)) {
			rc = cb(arg, &pi);
			if (rc != 0) {
				/* the import fails: freed with the tree */
				t->all[k++] = p;
				continue;
			}
			(*rows)++;
		}
		p->parent->kids_out++;
		if (pt_is_pg(p))
			p->parent->pg_kids_out++;
		pt_forget(t, p);
	}
	t->nall = k;
	t->nall_folded = k;
	return t->oom && rc == 0 ? -ENOMEM : rc;
}

int
proctree_finish(struct proctree *t)
{
	if (t->finished)
		return t->oom ? -ENOMEM : 0;
	proctree_event_end(t);
	for (size_t i = 0; i < t->nall; i++)
		if (t->all[i]->provisional)
			pt_settle(t, t->all[i]);
	for (size_t i = 0; i < t->nall; i++) {
		struct proc *p = t->all[i];

		if (p->parent != NULL && pt_is_pg(p) && pt_is_pg(p->parent))
			p->parent->has_pg_child = 1;
		/* and the children an early fold wrote */
		if (p->pg_kids_out > 0 && pt_is_pg(p))
			p->has_pg_child = 1;
	}
	for (size_t i = 0; i < t->nall; i++) {
		struct proc *p = t->all[i];
		const char *r = pt_role_of(t, p, 1, 0);

		if (p->nsys > 0 || p->args.n > 0 || p->rolled == NULL)
			pt_fold_ranked(t, p, r, FOLD_RANK_END | p->seq);
		p->role = p->rolled;
	}
	t->finished = 1;
	return t->oom ? -ENOMEM : 0;
}

/* @c for the rows of process @p: its key, not pending, no role yet. */
static void
count_begin(struct proc_count *c, const struct proc *p)
{
	memset(c, 0, sizeof(*c));
	c->pid = p->pid;
	c->node = p->node;
	c->birth = pt_proc_birth(p);
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

	count_begin(&c, p);
	c.role = pt_intern(t, pt_role_of(t, p, 0, 0));
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

/* A signature of what all of @p's open count rows share, and of its kept
 * records: @role, @birth, the records, and the role its counts were
 * folded under (a fold empties ->sys: the rows of before must go).  Equal
 * when a commit needs to write only the rows of syscalls whose figures
 * changed (sysent.stored). */
static uint64_t
open_sig(const struct proc *p, const char *role, double birth)
{
	uintptr_t k[3] = { (uintptr_t)role, (uintptr_t)p->npend,
			   (uintptr_t)p->rolled };
	uint64_t h = util_hash(k, sizeof(k), 0);

	h = util_hash(&birth, sizeof(birth), h);
	if (p->npend > 0)
		h = util_hash(p->pend, p->npend * sizeof(*p->pend), h);
	return h != 0 ? h : 1;
}

/* The rows of @p's syscalls that changed since the last commit, the
 * others being as stored: a busy backend has a hundred syscalls and a
 * few new records of two or three of them between commits. */
static int
open_changed_rows(struct proctree *t, struct proc *p,
		  int (*put)(void *arg, const struct proc_count *c),
		  void *arg)
{
	struct proc_count c;
	int rc = 0;

	count_begin(&c, p);
	for (size_t k = 0; rc == 0 && k < p->nsys; k++) {
		struct sysent *e = &p->sys[k];

		if (e->count == e->stored)
			continue;
		if (c.role == NULL)
			c.role = pt_intern(t, pt_role_of(t, p, 0, 0));
		c.arch = e->arch;
		c.nr = e->nr;
		c.count = e->count;
		c.first = e->first;
		c.last = e->last;
		c.replace = e->stored != 0;
		rc = put(arg, &c);
		if (rc == 0)
			e->stored = e->count;
	}
	return rc;
}

/*
 * The open counts that differ from what the last commit stored: @del for
 * each process whose stored rows go (forgotten since, folded, or about to
 * be written anew: its role, birth or kept records changed), then @put
 * for each row of such a process, and for each syscall of the others
 * whose figures changed.  With @all, @put gets every open count (the
 * store holds none: a commit that cleared them).  After a commit that was
 * rolled back, proctree_rows_unwritten() and a commit with @all: the
 * sysent.stored figures this set are then no longer true.
 */
int
proctree_each_changed_open(struct proctree *t, int all,
			   int (*del)(void *arg, const char *node, int64_t pid,
				      double birth),
			   int (*put)(void *arg, const struct proc_count *c),
			   void *arg)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && !all && i < t->ngone; i++)
		rc = del(arg, t->gone[i].node, t->gone[i].pid, t->gone[i].birth);
	for (size_t i = 0; rc == 0 && i < t->nall; i++) {
		struct proc *p = t->all[i];
		uint64_t sig = 0;
		double birth = pt_proc_birth(p);

		if (p->nsys > 0 || p->npend > 0) {
			sig = open_sig(p, pt_role_of(t, p, 0, 0), birth);
			if (!all && sig == p->open_sig) {
				rc = open_changed_rows(t, p, put, arg);
				continue;
			}
		} else if (p->open_sig == 0) {
			continue;
		}
		if (!all && p->open_sig != 0)
			rc = del(arg, p->node, p->pid, p->open_birth);
		if (rc == 0 && sig != 0)
			rc = open_counts(t, p, put, arg);
		if (rc != 0)
			break;
		for (size_t k = 0; k < p->nsys; k++)
			p->sys[k].stored = p->sys[k].count;
		p->open_sig = sig;
		p->open_birth = birth;
	}
	return rc;
}

/* The commit that proctree_each_changed_open() fed is in the store. */
void
proctree_open_committed(struct proctree *t)
{
	t->ngone = 0;
	t->gone_lost = 0;
}

/* Must the next commit write every open count afresh? */
int
proctree_open_lost(const struct proctree *t)
{
	return t->gone_lost;
}

const struct args_tab *
proctree_args(const struct proctree *t)
{
	return &t->args;
}

/*
 * The argument values of the folded processes, plus those of the
 * processes still open under the role they would have now, into @out
 * (empty; the caller frees it with args_tab_free()).  A live round's last
 * commit needs it: its processes are never folded (the snapshot stands
 * for them), and their values would otherwise never reach the store.
 * Returns 0 or -ENOMEM.
 */
int
proctree_args_snapshot(struct proctree *t, struct args_tab *out)
{
	for (size_t i = 0; i < t->args.n; i++)
		if (args_tab_add(out, &t->args.e[i]) < 0)
			return -ENOMEM;
	for (size_t i = 0; i < t->nall; i++) {
		struct proc *p = t->all[i];
		const char *role;

		if (p->args.n == 0)
			continue;
		role = pt_intern(t, pt_role_of(t, p, 0, 0));
		if (role == NULL)
			return -ENOMEM;
		for (size_t j = 0; j < p->args.n; j++) {
			struct args_obs o = p->args.e[j];

			o.role = role;
			if (args_tab_add(out, &o) < 0)
				return -ENOMEM;
		}
	}
	return 0;
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

		if (!proc_row(t, p, &pi))
			continue;
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
		t->all[i]->row_sig = t->all[i]->open_sig = 0;
}
