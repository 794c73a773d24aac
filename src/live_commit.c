/* SPDX-License-Identifier: PostgreSQL */
/* live_commit.c - one commit of a live round: the base, a snapshot of
 * the process tree, the rejects and the source position, in one
 * transaction (docs/live.md). */
#include <errno.h>
#include <string.h>

#include "pgsc-int.h"
#include "live.h"

/* Exited processes stay in memory this long (stream time) after their
 * exit, for late fork records and pid reuse: well above proctree.c's
 * SETTLE_SECS. */
#define PRUNE_KEEP_SECS 60.0

/* Take the kernel's latest figures, as far as the request thread has
 * them: a commit never waits for the kernel. */
static void
update_figures(struct live *lv)
{
	struct netlink_figures f;

	if (!lv->have_figures || lv->kreq == NULL ||
	    !kreq_figures(lv->kreq, 1, &f))
		return;
	lv->r.kernel_lost_end = f.lost;
	if (f.has_wait_actual)
		lv->r.backlog_wait_end = f.backlog_wait_time_actual;
}

int
live_commit(struct live *lv, int finished)
{
	struct store_batch *b = NULL;
	struct round_batch w;
	char **cause = lv->cause;
	uint64_t rej = 0;
	int rc;

	update_figures(lv);
	proctree_proc_titles(lv->tree);
	lv->r.records = lv->base_records + lv->run_records;
	lv->r.lines = lv->base_lines + (feed_lines(lv->feed) - lv->run_lines0);
	/*
	 * The serial sequences start afresh in every run (at the position it
	 * reads from); the gaps the round's earlier runs committed are what
	 * the first commit of this run finds in lv->r (store_round_get() in
	 * resume.c, 0 for a new round), and stay counted.  A running round
	 * commits only the settled gaps (serials.c), which a crash may
	 * freeze.
	 */
	if (!lv->have_base_gaps) {
		lv->base_gaps = lv->r.serial_gaps;
		lv->have_base_gaps = 1;
	}
	lv->r.serial_gaps = lv->base_gaps + (finished ?
			    serials_gaps(&lv->ser, 0) : serials_gaps(&lv->ser, 1));
	round_tally_reset(&lv->r);
	rc = store_begin(lv->st, cause);
	if (rc < 0)
		return rc;
	rc = store_round_clear_snapshot(lv->st, lv->round, cause);
	if (rc == 0)
		rc = store_batch_new(lv->st, lv->round, &b, cause);
	if (rc < 0)
		goto out;
	w.b = b;
	w.r = &lv->r;
	w.cause = cause;
	for (size_t i = 0; rc == 0 && i < lv->nbase; i++)
		rc = round_agg(&w, &lv->base[i]);
	if (rc == 0)
		rc = proctree_snapshot(lv->tree, round_agg, &w);
	/* a finished round is never continued: no open counts */
	if (rc == 0 && !finished)
		rc = proctree_each_open(lv->tree, round_open, &w);
	if (rc == 0)
		rc = proctree_each_changed_proc(lv->tree, round_proc, &w);
	if (rc == 0)
		rc = round_rejects(&w, lv->rejects, &rej);
	if (rc == 0 && lv->src->position != NULL)
		rc = lv->src->position(lv);
	if (rc == 0) {
		lv->r.rejected = lv->base_rejected + rej;
		rc = store_round_live_update(lv->st, lv->round, &lv->r, finished,
					     cause);
	}
	if (rc == 0)
		rc = store_commit(lv->st, cause);
out:
	store_batch_free(b);
	if (rc < 0) {
		store_rollback(lv->st);
		/* the rows it wrote are not in the store */
		proctree_rows_unwritten(lv->tree);
		return rc;
	}
	/* rejects are added, not replaced: start counting afresh */
	lv->base_rejected = lv->r.rejected;
	memset(lv->rejects, 0, sizeof(lv->rejects));
	/* what exited long enough ago is in the store now, as exited */
	proctree_prune(lv->tree, PRUNE_KEEP_SECS);
	return 0;
}
