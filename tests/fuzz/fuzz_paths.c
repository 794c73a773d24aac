/* SPDX-License-Identifier: PostgreSQL */
/* fuzz_paths.c - libFuzzer harness: one truth for both parse paths.  The
 * same bytes go through the fast path and the auparse-only path
 * (--no-fast-path); both must deliver the same SECCOMP records and reject
 * the same number of lines for each reason (docs/design.md §5).  The input
 * is cut at an input-chosen point, like fuzz_feed.  A third run is the
 * fast path with each piece decoded ahead (ahead.c, the import's reading
 * thread): its records must be the fast path's, every field of every
 * record. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pgsc-int.h"
#include "ahead.h"
#include "feed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct tally {
	uint64_t seccomp;
	uint64_t sum;                   /* of serial, time and number */
	uint64_t rejects[PGSC_REJ__COUNT];
	uint64_t full;                  /* every field, every record: only
					 * the two fast paths must agree */
};

static uint64_t
mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

/* The record up to node[] and from pid to comm[], then its strings (the
 * bytes after a string's NUL are not the record's). */
static uint64_t
rec_hash(uint64_t h, const struct pgsc_record *r)
{
	size_t pid = offsetof(struct pgsc_record, pid);
	size_t comm = offsetof(struct pgsc_record, comm);

	h = mix(h, r, offsetof(struct pgsc_record, node));
	h = mix(h, r->node, strlen(r->node) + 1);
	h = mix(h, (const char *)r + pid, comm - pid);
	h = mix(h, r->comm, strlen(r->comm) + 1);
	h = mix(h, r->exe, strlen(r->exe) + 1);
	h = mix(h, r->title, strlen(r->title) + 1);
	return mix(h, &r->argc, sizeof(r->argc));
}

static void
on_record(void *arg, const struct pgsc_record *rec)
{
	struct tally *t = arg;

	t->full = rec_hash(t->full * 31 + 7, rec);
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

/* One piece, decoded ahead first when @ck is given. */
static void
piece(struct feed *f, struct ahead_chunk *ck, const uint8_t *p, size_t n)
{
	if (ck != NULL)
		ahead_chunk_decode(ck, (const char *)p, n);
	feed_bytes_ahead(f, (const char *)p, n, ck);
}

static void
run(const uint8_t *data, size_t size, size_t cut, int no_fast_path,
    int ahead, struct tally *t)
{
	static const struct feed_ops ops = { on_record, on_reject, NULL };
	struct feed *f = NULL;
	struct ahead_chunk *ck = NULL;

	if (ahead && (ck = ahead_chunk_new()) == NULL)
		return;
	if (feed_new(&ops, t, no_fast_path, &f, NULL) < 0) {
		ahead_chunk_free(ck);
		return;
	}
	piece(f, ck, data, cut);
	piece(f, ck, data + cut, size - cut);
	feed_end_source(f);
	feed_flush(f);
	feed_free(f);
	ahead_chunk_free(ck);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tally a, b, c;
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
	memset(&c, 0, sizeof(c));
	run(data, size, cut, 0, 0, &a);
	run(data, size, cut, 1, 0, &b);
	run(data, size, cut, 0, 1, &c);
	if (memcmp(&a, &c, sizeof(a)) != 0)
		__builtin_trap();
	a.full = b.full = 0;
	if (memcmp(&a, &b, sizeof(a)) != 0)
		__builtin_trap();
	return 0;
}
