/* SPDX-License-Identifier: PostgreSQL */
/* gucfile.c - the one reader of PostgreSQL configuration files. */
/*
 * It follows PostgreSQL 15's src/backend/utils/misc/guc-file.l, so that
 * what pgsc reads from a postgresql.conf is what the server reads:
 *
 *   ID              {LETTER}{LETTER_OR_DIGIT}*      LETTER [A-Za-z_\200-\377]
 *   QUALIFIED_ID    {ID}"."{ID}
 *   STRING          \'([^'\\\n]|\\.|\'\')*\'
 *   UNQUOTED_STRING {LETTER}({LETTER_OR_DIGIT}|[-._:/])*
 *   INTEGER         {SIGN}?({DIGIT}+|0x{HEXDIGIT}+){UNIT_LETTER}*
 *   REAL            {SIGN}?{DIGIT}*"."{DIGIT}*{EXPONENT}?
 *   [ \t\r]+ is skipped, "#" to the end of the line is a comment, "=" is
 *   a token, and any other character is an error;
 *
 * the longest match wins, ties go to the rule listed first (flex).  A
 * line is NAME [=] VALUE [comment]: the name an ID or QUALIFIED_ID, the
 * value an ID, STRING, INTEGER, REAL or UNQUOTED_STRING.  A STRING loses
 * its quotes, '' becomes ', and a backslash escape is undone as
 * DeescapeQuotedString() does (\b \f \n \r \t, up to three octal digits,
 * else the character itself).  include, include_if_exists and include_dir
 * lines are handed to the caller as such; nothing is followed.
 *
 * The file is bounded before anything is allocated for it: devices and
 * directories are refused (a FIFO, such as <(...), is read), and at most
 * GUCFILE_MAX bytes are read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "gucfile.h"

enum tok {
	T_EOL, T_ID, T_QUALIFIED_ID, T_STRING, T_UNQUOTED, T_INTEGER, T_REAL,
	T_EQUALS, T_ERROR,
};

static int
is_letter(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
	       c >= 0x80;
}

static int
is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int
is_letter_or_digit(unsigned char c)
{
	return is_letter(c) || is_digit(c);
}

static int
is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int
is_unit(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The lengths of the matches of the rules at @p (@n bytes to the end of
 * the line): 0 = no match. */
static size_t
match_id(const unsigned char *p, size_t n)
{
	size_t i = 0;

	if (n == 0 || !is_letter(p[0]))
		return 0;
	for (i = 1; i < n && is_letter_or_digit(p[i]); i++)
		;
	return i;
}

static size_t
match_qualified(const unsigned char *p, size_t n)
{
	size_t a = match_id(p, n), b;

	if (a == 0 || a >= n || p[a] != '.')
		return 0;
	b = match_id(p + a + 1, n - a - 1);
	return b == 0 ? 0 : a + 1 + b;
}

static size_t
match_unquoted(const unsigned char *p, size_t n)
{
	size_t i;

	if (n == 0 || !is_letter(p[0]))
		return 0;
	for (i = 1; i < n && (is_letter_or_digit(p[i]) || p[i] == '-' ||
			      p[i] == '.' || p[i] == '_' || p[i] == ':' ||
			      p[i] == '/'); i++)
		;
	return i;
}

/* \'([^'\\\n]|\\.|\'\')*\' : the longest prefix that is a whole match
 * (a '' may also be the closing quote followed by another string). */
static size_t
match_string(const unsigned char *p, size_t n)
{
	size_t i = 1, best = 0;

	if (n == 0 || p[0] != '\'')
		return 0;
	while (i < n) {
		if (p[i] == '\'') {
			best = i + 1;
			if (i + 1 < n && p[i + 1] == '\'') {
				i += 2;
				continue;
			}
			break;
		}
		if (p[i] == '\\') {
			/* "." matches anything but a newline, which ends
			 * the line before we get here */
			if (i + 1 >= n)
				break;
			i += 2;
			continue;
		}
		i++;
	}
	return best;
}

static size_t
match_integer(const unsigned char *p, size_t n)
{
	size_t s = 0, i, best = 0;

	if (n > 0 && (p[0] == '-' || p[0] == '+'))
		s = 1;
	/* {DIGIT}+{UNIT_LETTER}* */
	for (i = s; i < n && is_digit(p[i]); i++)
		;
	if (i > s) {
		while (i < n && is_unit(p[i]))
			i++;
		best = i;
	}
	/* 0x{HEXDIGIT}+{UNIT_LETTER}* */
	if (s + 2 < n && p[s] == '0' && p[s + 1] == 'x' && is_hex(p[s + 2])) {
		for (i = s + 2; i < n && is_hex(p[i]); i++)
			;
		while (i < n && is_unit(p[i]))
			i++;
		if (i > best)
			best = i;
	}
	return best;
}

static size_t
match_real(const unsigned char *p, size_t n)
{
	size_t i = 0, e;

	if (n > 0 && (p[0] == '-' || p[0] == '+'))
		i = 1;
	while (i < n && is_digit(p[i]))
		i++;
	if (i >= n || p[i] != '.')
		return 0;
	i++;
	while (i < n && is_digit(p[i]))
		i++;
	/* {EXPONENT}? = [Ee]{SIGN}?{DIGIT}+ */
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		e = i + 1;
		if (e < n && (p[e] == '-' || p[e] == '+'))
			e++;
		if (e < n && is_digit(p[e])) {
			while (e < n && is_digit(p[e]))
				e++;
			i = e;
		}
	}
	return i;
}

/* The next token of the line [*pos, n): its kind, start and length. */
static enum tok
next_tok(const unsigned char *line, size_t n, size_t *pos, size_t *start,
	 size_t *len)
{
	static const enum tok order[] = {
		T_ID, T_QUALIFIED_ID, T_STRING, T_UNQUOTED, T_INTEGER, T_REAL,
	};
	size_t i = *pos, best = 0, m;
	enum tok kind = T_ERROR;

	while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	if (i >= n || line[i] == '#') {
		*pos = n;
		return T_EOL;
	}
	*start = i;
	for (size_t k = 0; k < ARRAY_SIZE(order); k++) {
		const unsigned char *p = line + i;

		switch (order[k]) {
		case T_ID: m = match_id(p, n - i); break;
		case T_QUALIFIED_ID: m = match_qualified(p, n - i); break;
		case T_STRING: m = match_string(p, n - i); break;
		case T_UNQUOTED: m = match_unquoted(p, n - i); break;
		case T_INTEGER: m = match_integer(p, n - i); break;
		default: m = match_real(p, n - i); break;
		}
		if (m > best) {   /* strictly longer: ties keep the first */
			best = m;
			kind = order[k];
		}
	}
	if (best == 0) {
		best = 1;
		kind = line[i] == '=' ? T_EQUALS : T_ERROR;
	}
	*len = best;
	*pos = i + best;
	return kind;
}

/* The value of a STRING token @s (quotes included), as
 * DeescapeQuotedString() makes it; *cut when a \0 escape ends it (a C
 * string: PostgreSQL sees only what precedes it). */
static char *
deescape(const unsigned char *s, size_t len, int *cut)
{
	char *out = malloc(len), *w = out;

	if (out == NULL)
		return NULL;
	*cut = 0;
	for (size_t i = 1; i + 1 < len; i++) {
		unsigned char c = s[i];

		if (c == '\\' && i + 2 < len) {
			static const char from[] = "bfnrt", to[] = "\b\f\n\r\t";
			const char *k;

			c = s[++i];
			k = c != '\0' ? strchr(from, c) : NULL;
			if (k != NULL) {
				c = (unsigned char)to[k - from];
			} else if (c >= '0' && c <= '7') {
				int v = 0, d;

				for (d = 0; d < 3 && i + d + 1 < len &&
				     s[i + d] >= '0' && s[i + d] <= '7'; d++)
					v = (v << 3) + (s[i + d] - '0');
				i += (size_t)d - 1;
				c = (unsigned char)v;
			}
		} else if (c == '\'' && s[i + 1] == '\'') {
			i++;
		}
		if (c == '\0' && !*cut)
			*cut = 1;
		if (!*cut)
			*w++ = (char)c;
	}
	*w = '\0';
	return out;
}

static int
name_is(const char *name, const char *directive)
{
	return strcmp(name, directive) == 0;
}

/* One line: an entry for @fn, or nothing for a blank or comment line. */
static int
parse_line(const unsigned char *line, size_t n, unsigned lineno,
	   gucfile_fn fn, void *arg)
{
	struct gucfile_entry e;
	size_t pos = 0, ns = 0, nl = 0, vs = 0, vl = 0, xs, xl;
	enum tok t, vt;
	char *name = NULL, *value = NULL;
	int rc;

	memset(&e, 0, sizeof(e));
	e.line = lineno;
	e.kind = GUCFILE_ERROR;
	if (n > GUCFILE_LINE_MAX) {
		e.why = "line longer than 1 MiB";
		return fn(arg, &e);
	}
	if (memchr(line, '\0', n) != NULL) {
		e.why = "NUL byte in the line";
		return fn(arg, &e);
	}
	t = next_tok(line, n, &pos, &ns, &nl);
	if (t == T_EOL)
		return 0;
	if (t != T_ID && t != T_QUALIFIED_ID) {
		e.why = "a setting name must start with a letter or '_' and "
			"hold at most one dot";
		return fn(arg, &e);
	}
	vt = next_tok(line, n, &pos, &vs, &vl);
	if (vt == T_EQUALS)
		vt = next_tok(line, n, &pos, &vs, &vl);
	if (vt == T_EOL) {
		e.why = "missing value";
		return fn(arg, &e);
	}
	if (vt != T_ID && vt != T_STRING && vt != T_INTEGER && vt != T_REAL &&
	    vt != T_UNQUOTED) {
		e.why = line[vs] == '\'' ? "unterminated quoted string"
		      : "the value must be quoted ('...') unless it is one "
			"word or number";
		return fn(arg, &e);
	}
	if (next_tok(line, n, &pos, &xs, &xl) != T_EOL) {
		e.why = "extra text after the value";
		return fn(arg, &e);
	}
	/* names are case-insensitive (guc_name_compare) */
	name = util_strndup((const char *)line + ns, nl);
	if (vt == T_STRING)
		value = deescape(line + vs, vl, &e.cut);
	else
		value = util_strndup((const char *)line + vs, vl);
	if (name == NULL || value == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (char *q = name; *q; q++)
		if (*q >= 'A' && *q <= 'Z')
			*q = (char)(*q - 'A' + 'a');
	e.kind = name_is(name, "include") || name_is(name, "include_dir") ||
		 name_is(name, "include_if_exists") ? GUCFILE_INCLUDE
		 : GUCFILE_SETTING;
	e.name = name;
	e.value = value;
	rc = fn(arg, &e);
out:
	free(name);
	free(value);
	return rc;
}

int
gucfile_parse(const char *buf, size_t len, gucfile_fn fn, void *arg)
{
	const unsigned char *p = (const unsigned char *)buf;
	const unsigned char *end = p + len;
	unsigned lineno = 0;
	int rc;

	while (p < end) {
		const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);

		lineno++;
		rc = parse_line(p, n, lineno, fn, arg);
		if (rc != 0)
			return rc;
		p += n + (nl != NULL);
	}
	return 0;
}

int
gucfile_load(const char *path, char **buf, size_t *len, char **cause)
{
	struct stat sb;
	size_t cap = 0, n = 0;
	char *b = NULL;
	int fd, rc = 0;

	*buf = NULL;
	*len = 0;
	/* "-" is standard input */
	if (strcmp(path, "-") == 0) {
		fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
		if (fd < 0) {
			rc = -errno;
			util_cause(cause, "%s: %s", path, strerror(errno));
			return rc;
		}
	} else {
		/* a file or a pipe, never a device; a FIFO without a
		 * writer reads as empty */
		int fifo;

		fd = util_open_input(path, &fifo, cause);
		if (fd < 0)
			return fd;
	}
	if (fstat(fd, &sb) < 0) {
		rc = -errno;
		util_cause(cause, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode)) {
		util_cause(cause, "%s: not a regular file (a configuration "
			   "file is text of at most %d MiB)", path,
			   GUCFILE_MAX >> 20);
		rc = -EINVAL;
		goto out;
	}
	if (S_ISREG(sb.st_mode) && sb.st_size > GUCFILE_MAX) {
		util_cause(cause, "%s: larger than %d MiB", path,
			   GUCFILE_MAX >> 20);
		rc = -EFBIG;
		goto out;
	}
	for (;;) {
		ssize_t r;

		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			char *nb;

			if (ncap > (size_t)GUCFILE_MAX + 1)
				ncap = (size_t)GUCFILE_MAX + 1;
			if (ncap <= cap) {
				util_cause(cause, "%s: larger than %d MiB",
					   path, GUCFILE_MAX >> 20);
				rc = -EFBIG;
				goto out;
			}
			nb = realloc(b, ncap);
			if (nb == NULL) {
				rc = -ENOMEM;
				goto out;
			}
			b = nb;
			cap = ncap;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			util_cause(cause, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*buf = b;
	*len = n;
	b = NULL;
out:
	free(b);
	close(fd);
	return rc;
}

int
gucfile_read(const char *path, gucfile_fn fn, void *arg, char **cause)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = gucfile_load(path, &buf, &len, cause);

	if (rc == 0)
		rc = gucfile_parse(buf, len, fn, arg);
	free(buf);
	return rc;
}
