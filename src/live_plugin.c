/* SPDX-License-Identifier: PostgreSQL */
/* live_plugin.c - the plugin source: auditd's dispatcher (plugins.d,
 * format = string) on stdin, read in batches, drained by its end. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "feed.h"
#include "live.h"

/*
 * After a short read from auditd, let its socket fill this long before
 * reading again.  Measured (docs/live.md, 200k-record storm, medians of 3
 * interleaved runs): 1 and 2 ms alike, 5 ms 30 % slower, 10 ms 50 %: the
 * socket auditd writes to (a socketpair, so F_SETPIPE_SZ does not apply)
 * fills, and auditd's dispatcher blocks.
 */
#define PLUGIN_BATCH_MS 2

/* The source's state (live.src_priv). */
struct plugin {
	int eof;                    /* stdin ended */
	int short_read;             /* the last read was short: wait */
	int wait;                   /* this turn waited PLUGIN_BATCH_MS */
};

static int
read_fd(struct live *lv, int fd, int *eof, ssize_t *got)
{
	ssize_t n;

	n = read(fd, lv->buf, BUF_SIZE);
	*eof = 0;
	*got = n > 0 ? n : 0;
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0) {
		*eof = 1;
		return 0;
	}
	return feed_bytes(lv->rd.feed, lv->buf, (size_t)n);
}

static int
plugin_open(struct live *lv, const char *spec)
{
	(void)spec;
	lv->source = "plugin";
	lv->src_priv = calloc(1, sizeof(struct plugin));
	if (lv->src_priv == NULL)
		return -ENOMEM;
	if (lv->o->command != NULL) {
		util_cause(lv->cause, "--source plugin reads auditd's "
			   "dispatcher on stdin; it cannot wrap a command");
		return -EINVAL;
	}
	feed_set_source(lv->rd.feed, "stdin", 0, 0);
	if (fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static int
plugin_pollfd(struct live *lv, struct pollfd *pfd, int *timeout)
{
	struct plugin *pl = lv->src_priv;

	if (pl->eof)
		return 0;
	if (pl->short_read) {
		/*
		 * After a short read, let auditd's socket fill for
		 * PLUGIN_BATCH_MS before reading again: a reader woken for
		 * every event makes auditd pay a wake-up per event and slows
		 * its reading of the kernel (measured: a no-op "cat" plugin
		 * ran auditd at 0.6 of its speed alone; pgsc so batching at
		 * about 0.85).  Signals still wake us at once.
		 */
		*timeout = PLUGIN_BATCH_MS;
		pl->short_read = 0;
		pl->wait = 1;
		return 0;
	}
	*pfd = (struct pollfd){ 0, POLLIN, 0 };
	return 1;
}

static int
plugin_read(struct live *lv, short revents, double deadline)
{
	struct plugin *pl = lv->src_priv;
	int rc = 0;

	(void)deadline;
	if (pl->wait || (revents & (POLLIN | POLLHUP))) {
		ssize_t got_bytes = 0;

		rc = read_fd(lv, 0, &pl->eof, &got_bytes);
		pl->short_read = !pl->eof && got_bytes < 64 * 1024;
	}
	pl->wait = 0;
	return rc;
}

/* Drained by reading to the end of stdin: there yet? */
static int
plugin_ended(struct live *lv)
{
	const struct plugin *pl = lv->src_priv;

	return pl->eof;
}

static void
plugin_close(struct live *lv)
{
	free(lv->src_priv);
	lv->src_priv = NULL;
}

const struct live_source live_plugin = {
	.kind = "plugin",
	.open = plugin_open,
	.pollfd = plugin_pollfd,
	.read = plugin_read,
	.ended = plugin_ended,
	.close = plugin_close,
};
