/* SPDX-License-Identifier: PostgreSQL */
/* argrule.c - the argument rule of one list entry: "socket(a0=1|2)". */
/*
 * The grammar (docs/module.md, "Argument rules"):
 *
 *	entry   := NAME | NAME "(" rule ")"
 *	rule    := args "=" alt { "|" alt }
 *	args    := arg { ":" arg }		1 to ARGRULE_ARGS_MAX args
 *	arg     := "a" DIGIT [ "&" NUMBER ]	DIGIT 0-5; &MASK: (arg & MASK)
 *	alt     := NUMBER { ":" NUMBER }	as many numbers as args
 *	NUMBER  := decimal | 0x hex		unsigned 64-bit
 *
 * No blanks and no commas inside the parentheses, so that every
 * tokenizer of lists (syscall_lists_next()) returns an entry whole, and
 * a reader that needs only names cuts it at '(' (syscall_lists_name()).
 * The call is allowed (or gets the list's action) when any alternative
 * matches; otherwise it gets the filter's default action.  libc only:
 * the module compiles it in.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "syscalls.h"

/* Bytes of the entry quoted in a cause. */
#define CAUSE_ENTRY_MAX 64

/* The cause "entry "...": at byte N: why" in *@cause (if not NULL). */
static void __attribute__((format(printf, 5, 6)))
rule_cause(char **cause, const char *entry, size_t len, size_t pos,
	   const char *fmt, ...)
{
	char why[160], quoted[CAUSE_ENTRY_MAX * 4 + 8], *s;
	size_t q = 0;
	va_list ap;
	int n;

	if (cause == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	/* untrusted: a GUC value; anything but printable ASCII as \xNN */
	for (size_t i = 0; i < len && i < CAUSE_ENTRY_MAX; i++) {
		unsigned char c = (unsigned char)entry[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			quoted[q++] = (char)c;
		else
			q += (size_t)snprintf(quoted + q, sizeof(quoted) - q,
					      "\\x%02x", c);
	}
	quoted[q] = '\0';
	/* no asprintf(): the module is built without _GNU_SOURCE */
	n = snprintf(NULL, 0, "entry \"%s%s\": at byte %zu: %s", quoted,
		     len > CAUSE_ENTRY_MAX ? "..." : "", pos + 1, why);
	if (n < 0 || (s = malloc((size_t)n + 1)) == NULL)
		return;
	snprintf(s, (size_t)n + 1, "entry \"%s%s\": at byte %zu: %s", quoted,
		 len > CAUSE_ENTRY_MAX ? "..." : "", pos + 1, why);
	free(*cause);
	*cause = s;
}

/* The parser's cursor over one entry. */
struct cur {
	const char *s;          /* the entry */
	size_t len, i;
	char **cause;
};

static int
peek(const struct cur *c)
{
	return c->i < c->len ? (unsigned char)c->s[c->i] : -1;
}

static int
fail(struct cur *c, const char *why)
{
	rule_cause(c->cause, c->s, c->len, c->i, "%s", why);
	return -EINVAL;
}

/* A NUMBER at the cursor: decimal, or 0x and hex digits. */
static int
number(struct cur *c, uint64_t *out)
{
	unsigned base = 10;
	size_t start;
	uint64_t v = 0;

	if (peek(c) == '0' && c->i + 1 < c->len &&
	    (c->s[c->i + 1] == 'x' || c->s[c->i + 1] == 'X')) {
		base = 16;
		c->i += 2;
	}
	start = c->i;
	for (;;) {
		int ch = peek(c);
		unsigned d;

		if (ch >= '0' && ch <= '9')
			d = (unsigned)(ch - '0');
		else if (base == 16 && ch >= 'a' && ch <= 'f')
			d = (unsigned)(ch - 'a' + 10);
		else if (base == 16 && ch >= 'A' && ch <= 'F')
			d = (unsigned)(ch - 'A' + 10);
		else
			break;
		if (v > (UINT64_MAX - d) / base)
			return fail(c, "number overflows 64 bits");
		v = v * base + d;
		c->i++;
	}
	if (c->i == start)
		return fail(c, base == 16 ? "expected hex digits after 0x"
				 : "expected a number");
	*out = v;
	return 0;
}

/* The args spec "a0:a1&0xf" up to '='. */
static int
parse_args(struct cur *c, struct argrule *r)
{
	for (;;) {
		int ch;

		if (r->nargs == ARGRULE_ARGS_MAX)
			return fail(c, "too many arguments (at most 3)");
		if (peek(c) != 'a')
			return fail(c, "expected an argument a0 to a5");
		c->i++;
		ch = peek(c);
		if (ch < '0' || ch > '5')
			return fail(c, "expected an argument number 0 to 5");
		for (unsigned k = 0; k < r->nargs; k++)
			if (r->arg[k] == (unsigned char)(ch - '0'))
				return fail(c, "argument listed twice");
		r->arg[r->nargs] = (unsigned char)(ch - '0');
		c->i++;
		if (peek(c) == '&') {
			c->i++;
			if (number(c, &r->mask[r->nargs]) < 0)
				return -EINVAL;
			r->masked[r->nargs] = 1;
		}
		r->nargs++;
		ch = peek(c);
		if (ch == '=')
			break;
		if (ch != ':')
			return fail(c, "expected \":\" or \"=\"");
		c->i++;
	}
	c->i++;
	return 0;
}

/* The alternatives "1:1|2:1" up to ')'. */
static int
parse_alts(struct cur *c, struct argrule *r)
{
	for (;;) {
		uint64_t *v;

		if (r->nalts == ARGRULE_ALTS_MAX)
			return fail(c, "too many alternatives (at most 16)");
		v = r->val[r->nalts];
		for (unsigned k = 0; k < r->nargs; k++) {
			size_t at;

			if (k > 0) {
				if (peek(c) != ':')
					return fail(c, "fewer numbers than "
						    "arguments");
				c->i++;
			}
			at = c->i;
			if (number(c, &v[k]) < 0)
				return -EINVAL;
			if (r->masked[k] && (v[k] & ~r->mask[k]) != 0) {
				c->i = at;
				return fail(c, "value has bits outside the "
					    "mask: it can never match");
			}
		}
		r->nalts++;
		if (peek(c) == ':')
			return fail(c, "more numbers than arguments");
		if (peek(c) != '|')
			break;
		c->i++;
	}
	return 0;
}

static int
alt_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	for (unsigned k = 0; k < ARGRULE_ARGS_MAX; k++)
		if (x[k] != y[k])
			return x[k] < y[k] ? -1 : 1;
	return 0;
}

/* Sort and deduplicate the alternatives: the canonical order. */
static void
canon(struct argrule *r)
{
	unsigned w = 0;

	qsort(r->val, r->nalts, sizeof(r->val[0]), alt_cmp);
	for (unsigned i = 0; i < r->nalts; i++)
		if (w == 0 || alt_cmp(r->val[w - 1], r->val[i]) != 0)
			memmove(r->val[w++], r->val[i], sizeof(r->val[0]));
	r->nalts = w;
}

/**
 * Parse list entry @entry (@len bytes, as syscall_lists_next() gives it).
 * @param r the rule, when the entry has one
 * @param cause "entry "...": at byte N: why" (malloc'd), on -EINVAL
 * Returns 1 with *@r for "name(rule)", 0 for a bare name (whose
 * characters are not checked here), -EINVAL for anything else.
 */
int
argrule_parse(const char *entry, size_t len, struct argrule *r,
	      char **cause)
{
	struct cur c = { entry, len, 0, cause };
	const char *open = memchr(entry, '(', len);

	memset(r, 0, sizeof(*r));
	if (open == NULL) {
		const char *close = memchr(entry, ')', len);

		if (close == NULL)
			return 0;
		c.i = (size_t)(close - entry);
		return fail(&c, "\")\" without \"(\"");
	}
	c.i = (size_t)(open - entry);
	if (c.i == 0)
		return fail(&c, "no syscall name before \"(\"");
	c.i++;
	if (parse_args(&c, r) < 0 || parse_alts(&c, r) < 0)
		return -EINVAL;
	if (peek(&c) != ')')
		return fail(&c, peek(&c) < 0 ? "expected \")\" at the end"
				 : "expected \"|\" or \")\"");
	c.i++;
	if (c.i != len)
		return fail(&c, "bytes after \")\"");
	canon(r);
	return 1;
}

/* Are the args specs of @a and @b the same (args, order and masks)? */
int
argrule_same_args(const struct argrule *a, const struct argrule *b)
{
	if (a->nargs != b->nargs)
		return 0;
	for (unsigned k = 0; k < a->nargs; k++)
		if (a->arg[k] != b->arg[k] || a->masked[k] != b->masked[k] ||
		    (a->masked[k] && a->mask[k] != b->mask[k]))
			return 0;
	return 1;
}

/**
 * Add the alternatives of @from to @into (same args: argrule_same_args()).
 * Returns 0, or -E2BIG when the union has over ARGRULE_ALTS_MAX
 * (@into unchanged).
 */
int
argrule_unite(struct argrule *into, const struct argrule *from)
{
	struct argrule u = *into;

	for (unsigned i = 0; i < from->nalts; i++) {
		unsigned j;

		for (j = 0; j < u.nalts; j++)
			if (alt_cmp(u.val[j], from->val[i]) == 0)
				break;
		if (j < u.nalts)
			continue;
		if (u.nalts == ARGRULE_ALTS_MAX)
			return -E2BIG;
		memcpy(u.val[u.nalts++], from->val[i], sizeof(u.val[0]));
	}
	canon(&u);
	*into = u;
	return 0;
}

/**
 * Fold the rule @from of a second entry of the same name and action into
 * @into, the rule of the first (a union: the call is allowed where
 * either allows it).  A plain name (@from NULL) wins over a rule; the
 * same args spec unites the alternatives; different args specs, or a
 * union over ARGRULE_ALTS_MAX, widen to the plain name, a superset of
 * both (docs/module.md, "Argument rules").
 * Returns 1 when @into is still a rule, 0 when the name is now plain.
 */
int
argrule_fold(struct argrule *into, const struct argrule *from)
{
	return from != NULL && argrule_same_args(into, from) &&
	       argrule_unite(into, from) == 0;
}

/**
 * The canonical text of @r ("a0:a1&0xf=1:1|2:1", without the name and
 * the parentheses): masks in hex, values in decimal, alternatives sorted.
 * Returns the length, which is >= @size when @buf was too small
 * (ARGRULE_TEXT_MAX is always enough).
 */
size_t
argrule_format(const struct argrule *r, char *buf, size_t size)
{
	size_t n = 0;

#define PUT(...) do {							\
	int k_ = snprintf(buf + (n < size ? n : size),			\
			  n < size ? size - n : 0, __VA_ARGS__);	\
	if (k_ > 0)							\
		n += (size_t)k_;					\
} while (0)
	if (size > 0)
		buf[0] = '\0';
	for (unsigned k = 0; k < r->nargs; k++) {
		PUT("%sa%u", k > 0 ? ":" : "", r->arg[k]);
		if (r->masked[k])
			PUT("&0x%llx", (unsigned long long)r->mask[k]);
	}
	PUT("=");
	for (unsigned i = 0; i < r->nalts; i++)
		for (unsigned k = 0; k < r->nargs; k++)
			PUT("%s%llu", k > 0 ? ":" : i > 0 ? "|" : "",
			    (unsigned long long)r->val[i][k]);
#undef PUT
	return n;
}
