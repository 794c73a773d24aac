/* SPDX-License-Identifier: PostgreSQL */
/* test_assemble.c - unit tests for assemble.c: events grouped as
 * libauparse groups them (held, ended, timed out, bounded), and the
 * default path's events against the auparse path's on the same bytes. */
#include "unit.h"
#include "feed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the assembler handed over: each event as "serial/type ..." of its
 * records, in order. */
struct got {
	char ev[512][128];
	size_t n;
};

static void
on_event(void *arg, const char *buf, const struct asm_rec *r, size_t n)
{
	struct got *g = arg;
	char *s = g->ev[g->n++];

	s[0] = '\0';
	assert_true(n >= 1);
	for (size_t i = 0; i < n; i++) {
		const char *t = buf + r[i].off;
		const char *ty = memmem(t, r[i].len, "type=", 5);
		size_t tl;

		assert_non_null(ty);
		ty += 5;
		tl = (size_t)((const char *)memchr(ty, ' ', r[i].len) - ty);
		snprintf(s + strlen(s), 128 - strlen(s), "%s%llu/%.*s",
			 i ? " " : "", (unsigned long long)r[i].serial,
			 (int)tl, ty);
		/* the record's own line, without its newline */
		assert_int_equal(t[r[i].len - 1], '5');
	}
}

/* Hand @lines (one string, '\n' between lines) to @a as feed.c does. */
static void
give(struct assemble *a, const char *lines)
{
	const char *p = lines;
	uint64_t no = 0;

	while (*p != '\0') {
		size_t len = strcspn(p, "\n");
		int type_num, t;
		const char *tn;
		size_t tl;
		int64_t sec;
		int msec;
		uint64_t serial;
		struct feed_loc loc = { "test", ++no, 0 };

		t = decode_header(p, len, &type_num, &tn, &tl, &sec, &msec,
				  &serial);
		assert_true(t >= 0);
		if (t == PGSC_REC_SECCOMP) {
			assemble_tick(a, sec);
		} else {
			struct assemble_key k = { sec, msec, serial, NULL, 0 };
			int rc;

			(void)decode_node(p, len, &k.node, &k.nlen);
			rc = assemble_line(a, &k, t, type_num, tn, tl, p, len,
					   &loc);
			/* 0: a lone EOE, dropped as auparse drops it */
			assert_int_equal(rc, t == PGSC_REC_EOE &&
					     memmem(p, len, ":5)", 3) != NULL ?
					     0 : 1);
		}
		p += len;
		if (*p == '\n')
			p++;
	}
}

#define L(type, t, ser) "type=" type " msg=audit(" t ":" #ser "): pid=5\n"

static void
test_grouping(void **state)
{
	static struct got g;
	struct assemble *a;

	(void)state;
	memset(&g, 0, sizeof(g));
	assert_int_equal(assemble_new(on_event, &g, &a), 0);
	/* a fork: SYSCALL, PATH, PROCTITLE; handed over at PROCTITLE */
	give(a, L("SYSCALL", "100.000", 1) L("PATH", "100.000", 1));
	assert_int_equal(g.n, 0);
	assert_true(assemble_busy(a));
	give(a, L("PROCTITLE", "100.000", 1));
	assert_int_equal(g.n, 1);
	assert_string_equal(g.ev[0], "1/SYSCALL 1/PROCTITLE");
	assert_false(assemble_busy(a));
	/* two events interleaved; an exec's EXECVE */
	give(a, L("SYSCALL", "100.001", 2) L("SYSCALL", "100.001", 3)
		   L("EXECVE", "100.001", 3) L("PROCTITLE", "100.001", 3)
		   L("CWD", "100.001", 2) L("PROCTITLE", "100.001", 2));
	assert_int_equal(g.n, 3);
	assert_string_equal(g.ev[1], "3/SYSCALL 3/EXECVE 3/PROCTITLE");
	assert_string_equal(g.ev[2], "2/SYSCALL 2/PROCTITLE");
	/* EOE ends an event (netlink); a lone EOE is nothing; a record of
	 * another type alone starts no event */
	give(a, L("SYSCALL", "100.002", 4) L("EOE", "100.002", 4)
		   L("EOE", "100.002", 5) L("PATH", "100.002", 6)
		   L("USER_START", "100.002", 7));
	assert_int_equal(g.n, 4);
	assert_string_equal(g.ev[3], "4/SYSCALL");
	assert_false(assemble_busy(a));
	/* a one-record type of auparse's (USER_*, below 1300) ends the
	 * event it joins; a record of a type libaudit does not know too */
	give(a, L("SYSCALL", "100.003", 8) L("USER_ACCT", "100.003", 8)
		   L("PROCTITLE", "100.003", 8) L("SYSCALL", "100.003", 9)
		   L("NO_SUCH_TYPE", "100.003", 9));
	assert_int_equal(g.n, 7);
	assert_string_equal(g.ev[4], "8/SYSCALL");
	assert_string_equal(g.ev[5], "8/PROCTITLE");
	assert_string_equal(g.ev[6], "9/SYSCALL");
	/* the same serial at another time, or on another node, is another
	 * event */
	give(a, L("SYSCALL", "100.004", 10) L("PROCTITLE", "100.005", 10)
		   "node=a " L("SYSCALL", "100.004", 10)
		   "node=b " L("PROCTITLE", "100.004", 10)
		   "node=a " L("PROCTITLE", "100.004", 10));
	assert_int_equal(g.n, 10);
	assert_string_equal(g.ev[7], "10/PROCTITLE");
	assert_string_equal(g.ev[8], "10/PROCTITLE");
	assert_string_equal(g.ev[9], "10/SYSCALL 10/PROCTITLE");
	assemble_flush(a);
	assert_int_equal(g.n, 11);
	assert_string_equal(g.ev[10], "10/SYSCALL");
	assemble_free(a);
}

/* An event never ended waits end_of_event_timeout (2 s) of log time,
 * SECCOMP lines' time included; what ends together goes oldest first. */
static void
test_timeout(void **state)
{
	static struct got g;
	struct assemble *a;

	(void)state;
	memset(&g, 0, sizeof(g));
	assert_int_equal(assemble_new(on_event, &g, &a), 0);
	give(a, L("SYSCALL", "100.500", 2) L("SYSCALL", "100.100", 3)
		   L("SYSCALL", "101.900", 4) L("SECCOMP", "101.999", 5));
	assert_int_equal(g.n, 0);
	give(a, L("SECCOMP", "102.000", 6));
	assert_int_equal(g.n, 2);
	assert_string_equal(g.ev[0], "3/SYSCALL");
	assert_string_equal(g.ev[1], "2/SYSCALL");
	give(a, L("PATH", "103.000", 7));
	assert_int_equal(g.n, 3);
	assert_string_equal(g.ev[2], "4/SYSCALL");
	assert_false(assemble_busy(a));
	assemble_free(a);
}

/* At most 256 events are held: the oldest goes when one more opens. */
static void
test_bound(void **state)
{
	static struct got g;
	struct assemble *a;
	char line[128];

	(void)state;
	memset(&g, 0, sizeof(g));
	assert_int_equal(assemble_new(on_event, &g, &a), 0);
	for (int i = 1; i <= 300; i++) {
		snprintf(line, sizeof(line),
			 "type=SYSCALL msg=audit(100.%03d:%d): pid=5", i % 1000,
			 i);
		give(a, line);
	}
	/* 300 opened, 256 held: the 44 oldest went as newer ones came */
	assert_int_equal(g.n, 44);
	assert_string_equal(g.ev[0], "1/SYSCALL");
	assert_string_equal(g.ev[43], "44/SYSCALL");
	assemble_flush(a);
	assert_int_equal(g.n, 300);
	assert_string_equal(g.ev[44], "45/SYSCALL");
	assert_string_equal(g.ev[299], "300/SYSCALL");
	assemble_free(a);
}

/* The default path's events and the auparse path's on the same bytes:
 * the same SYSCALL, EXECVE and PROCTITLE records, grouped alike. */
struct sig {
	char ev[64][160];
	size_t n;
	char cur[160];
};

static void
sig_record(void *arg, const struct pgsc_record *r)
{
	struct sig *s = arg;

	if (r->type != PGSC_REC_SYSCALL && r->type != PGSC_REC_EXECVE &&
	    r->type != PGSC_REC_PROCTITLE)
		return;
	snprintf(s->cur + strlen(s->cur), sizeof(s->cur) - strlen(s->cur),
		 "%llu/%d/%lld/%s ", (unsigned long long)r->serial, r->type,
		 (long long)r->pid, r->title);
}

static void
sig_reject(void *arg, int reason, const struct feed_loc *loc,
	   uint64_t serial, const char *text, size_t len)
{
	(void)arg, (void)loc, (void)serial, (void)text, (void)len;
	fail_msg("reject %s", pgsc_reject_name(reason));
}

static void
sig_end(void *arg)
{
	struct sig *s = arg;

	if (s->cur[0] != '\0' && s->n < 64)
		strcpy(s->ev[s->n++], s->cur);
	s->cur[0] = '\0';
}

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void
test_same_as_auparse(void **state)
{
	static const char log[] =
		"type=SYSCALL msg=audit(200.001:11): arch=c000003e syscall=56 "
		"success=yes exit=12 a0=1200011 ppid=1 pid=10 uid=101\n"
		"type=SECCOMP msg=audit(200.001:12): pid=12 uid=101 arch=c000003e "
		"syscall=39 compat=0 code=0x7ffc0000\n"
		"type=PROCTITLE msg=audit(200.001:11): proctitle=706F737467726573\n"
		"type=SYSCALL msg=audit(200.002:13): arch=c000003e syscall=59 "
		"success=yes exit=0 ppid=10 pid=12 uid=101\n"
		"type=EXECVE msg=audit(200.002:13): argc=2 a0=\"sh\" a1=\"-c\"\n"
		"type=SYSCALL msg=audit(200.002:14): arch=c000003e syscall=231 "
		"a0=0 ppid=1 pid=9 uid=101\n"
		"type=CWD msg=audit(200.002:13): cwd=\"/\"\n"
		"type=PATH msg=audit(200.002:13): item=0 name=\"/bin/sh\"\n"
		"type=PROCTITLE msg=audit(200.002:13): proctitle=7368002D63\n"
		"type=PROCTITLE msg=audit(200.002:14): proctitle=\"postgres: x\"\n"
		"node=n1 type=SYSCALL msg=audit(200.003:15): arch=c000003e "
		"syscall=231 a0=0 ppid=1 pid=9 uid=101\n"
		"type=SYSCALL msg=audit(200.003:15): arch=c000003e syscall=231 "
		"a0=0 ppid=1 pid=8 uid=101\n"
		"node=n1 type=PROCTITLE msg=audit(200.003:15): proctitle=\"a\"\n"
		"type=SYSCALL msg=audit(200.004:16): arch=c000003e syscall=231 "
		"a0=0 ppid=1 pid=7 uid=101\n"
		"type=SECCOMP msg=audit(203.000:17): pid=12 uid=101 arch=c000003e "
		"syscall=39 compat=0 code=0x7ffc0000\n"
		"type=SYSCALL msg=audit(203.001:18): arch=c000003e syscall=231 "
		"a0=0 ppid=1 pid=6 uid=101\n"
		"type=USER_END msg=audit(203.001:18): pid=6 msg='op=x'\n"
		"type=SYSCALL msg=audit(203.002:19): arch=c000003e syscall=231 "
		"a0=0 ppid=1 pid=5 uid=101\n";
	static const struct feed_ops ops = { sig_record, sig_reject, sig_end };
	static struct sig s[2];

	(void)state;
	memset(s, 0, sizeof(s));
	for (int path = 0; path < 2; path++) {
		struct feed *f;

		assert_int_equal(feed_new(&ops, &s[path], path, &f, NULL), 0);
		assert_int_equal(feed_bytes(f, log, sizeof(log) - 1), 0);
		feed_end_source(f);
		assert_int_equal(feed_flush(f), 0);
		feed_free(f);
		qsort(s[path].ev, s[path].n, sizeof(s[path].ev[0]), str_cmp);
	}
	assert_int_equal(s[0].n, 8);
	assert_int_equal(s[0].n, s[1].n);
	for (size_t i = 0; i < s[0].n; i++)
		assert_string_equal(s[0].ev[i], s[1].ev[i]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grouping),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_same_as_auparse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
