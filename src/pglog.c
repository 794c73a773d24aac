/* SPDX-License-Identifier: PostgreSQL */
/* pglog.c - PostgreSQL server logs (csvlog, jsonlog, stderr) as backend-type hints. */
/*
 * When an audit log carries no process-tree information, a PostgreSQL
 * server log can still say which backend type a pid was at a given time.
 * pglog_load() reads one log file and keeps, for every (pid, backend type)
 * pair it sees, the interval [first, last] of the log timestamps of that
 * pair.  pglog_lookup() answers "what was pid P around time T".
 *
 * Formats, detected per file from its first non-empty line:
 *   - csvlog: the line starts with a timestamp and a comma.  Columns 1
 *     (log_time), 4 (process_id) and 24 (backend_type) of PostgreSQL
 *     13-17 are used; quoted fields may span lines.
 *   - jsonlog: the line starts with '{'.  Keys "timestamp", "pid" and
 *     "backend_type" of a flat object are used.
 *   - stderr: anything else, read through log_line_prefix (default
 *     "%m [%p] %b ").  The prefix must contain %p and %b; without %m, %t
 *     or %n the intervals are unbounded.  Lines starting with a tab are
 *     continuations of a multi-line message and lines that cannot start
 *     the prefix are output of other programs; both are skipped quietly.
 *
 * Timestamps are "YYYY-MM-DD HH:MM:SS[.fff] TZ".  TZ may be UTC, GMT, UT,
 * Z or a numeric offset (+01, -0530, +05:30).  Any other abbreviation
 * (CET, EST, ...) is taken as the local time zone of this process
 * through mktime(): set TZ to the server's log_timezone to get them right.
 *
 * Everything is bounded: lines (and runaway csv records) over
 * PGLOG_LINE_MAX are skipped, captured values are small fixed buffers,
 * and memory grows with the number of distinct (pid, type) pairs only.
 * Malformed lines are counted, not fatal, unless they are more than half
 * of the lines that looked like log entries.  A failed load leaves the
 * pglog unchanged (except when memory runs out while merging).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "pgsc-int.h"
#include "json.h"
#include "pglog.h"

#define PGLOG_LINE_MAX (1024 * 1024)    /* longer lines are skipped */
#define PGLOG_SLACK 2.0                 /* seconds audit and log disagree */
#define PGLOG_DEFAULT_PREFIX "%m [%p] %b "

#define RD_CAP (PGLOG_LINE_MAX + 64 * 1024)
#define RD_START (64 * 1024)    /* most logs never need more */
/* A server log from a pipe: read to its end, up to this (a file is as
 * long as it is) */
#define PGLOG_STREAM_MAX (UINT64_C(16) << 30)
#define CAP_MAX 128             /* bytes kept of a captured value */
#define CSV_TYPE_FIELD 24       /* backend_type is csvlog column 24 */
#define NONE SIZE_MAX


/* ------------------------------------------------------------------ */
/* The table                                                           */
/* ------------------------------------------------------------------ */

struct pgent {
	int64_t pid;
	const char *type;       /* interned in pglog.types */
	double first, last;
	size_t next;            /* older entry of the same pid, or NONE */
};

struct pglog {
	struct pgent *ents;
	size_t n, cap;
	size_t *pairs;          /* (pid, type) -> entry index + 1, 0 empty */
	size_t pairs_cap;
	size_t *pids;           /* pid -> index + 1 of its newest entry */
	size_t pids_cap, npids;
	char **types;           /* interned backend types, NULL empty */
	size_t types_cap, ntypes;
};

int
pglog_new(struct pglog **out)
{
	struct pglog *l = calloc(1, sizeof(*l));

	*out = l;
	return l != NULL ? 0 : -ENOMEM;
}

void
pglog_free(struct pglog *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < l->types_cap; i++)
		free(l->types[i]);
	void *owned[] = { l->types, l->pairs, l->pids, l->ents, l };

	for (size_t i = 0; i < ARRAY_SIZE(owned); i++)
		free(owned[i]);
}

size_t
pglog_count(const struct pglog *l)
{
	return l != NULL ? l->n : 0;
}

static uint64_t
hash_pid(int64_t pid)
{
	return util_hash(&pid, sizeof(pid), 0x5bd1e9955bd1e995ULL);
}

static uint64_t
hash_pair(int64_t pid, const char *type)
{
	return util_hash(&pid, sizeof(pid), (uint64_t)(uintptr_t)type);
}

/* The slot of @pid in the pid index: its own or the empty one to fill. */
static size_t
pid_slot(const struct pglog *l, int64_t pid)
{
	size_t mask = l->pids_cap - 1;
	size_t i = (size_t)hash_pid(pid) & mask;

	while (l->pids[i] != 0 && l->ents[l->pids[i] - 1].pid != pid)
		i = (i + 1) & mask;
	return i;
}

static size_t
pair_slot(const struct pglog *l, int64_t pid, const char *type)
{
	size_t mask = l->pairs_cap - 1;
	size_t i = (size_t)hash_pair(pid, type) & mask;

	while (l->pairs[i] != 0) {
		const struct pgent *e = &l->ents[l->pairs[i] - 1];

		if (e->pid == pid && e->type == type)
			break;
		i = (i + 1) & mask;
	}
	return i;
}

static int
pids_grow(struct pglog *l)
{
	size_t cap = l->pids_cap ? l->pids_cap * 2 : 64;
	size_t *old = l->pids, oldcap = l->pids_cap;
	size_t *nt = calloc(cap, sizeof(*nt));

	if (nt == NULL)
		return -ENOMEM;
	l->pids = nt;
	l->pids_cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i] != 0)
			l->pids[pid_slot(l, l->ents[old[i] - 1].pid)] = old[i];
	free(old);
	return 0;
}

static int
pairs_grow(struct pglog *l)
{
	size_t cap = l->pairs_cap ? l->pairs_cap * 2 : 64;
	size_t *nt = calloc(cap, sizeof(*nt));

	if (nt == NULL)
		return -ENOMEM;
	free(l->pairs);
	l->pairs = nt;
	l->pairs_cap = cap;
	for (size_t i = 0; i < l->n; i++)
		l->pairs[pair_slot(l, l->ents[i].pid, l->ents[i].type)] = i + 1;
	return 0;
}

/* The pglog's own copy of backend type @s (@len bytes), NULL if OOM. */
static const char *
type_intern(struct pglog *l, const char *s, size_t len)
{
	size_t mask, i;

	if ((l->ntypes + 1) * 2 > l->types_cap) {
		size_t cap = l->types_cap ? l->types_cap * 2 : 16;
		char **nt = calloc(cap, sizeof(*nt));

		if (nt == NULL)
			return NULL;
		for (i = 0; i < l->types_cap; i++) {
			char *t = l->types[i];
			size_t j;

			if (t == NULL)
				continue;
			j = (size_t)util_hash(t, strlen(t), 0) & (cap - 1);
			while (nt[j] != NULL)
				j = (j + 1) & (cap - 1);
			nt[j] = t;
		}
		free(l->types);
		l->types = nt;
		l->types_cap = cap;
	}
	mask = l->types_cap - 1;
	i = (size_t)util_hash(s, len, 0) & mask;
	while (l->types[i] != NULL) {
		if (strncmp(l->types[i], s, len) == 0 &&
		    l->types[i][len] == '\0')
			return l->types[i];
		i = (i + 1) & mask;
	}
	l->types[i] = util_strndup(s, len);
	if (l->types[i] == NULL)
		return NULL;
	l->ntypes++;
	return l->types[i];
}

/* Widen the interval of (@pid, @type) to cover [@first, @last]. */
static int
pglog_add(struct pglog *l, int64_t pid, const char *type, size_t tlen,
	  double first, double last)
{
	const char *t;
	struct pgent *e;
	size_t qs, ps, idx;

	/* A backend logs "connection received" before it knows whether it
	 * becomes a client backend or a walsender: that says nothing. */
	if (tlen == 15 && memcmp(type, "not initialized", 15) == 0)
		return 0;
	t = type_intern(l, type, tlen);
	if (t == NULL)
		return -ENOMEM;
	if ((l->n + 1) * 2 > l->pairs_cap && pairs_grow(l) < 0)
		return -ENOMEM;
	if ((l->npids + 1) * 2 > l->pids_cap && pids_grow(l) < 0)
		return -ENOMEM;
	qs = pair_slot(l, pid, t);
	if (l->pairs[qs] != 0) {
		e = &l->ents[l->pairs[qs] - 1];
		util_widen_span(&e->first, &e->last, first, last);
		return 0;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct pgent *ne = realloc(l->ents, cap * sizeof(*ne));

		if (ne == NULL)
			return -ENOMEM;
		l->ents = ne;
		l->cap = cap;
	}
	idx = l->n;
	e = &l->ents[idx];
	e->pid = pid;
	e->type = t;
	e->first = first;
	e->last = last;
	ps = pid_slot(l, pid);
	if (l->pids[ps] != 0) {
		e->next = l->pids[ps] - 1;
	} else {
		e->next = NONE;
		l->npids++;
	}
	l->pids[ps] = idx + 1;
	l->pairs[qs] = idx + 1;
	l->n++;
	return 0;
}

const char *
pglog_lookup(const struct pglog *l, int64_t pid, double t)
{
	const struct pgent *e, *best = NULL;
	double best_d = 0, best_w = 0;
	size_t i, ntypes = 0;
	int tie = 0;

	if (l == NULL || l->n == 0)
		return NULL;
	i = pid_slot(l, pid);
	if (l->pids[i] == 0)
		return NULL;
	if (t == 0 || isnan(t)) {
		for (i = l->pids[i] - 1; i != NONE; i = l->ents[i].next) {
			best = &l->ents[i];
			ntypes++;
		}
		return ntypes == 1 ? best->type : NULL;
	}
	for (i = l->pids[i] - 1; i != NONE; i = l->ents[i].next) {
		double d = 0, w;

		e = &l->ents[i];
		if (t < e->first)
			d = e->first - t;
		else if (t > e->last)
			d = t - e->last;
		if (!(d <= PGLOG_SLACK))
			continue;
		w = e->last - e->first;
		if (best == NULL || d < best_d || (d == best_d && w < best_w)) {
			best = e;
			best_d = d;
			best_w = w;
			tie = 0;
		} else if (d == best_d && w == best_w) {
			tie = 1;        /* two types equally likely: no answer */
		}
	}
	return best != NULL && !tie ? best->type : NULL;
}

/* ------------------------------------------------------------------ */
/* Values: times, pids and backend types are read by pglog_value.c     */
/* ------------------------------------------------------------------ */

/* Are the @n bytes at @s all blanks (space, tab, CR, FF, VT)? */
static int
is_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' &&
		    s[i] != '\f' && s[i] != '\v')
			return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* Reading lines                                                       */
/* ------------------------------------------------------------------ */

/* Hands out physical lines in segments of at most PGLOG_LINE_MAX bytes;
 * a normal line is one segment with first and last set. */
struct reader {
	FILE *f;
	char *buf;
	size_t cap;             /* grows from RD_START to RD_CAP */
	size_t pos, len, scan;
	int eof, midline;
	uint64_t read, max;     /* bytes read; a pipe's cap */
};

/* 1 with a segment, 0 at the end, or a negative errno. */
static int
rd_next(struct reader *r, const char **p, size_t *n, int *first, int *last)
{
	for (;;) {
		char *nl = NULL;

		if (r->scan < r->pos)
			r->scan = r->pos;
		if (r->scan < r->len)
			nl = memchr(r->buf + r->scan, '\n', r->len - r->scan);
		if (nl != NULL) {
			*p = r->buf + r->pos;
			*n = (size_t)(nl - (r->buf + r->pos));
			*first = !r->midline;
			*last = 1;
			r->midline = 0;
			r->pos = r->scan = (size_t)(nl - r->buf) + 1;
			return 1;
		}
		r->scan = r->len;
		if (r->len - r->pos >= PGLOG_LINE_MAX) {
			*p = r->buf + r->pos;
			*n = PGLOG_LINE_MAX;
			*first = !r->midline;
			*last = 0;
			r->midline = 1;
			r->pos += PGLOG_LINE_MAX;
			return 1;
		}
		if (r->eof) {
			if (r->pos == r->len)
				return 0;
			*p = r->buf + r->pos;
			*n = r->len - r->pos;
			*first = !r->midline;
			*last = 1;
			r->midline = 0;
			r->pos = r->scan = r->len;
			return 1;
		}
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->scan -= r->pos;
		r->pos = 0;
		if (r->len == r->cap && r->cap < RD_CAP) {
			/* a line longer than the buffer: grow, up to RD_CAP */
			size_t ncap = r->cap * 2 < RD_CAP ? r->cap * 2 : RD_CAP;
			char *nb = realloc(r->buf, ncap);

			if (nb == NULL)
				return -ENOMEM;
			r->buf = nb;
			r->cap = ncap;
		}
		{
			size_t got = fread(r->buf + r->len, 1,
					   r->cap - r->len, r->f);

			if (got == 0) {
				if (ferror(r->f))
					return errno != 0 ? -errno : -EIO;
				r->eof = 1;
			}
			r->len += got;
			r->read += got;
			if (r->read > r->max)
				return -EFBIG;
		}
	}
}

/* ------------------------------------------------------------------ */
/* Loading                                                             */
/* ------------------------------------------------------------------ */

enum { FMT_NONE, FMT_CSV, FMT_JSON, FMT_STDERR };
enum { LN_SKIP, LN_OK, LN_BAD };

struct csvstate {
	int active;             /* a record is open */
	int inq, qpend;         /* inside quotes; saw '"' inside quotes */
	int quoted, closed;     /* this field was quoted; its quote closed */
	int bad;                /* the record breaks csv rules */
	size_t field;           /* 1-based number of the current field */
	size_t flen;            /* bytes in the current field */
	uint64_t line;          /* where the record starts */
	uint64_t bytes;
	char cap[3][CAP_MAX];   /* log_time, process_id, backend_type */
	size_t caplen[3];       /* may exceed CAP_MAX: value too long */
};

struct load {
	struct pglog *tmp;      /* this file's pairs, merged on success */
	int fmt;
	struct pglog_prefix pf;
	struct csvstate csv;
	uint64_t lineno, candidates, malformed, first_bad, too_long;
	int err;
};

static void
note_bad(struct load *ld, uint64_t line)
{
	ld->malformed++;
	if (ld->first_bad == 0)
		ld->first_bad = line;
}

static void
note_hit(struct load *ld, int64_t pid, const char *type, size_t tlen,
	 double first, double last)
{
	if (pglog_add(ld->tmp, pid, type, tlen, first, last) < 0)
		ld->err = -ENOMEM;
}

static int
looks_csv(const char *s, size_t n)
{
	double t;
	size_t k = pglog_parse_time(s, n, &t);

	return k > 0 && k < n && s[k] == ',';
}

/* --- csvlog ------------------------------------------------------- */

static void
csv_add(struct csvstate *c, char ch)
{
	int slot = c->field == 1 ? 0 : c->field == 4 ? 1 :
		   c->field == CSV_TYPE_FIELD ? 2 : -1;

	c->flen++;
	if (slot < 0)
		return;
	if (c->caplen[slot] < CAP_MAX)
		c->cap[slot][c->caplen[slot]] = ch;
	if (c->caplen[slot] <= CAP_MAX)
		c->caplen[slot]++;
}

static void
csv_byte(struct csvstate *c, char ch)
{
	if (c->qpend) {
		c->qpend = 0;
		if (ch == '"') {
			csv_add(c, '"');
			return;
		}
		c->inq = 0;
		c->closed = 1;
	}
	if (c->inq) {
		if (ch == '"')
			c->qpend = 1;
		else
			csv_add(c, ch);
		return;
	}
	switch (ch) {
	case ',':
		c->field++;
		c->flen = 0;
		c->quoted = c->closed = 0;
		break;
	case '"':
		if (c->flen == 0 && !c->quoted) {
			c->inq = c->quoted = 1;
		} else {
			c->bad = 1;
		}
		break;
	case '\r':
		break;
	default:
		if (c->closed)
			c->bad = 1;
		else
			csv_add(c, ch);
		break;
	}
}

static void
csv_end(struct load *ld, int force_bad)
{
	struct csvstate *c = &ld->csv;
	double t;
	int64_t pid;

	c->active = 0;
	ld->candidates++;
	if (force_bad || c->bad || c->inq || c->field < CSV_TYPE_FIELD ||
	    c->caplen[0] > CAP_MAX || c->caplen[1] > CAP_MAX ||
	    c->caplen[2] > CAP_MAX ||
	    pglog_parse_time(c->cap[0], c->caplen[0], &t) != c->caplen[0] ||
	    !pglog_parse_pid(c->cap[1], c->caplen[1], &pid) ||
	    !pglog_type_ok(c->cap[2], c->caplen[2])) {
		note_bad(ld, c->line);
		return;
	}
	note_hit(ld, pid, c->cap[2], c->caplen[2], t, t);
}

static void
csv_segment(struct load *ld, const char *s, size_t n, int first, int last)
{
	struct csvstate *c = &ld->csv;

	/* A quote that never closes would swallow the rest of the file:
	 * past the line bound, a line that starts a record wins. */
	if (first && c->active && c->bytes > PGLOG_LINE_MAX &&
	    looks_csv(s, n))
		csv_end(ld, 1);
	if (!c->active) {
		if (!first || (last && is_blank(s, n)))
			return;
		memset(c, 0, sizeof(*c));
		c->active = 1;
		c->field = 1;
		c->line = ld->lineno;
	}
	for (size_t i = 0; i < n; i++)
		csv_byte(c, s[i]);
	c->bytes += n + (last ? 1 : 0);
	if (!last)
		return;
	if (c->inq && !c->qpend) {
		csv_add(c, '\n');
		return;
	}
	if (c->qpend) {
		c->qpend = c->inq = 0;
		c->closed = 1;
	}
	csv_end(ld, 0);
}

/* --- jsonlog ------------------------------------------------------ */

/* A string member's value, decoded by the loose JSON reader: jsonlog is
 * written in the server's encoding, so only ASCII values are used. */
static int
json_value(struct json *j, char *dst, size_t cap, struct json_str *st)
{
	return j->p < j->end && *j->p == '"' &&
	       json_string(j, dst, cap, st) == 0 && !st->over &&
	       !st->nonascii;
}

/* The "pid" member: digits only, as PostgreSQL writes it. */
static int
json_pid(struct json *j, int64_t *pid)
{
	const char *b = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return pglog_parse_pid(b, (size_t)(j->p - b), pid) &&
	       !(j->p < j->end && (*j->p == '.' || *j->p == 'e' ||
				   *j->p == 'E'));
}

static int
json_line(struct load *ld, const char *s, size_t n)
{
	char key[CAP_MAX + 1], ts[CAP_MAX + 1], ty[CAP_MAX + 1];
	struct json_str kst, tsst, tyst;
	int have_ts = 0, have_pid = 0, have_ty = 0;
	int64_t pid = 0;
	struct json j;
	double t;

	json_init(&j, s, n, 0, 64);
	if (!json_eat(&j, '{'))
		return LN_BAD;
	if (json_eat(&j, '}'))
		goto end;
	for (;;) {
		if (!json_at(&j, '"') ||
		    json_string(&j, key, sizeof(key), &kst) < 0 ||
		    !json_eat(&j, ':'))
			return LN_BAD;
		json_ws(&j);
		if (kst.over || kst.nonascii) {
			if (json_skip(&j) < 0)
				return LN_BAD;
		} else if (kst.len == 9 && memcmp(key, "timestamp", 9) == 0) {
			if (have_ts || !json_value(&j, ts, sizeof(ts), &tsst))
				return LN_BAD;
			have_ts = 1;
		} else if (kst.len == 12 &&
			   memcmp(key, "backend_type", 12) == 0) {
			if (have_ty || !json_value(&j, ty, sizeof(ty), &tyst))
				return LN_BAD;
			have_ty = 1;
		} else if (kst.len == 3 && memcmp(key, "pid", 3) == 0) {
			if (have_pid || !json_pid(&j, &pid))
				return LN_BAD;
			have_pid = 1;
		} else if (json_skip(&j) < 0) {
			return LN_BAD;
		}
		if (json_eat(&j, ','))
			continue;
		if (json_eat(&j, '}'))
			break;
		return LN_BAD;
	}
end:
	json_ws(&j);
	if (j.p != j.end || !have_ts || !have_pid || !have_ty)
		return LN_BAD;
	if (pglog_parse_time(ts, tsst.len, &t) != tsst.len ||
	    !pglog_type_ok(ty, tyst.len))
		return LN_BAD;
	note_hit(ld, pid, ty, tyst.len, t, t);
	return LN_OK;
}

/* --- stderr with log_line_prefix ----------------------------------- */

static int
stderr_line(struct load *ld, const char *s, size_t n)
{
	struct pglog_hit h;
	int r = pglog_prefix_match(&ld->pf, s, n, &h);

	if (r <= 0)
		return r < 0 ? LN_BAD : LN_SKIP;
	note_hit(ld, h.pid, h.type, h.type_len, h.first, h.last);
	return LN_OK;
}

/* --- driver --------------------------------------------------------- */

static const char *
fmt_name(int fmt)
{
	switch (fmt) {
	case FMT_CSV:
		return "csvlog";
	case FMT_JSON:
		return "jsonlog";
	default:
		return "stderr";
	}
}

static int
load_segment(struct load *ld, const char *path, const char *prefix,
	     const char *s, size_t n, int first, int last, char **cause)
{
	int r;

	if (ld->fmt == FMT_NONE) {
		size_t i = 0;

		if (!first)
			return 0;
		while (i < n && is_blank(s + i, 1))
			i++;
		if (i == n)
			return 0;
		if (s[i] == '{') {
			ld->fmt = FMT_JSON;
		} else if (looks_csv(s, n)) {
			ld->fmt = FMT_CSV;
		} else {
			ld->fmt = FMT_STDERR;
			if (ld->pf.why != NULL) {
				util_cause(cause, "pglog: %s: stderr log, but "
					   "log_line_prefix \"%.200s\" %s",
					   path, prefix, ld->pf.why);
				return -EINVAL;
			}
		}
	}
	if (ld->fmt == FMT_CSV) {
		csv_segment(ld, s, n, first, last);
		return ld->err;
	}
	if (!first || !last) {
		if (first)
			ld->too_long++;
		return 0;
	}
	if (n > 0 && s[n - 1] == '\r')
		n--;
	if (is_blank(s, n))
		return 0;
	r = ld->fmt == FMT_JSON ? json_line(ld, s, n) : stderr_line(ld, s, n);
	if (r != LN_SKIP)
		ld->candidates++;
	if (r == LN_BAD)
		note_bad(ld, ld->lineno);
	return ld->err;
}

int
pglog_load(struct pglog *l, const char *path, const char *prefix,
	   char **cause)
{
	struct load *ld = NULL;
	struct reader rd;
	const char *s = NULL;
	size_t n = 0;
	int first = 0, last = 0, r, ret;

	memset(&rd, 0, sizeof(rd));
	if (l == NULL || path == NULL) {
		util_cause(cause, "pglog: no log to load");
		ret = -EINVAL;
		goto out;
	}
	if (prefix == NULL)
		prefix = PGLOG_DEFAULT_PREFIX;
	ld = calloc(1, sizeof(*ld));
	rd.cap = RD_START;
	rd.buf = malloc(rd.cap);
	if (ld == NULL || rd.buf == NULL || pglog_new(&ld->tmp) < 0) {
		util_cause(cause, "pglog: out of memory");
		ret = -ENOMEM;
		goto out;
	}
	pglog_prefix_compile(&ld->pf, prefix);
	/* a file, or a pipe read to its end (<(zcat ...)); never a device
	 * (/dev/zero was read for ever, the store locked),
	 * never an open() that waits for a FIFO's writer; a pipe's text is
	 * capped at PGLOG_STREAM_MAX */
	{
		int fifo, fd = util_open_input(path, &fifo, NULL);

		if (fd < 0) {
			ret = fd;
			util_cause(cause, "pglog: cannot open %s: %s", path,
				   fd == -EINVAL ? "not a regular file or a "
				   "pipe" : strerror(-fd));
			goto out;
		}
		rd.f = fdopen(fd, "r");
		if (rd.f == NULL) {
			ret = -errno;
			close(fd);
			util_cause(cause, "pglog: cannot open %s: %s", path,
				   strerror(-ret));
			goto out;
		}
		rd.max = fifo ? PGLOG_STREAM_MAX : UINT64_MAX;
	}
	while ((r = rd_next(&rd, &s, &n, &first, &last)) > 0) {
		if (first)
			ld->lineno++;
		ret = load_segment(ld, path, prefix, s, n, first, last, cause);
		if (ret == -ENOMEM)
			util_cause(cause, "pglog: out of memory");
		if (ret < 0)
			goto out;
	}
	if (r < 0) {
		ret = r;
		util_cause(cause, "pglog: cannot read %s: %s", path,
			   r == -EFBIG ? "a pipe of more than 16 GiB" :
			   strerror(-r));
		goto out;
	}
	if (ld->fmt == FMT_CSV && ld->csv.active)
		csv_end(ld, 1);         /* a quote never closed */
	if (ld->malformed * 2 > ld->candidates) {
		util_cause(cause, "pglog: %s: %" PRIu64 " of %" PRIu64
			   " %s entries are malformed (first at line %"
			   PRIu64 ")", path, ld->malformed, ld->candidates,
			   fmt_name(ld->fmt), ld->first_bad);
		ret = -EINVAL;
		goto out;
	}
	for (size_t i = 0; i < ld->tmp->n; i++) {
		const struct pgent *e = &ld->tmp->ents[i];

		if (pglog_add(l, e->pid, e->type, strlen(e->type), e->first,
			      e->last) < 0) {
			util_cause(cause, "pglog: out of memory");
			ret = -ENOMEM;
			goto out;
		}
	}
	ret = 0;
out:
	if (rd.f != NULL)
		fclose(rd.f);
	free(rd.buf);
	if (ld != NULL)
		pglog_free(ld->tmp);
	free(ld);
	return ret;
}
