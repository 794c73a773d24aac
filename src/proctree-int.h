/* SPDX-License-Identifier: PostgreSQL */
/* proctree-int.h - the process tree's own types, shared by proctree*.c. */
/*
 * proctree_index.c (the processes, their (node, pid) index and the
 * aggregates), proctree.c (roles, titles, seeding), proctree_event.c
 * (the audit events) and proctree_agg.c (pruning, the end, the
 * iterators) share struct proctree; no other file sees it (pgsc-int.h
 * has the API).
 */
#ifndef PGSC_PROCTREE_INT_H
#define PGSC_PROCTREE_INT_H

#define PEND_MAX 4096
#define SETTLE_SECS 10.0
/* proctree_prune(): a process outside the servers with no record for
 * this long (stream time) is taken as gone (docs/robustness.md) */
#define FORGET_SECS 3600.0
/* proctree_prune_due(): processes made since the last prune that call
 * for a commit (and its prune) before the commit interval is up */
#define PRUNE_GROWTH 8192
/* pt_fold_ranked(): the ranks of the folds at the end of an import (and of
 * the early folds that stand for them), above every rank of a fold made
 * while reading */
#define FOLD_RANK_END (UINT64_C(1) << 63)
#define CLONE_THREAD_FLAG 0x00010000ULL
#define MAX_DEPTH 256

struct sysent {
	uint32_t arch;
	int32_t nr;
	uint64_t count;
	double first, last;
	uint64_t stored;            /* count as the open_counts row the last
				     * live commit wrote has it; 0: no row
				     * (proctree_each_changed_open()) */
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
	uint32_t kids_out;          /* children an import's early fold wrote
				     * and forgot (proctree_fold_exited()) */
	uint32_t pg_kids_out;       /* of those, the ones running postgres */
	uint64_t seq;               /* its place in the order of creation */
	/* the processes of the same node and pid in memory made just
	 * before and after it (proctree_fold_exited() writes the oldest
	 * first: rows of one key are written in creation order) */
	struct proc *pid_prev, *pid_next;
	struct sysent *sys;
	size_t nsys, capsys;
	struct pend *pend;
	size_t npend, cappend;
	struct args_tab args;       /* argument values not folded yet (args.c) */
	uint64_t records;
	const char *role;           /* interned; set at finish or rollup */
	const char *fixed;          /* role carried over from an earlier round */
	unsigned seeded : 1;
	unsigned stored : 1;        /* written under key_birth (pt_proc_birth()) */
	unsigned fork_known : 1;    /* seeded from a row whose fork record was
				     * seen, whether its parent is in memory
				     * or not */
	const char *rolled;         /* syscalls already folded under this */
	uint64_t row_sig;           /* the row the last live commit wrote
				     * (proctree_each_changed_proc()); 0: none */
	uint64_t open_sig;          /* the role, birth and kept records its
				     * open counts had when the last live
				     * commit wrote them (under open_birth):
				     * proctree_each_changed_open(); 0: none */
	double open_birth;
};

/* The open counts a live commit wrote for a process forgotten since:
 * the next commit deletes them (proctree_each_changed_open()). */
struct open_gone {
	const char *node;
	int64_t pid;
	double birth;
};

struct event {
	int has_syscall;
	const char *node;
	uint32_t arch;
	int64_t syscall, pid, ppid, exit, uid;
	int success, has_exit;
	uint64_t a0, serial;
	uint64_t a[4];              /* a0..a3, for args.c */
	double t;
	char *exe, *comm, *title, *argv;
};

struct proctree {
	struct proctree_hints hints;

	struct proc **all;
	size_t nall, capall;

	/* (node, pid) -> current process, open addressing (linear
	 * probing); node is an interned pointer */
	struct pid_slot { int64_t pid; const char *node; struct proc *p; } *map;
	size_t mapcap, mapn;

	/* provisional processes in creation order, for settling */
	struct proc **fifo;
	size_t fifo_head, fifo_n, fifo_cap;

	double now;                 /* latest record time seen */

	struct event ev;

	struct strset roles;        /* interned role names */
	struct strset exes;         /* interned example_exe of aggregates */
	struct strhash nodes;       /* interned node= names (a fleet: 100,000 and more) */

	struct role_agg *aggs;          /* open addressing */
	size_t aggcap, aggn;
	struct args_tab args;           /* argument values by role (args.c) */

	size_t nall_pruned;         /* processes in memory after the last prune */
	size_t nall_folded;         /* ... after an import's last early fold */
	uint64_t nseq;              /* processes made so far (proc.seq) */
	uint64_t nfolds;            /* folds made while reading (their rank) */

	struct open_gone *gone;     /* open counts stored, process forgotten */
	size_t ngone, capgone;
	int gone_lost;              /* one could not be kept: the next commit
				     * must write every open count afresh */

	/* the last exit_group applied without a title (late_title()) */
	struct proc *exit_p;
	uint64_t exit_serial;
	const char *exit_node;
	/* seeded processes in memory: late_title()'s other candidates (none
	 * in a round that resumed nothing, which then scans nothing) */
	size_t nseeded;

	/* the uids postgres processes ran as (note_server_uid()): a
	 * process of another binary, another uid and no parent is foreign */
	int64_t pg_uids[8];
	size_t npg_uids;
	int pg_uids_full;           /* more than fit: no uid is foreign */

	int oom;
	int finished;
};

/*
 * The files call downwards only: proctree_index.c (the data) <-
 * proctree.c (roles) <- proctree_event.c (events) <- proctree_agg.c
 * (pruning, the end, the iterators).
 */

/* proctree_index.c */
const char *pt_intern(struct proctree *t, const char *s);
void pt_set_str(struct proctree *t, char **dst, const char *s);
struct proc *pt_map_get(struct proctree *t, const char *node, int64_t pid);
const char *pt_node_intern(struct proctree *t, const char *name);
struct proc *pt_proc_new(struct proctree *t, const char *node, int64_t pid,
		      double when);
void pt_fifo_push(struct proctree *t, struct proc *p);
void pt_sys_add(struct proctree *t, struct proc *p, uint32_t arch, int32_t nr,
	     uint64_t count, double first, double last);
void pt_settle(struct proctree *t, struct proc *p);
void pt_settle_old(struct proctree *t);
struct proc *pt_current(struct proctree *t, const char *node, int64_t pid,
		     double when);
int pt_is_pg(const struct proc *p);
void pt_note_uid(struct proctree *t, struct proc *p, int64_t uid);
int proctree_uid_is_server(const struct proctree *t, int64_t uid);
void pt_note_ppid(struct proc *p, int64_t ppid);
void pt_note_exe(struct proctree *t, struct proc *p, const char *exe,
	      const char *comm, double when);
void pt_fold(struct proctree *t, struct proc *p, const char *role);
void pt_fold_ranked(struct proctree *t, struct proc *p, const char *role,
		    uint64_t rank);
void pt_args_note(struct proctree *t, const struct event *e, int clone);
void pt_forget(struct proctree *t, struct proc *p);
void pt_ev_clear(struct event *e);
int pt_maybe_thread(const struct proc *p);

/* proctree.c */
const char *pt_role_of(struct proctree *t, struct proc *p, int memo, int depth);
void pt_try_rollup(struct proctree *t, struct proc *p);
void pt_title_set(struct proctree *t, struct proc *p, const char *title);
double pt_proc_birth(const struct proc *p);
const char *pt_final_role(struct proctree *t, struct proc *p, int depth);

#endif
