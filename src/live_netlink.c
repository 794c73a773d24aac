/* SPDX-License-Identifier: PostgreSQL */
/* live_netlink.c - the netlink source: the kernel itself, pgsc
 * registered as the audit daemon (the socket is netlink.c's). */
#include <errno.h>
#include <stdio.h>

#include "pgsc-int.h"
#include "live.h"

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
	long n;

	(void)revents, (void)deadline;
	for (;;) {
		int rc;

		n = netlink_read(lv->nl, lv->buf, BUF_SIZE);
		if (n == -ENOBUFS) {
			if (lv->overruns++ == 0 && !lv->o->quiet)
				fprintf(lv->diag, "pgsc: warning: the netlink "
					"socket overran (we were too slow); "
					"the kernel retries, and what it drops "
					"counts as serial gaps\n");
			continue;
		}
		if (n <= 0)
			break;
		rc = feed_bytes(lv->feed, lv->buf, (size_t)n);
		if (rc < 0)
			return rc;
	}
	return n < 0 ? (int)n : 0;
}

static int
nl_source_open(struct live *lv, const char *spec)
{
	int rc;

	(void)spec;
	lv->source = "netlink";
	rc = netlink_open(8192, 60000, &lv->nl, lv->cause);
	if (rc == 0)
		feed_set_source(lv->feed, "netlink", 0, 0);
	return rc;
}

static int
nl_source_pollfd(struct live *lv, struct pollfd *pfd, int *timeout)
{
	(void)timeout;
	*pfd = (struct pollfd){ netlink_fd(lv->nl), POLLIN, 0 };
	return 1;
}

static void
nl_source_close(struct live *lv)
{
	netlink_close(lv->nl);
	lv->nl = NULL;
}

const struct live_source live_netlink = {
	.kind = "netlink",
	.audit_daemon = 1,
	.open = nl_source_open,
	.pollfd = nl_source_pollfd,
	.read = nl_source_read,
	.close = nl_source_close,
};
