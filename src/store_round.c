/* SPDX-License-Identifier: PostgreSQL */
/* store_round.c - the writes of a round: its row, its sources (what was
 * read of each input), the prepared inserts of aggregates, processes,
 * rejects and open counts, and what a live round keeps to be continued
 * after a crash (its counters, aggregates, processes and open counts).
 * The caller holds a transaction (store_begin()). */
/*
 * The store knows nothing about parsing: it takes rounds, sources,
 * processes, aggregates and rejects as plain values.  Every statement
 * binds its parameters; no text from a record is ever put into SQL.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store-int.h"
#include "proctree.h"
#include "store.h"

int
store_round_new(pgsc_store *st, const char *label, const char *mode,
		double started, int64_t *id, char **cause)
{
	int rc = store_run(st, cause, "INSERT INTO rounds (label, mode, "
			   "started) VALUES (?1, ?2, ?3)", "ttd", label, mode,
			   started);

	if (rc == 0)
		*id = sqlite3_last_insert_rowid(st->db);
	return rc;
}

/* The counters and tallies every round has (STORE_ROW_ROUND at ?2..?10),
 * as both updates of a round write them. */
#define ROUND_SET "records = ?2, rejected = ?3, lines = ?4, " \
	"first_event = nullif(?5, 0), last_event = nullif(?6, 0), " \
	"attributed = ?7, unrelated = ?8, standalone = ?9, unattributed = ?10"

/* Prepare @sql, an update of round @id that sets ROUND_SET, bound. */
static int
round_prep(pgsc_store *st, const char *sql, int64_t id,
	   const struct store_round *r, sqlite3_stmt **s, char **cause)
{
	int rc = store_prep_round(st, sql, id, s, cause);

	if (rc == 0)
		store_bind_row(*s, 2, STORE_ROW_ROUND, r, sizeof(*r));
	return rc;
}

/* The end of an import's round: its counters and its end. */
int
store_round_finish(pgsc_store *st, int64_t id, const struct store_round *r,
		   char **cause)
{
	sqlite3_stmt *s;
	int rc = round_prep(st, "UPDATE rounds SET " ROUND_SET ", finished = "
			    "?11, serial_gaps = ?12 WHERE id = ?1", id, r, &s,
			    cause);

	if (rc < 0)
		return rc;
	sqlite3_bind_double(s, 11, r->finished);
	sqlite3_bind_int64(s, 12, (int64_t)r->serial_gaps);
	return store_step_final(st, s, cause);
}

/*
 * The newest sources row that @where (its ?1 bound to @key) selects:
 * returns 1 and fills @src (and @fingerprint when not NULL), 0 when there
 * is none, or a negative errno.
 */
static int
source_row(pgsc_store *st, const char *where, const char *key,
	   char fingerprint[24], struct store_source *src, char **cause)
{
	char sql[256];
	sqlite3_stmt *s;
	int rc;

	snprintf(sql, sizeof(sql), "SELECT id, last_round, fingerprint, "
		 "inode, offset, lines, prefix_hash, last_serial, last_event, "
		 "head_len, head_hash FROM sources WHERE %s ORDER BY last_round DESC, id DESC "
		 "LIMIT 1", where);
	rc = store_prep(st, sql, &s, cause);
	if (rc < 0)
		return rc;
	store_bind_text(s, 1, key);
	rc = sqlite3_step(s);
	src->id = 0;
	if (rc == SQLITE_ROW) {
		const unsigned char *f = sqlite3_column_text(s, 2);

		src->id = sqlite3_column_int64(s, 0);
		src->last_round = sqlite3_column_int64(s, 1);
		if (fingerprint != NULL)
			snprintf(fingerprint, 24, "%s",
				 f ? (const char *)f : "");
		store_read_row(s, 3, STORE_ROW_SOURCE, src, sizeof(*src));
		rc = 1;
	} else if (rc == SQLITE_DONE) {
		rc = 0;
	} else {
		rc = store_sql_error(st, cause);
	}
	sqlite3_finalize(s);
	return rc;
}

int
store_source_each(pgsc_store *st, const char *fingerprint,
		  int (*cb)(void *arg, const char *key,
			    const struct store_source *src),
		  void *arg, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	/* "FP/..." sorts between "FP/" and "FP0" ('/' + 1 == '0') */
	rc = store_prep(st, "SELECT id, last_round, fingerprint, inode, "
		      "offset, lines, prefix_hash, last_serial, last_event, "
		      "head_len, head_hash FROM sources WHERE fingerprint = ?1 "
		      "OR (fingerprint > ?1 || '/' AND fingerprint < ?1 || '0') "
		      "ORDER BY last_round DESC, id DESC", &s, cause);
	if (rc < 0)
		return rc;
	store_bind_text(s, 1, fingerprint);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_source src = { 0 };
		const unsigned char *f = sqlite3_column_text(s, 2);

		src.id = sqlite3_column_int64(s, 0);
		src.last_round = sqlite3_column_int64(s, 1);
		store_read_row(s, 3, STORE_ROW_SOURCE, &src, sizeof(src));
		rc = cb(arg, f ? (const char *)f : "", &src);
		if (rc < 0)
			break;
	}
	return store_rows_end(st, s, rc, cause);
}

int
store_source_put(pgsc_store *st, const char *fingerprint,
		 const struct store_source *src, int64_t round, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	rc = store_prep(st, "INSERT INTO sources (fingerprint, path, inode, offset, "
		      "lines, prefix_hash, last_serial, last_event, head_len, "
		      "head_hash, first_round, last_round, serials) "
		      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, "
		      "?12) "
		      "ON CONFLICT (fingerprint) DO UPDATE SET path = ?2, "
		      "inode = ?3, offset = ?4, lines = ?5, prefix_hash = ?6, "
		      "last_serial = ?7, last_event = ?8, head_len = ?9, "
		      "head_hash = ?10, last_round = ?11, serials = ?12",
		  &s, cause);
	if (rc < 0)
		return rc;
	store_bind_text(s, 1, fingerprint);
	store_bind_text(s, 2, src->path);
	store_bind_row(s, 3, STORE_ROW_SOURCE, src, sizeof(*src));
	sqlite3_bind_int64(s, 11, round);
	if (src->serials != NULL)
		sqlite3_bind_blob(s, 12, src->serials, (int)src->serials_len,
				  SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, 12);
	return store_step_final(st, s, cause);
}

int
store_source_serials(pgsc_store *st, const char *fingerprint, uint8_t **buf,
		     size_t *len, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	*buf = NULL;
	*len = 0;
	rc = store_prep(st, "SELECT serials FROM sources WHERE fingerprint = ?1",
			&s, cause);
	if (rc < 0)
		return rc;
	store_bind_text(s, 1, fingerprint);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const void *b = sqlite3_column_blob(s, 0);
		int n = sqlite3_column_bytes(s, 0);

		rc = 0;
		if (b != NULL && n > 0) {
			*buf = malloc((size_t)n);
			if (*buf == NULL) {
				rc = -ENOMEM;
			} else {
				memcpy(*buf, b, (size_t)n);
				*len = (size_t)n;
				rc = 1;
			}
		}
		sqlite3_finalize(s);
		return rc;
	}
	return store_rows_end(st, s, rc, cause);
}

struct store_batch {
	pgsc_store *st;
	int64_t round;
	sqlite3_stmt *agg, *proc, *rej, *sample, *open;
	/* a live commit's changes (prepared lazily) */
	sqlite3_stmt *agg_set, *agg_del, *open_del, *open_set, *agg_new;
	sqlite3_stmt *agg_upd;
};

int
store_batch_new(pgsc_store *st, int64_t round, struct store_batch **out,
		char **cause)
{
	struct store_batch *b = calloc(1, sizeof(*b));
	int rc;

	if (b == NULL)
		return -ENOMEM;
	b->st = st;
	b->round = round;
	rc = store_prep(st, "INSERT INTO aggregates (round_id, role, arch, nr, "
		      "count, first_seen, last_seen, example_pid, example_exe, "
		      "node) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
		      "ON CONFLICT (round_id, node, role, arch, nr) DO UPDATE SET "
		      "count = count + ?5, first_seen = min(first_seen, ?6), "
		      "last_seen = max(last_seen, ?7)", &b->agg, cause);
	if (rc == 0)
			rc = store_prep(st, "INSERT OR REPLACE INTO processes (round_id, pid, "
			      "birth, birth_serial, ppid, parent_known, "
			      "last_seen, exe, comm, title, role, records, "
			      "exited, uid, node) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
			      "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
			      &b->proc,
			      cause);
	if (rc == 0)
		rc = store_prep(st, "INSERT INTO rejects (round_id, reason, count) "
			      "VALUES (?1, ?2, ?3) ON CONFLICT (round_id, "
			      "reason) DO UPDATE SET count = count + ?3",
			  &b->rej, cause);
	if (rc == 0)
		rc = store_prep(st, "INSERT INTO reject_samples (round_id, reason, "
			      "source, line, serial, excerpt) VALUES (?1, ?2, "
			      "?3, ?4, ?5, ?6)", &b->sample, cause);
	if (rc < 0) {
		store_batch_free(b);
		return rc;
	}
	*out = b;
	return 0;
}

void
store_batch_free(struct store_batch *b)
{
	if (b == NULL)
		return;
	sqlite3_stmt *owned[] = { b->agg, b->proc, b->rej, b->sample, b->open,
				  b->agg_set, b->agg_del, b->open_del,
				  b->open_set, b->agg_new, b->agg_upd };

	for (size_t i = 0; i < ARRAY_SIZE(owned); i++)
		sqlite3_finalize(owned[i]);
	free(b);
}

int
store_batch_agg(struct store_batch *b, const struct role_agg *a, char **cause)
{
	sqlite3_bind_int64(b->agg, 1, b->round);
	store_bind_row(b->agg, 2, STORE_ROW_AGG, a, sizeof(*a));
	return store_step_done(b->st, b->agg, cause);
}

/* *@s, prepared on first use: the statements a live commit may not need. */
static int
batch_stmt(struct store_batch *b, sqlite3_stmt **s, const char *sql,
	   char **cause)
{
	return *s != NULL ? 0 : store_prep(b->st, sql, s, cause);
}

/* @sql (prepared lazily in *@s) with ?1 the batch's round, ?2.. the row
 * @row of @kind and, when @rowid_at > 0, @rowid at that parameter: how
 * many rows it changed, or < 0. */
static int
batch_row_step(struct store_batch *b, sqlite3_stmt **s, const char *sql,
	       enum store_row kind, const void *row, size_t size,
	       int rowid_at, int64_t rowid, char **cause)
{
	int rc = batch_stmt(b, s, sql, cause);

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(*s, 1, b->round);
	store_bind_row(*s, 2, kind, row, size);
	if (rowid_at > 0)
		sqlite3_bind_int64(*s, rowid_at, rowid);
	rc = store_step_done(b->st, *s, cause);
	return rc < 0 ? rc : sqlite3_changes(b->st->db);
}

/* The aggregate row of rowid @rowid, if it is still @a's key's, gets @a's
 * values: 1 when it did, 0 when there is no such row, < 0 on error. */
static int
agg_update(struct store_batch *b, const struct role_agg *a, int64_t rowid,
	   char **cause)
{
	int rc = batch_row_step(b, &b->agg_upd,
				"UPDATE aggregates SET count = ?5, first_seen = "
				"?6, last_seen = ?7, example_pid = ?8, "
				"example_exe = ?9 WHERE rowid = ?11 AND "
				"round_id = ?1 AND node = ?10 AND role = ?2 AND "
				"arch = ?3 AND nr = ?4", STORE_ROW_AGG, a,
				sizeof(*a), 11, rowid, cause);

	return rc < 0 ? rc : rc > 0;
}

/* @a's row, if its key has none: 1 when it was inserted (*@rowid its
 * rowid), 0 when the key has a row, < 0 on error. */
static int
agg_insert(struct store_batch *b, const struct role_agg *a, int64_t *rowid,
	   char **cause)
{
	int rc = batch_row_step(b, &b->agg_new,
				"INSERT OR IGNORE INTO aggregates (round_id, "
				"role, arch, nr, count, first_seen, last_seen, "
				"example_pid, example_exe, node) VALUES (?1, "
				"?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
				STORE_ROW_AGG, a, sizeof(*a), 0, 0, cause);

	if (rc <= 0)
		return rc;
	*rowid = sqlite3_last_insert_rowid(b->st->db);
	return 1;
}

/*
 * An aggregate row as it is now (a live commit's changed row: its values
 * replace the stored ones).  *@rowid is the row's rowid as this batch's
 * round last wrote it, 0 if not known, and gets the one it has now.  A
 * row found by its rowid is one lookup of an integer where the key is
 * five columns, two of them text (at 100 nodes a live commit writes
 * 200,000 changed rows a minute, docs/fleet.md); the key is checked too,
 * so that a rowid of a rolled back insert, or renumbered by a VACUUM, is
 * no row, and the row is written by its key (no rowid: SQLite 3.34 of
 * RHEL 9 has no RETURNING).
 */
int
store_batch_agg_set(struct store_batch *b, const struct role_agg *a,
		    int64_t *rowid, char **cause)
{
	int rc = 0;

	if (*rowid > 0)
		rc = agg_update(b, a, *rowid, cause);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	*rowid = 0;
	rc = agg_insert(b, a, rowid, cause);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	rc = batch_stmt(b, &b->agg_set,
			"INSERT INTO aggregates (round_id, role, "
			"arch, nr, count, first_seen, last_seen, "
			"example_pid, example_exe, node) VALUES (?1, ?2, "
			"?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) ON CONFLICT "
			"(round_id, node, role, arch, nr) DO UPDATE SET "
			"count = ?5, first_seen = ?6, last_seen = ?7, "
			"example_pid = ?8, example_exe = ?9", cause);

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(b->agg_set, 1, b->round);
	store_bind_row(b->agg_set, 2, STORE_ROW_AGG, a, sizeof(*a));
	return store_step_done(b->st, b->agg_set, cause);
}

/* The aggregate row of @a's key goes (a live commit's snapshot no longer
 * has it). */
int
store_batch_agg_del(struct store_batch *b, const struct role_agg *a,
		    char **cause)
{
	int rc = batch_stmt(b, &b->agg_del,
			"DELETE FROM aggregates WHERE round_id = "
			"?1 AND node = ?2 AND role = ?3 AND arch = ?4 "
			"AND nr = ?5", cause);

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(b->agg_del, 1, b->round);
	store_bind_text(b->agg_del, 2, a->node != NULL ? a->node : "");
	store_bind_text(b->agg_del, 3, a->role);
	sqlite3_bind_int64(b->agg_del, 4, a->arch);
	sqlite3_bind_int64(b->agg_del, 5, a->nr);
	return store_step_done(b->st, b->agg_del, cause);
}

int
store_batch_proc(struct store_batch *b, const struct proc_info *p,
		 char **cause)
{
	sqlite3_bind_int64(b->proc, 1, b->round);
	store_bind_row(b->proc, 2, STORE_ROW_PROC, p, sizeof(*p));
	return store_step_done(b->st, b->proc, cause);
}

int
store_batch_reject(struct store_batch *b, const char *reason, uint64_t count,
		   char **cause)
{
	sqlite3_stmt *s = b->rej;

	sqlite3_bind_int64(s, 1, b->round);
	store_bind_text(s, 2, reason);
	sqlite3_bind_int64(s, 3, (int64_t)count);
	return store_step_done(b->st, s, cause);
}

int
store_batch_sample(struct store_batch *b, const char *reason,
		   const char *source, uint64_t line, uint64_t serial,
		   const char *excerpt, char **cause)
{
	sqlite3_stmt *s = b->sample;

	sqlite3_bind_int64(s, 1, b->round);
	store_bind_text(s, 2, reason);
	store_bind_text(s, 3, source);
	if (line)
		sqlite3_bind_int64(s, 4, (int64_t)line);
	else
		sqlite3_bind_null(s, 4);
	if (serial)
		sqlite3_bind_int64(s, 5, (int64_t)serial);
	else
		sqlite3_bind_null(s, 5);
	store_bind_text(s, 6, excerpt);
	return store_step_done(b->st, s, cause);
}


/* The processes rows of @round that @where selects (a condition on
 * "p", the processes table), oldest first so that parents come before
 * their children, handed to @cb one by one. */
static int
procs_each(pgsc_store *st, int64_t round, const char *where,
	   int (*cb)(void *arg, const struct proc_info *p), void *arg,
	   char **cause)
{
	char sql[512];

	snprintf(sql, sizeof(sql),
		 "SELECT pid, birth, birth_serial, ppid, parent_known, "
		 "last_seen, exe, comm, title, role, records, exited, uid, node "
		 "FROM processes p WHERE round_id = ?1 AND (%s) "
		 "ORDER BY birth, pid", where);
	return store_round_rows(st, sql, round, STORE_ROW_PROC,
				(union store_row_cb){ .proc = cb }, arg, cause);
}

int
store_live_procs(pgsc_store *st, int64_t round,
		 int (*cb)(void *arg, const struct proc_info *p), void *arg,
		 char **cause)
{
	return procs_each(st, round, "exited = 0", cb, arg, cause);
}

/*
 * The stored open count row of one syscall of a process gets new figures
 * (proc_count.replace): 1 when it did, 0 when there is no such row (the
 * caller inserts it), < 0 on error.
 */
static int
open_set(struct store_batch *b, const struct proc_count *c, char **cause)
{
	/* the parameters of store_bind_row()'s open count (?4, the role,
	 * is the row's already) */
	int rc = batch_row_step(b, &b->open_set,
				"UPDATE open_counts SET count = ?8, first_seen "
				"= ?9, last_seen = ?10 WHERE round_id = ?1 AND "
				"node = ?11 AND pid = ?2 AND birth = ?3 AND "
				"pending = ?7 AND arch = ?5 AND nr = ?6",
				STORE_ROW_COUNT, c, sizeof(*c), 0, 0, cause);

	return rc < 0 ? rc : rc > 0;
}

/*
 * Open counts (schemas/003_open_counts.sql): what a live commit wrote for
 * the processes still open, so that a continued round can take them out of
 * the committed aggregates and give them back to their processes.
 */
int
store_batch_open(struct store_batch *b, const struct proc_count *c,
		 char **cause)
{
	int rc = batch_stmt(b, &b->open,
			"INSERT INTO open_counts (round_id, pid, "
			"birth, role, arch, nr, pending, count, first_seen, "
			"last_seen, node) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
			"?8, ?9, ?10, ?11) ON CONFLICT (round_id, node, pid, birth, pending, "
			"arch, nr, first_seen) DO UPDATE SET count = count + "
			"?8, last_seen = max(last_seen, ?10)", cause);

	if (rc < 0)
		return rc;
	if (c->replace) {
		rc = open_set(b, c, cause);
		if (rc != 0)
			return rc < 0 ? rc : 0;
	}
	sqlite3_bind_int64(b->open, 1, b->round);
	store_bind_row(b->open, 2, STORE_ROW_COUNT, c, sizeof(*c));
	return store_step_done(b->st, b->open, cause);
}

/* The open counts of one process go (a live commit: folded, forgotten,
 * or written anew). */
int
store_batch_open_del(struct store_batch *b, const char *node, int64_t pid,
		     double birth, char **cause)
{
	int rc = batch_stmt(b, &b->open_del,
			"DELETE FROM open_counts WHERE round_id = "
			"?1 AND node = ?2 AND pid = ?3 AND birth = ?4", cause);

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(b->open_del, 1, b->round);
	store_bind_text(b->open_del, 2, node != NULL ? node : "");
	sqlite3_bind_int64(b->open_del, 3, pid);
	sqlite3_bind_double(b->open_del, 4, birth);
	return store_step_done(b->st, b->open_del, cause);
}

/*
 * What a continued live round gives back to its processes: its open
 * counts by (pid, birth, node), as resume.c's open_cmp() searches them
 * ('' the local host first, as NULL there); then the processes it starts
 * from: those not seen to exit, and those with open counts (exited, not
 * folded yet), oldest first so that parents come before their children.
 */
int
store_open_state(pgsc_store *st, int64_t round,
		 int (*count)(void *arg, const struct proc_count *c),
		 int (*proc)(void *arg, const struct proc_info *p),
		 void *arg, char **cause)
{
	int rc = store_round_rows(st, "SELECT pid, birth, role, arch, nr, "
				  "pending, count, first_seen, last_seen, node "
				  "FROM open_counts WHERE round_id = ?1 ORDER "
				  "BY pid, birth, node, pending, arch, nr, "
				  "first_seen", round, STORE_ROW_COUNT,
				  (union store_row_cb){ .count = count }, arg,
				  cause);

	if (rc == 0)
		rc = procs_each(st, round, "exited = 0 OR EXISTS (SELECT 1 "
				"FROM open_counts o WHERE o.round_id = "
				"p.round_id AND o.node = p.node AND o.pid = "
				"p.pid AND o.birth = p.birth)", proc, arg, cause);
	return rc;
}

/* ---------------------------------------------------------------- */
/* Live rounds                                                        */

/**
 * Find the unfinished round a crashed collector of the same @mode and
 * @source left behind, to continue it; or create a new round.  The store
 * is open read-write, so no other collector is alive on it.
 * Returns 0 and sets *round and *continued.
 */
int
store_live_round(pgsc_store *st, const char *mode, const char *source,
		 const char *label, const char *command, int64_t *round,
		 int *continued, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	*continued = 0;
	rc = store_begin(st, cause);
	if (rc < 0)
		return rc;
	rc = store_prep(st, "SELECT id, collector_pid FROM rounds WHERE finished IS "
		      "NULL AND mode = ?1 AND source = ?2 ORDER BY id DESC "
		      "LIMIT 1", &s, cause);
	if (rc < 0)
		goto out;
	store_bind_text(s, 1, mode);
	store_bind_text(s, 2, source);
	if (sqlite3_step(s) == SQLITE_ROW) {
		/*
		 * Its collector is dead: we hold the writer lock, which it
		 * held while alive (lock_writer()).  The pid stored with the
		 * round is not asked: after a kill -9 another process may
		 * have that pid by now, and refusing would stop a restart.
		 */
		*round = sqlite3_column_int64(s, 0);
		*continued = 1;
	}
	sqlite3_finalize(s);
	if (*continued) {
		rc = store_run(st, cause, "UPDATE rounds SET collector_pid = ?2, "
			       "restarts = restarts + 1 WHERE id = ?1", "ii",
			       *round, (int64_t)getpid());
		if (rc == 0)
			rc = store_gap(st, *round, "restart", util_now(),
				       "collector restarted; continuing the round",
				       cause);
	} else {
		rc = store_round_new(st, label, mode, util_now(), round, cause);
		if (rc == 0)
			rc = store_run(st, cause, "UPDATE rounds SET source = ?2, "
				       "collector_pid = ?3, command = ?4 WHERE "
				       "id = ?1", "itit", *round, source,
				       (int64_t)getpid(), command);
	}
out:
	if (rc == 0)
		rc = store_commit(st, cause);
	if (rc < 0)
		store_rollback(st);
	return rc;
}

int
store_gap(pgsc_store *st, int64_t round, const char *kind, double at,
	  const char *detail, char **cause)
{
	return store_run(st, cause, "INSERT INTO gaps (round_id, kind, at, "
			 "detail) VALUES (?1, ?2, ?3, ?4)", "itdt", round, kind,
			 at, detail);
}

/* The committed counters of a round, to continue it. */
int
store_round_get(pgsc_store *st, int64_t round, struct store_round *r,
		char **cause)
{
	sqlite3_stmt *s;
	int rc;

	rc = store_prep_round(st, "SELECT records, rejected, lines, first_event, "
			      "last_event, attributed, unrelated, standalone, "
			      "unattributed, serial_gaps, rotation_gaps, "
			      "drain_timeouts, kernel_lost_start, "
			      "backlog_wait_start FROM rounds WHERE id = ?1",
			      round, &s, cause);
	if (rc < 0)
		return rc;
	memset(r, 0, sizeof(*r));
	if (sqlite3_step(s) == SQLITE_ROW) {
		store_read_row(s, 0, STORE_ROW_ROUND, r, sizeof(*r));
		store_read_row(s, 9, STORE_ROW_ROUND_GAPS, r, sizeof(*r));
		r->has_lost = sqlite3_column_type(s, 12) != SQLITE_NULL;
		r->kernel_lost_start = (uint64_t)sqlite3_column_int64(s, 12);
		r->has_wait = sqlite3_column_type(s, 13) != SQLITE_NULL;
		r->backlog_wait_start = (uint64_t)sqlite3_column_int64(s, 13);
		rc = 0;
	} else {
		util_cause(cause, "%s: round %lld vanished", st->path,
			   (long long)round);
		rc = -ENOENT;
	}
	sqlite3_finalize(s);
	return rc;
}

/* Aggregates of a round, as a base that a continued round adds to. */
int
store_round_aggs(pgsc_store *st, int64_t round,
		 int (*cb)(void *arg, const struct role_agg *a), void *arg,
		 char **cause)
{
	return store_round_rows(st, "SELECT role, arch, nr, count, first_seen, "
				"last_seen, example_pid, example_exe, node FROM "
				"aggregates WHERE round_id = ?1", round,
				STORE_ROW_AGG, (union store_row_cb){ .agg = cb },
				arg, cause);
}

/* Drop a round's node loss figures, and with @all its aggregates and open
 * counts, before a live commit writes them afresh. */
int
store_round_clear_snapshot(pgsc_store *st, int64_t round, int all,
			   char **cause)
{
	int rc = 0;

	if (all)
		rc = store_exec_round(st, "DELETE FROM aggregates WHERE "
				      "round_id = ?1", round, cause);
	if (rc == 0 && all)
		rc = store_exec_round(st, "DELETE FROM open_counts WHERE "
				      "round_id = ?1", round, cause);
	if (rc == 0)
		rc = store_exec_round(st, "DELETE FROM node_loss WHERE "
				      "round_id = ?1", round, cause);
	return rc;
}

/* node_loss_write()'s statement. */
struct loss_put {
	pgsc_store *st;
	sqlite3_stmt *s;
	char **cause;
};

static int
loss_put(void *arg, const char *name, size_t len, uint64_t gaps,
	 uint64_t untracked)
{
	struct loss_put *p = arg;

	if (gaps == 0 && untracked == 0)
		return 0;
	sqlite3_bind_text(p->s, 2, name, (int)len, SQLITE_TRANSIENT);
	sqlite3_bind_int64(p->s, 3, (int64_t)gaps);
	sqlite3_bind_int64(p->s, 4, (int64_t)untracked);
	return store_step_done(p->st, p->s, p->cause);
}

/* The loss figures of each node of @ser that has one (schemas/
 * 011_node_loss.sql), @settled as serials_gaps() takes it. */
int
store_node_loss_write(pgsc_store *st, int64_t round, const struct serials *ser,
		      int settled, char **cause)
{
	struct loss_put p = { .st = st, .cause = cause };
	int rc = store_prep_round(st, "INSERT OR REPLACE INTO node_loss "
				  "(round_id, node, serial_gaps, untracked) "
				  "VALUES (?1, ?2, ?3, ?4)", round, &p.s,
				  cause);

	if (rc < 0)
		return rc;
	rc = serials_each_node(ser, settled, loss_put, &p);
	sqlite3_finalize(p.s);
	return rc;
}

/* The node loss rows of @round, for a run that continues it. */
int
store_node_loss_round(pgsc_store *st, int64_t round,
		      int (*cb)(void *arg, const char *node, uint64_t gaps,
				uint64_t untracked),
		      void *arg, char **cause)
{
	sqlite3_stmt *s;
	int rc = store_prep_round(st, "SELECT node, serial_gaps, untracked "
				  "FROM node_loss WHERE round_id = ?1", round,
				  &s, cause);

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

/* Counters of a live round; attributed/unrelated/... are the tallies of
 * the aggregates written in the same commit (round.c). */
int
store_round_live_update(pgsc_store *st, int64_t round,
			const struct store_round *r, int finished,
			char **cause)
{
	sqlite3_stmt *s;
	int rc = round_prep(st, "UPDATE rounds SET " ROUND_SET ", "
			    "serial_gaps = ?11, rotation_gaps = ?12, "
			    "drain_timeouts = ?13, last_commit = ?14, "
			    "finished = CASE WHEN ?15 THEN ?14 ELSE NULL END, "
			    "exit_status = ?16, kernel_lost_start = ?17, "
			    "kernel_lost_end = ?18, backlog_wait_start = ?19, "
			    "backlog_wait_end = ?20 WHERE id = ?1", round, r,
			    &s, cause);

	if (rc < 0)
		return rc;
	store_bind_row(s, 11, STORE_ROW_ROUND_GAPS, r, sizeof(*r));
	sqlite3_bind_double(s, 14, util_now());
	sqlite3_bind_int(s, 15, finished);
	if (r->has_exit_status)
		sqlite3_bind_int(s, 16, r->exit_status);
	if (r->has_lost) {
		sqlite3_bind_int64(s, 17, (int64_t)r->kernel_lost_start);
		sqlite3_bind_int64(s, 18, (int64_t)r->kernel_lost_end);
	}
	if (r->has_wait) {
		sqlite3_bind_int64(s, 19, (int64_t)r->backlog_wait_start);
		sqlite3_bind_int64(s, 20, (int64_t)r->backlog_wait_end);
	}
	return store_step_final(st, s, cause);
}

int
store_source_by_path(pgsc_store *st, const char *path, char fingerprint[24],
		     struct store_source *src, char **cause)
{
	return source_row(st, "path = ?1", path, fingerprint, src, cause);
}
