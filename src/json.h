/* SPDX-License-Identifier: PostgreSQL */
/* json.h - the one JSON reader: a cursor, strict (RFC 8259) or loose
 * (json.c). */
#ifndef PGSC_JSON_H
#define PGSC_JSON_H

#include "pgsc-int.h"

/* json.c - the one JSON reader: a cursor, strict (RFC 8259) or loose */
struct json {
	const char *start, *p, *end;
	int depth, maxdepth;
	int strict;
	int failed;             /* json_fail() was called: */
	size_t fail_at;         /* the byte where, */
	int fail_end;           /* whether that was the end, */
	char why[128];          /* and why */
};
struct json_str {
	size_t len;             /* decoded bytes, even past the buffer */
	int over;               /* did not fit (with its NUL) */
	int nul;                /* held \u0000 */
	int nonascii;           /* held a byte past 0x7f */
};
void json_init(struct json *j, const char *buf, size_t len, int strict,
	       int maxdepth);
int json_fail(struct json *j, const char *fmt, ...) PGSC_PRINTF(2, 3);
void json_ws(struct json *j);
int json_eat(struct json *j, char c);
int json_at(struct json *j, char c);
int json_next(struct json *j, char close);
int json_string(struct json *j, char *dst, size_t cap, struct json_str *s);
int json_skip(struct json *j);
#define JSON_KEY_MAX 64         /* a name json_each_member() hands on */
int json_each_member(struct json *j,
		     int (*fn)(struct json *j, const char *key, void *arg),
		     void *arg);
int json_each_element(struct json *j,
		      int (*fn)(struct json *j, void *arg), void *arg);
int json_read_object(struct json *j, const char *buf, size_t len,
		     int maxdepth,
		     int (*fn)(struct json *j, const char *key, void *arg),
		     void *arg);
int json_int(struct json *j, long long *v);
int json_strdup(struct json *j, size_t max, char **out);
size_t json_fail_line(const struct json *j);

#endif
