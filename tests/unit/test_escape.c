/* SPDX-License-Identifier: PostgreSQL */
/* test_escape.c - unit tests for the escaping of untrusted text (util.c):
 * pgsc_json_escape(), pgsc_text_escape(), pgsc_guc_name_ok(). */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hostile inputs: quotes, backslashes, every control byte, the ENRICHED
 * separator, terminal escapes, invalid UTF-8, valid multibyte UTF-8. */
static const char *const hostile[] = {
	"",
	"plain /usr/lib/postgresql/15/bin/postgres",
	"a\"b",
	"back\\slash\\",
	"\\\"",
	"tab\there\nnewline\rcr",
	"\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13"
	"\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f",
	"sep\x1d" "AUID=\"unset\"",
	"\x1b[31mred\x1b[0m\x1b]0;title\x07",
	"del\x7f",
	"bad \xff\xfe utf8 \xc0\xaf overlong \xed\xa0\x80 surrogate",
	"cut \xe2\x82",
	"\xf4\x90\x80\x80 past U+10FFFF",
	"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x90\x98",
	"line\xe2\x80\xa8sep\xe2\x80\xa9para",
	"c1 \xc2\x9b" "31m csi",
	"raw c1 \x9b" "31m",
	"it's",
};

static char *
capture_json(const char *s)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	assert_non_null(f);
	pgsc_json_escape(f, s);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	assert_int_equal(strlen(buf), sz);
	return buf;
}

static char *
capture_text(const char *s)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	assert_non_null(f);
	pgsc_text_escape(f, s);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	assert_int_equal(strlen(buf), sz);
	return buf;
}

/* Length of a well-formed UTF-8 sequence at p (RFC 3629), 0 if not. */
static size_t
utf8_seq(const unsigned char *p)
{
	uint32_t cp;
	size_t n;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static int
is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* Is @s a valid body of a JSON string (RFC 8259 §7), in valid UTF-8? */
static int
json_body_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n;

		if (*p == '"' || *p < 0x20)
			return 0;
		if (*p == '\\') {
			switch (p[1]) {
			case '"': case '\\': case '/': case 'b': case 'f':
			case 'n': case 'r': case 't':
				p += 2;
				continue;
			case 'u':
				for (int i = 2; i < 6; i++)
					if (!is_hex((char)p[i]))
						return 0;
				p += 6;
				continue;
			default:
				return 0;
			}
		}
		n = utf8_seq(p);
		if (n == 0)
			return 0;
		p += n;
	}
	return 1;
}

static void
test_validator_itself(void **state)
{
	(void)state;
	assert_true(json_body_ok("abc \\\" \\\\ \\u001b \\n caf\xc3\xa9"));
	assert_false(json_body_ok("a\"b"));
	assert_false(json_body_ok("a\\b\\"));
	assert_false(json_body_ok("a\\x1b"));
	assert_false(json_body_ok("\\u12"));
	assert_false(json_body_ok("a\x1d"));
	assert_false(json_body_ok("bad \xff"));
	assert_false(json_body_ok("\xc0\xaf"));
	assert_false(json_body_ok("\xed\xa0\x80"));
}

static void
test_json_valid(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(hostile); i++) {
		char *o = capture_json(hostile[i]);

		if (!json_body_ok(o))
			fail_msg("invalid JSON body for input %zu: %s", i, o);
		free(o);
	}
}

static void
test_json_exact(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "" },
		{ "abc", "abc" },
		{ "a\"b", "a\\\"b" },
		{ "a\\b", "a\\\\b" },
		{ "\n", "\\u000a" },
		{ "\x1d", "\\u001d" },
		{ "\x1b[31m", "\\u001b[31m" },
		{ "\x7f", "\\u007f" },
		{ "\xff", "\\u00ff" },
		/* valid multibyte UTF-8 is kept as it is */
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
		{ "\xe6\x97\xa5\xf0\x9f\x90\x98", "\xe6\x97\xa5\xf0\x9f\x90\x98" },
		{ "/usr/bin/postgres", "/usr/bin/postgres" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *o = capture_json(cases[i].in);

		assert_string_equal(o, cases[i].out);
		free(o);
	}
}

static void
test_json_u2028(void **state)
{
	char *o;

	(void)state;
	/* U+2028/U+2029 must not appear raw (they end JavaScript lines) */
	o = capture_json("a\xe2\x80\xa8" "b\xe2\x80\xa9" "c");
	assert_true(json_body_ok(o));
	assert_null(strstr(o, "\xe2\x80\xa8"));
	assert_null(strstr(o, "\xe2\x80\xa9"));
	assert_int_equal(o[0], 'a');
	assert_int_equal(o[strlen(o) - 1], 'c');
	free(o);
	/* nor C1 controls such as U+009B (CSI) */
	o = capture_json("\xc2\x9b" "31m");
	assert_true(json_body_ok(o));
	assert_null(strstr(o, "\xc2\x9b"));
	free(o);
}

static void
test_text_escape(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(hostile); i++) {
		char *o = capture_text(hostile[i]);

		for (const unsigned char *p = (const unsigned char *)o; *p; p++) {
			if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\'')
				fail_msg("input %zu: byte 0x%02x in %s", i, *p, o);
		}
		/* what is left is valid UTF-8 without raw C1 controls */
		for (const unsigned char *p = (const unsigned char *)o; *p; ) {
			size_t n = utf8_seq(p);

			if (n == 0)
				fail_msg("input %zu: invalid UTF-8 in %s", i, o);
			if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)
				fail_msg("input %zu: C1 control in %s", i, o);
			p += n;
		}
		/* a backslash only starts an \xNN escape */
		for (const char *p = strchr(o, '\\'); p; p = strchr(p + 1, '\\'))
			assert_true(p[1] == 'x' && is_hex(p[2]) && is_hex(p[3]));
		free(o);
	}
}

static void
test_text_exact(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "" },
		{ "/usr/bin/dash", "/usr/bin/dash" },
		{ "a\"b'c\\", "a\\x22b\\x27c\\x5c" },
		{ "\x1b[31m", "\\x1b[31m" },
		{ "x\ny", "x\\x0ay" },
		{ "\x7f\xff", "\\x7f\\xff" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *o = capture_text(cases[i].in);

		assert_string_equal(o, cases[i].out);
		free(o);
	}
}

static void
test_guc_name_ok(void **state)
{
	static const char *const good[] = {
		"openat", "_newselect", "pread64", "a", "_", "clone3", "0",
	};
	static const char *const bad[] = {
		"", "a,b", "a'b", "A", "a b", "Open", "open\n", "a-b", "a\"b",
		"a;b", "caf\xc3\xa9", "a\\b", "\x1d",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		assert_true(pgsc_guc_name_ok(good[i]));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (pgsc_guc_name_ok(bad[i]))
			fail_msg("accepted \"%s\"", bad[i]);
	assert_false(pgsc_guc_name_ok(NULL));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validator_itself),
		cmocka_unit_test(test_json_valid),
		cmocka_unit_test(test_json_exact),
		cmocka_unit_test(test_json_u2028),
		cmocka_unit_test(test_text_escape),
		cmocka_unit_test(test_text_exact),
		cmocka_unit_test(test_guc_name_ok),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
