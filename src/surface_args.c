/* SPDX-License-Identifier: PostgreSQL */
/* surface_args.c - the attack-surface score after argument rules (issue
 * 28): the conditions of the CVE map (src/cve_conds.def) with their
 * constants from the system's headers, against the rules of a list. */
/*
 * Conservative by construction: a CVE is closed only when every call of
 * its entry that the list allows has a rule, the condition names that
 * call, and no alternative of the rule admits a value the condition
 * needs.  Anything pgsc cannot read (no rule, no condition, a condition
 * that does not parse, a constant the table lacks, clone3's flags in
 * memory) leaves the CVE reachable.
 *
 * The constants come from the headers at build time, never typed as
 * numbers: the kernel's uapi headers (Debian's linux-libc-dev) for
 * CLONE_NEWUSER and the netfilter options, and glibc's copies of the
 * kernel's values (libc6-dev) for the SOL_ levels, the AF_ domains,
 * TCP_ULP and the SO_ options, which the uapi headers do not all export
 * (SOL_PACKET, AF_VSOCK are in the kernel's include/linux/socket.h, not
 * in uapi).  tests/unit/test_surface.c compares the ones the uapi
 * headers have with those headers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <linux/sched.h>

#include "pgsc-int.h"
#include "syscalls.h"

/* The names cve_conds.def may use, with the headers' values. */
#define K(name) { #name, (uint64_t)(name) }
static const struct {
	const char *name;
	uint64_t v;
} consts[] = {
	K(AF_ALG), K(AF_UNIX), K(AF_VSOCK),
	K(CLONE_NEWUSER),
	K(IP6T_SO_SET_REPLACE), K(IPT_SO_SET_REPLACE),
	K(SOL_IP), K(SOL_IPV6), K(SOL_PACKET), K(SOL_SOCKET), K(SOL_TCP),
	K(SO_RCVBUFFORCE), K(SO_SNDBUFFORCE),
	K(TCP_ULP),
};
#undef K

static const struct {
	const char *condition, *rules;
} conds[] = {
#define COND(condition, rules) { condition, rules },
#include "cve_conds.def"
#undef COND
};

int
surface_const(const char *name, size_t len, uint64_t *v)
{
	for (size_t i = 0; i < ARRAY_SIZE(consts); i++)
		if (strlen(consts[i].name) == len &&
		    memcmp(consts[i].name, name, len) == 0) {
			*v = consts[i].v;
			return 0;
		}
	return -ENOENT;
}

const char *
surface_cond_rules(const char *condition)
{
	for (size_t i = 0; i < ARRAY_SIZE(conds); i++)
		if (strcmp(conds[i].condition, condition) == 0)
			return conds[i].rules;
	return NULL;
}

/*
 * The entry of @rules (cve_conds.def's second field) for @name, its
 * constants replaced by their numbers, parsed into @r.  Returns 1 with
 * @r, 0 when @rules names no such call, -EINVAL when the entry does not
 * parse or names an unknown constant.
 */
int
surface_cond_parse(const char *rules, const char *name, struct argrule *r)
{
	size_t nlen = strlen(name);
	const char *p = rules;

	while (*p != '\0') {
		size_t len = strcspn(p, " ");

		if (len > nlen && memcmp(p, name, nlen) == 0 && p[nlen] == '(') {
			char buf[ARGRULE_TEXT_MAX];
			size_t o = 0;

			for (size_t i = 0; i < len; ) {
				size_t n = 0;
				uint64_t v;
				int k;

				while (i + n < len &&
				       ((p[i + n] >= 'A' && p[i + n] <= 'Z') ||
					(n > 0 && ((p[i + n] >= '0' &&
						    p[i + n] <= '9') ||
						   p[i + n] == '_'))))
					n++;
				if (n == 0) {
					if (o + 1 >= sizeof(buf))
						return -EINVAL;
					buf[o++] = p[i++];
					continue;
				}
				if (surface_const(p + i, n, &v) < 0)
					return -EINVAL;
				k = snprintf(buf + o, sizeof(buf) - o, "%llu",
					     (unsigned long long)v);
				if (k < 0 || (size_t)k >= sizeof(buf) - o)
					return -EINVAL;
				o += (size_t)k;
				i += n;
			}
			buf[o] = '\0';
			return argrule_parse(buf, o, r, NULL) == 1 ? 1 : -EINVAL;
		}
		p += len;
		p += strspn(p, " ");
	}
	return 0;
}

/* The mask of argument @k of @r: the whole argument when not masked. */
static uint64_t
cond_mask(const struct argrule *r, unsigned k)
{
	return r->masked[k] ? r->mask[k] : ~(uint64_t)0;
}

/*
 * Does alternative @alt of the list's rule @l admit a call that
 * alternative @c of condition @cr needs?  Each compares masked
 * arguments with values; the two fix the same bit of one argument to
 * different values only when no call satisfies both.  Only the low 32
 * bits are compared: the kernel reads an int argument's low 32 (a
 * recorded socket(0x100000028, ...) is AF_VSOCK), surface_baseline.c.
 */
static int
alts_meet(const struct surface_rule *l, size_t alt, const struct argrule *cr,
	  unsigned c)
{
	const uint64_t *lv = l->val + alt * l->stride;

	for (unsigned k = 0; k < cr->nargs; k++)
		for (unsigned j = 0; j < l->nargs; j++) {
			uint64_t m;

			if (cr->arg[k] != l->arg[j])
				continue;
			m = cond_mask(cr, k) & l->mask[j] & 0xffffffffU;
			if (((cr->val[c][k] ^ lv[j]) & m) != 0)
				return 0;
		}
	return 1;
}

/* Does the list's rule @l admit any call condition @cr needs? */
static int
rule_admits(const struct surface_rule *l, const struct argrule *cr)
{
	for (size_t a = 0; a < l->nalts; a++)
		for (unsigned c = 0; c < cr->nalts; c++)
			if (alts_meet(l, a, cr, c))
				return 1;
	return 0;
}

/*
 * Does CVE @c stay reachable by @names: does a call of its entry that
 * @names allows stay open?  A call whose condition pgsc cannot read (no
 * entry in cve_conds.def for it, or one that does not parse) is open;
 * otherwise @open(@arg, name, its condition) decides, 1 for open.  The
 * walk the lists' rules (surface_cve_open()) and the baselines' own
 * (surface_baseline.c) share.
 */
int
surface_cve_walk(const struct surface_cve *c, const struct strset *names,
		 surface_call_fn open, void *arg)
{
	const char *rules = surface_cond_rules(c->condition);
	const char *p = c->syscalls;

	while (*p != '\0') {
		char name[64];
		size_t n = strcspn(p, " ");

		if (n > 0 && n < sizeof(name)) {
			struct argrule cr;

			memcpy(name, p, n);
			name[n] = '\0';
			if (strset_has(names, name)) {
				if (rules == NULL || *rules == '\0' ||
				    surface_cond_parse(rules, name, &cr) != 1)
					return 1;
				if (open(arg, name, &cr))
					return 1;
			}
		}
		p += n;
		p += strspn(p, " ");
	}
	return 0;
}

struct list_rules {
	surface_rule_fn fn;
	void *arg;
};

/* A call under the list's rule: open unless the rule provably excludes
 * every value condition @cr needs. */
static int
list_call_open(void *arg, const char *name, const struct argrule *cr)
{
	struct list_rules *lr = arg;
	struct surface_rule l;

	memset(&l, 0, sizeof(l));
	if (lr->fn(lr->arg, name, &l) != 1)
		return 1;
	return rule_admits(&l, cr);
}

int
surface_cve_open(const struct surface_cve *c, const struct strset *names,
		 surface_rule_fn fn, void *arg)
{
	struct list_rules lr = { fn, arg };

	return surface_cve_walk(c, names, list_call_open, &lr);
}

int
surface_reachable_rules(const struct strset *names, surface_rule_fn fn,
			void *arg, size_t *n, struct strset *closed)
{
	const struct surface_cve *c;
	size_t nc = surface_cves(&c);

	*n = 0;
	for (size_t i = 0; i < nc; i++) {
		if (!surface_cve_reached(&c[i], names))
			continue;
		if (surface_cve_open(&c[i], names, fn, arg))
			(*n)++;
		else if (closed != NULL && strset_add(closed, c[i].id) < 0)
			return -ENOMEM;
	}
	return 0;
}
