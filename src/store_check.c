/* SPDX-License-Identifier: PostgreSQL */
/* store_check.c - a store's objects against its schema version, before it is trusted. */
/*
 * A store is a file, and whoever can write it can plant SQL in it: a view
 * in place of a table runs whatever query it holds for every reader (a
 * recursive one hangs pgsc-report and pgsc-diff for ever), a trigger
 * runs inside every later pgsc-collect, often root, and adds to every
 * round.  integrity_check passes such a store: it is
 * well formed.  So every object in sqlite_master must be one that the
 * schema files up to the store's version make, of the same type, on the
 * same table, with the same SQL text, and nothing may be missing; the
 * objects expected are made by applying those files to a database in
 * memory, with the SQLite that reads the store.  Every connection also
 * runs with SQLITE_DBCONFIG_DEFENSIVE and trusted_schema off
 * (store_check_harden()), so that what the schema names cannot reach
 * functions with side effects, and a reader of an operand it does not
 * trust stops a statement after a time limit (store_check_limit()).
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "pgsc-int.h"
#include "store-int.h"

struct pgsc_schema {
	int version;
	const char *sql;
};
extern const struct pgsc_schema pgsc_schemas[];
extern const size_t pgsc_n_schemas;

#define OBJECTS_SQL "SELECT type, name, tbl_name, coalesce(sql, '') FROM " \
	"sqlite_master ORDER BY type, name"

/* Defensive mode and an untrusted schema, on every connection. */
void
store_check_harden(sqlite3 *db)
{
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
}

/* A database in memory holding what schemas 1..@version make. */
static int
expected_db(int version, sqlite3 **out, char **cause)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return -ENOMEM;
	}
	for (size_t i = 0; i < pgsc_n_schemas; i++) {
		if (pgsc_schemas[i].version > version)
			break;
		if (sqlite3_exec(db, pgsc_schemas[i].sql, NULL, NULL, NULL) !=
		    SQLITE_OK) {
			util_cause(cause, "schema %d does not apply in memory: "
				   "%s", pgsc_schemas[i].version,
				   sqlite3_errmsg(db));
			sqlite3_close(db);
			return -EIO;
		}
	}
	*out = db;
	return 0;
}

/* Column @i of @s as text, never NULL. */
static const char *
col(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t ? (const char *)t : "";
}

/* Do the current rows of @a and @b name the same object, the same way? */
static int
same_object(sqlite3_stmt *a, sqlite3_stmt *b)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(col(a, i), col(b, i)) != 0)
			return 0;
	return 1;
}

/* -1, 0 or 1 as (type, name) of @a sorts before, with or after @b's. */
static int
object_cmp(sqlite3_stmt *a, sqlite3_stmt *b)
{
	int c = strcmp(col(a, 0), col(b, 0));

	return c != 0 ? c : strcmp(col(a, 1), col(b, 1));
}

/*
 * Walk the store's objects (@s) and the expected ones (@e), both sorted:
 * 0 when they are the same, else -EUCLEAN with a cause naming the first
 * object that differs.
 */
static int
compare(pgsc_store *st, sqlite3_stmt *s, sqlite3_stmt *e, char **cause)
{
	int rs = sqlite3_step(s), re = sqlite3_step(e);

	while (rs == SQLITE_ROW && re == SQLITE_ROW) {
		int c = object_cmp(s, e);

		if (c == 0 && same_object(s, e)) {
			rs = sqlite3_step(s);
			re = sqlite3_step(e);
			continue;
		}
		if (c <= 0)
			goto unexpected;
		goto missing;
	}
	if (rs == SQLITE_ROW)
		goto unexpected;
	if (re == SQLITE_ROW)
		goto missing;
	if (rs != SQLITE_DONE || re != SQLITE_DONE)
		return store_sql_error(st, cause);
	return 0;
unexpected:
	util_cause(cause, "%s: holds the %s \"%s\" (on \"%s\"), which pgsc's "
		   "schema %d does not make; refused: a store whose schema "
		   "was changed can run its SQL in every program that opens "
		   "it (docs/security.md, section 6)", st->path, col(s, 0), col(s, 1),
		   col(s, 2), st->version);
	return -EUCLEAN;
missing:
	util_cause(cause, "%s: the %s \"%s\" of pgsc's schema %d is missing "
		   "or different; refused (docs/security.md, section 6)", st->path,
		   col(e, 0), col(e, 1), st->version);
	return -EUCLEAN;
}

/* A view or a trigger, which no schema of pgsc makes: named first, as
 * they are what runs SQL (an index the rename of a table carried along
 * would be named otherwise).  0 when there is none. */
static int
planted(pgsc_store *st, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	rc = store_prep(st, "SELECT type, name, tbl_name FROM sqlite_master "
			"WHERE type IN ('view', 'trigger') ORDER BY type, name "
			"LIMIT 1", &s, cause);
	if (rc < 0)
		return rc;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		util_cause(cause, "%s: holds the %s \"%s\" (on \"%s\"), "
			   "which no schema of pgsc makes; refused: a store "
			   "whose schema was changed can run its SQL in every "
			   "program that opens it (docs/security.md, section "
			   "6)", st->path, col(s, 0), col(s, 1), col(s, 2));
		rc = -EUCLEAN;
	} else {
		rc = rc == SQLITE_DONE ? 0 : store_sql_error(st, cause);
	}
	sqlite3_finalize(s);
	return rc;
}

/**
 * Check every object of @st's schema against what its version makes.
 * Returns 0, -EUCLEAN with a cause naming the object, or another
 * negative errno.  A version newer than this pgsc's is left to migrate().
 */
int
store_check_schema(pgsc_store *st, char **cause)
{
	sqlite3 *mem = NULL;
	sqlite3_stmt *s = NULL, *e = NULL;
	int rc;

	if (st->version == 0 || pgsc_n_schemas == 0 ||
	    st->version > pgsc_schemas[pgsc_n_schemas - 1].version)
		return 0;
	rc = planted(st, cause);
	if (rc < 0)
		return rc;
	rc = expected_db(st->version, &mem, cause);
	if (rc < 0)
		return rc;
	rc = store_prep(st, OBJECTS_SQL, &s, cause);
	if (rc < 0)
		goto out;
	if (sqlite3_prepare_v2(mem, OBJECTS_SQL, -1, &e, NULL) != SQLITE_OK) {
		rc = -ENOMEM;
		goto out;
	}
	rc = compare(st, s, e, cause);
out:
	sqlite3_finalize(s);
	sqlite3_finalize(e);
	sqlite3_close(mem);
	return rc;
}

/* The progress handler of store_check_limit(): past the deadline, stop. */
static int
past_deadline(void *arg)
{
	const struct timespec *d = arg;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > d->tv_sec ||
	       (now.tv_sec == d->tv_sec && now.tv_nsec > d->tv_nsec);
}

/*
 * A reader of a store it does not trust (pgsc-diff's operands) stops any
 * statement running past @seconds from now: the schema check refuses the
 * SQL a store can plant, and this bounds what it cannot foresee.
 * @deadline must live as long as the connection.
 */
void
store_check_limit(pgsc_store *st, struct timespec *deadline, int seconds)
{
	clock_gettime(CLOCK_MONOTONIC, deadline);
	deadline->tv_sec += seconds;
	sqlite3_progress_handler(st->db, 10000, past_deadline, deadline);
}
