/* SPDX-License-Identifier: PostgreSQL */
/* store_report.c - the store's reads for the report, the status and the
 * diff: totals and loss of a range of rounds, the aggregates per role,
 * the rejects, the range of finished rounds, the rows of --status.  The
 * report only formats what these hand it; the SQL is here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"
#include "roles.h"
#include "store.h"

/* Prepare @sql, whose ?1 and ?2 are the first and last round of a range. */
static int
prep_range(pgsc_store *st, const char *sql, int64_t from, int64_t to,
	   sqlite3_stmt **s, char **cause)
{
	int rc = store_prep(st, sql, s, cause);

	if (rc == 0) {
		sqlite3_bind_int64(*s, 1, from);
		sqlite3_bind_int64(*s, 2, to);
	}
	return rc;
}

int
store_totals(pgsc_store *st, int64_t from, int64_t to,
	     struct store_totals *t, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	memset(t, 0, sizeof(*t));
	rc = prep_range(st, "SELECT coalesce(sum(records),0), "
			"coalesce(sum(attributed),0), "
			"coalesce(sum(unrelated),0), "
			"coalesce(sum(standalone),0), "
			"coalesce(sum(unattributed),0), "
			"coalesce(sum(rejected),0), "
			"coalesce(sum(max(coalesce(kernel_lost_end, 0) "
			"- coalesce(kernel_lost_start, 0), 0)), 0), "
			"coalesce(sum(serial_gaps), 0), "
			"coalesce(sum(rotation_gaps), 0), "
			"coalesce(sum(drain_timeouts), 0), "
			"coalesce(sum(finished IS NULL), 0), "
			"(SELECT coalesce(sum(untracked), 0) FROM node_loss "
			"WHERE round_id BETWEEN ?1 AND ?2) FROM rounds "
			"WHERE id BETWEEN ?1 AND ?2", from, to, &s, cause);
	if (rc < 0)
		return rc;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		t->records = (uint64_t)sqlite3_column_int64(s, 0);
		t->attributed = (uint64_t)sqlite3_column_int64(s, 1);
		t->unrelated = (uint64_t)sqlite3_column_int64(s, 2);
		t->standalone = (uint64_t)sqlite3_column_int64(s, 3);
		t->unattributed = (uint64_t)sqlite3_column_int64(s, 4);
		t->rejected = (uint64_t)sqlite3_column_int64(s, 5);
		t->lost = (uint64_t)sqlite3_column_int64(s, 6);
		t->serial_gaps = (uint64_t)sqlite3_column_int64(s, 7);
		t->rotation_gaps = (uint64_t)sqlite3_column_int64(s, 8);
		t->drain_timeouts = (uint64_t)sqlite3_column_int64(s, 9);
		t->unfinished = sqlite3_column_int64(s, 10);
		t->untracked = (uint64_t)sqlite3_column_int64(s, 11);
		rc = SQLITE_DONE;
	}
	return store_rows_end(st, s, rc, cause);
}

/* The example process is the processes row of the aggregate's round,
 * node and pid, the one of the aggregate's role first (a pid is reused
 * within a round), NULL when it was not kept. */
int
store_explain_rows(pgsc_store *st, int64_t from, int64_t to,
		   const char *node,
		   int (*cb)(void *arg, const struct store_explain_row *row),
		   void *arg, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	rc = prep_range(st, "SELECT a.role, a.arch, a.nr, a.round_id, "
			"r.label, a.example_pid, a.example_exe, p.comm, "
			"p.title FROM aggregates a "
			"JOIN rounds r ON r.id = a.round_id "
			"LEFT JOIN processes p ON p.rowid = coalesce("
			"(SELECT q.rowid FROM processes q "
			"WHERE q.round_id = a.round_id AND q.node = a.node "
			"AND q.pid = a.example_pid AND q.role = a.role "
			"ORDER BY q.birth LIMIT 1), "
			"(SELECT q.rowid FROM processes q "
			"WHERE q.round_id = a.round_id AND q.node = a.node "
			"AND q.pid = a.example_pid ORDER BY q.birth LIMIT 1)) "
			"WHERE a.round_id BETWEEN ?1 AND ?2 "
			"AND (?3 IS NULL OR a.node = ?3) "
			"ORDER BY a.arch, a.nr, a.round_id, a.role",
			from, to, &s, cause);
	if (rc < 0)
		return rc;
	store_bind_text(s, 3, node);
	return store_rows_each(st, s, STORE_ROW_EXPLAIN,
			       (union store_row_cb){ .explain = cb }, arg,
			       cause);
}

int
store_role_seen(pgsc_store *st, const char *role, char **cause)
{
	char desc[256];
	sqlite3_stmt *s;
	int rc;

	if (roles_descendant(desc, sizeof(desc), role) < 0)
		return 0;
	rc = store_prep(st, "SELECT 1 FROM aggregates WHERE role = ?1 OR "
			"role = ?2 LIMIT 1", &s, cause);
	if (rc < 0)
		return rc;
	sqlite3_bind_text(s, 1, role, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, desc, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		sqlite3_finalize(s);
		return 1;
	}
	rc = store_rows_end(st, s, rc, cause);
	return rc < 0 ? rc : 0;
}

/*
 * The sums of @what by name over rounds @from-@to to @cb, a NULL name as
 * "".  A node's records are the counts of its aggregates, which add up to
 * the rounds' records (every SECCOMP record of a round is in one
 * aggregate: round.c tallies them).
 */
int
store_sums(pgsc_store *st, enum store_sum what, int64_t from, int64_t to,
	   int (*cb)(void *arg, const char *name, uint64_t sum), void *arg,
	   char **cause)
{
	static const char *const sql[] = {
		[STORE_SUM_REJECTS] = "SELECT reason, sum(count) FROM rejects "
			"WHERE round_id BETWEEN ?1 AND ?2 "
			"GROUP BY reason ORDER BY reason",
	};
	sqlite3_stmt *s;
	int rc;

	if (what == STORE_SUM_NODES)
		return store_node_sums(st, from, to, cb, arg, cause);
	if ((size_t)what >= ARRAY_SIZE(sql) || sql[what] == NULL)
		return -EINVAL;
	rc = prep_range(st, sql[what], from, to, &s, cause);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);

		rc = cb(arg, name ? name : "",
			(uint64_t)sqlite3_column_int64(s, 1));
		if (rc != 0)
			break;
	}
	return store_rows_end(st, s, rc, cause);
}

int
store_node_loss(pgsc_store *st, int64_t from, int64_t to,
		int (*cb)(void *arg, const char *node, uint64_t gaps,
			  uint64_t untracked),
		void *arg, char **cause)
{
	sqlite3_stmt *s;
	int rc = prep_range(st, "SELECT node, sum(serial_gaps), sum(untracked) "
			    "FROM node_loss WHERE round_id BETWEEN ?1 AND ?2 "
			    "GROUP BY node ORDER BY node", from, to, &s, cause);

	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *node = (const char *)sqlite3_column_text(s, 0);

		rc = cb(arg, node ? node : "",
			(uint64_t)sqlite3_column_int64(s, 1),
			(uint64_t)sqlite3_column_int64(s, 2));
		if (rc != 0)
			break;
	}
	return store_rows_end(st, s, rc, cause);
}

int
store_finished_range(pgsc_store *st, int64_t *lo, int64_t *hi, char **cause)
{
	sqlite3_stmt *s;
	int rc, found = 0;

	rc = store_prep(st, "SELECT min(id), max(id) FROM rounds "
			"WHERE finished IS NOT NULL", &s, cause);
	if (rc < 0)
		return rc;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		if (sqlite3_column_type(s, 0) != SQLITE_NULL) {
			*lo = sqlite3_column_int64(s, 0);
			*hi = sqlite3_column_int64(s, 1);
			found = 1;
		}
		rc = SQLITE_DONE;
	}
	rc = store_rows_end(st, s, rc, cause);
	return rc < 0 ? rc : found;
}

/* ---------------------------------------------------------------- */
/* The rows of --status                                              */

/* The rounds' rows of --status; "new" is counted by first_rounds(). */
static const char status_sql[] =
	"SELECT r.id, coalesce(r.label, ''), r.mode, "
	"coalesce(r.source, ''), r.records, "
	"coalesce(r.first_event, 0), coalesce(r.last_event, 0), "
	"r.started, r.finished, coalesce(r.last_commit, 0), "
	"max(coalesce(r.kernel_lost_end, 0) - coalesce(r.kernel_lost_start, 0), 0)"
	" + r.serial_gaps + r.rotation_gaps + r.drain_timeouts "
	"FROM rounds r ORDER BY r.id";

/* How many of the ascending @v[*pos..] are @round, *pos moved past them. */
static int64_t
first_count(const int64_t *v, size_t n, size_t *pos, int64_t round)
{
	int64_t c = 0;

	while (*pos < n && v[*pos] < round)
		(*pos)++;
	for (; *pos < n && v[*pos] == round; (*pos)++)
		c++;
	return c;
}

int
store_status_rows(pgsc_store *st,
		  int (*in_session)(void *arg, const char *role), void *sarg,
		  int (*cb)(void *arg, const struct store_status_row *row),
		  void *arg, char **cause)
{
	sqlite3_stmt *s = NULL;
	int64_t *first[2] = { NULL, NULL };
	size_t nfirst[2] = { 0, 0 }, pos[2] = { 0, 0 };
	int rc;

	/* new = syscalls of the server tree (or of the session roles)
	 * first seen in that round, from each one's first round in one pass
	 * (a query per round and row was quadratic in a fleet's nodes) */
	rc = store_first_rounds(st, in_session, sarg, first, nfirst, cause);
	if (rc == 0)
		rc = store_prep(st, status_sql, &s, cause);
	if (rc < 0)
		goto out;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_status_row w;

		memset(&w, 0, sizeof(w));
		w.id = sqlite3_column_int64(s, 0);
		w.label = (const char *)sqlite3_column_text(s, 1);
		w.mode = (const char *)sqlite3_column_text(s, 2);
		w.records = sqlite3_column_int64(s, 4);
		w.first = sqlite3_column_double(s, 5);
		w.last = sqlite3_column_double(s, 6);
		w.started = sqlite3_column_double(s, 7);
		w.finished = sqlite3_column_type(s, 8) != SQLITE_NULL;
		w.finished_at = sqlite3_column_double(s, 8);
		w.last_commit = sqlite3_column_double(s, 9);
		w.loss = sqlite3_column_int64(s, 10);
		w.nnew = first_count(first[0], nfirst[0], &pos[0], w.id);
		w.nnew_sess = first_count(first[1], nfirst[1], &pos[1], w.id);
		rc = cb(arg, &w);
		if (rc != 0)
			break;
	}
	rc = store_rows_end(st, s, rc, cause);
out:
	free(first[0]);
	free(first[1]);
	return rc;
}
