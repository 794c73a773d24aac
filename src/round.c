/* SPDX-License-Identifier: PostgreSQL */
/* round.c - one round, the same for an import and a live collection:
 * what the feed reads, counted, and the one transaction that writes it. */
/*
 * The accumulator (struct round, round.h) is the feed's consumer: records
 * go to the process tree, SECCOMP records are counted with their first and
 * last times, rejects are counted by reason, serials are marked.  Its
 * commit writes the round's aggregates, processes, open counts and
 * rejects into a store batch, tallied by role on the way (the server's
 * roles against unrelated, standalone and unattributed) so that the
 * store receives counts, not a rule about roles.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "feed.h"
#include "proctree.h"
#include "store.h"
#include "round.h"

void
round_tally_reset(struct store_round *r)
{
	r->attributed = r->unrelated = r->standalone = r->unattributed = 0;
	r->foreign = 0;
}

/* Count @a in its role's tally of @r. */
void
round_tally(struct store_round *r, const struct role_agg *a)
{
	if (pgsc_role_in_server(a->role))
		r->attributed += a->count;
	else if (strcmp(a->role, PGSC_ROLE_UNRELATED) == 0)
		r->unrelated += a->count;
	else if (strcmp(a->role, PGSC_ROLE_STANDALONE) == 0)
		r->standalone += a->count;
	else
		r->unattributed += a->count;
	/* the store's unattributed column holds the foreign records too
	 * (no column of their own); the report tells them apart by role */
	if (strcmp(a->role, PGSC_ROLE_FOREIGN) == 0)
		r->foreign += a->count;
}

/* ---------------------------------------------------------------- */
/* The feed's consumer                                                */

static void
rd_record(void *arg, const struct pgsc_record *rec)
{
	struct round *rd = arg;
	double t = (double)rec->sec + rec->msec / 1000.0;

	if (rd->ops->record != NULL && !rd->ops->record(rd->arg, rec, t))
		return;
	if (rec->type == PGSC_REC_SECCOMP) {
		rd->records++;
		util_widen(&rd->r.first_event, &rd->r.last_event, t);
	}
	proctree_record(rd->tree, rec);
}

static void
rd_event_end(void *arg)
{
	struct round *rd = arg;

	proctree_event_end(rd->tree);
}

/* Count a reject by @reason (out of range: a bad field), then tell the
 * caller (diagnostics, samples). */
void
round_reject(struct round *rd, int reason, const struct feed_loc *loc,
	     uint64_t serial, const char *text, size_t len)
{
	if (reason <= 0 || reason >= PGSC_REJ__COUNT)
		reason = PGSC_REJ_BAD_FIELD;
	rd->rejects[reason]++;
	if (rd->ops->reject != NULL)
		rd->ops->reject(rd->arg, reason, loc, serial, text, len);
}

static void
rd_reject(void *arg, int reason, const struct feed_loc *loc, uint64_t serial,
	  const char *text, size_t len)
{
	round_reject(arg, reason, loc, serial, text, len);
}

static void
rd_serial(void *arg, uint64_t serial, int type_num, const char *node,
	  size_t nlen)
{
	struct round *rd = arg;
	uint64_t hole = serials_mark(&rd->ser, serial, node, nlen);

	(void)type_num;
	if (hole != 0 && rd->ops->hole != NULL)
		rd->ops->hole(rd->arg, serial, hole, node, nlen);
}

static void
rd_line(void *arg, const char *line, size_t len)
{
	struct round *rd = arg;

	rd->ops->line(rd->arg, line, len);
}

/* Two tables: the feed calls .line for every line when it is set. */
static const struct feed_ops rd_feed_ops = {
	.record = rd_record,
	.reject = rd_reject,
	.event_end = rd_event_end,
	.serial = rd_serial,
};
static const struct feed_ops rd_feed_ops_lines = {
	.record = rd_record,
	.reject = rd_reject,
	.event_end = rd_event_end,
	.serial = rd_serial,
	.line = rd_line,
};

/* The process tree, the serial window and the feed of a new run; @rd is
 * zeroed first.  round_free() frees what was made, also on failure. */
int
round_init(struct round *rd, pgsc_store *st,
	   const struct proctree_hints *hints, int no_fast_path,
	   const struct round_ops *ops, void *arg, char **cause)
{
	int rc;

	memset(rd, 0, sizeof(*rd));
	rd->st = st;
	rd->ops = ops;
	rd->arg = arg;
	rc = proctree_new(hints, &rd->tree);
	if (rc < 0)
		return rc;
	rd->ser.bits = calloc(SERIAL_WINDOW / 8, 1);
	if (rd->ser.bits == NULL)
		return -ENOMEM;
	return feed_new(ops->line ? &rd_feed_ops_lines : &rd_feed_ops, rd,
			no_fast_path, &rd->feed, cause);
}

void
round_free(struct round *rd)
{
	if (rd->batch != NULL) {
		/* an import that made no round after its early folds, or
		 * failed: nothing of it stays */
		store_batch_free(rd->batch);
		store_rollback(rd->st);
	}
	feed_free(rd->feed);
	proctree_free(rd->tree);
	serials_free(&rd->ser);
	for (size_t i = 0; i < rd->nbase; i++)
		free((char *)(uintptr_t)rd->base[i].example_exe);
	free(rd->base);
	strset_free(&rd->base_roles);
	aggdiff_free(&rd->snap);
}

/* ---------------------------------------------------------------- */
/* The commit                                                         */

/* A store batch and the round whose tallies it takes. */
struct round_batch {
	struct store_batch *b;
	struct store_round *r;
	struct aggdiff *snap;       /* a live commit's aggregates */
	char **cause;
};

/* Callbacks for proctree_each_agg(), _snapshot(), _each_proc() and
 * _each_open(), with a struct round_batch as @arg. */
static int
batch_agg(void *arg, const struct role_agg *a)
{
	struct round_batch *w = arg;

	round_tally(w->r, a);
	return store_batch_agg(w->b, a, w->cause);
}

/* A live commit's aggregate row: tallied, summed with the others of its
 * key (aggdiff.c), written if it changed. */
static int
snap_agg(void *arg, const struct role_agg *a)
{
	struct round_batch *w = arg;

	round_tally(w->r, a);
	if (aggdiff_add(w->snap, a) < 0) {
		util_cause(w->cause, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int
snap_put(void *arg, const struct role_agg *a, int64_t *rowid)
{
	struct round_batch *w = arg;

	return store_batch_agg_set(w->b, a, rowid, w->cause);
}

static int
snap_del(void *arg, const struct role_agg *a)
{
	struct round_batch *w = arg;

	return store_batch_agg_del(w->b, a, w->cause);
}

static int
open_del(void *arg, const char *node, int64_t pid, double birth)
{
	struct round_batch *w = arg;

	return store_batch_open_del(w->b, node, pid, birth, w->cause);
}

static int
batch_proc(void *arg, const struct proc_info *p)
{
	struct round_batch *w = arg;

	return store_batch_proc(w->b, p, w->cause);
}

static int
batch_open(void *arg, const struct proc_count *c)
{
	struct round_batch *w = arg;

	return store_batch_open(w->b, c, w->cause);
}

/* The rejects counted by reason; *@total gets their sum. */
static int
batch_rejects(struct round_batch *w, const uint64_t rejects[PGSC_REJ__COUNT],
	      uint64_t *total)
{
	int rc = 0;

	*total = 0;
	for (int i = 1; i < PGSC_REJ__COUNT; i++) {
		if (rejects[i] == 0)
			continue;
		*total += rejects[i];
		if (rc == 0)
			rc = store_batch_reject(w->b, pgsc_reject_name(i),
						rejects[i], w->cause);
	}
	return rc;
}

/*
 * The aggregates, open counts and processes.  A live round's are a
 * snapshot of the running tree on top of what its earlier runs committed
 * (the base), with the open counts while it is not finished (a finished
 * round is never continued) and only the process rows that changed; an
 * import's are its finished tree's.  A live commit writes the aggregate
 * rows and open counts that differ from the last commit's (all of them,
 * into tables it cleared, with @all).
 */
static int
batch_tree(struct round *rd, struct round_batch *w, int finished, int all)
{
	int rc = 0;

	if (!rd->live) {
		rc = proctree_each_agg(rd->tree, batch_agg, w);
		if (rc == 0)
			rc = proctree_each_proc(rd->tree, batch_proc, w);
		return rc;
	}
	w->snap = &rd->snap;
	aggdiff_begin(&rd->snap);
	if (all)
		aggdiff_forget(&rd->snap);
	for (size_t i = 0; rc == 0 && i < rd->nbase; i++)
		rc = snap_agg(w, &rd->base[i]);
	if (rc == 0)
		rc = proctree_snapshot(rd->tree, snap_agg, w);
	if (rc == 0)
		rc = aggdiff_each_change(&rd->snap, all, snap_put, snap_del, w);
	if (rc == 0 && !finished)
		rc = proctree_each_changed_open(rd->tree, all, open_del,
						batch_open, w);
	if (rc == 0)
		rc = proctree_each_changed_proc(rd->tree, batch_proc, w);
	return rc;
}

/*
 * An import's early fold, when the tree has grown by @growth processes
 * since the last one (proctree_fold_due()): the rows of the processes
 * proctree_fold_exited() forgets go into the round's one transaction,
 * which the first fold begins with the round's row (rounds.started is
 * then its time) and round_commit() ends; a fold that fails rolls it
 * back (rd->rolled_back), and so does round_free() one that no commit
 * ended (an import that makes no round, or fails), so an import killed
 * at any point still leaves the store as it was.  A live round forgets
 * its processes otherwise (proctree_prune() after each commit).  0 or
 * < 0.
 */
int
round_fold(struct round *rd, size_t growth, char **cause)
{
	struct round_batch w = { .r = &rd->r, .cause = cause };
	int rc;

	if (rd->live || !proctree_fold_due(rd->tree, growth))
		return 0;
	if (rd->batch == NULL) {
		rc = store_begin(rd->st, cause);
		if (rc < 0)
			return rc;
		rc = store_round_new(rd->st, rd->label, "import", util_now(),
				     &rd->id, cause);
		if (rc == 0)
			rc = store_batch_new(rd->st, rd->id, &rd->batch, cause);
		if (rc < 0) {
			store_rollback(rd->st);
			rd->rolled_back = 1;
			return rc;
		}
	}
	w.b = rd->batch;
	rc = proctree_fold_exited(rd->tree, batch_proc, &w, &rd->early_rows);
	if (rc < 0) {
		/* the import fails: nothing of it stays */
		store_batch_free(rd->batch);
		rd->batch = NULL;
		store_rollback(rd->st);
		rd->rolled_back = 1;
	}
	return rc;
}

/*
 * Write the round in one transaction: its row (an import's made here, a
 * live round's snapshot cleared), the tree, the rejects since the last
 * commit, the caller's samples and positions, then the row's figures
 * (an import's finished, a live round's updated, finished when
 * @finished).  The caller sets rd->r's own figures first (lines, the
 * kernel's).  On failure nothing of it is in the store, and the rejects
 * and process rows are written again by the next commit.
 */
int
round_commit(struct round *rd, int finished, char **cause)
{
	struct round_batch w = { .r = &rd->r, .cause = cause };
	uint64_t rej = 0;
	int all = !rd->incremental || finished ||
		  proctree_open_lost(rd->tree);
	int rc;

	rd->r.records = rd->base_records + rd->records;
	/*
	 * The serial sequences start afresh in every run (at the position it
	 * reads from); the gaps a continued round's earlier runs committed
	 * stay counted (base_gaps).  A running round commits only the
	 * settled gaps (serials.c), which a crash may freeze.
	 */
	rd->settled = !finished;
	rd->r.serial_gaps = rd->base_gaps + serials_gaps(&rd->ser, rd->settled);
	round_tally_reset(&rd->r);
	rd->rolled_back = 0;
	if (rd->batch != NULL) {
		/* an import whose early folds began it (round_fold()) */
		w.b = rd->batch;
		rd->batch = NULL;
		rc = 0;
	} else {
		rc = store_begin(rd->st, cause);
		if (rc < 0)
			return rc;
		if (rd->live)
			rc = store_round_clear_snapshot(rd->st, rd->id, all,
							cause);
		else
			rc = store_round_new(rd->st, rd->label, "import",
					     util_now(), &rd->id, cause);
		if (rc == 0)
			rc = store_batch_new(rd->st, rd->id, &w.b, cause);
	}
	if (rc == 0)
		rc = batch_tree(rd, &w, finished, all);
	if (rc == 0)
		rc = store_node_loss_write(rd->st, rd->id, &rd->ser,
					   rd->settled, cause);
	if (rc == 0 && rd->live && finished) {
		/* the open processes' values too: a live round's are never
		 * folded (docs/args.md, "Live collection") */
		struct args_tab snap = { NULL, 0, 0 };

		rc = proctree_args_snapshot(rd->tree, &snap);
		if (rc == 0)
			rc = store_args_write(rd->st, rd->id, &snap, cause);
		args_tab_free(&snap);
	} else if (rc == 0)
		rc = store_args_write(rd->st, rd->id, proctree_args(rd->tree),
				      cause);
	if (rc == 0)
		rc = batch_rejects(&w, rd->rejects, &rej);
	if (rc == 0 && rd->ops->samples != NULL)
		rc = rd->ops->samples(rd->arg, w.b, cause);
	if (rc == 0 && rd->ops->positions != NULL)
		rc = rd->ops->positions(rd->arg, rd, cause);
	if (rc == 0) {
		rd->r.rejected = rd->base_rejected + rej;
		if (rd->live) {
			rc = store_round_live_update(rd->st, rd->id, &rd->r,
						     finished, cause);
		} else {
			rd->r.finished = util_now();
			rc = store_round_finish(rd->st, rd->id, &rd->r, cause);
		}
	}
	if (rc == 0)
		rc = store_commit(rd->st, cause);
	store_batch_free(w.b);
	if (rc < 0) {
		store_rollback(rd->st);
		rd->rolled_back = 1;
		/* the rows it wrote are not in the store: the next commit
		 * writes them all */
		proctree_rows_unwritten(rd->tree);
		rd->incremental = 0;
		return rc;
	}
	if (rd->live) {
		aggdiff_committed(&rd->snap);
		proctree_open_committed(rd->tree);
		rd->incremental = !finished;
	}
	/* rejects are added, not replaced: start counting afresh */
	rd->base_rejected = rd->r.rejected;
	memset(rd->rejects, 0, sizeof(rd->rejects));
	return 0;
}

/*
 * Read source @key (file @path) on where a run stopped: its serial
 * sequences start at the state that run committed (serials_save()), so
 * that serials it read out of order are no holes.  A state that is not
 * one is said on @diag, and the sequences start afresh.  0 or < 0.
 */
int
round_serials_resume(struct round *rd, const char *key, const char *path,
		     FILE *diag, char **cause)
{
	uint8_t *b;
	size_t n;
	int rc = store_source_serials(rd->st, key, &b, &n, cause);

	if (rc <= 0)
		return rc;
	rc = serials_load(&rd->ser, b, n);
	free(b);
	if (rc == -EINVAL) {
		if (diag != NULL)
			util_diag(diag, "warning: %s: the stored serial "
				"state is not readable; serials before this "
				"run are not accounted\n", path);
		rc = 0;
	}
	if (rc == -ENOMEM)
		util_cause(cause, "%s: out of memory", path);
	return rc;
}
