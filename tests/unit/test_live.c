/* SPDX-License-Identifier: PostgreSQL */
/* test_live.c - unit tests for the live collector's drain marker: found
 * in whole lines, however the reads split them (docs/security.md §3). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "live.h"

static void
on_record(void *arg, const struct pgsc_record *rec)
{
	(void)arg, (void)rec;
}

static void
on_reject(void *arg, int reason, const struct feed_loc *loc, uint64_t serial,
	  const char *text, size_t len)
{
	(void)arg, (void)reason, (void)loc, (void)serial, (void)text, (void)len;
}

static void
on_line(void *arg, const char *line, size_t len)
{
	live_drain_marker_line(arg, line, len);
}

static const struct feed_ops ops = {
	.record = on_record,
	.reject = on_reject,
	.line = on_line,
};

/* The marker's USER record, as auditd writes it, fed in two reads split
 * at @cut bytes into the marker text; returns whether it was seen. */
static int
feed_split(struct drain_marker *m, const char *text, size_t cut)
{
	char line[512];
	struct feed *f;
	char *cause = NULL;
	size_t at;
	int n;

	n = snprintf(line, sizeof(line), "type=USER msg=audit(1796252190.770:"
		     "77): pid=4242 uid=0 auid=0 ses=1 msg='%s exe=\"/usr/"
		     "bin/pgsc-collect\" hostname=? addr=? terminal=? "
		     "res=success'\n", text);
	assert_true(n > 0 && (size_t)n < sizeof(line));
	at = (size_t)(strstr(line, text) - line) + cut;
	assert_int_equal(feed_new(&ops, m, 0, &f, &cause), 0);
	assert_int_equal(feed_bytes(f, line, at), 0);
	assert_int_equal(feed_bytes(f, line + at, (size_t)n - at), 0);
	feed_free(f);
	/* what the old search in raw reads looked at: neither read holds
	 * the whole marker */
	assert_null(memmem(line, at, m->text, strlen(m->text)));
	assert_null(memmem(line + at, (size_t)n - at, m->text,
			   strlen(m->text)));
	return m->seen;
}

static void
test_marker_split(void **state)
{
	struct drain_marker m = { 0 };

	(void)state;
	live_drain_marker_arm(&m, 0x0123456789abcdefULL);
	assert_true(feed_split(&m, m.text, strlen(m.text) / 2));
	live_drain_marker_arm(&m, 0x0123456789abcdefULL);
	assert_true(feed_split(&m, m.text, 1));
}

static void
test_marker_other_nonce(void **state)
{
	struct drain_marker m = { 0 }, other = { 0 };

	(void)state;
	live_drain_marker_arm(&m, 1);
	live_drain_marker_arm(&other, 2);
	assert_false(feed_split(&m, other.text, 5));
}

static void
test_marker_unarmed(void **state)
{
	struct drain_marker m = { 0 };
	const char line[] = "type=USER msg=audit(1.000:1): msg='x'";

	(void)state;
	live_drain_marker_line(&m, line, sizeof(line) - 1);
	assert_false(m.seen);
}

/* Mark @serial of a line of node @node (NULL: the local host). */
static void
mark(struct serials *s, const char *node, uint64_t serial)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "%s%s%stype=SYSCALL msg=audit("
			 "1.000:%llu): x", node ? "node=" : "",
			 node ? node : "", node ? " " : "",
			 (unsigned long long)serial);
	const char *nd;
	size_t nl;

	assert_true(decode_node(line, (size_t)n, &nd, &nl) >= 0);
	serials_mark(s, serial, nd, nl);
}

/* Two hosts' serials interleaved are two sequences without holes; a hole
 * is its node's; a run ignores serials below its first; a running
 * round's commit counts only holes far enough below the highest. */
static void
test_serials_per_node(void **state)
{
	struct serials s = { 0 };

	(void)state;
	s.bits = calloc(SERIAL_WINDOW / 8, 1);
	assert_non_null(s.bits);
	for (uint64_t i = 0; i < 10000; i++) {
		mark(&s, "a", 1000 + i);
		if (i != 5000)
			mark(&s, "b", 900000 + i);
		mark(&s, NULL, 50 + i);
	}
	assert_int_equal(s.nnodes, 2);
	assert_int_equal(serials_gaps(&s, 0), 1);
	assert_int_equal(serials_gaps(&s, 1), 1);
	mark(&s, "a", 20000);           /* 9000 missing, just now */
	assert_int_equal(serials_gaps(&s, 0), 1 + 9000);
	assert_int_equal(serials_gaps(&s, 1), 1 + 9000 - 4096);
	mark(&s, "b", 100);             /* before b's first: ignored */
	assert_int_equal(serials_gaps(&s, 0), 1 + 9000);
	serials_free(&s);
	assert_null(s.bits);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_marker_split),
		cmocka_unit_test(test_marker_other_nonce),
		cmocka_unit_test(test_marker_unarmed),
		cmocka_unit_test(test_serials_per_node),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
