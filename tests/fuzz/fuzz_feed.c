/* SPDX-License-Identifier: PostgreSQL */
/* fuzz_feed.c - libFuzzer harness for the whole parsing path: bytes
 * through the feed (libauparse and the fast path), the process tree and
 * the aggregates, split at an input-chosen point. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pgsc-int.h"
#include "feed.h"
#include "proctree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
on_record(void *arg, const struct pgsc_record *rec)
{
	proctree_record(arg, rec);
}

static void
on_reject(void *arg, int reason, const struct feed_loc *loc, uint64_t serial,
	  const char *text, size_t len)
{
	(void)arg, (void)loc, (void)serial, (void)text, (void)len;
	if (reason <= 0 || reason >= PGSC_REJ__COUNT)
		__builtin_trap();
}

static void
on_end(void *arg)
{
	proctree_event_end(arg);
}

static int
on_agg(void *arg, const struct role_agg *a)
{
	(void)arg;
	if (a->role == NULL || a->count == 0)
		__builtin_trap();
	return 0;
}

static int
on_proc(void *arg, const struct proc_info *p)
{
	(void)arg;
	if (p->role == NULL)
		__builtin_trap();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct feed_ops ops = { on_record, on_reject, on_end };
	struct proctree *t = NULL;
	struct feed *f = NULL;
	size_t cut;

	if (size < 2)
		return 0;
	if (proctree_new(NULL, &t) < 0 ||
	    feed_new(&ops, t, data[0] & 1, &f, NULL) < 0)
		goto out;
	cut = data[1] % size;
	data += 2;
	size -= 2;
	if (cut > size)
		cut = size;
	feed_bytes(f, (const char *)data, cut);
	feed_bytes(f, (const char *)data + cut, size - cut);
	feed_end_source(f);
	feed_flush(f);
	proctree_finish(t);
	proctree_each_agg(t, on_agg, NULL);
	proctree_each_proc(t, on_proc, NULL);
out:
	feed_free(f);
	proctree_free(t);
	return 0;
}
