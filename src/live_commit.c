/* SPDX-License-Identifier: PostgreSQL */
/* live_commit.c - one commit of a live round: the kernel's latest
 * figures, the titles from /proc, the round's transaction
 * (round_commit(): base, snapshot of the process tree, rejects, source
 * position), then what exited long ago pruned (docs/live.md). */
#include <errno.h>
#include <string.h>

#include "pgsc-int.h"
#include "feed.h"
#include "netlink.h"
#include "proctree.h"
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
	lv->rd.r.kernel_lost_end = f.lost;
	if (f.has_wait_actual)
		lv->rd.r.backlog_wait_end = f.backlog_wait_time_actual;
}

int
live_commit(struct live *lv, int finished)
{
	int rc;

	update_figures(lv);
	proctree_proc_titles(lv->rd.tree);
	lv->rd.r.lines = lv->rd.base_lines +
			 (feed_lines(lv->rd.feed) - lv->run_lines0);
	rc = round_commit(&lv->rd, finished, lv->cause);
	if (rc < 0)
		return rc;
	/* what exited long enough ago is in the store now, as exited */
	proctree_prune(lv->rd.tree, PRUNE_KEEP_SECS);
	return 0;
}
