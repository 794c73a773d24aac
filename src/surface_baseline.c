/* SPDX-License-Identifier: PostgreSQL */
/* surface_baseline.c - a baseline's own argument rules (src/baselines.def
 * BASELINE_ARGS: Docker's "args") and the CVEs still reachable under
 * them, for the score after argument rules (issue 28, part 4). */
/*
 * The same conservative reading as a pgsc list's (surface_args.c): a CVE
 * is closed only when every call of its entry the baseline allows has
 * rules, the CVE's condition (src/cve_conds.def) names the call, and no
 * rule (alternative) admits a value the condition needs.  Docker's rules
 * are libseccomp comparisons of a whole 64-bit argument (EQ NE LT LE GT
 * GE MASKED_EQ), not only equalities, so they are read here on their own.
 *
 * A condition's values are what the kernel reads, and for an int argument
 * (socket's domain, setsockopt's level and option) the kernel reads only
 * the low 32 bits while seccomp compares all 64: socket(0x100000028, ...)
 * passes Docker's "a0 > 40" and the kernel makes an AF_VSOCK socket
 * (measured on Linux 6.18 with libseccomp 2.5.4, docs/hardening.md).  So
 * a condition fixes only low bits here, the high 32 are free: a range or
 * NE rule on such an argument never excludes it; an EQ or MASKED_EQ rule
 * does when it fixes a needed bit otherwise.  That also holds, wider than
 * needed, for unsigned long arguments (clone's flags).  A rule that does
 * not parse, a MASKED_EQ whose value has bits outside its mask, and a
 * condition with bits above 32 leave the call reachable.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "syscalls.h"

static const struct surface_barg bargs[] = {
#define BASELINE(id, title, source)
#define BASELINE_NAME(id, name)
#define BASELINE_ARGS(id, name, args) { #id, name, args },
#include "baselines.def"
#undef BASELINE_ARGS
#undef BASELINE_NAME
#undef BASELINE
};

static const char *const ops[] = {
	[SURFACE_EQ] = "EQ", [SURFACE_NE] = "NE", [SURFACE_LT] = "LT",
	[SURFACE_LE] = "LE", [SURFACE_GT] = "GT", [SURFACE_GE] = "GE",
	[SURFACE_MASKED_EQ] = "MASKED_EQ",
};

#define LOW32 UINT64_C(0xffffffff)

size_t
surface_bargs(const struct surface_barg **v)
{
	if (v != NULL)
		*v = bargs;
	return ARRAY_SIZE(bargs);
}

/* The decimal number @p starts with into *@v, what follows in *@next. */
static int
parse_num(const char *p, const char **next, uint64_t *v)
{
	char *e;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(p, &e, 10);
	if (errno != 0 || e == p)
		return -EINVAL;
	*next = e;
	return 0;
}

int
surface_barg_parse(const char *args, struct surface_balt *a)
{
	const char *p = args;

	memset(a, 0, sizeof(*a));
	while (*p != '\0') {
		struct surface_bterm *t;
		size_t n;
		int op = -1;

		if (a->n == SURFACE_BTERMS_MAX || p[0] != 'a' ||
		    p[1] < '0' || p[1] > '5' || p[2] != ':')
			return -EINVAL;
		t = &a->t[a->n++];
		t->arg = (unsigned char)(p[1] - '0');
		p += 3;
		n = strcspn(p, ":");
		for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
			if (strlen(ops[i]) == n && memcmp(ops[i], p, n) == 0)
				op = (int)i;
		if (op < 0 || p[n] != ':')
			return -EINVAL;
		t->op = (enum surface_op)op;
		if (parse_num(p + n + 1, &p, &t->v) < 0)
			return -EINVAL;
		if (t->op == SURFACE_MASKED_EQ &&
		    (*p != ':' || parse_num(p + 1, &p, &t->v2) < 0))
			return -EINVAL;
		if (*p == ' ' && p[1] != '\0')
			p++;
		else if (*p != '\0')
			return -EINVAL;
	}
	return a->n > 0 ? 0 : -EINVAL;
}

/*
 * Does rule @a admit a call that alternative @c of condition @cr needs?
 * Per argument the condition and the rule's EQ and MASKED_EQ terms fix
 * bits; two that fix one bit differently exclude the call.  Then each
 * range or NE term is set against the values those bits leave (the least
 * has every free bit 0, the greatest every free bit 1), one term at a
 * time: "a1 != 263 AND a1 < 264" is not seen to exclude 263, so it stays
 * reachable (Docker has no such rule).  1 unless this provably excludes
 * every needed value.
 */
static int
alt_admits(const struct surface_balt *a, const struct argrule *cr, unsigned c)
{
	for (unsigned arg = 0; arg < 6; arg++) {
		uint64_t fm = 0, fv = 0;

		for (unsigned k = 0; k < cr->nargs; k++) {
			uint64_t m, v;

			if (cr->arg[k] != arg)
				continue;
			m = (cr->masked[k] ? cr->mask[k] : ~(uint64_t)0) & LOW32;
			v = cr->val[c][k];
			if ((v & ~m) != 0 || ((fv ^ v) & fm & m) != 0)
				return 1;       /* not read: reachable */
			fm |= m;
			fv |= v;
		}
		if (fm == 0)
			continue;       /* the condition does not speak of it */
		for (size_t i = 0; i < a->n; i++) {
			const struct surface_bterm *t = &a->t[i];
			uint64_t m = ~(uint64_t)0, v = t->v;

			if (t->arg != arg)
				continue;
			if (t->op == SURFACE_MASKED_EQ) {
				m = t->v;
				v = t->v2;
				if ((v & ~m) != 0)
					return 1;
			} else if (t->op != SURFACE_EQ) {
				continue;
			}
			if (((fv ^ v) & fm & m) != 0)
				return 0;
			fm |= m;
			fv |= v & m;
		}
		for (size_t i = 0; i < a->n; i++) {
			const struct surface_bterm *t = &a->t[i];
			uint64_t lo = fv, hi = fv | ~fm;

			if (t->arg != arg)
				continue;
			if ((t->op == SURFACE_NE && fm == ~(uint64_t)0 &&
			     fv == t->v) ||
			    (t->op == SURFACE_LT && lo >= t->v) ||
			    (t->op == SURFACE_LE && lo > t->v) ||
			    (t->op == SURFACE_GT && hi <= t->v) ||
			    (t->op == SURFACE_GE && hi < t->v))
				return 0;
		}
	}
	return 1;
}

int
surface_balt_admits(const struct surface_balt *a, const struct argrule *cr)
{
	for (unsigned c = 0; c < cr->nalts; c++)
		if (alt_admits(a, cr, c))
			return 1;
	return 0;
}

struct baseline_rules {
	const struct surface_barg *v;
	size_t n;
	const char *id;
};

/*
 * A call under the rules of one baseline: open unless it has rules and
 * each excludes what condition @cr needs.
 */
static int
barg_call_open(void *arg, const char *name, const struct argrule *cr)
{
	const struct baseline_rules *b = arg;
	size_t nrules = 0;

	for (size_t i = 0; i < b->n; i++) {
		struct surface_balt a;

		if (strcmp(b->v[i].id, b->id) != 0 ||
		    strcmp(b->v[i].name, name) != 0)
			continue;
		nrules++;
		if (surface_barg_parse(b->v[i].args, &a) < 0 ||
		    surface_balt_admits(&a, cr))
			return 1;
	}
	return nrules == 0;
}

int
surface_barg_cve_open(const struct surface_barg *v, size_t n, const char *id,
		      const struct surface_cve *c, const struct strset *names)
{
	struct baseline_rules b = { v, n, id };

	return surface_cve_walk(c, names, barg_call_open, &b);
}

int
surface_barg_reachable(const struct surface_barg *v, size_t n, const char *id,
		       const struct strset *names, size_t *after,
		       struct strset *closed)
{
	const struct surface_cve *c;
	size_t nc = surface_cves(&c);

	*after = 0;
	for (size_t i = 0; i < nc; i++) {
		if (!surface_cve_reached(&c[i], names))
			continue;
		if (surface_barg_cve_open(v, n, id, &c[i], names))
			(*after)++;
		else if (closed != NULL && strset_add(closed, c[i].id) < 0)
			return -ENOMEM;
	}
	return 0;
}
