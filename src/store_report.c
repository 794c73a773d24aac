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
			"coalesce(sum(finished IS NULL), 0) FROM rounds "
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
		rc = SQLITE_DONE;
	}
	return store_rows_end(st, s, rc, cause);
}

/* The two reads of the aggregates per role: summed over the nodes or of
 * one node (?3), and every node's by node (as STORE_SUM_NODES orders them,
 * then as the first orders its rows). */
static const char *const role_aggs_sql[] = {
	"SELECT role, arch, nr, sum(count), min(round_id), min(example_pid), "
	"min(example_exe), ?3 FROM aggregates "
	"WHERE round_id BETWEEN ?1 AND ?2 AND (?3 IS NULL OR node = ?3) "
	"GROUP BY role, arch, nr ORDER BY arch, nr, role",
	"SELECT role, arch, nr, sum(count), min(round_id), min(example_pid), "
	"min(example_exe), node FROM aggregates "
	"WHERE round_id BETWEEN ?1 AND ?2 "
	"GROUP BY node, role, arch, nr ORDER BY node, arch, nr, role",
};

static int
role_aggs(pgsc_store *st, int by_node, int64_t from, int64_t to,
	  const char *node,
	  int (*cb)(void *arg, const struct store_role_row *row), void *arg,
	  char **cause)
{
	sqlite3_stmt *s;
	int rc;

	rc = prep_range(st, role_aggs_sql[by_node], from, to, &s, cause);
	if (rc < 0)
		return rc;
	if (!by_node)
		store_bind_text(s, 3, node);
	return store_rows_each(st, s, STORE_ROW_ROLE,
			       (union store_row_cb){ .role = cb }, arg, cause);
}

/* The aggregates of a range of rounds summed over their nodes, or of one
 * node (@node, "" the local host: schemas/006_node_aggregates.sql). */
int
store_role_aggs(pgsc_store *st, int64_t from, int64_t to, const char *node,
		int (*cb)(void *arg, const struct store_role_row *row),
		void *arg, char **cause)
{
	return role_aggs(st, 0, from, to, node, cb, arg, cause);
}

/* Every node's aggregates of a range of rounds in one pass, node by node:
 * a fleet's report reads N nodes in one scan, not N scans. */
int
store_role_aggs_nodes(pgsc_store *st, int64_t from, int64_t to,
		      int (*cb)(void *arg, const struct store_role_row *row),
		      void *arg, char **cause)
{
	return role_aggs(st, 1, from, to, NULL, cb, arg, cause);
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
		[STORE_SUM_NODES] = "SELECT node, sum(count) FROM aggregates "
			"WHERE round_id BETWEEN ?1 AND ?2 "
			"GROUP BY node ORDER BY node",
		[STORE_SUM_REJECTS] = "SELECT reason, sum(count) FROM rejects "
			"WHERE round_id BETWEEN ?1 AND ?2 "
			"GROUP BY reason ORDER BY reason",
	};
	sqlite3_stmt *s;
	int rc;

	if ((size_t)what >= ARRAY_SIZE(sql))
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

struct role_fn {
	int (*in_session)(void *arg, const char *role);
	void *arg;
};

/* SQL function pgsc_in_server(role): is @role one of the server's? */
static void
sql_in_server(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	sqlite3_result_int(ctx, pgsc_role_in_server(
		(const char *)sqlite3_value_text(argv[0])));
}

/* SQL function pgsc_in_session(role): is @role in the session list's
 * roles?  A syscall new to the session list is a new need even when the
 * server made it before in another role: the session filter logs it. */
static void
sql_in_session(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct role_fn *f = sqlite3_user_data(ctx);
	const unsigned char *role;

	(void)argc;
	role = sqlite3_value_text(argv[0]);
	sqlite3_result_int(ctx, role != NULL &&
			   f->in_session(f->arg, (const char *)role));
}

static int
status_functions(pgsc_store *st, struct role_fn *f, int on, char **cause)
{
	if (!on) {
		sqlite3_create_function(st->db, "pgsc_in_session", 1,
					SQLITE_UTF8, NULL, NULL, NULL, NULL);
		sqlite3_create_function(st->db, "pgsc_in_server", 1,
					SQLITE_UTF8, NULL, NULL, NULL, NULL);
		return 0;
	}
	if (sqlite3_create_function(st->db, "pgsc_in_session", 1,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC, f,
				    sql_in_session, NULL, NULL) != SQLITE_OK ||
	    sqlite3_create_function(st->db, "pgsc_in_server", 1,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
				    sql_in_server, NULL, NULL) != SQLITE_OK)
		return store_sql_error(st, cause);
	return 0;
}

/* The rounds' rows of --status; "new" is counted by first_rounds(). */
static const char status_sql[] =
	"SELECT r.id, coalesce(r.label, ''), r.mode, "
	"coalesce(r.source, ''), r.records, "
	"coalesce(r.first_event, 0), coalesce(r.last_event, 0), "
	"r.started, r.finished, coalesce(r.last_commit, 0), "
	"max(coalesce(r.kernel_lost_end, 0) - coalesce(r.kernel_lost_start, 0), 0)"
	" + r.serial_gaps + r.rotation_gaps + r.drain_timeouts "
	"FROM rounds r ORDER BY r.id";

/* new = syscalls of the server tree (or of the session roles) first seen
 * in that round: the round each (arch, number) was first made in by such
 * a role, in one pass over the aggregates (a query per round and row was
 * quadratic in a fleet's nodes). */
static const char *const first_sql[] = {
	"SELECT min(round_id) FROM aggregates WHERE pgsc_in_server(role) "
	"GROUP BY arch, nr ORDER BY 1",
	"SELECT min(round_id) FROM aggregates WHERE pgsc_in_session(role) "
	"GROUP BY arch, nr ORDER BY 1",
};

/* Each syscall's first round by first_sql[@k], ascending, in *@v. */
static int
first_rounds(pgsc_store *st, int k, int64_t **v, size_t *n, char **cause)
{
	sqlite3_stmt *s;
	size_t cap = 0;
	int rc;

	*v = NULL;
	*n = 0;
	rc = store_prep(st, first_sql[k], &s, cause);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (*n == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			int64_t *nv = realloc(*v, ncap * sizeof(*nv));

			if (nv == NULL) {
				rc = -ENOMEM;
				break;
			}
			*v = nv;
			cap = ncap;
		}
		(*v)[(*n)++] = sqlite3_column_int64(s, 0);
	}
	return store_rows_end(st, s, rc, cause);
}

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
	struct role_fn f = { in_session, sarg };
	sqlite3_stmt *s = NULL;
	int64_t *first[2] = { NULL, NULL };
	size_t nfirst[2] = { 0, 0 }, pos[2] = { 0, 0 };
	int rc;

	rc = status_functions(st, &f, 1, cause);
	if (rc < 0)
		return rc;
	for (int k = 0; rc == 0 && k < 2; k++)
		rc = first_rounds(st, k, &first[k], &nfirst[k], cause);
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
	status_functions(st, &f, 0, NULL);
	return rc;
}
