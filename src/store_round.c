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

int
store_round_new(pgsc_store *st, const char *label, const char *mode,
		double started, int64_t *id, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	rc = store_prep(st, "INSERT INTO rounds (label, mode, started) "
		      "VALUES (?1, ?2, ?3)", &s, cause);
	if (rc < 0)
		return rc;
	store_bind_text(s, 1, label);
	store_bind_text(s, 2, mode);
	sqlite3_bind_double(s, 3, started);
	rc = store_step_done(st, s, cause);
	sqlite3_finalize(s);
	if (rc == 0)
		*id = sqlite3_last_insert_rowid(st->db);
	return rc;
}

int
store_round_finish(pgsc_store *st, int64_t id, const struct store_round *r,
		   char **cause)
{
	sqlite3_stmt *s;
	int rc;

	rc = store_prep(st, "UPDATE rounds SET finished = ?2, records = ?3, "
		      "attributed = ?4, unrelated = ?5, standalone = ?6, "
		      "unattributed = ?7, rejected = ?8, lines = ?9, "
		      "first_event = ?10, last_event = ?11 WHERE id = ?1",
		  &s, cause);
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_double(s, 2, r->finished);
	sqlite3_bind_int64(s, 3, (int64_t)r->records);
	sqlite3_bind_int64(s, 4, (int64_t)r->attributed);
	sqlite3_bind_int64(s, 5, (int64_t)r->unrelated);
	sqlite3_bind_int64(s, 6, (int64_t)r->standalone);
	sqlite3_bind_int64(s, 7, (int64_t)r->unattributed);
	sqlite3_bind_int64(s, 8, (int64_t)r->rejected);
	sqlite3_bind_int64(s, 9, (int64_t)r->lines);
	if (r->first_event > 0) {
		sqlite3_bind_double(s, 10, r->first_event);
		sqlite3_bind_double(s, 11, r->last_event);
	}
	rc = store_step_done(st, s, cause);
	sqlite3_finalize(s);
	return rc;
}

int
store_source_get(pgsc_store *st, const char *fingerprint,
		 struct store_source *src, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	rc = store_prep(st, "SELECT id, offset, lines, prefix_hash, last_round "
		      "FROM sources WHERE fingerprint = ?1", &s, cause);
	if (rc < 0)
		return rc;
	store_bind_text(s, 1, fingerprint);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const unsigned char *h = sqlite3_column_text(s, 3);

		src->id = sqlite3_column_int64(s, 0);
		src->offset = (uint64_t)sqlite3_column_int64(s, 1);
		src->lines = (uint64_t)sqlite3_column_int64(s, 2);
		snprintf(src->prefix_hash, sizeof(src->prefix_hash), "%s",
			 h ? (const char *)h : "");
		src->last_round = sqlite3_column_int64(s, 4);
		rc = 1;
	} else if (rc == SQLITE_DONE) {
		src->id = 0;
		rc = 0;
	} else {
		rc = store_sql_error(st, cause);
	}
	sqlite3_finalize(s);
	return rc;
}

int
store_source_put(pgsc_store *st, const char *fingerprint,
		 const struct store_source *src, int64_t round, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	rc = store_prep(st, "INSERT INTO sources (fingerprint, path, inode, offset, "
		      "lines, prefix_hash, last_serial, last_event, "
		      "first_round, last_round) "
		      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9) "
		      "ON CONFLICT (fingerprint) DO UPDATE SET path = ?2, "
		      "inode = ?3, offset = ?4, lines = ?5, prefix_hash = ?6, "
		      "last_serial = ?7, last_event = ?8, last_round = ?9",
		  &s, cause);
	if (rc < 0)
		return rc;
	store_bind_text(s, 1, fingerprint);
	store_bind_text(s, 2, src->path);
	sqlite3_bind_int64(s, 3, (int64_t)src->inode);
	sqlite3_bind_int64(s, 4, (int64_t)src->offset);
	sqlite3_bind_int64(s, 5, (int64_t)src->lines);
	store_bind_text(s, 6, src->prefix_hash);
	sqlite3_bind_int64(s, 7, (int64_t)src->last_serial);
	sqlite3_bind_double(s, 8, src->last_event);
	sqlite3_bind_int64(s, 9, round);
	rc = store_step_done(st, s, cause);
	sqlite3_finalize(s);
	return rc;
}

/*
 * The node of a row: its node= name, '' for the local host (records
 * without node=), which the process tree calls NULL.  The node is part
 * of the keys of aggregates, processes and open_counts (schema 6), and a
 * key column cannot be NULL for an upsert's conflict target.
 */
static void
bind_node(sqlite3_stmt *s, int i, const char *node)
{
	sqlite3_bind_text(s, i, node ? node : "", -1, SQLITE_TRANSIENT);
}

struct store_batch {
	pgsc_store *st;
	int64_t round;
	sqlite3_stmt *agg, *proc, *rej, *sample, *open;
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
	sqlite3_finalize(b->agg);
	sqlite3_finalize(b->proc);
	sqlite3_finalize(b->rej);
	sqlite3_finalize(b->sample);
	sqlite3_finalize(b->open);
	free(b);
}

int
store_batch_agg(struct store_batch *b, const struct role_agg *a, char **cause)
{
	sqlite3_stmt *s = b->agg;

	sqlite3_bind_int64(s, 1, b->round);
	store_bind_text(s, 2, a->role);
	sqlite3_bind_int64(s, 3, a->arch);
	sqlite3_bind_int64(s, 4, a->nr);
	sqlite3_bind_int64(s, 5, (int64_t)a->count);
	sqlite3_bind_double(s, 6, a->first);
	sqlite3_bind_double(s, 7, a->last);
	sqlite3_bind_int64(s, 8, a->example_pid);
	store_bind_text(s, 9, a->example_exe);
	bind_node(s, 10, a->node);
	return store_step_done(b->st, s, cause);
}

int
store_batch_proc(struct store_batch *b, const struct proc_info *p,
		 char **cause)
{
	sqlite3_stmt *s = b->proc;

	sqlite3_bind_int64(s, 1, b->round);
	sqlite3_bind_int64(s, 2, p->pid);
	sqlite3_bind_double(s, 3, p->birth);
	if (p->birth_serial)
		sqlite3_bind_int64(s, 4, (int64_t)p->birth_serial);
	else
		sqlite3_bind_null(s, 4);
	if (p->ppid >= 0)
		sqlite3_bind_int64(s, 5, p->ppid);
	else
		sqlite3_bind_null(s, 5);
	sqlite3_bind_int(s, 6, p->parent_known);
	sqlite3_bind_double(s, 7, p->last);
	store_bind_text(s, 8, p->exe);
	store_bind_text(s, 9, p->comm);
	store_bind_text(s, 10, p->title);
	store_bind_text(s, 11, p->role);
	sqlite3_bind_int64(s, 12, (int64_t)p->records);
	sqlite3_bind_int(s, 13, p->exited);
	if (p->uid >= 0)
		sqlite3_bind_int64(s, 14, p->uid);
	else
		sqlite3_bind_null(s, 14);
	bind_node(s, 15, p->node);
	return store_step_done(b->st, s, cause);
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
	sqlite3_stmt *s;
	int rc;

	snprintf(sql, sizeof(sql),
		 "SELECT pid, coalesce(ppid, -1), parent_known, birth, "
		 "coalesce(birth_serial, 0), last_seen, exe, comm, title, role, "
		 "records, exited, coalesce(uid, -1), nullif(node, '') "
		 "FROM processes p "
		 "WHERE "
		 "round_id = ?1 AND (%s) "
		 "ORDER BY birth, pid", where);
	rc = store_prep_round(st, sql, round, &s,
			      cause);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct proc_info p = { 0 };

		p.pid = sqlite3_column_int64(s, 0);
		p.ppid = sqlite3_column_int64(s, 1);
		p.parent_known = sqlite3_column_int(s, 2);
		p.birth = sqlite3_column_double(s, 3);
		p.birth_serial = (uint64_t)sqlite3_column_int64(s, 4);
		p.last = sqlite3_column_double(s, 5);
		p.exe = (const char *)sqlite3_column_text(s, 6);
		p.comm = (const char *)sqlite3_column_text(s, 7);
		p.title = (const char *)sqlite3_column_text(s, 8);
		p.role = (const char *)sqlite3_column_text(s, 9);
		p.records = (uint64_t)sqlite3_column_int64(s, 10);
		p.exited = sqlite3_column_int(s, 11);
		p.uid = sqlite3_column_int64(s, 12);
		p.node = (const char *)sqlite3_column_text(s, 13);
		rc = cb(arg, &p);
		if (rc != 0)
			break;
	}
	return store_rows_end(st, s, rc, cause);
}

int
store_live_procs(pgsc_store *st, int64_t round,
		 int (*cb)(void *arg, const struct proc_info *p), void *arg,
		 char **cause)
{
	return procs_each(st, round, "exited = 0", cb, arg, cause);
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
	sqlite3_stmt *s;
	int rc;

	if (b->open == NULL) {
		rc = store_prep(b->st, "INSERT INTO open_counts (round_id, pid, "
			  "birth, role, arch, nr, pending, count, first_seen, "
			  "last_seen, node) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
			  "?8, ?9, ?10, ?11) ON CONFLICT (round_id, node, pid, birth, pending, "
			  "arch, nr, first_seen) DO UPDATE SET count = count + "
			  "?8, last_seen = max(last_seen, ?10)", &b->open, cause);
		if (rc < 0)
			return rc;
	}
	s = b->open;
	sqlite3_bind_int64(s, 1, b->round);
	sqlite3_bind_int64(s, 2, c->pid);
	sqlite3_bind_double(s, 3, c->birth);
	store_bind_text(s, 4, c->role);
	sqlite3_bind_int64(s, 5, c->arch);
	sqlite3_bind_int64(s, 6, c->nr);
	sqlite3_bind_int(s, 7, c->pending);
	sqlite3_bind_int64(s, 8, (int64_t)c->count);
	sqlite3_bind_double(s, 9, c->first);
	sqlite3_bind_double(s, 10, c->last);
	bind_node(s, 11, c->node);
	return store_step_done(b->st, s, cause);
}

/* Drop a round's open counts before a commit writes them afresh. */
int
store_round_clear_open(pgsc_store *st, int64_t round, char **cause)
{
	return store_exec_round(st, "DELETE FROM open_counts WHERE round_id = ?1",
				round, cause);
}

/* A round's open counts, by (pid, birth, node): resume.c's open_cmp()
 * searches them so ('' the local host sorts first, as NULL there). */
int
store_open_counts(pgsc_store *st, int64_t round,
		  int (*cb)(void *arg, const struct proc_count *c), void *arg,
		  char **cause)
{
	sqlite3_stmt *s;
	int rc;

	rc = store_prep_round(st, "SELECT pid, birth, role, arch, nr, pending, count, "
		      "first_seen, last_seen, nullif(node, '') FROM open_counts WHERE "
		      "round_id = ?1 ORDER BY pid, birth, node, pending, arch, nr, "
		      "first_seen", round, &s,
			      cause);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct proc_count c;

		c.pid = sqlite3_column_int64(s, 0);
		c.birth = sqlite3_column_double(s, 1);
		c.role = (const char *)sqlite3_column_text(s, 2);
		c.arch = (uint32_t)sqlite3_column_int64(s, 3);
		c.nr = (int32_t)sqlite3_column_int64(s, 4);
		c.pending = sqlite3_column_int(s, 5);
		c.count = (uint64_t)sqlite3_column_int64(s, 6);
		c.first = sqlite3_column_double(s, 7);
		c.last = sqlite3_column_double(s, 8);
		c.node = (const char *)sqlite3_column_text(s, 9);
		if (c.role == NULL)
			continue;
		rc = cb(arg, &c);
		if (rc != 0)
			break;
	}
	return store_rows_end(st, s, rc, cause);
}

/*
 * The processes a continued live round starts from: those not seen to
 * exit, and those with open counts (exited, not folded yet), oldest
 * first so that parents come before their children.
 */
int
store_open_procs(pgsc_store *st, int64_t round,
		 int (*cb)(void *arg, const struct proc_info *p), void *arg,
		 char **cause)
{
	return procs_each(st, round, "exited = 0 OR EXISTS (SELECT 1 FROM "
			  "open_counts o WHERE o.round_id = p.round_id AND "
			  "o.node = p.node AND o.pid = p.pid AND "
			  "o.birth = p.birth)", cb, arg,
			  cause);
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
	sqlite3_stmt *s = NULL;
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
	s = NULL;
	if (*continued) {
		rc = store_prep(st, "UPDATE rounds SET collector_pid = ?2, restarts = "
			      "restarts + 1 WHERE id = ?1", &s, cause);
		if (rc < 0)
			goto out;
		sqlite3_bind_int64(s, 1, *round);
		sqlite3_bind_int64(s, 2, getpid());
		rc = store_step_done(st, s, cause);
		if (rc == 0)
			rc = store_gap(st, *round, "restart", util_now(),
				       "collector restarted; continuing the round",
				       cause);
	} else {
		rc = store_round_new(st, label, mode, util_now(), round, cause);
		if (rc < 0)
			goto out;
		rc = store_prep(st, "UPDATE rounds SET source = ?2, collector_pid = ?3, "
			      "command = ?4 WHERE id = ?1", &s, cause);
		if (rc < 0)
			goto out;
		sqlite3_bind_int64(s, 1, *round);
		store_bind_text(s, 2, source);
		sqlite3_bind_int64(s, 3, getpid());
		store_bind_text(s, 4, command);
		rc = store_step_done(st, s, cause);
	}
out:
	sqlite3_finalize(s);
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
	sqlite3_stmt *s;
	int rc;

	rc = store_prep_round(st, "INSERT INTO gaps (round_id, kind, at, detail) VALUES "
		      "(?1, ?2, ?3, ?4)", round, &s,
			      cause);
	if (rc < 0)
		return rc;
	store_bind_text(s, 2, kind);
	sqlite3_bind_double(s, 3, at);
	store_bind_text(s, 4, detail);
	rc = store_step_done(st, s, cause);
	sqlite3_finalize(s);
	return rc;
}

/* The committed counters of a round, to continue it. */
int
store_round_get(pgsc_store *st, int64_t round, struct store_round *r,
		char **cause)
{
	sqlite3_stmt *s;
	int rc;

	rc = store_prep_round(st, "SELECT records, rejected, lines, coalesce(first_event,0), "
		      "coalesce(last_event,0), serial_gaps, rotation_gaps, "
		      "drain_timeouts, kernel_lost_start, backlog_wait_start "
		      "FROM rounds WHERE id = ?1", round, &s,
			      cause);
	if (rc < 0)
		return rc;
	memset(r, 0, sizeof(*r));
	if (sqlite3_step(s) == SQLITE_ROW) {
		r->records = (uint64_t)sqlite3_column_int64(s, 0);
		r->rejected = (uint64_t)sqlite3_column_int64(s, 1);
		r->lines = (uint64_t)sqlite3_column_int64(s, 2);
		r->first_event = sqlite3_column_double(s, 3);
		r->last_event = sqlite3_column_double(s, 4);
		r->serial_gaps = (uint64_t)sqlite3_column_int64(s, 5);
		r->rotation_gaps = (uint64_t)sqlite3_column_int64(s, 6);
		r->drain_timeouts = (uint64_t)sqlite3_column_int64(s, 7);
		r->has_lost = sqlite3_column_type(s, 8) != SQLITE_NULL;
		r->kernel_lost_start = (uint64_t)sqlite3_column_int64(s, 8);
		r->has_wait = sqlite3_column_type(s, 9) != SQLITE_NULL;
		r->backlog_wait_start = (uint64_t)sqlite3_column_int64(s, 9);
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
	sqlite3_stmt *s;
	int rc;

	rc = store_prep_round(st, "SELECT role, arch, nr, count, first_seen, last_seen, "
		      "example_pid, example_exe, nullif(node, '') FROM aggregates WHERE "
		      "round_id = ?1", round, &s,
			      cause);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct role_agg a;

		a.role = (const char *)sqlite3_column_text(s, 0);
		a.arch = (uint32_t)sqlite3_column_int64(s, 1);
		a.nr = (int32_t)sqlite3_column_int64(s, 2);
		a.count = (uint64_t)sqlite3_column_int64(s, 3);
		a.first = sqlite3_column_double(s, 4);
		a.last = sqlite3_column_double(s, 5);
		a.example_pid = sqlite3_column_int64(s, 6);
		a.example_exe = (const char *)sqlite3_column_text(s, 7);
		a.node = (const char *)sqlite3_column_text(s, 8);
		if (a.role == NULL)
			continue;
		rc = cb(arg, &a);
		if (rc != 0)
			break;
	}
	return store_rows_end(st, s, rc, cause);
}

/* Drop a round's aggregates before a whole snapshot replaces them. */
int
store_round_clear_aggs(pgsc_store *st, int64_t round, char **cause)
{
	return store_exec_round(st, "DELETE FROM aggregates WHERE round_id = ?1",
				round, cause);
}

/* Counters of a live round; attributed/unrelated/... are the tallies of
 * the aggregates written in the same commit (round.c). */
int
store_round_live_update(pgsc_store *st, int64_t round,
			const struct store_round *r, int finished,
			char **cause)
{
	sqlite3_stmt *s;
	int rc;

	rc = store_prep(st,
		  "UPDATE rounds SET records = ?2, rejected = ?3, lines = ?4, "
		  "first_event = nullif(?5, 0), last_event = nullif(?6, 0), "
		  "last_commit = ?7, serial_gaps = ?8, rotation_gaps = ?9, "
		  "drain_timeouts = ?10, kernel_lost_start = ?11, "
		  "kernel_lost_end = ?12, backlog_wait_start = ?13, "
		  "backlog_wait_end = ?14, "
		  "finished = CASE WHEN ?15 THEN ?7 ELSE NULL END, "
		  "exit_status = ?16, "
		  "attributed = ?17, unrelated = ?18, standalone = ?19, "
		  "unattributed = ?20 WHERE id = ?1", &s, cause);
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(s, 1, round);
	sqlite3_bind_int64(s, 2, (int64_t)r->records);
	sqlite3_bind_int64(s, 3, (int64_t)r->rejected);
	sqlite3_bind_int64(s, 4, (int64_t)r->lines);
	sqlite3_bind_double(s, 5, r->first_event);
	sqlite3_bind_double(s, 6, r->last_event);
	sqlite3_bind_double(s, 7, util_now());
	sqlite3_bind_int64(s, 8, (int64_t)r->serial_gaps);
	sqlite3_bind_int64(s, 9, (int64_t)r->rotation_gaps);
	sqlite3_bind_int64(s, 10, (int64_t)r->drain_timeouts);
	if (r->has_lost) {
		sqlite3_bind_int64(s, 11, (int64_t)r->kernel_lost_start);
		sqlite3_bind_int64(s, 12, (int64_t)r->kernel_lost_end);
	}
	if (r->has_wait) {
		sqlite3_bind_int64(s, 13, (int64_t)r->backlog_wait_start);
		sqlite3_bind_int64(s, 14, (int64_t)r->backlog_wait_end);
	}
	sqlite3_bind_int(s, 15, finished);
	if (r->has_exit_status)
		sqlite3_bind_int(s, 16, r->exit_status);
	sqlite3_bind_int64(s, 17, (int64_t)r->attributed);
	sqlite3_bind_int64(s, 18, (int64_t)r->unrelated);
	sqlite3_bind_int64(s, 19, (int64_t)r->standalone);
	sqlite3_bind_int64(s, 20, (int64_t)r->unattributed);
	rc = store_step_done(st, s, cause);
	sqlite3_finalize(s);
	return rc;
}

int
store_source_by_path(pgsc_store *st, const char *path, char fingerprint[24],
		     struct store_source *src, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	rc = store_prep(st, "SELECT fingerprint, offset, lines, prefix_hash, "
		      "last_round, coalesce(inode, 0), coalesce(last_event, 0) "
		      "FROM sources WHERE path = ?1 ORDER BY last_round DESC, "
		      "id DESC LIMIT 1", &s, cause);
	if (rc < 0)
		return rc;
	store_bind_text(s, 1, path);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		const unsigned char *f = sqlite3_column_text(s, 0);
		const unsigned char *h = sqlite3_column_text(s, 3);

		snprintf(fingerprint, 24, "%s", f ? (const char *)f : "");
		src->offset = (uint64_t)sqlite3_column_int64(s, 1);
		src->lines = (uint64_t)sqlite3_column_int64(s, 2);
		snprintf(src->prefix_hash, sizeof(src->prefix_hash), "%s",
			 h ? (const char *)h : "");
		src->last_round = sqlite3_column_int64(s, 4);
		src->inode = (uint64_t)sqlite3_column_int64(s, 5);
		src->last_event = sqlite3_column_double(s, 6);
		rc = 1;
	} else if (rc == SQLITE_DONE) {
		rc = 0;
	} else {
		rc = store_sql_error(st, cause);
	}
	sqlite3_finalize(s);
	return rc;
}
