/* SPDX-License-Identifier: PostgreSQL */
/* pglog_prefix.c - stderr logs: log_line_prefix, compiled and matched. */
/*
 * A stderr log line is read through the server's log_line_prefix
 * (default "%m [%p] %b "): pglog_prefix_compile() turns it into literal
 * text and escapes the way PostgreSQL's log_line_prefix() reads it, and
 * pglog_prefix_match() finds the time (%m, %t, %n), the pid (%p) and the
 * backend type (%b) of a line.  Values with spaces in them (%b, %a, %s)
 * make it a search, so the work per line is bounded (MATCH_MAX_STEPS).
 * libc only.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pgsc-int.h"
#include "pglog.h"

#define PAD_MAX 1000            /* %-NNNx padding we follow */
#define SKIP_MAX 2048           /* bytes of a skipped escape's value */
#define MATCH_MAX_STEPS 8192    /* matching work per line and pass */

enum { PE_LIT, PE_TS, PE_EPOCH, PE_PID, PE_TYPE, PE_SKIP, PE_Q };

static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static void
pf_push(struct pglog_prefix *pf, int kind, int pad)
{
	/* Adjacent skipped values are one value; so are adjacent texts. */
	if (pf->n > 0 && kind == PE_SKIP && pf->e[pf->n - 1].kind == PE_SKIP)
		return;
	if (pf->n == PGLOG_PFX_ELEMS) {
		pf->why = "has too many escapes";
		return;
	}
	memset(&pf->e[pf->n], 0, sizeof(pf->e[0]));
	pf->e[pf->n].kind = kind;
	pf->e[pf->n].pad = pad;
	pf->n++;
}

static void
pf_lit(struct pglog_prefix *pf, char c)
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

/* What a log_line_prefix escape stands for here, -1 for nothing: the
 * values pgsc reads, %q, and the escapes whose values are skipped. */
static int
escape_kind(char c)
{
	static const struct {
		const char *chars;
		int kind;
	} escapes[] = {
		{ "mt", PE_TS }, { "n", PE_EPOCH }, { "p", PE_PID },
		{ "b", PE_TYPE }, { "q", PE_Q }, { "audrhclsvxeiQPL", PE_SKIP },
	};

	for (size_t i = 0; i < sizeof(escapes) / sizeof(escapes[0]); i++)
		if (strchr(escapes[i].chars, c) != NULL)
			return escapes[i].kind;
	return -1;
}

/* Compile log_line_prefix @s the way PostgreSQL's log_line_prefix() reads
 * it; unknown escapes print nothing there, so they match nothing here. */
void
pglog_prefix_compile(struct pglog_prefix *pf, const char *s)
{
	memset(pf, 0, sizeof(*pf));
	if (strlen(s) >= PGLOG_PFX_LEN) {
		pf->why = "is too long";
		return;
	}
	for (const char *p = s; *p != '\0' && pf->why == NULL; p++) {
		int pad = 0, sign = 1, kind;

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
		if (*p == '%') {
			pf_lit(pf, '%');
			continue;
		}
		kind = escape_kind(*p);
		if (kind < 0)
			continue;
		pf_push(pf, kind, kind == PE_Q ? 0 : pad);
		pf->has_ts |= kind == PE_TS || kind == PE_EPOCH;
		pf->has_pid |= kind == PE_PID;
		pf->has_type |= kind == PE_TYPE;
	}
	if (pf->why == NULL && !pf->has_pid)
		pf->why = "has no %p (process id)";
	if (pf->why == NULL && !pf->has_type)
		pf->why = "has no %b (backend type)";
}

/* Backend types of PostgreSQL 13-18, longest first. */
static const char *const known_types[] = {
	"logical replication tablesync worker",
	"logical replication parallel worker",
	"logical replication apply worker",
	"logical replication launcher",
	"logical replication worker",
	"dead-end client backend",
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
	const struct pglog_prefix *pf;
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
can_start(const struct pglog_prefix *pf, size_t i, const char *s, size_t n,
	  size_t pos)
{
	const struct pglog_pelem *e;

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
	const struct pglog_pelem *e;
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
			k = pglog_parse_epoch(m->s + q, m->n - q, &m->ts);
		if (k == 0)
			return 0;
		m->ts_at = i + 1;
		return m_tail(m, i, q + k, e->pad);
	case PE_PID:
		q = skip_pad(m, pos, e->pad);
		for (k = 0; q + k < m->n && is_digit(m->s[q + k]) && k <= 10;)
			k++;
		if (!pglog_parse_pid(m->s + q, k, &m->pid))
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

/**
 * Match a line of a stderr log against the prefix.
 * @param h the process id and backend type found, and the interval of
 *	the line's time (unbounded when the prefix has no time)
 * Returns 1 with @h, 0 for a line that says nothing (a continuation,
 * another program's output, or stopped by %q before the values), -1 for
 * a line that looked like an entry but did not match.
 */
int
pglog_prefix_match(const struct pglog_prefix *pf, const char *s, size_t n,
		   struct pglog_hit *h)
{
	struct match m;
	int r = 0;

	if (s[0] == '\t' || !can_start(pf, 0, s, n, 0))
		return 0;
	/* First insist that the message ("LOG:  ...") follows the prefix,
	 * which settles values with spaces in them (%b, %a, %s); then
	 * take the first match at all. */
	for (int pass = 1; pass >= 0 && r != 1; pass--) {
		memset(&m, 0, sizeof(m));
		m.pf = pf;
		m.s = s;
		m.n = n;
		m.need_label = pass;
		r = m_match(&m, 0, 0);
	}
	if (r != 1)
		return -1;
	/* Stopped by %q before the values, or no time: nothing to learn. */
	if (m.pid_at == 0 || m.type_at == 0 || (pf->has_ts && m.ts_at == 0))
		return 0;
	h->pid = m.pid;
	h->type = m.type;
	h->type_len = m.type_len;
	h->first = pf->has_ts ? m.ts : 0;
	h->last = pf->has_ts ? m.ts : INFINITY;
	return 1;
}
