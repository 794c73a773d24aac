/* SPDX-License-Identifier: PostgreSQL */
/* store-int.h - what the store's files (store.c: open, migrate, check;
 * store_round.c: a round's writes; store_report.c: the reads) share
 * and nothing else includes: the handle, and the one mapping from
 * SQLite's errors to a negative errno and a cause (store_sql.c).
 * SQL, and every sqlite3_ call, stays in the store's files. */
#ifndef PGSC_STORE_INT_H
#define PGSC_STORE_INT_H

#include <sqlite3.h>
#include <time.h>

#include "pgsc-int.h"
#include "proctree.h"
#include "store.h"

struct pgsc_store {
	sqlite3 *db;
	int readonly;
	int version;
	char *path;
	int lockfd;                 /* the writer's flock(), or -1 */
	int snapshot;               /* read-only: one read transaction open */
	int image;                  /* read-only: a checked copy in memory */
	struct timespec deadline;   /* PGSC_STORE_UNTRUSTED: statements stop */
};

/* store_check.c: the objects of a store against its schema version,
 * defensive connections, a time limit for untrusted operands. */
void store_check_harden(sqlite3 *db);
int store_check_schema(pgsc_store *st, char **cause);
void store_check_limit(pgsc_store *st, struct timespec *deadline,
		       int seconds);

/* SQLite's last error on @st as a negative errno, with a cause. */
int store_sql_error(pgsc_store *st, char **cause);
/* Step @s to its end and reset it: 0, or the error as above. */
int store_step_done(pgsc_store *st, sqlite3_stmt *s, char **cause);
/* The same, then finalize @s. */
int store_step_final(pgsc_store *st, sqlite3_stmt *s, char **cause);
/* Bind @v (a copy), or NULL; _as: with @how, SQLITE_STATIC when @v stays
 * as it is until @s is stepped. */
void store_bind_text(sqlite3_stmt *s, int i, const char *v);
void store_bind_text_as(sqlite3_stmt *s, int i, const char *v,
			sqlite3_destructor_type how);
/* Prepare @sql, or the error as above. */
int store_prep(pgsc_store *st, const char *sql, sqlite3_stmt **s,
	       char **cause);
/* Prepare @sql, whose ?1 is a round id, with @round bound. */
int store_prep_round(pgsc_store *st, const char *sql, int64_t round,
		     sqlite3_stmt **s, char **cause);
/* Run @sql once with ?1, ?2, ... bound as @types says: 'i' int64_t,
 * 'd' double, 't' text (NULL as NULL). */
int store_run(pgsc_store *st, char **cause, const char *sql,
	      const char *types, ...);
/* Run @sql, whose only parameter ?1 is a round id, once. */
int store_exec_round(pgsc_store *st, const char *sql, int64_t round,
		     char **cause);
/* End a loop of sqlite3_step() over rows that calls back: @rc is the last
 * step's result, or the callback's negative errno; finalizes @s. */
int store_rows_end(pgsc_store *st, sqlite3_stmt *s, int rc, char **cause);

/* The store's rows, each described once (store_row.c): a statement that
 * binds or selects one lists its columns in the order of store_row.c's
 * table.  @size is the struct's size, checked against the kind. */
enum store_row {
	STORE_ROW_AGG,		/* struct role_agg: aggregates */
	STORE_ROW_PROC,		/* struct proc_info: processes */
	STORE_ROW_COUNT,	/* struct proc_count: open_counts */
	STORE_ROW_ROLE,		/* struct store_role_row: a role's sums */
	STORE_ROW_EXPLAIN,	/* struct store_explain_row: --explain */
	STORE_ROW_SOURCE,	/* struct store_source: sources */
	STORE_ROW_ROUND,	/* struct store_round: counters, tallies */
	STORE_ROW_ROUND_GAPS,	/* struct store_round: a live round's gaps */
};
void store_bind_row(sqlite3_stmt *s, int first, enum store_row kind,
		    const void *row, size_t size);
void store_read_row(sqlite3_stmt *s, int first, enum store_row kind,
		    void *row, size_t size);
/* The callback for the rows of a kind, as the store's API takes it. */
union store_row_cb {
	int (*agg)(void *arg, const struct role_agg *a);
	int (*proc)(void *arg, const struct proc_info *p);
	int (*count)(void *arg, const struct proc_count *c);
	int (*role)(void *arg, const struct store_role_row *w);
	int (*explain)(void *arg, const struct store_explain_row *x);
};
int store_rows_each(pgsc_store *st, sqlite3_stmt *s, enum store_row kind,
		    union store_row_cb cb, void *arg, char **cause);
/* The same over @sql, whose ?1 is a round id, with @round bound. */
int store_round_rows(pgsc_store *st, const char *sql, int64_t round,
		     enum store_row kind, union store_row_cb cb, void *arg,
		     char **cause);

#endif /* PGSC_STORE_INT_H */
