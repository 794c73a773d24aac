/* SPDX-License-Identifier: PostgreSQL */
/* proctree.h - processes, ancestry and roles (proctree*.c; proctree-int.h
 * inside). */
#ifndef PGSC_PROCTREE_H
#define PGSC_PROCTREE_H

#include "pgsc-int.h"
#include "pglog.h"

/* proctree*.c - processes, ancestry and roles (proctree-int.h inside). */
struct proctree;
struct proctree_hints {
	const int64_t *postmaster_pids;
	size_t n_postmaster_pids;
	struct pglog *pglog;
	/* a postgres binary run by another uid is not a server's (a
	 * process whose uid no record gave is taken as the server's) */
	int has_server_uid;
	uint32_t server_uid;
};
struct role_agg {
	const char *role;
	uint32_t arch;
	int32_t nr;
	uint64_t count;
	double first, last;
	int64_t example_pid;
	const char *example_exe;
	const char *node;          /* as proc_info.node (schema 6) */
	uint64_t example_rank;     /* the fold that gave the example: the
				    * lowest rank's (proctree_index.c) */
};
struct proc_info {
	int64_t pid, ppid;         /* ppid -1 when unknown */
	int parent_known;          /* ppid comes from a fork record */
	double birth;              /* time of the fork record or first record */
	uint64_t birth_serial;     /* serial of the fork record, 0 if unknown */
	double last;
	const char *exe, *comm, *title, *role;
	uint64_t records;
	int exited;                /* its exit (or the reuse of its pid) was seen */
	int64_t uid;               /* last uid= of its records, -1 when none */
	const char *node;          /* node= of its records, NULL: local host */
};
int proctree_new(const struct proctree_hints *hints, struct proctree **out);
void proctree_free(struct proctree *t);
void proctree_record(struct proctree *t, const struct pgsc_record *rec);
void proctree_event_end(struct proctree *t);
/* Carry a process over from an earlier round (an import that continues a
 * growing log): its parent by pid among the seeded, its role kept. */
int proctree_seed(struct proctree *t, const struct proc_info *p);
/* Settle every process and assign roles; afterwards only the iterators
 * below may be called. */
int proctree_finish(struct proctree *t);
int proctree_each_agg(struct proctree *t,
		      int (*cb)(void *arg, const struct role_agg *a), void *arg);
/* The argument values folded by role so far (args.c, docs/args.md). */
const struct args_tab *proctree_args(const struct proctree *t);
int proctree_args_snapshot(struct proctree *t, struct args_tab *out);
/* Titles of running postgres processes from /proc (live collection). */
void proctree_proc_titles(struct proctree *t);
/* The counts so far, for a periodic commit; settles nothing. */
int proctree_snapshot(struct proctree *t,
		      int (*cb)(void *arg, const struct role_agg *a), void *arg);
int proctree_each_proc(struct proctree *t,
		       int (*cb)(void *arg, const struct proc_info *p),
		       void *arg);
/* The same, but only the rows that differ from what the last call wrote
 * (a live commit: most processes in memory have not changed since the
 * last one, and their rows are in the store); after a commit that was
 * rolled back, proctree_rows_unwritten() makes the next call write all. */
int proctree_each_changed_proc(struct proctree *t,
			       int (*cb)(void *arg, const struct proc_info *p),
			       void *arg);
void proctree_rows_unwritten(struct proctree *t);
/* Forget processes that exited more than @keep s (stream time) ago, their
 * counts folded into the aggregates; a live collector calls it after each
 * commit.  Returns how many went. */
size_t proctree_prune(struct proctree *t, double keep);
/* Has the tree grown enough since the last prune that a commit (and its
 * prune) should come now rather than at the commit interval? */
int proctree_prune_due(const struct proctree *t);
size_t proctree_nprocs(const struct proctree *t);
/* An import's early fold: has the tree grown by @growth processes (and a
 * quarter) since the last one?  proctree_fold_exited() writes the row of
 * each process whose row and role nothing later can change (@cb, as
 * proctree_each_proc()), folds its counts as proctree_finish() would, and
 * forgets it; *@rows gets the rows written. */
int proctree_fold_due(const struct proctree *t, size_t growth);
int proctree_fold_exited(struct proctree *t,
			 int (*cb)(void *arg, const struct proc_info *p),
			 void *arg, uint64_t *rows);
/* The counts of a process not folded yet, as a live commit stores them
 * (open_counts) so that a restarted collector can give them back. */
struct proc_count {
	int64_t pid;
	const char *node;          /* as proc_info.node */
	double birth;              /* as proc_info.birth */
	const char *role;          /* the role they were committed under */
	uint32_t arch;
	int32_t nr;
	int pending;               /* records kept one by one (at @first) */
	uint64_t count;
	double first, last;
	int replace;               /* proctree_each_changed_open(): the row of
				    * this syscall is stored; these figures
				    * replace its own */
};
int proctree_each_open(struct proctree *t,
		       int (*cb)(void *arg, const struct proc_count *c),
		       void *arg);
/* The same, only what changed since the last commit (@all: everything,
 * to a store that holds none): @del for the stored rows of a process that
 * go, @put for the rows written anew, and for a syscall whose row is
 * stored and whose figures changed (proc_count.replace).
 * proctree_open_committed() once the
 * commit is in the store; proctree_open_lost(): the next commit must
 * write all (memory ran out for the list of what to delete). */
int proctree_each_changed_open(struct proctree *t, int all,
			       int (*del)(void *arg, const char *node,
					  int64_t pid, double birth),
			       int (*put)(void *arg, const struct proc_count *c),
			       void *arg);
void proctree_open_committed(struct proctree *t);
int proctree_open_lost(const struct proctree *t);
/* Continue a crashed live round: seed a process (oldest first) with its
 * provisional role left open, then give it back its open counts; returns
 * 1 when @c was taken, 0 when it belongs to no seeded process. */
int proctree_seed_open(struct proctree *t, const struct proc_info *p);
int proctree_seed_count(struct proctree *t, const struct proc_count *c);

#endif
