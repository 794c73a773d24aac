/* SPDX-License-Identifier: PostgreSQL */
/* test_surface.c - unit tests for surface.c and surface_args.c: the CVE
 * map (src/cves.def), its conditions (src/cve_conds.def) and the
 * baselines (src/baselines.def) are sound data, the score counts a CVE
 * once when any of its syscalls is allowed, and a rule closes a CVE only
 * when it excludes what the CVE needs. */
/*
 * Every syscall name of the map and of the baselines must be an x86_64
 * syscall for libseccomp (seccomp_syscall_resolve_name_arch() >= 0): a
 * misspelt name would make a CVE unreachable for every list.  Every entry
 * names its NVD page first, and no CVE id appears twice.  The map's size
 * is printed, for the log of the run.
 */
#include "unit.h"

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
/* the kernel's uapi headers (linux-libc-dev) only: surface_args.c takes
 * some constants from glibc's copies, which these check */
#include <asm/socket.h>
#include <linux/in.h>
#include <linux/sched.h>
#include <linux/tcp.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "syscalls.h"

/* Is every blank-separated name of @names an x86_64 syscall? */
static int
names_real(const char *names)
{
	char buf[512];
	char *save = NULL;
	int n = 0;

	if (strlen(names) >= sizeof(buf))
		return 0;
	strcpy(buf, names);
	for (char *t = strtok_r(buf, " ", &save); t != NULL;
	     t = strtok_r(NULL, " ", &save)) {
		if (seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, t) < 0) {
			fprintf(stderr, "not an x86_64 syscall: %s\n", t);
			return 0;
		}
		n++;
	}
	return n > 0;
}

static void
test_map(void **state)
{
	const struct surface_cve *c;
	size_t n = surface_cves(&c);

	(void)state;
	printf("# CVE map (src/cves.def): %zu CVEs\n", n);
	assert_true(n >= 29);
	for (size_t i = 0; i < n; i++) {
		char nvd[80];
		size_t y, k;

		/* "CVE-YYYY-N" */
		assert_int_equal(sscanf(c[i].id, "CVE-%zu-%zu", &y, &k), 2);
		assert_true(names_real(c[i].syscalls));
		assert_non_null(c[i].condition);
		snprintf(nvd, sizeof(nvd), "https://nvd.nist.gov/vuln/detail/%s",
			 c[i].id);
		if (strncmp(c[i].refs, nvd, strlen(nvd)) != 0)
			fail_msg("%s: no NVD reference first", c[i].id);
		for (size_t j = 0; j < i; j++)
			if (strcmp(c[i].id, c[j].id) == 0)
				fail_msg("%s appears twice", c[i].id);
	}
}

static void
test_baselines(void **state)
{
	const struct surface_baseline *b;
	size_t n = surface_baselines(&b);

	(void)state;
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		struct strset s = { 0 };

		assert_int_equal(surface_baseline_names(b[i].id, &s), 0);
		assert_true(s.n > 200);
		assert_true(strlen(b[i].source) > 0);
		for (size_t j = 0; j < s.n; j++)
			assert_true(names_real(s.v[j]));
		printf("# %s: %zu names, %zu CVEs reachable\n", b[i].title,
		       s.n, surface_reachable(&s));
		strset_free(&s);
	}
}

/* Reachable: a CVE counts once, whichever of its calls are allowed. */
static void
test_reachable(void **state)
{
	const struct surface_cve *c;
	size_t n = surface_cves(&c), want = 0;
	struct strset s = { 0 }, ids = { 0 };

	(void)state;
	assert_int_equal(surface_reachable(&s), 0);
	assert_true(strset_add(&s, "read") >= 0);
	assert_int_equal(surface_reachable(&s), 0);
	/* keyctl and add_key: one count per CVE that names either */
	assert_true(strset_add(&s, "keyctl") >= 0);
	assert_true(strset_add(&s, "add_key") >= 0);
	for (size_t i = 0; i < n; i++)
		if (strstr(c[i].syscalls, "keyctl") != NULL ||
		    strstr(c[i].syscalls, "add_key") != NULL)
			want++;
	assert_true(want >= 6);
	assert_int_equal(surface_reachable(&s), want);
	assert_int_equal(surface_cves_of("keyctl", &ids), 0);
	assert_true(strset_has(&ids, "CVE-2016-0728"));
	assert_false(strset_has(&ids, "CVE-2017-6001"));
	strset_free(&ids);
	assert_int_equal(surface_cves_of("getpid", &ids), 0);
	assert_int_equal(ids.n, 0);
	strset_free(&s);
}

/* surface_const() of @name, which must be known. */
static uint64_t
konst(const char *name)
{
	uint64_t v = 0;

	if (surface_const(name, strlen(name), &v) < 0)
		fail_msg("constant %s unknown", name);
	return v;
}

/* The constants surface_args.c compiles in, against the uapi headers:
 * the levels are the protocol numbers (the kernel's SOL_TCP is
 * IPPROTO_TCP...), the rest by name.  SOL_PACKET and the AF_ domains are
 * not in the uapi headers; the figures are printed for the log. */
static void
test_consts(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(konst("CLONE_NEWUSER"), CLONE_NEWUSER);
	assert_int_equal(konst("TCP_ULP"), TCP_ULP);
	assert_int_equal(konst("SOL_SOCKET"), SOL_SOCKET);
	assert_int_equal(konst("SO_SNDBUFFORCE"), SO_SNDBUFFORCE);
	assert_int_equal(konst("SO_RCVBUFFORCE"), SO_RCVBUFFORCE);
	assert_int_equal(konst("SOL_TCP"), IPPROTO_TCP);
	assert_int_equal(konst("SOL_IP"), IPPROTO_IP);
	assert_int_equal(konst("SOL_IPV6"), IPPROTO_IPV6);
	assert_int_equal(konst("IPT_SO_SET_REPLACE"), IPT_SO_SET_REPLACE);
	assert_int_equal(konst("IP6T_SO_SET_REPLACE"), IP6T_SO_SET_REPLACE);
	printf("# SOL_PACKET %llu, AF_VSOCK %llu, AF_ALG %llu, AF_UNIX %llu\n",
	       (unsigned long long)konst("SOL_PACKET"),
	       (unsigned long long)konst("AF_VSOCK"),
	       (unsigned long long)konst("AF_ALG"),
	       (unsigned long long)konst("AF_UNIX"));
	assert_int_equal(surface_const("SOL_NOPE", 8, &v), -ENOENT);
	assert_int_equal(surface_const("SOL_TCPX", 7, &v), 0);
}

/* Every condition of the map has its line in cve_conds.def; each entry
 * there parses, and names a call of every CVE that has the condition. */
static void
test_conds(void **state)
{
	const struct surface_cve *c;
	size_t n = surface_cves(&c), evaluable = 0;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const char *rules;
		char buf[512], *save = NULL;
		int named = 0;

		if (c[i].condition[0] == '\0')
			continue;
		rules = surface_cond_rules(c[i].condition);
		if (rules == NULL)
			fail_msg("%s: condition \"%s\" not in cve_conds.def",
				 c[i].id, c[i].condition);
		if (*rules == '\0')
			continue;
		evaluable++;
		assert_true(strlen(c[i].syscalls) < sizeof(buf));
		strcpy(buf, c[i].syscalls);
		for (char *t = strtok_r(buf, " ", &save); t != NULL;
		     t = strtok_r(NULL, " ", &save)) {
			struct argrule r;
			int rc = surface_cond_parse(rules, t, &r);

			if (rc < 0)
				fail_msg("%s: %s: \"%s\" does not parse",
					 c[i].id, t, rules);
			named += rc;
		}
		if (named == 0)
			fail_msg("%s: \"%s\" names none of %s", c[i].id, rules,
				 c[i].syscalls);
	}
	printf("# %zu CVEs with a condition pgsc evaluates\n", evaluable);
	assert_true(evaluable >= 60);
}

/* A list's rules for the score, from rule texts per name. */
struct rules {
	const char *text[4];    /* "name(rule)" */
	struct argrule r[4];
};

static int
rules_cb(void *arg, const char *name, struct surface_rule *sr)
{
	struct rules *R = arg;

	for (int i = 0; i < 4 && R->text[i] != NULL; i++) {
		size_t nl = strlen(name);
		struct argrule *r = &R->r[i];

		if (strncmp(R->text[i], name, nl) != 0 ||
		    R->text[i][nl] != '(')
			continue;
		assert_int_equal(argrule_parse(R->text[i],
					       strlen(R->text[i]), r, NULL), 1);
		memset(sr, 0, sizeof(*sr));
		sr->nargs = r->nargs;
		for (unsigned k = 0; k < r->nargs; k++) {
			sr->arg[k] = r->arg[k];
			sr->mask[k] = r->masked[k] ? r->mask[k] : ~(uint64_t)0;
		}
		sr->nalts = r->nalts;
		sr->stride = ARGRULE_ARGS_MAX;
		sr->val = r->val[0];
		return 1;
	}
	return 0;
}

/* Is CVE @id reachable by @names under @R? */
static int
open_by(const char *id, const struct strset *names, struct rules *R)
{
	const struct surface_cve *c;
	size_t n = surface_cves(&c);

	for (size_t i = 0; i < n; i++)
		if (strcmp(c[i].id, id) == 0)
			return surface_cve_reached(&c[i], names) &&
			       surface_cve_open(&c[i], names, rules_cb, R);
	fail_msg("%s not in the map", id);
	return -1;
}

/* Closed only where the rule excludes what the CVE needs. */
static void
test_after(void **state)
{
	struct strset s = { 0 }, closed = { 0 };
	struct rules plain = { { NULL } };
	struct rules tcp = { { "setsockopt(a1:a2=6:1|1:9)",
			       "clone(a0&0x7e020000=0)", NULL } };
	struct rules ulp = { { "setsockopt(a1:a2=6:1|6:31)",
			       "clone(a0&0x7e020000=0x10000000)", NULL } };
	struct rules pkt = { { "setsockopt(a1=263)", NULL } };
	size_t before, after;

	(void)state;
	assert_true(strset_add(&s, "setsockopt") >= 0);
	assert_true(strset_add(&s, "clone") >= 0);
	/* no rule: everything stays */
	assert_true(open_by("CVE-2016-8655", &s, &plain));
	/* SOL_PACKET excluded by (6,1),(1,9); admitted by a1=263 */
	assert_false(open_by("CVE-2016-8655", &s, &tcp));
	assert_false(open_by("CVE-2017-7308", &s, &tcp));
	assert_true(open_by("CVE-2016-8655", &s, &pkt));
	/* TCP_ULP: closed by (6,1),(1,9), open when (6,31) is admitted */
	assert_false(open_by("CVE-2023-0461", &s, &tcp));
	assert_true(open_by("CVE-2023-0461", &s, &ulp));
	/* a level rule alone admits every option of that level */
	assert_false(open_by("CVE-2016-9793", &s, &tcp));
	/* no condition: never closed */
	assert_true(open_by("CVE-2017-6074", &s, &tcp));
	/* CLONE_NEWUSER: clone's mask has it at 0 -> closed; at 1 -> open */
	assert_false(open_by("CVE-2023-3390", &s, &tcp));
	assert_true(open_by("CVE-2023-3390", &s, &ulp));
	/* clone3's flags cannot be read: open whatever clone's rule */
	assert_true(strset_add(&s, "clone3") >= 0);
	assert_true(open_by("CVE-2023-3390", &s, &tcp));
	/* the counts: after = before - closed */
	before = surface_reachable(&s);
	assert_int_equal(surface_reachable_rules(&s, rules_cb, &tcp, &after,
						 &closed), 0);
	assert_int_equal(after + closed.n, before);
	assert_true(strset_has(&closed, "CVE-2016-8655"));
	assert_false(strset_has(&closed, "CVE-2023-3390"));
	strset_free(&closed);
	assert_int_equal(surface_reachable_rules(&s, rules_cb, &plain, &after,
						 NULL), 0);
	assert_int_equal(after, before);
	strset_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_baselines),
		cmocka_unit_test(test_reachable),
		cmocka_unit_test(test_consts),
		cmocka_unit_test(test_conds),
		cmocka_unit_test(test_after),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
