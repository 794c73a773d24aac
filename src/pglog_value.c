/* SPDX-License-Identifier: PostgreSQL */
/* pglog_value.c - the values of server log lines: times, pids, types. */
/*
 * The csvlog, jsonlog and stderr readers of pglog.c take the same three
 * values from a line, by the same rules: a timestamp as log_line_prefix's
 * %m/%t write it (or %n's epoch seconds), a process id and a backend
 * type.  Each parser says how many bytes it used, so that the stderr
 * matcher can go on after it.  libc only.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgsc-int.h"
#include "pglog.h"

static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int
is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Exactly @k digits at s[*i]. */
static int
take_digits(const char *s, size_t n, size_t *i, int k, int *v)
{
	int x = 0;

	if (n - *i < (size_t)k)
		return 0;
	for (int j = 0; j < k; j++) {
		if (!is_digit(s[*i + (size_t)j]))
			return 0;
		x = x * 10 + (s[*i + (size_t)j] - '0');
	}
	*i += (size_t)k;
	*v = x;
	return 1;
}

static int
take_char(const char *s, size_t n, size_t *i, char c)
{
	if (*i >= n || s[*i] != c)
		return 0;
	(*i)++;
	return 1;
}

static int
days_in_month(int y, int m)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30,
				       31, 31, 30, 31, 30, 31 };

	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return days[m - 1];
}

/**
 * Parse "YYYY-MM-DD HH:MM:SS[.fff] TZ" at the start of @s (@n bytes).
 * TZ is UTC, GMT, UT, Z, a numeric offset (+01, -0530, +05:30) or another
 * abbreviation, which is read as the local time zone (mktime).
 * Stores unix seconds in *out; returns the bytes used, 0 if none parse.
 */
size_t
pglog_parse_time(const char *s, size_t n, double *out)
{
	struct tm tm;
	int yr = 0, mo = 0, dd = 0, hh = 0, mi = 0, ss = 0, utc = 0;
	long off = 0;
	double frac = 0, scale = 0.1;
	size_t i = 0;
	time_t tt;

	if (!take_digits(s, n, &i, 4, &yr) || !take_char(s, n, &i, '-') ||
	    !take_digits(s, n, &i, 2, &mo) || !take_char(s, n, &i, '-') ||
	    !take_digits(s, n, &i, 2, &dd) || !take_char(s, n, &i, ' ') ||
	    !take_digits(s, n, &i, 2, &hh) || !take_char(s, n, &i, ':') ||
	    !take_digits(s, n, &i, 2, &mi) || !take_char(s, n, &i, ':') ||
	    !take_digits(s, n, &i, 2, &ss))
		return 0;
	if (i < n && s[i] == '.') {
		int nd = 0;

		i++;
		while (i < n && is_digit(s[i]) && nd < 9) {
			frac += (s[i] - '0') * scale;
			scale /= 10;
			i++;
			nd++;
		}
		if (nd == 0 || (i < n && is_digit(s[i])))
			return 0;
	}
	if (!take_char(s, n, &i, ' '))
		return 0;
	if (i < n && (s[i] == '+' || s[i] == '-')) {
		int sign = s[i] == '-' ? -1 : 1, oh, om = 0;

		i++;
		if (!take_digits(s, n, &i, 2, &oh))
			return 0;
		if (i < n && s[i] == ':') {
			i++;
			if (!take_digits(s, n, &i, 2, &om))
				return 0;
		} else if (i + 1 < n && is_digit(s[i]) && is_digit(s[i + 1])) {
			take_digits(s, n, &i, 2, &om);
		}
		if ((i < n && is_digit(s[i])) || oh > 15 || om > 59)
			return 0;
		off = sign * (oh * 3600L + om * 60L);
		utc = 1;
	} else {
		size_t b = i, len;

		while (i < n && i - b < 16 && is_alpha(s[i]))
			i++;
		len = i - b;
		if (len == 0 || (i < n && (is_alpha(s[i]) || is_digit(s[i]))))
			return 0;
		if ((len == 3 && (memcmp(s + b, "UTC", 3) == 0 ||
				  memcmp(s + b, "GMT", 3) == 0)) ||
		    (len == 2 && memcmp(s + b, "UT", 2) == 0) ||
		    (len == 1 && s[b] == 'Z'))
			utc = 1;
	}
	if (yr < 1970 || mo < 1 || mo > 12 || dd < 1 ||
	    dd > days_in_month(yr, mo) || hh > 23 || mi > 59 || ss > 59)
		return 0;
	tt = util_make_time(&tm, yr, mo, dd, hh, mi, ss, utc);
	if (tt == (time_t)-1)
		return 0;
	*out = (double)tt - (double)off + frac;
	return i;
}

/* Epoch seconds with optional fraction (%n), bytes used or 0. */
size_t
pglog_parse_epoch(const char *s, size_t n, double *out)
{
	double v = 0, scale = 0.1;
	size_t i = 0;

	while (i < n && is_digit(s[i]) && i < 12)
		v = v * 10 + (s[i++] - '0');
	if (i == 0 || (i < n && is_digit(s[i])))
		return 0;
	if (i < n && s[i] == '.') {
		size_t b = ++i;

		while (i < n && is_digit(s[i]) && i - b < 9) {
			v += (s[i++] - '0') * scale;
			scale /= 10;
		}
		if (i == b || (i < n && is_digit(s[i])))
			return 0;
	}
	*out = v;
	return i;
}

/* A process id: 1 to 10 digits, 1..INT32_MAX. */
int
pglog_parse_pid(const char *s, size_t n, int64_t *out)
{
	int64_t v = 0;

	if (n == 0 || n > 10)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!is_digit(s[i]))
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	if (v < 1 || v > INT32_MAX)
		return 0;
	*out = v;
	return 1;
}

/* A backend type: 1..64 printable ASCII bytes, no space at either end. */
int
pglog_type_ok(const char *s, size_t n)
{
	if (n == 0 || n > PGLOG_TYPE_MAX || s[0] == ' ' || s[n - 1] == ' ')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return 0;
	return 1;
}
