/* SPDX-License-Identifier: PostgreSQL */
/* pglog.h - PostgreSQL server logs as attribution hints (pglog*.c). */
#ifndef PGSC_PGLOG_H
#define PGSC_PGLOG_H

#include "pgsc-int.h"

/* pglog.c - PostgreSQL server logs as attribution hints. */
struct pglog;
int pglog_new(struct pglog **out);
void pglog_free(struct pglog *l);
int pglog_load(struct pglog *l, const char *path, const char *prefix,
	       char **cause);
/* Backend type of @pid around time @t, or NULL. */
const char *pglog_lookup(const struct pglog *l, int64_t pid, double t);
size_t pglog_count(const struct pglog *l);

/* pglog_value.c - the values of server log lines */
#define PGLOG_TYPE_MAX 64       /* bytes of a backend type */
/* Each returns the bytes it used (or 1 for a whole value), 0 if none. */
size_t pglog_parse_time(const char *s, size_t n, double *out);
size_t pglog_parse_epoch(const char *s, size_t n, double *out);
int pglog_parse_pid(const char *s, size_t n, int64_t *out);
int pglog_type_ok(const char *s, size_t n);

/* pglog_prefix.c - stderr logs: log_line_prefix, compiled and matched */
#define PGLOG_PFX_LEN 1024      /* log_line_prefix bytes */
#define PGLOG_PFX_ELEMS 256
struct pglog_pelem {
	int kind;
	int pad;                /* log_line_prefix padding, 0 if none */
	size_t off, len;        /* PE_LIT: text in prefix.lit */
};
struct pglog_prefix {
	struct pglog_pelem e[PGLOG_PFX_ELEMS];
	size_t n;
	char lit[PGLOG_PFX_LEN];
	size_t litlen;
	int has_pid, has_type, has_ts;
	const char *why;        /* why the prefix cannot be used, or NULL */
};
struct pglog_hit {
	int64_t pid;
	const char *type;       /* in the line, not terminated */
	size_t type_len;
	double first, last;
};
void pglog_prefix_compile(struct pglog_prefix *pf, const char *s);
int pglog_prefix_match(const struct pglog_prefix *pf, const char *s,
		       size_t n, struct pglog_hit *h);

#endif
