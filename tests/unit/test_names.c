/* SPDX-License-Identifier: PostgreSQL */
/* test_names.c - unit tests for syscall_names.c: syscall and arch names. */
#include "unit.h"
#include "syscalls.h"

#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

/* pgsc's short names and libseccomp's tokens (= audit arch tokens). */
static const struct {
	const char *name;
	uint32_t token;
} arch_table[] = {
	{ "x86_64", SCMP_ARCH_X86_64 }, { "i386", SCMP_ARCH_X86 },
	{ "aarch64", SCMP_ARCH_AARCH64 }, { "arm", SCMP_ARCH_ARM },
	{ "ppc64le", SCMP_ARCH_PPC64LE }, { "ppc64", SCMP_ARCH_PPC64 },
	{ "ppc", SCMP_ARCH_PPC }, { "s390x", SCMP_ARCH_S390X },
	{ "s390", SCMP_ARCH_S390 }, { "mips", SCMP_ARCH_MIPS },
	{ "mipsel", SCMP_ARCH_MIPSEL }, { "mips64", SCMP_ARCH_MIPS64 },
	{ "mipsel64", SCMP_ARCH_MIPSEL64 }, { "riscv64", SCMP_ARCH_RISCV64 },
};

/* A syscall number on an arch and the name it must have. */
struct name_case {
	uint32_t arch;
	int nr;
	const char *name;
};

static void
expect_names(const struct name_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_string_equal(pgsc_syscall_name(c[i].arch, c[i].nr),
				    c[i].name);
}

static void
test_x86_64(void **state)
{
	static const struct name_case cases[] = {
		{ X86_64, 0, "read" },
		{ X86_64, 1, "write" },
		{ X86_64, 12, "brk" },
		{ X86_64, 56, "clone" },
		{ X86_64, 59, "execve" },
		{ X86_64, 122, "setfsuid" },
		{ X86_64, 231, "exit_group" },
		{ X86_64, 257, "openat" },
		{ X86_64, 435, "clone3" },
		/* libseccomp's spelling, not libaudit's (docs/design.md §6) */
		{ X86_64, 17, "pread64" },
	};

	(void)state;
	expect_names(cases, ARRAY_SIZE(cases));
}

static void
test_i386(void **state)
{
	static const struct name_case cases[] = {
		{ I386, 122, "uname" },
		{ I386, 11, "execve" },
		{ I386, 252, "exit_group" },
		{ I386, 102, "socketcall" },
		{ I386, 142, "_newselect" },
		{ I386, 140, "_llseek" },
	};

	(void)state;
	expect_names(cases, ARRAY_SIZE(cases));
	/* the same number on the two x86 arches */
	assert_string_not_equal(pgsc_syscall_name(I386, 122),
				pgsc_syscall_name(X86_64, 122));
	assert_string_equal(pgsc_syscall_name(I386, 1), "exit");
	assert_string_equal(pgsc_syscall_name(X86_64, 1), "write");
}

static void
test_aarch64(void **state)
{
	static const struct name_case cases[] = {
		{ AARCH64, 56, "openat" },
		{ AARCH64, 221, "execve" },
		{ AARCH64, 94, "exit_group" },
		{ AARCH64, 220, "clone" },
		{ AARCH64, 435, "clone3" },
	};

	(void)state;
	expect_names(cases, ARRAY_SIZE(cases));
	assert_string_equal(pgsc_arch_name(AARCH64), "aarch64");
}

static void
test_unknown(void **state)
{
	(void)state;
	/* arches libseccomp (or pgsc) does not know */
	assert_null(pgsc_syscall_name(0xdeadbeefU, 1));
	assert_null(pgsc_syscall_name(0, 1));
	assert_null(pgsc_arch_name(0xdeadbeefU));
	assert_null(pgsc_arch_name(0));
	/* numbers out of range */
	assert_null(pgsc_syscall_name(X86_64, -1));
	assert_null(pgsc_syscall_name(X86_64, -10166));
	assert_null(pgsc_syscall_name(X86_64, 99999));
	assert_null(pgsc_syscall_name(X86_64, INT32_MAX));
	assert_null(pgsc_syscall_name(I386, 99999));
	assert_null(pgsc_syscall_name(AARCH64, 99999));
	/* a miss is cached as a miss, not as some other entry */
	assert_null(pgsc_syscall_name(X86_64, 99999));
	assert_string_equal(pgsc_syscall_name(X86_64, 0), "read");
}

static void
test_arch_round_trip(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(arch_table); i++) {
		uint32_t tok = pgsc_arch_token(arch_table[i].name);

		assert_int_equal(tok, arch_table[i].token);
		assert_string_equal(pgsc_arch_name(tok), arch_table[i].name);
		for (size_t j = 0; j < i; j++)
			assert_int_not_equal(arch_table[j].token, tok);
	}
	/* libseccomp's tokens are the kernel's audit tokens */
	assert_int_equal(SCMP_ARCH_X86_64, 0xc000003eU);
	assert_int_equal(SCMP_ARCH_X86, 0x40000003U);
	assert_int_equal(SCMP_ARCH_AARCH64, 0xc00000b7U);
	assert_int_equal(pgsc_arch_token("x86_64"), X86_64);
	assert_int_equal(pgsc_arch_token("i386"), I386);
	assert_int_equal(pgsc_arch_token("aarch64"), AARCH64);
	assert_string_equal(pgsc_arch_name(X86_64), "x86_64");
	assert_string_equal(pgsc_arch_name(I386), "i386");
	assert_int_equal(pgsc_arch_token("nope"), 0);
	assert_int_equal(pgsc_arch_token(""), 0);
	assert_int_equal(pgsc_arch_token("X86_64"), 0);
	assert_int_equal(pgsc_arch_token(NULL), 0);
	assert_non_null(pgsc_arch_name(pgsc_native_arch()));
	assert_int_equal(pgsc_native_arch(), seccomp_arch_native());
}

/* Resolve many numbers (the cache grows several times) and compare every
 * answer with libseccomp's, before and after the growth and a reset. */
static void
test_cache_consistent(void **state)
{
	static const uint32_t arches[] = { X86_64, I386, AARCH64 };
	const char *first_read;
	size_t named = 0;

	(void)state;
	syscall_names_reset_cache();
	first_read = pgsc_syscall_name(X86_64, 0);
	assert_string_equal(first_read, "read");
	for (int pass = 0; pass < 2; pass++) {
		for (size_t a = 0; a < ARRAY_SIZE(arches); a++) {
			for (int nr = 0; nr < 1000; nr++) {
				const char *n = pgsc_syscall_name(arches[a], nr);
				char *ref = seccomp_syscall_resolve_num_arch(
					arches[a], nr);

				if (ref == NULL) {
					assert_null(n);
				} else {
					assert_non_null(n);
					assert_string_equal(n, ref);
					/* every name can go into a GUC list */
					assert_true(pgsc_guc_name_ok(n));
					named++;
				}
				free(ref);
			}
		}
	}
	assert_true(named > 2 * 600);
	/* names handed out before the cache grew are still valid */
	assert_string_equal(first_read, "read");
	assert_ptr_equal(pgsc_syscall_name(X86_64, 0), first_read);
	syscall_names_reset_cache();
	assert_string_equal(pgsc_syscall_name(X86_64, 0), "read");
	assert_string_equal(pgsc_syscall_name(I386, 122), "uname");
	assert_null(pgsc_syscall_name(X86_64, 99999));
	syscall_names_reset_cache();
}

/* 2M invalid numbers (docs/live.md) leave a bounded cache, and the names
 * still resolve afterwards. */
static void
test_cache_bounded(void **state)
{
	size_t misses = 0, n;

	(void)state;
	syscall_names_reset_cache();
	for (int i = 0; i < 200000; i++)
		assert_null(pgsc_syscall_name(X86_64, 100000 + i));
	n = syscall_names_cache_size(&misses);
	assert_true(misses <= 4096);
	assert_true(n <= 4096);
	/* a miss past the cap is still a miss, a name still a name */
	assert_null(pgsc_syscall_name(X86_64, 100000 + 199999));
	assert_string_equal(pgsc_syscall_name(X86_64, 39), "getpid");
	assert_string_equal(pgsc_syscall_name(I386, 122), "uname");
	/* every valid number of two arches is cached, the cap is on misses */
	for (int i = 0; i < 600; i++) {
		pgsc_syscall_name(X86_64, i);
		pgsc_syscall_name(AARCH64, i);
	}
	n = syscall_names_cache_size(&misses);
	assert_true(misses <= 4096);
	assert_true(n > misses);
	assert_string_equal(pgsc_syscall_name(X86_64, 435), "clone3");
	syscall_names_reset_cache();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_64),
		cmocka_unit_test(test_i386),
		cmocka_unit_test(test_aarch64),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_arch_round_trip),
		cmocka_unit_test(test_cache_consistent),
		cmocka_unit_test(test_cache_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
