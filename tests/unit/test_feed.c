/* SPDX-License-Identifier: PostgreSQL */
/* test_feed.c - unit tests for feed.c: zeroed blocks and over-long lines
 * at any chunk boundary, and both parse paths counting alike. */
#include "unit.h"
#include "ahead.h"
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
	uint64_t full;              /* every field of every record */
	int rejects[PGSC_REJ__COUNT];
	uint64_t reject_line[8];
	int nreject_line;
};

static uint64_t
mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

#define MIX(h, v) mix((h), &(v), sizeof(v))

/* Every field a record carries, strings up to their NUL. */
static uint64_t
rec_hash(uint64_t h, const struct pgsc_record *r)
{
	h = MIX(h, r->type);
	h = MIX(h, r->type_num);
	h = MIX(h, r->sec);
	h = MIX(h, r->msec);
	h = MIX(h, r->serial);
	h = MIX(h, r->has_node);
	h = mix(h, r->node, strlen(r->node) + 1);
	h = MIX(h, r->pid);
	h = MIX(h, r->ppid);
	h = MIX(h, r->uid);
	h = MIX(h, r->arch);
	h = MIX(h, r->has_arch);
	h = MIX(h, r->syscall);
	h = MIX(h, r->compat);
	h = MIX(h, r->code);
	h = MIX(h, r->success);
	h = MIX(h, r->exit);
	h = MIX(h, r->has_exit);
	h = MIX(h, r->a0);
	h = MIX(h, r->a1);
	h = MIX(h, r->a2);
	h = MIX(h, r->a3);
	h = mix(h, r->comm, strlen(r->comm) + 1);
	h = mix(h, r->exe, strlen(r->exe) + 1);
	h = mix(h, r->title, strlen(r->title) + 1);
	return MIX(h, r->argc);
}

static void
on_record(void *arg, const struct pgsc_record *rec)
{
	struct tally *t = arg;

	t->full = rec_hash(t->full * 31 + 7, rec);
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

enum path { FAST, AUPARSE, AHEAD, NPATHS };
static const char *const path_names[NPATHS] = { "fast", "auparse", "ahead" };

/* Feed @data in chunks of @chunk bytes through one path: the fast path,
 * auparse, or the fast path with each chunk decoded ahead (ahead.c, as
 * the import's reading thread does). */
static struct tally
run(const char *data, size_t len, size_t chunk, enum path path,
    size_t *pending)
{
	static const struct feed_ops ops = { on_record, on_reject, NULL };
	struct tally t;
	struct feed *f;
	struct ahead_chunk *ck = NULL;

	memset(&t, 0, sizeof(t));
	assert_int_equal(feed_new(&ops, &t, path == AUPARSE, &f, NULL), 0);
	if (path == AHEAD)
		assert_non_null(ck = ahead_chunk_new());
	for (size_t off = 0; off < len; off += chunk) {
		size_t n = len - off < chunk ? len - off : chunk;

		if (ck != NULL)
			ahead_chunk_decode(ck, data + off, n);
		assert_int_equal(feed_bytes_ahead(f, data + off, n, ck), 0);
	}
	ahead_chunk_free(ck);
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
		for (int path = 0; path < NPATHS; path++) {
			struct tally t = run(data, len, chunks[c], path, NULL);
			int all = 0;

			for (int i = 0; i < PGSC_REJ__COUNT; i++)
				all += t.rejects[i];
			if (t.seccomp != seccomp || t.serials != serials ||
			    t.rejects[reason] != nrej || all != nrej ||
			    (nrej > 0 && t.reject_line[0] != line))
				fail_msg("chunk %zu, %s: %d records (serials %llu), "
					 "%d %s of %d rejects, line %llu",
					 chunks[c], path_names[path],
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
	for (int path = 0; path < NPATHS; path++) {
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

/* A whole file into memory. */
static char *
slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *b = NULL;
	long n;

	if (fp == NULL)
		fail_msg("cannot open %s", path);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	n = ftell(fp);
	assert_true(n >= 0);
	rewind(fp);
	assert_non_null(b = malloc((size_t)n + 1));
	assert_int_equal(fread(b, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	*len = (size_t)n;
	return b;
}

/*
 * The reading thread's records (ahead.c) are the feed's own, field for
 * field, rejects and their lines included: the hostile fixtures and the
 * import fixture, plus lines made for the slots' edges (node=, an enriched
 * line, CRLF, UNKNOWN[1326], a hex comm, a long exe, a title-bearing
 * record type, a NUL piece), cut at sizes that put line ends at every
 * place of a piece.
 */
static void
test_ahead_same(void **state)
{
	static const char *const names[] = {
		"unit/import-small.log", "bad/args.log", "bad/bad-syscall.log",
		"bad/bad-time.log", "bad/binary.log", "bad/cut-header.log",
		"bad/fields.log", "bad/hostile-text.log", "bad/huge-field.log",
		"bad/long-head.log", "bad/nul-head-small.log", "bad/nul-head.log",
		"bad/nul-middle.log", "bad/truncated.log", "bad/unknown-arch.log",
		"bad/unknown-type.log", NULL,
	};
	static const char made[] =
		"node=db1 type=SECCOMP msg=audit(1796252190.770:11): auid=4294967295 "
		"uid=101 gid=104 ses=4294967295 pid=3514 comm=\"postgres\" "
		"exe=\"/usr/lib/postgresql/15/bin/postgres\" sig=0 arch=c000003e "
		"syscall=39 compat=0 ip=0x7f5670d054e7 code=0x7ffc0000\n"
		"type=SECCOMP msg=audit(1796252190.771:12): auid=4294967295 "
		"uid=101 gid=104 ses=4294967295 pid=3515 comm=706F737467726573 "
		"exe=\"/usr/lib/postgresql/15/bin/postgres\" sig=0 arch=40000003 "
		"syscall=122 compat=1 ip=0xf7f0 code=0x7ffc0000\x1d" "AUID=\"unset\" "
		"UID=\"postgres\" ARCH=i386 SYSCALL=uname\r\n"
		"type=UNKNOWN[1326] msg=audit(1796252190.772:13): pid=3516 "
		"comm=\"x\" exe=\"/x\" arch=c000003e syscall=0 compat=0 "
		"code=0x7ffc0000\n"
		"type=SYSCALL msg=audit(1796252190.773:14): arch=c000003e "
		"syscall=56 success=yes exit=3517 a0=1200011 a1=0 a2=0 a3=0 "
		"ppid=1 pid=3516 auid=4294967295 uid=101 comm=\"x\" exe=\"/x\"\n"
		"type=PROCTITLE msg=audit(1796252190.773:14): proctitle=2F78\n"
		"type=SECCOMP msg=audit(1796252190.774:15): pid=3517 comm=\"y\" "
		"exe=\"/usr/lib/postgresql/15/bin/"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"\" arch=c000003e syscall=1023 compat=0 code=0x7ffc0000\n"
		"type=SECCOMP msg=audit(1796252190.775:16): pid=3517 comm=\"y\" "
		"exe=\"/y\" arch=c000003e syscall=2 compat=0 code=0x7ffc0000\n";
	static const size_t sizes[] = { 1, 7, 100, 333, 4096, 65536 };
	char path[4096];
	size_t compared = 0;

	(void)state;
	for (size_t i = 0; i <= ARRAY_SIZE(names) - 1; i++) {
		size_t len;
		char *data;

		if (names[i] != NULL) {
			unit_fixture_path(path, sizeof(path), names[i]);
			data = slurp(path, &len);
		} else {
			/* the made lines, then a piece with a NUL byte */
			len = sizeof(made) - 1;
			assert_non_null(data = malloc(2 * len + 1));
			memcpy(data, made, len);
			memcpy(data + len, made, len);
			data[len + 40] = '\0';
			len *= 2;
		}
		for (size_t c = 0; c < ARRAY_SIZE(sizes); c++) {
			struct tally a, b;

			if (sizes[c] < 100 && len > 200000)
				continue;
			a = run(data, len, sizes[c], FAST, NULL);
			b = run(data, len, sizes[c], AHEAD, NULL);
			if (memcmp(&a, &b, sizeof(a)) != 0)
				fail_msg("%s, pieces of %zu: fast %d records, "
					 "ahead %d (fields %s)",
					 names[i] ? names[i] : "made lines",
					 sizes[c], a.seccomp, b.seccomp,
					 a.full == b.full ? "same" : "differ");
			compared += (size_t)a.seccomp;
		}
		free(data);
	}
	/* the fixtures were read, not skipped */
	assert_true(compared > 1000);
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
		cmocka_unit_test(test_ahead_same),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
