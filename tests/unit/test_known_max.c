/* SPDX-License-Identifier: PostgreSQL */
/* test_known_max.c - unit tests for syscall_arch.c's known max and
 * filter_build.c's ENOSYS part and export. */
/*
 * The known max is the highest number libseccomp names on an arch; a
 * spec ("x86_64:434,i386:434") overrides it per arch.  filter_build_load()
 * with an unknown part is tried on the real kernel, in a child process:
 * a number above the known max fails with ENOSYS, a known one the rules
 * lack with the default's EPERM, and a number above the max that a rule
 * names keeps its action.  filter_build_export() hands back through its pipe
 * exactly the program libseccomp writes to a file for the same filter.
 */
#include "unit.h"
#include "filter.h"
#include "syscalls.h"

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void
test_known_max(void **state)
{
	int max = syscall_known_max(X86_64);
	char *name;

	(void)state;
	/* clone3 (435) is known to any libseccomp pgsc builds with */
	assert_true(max >= 435);
	name = seccomp_syscall_resolve_num_arch(X86_64, max);
	assert_non_null(name);
	free(name);
	for (int n = max + 1; n < 8192; n++)
		assert_null(seccomp_syscall_resolve_num_arch(X86_64, n));
	assert_true(syscall_known_max(I386) >= 435);
	assert_int_equal(syscall_known_max(0x12345678), -1);
}

static void
test_spec(void **state)
{
	char *cause = NULL;
	int max = -7;

	(void)state;
	assert_int_equal(syscall_known_max_spec("x86_64:434,i386:400",
						  X86_64, &max, &cause), 0);
	assert_int_equal(max, 434);
	assert_int_equal(syscall_known_max_spec("x86_64:434, x86:400",
						  I386, &max, &cause), 0);
	assert_int_equal(max, 400);
	/* not named, empty, NULL: libseccomp's */
	assert_int_equal(syscall_known_max_spec("x86_64:434", I386, &max,
						  &cause), 0);
	assert_int_equal(max, syscall_known_max(I386));
	assert_int_equal(syscall_known_max_spec("", X86_64, &max, &cause),
			 0);
	assert_int_equal(max, syscall_known_max(X86_64));
	assert_int_equal(syscall_known_max_spec(NULL, X86_64, &max, &cause),
			 0);
	assert_null(cause);
	/* arch 0: check only */
	assert_int_equal(syscall_known_max_spec("aarch64:450", 0, &max,
						  &cause), 0);
	assert_int_equal(syscall_known_max_spec("vax:3", 0, &max, &cause),
			 -EINVAL);
	assert_string_equal(cause, "unknown architecture in \"vax:3\"");
	assert_int_equal(syscall_known_max_spec("x86_64", 0, &max, &cause),
			 -EINVAL);
	assert_string_equal(cause, "not ARCH:NUMBER in \"x86_64\"");
	assert_int_equal(syscall_known_max_spec("x86_64:4x", 0, &max,
						  &cause), -EINVAL);
	assert_int_equal(syscall_known_max_spec("x86_64:-1", 0, &max,
						  &cause), -EINVAL);
	assert_int_equal(syscall_known_max_spec("x86_64:8192", 0, &max,
						  &cause), -EINVAL);
	assert_string_equal(cause, "not a number from 0 to 8191 in "
			    "\"x86_64:8192\"");
	free(cause);
}

static void
test_text(void **state)
{
	char buf[64], want[64];

	(void)state;
	if (pgsc_native_arch() != X86_64)
		fail_msg("these figures are x86_64's");
	snprintf(want, sizeof(want), "x86_64:%d,i386:%d",
		 syscall_known_max(X86_64), syscall_known_max(I386));
	assert_int_equal(syscall_known_max_text(buf, sizeof(buf)),
			 (int)strlen(want));
	assert_string_equal(buf, want);
}

/* errno_under() builds in the child (filter_build_load()), or exports
 * in the parent and loads the program in the child (filter_load_bpf()),
 * as the module's postmaster and backends do (pgsc_prebuilt.c) */
static bool prebuilt;

/*
 * In a child: load default error with @rules and the unknown part
 * (@max_native), then call @nr with a bad fd; exit with its errno (0 if
 * it succeeded, 100 if the load failed).
 */
static int
errno_under(int max_native, const char *const *names, size_t n, long nr)
{
	struct filter_rule rules[8];
	struct filter_unknown u = { max_native, -1 };
	enum filter_step step;
	size_t bad, len = 0;
	void *bpf = NULL;
	pid_t pid;
	int st;

	memset(rules, 0, sizeof(rules));        /* no argument rules */
	for (size_t i = 0; i < n; i++) {
		rules[i].name = names[i];
		rules[i].nr = seccomp_syscall_resolve_name(names[i]);
		rules[i].action = SCMP_ACT_ALLOW;
	}
	if (prebuilt)
		assert_int_equal(filter_build_export(SCMP_ACT_ERRNO(EPERM), rules,
						     n, &u, &bpf, &len, &step,
						     &bad), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		long rc;

		if (prebuilt ? filter_load_bpf(bpf, len) < 0 :
			       filter_build_load(SCMP_ACT_ERRNO(EPERM), rules,
						 n, &u, &step, &bad) < 0)
			syscall(SYS_exit_group, 100);
		rc = syscall(nr, -1, 0, 0);
		syscall(SYS_exit_group, rc < 0 ? errno : 0);
	}
	free(bpf);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void
filter_enosys(void)
{
	static const char *const base[] = { "exit_group", "pidfd_open" };
	int max = syscall_known_max(X86_64);

	if (pgsc_native_arch() != X86_64)
		fail_msg("these figures are x86_64's");
	/* above the known max: ENOSYS; at it, not listed: EPERM */
	assert_int_equal(errno_under(max, base, 1, max + 5), ENOSYS);
	assert_int_equal(errno_under(max, base, 1, 1023), ENOSYS);
	assert_int_equal(errno_under(max, base, 1, max), EPERM);
	/* a list made before clone3 (known max 400): clone3 (435) gets
	 * ENOSYS; pidfd_open (434) gets ENOSYS unless the list names it,
	 * then it keeps allow and the kernel answers (EINVAL for pid -1) */
	assert_int_equal(errno_under(400, base, 1, 435), ENOSYS);
	assert_int_equal(errno_under(400, base, 1, 434), ENOSYS);
	assert_int_not_equal(errno_under(400, base, 2, 434), ENOSYS);
	assert_int_not_equal(errno_under(400, base, 2, 434), EPERM);
	/* no unknown part below the first number: 39 (getpid) keeps EPERM */
	assert_int_equal(errno_under(400, base, 1, 39), EPERM);
	/* restart_syscall is allowed though no list names it: with nothing
	 * to restart the kernel answers EINTR, not the filter EPERM */
	assert_int_equal(errno_under(max, base, 1, SYS_restart_syscall), EINTR);
}

/* The same filters built in the child, and built in the parent and
 * loaded in the child from their program; filter_load_bpf() refuses a
 * length that is no program. */
static void
test_filter_enosys(void **state)
{
	static const char one[8];

	(void)state;
	prebuilt = false;
	filter_enosys();
	prebuilt = true;
	filter_enosys();
	prebuilt = false;
	assert_int_equal(filter_load_bpf(one, 0), -EINVAL);
	assert_int_equal(filter_load_bpf(one, 7), -EINVAL);
	assert_int_equal(filter_load_bpf(one, FILTER_BPF_MAX + 8), -EINVAL);
}

/* The program libseccomp itself exports to a temporary file for the
 * filter build_ctx() makes without an unknown part: default @def,
 * the compat arch, logging, one allow rule per number of @nr, and
 * restart_syscall allowed (src/filter_build.c: every filter allows it). */
static size_t
libseccomp_bpf(uint32_t def, const int *nr, size_t n, char *buf, size_t cap)
{
	scmp_filter_ctx ctx = seccomp_init(def);
	FILE *f = tmpfile();
	size_t got;
	int rc;

	assert_non_null(ctx);
	assert_non_null(f);
	assert_int_equal(seccomp_attr_set(ctx, SCMP_FLTATR_CTL_LOG, 1), 0);
	assert_int_equal(seccomp_arch_add(ctx, SCMP_ARCH_X86), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr[i], 0),
				 0);
	rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
			      seccomp_syscall_resolve_name("restart_syscall"), 0);
	assert_true(rc == 0 || rc == -EEXIST);
	assert_int_equal(seccomp_export_bpf(ctx, fileno(f)), 0);
	rewind(f);
	got = fread(buf, 1, cap, f);
	fclose(f);
	seccomp_release(ctx);
	return got;
}

static void
test_filter_export(void **state)
{
	/* a small program, and one of every number libseccomp names on
	 * x86_64 (several pages: more than one write of a pipe's page) */
	static char want[FILTER_BPF_MAX + 1];
	struct filter_rule *r = calloc(1024, sizeof(*r));
	int *nr = calloc(1024, sizeof(*nr));
	size_t sizes[2] = { 3, 0 };

	(void)state;
	assert_non_null(r);
	assert_non_null(nr);
	for (int k = 0; k <= syscall_known_max(X86_64); k++) {
		char *name = seccomp_syscall_resolve_num_arch(X86_64, k);

		if (name == NULL)
			continue;
		free(name);
		nr[sizes[1]] = k;
		r[sizes[1]].name = "rule";
		r[sizes[1]].nr = k;
		r[sizes[1]++].action = SCMP_ACT_ALLOW;
	}
	assert_true(sizes[1] > 300);
	for (int t = 0; t < 2; t++) {
		enum filter_step step;
		size_t len = 0, bad = 0, wlen;
		void *bpf = NULL;

		wlen = libseccomp_bpf(SCMP_ACT_ERRNO(EPERM), nr, sizes[t], want,
				      sizeof(want));
		assert_true(wlen > 0 && wlen <= FILTER_BPF_MAX);
		assert_int_equal(filter_build_export(SCMP_ACT_ERRNO(EPERM), r,
						 sizes[t], NULL, &bpf, &len,
						 &step, &bad), 0);
		assert_int_equal(len, wlen);
		assert_memory_equal(bpf, want, len);
		if (t == 1)
			assert_true(len > 4096);
		free(bpf);
	}
	free(r);
	free(nr);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_max),
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_filter_enosys),
		cmocka_unit_test(test_filter_export),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
