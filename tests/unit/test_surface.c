/* SPDX-License-Identifier: PostgreSQL */
/* test_surface.c - unit tests for surface.c and surface_args.c: the CVE
 * map (src/cves.def), its conditions (src/cve_conds.def) and the
 * baselines (src/baselines.def) are sound data, the score counts a CVE
 * once when any of its syscalls is allowed, and a rule closes a CVE only
 * when it excludes what the CVE needs, under a list's rules and under a
 * baseline's own (surface_baseline.c). */
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
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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
	/* the kernel reads the low 32 bits of socket's domain: a recorded
	 * AF_VSOCK with a high bit set is AF_VSOCK */
	{
		struct rules hi = { { "socket(a0=0x100000028)", NULL } };
		struct rules lo = { { "socket(a0=0x100000001)", NULL } };
		struct strset so = { 0 };

		assert_true(strset_add(&so, "socket") >= 0);
		assert_true(open_by("CVE-2025-21756", &so, &hi));
		assert_false(open_by("CVE-2025-21756", &so, &lo));
		strset_free(&so);
	}
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

/* The rules of a planted baseline "t": each "name|args" one rule. */
static int
t_open(const char *id, const char *const *rules, size_t n, const char *names)
{
	struct surface_barg v[8];
	const struct surface_cve *c;
	size_t nc = surface_cves(&c);
	struct strset s = { 0 };
	char buf[256], *save = NULL;
	int rc = -1;

	assert_true(n <= 8 && strlen(names) < sizeof(buf));
	for (size_t i = 0; i < n; i++) {
		const char *bar = strchr(rules[i], '|');
		static char nm[8][32];

		assert_non_null(bar);
		assert_true((size_t)(bar - rules[i]) < sizeof(nm[i]));
		memcpy(nm[i], rules[i], (size_t)(bar - rules[i]));
		nm[i][bar - rules[i]] = '\0';
		v[i] = (struct surface_barg){ "t", nm[i], bar + 1 };
	}
	strcpy(buf, names);
	for (char *t = strtok_r(buf, " ", &save); t != NULL;
	     t = strtok_r(NULL, " ", &save))
		assert_true(strset_add(&s, t) >= 0);
	for (size_t i = 0; i < nc; i++)
		if (strcmp(c[i].id, id) == 0) {
			assert_true(surface_cve_reached(&c[i], &s));
			rc = surface_barg_cve_open(v, n, "t", &c[i], &s);
		}
	strset_free(&s);
	if (rc < 0)
		fail_msg("%s not in the map", id);
	return rc;
}

#define OPEN(id, names, ...) \
	t_open(id, (const char *const[]){ __VA_ARGS__ }, \
	       sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *), \
	       names)

/* The text of BASELINE_ARGS: what parses and what does not. */
static void
test_barg_parse(void **state)
{
	struct surface_balt a;

	(void)state;
	assert_int_equal(surface_barg_parse("a0:MASKED_EQ:2114060288:0 a2:NE:7",
					    &a), 0);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.t[0].op, SURFACE_MASKED_EQ);
	assert_int_equal(a.t[0].v, 2114060288);
	assert_int_equal(a.t[0].v2, 0);
	assert_int_equal(a.t[1].arg, 2);
	assert_int_equal(a.t[1].op, SURFACE_NE);
	assert_int_equal(surface_barg_parse("a5:GE:18446744073709551615",
					    &a), 0);
	assert_true(a.t[0].v == UINT64_MAX);
	assert_int_equal(surface_barg_parse("", &a), -EINVAL);
	assert_int_equal(surface_barg_parse("a6:EQ:1", &a), -EINVAL);
	assert_int_equal(surface_barg_parse("a0:EQUAL:1", &a), -EINVAL);
	assert_int_equal(surface_barg_parse("a0:EQ:", &a), -EINVAL);
	assert_int_equal(surface_barg_parse("a0:EQ:-1", &a), -EINVAL);
	assert_int_equal(surface_barg_parse("a0:EQ:18446744073709551616", &a),
			 -EINVAL);
	assert_int_equal(surface_barg_parse("a0:MASKED_EQ:3", &a), -EINVAL);
	assert_int_equal(surface_barg_parse("a0:EQ:1 ", &a), -EINVAL);
	assert_int_equal(surface_barg_parse("a0:EQ:1x", &a), -EINVAL);
	assert_int_equal(surface_barg_parse(
		"a0:EQ:1 a0:EQ:1 a0:EQ:1 a0:EQ:1 a0:EQ:1 a0:EQ:1 a0:EQ:1", &a),
		-EINVAL);
}

/*
 * A baseline's own rules, planted: what each op excludes follows from
 * the CVE's condition (cve_conds.def): CVE-2025-21756 needs
 * socket(AF_VSOCK), CVE-2024-26824 socket(AF_ALG), CVE-2023-3390
 * clone/unshare with CLONE_NEWUSER, CVE-2016-8655 setsockopt(SOL_PACKET),
 * CVE-2016-9793 setsockopt(SOL_SOCKET, SO_SNDBUFFORCE or SO_RCVBUFFORCE).
 * The numbers are the headers' (konst()).
 */
static void
test_baseline_after(void **state)
{
	char vs[32], alg[32], lt[32], gt[32], ne[32], nu[64], nu1[64];
	char pk[32], pkm[64], snd[64], rcv[64];
	uint64_t vsock = konst("AF_VSOCK"), af_alg = konst("AF_ALG");

	(void)state;
	snprintf(vs, sizeof(vs), "socket|a0:EQ:%llu", (unsigned long long)vsock);
	snprintf(alg, sizeof(alg), "socket|a0:EQ:%llu",
		 (unsigned long long)af_alg);
	snprintf(lt, sizeof(lt), "socket|a0:LT:%llu", (unsigned long long)vsock);
	snprintf(gt, sizeof(gt), "socket|a0:GT:%llu", (unsigned long long)vsock);
	snprintf(ne, sizeof(ne), "socket|a0:NE:%llu", (unsigned long long)vsock);
	snprintf(nu, sizeof(nu), "clone|a0:MASKED_EQ:%llu:0",
		 (unsigned long long)konst("CLONE_NEWUSER"));
	snprintf(nu1, sizeof(nu1), "clone|a0:MASKED_EQ:%llu:%llu",
		 (unsigned long long)konst("CLONE_NEWUSER"),
		 (unsigned long long)konst("CLONE_NEWUSER"));
	snprintf(pk, sizeof(pk), "setsockopt|a1:EQ:%llu",
		 (unsigned long long)konst("SOL_PACKET"));
	snprintf(pkm, sizeof(pkm), "setsockopt|a1:NE:%llu a1:LT:%llu",
		 (unsigned long long)konst("SOL_PACKET"),
		 (unsigned long long)konst("SOL_PACKET") + 1);
	snprintf(snd, sizeof(snd), "setsockopt|a1:EQ:%llu a2:EQ:%llu",
		 (unsigned long long)konst("SOL_SOCKET"),
		 (unsigned long long)konst("SO_SNDBUFFORCE"));
	snprintf(rcv, sizeof(rcv), "setsockopt|a1:EQ:%llu a2:GE:%llu",
		 (unsigned long long)konst("SOL_SOCKET"),
		 (unsigned long long)konst("SO_RCVBUFFORCE"));

	/* EQ admits only its value; alternatives are ORed */
	assert_false(OPEN("CVE-2025-21756", "socket", alg));
	assert_true(OPEN("CVE-2025-21756", "socket", vs));
	assert_true(OPEN("CVE-2025-21756", "socket", alg, vs));
	assert_true(OPEN("CVE-2024-26824", "socket", alg, "socket|a0:EQ:1"));
	/* no rule for the name: allowed with every argument */
	assert_true(OPEN("CVE-2025-21756", "socket", nu));
	/* a rule that does not parse: not read, reachable */
	assert_true(OPEN("CVE-2025-21756", "socket", "socket|a0:XX:1"));
	/* LT/LE exclude what is at or above the bound: high bits only add */
	assert_false(OPEN("CVE-2025-21756", "socket", lt));
	assert_true(OPEN("CVE-2024-26824", "socket", lt));
	/* NE and GT on an int argument: the kernel reads the low 32 bits,
	 * so vsock | 1 << 32 passes both and is AF_VSOCK */
	assert_true(OPEN("CVE-2025-21756", "socket", ne));
	assert_true(OPEN("CVE-2025-21756", "socket", gt));
	assert_true(OPEN("CVE-2025-21756", "socket", lt, gt));
	/* ...unless an EQ fixes the high bits too: EQ x AND NE x is empty */
	{
		char both[64];

		snprintf(both, sizeof(both), "socket|a0:EQ:%llu a0:NE:%llu",
			 (unsigned long long)vsock, (unsigned long long)vsock);
		assert_false(OPEN("CVE-2025-21756", "socket", both));
		snprintf(both, sizeof(both), "socket|a0:EQ:%llu a0:GT:%llu",
			 (unsigned long long)vsock, (unsigned long long)vsock);
		assert_false(OPEN("CVE-2025-21756", "socket", both));
	}
	/* MASKED_EQ: CLONE_NEWUSER masked to 0 closes; to 1, or a mask
	 * without it, does not; unshare or clone3 allowed whole keep it */
	assert_false(OPEN("CVE-2023-3390", "clone", nu));
	assert_false(OPEN("CVE-2023-3390", "clone", "clone|a0:MASKED_EQ:2114060288:0"));
	assert_true(OPEN("CVE-2023-3390", "clone", nu1));
	assert_true(OPEN("CVE-2023-3390", "clone", "clone|a0:MASKED_EQ:255:0"));
	assert_true(OPEN("CVE-2023-3390", "clone", "clone|a1:MASKED_EQ:2114060288:0"));
	assert_true(OPEN("CVE-2023-3390", "clone unshare", nu));
	assert_true(OPEN("CVE-2023-3390", "clone clone3", nu));
	/* a value outside its mask: not read, reachable */
	assert_true(OPEN("CVE-2023-3390", "clone", "clone|a0:MASKED_EQ:0:1"));
	/* the terms of one rule are ANDed, per argument */
	assert_true(OPEN("CVE-2016-8655", "setsockopt", pk));
	/* a1 != 263 AND a1 < 264 admits no SOL_PACKET, but range and NE
	 * terms are judged one by one against the fixed bits: left
	 * reachable, the conservative side (surface_baseline.c) */
	assert_true(OPEN("CVE-2016-8655", "setsockopt", pkm));
	assert_false(OPEN("CVE-2016-8655", "setsockopt", snd));
	assert_true(OPEN("CVE-2016-9793", "setsockopt", snd));
	assert_true(OPEN("CVE-2016-9793", "setsockopt", rcv));
	assert_false(OPEN("CVE-2016-9793", "setsockopt",
			  "setsockopt|a1:EQ:6 a2:GE:0"));
	/* no condition pgsc reads: never closed */
	assert_true(OPEN("CVE-2017-6074", "setsockopt",
			 "setsockopt|a1:EQ:6 a2:EQ:1"));
}

/* The shipped BASELINE_ARGS: every line parses and is Docker's, names a
 * call the baseline allows; Docker's figures printed for the log, with
 * what follows from its rules: the user-namespace CVEs closed through
 * clone (no clone3, no unshare), AF_VSOCK's open (a0 > 40). */
static void
test_baseline_docker(void **state)
{
	const struct surface_barg *v;
	const struct surface_cve *c;
	size_t n = surface_bargs(&v), nc = surface_cves(&c), after;
	struct strset names = { 0 }, closed = { 0 }, ss = { 0 };

	(void)state;
	assert_int_equal(surface_baseline_names("docker", &names), 0);
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		struct surface_balt a;

		assert_string_equal(v[i].id, "docker");
		assert_true(strset_has(&names, v[i].name));
		if (surface_barg_parse(v[i].args, &a) < 0)
			fail_msg("BASELINE_ARGS %s \"%s\" does not parse",
				 v[i].name, v[i].args);
	}
	assert_false(strset_has(&names, "clone3"));
	assert_false(strset_has(&names, "unshare"));
	assert_int_equal(surface_barg_reachable(v, n, "docker", &names, &after,
						&closed), 0);
	printf("# Docker default: %zu CVEs reachable, %zu after its rules\n",
	       surface_reachable(&names), after);
	assert_int_equal(after + closed.n, surface_reachable(&names));
	assert_true(strset_has(&closed, "CVE-2023-3390"));
	assert_false(strset_has(&closed, "CVE-2025-21756"));
	for (size_t i = 0; i < nc; i++)
		if (strset_has(&closed, c[i].id) &&
		    strncmp(c[i].condition, "CLONE_NEWUSER", 13) != 0)
			fail_msg("%s closed: not a clone one", c[i].id);
	strset_free(&closed);
	/* @system-service: no rules, after = before */
	assert_int_equal(surface_baseline_names("system_service", &ss), 0);
	assert_int_equal(surface_barg_reachable(v, n, "system_service", &ss,
						&after, &closed), 0);
	assert_int_equal(after, surface_reachable(&ss));
	assert_int_equal(closed.n, 0);
	strset_free(&ss);
	strset_free(&names);
}

/*
 * The kernel as the oracle of what a rule admits: a child loads a filter
 * where socket is allowed only by the rules @rules ("a0:..." each, ORed;
 * every other call allowed) and calls socket with the domain @dom, with
 * its high 32 bits clear, 1 and all set.  Returns 1 when the filter lets
 * any through (an errno other than the filter's EXFULL), 0 when it
 * refuses all three.
 */
static int
kernel_admits(const char *const *rules, size_t n, uint64_t dom)
{
	static const int cmp[] = {
		[SURFACE_EQ] = SCMP_CMP_EQ, [SURFACE_NE] = SCMP_CMP_NE,
		[SURFACE_LT] = SCMP_CMP_LT, [SURFACE_LE] = SCMP_CMP_LE,
		[SURFACE_GT] = SCMP_CMP_GT, [SURFACE_GE] = SCMP_CMP_GE,
		[SURFACE_MASKED_EQ] = SCMP_CMP_MASKED_EQ,
	};
	const uint64_t probe[3] = { dom, dom | UINT64_C(1) << 32,
				    dom | UINT64_C(0xffffffff00000000) };
	int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, "socket");
	int status = 0;
	pid_t pid;

	assert_true(nr >= 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EXFULL));
		int got = 0;

		if (ctx == NULL)
			_exit(100);
		for (int k = 0; k < 512; k++)
			if (k != nr && seccomp_rule_add(ctx, SCMP_ACT_ALLOW, k,
							0) < 0)
				_exit(101);
		for (size_t i = 0; i < n; i++) {
			struct scmp_arg_cmp c[SURFACE_BTERMS_MAX];
			struct surface_balt a;

			if (surface_barg_parse(rules[i], &a) < 0)
				_exit(102);
			for (size_t k = 0; k < a.n; k++)
				c[k] = (struct scmp_arg_cmp){
					a.t[k].arg, (enum scmp_compare)
					cmp[a.t[k].op], a.t[k].v, a.t[k].v2 };
			if (seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr,
						   (unsigned)a.n, c) < 0)
				_exit(103);
		}
		if (seccomp_load(ctx) < 0)
			_exit(104);
		for (int i = 0; i < 3; i++)
			if (syscall(nr, probe[i], (long)SOCK_SEQPACKET, 0L) >= 0 ||
			    errno != EXFULL)
				got = 1;
		_exit(got);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) > 1)
		fail_msg("the oracle's child failed: %d", WEXITSTATUS(status));
	return WEXITSTATUS(status);
}

/* surface_baseline.c's verdict against the kernel's for socket rules:
 * Docker's shipped ones and planted ones, on AF_VSOCK, AF_ALG, AF_UNIX. */
static void
test_baseline_kernel(void **state)
{
	static const struct {
		const char *cve, *dom;
	} cves[] = {
		{ "CVE-2025-21756", "AF_VSOCK" },
		{ "CVE-2024-26824", "AF_ALG" },
		{ "CVE-2024-36972", "AF_UNIX" },
	};
	const char *planted[][3] = {
		{ "a0:LT:38", NULL }, { "a0:LT:41", NULL }, { "a0:EQ:1", NULL },
		{ "a0:NE:40", NULL }, { "a0:LE:39", "a0:EQ:40" },
		{ "a0:MASKED_EQ:4294967295:1", NULL },
		{ "a0:MASKED_EQ:255:40", NULL }, { "a0:GE:39", "a0:LT:38" },
	};
	const struct surface_barg *v;
	size_t nv = surface_bargs(&v);
	const char *docker[8];
	size_t nd = 0;

	(void)state;
	for (size_t i = 0; i < nv; i++)
		if (strcmp(v[i].name, "socket") == 0 && nd < 8)
			docker[nd++] = v[i].args;
	assert_true(nd > 0);
	for (size_t c = 0; c < ARRAY_SIZE(cves); c++) {
		uint64_t dom = konst(cves[c].dom);
		int k = kernel_admits(docker, nd, dom);

		printf("# Docker's socket rules, %s: kernel %s\n", cves[c].dom,
		       k ? "admits" : "refuses");
		/* only the shipped rules decide for Docker */
		{
			const struct surface_cve *m;
			size_t nm = surface_cves(&m);
			struct strset s = { 0 };

			assert_true(strset_add(&s, "socket") >= 0);
			for (size_t i = 0; i < nm; i++)
				if (strcmp(m[i].id, cves[c].cve) == 0)
					assert_int_equal(surface_barg_cve_open(
						v, nv, "docker", &m[i], &s), k);
			strset_free(&s);
		}
		for (size_t p = 0; p < ARRAY_SIZE(planted); p++) {
			size_t n = planted[p][1] != NULL ? 2 : 1;
			char r0[64], r1[64];

			snprintf(r0, sizeof(r0), "socket|%s", planted[p][0]);
			snprintf(r1, sizeof(r1), "socket|%s",
				 n > 1 ? planted[p][1] : "");
			k = kernel_admits(planted[p], n, dom);
			if ((n > 1 ? OPEN(cves[c].cve, "socket", r0, r1) :
				     OPEN(cves[c].cve, "socket", r0)) != k)
				fail_msg("%s, %s: the kernel %s, pgsc says %s",
					 planted[p][0], cves[c].dom,
					 k ? "admits" : "refuses",
					 k ? "closed" : "open");
		}
	}
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
		cmocka_unit_test(test_barg_parse),
		cmocka_unit_test(test_baseline_after),
		cmocka_unit_test(test_baseline_docker),
		cmocka_unit_test(test_baseline_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
