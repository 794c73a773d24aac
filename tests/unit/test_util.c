/* SPDX-License-Identifier: PostgreSQL */
/* test_util.c - unit tests for util.c: util_exe_is() (a binary replaced
 * under a running server), util_open_regular(), util_append()
 * and util_widen_span(). */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PG "/usr/lib/postgresql/15/bin/postgres"

static void
test_exe_is(void **state)
{
	(void)state;
	assert_true(util_exe_is(PG, "postgres"));
	assert_true(util_exe_is("postgres", "postgres"));
	/* the binary was replaced (package upgrade) or removed */
	assert_true(util_exe_is(PG " (deleted)", "postgres"));
	/* prelink's temporary name, and the same once it is gone */
	assert_true(util_exe_is(PG ".#prelink#.a1B2c3", "postgres"));
	assert_true(util_exe_is(PG ".#prelink#.a1B2c3 (deleted)", "postgres"));
	assert_true(util_exe_is("/usr/lib/postgresql/15/bin/postmaster (deleted)",
				"postmaster"));
	/* not postgres */
	assert_false(util_exe_is("/usr/bin/postgresx", "postgres"));
	assert_false(util_exe_is("/usr/bin/postgres (deleted)x", "postgres"));
	assert_false(util_exe_is("/usr/bin/postgres(deleted)", "postgres"));
	assert_false(util_exe_is("/usr/bin/postgres (deleted) (deleted)",
				 "postgres"));
	assert_false(util_exe_is(PG ".#prelink#.a1B2c", "postgres"));
	assert_false(util_exe_is(PG ".#prelink#.a1B2c3d", "postgres"));
	assert_false(util_exe_is(PG ".#prelink#.a1B/c3", "postgres"));
	assert_false(util_exe_is(PG ".#prelink#.a1B c3", "postgres"));
	assert_false(util_exe_is("/x/ (deleted)", "postgres"));
	assert_false(util_exe_is(" (deleted)", ""));
	assert_false(util_exe_is("/usr/bin/pg_ctl (deleted)", "postgres"));
	assert_false(util_exe_is("/postgres/bin/sh (deleted)", "postgres"));
	assert_false(util_exe_is(NULL, "postgres"));
	assert_false(util_exe_is("", "postgres"));
}

static void
test_open_regular(void **state)
{
	char dir[] = "/tmp/pgsc-test-util.XXXXXX", path[256];
	char *cause = NULL;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* a FIFO: refused at once, by name, without blocking */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(util_open_regular(path, &cause), -EINVAL);
	assert_non_null(strstr(cause, "fifo: not a regular file (a FIFO)"));
	unlink(path);
	/* a directory, a device */
	assert_int_equal(util_open_regular(dir, &cause), -EINVAL);
	assert_non_null(strstr(cause, "a directory"));
	assert_int_equal(util_open_regular("/dev/null", &cause), -EINVAL);
	assert_non_null(strstr(cause, "a device"));
	/* missing */
	snprintf(path, sizeof(path), "%s/none", dir);
	assert_int_equal(util_open_regular(path, &cause), -ENOENT);
	/* a regular file: a blocking descriptor */
	snprintf(path, sizeof(path), "%s/file", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	fd = util_open_regular(path, &cause);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	unlink(path);
	rmdir(dir);
	free(cause);
}

static void
test_append(void **state)
{
	struct pair { int64_t a; double b; } *v = NULL, e;
	size_t n = 0, cap = 0;

	(void)state;
	for (int i = 0; i < 100; i++) {
		e = (struct pair){ i, i / 2.0 };
		assert_int_equal(util_append(&v, &cap, &n, &e, sizeof(e), 4), 0);
	}
	assert_int_equal(n, 100);
	assert_true(cap >= 100);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(v[i].a, i);
		assert_true(v[i].b == i / 2.0);
	}
	free(v);
}

static void
test_widen_span(void **state)
{
	double first = 10, last = 20;

	(void)state;
	util_widen_span(&first, &last, 12, 18);
	assert_true(first == 10 && last == 20);
	util_widen_span(&first, &last, 5, 15);
	assert_true(first == 5 && last == 20);
	util_widen_span(&first, &last, 7, 25);
	assert_true(first == 5 && last == 25);
}

/* The status JSON's times: ISO 8601 in UTC, milliseconds rounded before
 * the calendar, so that the carry reaches the seconds (and the day). */
static void
test_iso_time(void **state)
{
	char buf[UTIL_ISO_TIME_MAX];

	(void)state;
	assert_string_equal(util_iso_time(buf, sizeof(buf), 0),
			    "1970-01-01T00:00:00.000Z");
	assert_string_equal(util_iso_time(buf, sizeof(buf), 1796521500.123),
			    "2026-12-06T01:45:00.123Z");
	assert_string_equal(util_iso_time(buf, sizeof(buf), 1796521500),
			    "2026-12-06T01:45:00.000Z");
	assert_string_equal(util_iso_time(buf, sizeof(buf), 1796601599.9996),
			    "2026-12-07T00:00:00.000Z");
	assert_string_equal(util_iso_time(buf, sizeof(buf), 1764716452.4474),
			    "2025-12-02T23:00:52.447Z");
}

/* The library's diagnostics carry the program's name (issue 29: one
 * import printed under "pgsc:" and "pgsc-collect:"). */
static void
test_diag_progname(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_string_equal(pgsc_progname(), "pgsc");
	pgsc_set_progname("pgsc-collect");
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	util_diag(f, "%s: rejected (%s)\n", "a.log:3", "bad-field");
	pgsc_set_progname("");
	util_diag(f, "x\n");
	pgsc_set_progname(NULL);
	util_diag(f, "y\n");
	fclose(f);
	assert_string_equal(buf, "pgsc-collect: a.log:3: rejected (bad-field)\n"
			    "pgsc: x\npgsc: y\n");
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exe_is),
		cmocka_unit_test(test_open_regular),
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_widen_span),
		cmocka_unit_test(test_iso_time),
		cmocka_unit_test(test_diag_progname),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
