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

struct commit_ctx {
	struct store_batch *b;
	char **cause;
};

static int
commit_agg(void *arg, const struct role_agg *a)
{
	struct commit_ctx *c = arg;

	return store_batch_agg(c->b, a, c->cause);
}

static int
commit_proc(void *arg, const struct proc_info *p)
{
	struct commit_ctx *c = arg;

	return store_batch_proc(c->b, p, c->cause);
}

static int
commit_open(void *arg, const struct proc_count *p)
{
	struct commit_ctx *c = arg;

	return store_batch_open(c->b, p, c->cause);
}

/* Take the kernel's latest figures, as far as the request thread has
 * them: a commit never waits for the kernel. */
static void
update_figures(struct live *lv)
{
	struct audit_figures f;

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
	struct commit_ctx c;
	char **cause = lv->cause;
	int rc;

	update_figures(lv);
	proctree_proc_titles(lv->tree);
	lv->r.records = lv->base_records + lv->run_records;
	lv->r.lines = lv->base_lines + (feed_lines(lv->feed) - lv->run_lines0);
	lv->r.serial_gaps = serials_total(&lv->ser);
	rc = store_begin(lv->st, cause);
	if (rc < 0)
		return rc;
	rc = store_round_clear_aggs(lv->st, lv->round, cause);
	if (rc == 0)
		rc = store_round_clear_open(lv->st, lv->round, cause);
	if (rc == 0)
		rc = store_batch_new(lv->st, lv->round, &b, cause);
	if (rc < 0)
		goto out;
	c.b = b;
	c.cause = cause;
	for (size_t i = 0; rc == 0 && i < lv->nbase; i++)
		rc = store_batch_agg(b, &lv->base[i], cause);
	if (rc == 0)
		rc = proctree_snapshot(lv->tree, commit_agg, &c);
	/* a finished round is never continued: no open counts */
	if (rc == 0 && !finished)
		rc = proctree_each_open(lv->tree, commit_open, &c);
	if (rc == 0)
		rc = proctree_each_proc(lv->tree, commit_proc, &c);
	for (int i = 1; rc == 0 && i < PGSC_REJ__COUNT; i++) {
		if (lv->rejects[i] == 0)
			continue;
		rc = store_batch_reject(b, pgsc_reject_name(i), lv->rejects[i],
					cause);
	}
	if (rc == 0 && lv->src->position != NULL)
		rc = lv->src->position(lv);
	if (rc == 0) {
		uint64_t rej = 0;

		for (int i = 1; i < PGSC_REJ__COUNT; i++)
			rej += lv->rejects[i];
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
		return rc;
	}
	/* rejects are added, not replaced: start counting afresh */
	lv->base_rejected = lv->r.rejected;
	memset(lv->rejects, 0, sizeof(lv->rejects));
	/* what exited long enough ago is in the store now, as exited */
	proctree_prune(lv->tree, PRUNE_KEEP_SECS);
	return 0;
}
