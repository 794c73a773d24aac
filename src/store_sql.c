/* SPDX-License-Identifier: PostgreSQL */
/* store_sql.c - the store's statement helpers: transactions, prepare,
 * bind, step and run, and the one mapping from SQLite's errors to a
 * negative errno and a cause, which every file of the store shares
 * (store-int.h). */
#include <errno.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "store.h"
#include "store-int.h"

/*
 * Turn SQLite's last error on @st into a negative errno and a cause.
 * A full disk is SQLITE_FULL when the database or its WAL cannot grow,
 * and SQLITE_IOERR (with ENOSPC underneath) when the -shm cannot: both are
 * -ENOSPC, which the live collector answers by keeping its aggregates and
 * retrying (docs/robustness.md).
 */
static int
sql_error(pgsc_store *st, int rc, const char *msg, char **cause)
{
	int sys = sqlite3_system_errno(st->db);

	if (msg == NULL)
		msg = sqlite3_errmsg(st->db);
	if ((rc & 0xff) == SQLITE_FULL) {
		util_cause(cause, "%s: disk full (SQLITE_FULL: %s)", st->path,
			   msg);
		return -ENOSPC;
	}
	if ((rc & 0xff) == SQLITE_IOERR && (sys == ENOSPC || sys == EDQUOT)) {
		util_cause(cause, "%s: disk full (%s: %s)", st->path,
			   strerror(sys), msg);
		return -ENOSPC;
	}
	util_cause(cause, "%s: %s", st->path, msg);
	if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
		return -EBUSY;
	if ((rc & 0xff) == SQLITE_READONLY)
		return -EROFS;
	return -EIO;
}

int
store_exec(pgsc_store *st, const char *sql, char **cause)
{
	char *err = NULL;
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, &err);

	if (rc != SQLITE_OK) {
		rc = sql_error(st, sqlite3_extended_errcode(st->db),
			       err ? err : NULL, cause);
		sqlite3_free(err);
		return rc;
	}
	return 0;
}

int
store_begin(pgsc_store *st, char **cause)
{
	return store_exec(st, "BEGIN IMMEDIATE", cause);
}

int
store_commit(pgsc_store *st, char **cause)
{
	return store_exec(st, "COMMIT", cause);
}

void
store_rollback(pgsc_store *st)
{
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

int
store_step_done(pgsc_store *st, sqlite3_stmt *s, char **cause)
{
	int rc = sqlite3_step(s);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		rc = store_sql_error(st, cause);
	} else {
		rc = 0;
	}
	sqlite3_reset(s);
	return rc;
}

int
store_prep(pgsc_store *st, const char *sql, sqlite3_stmt **s, char **cause)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, s, NULL) != SQLITE_OK)
		return sql_error(st, sqlite3_extended_errcode(st->db), NULL,
				 cause);
	return 0;
}

void
store_bind_text_as(sqlite3_stmt *s, int i, const char *v,
		   sqlite3_destructor_type how)
{
	if (v == NULL)
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_text(s, i, v, -1, how);
}

void
store_bind_text(sqlite3_stmt *s, int i, const char *v)
{
	store_bind_text_as(s, i, v, SQLITE_TRANSIENT);
}

/* Prepare @sql, whose ?1 is a round id, and bind @round to it. */
int
store_prep_round(pgsc_store *st, const char *sql, int64_t round,
		 sqlite3_stmt **s, char **cause)
{
	int rc = store_prep(st, sql, s, cause);

	if (rc == 0)
		sqlite3_bind_int64(*s, 1, round);
	return rc;
}

/**
 * Run @sql once, its parameters ?1, ?2, ... bound from the arguments as
 * @types says, a letter each: 'i' an int64_t, 'd' a double, 't' a text
 * (const char *, NULL as NULL).  For a statement that returns no rows.
 */
int
store_run(pgsc_store *st, char **cause, const char *sql, const char *types,
	  ...)
{
	sqlite3_stmt *s;
	va_list ap;
	int rc = store_prep(st, sql, &s, cause);

	if (rc < 0)
		return rc;
	va_start(ap, types);
	for (int i = 1; types[i - 1] != '\0'; i++) {
		switch (types[i - 1]) {
		case 'i':
			sqlite3_bind_int64(s, i, va_arg(ap, int64_t));
			break;
		case 'd':
			sqlite3_bind_double(s, i, va_arg(ap, double));
			break;
		case 't':
			store_bind_text(s, i, va_arg(ap, const char *));
			break;
		default:
			abort();	/* a caller's typo, not data */
		}
	}
	va_end(ap);
	return store_step_final(st, s, cause);
}

/* Step @s to its end and finalize it: 0, or the error as above. */
int
store_step_final(pgsc_store *st, sqlite3_stmt *s, char **cause)
{
	int rc = store_step_done(st, s, cause);

	sqlite3_finalize(s);
	return rc;
}

/* Run @sql, whose only parameter ?1 is a round id, once. */
int
store_exec_round(pgsc_store *st, const char *sql, int64_t round,
		 char **cause)
{
	return store_run(st, cause, sql, "i", round);
}

/* End a loop of sqlite3_step() over rows that calls back: @rc is the last
 * step's result, or the callback's negative errno. */
int
store_rows_end(pgsc_store *st, sqlite3_stmt *s, int rc, char **cause)
{
	if (rc != SQLITE_DONE && rc >= 0)
		rc = store_sql_error(st, cause);
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE)
		return 0;
	return rc;
}

/* ---------------------------------------------------------------- */
/* For the store's other files (store-int.h): one error mapping.      */

int
store_sql_error(pgsc_store *st, char **cause)
{
	return sql_error(st, sqlite3_extended_errcode(st->db), NULL, cause);
}
