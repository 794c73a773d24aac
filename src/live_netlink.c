/* SPDX-License-Identifier: PostgreSQL */
/* live_netlink.c - the netlink source: the kernel itself, pgsc
 * registered as the audit daemon (the socket is netlink.c's); its
 * overruns, a gap of the round. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "pgsc-int.h"
#include "feed.h"
#include "netlink.h"
#include "store.h"
#include "live.h"

/* The source's state (live.src_priv). */
struct nl_source {
	struct netlink *nl;
	uint64_t overruns;          /* socket overruns seen, not yet said
				     * in the gaps table */
};

/*
 * An overrun (ENOBUFS) of the daemon socket is not fatal: the kernel sends
 * to its daemon without waiting, and a record that finds the socket full
 * goes to kauditd's retry queue, to be sent again.  Only records that the
 * kernel finally gives up on are lost, and those show as serial gaps (and,
 * on a kernel booted with audit=1, in "lost").  So count it, say it once,
 * and go on reading: stopping would lose everything after.
 */
static int
nl_source_read(struct live *lv, short revents, double deadline)
{
	struct nl_source *ns = lv->src_priv;
	long n;

	(void)revents, (void)deadline;
	for (;;) {
		int rc;

		n = netlink_read(ns->nl, lv->buf, BUF_SIZE);
		if (n == -ENOBUFS) {
			if (ns->overruns++ == 0 && !lv->o->quiet)
				util_diag(lv->diag, "warning: the netlink "
					"socket overran (we were too slow); "
					"the kernel retries, and what it drops "
					"counts as serial gaps\n");
			continue;
		}
		if (n <= 0)
			break;
		rc = feed_bytes(lv->rd.feed, lv->buf, (size_t)n);
		if (rc < 0)
			return rc;
	}
	return n < 0 ? (int)n : 0;
}

static int
nl_source_open(struct live *lv, const char *spec)
{
	struct nl_source *ns;
	int rc;

	(void)spec;
	lv->source = "netlink";
	ns = calloc(1, sizeof(*ns));
	if (ns == NULL)
		return -ENOMEM;
	lv->src_priv = ns;
	rc = netlink_open(8192, 60000, &ns->nl, lv->cause);
	if (rc == 0)
		feed_set_source(lv->rd.feed, "netlink", 0, 0);
	return rc;
}

static int
nl_source_pollfd(struct live *lv, struct pollfd *pfd, int *timeout)
{
	struct nl_source *ns = lv->src_priv;

	(void)timeout;
	*pfd = (struct pollfd){ netlink_fd(ns->nl), POLLIN, 0 };
	return 1;
}

/* Before the last commit: the overruns, a gap of the round (once: a last
 * commit that fails is tried again). */
static void
nl_source_last(struct live *lv, double now)
{
	struct nl_source *ns = lv->src_priv;
	char detail[160];

	if (ns->overruns == 0)
		return;
	snprintf(detail, sizeof(detail), "the netlink socket overran %llu "
		 "times; records the kernel dropped are serial gaps",
		 (unsigned long long)ns->overruns);
	store_gap(lv->st, lv->rd.id, "overrun", now, detail, NULL);
	ns->overruns = 0;
}

static void
nl_source_close(struct live *lv)
{
	struct nl_source *ns = lv->src_priv;

	if (ns == NULL)
		return;
	netlink_close(ns->nl);
	free(ns);
	lv->src_priv = NULL;
}

const struct live_source live_netlink = {
	.kind = "netlink",
	.audit_daemon = 1,
	.open = nl_source_open,
	.pollfd = nl_source_pollfd,
	.read = nl_source_read,
	.last = nl_source_last,
	.close = nl_source_close,
};
