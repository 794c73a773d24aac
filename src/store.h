/* SPDX-License-Identifier: PostgreSQL */
/* store.h - the SQLite store (store*.c; store-int.h inside): rounds,
 * sources, batches, and the reads of the report, status and diff. */
#ifndef PGSC_STORE_H
#define PGSC_STORE_H

#include "pgsc-int.h"
#include "proctree.h"

/* store.c - the SQLite store. */
int store_begin(pgsc_store *st, char **cause);
int store_commit(pgsc_store *st, char **cause);
void store_rollback(pgsc_store *st);
int store_exec(pgsc_store *st, const char *sql, char **cause);

struct store_round {
	double finished;
	uint64_t records, attributed, unrelated, standalone, unattributed;
	uint64_t foreign;       /* of unattributed: no server's (not a column:
				 * the report sums the aggregates' role) */
	uint64_t rejected, lines;
	double first_event, last_event;
	/* live rounds */
	uint64_t serial_gaps, rotation_gaps, drain_timeouts;
	int has_lost, has_wait, has_exit_status;
	uint64_t kernel_lost_start, kernel_lost_end;
	uint64_t backlog_wait_start, backlog_wait_end;
	int exit_status;
};
int store_round_new(pgsc_store *st, const char *label, const char *mode,
		    double started, int64_t *id, char **cause);
int store_round_finish(pgsc_store *st, int64_t id, const struct store_round *r,
		       char **cause);

struct store_source {
	int64_t id;
	const char *path;
	uint64_t inode, offset, lines, last_serial;
	double last_event;
	char prefix_hash[24];
	uint64_t head_len;          /* 0: a row from before schema 8 */
	char head_hash[40];
	int64_t last_round;
	/* serials_save()'s state, written by store_source_put() (NULL:
	 * none); read by store_source_serials() */
	const uint8_t *serials;
	size_t serials_len;
};
/* Each source whose fingerprint is @fingerprint or @fingerprint/N (the
 * files that start with one line: schemas/008_source_head.sql), newest
 * first, to @cb with its fingerprint; a negative errno stops. */
int store_source_each(pgsc_store *st, const char *fingerprint,
		      int (*cb)(void *arg, const char *key,
				const struct store_source *src),
		      void *arg, char **cause);
int store_source_put(pgsc_store *st, const char *fingerprint,
		     const struct store_source *src, int64_t round,
		     char **cause);
/* The serial state stored with source @fingerprint, in a buffer the
 * caller frees: 1, 0 when there is none (*@buf NULL), or < 0. */
int store_source_serials(pgsc_store *st, const char *fingerprint,
			 uint8_t **buf, size_t *len, char **cause);

/* Prepared inserts for one round. */
struct store_batch;
int store_batch_new(pgsc_store *st, int64_t round, struct store_batch **out,
		    char **cause);
void store_batch_free(struct store_batch *b);
int store_batch_agg(struct store_batch *b, const struct role_agg *a,
		    char **cause);
int store_batch_proc(struct store_batch *b, const struct proc_info *p,
		     char **cause);
int store_batch_reject(struct store_batch *b, const char *reason,
		       uint64_t count, char **cause);
int store_live_round(pgsc_store *st, const char *mode, const char *source,
		     const char *label, const char *command, int64_t *round,
		     int *continued, char **cause);
int store_gap(pgsc_store *st, int64_t round, const char *kind, double at,
	      const char *detail, char **cause);
int store_round_get(pgsc_store *st, int64_t round, struct store_round *r,
		    char **cause);
int store_round_aggs(pgsc_store *st, int64_t round,
		     int (*cb)(void *arg, const struct role_agg *a), void *arg,
		     char **cause);
/* Drop a round's node loss figures, and with @all its aggregates and open
 * counts: a live commit writes them afresh (or, without @all, writes
 * what changed: store_batch_agg_set(), _agg_del(), _open_del()). */
int store_round_clear_snapshot(pgsc_store *st, int64_t round, int all,
			       char **cause);
int store_batch_agg_set(struct store_batch *b, const struct role_agg *a,
			int64_t *rowid, char **cause);
int store_batch_agg_del(struct store_batch *b, const struct role_agg *a,
			char **cause);
int store_batch_open_del(struct store_batch *b, const char *node,
			 int64_t pid, double birth, char **cause);
/* Each node's loss figures of a round (schemas/011_node_loss.sql). */
int store_node_loss_write(pgsc_store *st, int64_t round,
			  const struct serials *ser, int settled,
			  char **cause);
int store_node_loss_round(pgsc_store *st, int64_t round,
			  int (*cb)(void *arg, const char *node,
				    uint64_t gaps, uint64_t untracked),
			  void *arg, char **cause);
int store_round_live_update(pgsc_store *st, int64_t round,
			    const struct store_round *r, int finished,
			    char **cause);
/* The newest known position in the file last read at @path. */
int store_source_by_path(pgsc_store *st, const char *path,
			 char fingerprint[24], struct store_source *src,
			 char **cause);
/* Processes of @round not known to have exited, oldest first. */
int store_live_procs(pgsc_store *st, int64_t round,
		     int (*cb)(void *arg, const struct proc_info *p),
		     void *arg, char **cause);
int store_batch_open(struct store_batch *b, const struct proc_count *c,
		     char **cause);
/* What a continued round gives back to its processes: its open counts
 * (by pid, birth and node) to @count, then to @proc the processes not
 * seen to exit and those with open counts, oldest first. */
int store_open_state(pgsc_store *st, int64_t round,
		     int (*count)(void *arg, const struct proc_count *c),
		     int (*proc)(void *arg, const struct proc_info *p),
		     void *arg, char **cause);
int store_batch_sample(struct store_batch *b, const char *reason,
		       const char *source, uint64_t line, uint64_t serial,
		       const char *excerpt, char **cause);

/* store_report.c - the store's reads for the report, status and diff. */
struct store_totals {
	/* unattributed: foreign not included (report_load() takes them
	 * out); foreign: records no server's (docs/roles.md) */
	uint64_t records, attributed, unrelated, standalone, unattributed;
	uint64_t foreign;
	uint64_t rejected;
	uint64_t lost, serial_gaps, rotation_gaps, drain_timeouts;
	uint64_t untracked;     /* records of nodes past the bound of serial
				 * sequences (node_loss) */
	int kernel_unread;      /* --node of another host: its kernel's
				 * figures are not read (lost is 0) */
	int64_t unfinished;
};
int store_totals(pgsc_store *st, int64_t from, int64_t to,
		 struct store_totals *t, char **cause);
/* One role's count of one syscall over a range of rounds. */
struct store_role_row {
	const char *role;
	uint32_t arch;
	int32_t nr;
	uint64_t count;
	int64_t first_round, example_pid;
	const char *example_exe;
	const char *node;       /* store_role_aggs(): @node as given */
};
/* One aggregate row with its round's label and its example process's
 * comm and title (pgsc-report --explain); every text is untrusted. */
struct store_explain_row {
	const char *role;
	uint32_t arch;
	int32_t nr;
	int64_t round, example_pid;
	const char *label, *example_exe, *comm, *title;
};
/* The rows of @from-@to (@node as store_role_aggs()), by arch, number,
 * then round: a syscall's first round comes first. */
int store_explain_rows(pgsc_store *st, int64_t from, int64_t to,
		       const char *node,
		       int (*cb)(void *arg, const struct store_explain_row *row),
		       void *arg, char **cause);
/* What store_sums() counts over rounds @from-@to, by name. */
enum store_sum {
	STORE_SUM_NODES,        /* the nodes ("" the local host), records */
	STORE_SUM_REJECTS,      /* the reject reasons, rejected lines */
};
int store_sums(pgsc_store *st, enum store_sum what, int64_t from, int64_t to,
	       int (*cb)(void *arg, const char *name, uint64_t sum),
	       void *arg, char **cause);
/* Each node with loss figures over rounds @from-@to, by name. */
int store_node_loss(pgsc_store *st, int64_t from, int64_t to,
		    int (*cb)(void *arg, const char *node, uint64_t gaps,
			      uint64_t untracked),
		    void *arg, char **cause);
/* 1 when some round holds @role or its descendants, 0 when none does. */
int store_role_seen(pgsc_store *st, const char *role, char **cause);
/* 1 and the first and last finished round, 0 when none is finished. */
int store_finished_range(pgsc_store *st, int64_t *lo, int64_t *hi,
			 char **cause);
struct store_status_row {
	int64_t id, records, loss, nnew, nnew_sess;
	double started, first, last, finished_at, last_commit;
	int finished;
	const char *label, *mode;
};
int store_status_rows(pgsc_store *st,
		      int (*in_session)(void *arg, const char *role),
		      void *sarg,
		      int (*cb)(void *arg, const struct store_status_row *row),
		      void *arg, char **cause);

/* store_aggs.c - the aggregates of a range of rounds summed in memory in
 * one pass (a fleet's reports: linear in the store at any node count). */
/* @node: one node's rows ("" the local host), NULL every node's; by arch,
 * number, role. */
int store_role_aggs(pgsc_store *st, int64_t from, int64_t to,
		    const char *node,
		    int (*cb)(void *arg, const struct store_role_row *row),
		    void *arg, char **cause);
/* Each node's rows, node by node ("" the local host; row->node names it). */
int store_role_aggs_nodes(pgsc_store *st, int64_t from, int64_t to,
			  int (*cb)(void *arg,
				    const struct store_role_row *row),
			  void *arg, char **cause);
/* Each node ("" the local host) and its records, by name. */
int store_node_sums(pgsc_store *st, int64_t from, int64_t to,
		    int (*cb)(void *arg, const char *name, uint64_t sum),
		    void *arg, char **cause);
/* Each syscall's first round among the server roles' rows (@v[0]) and the
 * session roles' (@v[1]), ascending; the caller frees both. */
int store_first_rounds(pgsc_store *st,
		       int (*in_session)(void *arg, const char *role),
		       void *sarg, int64_t *v[2], size_t nv[2], char **cause);

/* store_args.c - the argument values (schemas/010_arg_values.sql) */
int store_args_write(pgsc_store *st, int64_t round, const struct args_tab *tab,
		     char **cause);
int store_args_each(pgsc_store *st, int64_t from, int64_t to,
		    int (*cb)(void *arg, const char *role, uint32_t arch,
			      int32_t nr, const char *key, const char *vals,
			      uint64_t count),
		    void *arg, char **cause);

#endif
