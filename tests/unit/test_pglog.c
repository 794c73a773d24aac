/* SPDX-License-Identifier: PostgreSQL */
/* test_pglog.c - unit tests for pglog.c (PostgreSQL server logs as hints). */
#include "unit.h"
#include "pglog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* UNITTEST helpers of pglog.c. */
size_t pglog_parse_time(const char *s, size_t n, double *out);
int pglog_type_ok(const char *s, size_t n);

#define T0 1796277600.0         /* 2026-12-03 06:00:00 UTC */
#define NEAR(a, b) ((a) - (b) < 1e-6 && (b) - (a) < 1e-6)

static int
group_setup(void **state)
{
	(void)state;
	setenv("TZ", "UTC0", 1);
	tzset();
	return unit_tmpdir_setup(state);
}

/* Write @len bytes of @text to unit_tmpdir/@name; the path goes to @path. */
static void
put_n(char *path, size_t pathsz, const char *name, const char *text,
      size_t len)
{
	FILE *f;

	snprintf(path, pathsz, "%s/%s", unit_tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void
put(char *path, size_t pathsz, const char *name, const char *text)
{
	put_n(path, pathsz, name, text, strlen(text));
}

/* Write and load one log; returns pglog_load's result. */
static int
load(struct pglog *l, const char *name, const char *text,
     const char *prefix, char **cause)
{
	char path[512];

	put(path, sizeof(path), name, text);
	return pglog_load(l, path, prefix, cause);
}

/* load() that must succeed, with no cause. */
static void
load_ok(struct pglog *l, const char *name, const char *text,
	const char *prefix)
{
	char *cause = NULL;

	assert_int_equal(load(l, name, text, prefix, &cause), 0);
	assert_null(cause);
}

static struct pglog *
new_log(void)
{
	struct pglog *l = NULL;

	assert_int_equal(pglog_new(&l), 0);
	assert_non_null(l);
	return l;
}

/* The backend type pglog_lookup() must give a pid at a time (NULL: none). */
struct lookup_case {
	int pid;
	double t;
	const char *type;
};

static void
expect_lookups(struct pglog *l, const struct lookup_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *got = pglog_lookup(l, c[i].pid, c[i].t);

		if (c[i].type == NULL)
			assert_null(got);
		else
			assert_string_equal(got, c[i].type);
	}
}

/* expect_lookups() of the lookup_case rows that follow @l. */
#define EXPECT_LOOKUPS(l, ...)                                          \
	do {                                                            \
		static const struct lookup_case rows_[] = { __VA_ARGS__ }; \
									\
		expect_lookups(l, rows_, ARRAY_SIZE(rows_));            \
	} while (0)

/* ------------------------------------------------------------------ */

/* pglog_parse_time() on the first n bytes of a text: what it returns and
 * the time it reads (-1: not looked at). */
static const struct time_case {
	const char *text;
	size_t n;
	int want;
	double t;
} time_cases[] = {
	{ "2026-12-03 06:00:00.123 UTC", 27, 27, T0 + 0.123 },
	{ "2026-12-03 06:00:00 GMT [1]", 27, 23, T0 },
	{ "2026-12-03 07:00:00.5 +01", 25, 25, T0 + 0.5 },
	{ "2026-12-03 00:30:00 -0530", 25, 25, T0 },
	{ "2026-12-03 11:30:00 +05:30", 26, 26, T0 },
	/* Not NUL-terminated: only @n bytes are looked at. */
	{ "2026-12-03 06:00:00 UTCXXX", 23, 23, -1 },
	{ "2026-13-03 06:00:00 UTC", 23, 0, -1 },
	{ "2026-02-29 06:00:00 UTC", 23, 0, -1 },
	{ "2028-02-29 06:00:00 UTC", 23, 23, -1 },
	{ "2026-12-03 24:00:00 UTC", 23, 0, -1 },
	{ "2026-12-03 06:00:00", 19, 0, -1 },
	{ "2026-12-03 06:00:00.x UTC", 25, 0, -1 },
	{ "2026-12-03 06:00:00 +1", 22, 0, -1 },
	{ "2026-12-03 06:00:00 UTC1", 24, 0, -1 },
	{ "2026-12-03T06:00:00 UTC", 23, 0, -1 },
	{ "2026-12-0", 9, 0, -1 },
	{ "", 0, 0, -1 },
};

static void
test_parse_time(void **state)
{
	double t = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(time_cases); i++) {
		const struct time_case *c = &time_cases[i];

		assert_int_equal(pglog_parse_time(c->text, c->n, &t), c->want);
		if (c->t >= 0)
			assert_true(NEAR(t, c->t));
	}

	/* Other abbreviations are the local zone (here EST5). */
	setenv("TZ", "EST5", 1);
	tzset();
	assert_int_equal(pglog_parse_time("2026-12-03 01:00:00 EST", 23, &t),
			 23);
	assert_true(NEAR(t, T0));
	setenv("TZ", "UTC0", 1);
	tzset();
	assert_int_equal(pglog_parse_time("2026-12-03 06:00:00 CET", 23, &t),
			 23);
	assert_true(NEAR(t, T0));
}

static void
test_type_ok(void **state)
{
	char buf[80];

	(void)state;
	assert_true(pglog_type_ok("client backend", 14));
	assert_true(pglog_type_ok("pg_cron scheduler", 17));
	assert_false(pglog_type_ok("", 0));
	assert_false(pglog_type_ok(" x", 2));
	assert_false(pglog_type_ok("x ", 2));
	assert_false(pglog_type_ok("a\001b", 3));
	assert_false(pglog_type_ok("caf\xc3\xa9", 5));
	assert_false(pglog_type_ok("a\0b", 3));
	memset(buf, 'x', sizeof(buf));
	assert_true(pglog_type_ok(buf, 64));
	assert_false(pglog_type_ok(buf, 65));
}

static void
test_free_null(void **state)
{
	(void)state;
	pglog_free(NULL);
	assert_int_equal(pglog_count(NULL), 0);
	assert_null(pglog_lookup(NULL, 1, T0));
}

/* One PostgreSQL 15 csvlog record (26 columns). */
static void
csv_rec(struct strbuf *sb, const char *ts, const char *pid,
	const char *type, const char *message, const char *query)
{
	strbuf_addf(sb, "%s,\"alice\",\"db1\",%s,\"[local]\",656e8a01.c8,1,"
		    "\"SELECT\",2026-12-03 05:59:00 UTC,3/4,0,LOG,00000,"
		    "%s,,,,,,%s,,,\"psql\",\"%s\",,0\n",
		    ts, pid, message, query, type);
}

static void
test_csvlog(void **state)
{
	struct pglog *l = new_log();
	struct strbuf sb = { 0 };
	char *cause = NULL;

	(void)state;
	csv_rec(&sb, "2026-12-03 06:00:00.000 UTC", "100", "postmaster",
		"\"database system is ready\"", "");
	csv_rec(&sb, "2026-12-03 06:00:01.000 UTC", "101", "checkpointer",
		"\"checkpoint starting: time\"", "");
	/* Quotes, commas and newlines inside quoted fields, even a line that
	 * looks like the start of a record. */
	csv_rec(&sb, "2026-12-03 06:00:02.000 UTC", "200", "client backend",
		"\"syntax error at or near \"\"x\"\"\nsecond line, with comma\n"
		"2026-12-03 06:00:05.000 UTC,,,999,not,a,record\"",
		"\"select \"\"x\"\",\n  1\"");
	strbuf_addstr(&sb, "garbage line that is not csv\n");
	csv_rec(&sb, "2026-12-03 06:00:09.500 UTC", "200", "client backend",
		"\"disconnection\"", "");
	csv_rec(&sb, "2026-12-03 06:00:10.000 UTC", "abc", "walwriter",
		"\"bad pid\"", "");
	csv_rec(&sb, "2026-12-03 06:00:11.000 UTC", "102", "walwriter",
		"\"after the bad ones\"", "");
	assert_false(sb.oom);

	load_ok(l, "csv1.csv", sb.buf, NULL);
	assert_int_equal(pglog_count(l), 4);
	EXPECT_LOOKUPS(l,
		       { 100, T0, "postmaster" },
		       { 101, T0 + 1, "checkpointer" },
		       { 101, 0, "checkpointer" },
		       { 200, T0 + 2, "client backend" },
		       { 200, T0 + 5, "client backend" },
		       { 200, T0 + 11.4, "client backend" },
		       { 200, T0 + 11.6, NULL },
		       { 200, T0 - 0.1 - 2, NULL },
		       { 102, T0 + 11, "walwriter" },
		       { 999, T0 + 5, NULL },
		       { 12345, T0, NULL });

	/* PostgreSQL 12 had no backend_type column: every record is bad. */
	strbuf_free(&sb);
	strbuf_addstr(&sb, "2026-12-03 06:00:00.000 UTC,,,300,,x,1,,"
		      "2026-12-03 06:00:00 UTC,,0,LOG,00000,\"m\",,,,,,,,,"
		      "\"psql\"\n");
	strbuf_addstr(&sb, "2026-12-03 06:00:01.000 UTC,,,300,,x,1,,"
		      "2026-12-03 06:00:00 UTC,,0,LOG,00000,\"m\",,,,,,,,,"
		      "\"psql\"\n");
	assert_int_equal(load(l, "csv12.csv", sb.buf, NULL, &cause), -EINVAL);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "csv12.csv"));
	assert_non_null(strstr(cause, "line 1"));
	assert_int_equal(pglog_count(l), 4);
	free(cause);
	strbuf_free(&sb);
	pglog_free(l);
}

static void
test_csvlog_long(void **state)
{
	struct pglog *l = new_log();
	struct strbuf sb = { 0 }, big = { 0 };

	(void)state;
	/* A 1.5 MiB quoted message: the record is still read. */
	strbuf_addstr(&big, "\"");
	for (int i = 0; i < 24 * 1024; i++)
		strbuf_addstr(&big, "0123456789012345678901234567890123456789"
			      "01234567890123456789012,\"\"\n");
	strbuf_addstr(&big, "\"");
	csv_rec(&sb, "2026-12-03 06:00:00.000 UTC", "1100", "client backend",
		big.buf, "");
	/* A quote that never closes: after 1 MiB the next line that starts
	 * a record ends it. */
	strbuf_addstr(&sb, "2026-12-03 06:00:01.000 UTC,\"alice,1101\n");
	for (int i = 0; i < 20 * 1024; i++)
		strbuf_addstr(&sb, "filler line that is not a record start "
			      "and has no quote in it\n");
	csv_rec(&sb, "2026-12-03 06:00:02.000 UTC", "1102", "walsender",
		"\"m\"", "");
	csv_rec(&sb, "2026-12-03 06:00:03.000 UTC", "1103", "walwriter",
		"\"m\"", "");
	assert_false(sb.oom);
	load_ok(l, "csvlong.csv", sb.buf, NULL);
	EXPECT_LOOKUPS(l,
		       { 1100, T0, "client backend" },
		       { 1101, T0 + 1, NULL },
		       { 1102, T0 + 2, "walsender" },
		       { 1103, T0 + 3, "walwriter" });
	assert_int_equal(pglog_count(l), 3);
	strbuf_free(&big);
	strbuf_free(&sb);
	pglog_free(l);
}

static void
test_jsonlog(void **state)
{
	struct pglog *l = new_log();
	char *cause = NULL;
	const char *text =
		"{\"timestamp\":\"2026-12-03 06:00:00.000 UTC\",\"user\":"
		"\"postgres\",\"pid\":300,\"backend_type\":\"postmaster\","
		"\"message\":\"ready\"}\n"
		/* The message holds a fake key, escaped quotes, a backslash
		 * and braces; the real backend_type follows it. */
		"{\"timestamp\":\"2026-12-03 06:00:03.250 UTC\",\"pid\":301,"
		"\"message\":\"he said \\\"backend_type\\\":\\\"walwriter\\\""
		" \\\\\\\" {x} \\u00e9 \\n\",\"backend_type\":"
		"\"client backend\",\"query_id\":0}\n"
		"\n"
		"  {\"timestamp\":\"2026-12-03 06:00:04.000 UTC\",\"pid\":301,"
		"\"backend_type\":\"client\\u0020backend\",\"detail\":"
		"{\"nested\":[1,2,\"]}\",{\"a\":null}]},\"ok\":true}  \r\n"
		/* pid as a string, a non-ASCII type: malformed. */
		"{\"timestamp\":\"2026-12-03 06:00:05.000 UTC\",\"pid\":\"302\","
		"\"backend_type\":\"walwriter\"}\n"
		"{\"timestamp\":\"2026-12-03 06:00:06.000 UTC\",\"pid\":303,"
		"\"backend_type\":\"caf\\u00e9\"}\n"
		"{\"timestamp\":\"2026-12-03 06:00:07.000 UTC\",\"pid\":304,"
		"\"backend_type\":\"walwriter\"}\n";

	(void)state;
	load_ok(l, "j1.json", text, NULL);
	assert_int_equal(pglog_count(l), 3);
	EXPECT_LOOKUPS(l,
		       { 300, T0, "postmaster" },
		       { 301, T0 + 3.25, "client backend" },
		       { 301, T0 + 4, "client backend" },
		       { 302, T0 + 5, NULL },
		       { 303, T0 + 6, NULL },
		       { 304, 0, "walwriter" });

	/* Mostly broken: duplicate key, missing type, trailing junk. */
	text = "{\"timestamp\":\"2026-12-03 06:00:00.000 UTC\",\"pid\":310,"
	       "\"backend_type\":\"walwriter\"}\n"
	       "{\"timestamp\":\"2026-12-03 06:00:00.000 UTC\",\"pid\":311,"
	       "\"pid\":312,\"backend_type\":\"walwriter\"}\n"
	       "{\"timestamp\":\"2026-12-03 06:00:00.000 UTC\",\"pid\":313}\n"
	       "{\"timestamp\":\"2026-12-03 06:00:00.000 UTC\",\"pid\":314,"
	       "\"backend_type\":\"walwriter\"} x\n"
	       "{\"timestamp\":\"2026-12-03 06:00:00.000 UTC\",\"pid\":315,"
	       "\"backend_type\":\"walwriter\n";
	assert_int_equal(load(l, "j2.json", text, NULL, &cause), -EINVAL);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "j2.json"));
	assert_non_null(strstr(cause, "line 2"));
	assert_int_equal(pglog_count(l), 3);
	assert_null(pglog_lookup(l, 310, T0));
	free(cause);
	pglog_free(l);
}

static void
test_stderr_default(void **state)
{
	struct pglog *l = new_log();
	const char *text =
		"2026-12-03 06:00:00.000 UTC [400] postmaster LOG:  starting "
		"PostgreSQL 15.5\n"
		"2026-12-03 06:00:01.000 UTC [401] checkpointer LOG:  "
		"checkpoint starting: time\r\n"
		"2026-12-03 06:00:02.000 UTC [402] client backend ERROR:  "
		"syntax error at [1] x\n"
		"2026-12-03 06:00:02.000 UTC [402] client backend STATEMENT:  "
		"select\n"
		"\t  1 from x\n"
		"cp: cannot stat '/archive/x': No such file or directory\n"
		"2026-12-03 06:00:03.000 UTC [403] logical replication launcher"
		" LOG:  started\n"
		"2026-12-03 06:00:04.000 UTC [404] pg_cron scheduler LOG:  "
		"cron: ok\n"
		"2026-12-03 06:00:05.000 UTC [4o5] client backend LOG:  bad\n"
		"2026-12-03 07:00:06.000 +01 [406] archiver LOG:  fine\n";

	(void)state;
	load_ok(l, "s1.log", text, NULL);
	assert_int_equal(pglog_count(l), 6);
	EXPECT_LOOKUPS(l,
		       { 400, T0, "postmaster" },
		       { 401, T0 + 1, "checkpointer" },
		       { 402, T0 + 2, "client backend" },
		       { 403, T0 + 3, "logical replication launcher" },
		       { 404, T0 + 4, "pg_cron scheduler" },
		       { 405, T0 + 5, NULL },
		       { 406, T0 + 6, "archiver" });

	/* A long line is skipped; the lines around it are read. */
	{
		struct strbuf sb = { 0 };
		struct pglog *l2 = new_log();

		strbuf_addstr(&sb, "2026-12-03 06:00:00.000 UTC [410] "
			      "walwriter LOG:  a\n");
		strbuf_addstr(&sb, "2026-12-03 06:00:00.000 UTC [411] "
			      "walsender LOG:  ");
		for (int i = 0; i < 40 * 1024; i++)
			strbuf_addstr(&sb, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		/* 200 KiB: longer than the first read buffer, still read */
		strbuf_addstr(&sb, "\n2026-12-03 06:00:00.500 UTC [413] "
			      "checkpointer LOG:  ");
		for (int i = 0; i < 200 * 32; i++)
			strbuf_addstr(&sb, "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy");
		strbuf_addstr(&sb, "\n2026-12-03 06:00:01.000 UTC [412] "
			      "startup LOG:  b");     /* no final newline */
		assert_false(sb.oom);
		load_ok(l2, "s2.log", sb.buf, NULL);
		assert_int_equal(pglog_count(l2), 3);
		EXPECT_LOOKUPS(l2,
			       { 413, T0 + 0.5, "checkpointer" },
			       { 410, T0, "walwriter" },
			       { 411, T0, NULL },
			       { 412, T0 + 1, "startup" });
		strbuf_free(&sb);
		pglog_free(l2);
	}
	pglog_free(l);
}

/*
 * PostgreSQL 17 and 18's backend types in a stderr log whose %b is
 * followed by more prefix: each must be known whole (known_types[] in
 * pglog_prefix.c).  GetBackendTypeDesc() (miscinit.c, 18.3):
 *	backendDesc = gettext_noop("dead-end client backend");
 *	backendDesc = gettext_noop("io worker");
 *	backendDesc = gettext_noop("slotsync worker");
 */
static void
test_stderr_pg18_types(void **state)
{
	struct pglog *l = new_log();
	const char *text =
		"2026-12-03 06:00:00.000 UTC [800] [pg18/main] io worker "
		"LOG:  x\n"
		"2026-12-03 06:00:01.000 UTC [801] [pg18/main] dead-end client "
		"backend alice@db1 (psql) FATAL:  sorry, too many clients "
		"already\n"
		"2026-12-03 06:00:02.000 UTC [802] [pg18/main] slotsync worker "
		"LOG:  y\n"
		"2026-12-03 06:00:03.000 UTC [803] [pg18/main] walsummarizer "
		"LOG:  z\n";

	(void)state;
	load_ok(l, "pg18.log", text, "%m [%p] [pg18/main] %b %q%u@%d (%a) ");
	EXPECT_LOOKUPS(l,
		       { 800, T0, "io worker" },
		       { 801, T0 + 1, "dead-end client backend" },
		       { 802, T0 + 2, "slotsync worker" },
		       { 803, T0 + 3, "walsummarizer" });
	pglog_free(l);
}

static void
test_stderr_prefix_q(void **state)
{
	struct pglog *l = new_log();
	/* %b before %q, a cluster-name-like literal, %a with spaces. */
	const char *text =
		"2026-12-03 06:00:00.123 UTC [500] [pg15/main] checkpointer "
		"LOG:  checkpoint starting: time\n"
		"2026-12-03 06:00:01.000 UTC [501] [pg15/main] client backend "
		"alice@db1 (my app) LOG:  statement: select 1\n"
		"2026-12-03 06:00:02.000 UTC [502] [pg15/main] autovacuum "
		"worker LOG:  automatic vacuum of table \"db1.public.t\"\n"
		"2026-12-03 06:00:03.000 UTC [503] [other/main] client backend "
		"bob@db2 (psql) LOG:  wrong cluster\n"
		"2026-12-03 06:00:04.000 UTC [504] [pg15/main] pg_cron launcher "
		"LOG:  hello\n";

	(void)state;
	load_ok(l, "q1.log", text, "%m [%p] [pg15/main] %b %q%u@%d (%a) ");
	assert_int_equal(pglog_count(l), 4);
	EXPECT_LOOKUPS(l,
		       { 500, T0, "checkpointer" },
		       { 501, T0 + 1, "client backend" },
		       { 502, T0 + 2, "autovacuum worker" },
		       { 503, T0 + 3, NULL },
		       { 504, T0 + 4, "pg_cron launcher" });

	/* %b after %q: non-session processes give no type (not an error). */
	text = "2026-12-03 06:00:00 UTC [600] LOG:  checkpoint starting\n"
	       "2026-12-03 06:00:01 UTC [601] alice@db1 client backend LOG:  "
	       "connection authorized: user=alice\n"
	       "2026-12-03 06:00:02 UTC [602] repl@ walsender LOG:  "
	       "received replication command: IDENTIFY_SYSTEM\n"
	       "2026-12-03 06:00:03 UTC [603] LOG:  redo done at 0/1\n";
	load_ok(l, "q2.log", text, "%t [%p] %q%u@%d %b ");
	assert_int_equal(pglog_count(l), 6);
	EXPECT_LOOKUPS(l,
		       { 600, T0, NULL },
		       { 600, 0, NULL },
		       { 601, T0 + 1, "client backend" },
		       { 602, T0 + 2, "walsender" });

	/* Padding, %% and an epoch timestamp. */
	text = "1796277600.500 % [  700] walwriter    | LOG:  x\n"
	       "1796277601.000 % [  701] checkpointer | LOG:  x\n";
	load_ok(l, "q3.log", text, "%n %% [%5p] %-12b | ");
	EXPECT_LOOKUPS(l,
		       { 700, T0 + 0.5, "walwriter" },
		       { 700, T0 + 3, NULL },
		       { 701, T0 + 1, "checkpointer" });
	pglog_free(l);
}

static void
test_stderr_no_time(void **state)
{
	struct pglog *l = new_log();
	char *cause = NULL;
	const char *text = "[900] checkpointer LOG:  x\n"
			   "[901] client backend LOG:  y\n";

	(void)state;
	load_ok(l, "nt.log", text, "[%p] %b ");
	EXPECT_LOOKUPS(l,
		       { 900, T0 + 1e6, "checkpointer" },
		       { 900, 0, "checkpointer" },
		       { 901, 1.0, "client backend" });
	/* Unbounded intervals of two types for one pid: no answer. */
	text = "[900] walwriter LOG:  z\n";
	assert_int_equal(load(l, "nt2.log", text, "[%p] %b ", &cause), 0);
	assert_null(pglog_lookup(l, 900, T0));
	pglog_free(l);
}

static void
test_pid_reuse(void **state)
{
	struct pglog *l = new_log();
	const char *text =
		"2026-12-03 06:00:00.000 UTC [700] autovacuum worker LOG:  a\n"
		"2026-12-03 06:00:10.000 UTC [700] autovacuum worker LOG:  b\n"
		"2026-12-03 06:05:00.000 UTC [700] client backend LOG:  c\n"
		"2026-12-03 06:05:30.000 UTC [700] client backend LOG:  d\n"
		"2026-12-03 06:00:00.000 UTC [701] client backend LOG:  e\n"
		"2026-12-03 06:01:00.000 UTC [701] parallel worker LOG:  f\n"
		"2026-12-03 06:01:05.000 UTC [701] parallel worker LOG:  g\n"
		"2026-12-03 06:10:00.000 UTC [701] client backend LOG:  h\n";

	(void)state;
	load_ok(l, "reuse.log", text, NULL);
	assert_int_equal(pglog_count(l), 4);
	EXPECT_LOOKUPS(l,
		       { 700, T0 + 5, "autovacuum worker" },
		       { 700, T0 - 1.5, "autovacuum worker" },
		       { 700, T0 + 11.5, "autovacuum worker" },
		       { 700, T0 + 150, NULL },
		       { 700, T0 + 310, "client backend" },
		       { 700, T0 + 298.5, "client backend" },
		       { 700, 0, NULL },
		       /* Nested intervals: the narrower one that holds t wins. */
		       { 701, T0 + 62, "parallel worker" },
		       { 701, T0 + 30, "client backend" },
		       /* Holding t beats being near it. */
		       { 701, T0 + 66.5, "client backend" });
	pglog_free(l);
}

static void
test_accumulate(void **state)
{
	struct pglog *l = new_log();
	char *cause = NULL;

	(void)state;
	assert_int_equal(load(l, "a1.log", "2026-12-03 06:00:00.000 UTC [800] "
			      "walwriter LOG:  a\n", NULL, &cause), 0);
	assert_int_equal(load(l, "a2.csv", "2026-12-03 06:10:00.000 UTC,,,800,"
			      ",x,1,,2026-12-03 06:00:00 UTC,,0,LOG,00000,"
			      "\"m\",,,,,,,,,\"\",\"walwriter\",,0\n", NULL,
			      &cause), 0);
	load_ok(l, "a3.json", "{\"timestamp\":\"2026-12-03 "
		"06:20:00.000 UTC\",\"pid\":801,"
		"\"backend_type\":\"walwriter\"}\n", NULL);
	assert_int_equal(pglog_count(l), 2);
	EXPECT_LOOKUPS(l,
		       { 800, T0 + 300, "walwriter" },
		       { 800, T0 + 1200, NULL },
		       { 801, T0 + 1200, "walwriter" });
	/* An empty file adds nothing and is fine. */
	assert_int_equal(load(l, "empty.log", "", NULL, &cause), 0);
	assert_int_equal(load(l, "blank.log", "\n\n  \n", NULL, &cause), 0);
	assert_int_equal(pglog_count(l), 2);

	/* Many pids: the tables grow. */
	{
		struct strbuf sb = { 0 };
		struct pglog *l2 = new_log();

		for (int i = 1; i <= 5000; i++)
			strbuf_addf(&sb, "2026-12-03 06:00:%02d.000 UTC [%d] "
				    "%s LOG:  x\n", i % 60, i,
				    i % 3 ? "client backend" : "walwriter");
		assert_int_equal(load(l2, "many.log", sb.buf, NULL, &cause),
				 0);
		assert_int_equal(pglog_count(l2), 5000);
		EXPECT_LOOKUPS(l2,
			       { 3000, T0 + 0, "walwriter" },
			       { 4001, T0 + 41, "client backend" });
		strbuf_free(&sb);
		pglog_free(l2);
	}
	pglog_free(l);
}

static void
test_errors(void **state)
{
	struct pglog *l = new_log();
	char *cause = NULL;
	char path[512];
	const char *good = "2026-12-03 06:00:00.000 UTC [1] walwriter LOG:  x\n";

	(void)state;
	snprintf(path, sizeof(path), "%s/does-not-exist.log", unit_tmpdir);
	assert_int_equal(pglog_load(l, path, NULL, &cause), -ENOENT);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "does-not-exist.log"));
	free(cause);
	cause = NULL;

	assert_true(pglog_load(l, unit_tmpdir, NULL, &cause) < 0);
	assert_non_null(cause);
	free(cause);
	cause = NULL;

	assert_int_equal(pglog_load(l, NULL, NULL, &cause), -EINVAL);
	free(cause);
	cause = NULL;

	assert_int_equal(load(l, "e1.log", good, "%m [%p] ", &cause),
			 -EINVAL);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "%b"));
	free(cause);
	cause = NULL;

	assert_int_equal(load(l, "e2.log", good, "%m %b ", &cause), -EINVAL);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "%p"));
	free(cause);
	cause = NULL;

	/* More than half of the candidate lines are bad. */
	assert_int_equal(load(l, "e3.log",
			      "2026-12-03 06:00:00.000 UTC [2] walwriter LOG:  a\n"
			      "2026-12-03 06:00:00.000 UTC [x] walwriter LOG:  b\n"
			      "not a log line at all\n"
			      "\tcontinuation\n"
			      "2026-12-03 06:00:00.000 UTC walwriter LOG:  c\n",
			      NULL, &cause), -EINVAL);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "e3.log"));
	assert_non_null(strstr(cause, "line 2"));
	assert_int_equal(pglog_count(l), 0);
	assert_null(pglog_lookup(l, 2, T0));
	free(cause);
	cause = NULL;

	/* Half bad is still accepted; NULL cause is allowed. */
	assert_int_equal(load(l, "e4.log",
			      "2026-12-03 06:00:00.000 UTC [3] walwriter LOG:  a\n"
			      "2026-12-03 06:00:00.000 UTC [] walwriter LOG:  b\n",
			      NULL, NULL), 0);
	assert_string_equal(pglog_lookup(l, 3, T0), "walwriter");

	/* Control bytes and NULs never crash; they are just bad. */
	{
		static const char bin[] =
			"2026-12-03 06:00:00.000 UTC [4] wal\001writer LOG:  a\n"
			"2026-12-03 06:00:00.000 UTC [5] wal\0writer LOG:  a\n"
			"2026-12-03 06:00:00.000 UTC [6] walwriter LOG:  \0\n";

		put_n(path, sizeof(path), "e5.log", bin, sizeof(bin) - 1);
		assert_int_equal(pglog_load(l, path, NULL, &cause), -EINVAL);
		assert_non_null(cause);
		assert_non_null(strstr(cause, "line 1"));
		free(cause);
		cause = NULL;
	}
	pglog_free(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_time),
		cmocka_unit_test(test_type_ok),
		cmocka_unit_test(test_free_null),
		cmocka_unit_test(test_csvlog),
		cmocka_unit_test(test_csvlog_long),
		cmocka_unit_test(test_jsonlog),
		cmocka_unit_test(test_stderr_default),
		cmocka_unit_test(test_stderr_prefix_q),
		cmocka_unit_test(test_stderr_pg18_types),
		cmocka_unit_test(test_stderr_no_time),
		cmocka_unit_test(test_pid_reuse),
		cmocka_unit_test(test_accumulate),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, group_setup, unit_tmpdir_teardown);
}
