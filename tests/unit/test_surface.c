/* SPDX-License-Identifier: PostgreSQL */
/* test_surface.c - unit tests for surface.c: the CVE map (src/cves.def)
 * and the baselines (src/baselines.def) are sound data, and the score
 * counts a CVE once when any of its syscalls is allowed. */
/*
 * Every syscall name of the map and of the baselines must be an x86_64
 * syscall for libseccomp (seccomp_syscall_resolve_name_arch() >= 0): a
 * misspelt name would make a CVE unreachable for every list.  Every entry
 * names its NVD page first, and no CVE id appears twice.  The map's size
 * is printed, for the log of the run.
 */
#include "unit.h"

#include <seccomp.h>
#include <stdio.h>
#include <string.h>

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_baselines),
		cmocka_unit_test(test_reachable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
