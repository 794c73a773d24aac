/* SPDX-License-Identifier: PostgreSQL */
/* store-int.h - what the store's files (store.c: open, migrate, check;
 * store_round.c: a round's writes; store_report.c: the reads) share
 * and nothing else includes: the handle, and the one mapping from
 * SQLite's errors to a negative errno and a cause (store.c sql_error()).
 * SQL, and every sqlite3_ call, stays in the store's files. */
#ifndef PGSC_STORE_INT_H
#define PGSC_STORE_INT_H

#include <sqlite3.h>

#include "pgsc-int.h"

struct pgsc_store {
	sqlite3 *db;
	int readonly;
	int version;
	char *path;
	int lockfd;                 /* the writer's flock(), or -1 */
	int snapshot;               /* read-only: one read transaction open */
	int image;                  /* read-only: a checked copy in memory */
};

/* SQLite's last error on @st as a negative errno, with a cause. */
int store_sql_error(pgsc_store *st, char **cause);
/* Step @s to its end and reset it: 0, or the error as above. */
int store_step_done(pgsc_store *st, sqlite3_stmt *s, char **cause);
/* Bind @v, or NULL. */
void store_bind_text(sqlite3_stmt *s, int i, const char *v);
/* Prepare @sql, or the error as above. */
int store_prep(pgsc_store *st, const char *sql, sqlite3_stmt **s,
	       char **cause);
/* Prepare @sql, whose ?1 is a round id, with @round bound. */
int store_prep_round(pgsc_store *st, const char *sql, int64_t round,
		     sqlite3_stmt **s, char **cause);
/* Run @sql, whose only parameter ?1 is a round id, once. */
int store_exec_round(pgsc_store *st, const char *sql, int64_t round,
		     char **cause);
/* End a loop of sqlite3_step() over rows that calls back: @rc is the last
 * step's result, or the callback's negative errno; finalizes @s. */
int store_rows_end(pgsc_store *st, sqlite3_stmt *s, int rc, char **cause);

#endif /* PGSC_STORE_INT_H */
