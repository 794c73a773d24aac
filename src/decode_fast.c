/* SPDX-License-Identifier: PostgreSQL */
/* decode_fast.c - the SECCOMP record read in one pass, in the kernel's
 * field order, with a cache of each process's auid= to arch= bytes; the
 * copy of string values both readers share (decode_copy_value()). */
/*
 * Split from decode.c, whose general loop stays the one truth: on every
 * line decode_seccomp_fast() accepts, with or without its cache, the
 * general loop fills the record alike (tests/unit/test_decode.c,
 * tests/fuzz/fuzz_decode.c).
 */
#include <string.h>

#include "pgsc-int.h"

/* The value of each byte as a hex digit, -1 for the others: one load
 * instead of three range tests (comm=, exe= and PROCTITLE's hex). */
static const signed char hex_digit[256] = {
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -1, -1, -1, -1, -1,
	-1, 10, 11, 12, 13, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, 10, 11, 12, 13, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
};

static int
hexval(char c)
{
	return hex_digit[(unsigned char)c];
}

/*
 * Copy an audit string value into dst (capacity cap including the NUL).
 * Quoted values are copied as is; unquoted values made only of an even
 * number of hex digits are decoded (the kernel hex-encodes values with
 * spaces, quotes or control bytes); "(null)" is empty.  @nul_sep replaces
 * NUL bytes with spaces (argv in PROCTITLE) instead of ending the value.
 */
void
decode_copy_value(char *dst, size_t cap, const char *v, size_t n, int quoted,
	   int nul_sep)
{
	size_t o = 0, i, lim = cap - 1;
	int hex = !quoted && n > 0 && (n % 2) == 0;

	if (!quoted && n == 6 && memcmp(v, "(null)", 6) == 0) {
		dst[0] = '\0';
		return;
	}
	/* one pass, decoding while checking (PROCTITLE's hex was read twice):
	 * past @cap or a NUL that ends the value only checked; a byte that is
	 * no hex digit makes it a plain value, copied below */
	for (i = 0; hex && i < n; i += 2) {
		int hi = hexval(v[i]), lo = hexval(v[i + 1]);
		char c;

		if ((hi | lo) < 0) {
			hex = 0;
			break;
		}
		if (o >= lim)
			continue;
		c = (char)(hi << 4 | lo);
		if (c == '\0') {
			if (!nul_sep) {
				lim = o;
				continue;
			}
			c = ' ';
		}
		dst[o++] = c;
	}
	if (!hex) {
		o = n < cap - 1 ? n : cap - 1;
		memcpy(dst, v, o);
	}
	if (nul_sep)
		while (o > 0 && dst[o - 1] == ' ')
			o--;
	dst[o] = '\0';
}

/*
 * The SECCOMP record as the kernel writes it, read in one pass.  The
 * kernel's fields come in one order (audit_log_task(), audit_seccomp()):
 *
 *   auid= uid= gid= ses= [subj=] pid= comm= exe= sig= arch= syscall=
 *   compat= ip= code=0x
 *
 * each once, one space apart.  decode_seccomp_fast() reads a line laid out
 * exactly so, each number parsed where it is scanned, and gives up (-1)
 * on anything else: another order, a field more or less, a quote where a
 * number is, a value the general loop would refuse.  decode_line() then
 * reads the line again with that loop, which is the one truth: on every
 * line decode_seccomp_fast() accepts, both fill the record alike.  The general
 * loop was half of an import's instructions once auparse was off the
 * default path (docs/internals.md, "Where an import's time goes").
 */
#define FAST_KEY(p, end, s) \
	((size_t)((end) - (p)) >= sizeof(s) - 1 && \
	 memcmp(p, s, sizeof(s) - 1) == 0)

/* A value not read: up to the next space; NULL for a quoted one. */
static const char *
fast_skip(const char *p, const char *end)
{
	if (p < end && (*p == '"' || *p == '\''))
		return NULL;
	while (p < end && *p != ' ')
		p++;
	return p;
}

/* 1 to 18 decimal digits up to a space or @end; NULL otherwise. */
static const char *
fast_dec(const char *p, const char *end, uint64_t *out)
{
	const char *s = p;
	uint64_t v = 0;

	while (p < end && (unsigned)((unsigned char)*p - '0') <= 9) {
		v = v * 10 + (unsigned)((unsigned char)*p - '0');
		p++;
	}
	if (p == s || p - s > 18 || (p < end && *p != ' '))
		return NULL;
	*out = v;
	return p;
}

/* 1 to 16 hex digits up to a space or @end, at most @max; NULL
 * otherwise. */
static const char *
fast_hex(const char *p, const char *end, uint64_t max, uint64_t *out)
{
	const char *s = p;
	uint64_t v = 0;

	while (p < end && p - s <= 16) {
		int d = hexval(*p);

		if (d < 0)
			break;
		v = v << 4 | (uint64_t)d;
		p++;
	}
	if (p == s || p - s > 16 || (p < end && *p != ' ') || v > max)
		return NULL;
	*out = v;
	return p;
}

/* comm= or exe=: quoted, hex or (null), as decode_copy_value() reads them. */
static const char *
fast_str(const char *p, const char *end, char *dst, size_t cap)
{
	const char *q;

	if (p < end && *p == '"') {
		q = memchr(p + 1, '"', (size_t)(end - p - 1));
		if (q == NULL || (q + 1 < end && q[1] != ' '))
			return NULL;
		decode_copy_value(dst, cap, p + 1, (size_t)(q - p - 1), 1, 0);
		return q + 1;
	}
	if (p < end && *p == '\'')
		return NULL;
	for (q = p; q < end && *q != ' '; q++)
		;
	decode_copy_value(dst, cap, p, (size_t)(q - p), 0, 0);
	return q;
}

/* The next "KEY=" and its value, or give up. */
#define FAST_FIELD(key, read) \
	do { \
		if (!FAST_KEY(p, end, key)) \
			return -1; \
		p += sizeof(key) - 1; \
		if ((p = (read)) == NULL) \
			return -1; \
	} while (0)
/* the one space between two fields */
#define FAST_SP() \
	do { \
		if (p >= end || *p != ' ') \
			return -1; \
		p++; \
	} while (0)

/*
 * The cache: the bytes from "auid=" to the space after arch='s value of
 * a line read, with what they gave.  Those fields (audit_log_task()) are
 * the same on every record of a process, and nine records in ten follow
 * one of the same process.  The readers of those fields stop at bytes
 * inside the span (a space, the closing quote), so the same bytes give
 * the same values, whatever follows: a hit is exact, not a guess.
 */
static const struct decode_cache_ent *
cache_hit(struct decode_cache *dc, const char *p, const char *end)
{
	struct decode_cache_ent tmp;
	size_t left = (size_t)(end - p);

	for (size_t i = 0; i < DECODE_CACHE_N; i++) {
		struct decode_cache_ent *e = &dc->ent[i];

		if (e->len == 0 || e->len > left ||
		    memcmp(p, e->bytes, e->len) != 0)
			continue;
		if (i > 0) {
			/* the most recent first: most lines stop at one */
			tmp = *e;
			*e = dc->ent[0];
			dc->ent[0] = tmp;
		}
		return &dc->ent[0];
	}
	return NULL;
}

/* The span [@s, @s + @len) read into @rec, kept in the first slot. */
static void
cache_put(struct decode_cache *dc, const char *s, size_t len,
	  const struct pgsc_record *rec)
{
	struct decode_cache_ent *e = &dc->ent[DECODE_CACHE_N - 1];
	size_t cl = strlen(rec->comm), el = strlen(rec->exe);

	if (len > sizeof(e->bytes) || cl >= sizeof(e->comm) ||
	    el >= sizeof(e->exe))
		return;
	memmove(&dc->ent[1], &dc->ent[0],
		(DECODE_CACHE_N - 1) * sizeof(dc->ent[0]));
	e = &dc->ent[0];
	memcpy(e->bytes, s, len);
	e->len = len;
	e->uid = rec->uid;
	e->pid = rec->pid;
	e->arch = rec->arch;
	memcpy(e->comm, rec->comm, cl + 1);
	memcpy(e->exe, rec->exe, el + 1);
	e->comm_len = cl;
	e->exe_len = el;
}

int
decode_seccomp_fast(const char *p, const char *end, struct pgsc_record *rec,
		    struct decode_cache *dc)
{
	const struct decode_cache_ent *e;
	const char *s = p;
	uint64_t v;

	if (dc != NULL && (e = cache_hit(dc, p, end)) != NULL) {
		rec->uid = e->uid;
		rec->pid = e->pid;
		memcpy(rec->comm, e->comm, e->comm_len + 1);
		memcpy(rec->exe, e->exe, e->exe_len + 1);
		rec->arch = e->arch;
		rec->has_arch = 1;
		p += e->len;
		goto rest;
	}
	FAST_FIELD("auid=", fast_skip(p, end));
	FAST_SP();
	FAST_FIELD("uid=", fast_dec(p, end, &v));
	if (v > UINT32_MAX)
		return -1;
	rec->uid = (int64_t)v;
	FAST_SP();
	FAST_FIELD("gid=", fast_skip(p, end));
	FAST_SP();
	FAST_FIELD("ses=", fast_skip(p, end));
	FAST_SP();
	if (FAST_KEY(p, end, "subj=")) {
		FAST_FIELD("subj=", fast_skip(p, end));
		FAST_SP();
	}
	FAST_FIELD("pid=", fast_dec(p, end, &v));
	rec->pid = (int64_t)v;
	FAST_SP();
	FAST_FIELD("comm=", fast_str(p, end, rec->comm, sizeof(rec->comm)));
	FAST_SP();
	FAST_FIELD("exe=", fast_str(p, end, rec->exe, sizeof(rec->exe)));
	FAST_SP();
	FAST_FIELD("sig=", fast_skip(p, end));
	FAST_SP();
	FAST_FIELD("arch=", fast_hex(p, end, UINT32_MAX, &v));
	rec->arch = (uint32_t)v;
	rec->has_arch = 1;
	FAST_SP();
	if (dc != NULL)
		cache_put(dc, s, (size_t)(p - s), rec);
rest:
	FAST_FIELD("syscall=", fast_dec(p, end, &v));
	rec->syscall = (int64_t)v;
	FAST_SP();
	FAST_FIELD("compat=", fast_dec(p, end, &v));
	if (v > 1)
		return -1;
	rec->compat = (int)v;
	FAST_SP();
	FAST_FIELD("ip=", fast_skip(p, end));
	FAST_SP();
	FAST_FIELD("code=0x", fast_hex(p, end, UINT32_MAX, &v));
	rec->code = (uint32_t)v;
	return p == end ? 0 : -1;
}
#undef FAST_FIELD
#undef FAST_SP
