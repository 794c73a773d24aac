/* SPDX-License-Identifier: PostgreSQL */
/* test_logsrc.c - unit tests for logsrc.c (formats by magic, directory
 * order, a compressed file read, resumed and hashed like the plain one,
 * --until) and timearg.c (pgsc_time_parse()).  Compressed fixtures are
 * made here from tests/fixtures/unit/import-small.log with zlib, liblzma
 * and libzstd; what they must give is the plain file. */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

static char dir[] = "/tmp/pgsc-test-logsrc.XXXXXX";

static int
setup(void **state)
{
	(void)state;
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	return unit_rmtree(dir);
}

/* The fixture log in memory. */
static char *
fixture(size_t *len)
{
	char path[512];
	FILE *f;
	char *buf;
	long n;

	unit_fixture_path(path, sizeof(path), "unit/import-small.log");
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void
write_file(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	close(fd);
}

/* @data compressed with @fmt into @path. */
static void
write_compressed(const char *path, int fmt, const char *data, size_t n)
{
	size_t cap = n + 65536, got = 0;
	unsigned char *out = malloc(cap);

	assert_non_null(out);
	if (fmt == LOGSRC_GZIP) {
		z_stream z;

		memset(&z, 0, sizeof(z));
		assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS,
					      8, Z_DEFAULT_STRATEGY), Z_OK);
		z.next_in = (unsigned char *)(uintptr_t)data;
		z.avail_in = (uInt)n;
		z.next_out = out;
		z.avail_out = (uInt)cap;
		assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
		got = cap - z.avail_out;
		deflateEnd(&z);
	} else if (fmt == LOGSRC_XZ) {
		assert_int_equal(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64,
							 NULL,
							 (const uint8_t *)data,
							 n, out, &got, cap),
				 LZMA_OK);
	} else {
		got = ZSTD_compress(out, cap, data, n, 3);
		assert_false(ZSTD_isError(got));
	}
	write_file(path, out, got);
	free(out);
}

static void
test_magic(void **state)
{
	const char *what;

	(void)state;
	assert_int_equal(decompress_magic((const unsigned char *)"\x1f\x8b\x08", 3,
				      &what), LOGSRC_GZIP);
	assert_int_equal(decompress_magic((const unsigned char *)"\xfd" "7zXZ\0",
				      6, &what), LOGSRC_XZ);
	assert_int_equal(decompress_magic((const unsigned char *)"\x28\xb5\x2f\xfd",
				      4, &what), LOGSRC_ZSTD);
	assert_int_equal(decompress_magic((const unsigned char *)"type=SYSCALL",
				      12, &what), LOGSRC_PLAIN);
	assert_null(what);
	/* the start of a magic is not the magic */
	assert_int_equal(decompress_magic((const unsigned char *)"\xfd" "7zX", 4,
				      &what), LOGSRC_PLAIN);
	assert_int_equal(decompress_magic((const unsigned char *)"BZh91AY", 7,
				      &what), -1);
	assert_non_null(strstr(what, "bzip2"));
	assert_int_equal(decompress_magic((const unsigned char *)"\x7f" "ELF\2", 5,
				      &what), -1);
	assert_int_equal(decompress_magic((const unsigned char *)"PK\3\4", 4,
				      &what), -1);
	assert_int_equal(decompress_magic((const unsigned char *)
				      "SQLite format 3\0", 16, &what), -1);
	assert_int_equal(decompress_magic((const unsigned char *)"", 0, &what),
			 LOGSRC_PLAIN);
}

static void
test_log_name(void **state)
{
	size_t bl;
	int cls;
	unsigned long long num;

	(void)state;
	assert_true(logsrc_log_name("audit.log", &bl, &cls, &num));
	assert_int_equal(bl, 9);
	assert_int_equal(cls, 2);
	assert_true(logsrc_log_name("audit.log.12", &bl, &cls, &num));
	assert_int_equal(cls, 0);
	assert_int_equal(num, 12);
	assert_true(logsrc_log_name("audit.log.3.gz", &bl, &cls, &num));
	assert_int_equal(num, 3);
	assert_int_equal(bl, 9);
	assert_true(logsrc_log_name("audit.log.1.xz", &bl, &cls, &num));
	assert_true(logsrc_log_name("audit.log.1.zst", &bl, &cls, &num));
	assert_true(logsrc_log_name("audit.log-20261203.gz", &bl, &cls, &num));
	assert_int_equal(cls, 1);
	assert_true(logsrc_log_name("node1.log", &bl, &cls, &num));
	assert_true(logsrc_log_name("a.log.log.2", &bl, &cls, &num));
	assert_int_equal(bl, 9);
	assert_false(logsrc_log_name("README", &bl, &cls, &num));
	assert_false(logsrc_log_name(".log", &bl, &cls, &num));
	assert_false(logsrc_log_name("audit.log.bak", &bl, &cls, &num));
	assert_false(logsrc_log_name("audit.log.1.bz2", &bl, &cls, &num));
	assert_false(logsrc_log_name("audit.log.", &bl, &cls, &num));
	assert_false(logsrc_log_name("audit.log-", &bl, &cls, &num));
	assert_false(logsrc_log_name("audit.log-old", &bl, &cls, &num));
	assert_false(logsrc_log_name("audit.log.gz.1", &bl, &cls, &num));
}

static void
test_expand_order(void **state)
{
	static const char *const want[] = {
		"audit.log.10.xz", "audit.log.2.gz", "audit.log.1",
		"audit.log-20261201.gz", "audit.log-20261202", "audit.log",
		"other.log.1", "other.log",
	};
	static const char *const skipped[] = { "README", "audit.log.bak" };
	char sub[600], path[700], *diag = NULL;
	const char *in[2];
	char **out = NULL;
	size_t n = 0, refused = 9, dsz = 0;
	FILE *f;

	(void)state;
	snprintf(sub, sizeof(sub), "%s/rot", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		snprintf(path, sizeof(path), "%s/%s", sub, want[ARRAY_SIZE(want) - 1 - i]);
		write_file(path, "x\n", 2);
	}
	for (size_t i = 0; i < ARRAY_SIZE(skipped); i++) {
		snprintf(path, sizeof(path), "%s/%s", sub, skipped[i]);
		write_file(path, "x\n", 2);
	}
	snprintf(path, sizeof(path), "%s/subdir", sub);
	assert_int_equal(mkdir(path, 0700), 0);
	in[0] = sub;
	in[1] = "-";
	f = open_memstream(&diag, &dsz);
	assert_int_equal(pgsc_import_expand(in, 2, f, 0, &out, &n, &refused), 0);
	fclose(f);
	assert_int_equal(refused, 0);
	assert_int_equal(n, ARRAY_SIZE(want) + 1);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		snprintf(path, sizeof(path), "%s/%s", sub, want[i]);
		assert_string_equal(out[i], path);
	}
	assert_string_equal(out[n - 1], "-");
	assert_non_null(strstr(diag, "README: skipped (not named"));
	assert_non_null(strstr(diag, "audit.log.bak: skipped (not named"));
	assert_non_null(strstr(diag, "subdir: skipped (not a regular file)"));
	pgsc_import_expand_free(out, n);
	free(diag);

	/* an empty directory is refused, counted, and gives no operand */
	snprintf(path, sizeof(path), "%s/subdir", sub);
	in[0] = path;
	diag = NULL;
	f = open_memstream(&diag, &dsz);
	assert_int_equal(pgsc_import_expand(in, 1, f, 1, &out, &n, &refused), 0);
	fclose(f);
	assert_int_equal(n, 0);
	assert_int_equal(refused, 1);
	assert_non_null(strstr(diag, "a directory without audit logs"));
	pgsc_import_expand_free(out, n);
	free(diag);
}

/* Read a whole source, @step bytes at most at a time. */
static char *
read_step(struct logsrc *ls, size_t *len, size_t step)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap), *cause = NULL;
	ssize_t r;

	assert_non_null(buf);
	while ((r = logsrc_read(ls, buf + n, step < cap - n ? step : cap - n,
				&cause)) > 0)
		n += (size_t)r;
	assert_int_equal(r, 0);
	assert_null(cause);
	*len = n;
	return buf;
}

static char *
read_all(struct logsrc *ls, size_t *len)
{
	return read_step(ls, len, 4096);
}

static void
check_format(int fmt, const char *ext)
{
	char plain[600], comp[600], h1[24], h2[24], *cause = NULL;
	size_t len, got, off;
	char *data = fixture(&len), *back;
	const char *l1;
	size_t n1;
	struct logsrc *ls = NULL;
	int pfd;

	snprintf(plain, sizeof(plain), "%s/plain.log", dir);
	snprintf(comp, sizeof(comp), "%s/c.log%s", dir, ext);
	write_file(plain, data, len);
	write_compressed(comp, fmt, data, len);
	pfd = open(plain, O_RDONLY);
	assert_true(pfd >= 0);

	/* the whole of it, and the hash of a plain file at its end */
	assert_int_equal(logsrc_open(comp, &ls, &cause), 0);
	assert_int_equal(logsrc_fmt(ls), fmt);
	assert_int_equal(logsrc_first_line(ls, &l1, &n1), 0);
	assert_ptr_not_equal(memchr(data, '\n', len), NULL);
	assert_int_equal(n1, (size_t)((char *)memchr(data, '\n', len) - data));
	assert_memory_equal(l1, data, n1);
	logsrc_suspend(ls);
	back = read_all(ls, &got);
	assert_int_equal(got, len);
	assert_memory_equal(back, data, len);
	assert_int_equal(logsrc_prefix_hash(ls, len, h1), 0);
	assert_int_equal(util_prefix_hash(pfd, len, h2), 0);
	assert_string_equal(h1, h2);
	free(back);
	logsrc_free(ls);
	/* a decoder's output that waits when its input is used up: read a
	 * few bytes at a time, everything still comes out */
	for (size_t step = 1; step < 300; step += 37) {
		assert_int_equal(logsrc_open(comp, &ls, &cause), 0);
		back = read_step(ls, &got, step);
		assert_int_equal(got, len);
		assert_memory_equal(back, data, len);
		free(back);
		logsrc_free(ls);
	}

	/* resumed at a line boundary, as a stored source says */
	off = (size_t)((char *)memchr(data + len / 2, '\n', len / 2) - data) + 1;
	assert_int_equal(util_prefix_hash(pfd, off, h2), 0);
	assert_int_equal(logsrc_open(comp, &ls, &cause), 0);
	assert_int_equal(logsrc_resume(ls, off, h2, &cause), LOGSRC_RESUME);
	logsrc_suspend(ls);
	back = read_all(ls, &got);
	assert_int_equal(got, len - off);
	assert_memory_equal(back, data + off, got);
	free(back);
	logsrc_free(ls);
	/* ... read to its end already, or another file */
	assert_int_equal(util_prefix_hash(pfd, len, h2), 0);
	assert_int_equal(logsrc_open(comp, &ls, &cause), 0);
	assert_int_equal(logsrc_resume(ls, len, h2, &cause), LOGSRC_DONE);
	logsrc_free(ls);
	assert_int_equal(logsrc_open(comp, &ls, &cause), 0);
	assert_int_equal(logsrc_resume(ls, off, "0123456789abcdef", &cause),
			 LOGSRC_DIFFERS);
	logsrc_free(ls);
	assert_int_equal(logsrc_open(comp, &ls, &cause), 0);
	assert_int_equal(logsrc_resume(ls, len + 1, h2, &cause), LOGSRC_DIFFERS);
	logsrc_free(ls);

	/* cut short: the bytes before the damage, then an error naming it */
	{
		struct stat sb;
		char *raw;
		int fd;
		ssize_t r;

		assert_int_equal(stat(comp, &sb), 0);
		raw = malloc((size_t)sb.st_size);
		fd = open(comp, O_RDONLY);
		assert_int_equal(read(fd, raw, (size_t)sb.st_size), sb.st_size);
		close(fd);
		write_file(comp, raw, (size_t)sb.st_size * 3 / 4);
		free(raw);
		if (logsrc_open(comp, &ls, &cause) < 0) {
			/* zstd decodes a block at once: nothing came out of
			 * the one block of this small file */
			assert_int_equal(fmt, LOGSRC_ZSTD);
			assert_non_null(strstr(cause, comp));
			goto done;
		}
		back = malloc(len);
		got = 0;
		while ((r = logsrc_read(ls, back + got, len - got, &cause)) > 0)
			got += (size_t)r;
		assert_true(r < 0);
		assert_non_null(cause);
		assert_non_null(strstr(cause, comp));
		assert_true(got < len);
		assert_memory_equal(back, data, got);
		free(back);
		logsrc_free(ls);
	}
done:
	free(cause);
	close(pfd);
	free(data);
}

static void
test_gzip(void **state)
{
	(void)state;
	check_format(LOGSRC_GZIP, ".gz");
}

static void
test_xz(void **state)
{
	(void)state;
	check_format(LOGSRC_XZ, ".xz");
}

static void
test_zstd(void **state)
{
	(void)state;
	check_format(LOGSRC_ZSTD, ".zst");
}

static void
test_not_audit(void **state)
{
	char path[600], *cause = NULL;
	struct logsrc *ls = NULL;
	char zeros[300] = { 0 };

	(void)state;
	snprintf(path, sizeof(path), "%s/text.log", dir);
	write_file(path, "hello\nworld\n", 12);
	assert_int_equal(logsrc_open(path, &ls, &cause), -EINVAL);
	assert_non_null(strstr(cause, ":1: not an audit log (text"));
	/* compressed text is text */
	write_compressed(path, LOGSRC_GZIP, "hello\nworld\n", 12);
	assert_int_equal(logsrc_open(path, &ls, &cause), -EINVAL);
	assert_non_null(strstr(cause, "gzip-compressed"));
	write_file(path, zeros, sizeof(zeros));
	assert_int_equal(logsrc_open(path, &ls, &cause), -EINVAL);
	assert_non_null(strstr(cause, "binary data"));
	/* empty, and one incomplete record: nothing yet, not refused */
	write_file(path, "", 0);
	assert_int_equal(logsrc_open(path, &ls, &cause), 0);
	assert_true(logsrc_empty(ls));
	logsrc_free(ls);
	write_file(path, "type=SYSC", 9);
	assert_int_equal(logsrc_open(path, &ls, &cause), 0);
	assert_true(logsrc_empty(ls));
	logsrc_free(ls);
	free(cause);
}

static void
test_until(void **state)
{
	char path[600], *cause = NULL, *back;
	size_t len, got;
	char *data = fixture(&len);
	struct logsrc *ls = NULL;
	int type_num, msec;
	const char *tn;
	size_t tl;
	int64_t first = 0, last = 0, sec;
	uint64_t serial;
	const char *p = data;

	(void)state;
	/* the first and last second of the fixture, read here */
	while (p < data + len) {
		const char *nl = memchr(p, '\n', (size_t)(data + len - p));

		if (decode_header(p, (size_t)(nl - p), &type_num, &tn, &tl, &sec,
				  &msec, &serial) >= 0) {
			if (first == 0 || sec < first)
				first = sec;
			if (sec > last)
				last = sec;
		}
		p = nl + 1;
	}
	assert_true(first > 0);
	snprintf(path, sizeof(path), "%s/until.log.gz", dir);
	write_compressed(path, LOGSRC_GZIP, data, len);
	/* before the first record: nothing */
	assert_int_equal(logsrc_open(path, &ls, &cause), 0);
	logsrc_set_until(ls, first - 1);
	back = read_all(ls, &got);
	assert_int_equal(got, 0);
	free(back);
	logsrc_free(ls);
	/* at the last: everything */
	assert_int_equal(logsrc_open(path, &ls, &cause), 0);
	logsrc_set_until(ls, last);
	back = read_all(ls, &got);
	assert_int_equal(got, len);
	free(back);
	logsrc_free(ls);
	/* in between: whole lines, up to the first later record */
	if (last > first) {
		assert_int_equal(logsrc_open(path, &ls, &cause), 0);
		logsrc_set_until(ls, first);
		back = read_all(ls, &got);
		assert_true(got > 0 && got < len);
		assert_int_equal(back[got - 1], '\n');
		assert_int_equal(decode_header(data + got, len - got, &type_num,
					       &tn, &tl, &sec, &msec, &serial) >= 0,
				 1);
		assert_true(sec > first);
		free(back);
		logsrc_free(ls);
		/* the same cut with reads shorter than a record's header
		 * (fuzz_logsrc found a loop there) */
		{
			size_t got5;

			assert_int_equal(logsrc_open(path, &ls, &cause), 0);
			logsrc_set_until(ls, first);
			back = read_step(ls, &got5, 5);
			assert_int_equal(got5, got);
			free(back);
			logsrc_free(ls);
		}
	}
	free(cause);
	free(data);
}

static void
test_time_parse(void **state)
{
	struct tm tm = { 0 };
	int64_t t, day;
	const int64_t now = 1796256000 + 13 * 3600 + 5; /* 2026-12-03 13:00:05Z */

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	tm.tm_year = 2026 - 1900;
	tm.tm_mon = 11;
	tm.tm_mday = 3;
	day = (int64_t)timegm(&tm);
	assert_int_equal(day, 1796256000);
	assert_int_equal(pgsc_time_parse("2026-12-03", 0, now, &t), 0);
	assert_int_equal(t, day);
	assert_int_equal(pgsc_time_parse("2026-12-03", 1, now, &t), 0);
	assert_int_equal(t, day + 86399);
	assert_int_equal(pgsc_time_parse("2026-12-03 14:30", 1, now, &t), 0);
	assert_int_equal(t, day + 14 * 3600 + 30 * 60);
	assert_int_equal(pgsc_time_parse("2026-12-03T14:30:15", 0, now, &t), 0);
	assert_int_equal(t, day + 14 * 3600 + 30 * 60 + 15);
	assert_int_equal(pgsc_time_parse("2026-12-03T14:30:15Z", 0, now, &t), 0);
	assert_int_equal(t, day + 14 * 3600 + 30 * 60 + 15);
	assert_int_equal(pgsc_time_parse("2026-12-03 14:30:15+02:00", 0, now, &t), 0);
	assert_int_equal(t, day + 12 * 3600 + 30 * 60 + 15);
	assert_int_equal(pgsc_time_parse("2026-12-03 14:30:15-0130", 0, now, &t), 0);
	assert_int_equal(t, day + 16 * 3600 + 15);
	assert_int_equal(pgsc_time_parse("1796256000", 0, now, &t), 0);
	assert_int_equal(t, day);
	assert_int_equal(pgsc_time_parse("@1796256000", 1, now, &t), 0);
	assert_int_equal(t, day);
	assert_int_equal(pgsc_time_parse("now", 0, now, &t), 0);
	assert_int_equal(t, now);
	assert_int_equal(pgsc_time_parse("recent", 0, now, &t), 0);
	assert_int_equal(t, now - 600);
	assert_int_equal(pgsc_time_parse("today", 1, now, &t), 0);
	assert_int_equal(t, day);
	assert_int_equal(pgsc_time_parse("yesterday", 0, now, &t), 0);
	assert_int_equal(t, day - 86400);
	assert_int_equal(pgsc_time_parse("week-ago", 0, now, &t), 0);
	assert_int_equal(t, day - 7 * 86400);
	/* local time */
	setenv("TZ", "CET-1", 1);
	tzset();
	assert_int_equal(pgsc_time_parse("2026-12-03 01:00", 0, now, &t), 0);
	assert_int_equal(t, day);
	setenv("TZ", "UTC", 1);
	tzset();
	/* refused */
	static const char *const bad[] = {
		"", "tomorrow", "2026-12", "2026-13-01", "2026-02-30",
		"2026-12-03 25:00", "2026-12-03 12:60", "2026-12-03x",
		"2026-12-03 12:00 ", "12/03/2026", "@", "@-5", "-5", "1e9",
		"1796256000.5", "2026-12-03+02:00", "1969-12-31",
		"9999999999999", "2026-12-03 12:00+15:00",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (pgsc_time_parse(bad[i], 0, now, &t) != -EINVAL)
			fail_msg("accepted \"%s\"", bad[i]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_magic),
		cmocka_unit_test(test_log_name),
		cmocka_unit_test(test_expand_order),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_xz),
		cmocka_unit_test(test_zstd),
		cmocka_unit_test(test_not_audit),
		cmocka_unit_test(test_until),
		cmocka_unit_test(test_time_parse),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
