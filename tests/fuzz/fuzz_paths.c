/* SPDX-License-Identifier: PostgreSQL */
/* fuzz_paths.c - libFuzzer harness: one truth for both parse paths.  The
 * same bytes go through the fast path and the auparse-only path
 * (--no-fast-path); both must deliver the same SECCOMP records and reject
 * the same number of lines for each reason (docs/design.md §5).  The input
 * is cut at an input-chosen point, like fuzz_feed. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pgsc-int.h"
#include "feed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct tally {
	uint64_t seccomp;
	uint64_t sum;                   /* of serial, time and number */
	uint64_t rejects[PGSC_REJ__COUNT];
};

static void
on_record(void *arg, const struct pgsc_record *rec)
{
	struct tally *t = arg;

	if (rec->type != PGSC_REC_SECCOMP)
		return;
	t->seccomp++;
	t->sum += rec->serial * 31 + (uint64_t)rec->sec * 7 +
		  (uint64_t)rec->msec + (uint64_t)rec->syscall * 131 +
		  (uint64_t)rec->pid * 17 + rec->arch;
}

static void
on_reject(void *arg, int reason, const struct feed_loc *loc, uint64_t serial,
	  const char *text, size_t len)
{
	struct tally *t = arg;

	(void)loc, (void)serial, (void)text, (void)len;
	if (reason <= 0 || reason >= PGSC_REJ__COUNT)
		__builtin_trap();
	t->rejects[reason]++;
}

static void
run(const uint8_t *data, size_t size, size_t cut, int no_fast_path,
    struct tally *t)
{
	static const struct feed_ops ops = { on_record, on_reject, NULL };
	struct feed *f = NULL;

	if (feed_new(&ops, t, no_fast_path, &f, NULL) < 0)
		return;
	feed_bytes(f, (const char *)data, cut);
	feed_bytes(f, (const char *)data + cut, size - cut);
	feed_end_source(f);
	feed_flush(f);
	feed_free(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tally a, b;
	size_t cut;

	if (size < 1)
		return 0;
	cut = data[0] % size;
	data++;
	size--;
	if (cut > size)
		cut = size;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	run(data, size, cut, 0, &a);
	run(data, size, cut, 1, &b);
	if (memcmp(&a, &b, sizeof(a)) != 0)
		__builtin_trap();
	return 0;
}
