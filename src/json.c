/* SPDX-License-Identifier: PostgreSQL */
/* json.c - the one JSON reader: a cursor over text in memory. */
/*
 * A JSON text is read in place, one token at a time, by the caller that
 * knows which members it wants: pgsc-diff's reports (diff.c), pgsc-scan's
 * documents (candidates.c) and PostgreSQL's jsonlog lines (pglog.c).  A
 * string is decoded into the caller's bounded buffer, its flags saying
 * whether it was cut, held a NUL or was not ASCII, or into a bounded
 * malloc'd copy (json_strdup()); json_each_member() and
 * json_each_element() hand the members and elements to the caller one by
 * one.
 *
 * Two modes.  A strict reader checks the whole text against RFC 8259
 * (UTF-8, surrogate pairs, numbers, nesting) and says where it failed,
 * for pgsc-diff, which refuses a report it cannot trust.  A loose reader
 * only steps over what it does not need (brackets counted, scalars as a
 * run of word bytes, any byte in a string), because a server whose
 * encoding is not UTF-8 writes its jsonlog in that encoding.  libc only.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "json.h"

/**
 * Start reading @len bytes at @buf.
 * @param strict 1 for RFC 8259 checks, 0 for a loose reader
 * @param maxdepth the deepest nesting accepted
 */
void
json_init(struct json *j, const char *buf, size_t len, int strict,
	  int maxdepth)
{
	j->start = j->p = buf;
	j->end = buf + len;
	j->depth = 0;
	j->maxdepth = maxdepth;
	j->strict = strict;
	j->failed = 0;
	j->fail_at = 0;
	j->fail_end = 0;
	j->why[0] = '\0';
}

/**
 * Note why the text is refused, and where (the cursor now).
 * Returns -EINVAL.
 */
int
json_fail(struct json *j, const char *fmt, ...)
{
	va_list ap;

	j->failed = 1;
	j->fail_at = (size_t)(j->p - j->start);
	j->fail_end = j->p >= j->end;
	va_start(ap, fmt);
	vsnprintf(j->why, sizeof(j->why), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Step over blanks (RFC 8259 whitespace). */
void
json_ws(struct json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* Is the next byte @c (after blanks)?  Consumes it if so. */
int
json_eat(struct json *j, char c)
{
	json_ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return 1;
	}
	return 0;
}

/* After a member or an element: 1 at @close (consumed), 0 after a ','
 * (consumed), or -EINVAL (json_fail()). */
int
json_next(struct json *j, char close)
{
	if (json_eat(j, close))
		return 1;
	if (!json_eat(j, ','))
		return json_fail(j, "expected ',' or '%c'", close);
	return 0;
}

/* Is the next byte (after blanks) @c?  Nothing is consumed but blanks. */
int
json_at(struct json *j, char c)
{
	json_ws(j);
	return j->p < j->end && *j->p == c;
}

static int
hex4(struct json *j, uint32_t *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++, j->p++) {
		char c = j->p < j->end ? *j->p : '\0';

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (uint32_t)(c - 'A' + 10);
		else
			return json_fail(j, "bad \\u escape");
	}
	return 0;
}

/* The code point of a \u escape whose "\u" is behind j->p.  A strict
 * reader joins surrogate pairs and refuses a lone surrogate. */
static int
unicode(struct json *j, uint32_t *cp)
{
	uint32_t lo;
	int rc = hex4(j, cp);

	if (rc < 0 || !j->strict)
		return rc;
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return json_fail(j, "lone low surrogate");
	if (*cp < 0xd800 || *cp > 0xdbff)
		return 0;
	if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
		return json_fail(j, "lone high surrogate");
	j->p += 2;
	rc = hex4(j, &lo);
	if (rc < 0)
		return rc;
	if (lo < 0xdc00 || lo > 0xdfff)
		return json_fail(j, "lone high surrogate");
	*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	return 0;
}

/* Append @n bytes to a bounded decode buffer; past @cap they are only
 * counted.  A sequence cut at the end is kept in part, so that every
 * byte before the terminating NUL is set. */
static void
put(char *dst, size_t cap, struct json_str *s, const char *b, size_t n)
{
	if (dst != NULL && s->len + 1 < cap)
		memcpy(dst + s->len, b,
		       s->len + n < cap ? n : cap - 1 - s->len);
	s->len += n;
}

/* The escape behind a backslash at j->p, decoded into @dst. */
static int
escape(struct json *j, char *dst, size_t cap, struct json_str *s)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	uint32_t cp;
	char u[4];
	int rc;

	if (*j->p != 'u') {
		e = *j->p != '\0' ? strchr(from, *j->p) : NULL;
		if (e == NULL)
			return json_fail(j, "bad escape");
		j->p++;
		put(dst, cap, s, to + (e - from), 1);
		return 0;
	}
	j->p++;
	rc = unicode(j, &cp);
	if (rc < 0)
		return rc;
	if (cp == 0)
		s->nul = 1;
	if (cp >= 0x80)
		s->nonascii = 1;
	put(dst, cap, s, u, utf8_encode(cp, u));
	return 0;
}

/**
 * The string whose opening quote is at j->p.
 * @param dst where it is decoded, NUL-terminated, or NULL to skip it
 * @param cap the size of @dst
 * @param s its length and flags: over when it did not fit in @cap bytes,
 *	nul when it held \u0000, nonascii when it held any byte past 0x7f
 * Returns 0, or -EINVAL (json_fail()).
 */
int
json_string(struct json *j, char *dst, size_t cap, struct json_str *s)
{
	struct json_str tmp;
	int rc;

	if (s == NULL)
		s = &tmp;
	memset(s, 0, sizeof(*s));
	j->p++;
	for (;;) {
		unsigned char c;

		if (j->p >= j->end)
			return json_fail(j, "unterminated string");
		c = (unsigned char)*j->p;
		if (c == '"') {
			j->p++;
			break;
		}
		if (c < 0x20)
			return json_fail(j, "control byte 0x%02x in a string",
					 (unsigned)c);
		if (c >= 0x80) {
			size_t l = 1;

			if (j->strict)
				l = utf8_decode((const unsigned char *)j->p,
						(size_t)(j->end - j->p), NULL);
			if (l == 0)
				return json_fail(j, "invalid UTF-8");
			s->nonascii = 1;
			put(dst, cap, s, j->p, l);
			j->p += l;
			continue;
		}
		if (c != '\\') {
			put(dst, cap, s, j->p++, 1);
			continue;
		}
		if (++j->p >= j->end)
			return json_fail(j, "unterminated string");
		rc = escape(j, dst, cap, s);
		if (rc < 0)
			return rc;
	}
	s->over = s->len >= cap;
	if (dst != NULL)
		dst[s->len < cap ? s->len : cap - 1] = '\0';
	return 0;
}

static int
digits(struct json *j)
{
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return json_fail(j, "bad number");
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return 0;
}

static int
number(struct json *j)
{
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (j->p >= j->end || *j->p < '1' || *j->p > '9' ||
		 digits(j) < 0)
		return json_fail(j, "bad number");
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (digits(j) < 0)
			return -EINVAL;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (digits(j) < 0)
			return -EINVAL;
	}
	return 0;
}

static int
literal(struct json *j, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n) != 0)
		return json_fail(j, "unexpected character");
	j->p += n;
	return 0;
}

static int strict_value(struct json *j);

static int
skip_member(struct json *j, const char *key, void *arg)
{
	(void)key;
	(void)arg;
	return strict_value(j);
}

static int
skip_element(struct json *j, void *arg)
{
	(void)arg;
	return strict_value(j);
}

/* Into the object or array that @open starts at j->p (after blanks),
 * @what for the error: 0 in it, 1 when it was empty (now behind it), or
 * -EINVAL (json_fail()). */
static int
enter(struct json *j, char open, char close, const char *what)
{
	if (!json_at(j, open))
		return json_fail(j, "expected %s", what);
	if (j->depth >= j->maxdepth)
		return json_fail(j, "nested deeper than %d levels",
				 j->maxdepth);
	j->p++;
	if (json_eat(j, close))
		return 1;
	j->depth++;
	return 0;
}

/* After a member or an element of the object or array @close ends:
 * carry on (0), or leave it at its end (1) or on @rc, an error. */
static int
step_out(struct json *j, int rc, char close)
{
	if (rc == 0)
		rc = json_next(j, close);
	if (rc != 0)
		j->depth--;
	return rc;
}

/* One member: its name read, then @fn at its value. */
static int
member(struct json *j,
       int (*fn)(struct json *j, const char *key, void *arg), void *arg)
{
	char key[JSON_KEY_MAX];
	struct json_str st;
	int rc;

	if (!json_at(j, '"'))
		return json_fail(j, "expected a member name");
	rc = json_string(j, key, sizeof(key), &st);
	if (rc == 0 && !json_eat(j, ':'))
		rc = json_fail(j, "expected ':'");
	if (rc == 0)
		rc = fn(j, st.over || st.nul ? "" : key, arg);
	return rc;
}

/* The members (to @mfn) of the object, or the elements (to @efn) of the
 * array, at j->p. */
static int
each(struct json *j,
     int (*mfn)(struct json *j, const char *key, void *arg),
     int (*efn)(struct json *j, void *arg), void *arg)
{
	char close = mfn != NULL ? '}' : ']';
	int rc = enter(j, mfn != NULL ? '{' : '[', close,
		       mfn != NULL ? "an object" : "an array");

	while (rc == 0)
		rc = step_out(j, mfn != NULL ? member(j, mfn, arg)
				 : efn(j, arg), close);
	return rc < 0 ? rc : 0;
}

/**
 * Read the object at j->p (after blanks): for each member @fn gets its
 * name ("" when longer than JSON_KEY_MAX - 1 bytes or holding \u0000: no
 * name a reader knows) with j->p at its value, which it reads or steps
 * over (json_skip()).  Nesting counts against the reader's maxdepth.
 * Returns 0, @fn's negative errno, or -EINVAL (json_fail()).
 */
int
json_each_member(struct json *j,
		 int (*fn)(struct json *j, const char *key, void *arg),
		 void *arg)
{
	return each(j, fn, NULL, arg);
}

/**
 * Read the array at j->p (after blanks): @fn reads or steps over each
 * element, j->p at it.  Returns as json_each_member().
 */
int
json_each_element(struct json *j, int (*fn)(struct json *j, void *arg),
		  void *arg)
{
	return each(j, NULL, fn, arg);
}

/**
 * Read the @len bytes at @buf as one JSON object, strictly (RFC 8259,
 * nested at most @maxdepth levels, the object being the first): its
 * members go to @fn as json_each_member() hands them, and nothing but
 * blanks may follow it.  @j is the reader, for where and why it failed.
 * Returns 0, @fn's negative errno, or -EINVAL (json_fail()).
 */
int
json_read_object(struct json *j, const char *buf, size_t len, int maxdepth,
		 int (*fn)(struct json *j, const char *key, void *arg),
		 void *arg)
{
	int rc;

	json_init(j, buf, len, 1, maxdepth);
	rc = json_each_member(j, fn, arg);
	if (rc == 0) {
		json_ws(j);
		if (j->p != j->end)
			rc = json_fail(j, "text after the object");
	}
	return rc;
}

/**
 * The integer at j->p (after blanks), a JSON number without fraction or
 * exponent that fits a long long, into *@v.
 * Returns 0, or -EINVAL (json_fail()).
 */
int
json_int(struct json *j, long long *v)
{
	const char *b, *q;
	long long n = 0;

	json_ws(j);
	b = j->p;
	if (number(j) < 0)
		return -EINVAL;
	for (q = b + (*b == '-'); q < j->p; q++) {
		if (*q < '0' || *q > '9') {
			j->p = b;
			return json_fail(j, "expected an integer");
		}
		if (n > (LLONG_MAX - 9) / 10) {
			j->p = b;
			return json_fail(j, "number out of range");
		}
		n = n * 10 + (*q - '0');
	}
	*v = *b == '-' ? -n : n;
	return 0;
}

/**
 * The string at j->p (after blanks), decoded into a malloc'd *@out of at
 * most @max bytes; a longer one, or one holding \u0000 (a C string would
 * end there), is refused.
 * Returns 0, -EINVAL (json_fail()) or -ENOMEM.
 */
int
json_strdup(struct json *j, size_t max, char **out)
{
	struct json_str st;
	char *buf, *fit;
	int rc;

	*out = NULL;
	if (!json_at(j, '"'))
		return json_fail(j, "expected a string");
	buf = malloc(max + 1);
	if (buf == NULL)
		return -ENOMEM;
	rc = json_string(j, buf, max + 1, &st);
	if (rc == 0 && st.over)
		rc = json_fail(j, "a string longer than %zu bytes", max);
	if (rc == 0 && st.nul)
		rc = json_fail(j, "a NUL (u+0000) in a string");
	if (rc < 0) {
		free(buf);
		return rc;
	}
	fit = realloc(buf, st.len + 1);
	*out = fit != NULL ? fit : buf;
	return 0;
}

/* The line (from 1) of the byte where the text was refused. */
size_t
json_fail_line(const struct json *j)
{
	size_t line = 1;

	for (size_t i = 0; i < j->fail_at; i++)
		if (j->start[i] == '\n')
			line++;
	return line;
}

/* Check and skip any value (RFC 8259). */
static int
strict_value(struct json *j)
{
	json_ws(j);
	if (j->p >= j->end)
		return json_fail(j, "unexpected end");
	switch (*j->p) {
	case '{':
		return json_each_member(j, skip_member, NULL);
	case '[':
		return json_each_element(j, skip_element, NULL);
	case '"':
		return json_string(j, NULL, 0, NULL);
	case 't':
		return literal(j, "true");
	case 'f':
		return literal(j, "false");
	case 'n':
		return literal(j, "null");
	default:
		if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9'))
			return number(j);
		return json_fail(j, "unexpected character");
	}
}

static int
word_byte(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '-' || c == '+' || c == '.';
}

/* Step over a value by its brackets and strings only. */
static int
loose_value(struct json *j)
{
	const char *b;
	int depth = 0;

	if (j->p >= j->end)
		return json_fail(j, "unexpected end");
	if (*j->p == '"')
		return json_string(j, NULL, 0, NULL);
	if (*j->p == '{' || *j->p == '[') {
		do {
			if (j->p >= j->end)
				return json_fail(j, "unexpected end");
			if (*j->p == '"') {
				if (json_string(j, NULL, 0, NULL) < 0)
					return -EINVAL;
				continue;
			}
			if (*j->p == '{' || *j->p == '[') {
				if (++depth > j->maxdepth)
					return json_fail(j, "nested too deep");
			} else if (*j->p == '}' || *j->p == ']') {
				depth--;
			}
			j->p++;
		} while (depth > 0);
		return 0;
	}
	for (b = j->p; j->p < j->end && word_byte(*j->p); j->p++)
		;
	if (j->p == b)
		return json_fail(j, "unexpected character");
	return 0;
}

/**
 * Step over the value after j->p (and blanks): checked against RFC 8259
 * by a strict reader, by its brackets and strings by a loose one.
 * Returns 0, or -EINVAL (json_fail()).
 */
int
json_skip(struct json *j)
{
	if (j->strict)
		return strict_value(j);
	json_ws(j);
	return loose_value(j);
}
