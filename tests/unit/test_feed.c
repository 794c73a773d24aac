/* SPDX-License-Identifier: PostgreSQL */
/* test_feed.c - unit tests for feed.c: zeroed blocks and over-long lines
 * at any chunk boundary, and both parse paths counting alike. */
#include "unit.h"
#include "feed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REC(ser) "type=SECCOMP msg=audit(1796252190.770:" #ser "): pid=3514 " \
	"comm=\"postgres\" exe=\"/usr/lib/postgresql/15/bin/postgres\" " \
	"arch=c000003e syscall=39 compat=0 code=0x7ffc0000\n"

struct tally {
	int seccomp;
	uint64_t serials;
	int rejects[PGSC_REJ__COUNT];
	uint64_t reject_line[8];
	int nreject_line;
};

static void
on_record(void *arg, const struct pgsc_record *rec)
{
	struct tally *t = arg;

	if (rec->type == PGSC_REC_SECCOMP) {
		t->seccomp++;
		t->serials += rec->serial;
	}
}

static void
on_reject(void *arg, int reason, const struct feed_loc *loc, uint64_t serial,
	  const char *text, size_t len)
{
	struct tally *t = arg;

	(void)serial, (void)text, (void)len;
	assert_true(reason > 0 && reason < PGSC_REJ__COUNT);
	t->rejects[reason]++;
	if (t->nreject_line < 8)
		t->reject_line[t->nreject_line++] = loc->line;
}

/* Feed @data in chunks of @chunk bytes through one path. */
static struct tally
run(const char *data, size_t len, size_t chunk, int no_fast_path,
    size_t *pending)
{
	static const struct feed_ops ops = { on_record, on_reject, NULL };
	struct tally t;
	struct feed *f;

	memset(&t, 0, sizeof(t));
	assert_int_equal(feed_new(&ops, &t, no_fast_path, &f, NULL), 0);
	for (size_t off = 0; off < len; off += chunk)
		assert_int_equal(feed_bytes(f, data + off, len - off < chunk ?
					    len - off : chunk), 0);
	if (pending)
		*pending = feed_pending(f);
	feed_end_source(f);
	feed_flush(f);
	feed_free(f);
	return t;
}

/* A buffer: @head, @nzero NUL bytes, @fill bytes of 'x', then @tail. */
static char *
make(const char *head, size_t nzero, size_t fill, const char *tail,
     size_t *len)
{
	size_t hl = strlen(head), tl = strlen(tail);
	char *b = malloc(hl + nzero + fill + tl);

	assert_non_null(b);
	memcpy(b, head, hl);
	memset(b + hl, 0, nzero);
	memset(b + hl + nzero, 'x', fill);
	memcpy(b + hl + nzero + fill, tail, tl);
	*len = hl + nzero + fill + tl;
	return b;
}

static const size_t chunks[] = { 1, 7, 4096, 65536, 65537, 1 << 20 };

static void
check_both(const char *data, size_t len, int seccomp, uint64_t serials,
	   int reason, int nrej, uint64_t line)
{
	for (size_t c = 0; c < ARRAY_SIZE(chunks); c++) {
		if (chunks[c] == 1 && len > 300000)
			continue;
		for (int path = 0; path < 2; path++) {
			struct tally t = run(data, len, chunks[c], path, NULL);
			int all = 0;

			for (int i = 0; i < PGSC_REJ__COUNT; i++)
				all += t.rejects[i];
			if (t.seccomp != seccomp || t.serials != serials ||
			    t.rejects[reason] != nrej || all != nrej ||
			    (nrej > 0 && t.reject_line[0] != line))
				fail_msg("chunk %zu, %s: %d records (serials %llu), "
					 "%d %s of %d rejects, line %llu",
					 chunks[c], path ? "auparse" : "fast",
					 t.seccomp, (unsigned long long)t.serials,
					 t.rejects[reason], pgsc_reject_name(reason),
					 all, (unsigned long long)t.reject_line[0]);
		}
	}
}

/* A zeroed block glued to a record, short and over 64 KiB, first in the
 * file and between records: the block is one binary reject, the record
 * after it is kept. */
static void
test_zeroed_block(void **state)
{
	size_t len;
	char *b;

	(void)state;
	b = make("", 3000, 0, REC(2) REC(3), &len);
	check_both(b, len, 2, 5, PGSC_REJ_BINARY, 1, 1);
	free(b);
	b = make("", 100000, 0, REC(2) REC(3), &len);
	check_both(b, len, 2, 5, PGSC_REJ_BINARY, 1, 1);
	free(b);
	b = make(REC(1), 200000, 0, REC(2) REC(3), &len);
	check_both(b, len, 3, 6, PGSC_REJ_BINARY, 1, 2);
	free(b);
	/* a block followed by its own newline */
	b = make(REC(1), 70000, 0, "\n" REC(2), &len);
	check_both(b, len, 2, 3, PGSC_REJ_BINARY, 1, 2);
	free(b);
	/* NUL bytes inside a record: the record is not saved by its tail */
	b = make("type=SECCOMP msg=audit(1796252190.770:1): pid=1 ", 10, 0,
		 "arch=c000003e syscall=39\n" REC(2), &len);
	check_both(b, len, 1, 2, PGSC_REJ_BINARY, 1, 1);
	free(b);
}

/* Over-long lines: one too-long reject, neighbours exact; garbage after a
 * block that is itself too long to be a record is not read as one. */
static void
test_too_long(void **state)
{
	size_t len;
	char *b;

	(void)state;
	b = make(REC(1), 0, 70000, "\n" REC(2), &len);
	check_both(b, len, 2, 3, PGSC_REJ_TOO_LONG, 1, 2);
	free(b);
	b = make("", 0, 70000, "\n" REC(2), &len);
	check_both(b, len, 1, 2, PGSC_REJ_TOO_LONG, 1, 1);
	free(b);
	/* zeros, then 70,000 bytes of text: no record, one binary reject */
	b = make(REC(1), 10, 70000, "\n" REC(2), &len);
	check_both(b, len, 2, 3, PGSC_REJ_BINARY, 1, 2);
	free(b);
}

/* An incomplete last line is held back, whatever its length. */
static void
test_pending(void **state)
{
	size_t len, pending;
	char *b;

	(void)state;
	b = make(REC(1), 100000, 0, "type=SECCOMP msg=audit(1796252", &len);
	run(b, len, 4096, 0, &pending);
	assert_int_equal(pending, len - strlen(REC(1)));
	free(b);
}

/* Times past 9999-12-31: rejected the same way by both paths (the
 * auparse path used to drop one near 2^63 without a word). */
static void
test_bad_time(void **state)
{
	static const char data[] =
		REC(1)
		"type=SECCOMP msg=audit(9223372036854775806.535:2): pid=3514 "
		"arch=c000003e syscall=39\n"
		"type=SECCOMP msg=audit(253402300800.000:3): pid=3514 "
		"arch=c000003e syscall=39\n"
		"type=SECCOMP msg=audit(253402300799.999:4): pid=3514 "
		"arch=c000003e syscall=39\n"
		"type=SYSCALL msg=audit(99999999999999.000:5): arch=c000003e "
		"syscall=56 success=yes exit=10 pid=1 ppid=0\n";

	(void)state;
	for (int path = 0; path < 2; path++) {
		struct tally t = run(data, sizeof(data) - 1, 1 << 20, path, NULL);

		assert_int_equal(t.seccomp, 2);
		assert_int_equal(t.serials, 5);
		assert_int_equal(t.rejects[PGSC_REJ_BAD_TIME], 3);
	}
}

/* Headers libauparse would drop without a word (a msg=audit(...) token
 * it sees shorter than 19 bytes or past its 80-byte window, an empty
 * node=), and a record cut inside its header at \x1d (auparse hands it
 * over cut): refused and counted, alike on both paths, whatever the type
 * and whether the assembler keeps the record. */
static void
test_auparse_headers(void **state)
{
	static const char *const bad[] = {
		"type=SECCOMP msg=audit(1.0:1): pid=3514 arch=c000003e "
		"syscall=39 compat=0 code=0x7ffc0000\n",
		"type=SYSCALL msg=audit(1.3:56): arch=c000003e syscall=56 "
		"pid=1 exit=3\n",
		"type=PATH msg=audit(1.2:3): item=0\n",
		"type=A_TYPE_NAME_LONG_ENOUGH_TO_PUSH_THE_MSG_TOKEN_OUT_OF_"
		"AUPARSE_S_WINDOW msg=audit(1796252190.770:7): pid=1\n",
		"node= type=SECCOMP msg=audit(1796252190.770:8): pid=3514 "
		"arch=c000003e syscall=39 compat=0 code=0x7ffc0000\n",
		"type=SEC\x1dOMP msg=audit(1796252190.770:9): pid=1\n",
		"node=a\x1d" "b type=SYSCALL msg=audit(1796252190.770:10): "
		"arch=c000003e syscall=56 pid=1 exit=3\n",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char buf[512];
		int n = snprintf(buf, sizeof(buf), "%s%s", bad[i], REC(2));

		check_both(buf, (size_t)n, 1, 2, PGSC_REJ_NO_HEADER, 1, 1);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zeroed_block),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_pending),
		cmocka_unit_test(test_bad_time),
		cmocka_unit_test(test_auparse_headers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
