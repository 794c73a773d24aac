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
#include <time.h>

#include "pgsc-int.h"

#define PGLOG_LINE_MAX (1024 * 1024)    /* longer lines are skipped */
#define PGLOG_TYPE_MAX 64               /* bytes of a backend type */
#define PGLOG_SLACK 2.0                 /* seconds audit and log disagree */
#define PGLOG_DEFAULT_PREFIX "%m [%p] %b "

#define RD_CAP (PGLOG_LINE_MAX + 64 * 1024)
#define RD_START (64 * 1024)    /* most logs never need more */
#define CAP_MAX 128             /* bytes kept of a captured value */
#define CSV_TYPE_FIELD 24       /* backend_type is csvlog column 24 */
#define PFX_MAX_LEN 1024        /* log_line_prefix bytes */
#define PFX_MAX_ELEMS 256
#define PAD_MAX 1000            /* %-NNNx padding we follow */
#define SKIP_MAX 2048           /* bytes of a skipped escape's value */
#define MATCH_MAX_STEPS 8192    /* matching work per line and pass */
#define NONE SIZE_MAX

UNITTEST size_t pglog_parse_time(const char *s, size_t n, double *out);
UNITTEST int pglog_type_ok(const char *s, size_t n);

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
	free(l->types);
	free(l->pairs);
	free(l->pids);
	free(l->ents);
	free(l);
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
intern(struct pglog *l, const char *s, size_t len)
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
	t = intern(l, type, tlen);
	if (t == NULL)
		return -ENOMEM;
	if ((l->n + 1) * 2 > l->pairs_cap && pairs_grow(l) < 0)
		return -ENOMEM;
	if ((l->npids + 1) * 2 > l->pids_cap && pids_grow(l) < 0)
		return -ENOMEM;
	qs = pair_slot(l, pid, t);
	if (l->pairs[qs] != 0) {
		e = &l->ents[l->pairs[qs] - 1];
		if (first < e->first)
			e->first = first;
		if (last > e->last)
			e->last = last;
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
/* Values                                                              */
/* ------------------------------------------------------------------ */

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

static int
is_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' &&
		    s[i] != '\f' && s[i] != '\v')
			return 0;
	return 1;
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
UNITTEST size_t
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
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = yr - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = dd;
	tm.tm_hour = hh;
	tm.tm_min = mi;
	tm.tm_sec = ss;
	if (utc) {
		tt = timegm(&tm);
	} else {
		tm.tm_isdst = -1;
		tt = mktime(&tm);
	}
	if (tt == (time_t)-1)
		return 0;
	*out = (double)tt - (double)off + frac;
	return i;
}

/* Epoch seconds with optional fraction (%n), bytes used or 0. */
static size_t
parse_epoch(const char *s, size_t n, double *out)
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
static int
parse_pid(const char *s, size_t n, int64_t *out)
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
UNITTEST int
pglog_type_ok(const char *s, size_t n)
{
	if (n == 0 || n > PGLOG_TYPE_MAX || s[0] == ' ' || s[n - 1] == ' ')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
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
		}
	}
}

/* ------------------------------------------------------------------ */
/* Loading                                                             */
/* ------------------------------------------------------------------ */

enum { FMT_NONE, FMT_CSV, FMT_JSON, FMT_STDERR };
enum { LN_SKIP, LN_OK, LN_BAD };
enum { PE_LIT, PE_TS, PE_EPOCH, PE_PID, PE_TYPE, PE_SKIP, PE_Q };

struct pelem {
	int kind;
	int pad;                /* log_line_prefix padding, 0 if none */
	size_t off, len;        /* PE_LIT: text in prefix.lit */
};

struct prefix {
	struct pelem e[PFX_MAX_ELEMS];
	size_t n;
	char lit[PFX_MAX_LEN];
	size_t litlen;
	int has_pid, has_type, has_ts;
	const char *why;        /* why the prefix cannot be used, or NULL */
};

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
	struct prefix pf;
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
	    !parse_pid(c->cap[1], c->caplen[1], &pid) ||
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

	while (j->p < j->end && is_digit(*j->p))
		j->p++;
	return parse_pid(b, (size_t)(j->p - b), pid) &&
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

static void
pf_push(struct prefix *pf, int kind, int pad)
{
	/* Adjacent skipped values are one value; so are adjacent texts. */
	if (pf->n > 0 && kind == PE_SKIP && pf->e[pf->n - 1].kind == PE_SKIP)
		return;
	if (pf->n == PFX_MAX_ELEMS) {
		pf->why = "has too many escapes";
		return;
	}
	memset(&pf->e[pf->n], 0, sizeof(pf->e[0]));
	pf->e[pf->n].kind = kind;
	pf->e[pf->n].pad = pad;
	pf->n++;
}

static void
pf_lit(struct prefix *pf, char c)
{
	if (pf->n == 0 || pf->e[pf->n - 1].kind != PE_LIT) {
		pf_push(pf, PE_LIT, 0);
		if (pf->why != NULL)
			return;
		pf->e[pf->n - 1].off = pf->litlen;
	}
	pf->lit[pf->litlen++] = c;
	pf->e[pf->n - 1].len++;
}

/* Compile log_line_prefix @s the way PostgreSQL's log_line_prefix() reads
 * it; unknown escapes print nothing there, so they match nothing here. */
static void
pf_compile(struct prefix *pf, const char *s)
{
	memset(pf, 0, sizeof(*pf));
	if (strlen(s) >= PFX_MAX_LEN) {
		pf->why = "is too long";
		return;
	}
	for (const char *p = s; *p != '\0' && pf->why == NULL; p++) {
		int pad = 0, sign = 1;

		if (*p != '%') {
			pf_lit(pf, *p);
			continue;
		}
		p++;
		if (*p == '-') {
			sign = -1;
			p++;
		}
		while (is_digit(*p)) {
			if (pad < PAD_MAX)
				pad = pad * 10 + (*p - '0');
			p++;
		}
		if (pad > PAD_MAX)
			pad = PAD_MAX;
		pad *= sign;
		if (*p == '\0')
			break;
		switch (*p) {
		case 'm': case 't':
			pf_push(pf, PE_TS, pad);
			pf->has_ts = 1;
			break;
		case 'n':
			pf_push(pf, PE_EPOCH, pad);
			pf->has_ts = 1;
			break;
		case 'p':
			pf_push(pf, PE_PID, pad);
			pf->has_pid = 1;
			break;
		case 'b':
			pf_push(pf, PE_TYPE, pad);
			pf->has_type = 1;
			break;
		case 'q':
			pf_push(pf, PE_Q, 0);
			break;
		case '%':
			pf_lit(pf, '%');
			break;
		case 'a': case 'u': case 'd': case 'r': case 'h': case 'c':
		case 'l': case 's': case 'v': case 'x': case 'e': case 'i':
		case 'Q': case 'P': case 'L':
			pf_push(pf, PE_SKIP, pad);
			break;
		default:
			break;
		}
	}
	if (pf->why == NULL && !pf->has_pid)
		pf->why = "has no %p (process id)";
	if (pf->why == NULL && !pf->has_type)
		pf->why = "has no %b (backend type)";
}

/* Backend types of PostgreSQL 13-17, longest first. */
static const char *const known_types[] = {
	"logical replication tablesync worker",
	"logical replication parallel worker",
	"logical replication apply worker",
	"logical replication launcher",
	"logical replication worker",
	"autovacuum launcher",
	"standalone backend",
	"background writer",
	"background worker",
	"autovacuum worker",
	"not initialized",
	"parallel worker",
	"slotsync worker",
	"client backend",
	"walsummarizer",
	"checkpointer",
	"walreceiver",
	"postmaster",
	"walsender",
	"walwriter",
	"io worker",
	"archiver",
	"startup",
	"logger",
};

struct match {
	const struct prefix *pf;
	const char *s;
	size_t n;
	unsigned int steps;
	int need_label;
	/* Values found; *_at is the element index + 1 that set them. */
	double ts;
	size_t ts_at;
	int64_t pid;
	size_t pid_at;
	const char *type;
	size_t type_len, type_at;
};

/* Does the message start here ("LOG:  ", "ERROR:  ", "DETAIL:  ")? */
static int
label_at(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && i < 32 && (unsigned char)s[i] > 0x20 &&
	       s[i] != ':' && s[i] != 0x7f)
		i++;
	return i > 0 && n - i >= 3 && s[i] == ':' && s[i + 1] == ' ' &&
	       s[i + 2] == ' ';
}

/* Could element @i start at @pos (a cheap filter)? */
static int
can_start(const struct prefix *pf, size_t i, const char *s, size_t n,
	  size_t pos)
{
	const struct pelem *e;

	if (i == pf->n)
		return 1;
	e = &pf->e[i];
	switch (e->kind) {
	case PE_LIT:
		return n - pos >= e->len &&
		       memcmp(s + pos, pf->lit + e->off, e->len) == 0;
	case PE_TS: case PE_EPOCH: case PE_PID:
		return pos < n && (is_digit(s[pos]) ||
				   (e->pad != 0 && s[pos] == ' '));
	case PE_TYPE:
		return pos < n && (((unsigned char)s[pos] > 0x20 &&
				    s[pos] != 0x7f) ||
				   (e->pad != 0 && s[pos] == ' '));
	default:
		return 1;
	}
}

static int m_match(struct match *m, size_t i, size_t pos);

/* Spend one unit of the line's budget; 0 when it is gone.  A unit is
 * at most a few dozen bytes compared (or one bounded memchr), so a
 * hostile line costs a bounded amount of work. */
static int
m_step(struct match *m)
{
	return ++m->steps <= MATCH_MAX_STEPS;
}

static size_t
skip_pad(const struct match *m, size_t pos, int pad)
{
	for (int k = 0; pad != 0 && k < PAD_MAX && pos < m->n &&
	     m->s[pos] == ' '; k++)
		pos++;
	return pos;
}

/* Go on after element @i's value ended at @pos; padding may follow. */
static int
m_tail(struct match *m, size_t i, size_t pos, int pad)
{
	int r = m_match(m, i + 1, pos);

	for (int k = 0; r == 0 && pad != 0 && k < PAD_MAX && pos < m->n &&
	     m->s[pos] == ' '; k++)
		r = m_match(m, i + 1, ++pos);
	return r;
}

static int
m_type(struct match *m, size_t i, size_t pos, int pad)
{
	const char *s = m->s;
	size_t q = skip_pad(m, pos, pad), end;
	size_t lim = PGLOG_TYPE_MAX + (size_t)(pad < 0 ? -pad : pad);
	int r;

	for (size_t k = 0; k < ARRAY_SIZE(known_types); k++) {
		size_t len = strlen(known_types[k]);

		if (m->n - q < len || memcmp(s + q, known_types[k], len) != 0)
			continue;
		m->type = s + q;
		m->type_len = len;
		m->type_at = i + 1;
		r = m_tail(m, i, q + len, pad);
		if (r != 0)
			return r;
	}
	for (end = q + 1; end <= m->n && end - q <= lim; end++) {
		size_t len = end - q;

		if (!m_step(m))
			return -1;
		if (s[end - 1] < 0x20 || s[end - 1] > 0x7e)
			break;
		if (!can_start(m->pf, i + 1, s, m->n, end))
			continue;
		while (len > 0 && s[q + len - 1] == ' ')
			len--;
		if (!pglog_type_ok(s + q, len))
			continue;
		m->type = s + q;
		m->type_len = len;
		m->type_at = i + 1;
		r = m_match(m, i + 1, end);
		if (r != 0)
			return r;
	}
	return 0;
}

/* 1 when the prefix matches from element @i at @pos, 0 when not, -1
 * when the budget ran out. */
static int
m_match(struct match *m, size_t i, size_t pos)
{
	const struct pelem *e;
	size_t q, k;
	int r;

	if (!m_step(m))
		return -1;
	if (i == m->pf->n)
		return !m->need_label || label_at(m->s + pos, m->n - pos);
	e = &m->pf->e[i];
	switch (e->kind) {
	case PE_LIT:
		if (m->n - pos < e->len ||
		    memcmp(m->s + pos, m->pf->lit + e->off, e->len) != 0)
			return 0;
		return m_match(m, i + 1, pos + e->len);
	case PE_TS:
	case PE_EPOCH:
		q = skip_pad(m, pos, e->pad);
		if (e->kind == PE_TS)
			k = pglog_parse_time(m->s + q, m->n - q, &m->ts);
		else
			k = parse_epoch(m->s + q, m->n - q, &m->ts);
		if (k == 0)
			return 0;
		m->ts_at = i + 1;
		return m_tail(m, i, q + k, e->pad);
	case PE_PID:
		q = skip_pad(m, pos, e->pad);
		for (k = 0; q + k < m->n && is_digit(m->s[q + k]) && k <= 10;)
			k++;
		if (!parse_pid(m->s + q, k, &m->pid))
			return 0;
		m->pid_at = i + 1;
		return m_tail(m, i, q + k, e->pad);
	case PE_TYPE:
		return m_type(m, i, pos, e->pad);
	case PE_SKIP:
		for (q = pos; q <= m->n && q - pos <= SKIP_MAX; q++) {
			if (!m_step(m))
				return -1;
			/* Jump to where the following text could start. */
			if (i + 1 < m->pf->n && m->pf->e[i + 1].kind == PE_LIT) {
				size_t lim = pos + SKIP_MAX + 1 - q;
				const char *c;

				if (lim > m->n - q)
					lim = m->n - q;
				c = memchr(m->s + q,
					   m->pf->lit[m->pf->e[i + 1].off], lim);
				if (c == NULL)
					return 0;
				q = (size_t)(c - m->s);
			}
			if (!can_start(m->pf, i + 1, m->s, m->n, q))
				continue;
			r = m_match(m, i + 1, q);
			if (r != 0)
				return r;
		}
		return 0;
	case PE_Q:
		/* Non-session processes stop the prefix here. */
		r = m_match(m, i + 1, pos);
		if (r != 0)
			return r;
		if (m->ts_at > i + 1)
			m->ts_at = 0;
		if (m->pid_at > i + 1)
			m->pid_at = 0;
		if (m->type_at > i + 1)
			m->type_at = 0;
		return !m->need_label || label_at(m->s + pos, m->n - pos);
	default:
		return 0;
	}
}

static int
stderr_line(struct load *ld, const char *s, size_t n)
{
	struct match m;
	int r = 0;

	if (s[0] == '\t' || !can_start(&ld->pf, 0, s, n, 0))
		return LN_SKIP;
	/* First insist that the message ("LOG:  ...") follows the prefix,
	 * which settles values with spaces in them (%b, %a, %s); then
	 * take the first match at all. */
	for (int pass = 1; pass >= 0 && r != 1; pass--) {
		memset(&m, 0, sizeof(m));
		m.pf = &ld->pf;
		m.s = s;
		m.n = n;
		m.need_label = pass;
		r = m_match(&m, 0, 0);
	}
	if (r != 1)
		return LN_BAD;
	/* Stopped by %q before the values, or no time: nothing to learn. */
	if (m.pid_at == 0 || m.type_at == 0 || (ld->pf.has_ts && m.ts_at == 0))
		return LN_SKIP;
	if (ld->pf.has_ts)
		note_hit(ld, m.pid, m.type, m.type_len, m.ts, m.ts);
	else
		note_hit(ld, m.pid, m.type, m.type_len, 0, INFINITY);
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
	pf_compile(&ld->pf, prefix);
	rd.f = fopen(path, "re");
	if (rd.f == NULL) {
		ret = -errno;
		util_cause(cause, "pglog: cannot open %s: %s", path,
			   strerror(errno));
		goto out;
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
