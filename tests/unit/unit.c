/* SPDX-License-Identifier: PostgreSQL */
/*
 * unit.c - the helpers every unit test program links (unit.h declares
 * them): the program's private temporary directory as a cmocka group
 * setup and teardown, the check of a table of struct fields, and of a
 * table of calls that exist or not on an arch.
 */
#include <errno.h>
#include <limits.h>

#include "unit.h"

#include "syscalls.h"

char unit_tmpdir[PATH_MAX];

/*
 * Group setup: create the program's private directory,
 * /tmp/<program>.XXXXXX, in unit_tmpdir.  Returns 0 or -1.
 */
int
unit_tmpdir_setup(void **state)
{
	(void)state;
	snprintf(unit_tmpdir, sizeof(unit_tmpdir), "/tmp/%s.XXXXXX",
		 program_invocation_short_name);
	return mkdtemp(unit_tmpdir) != NULL ? 0 : -1;
}

/* Group teardown: remove unit_tmpdir and everything under it. */
int
unit_tmpdir_teardown(void **state)
{
	(void)state;
	return unit_rmtree(unit_tmpdir);
}

/*
 * Assert each of the @n fields of @f equal to what it wants, in order;
 * the name of the first that differs goes before cmocka's message.
 */
void
unit_expect_fields(const struct unit_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (f[i].got != f[i].want)
			print_message("%s: %lld, want %lld\n", f[i].name,
				      (long long)f[i].got,
				      (long long)f[i].want);
		assert_int_equal(f[i].got, f[i].want);
	}
}

/* Assert syscall_families_exists() of each of the @n calls of @c on its arch. */
void
unit_expect_exists(const struct unit_exists *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t arch = pgsc_arch_token(c[i].arch);

		if (syscall_families_exists(c[i].call, arch) != c[i].want)
			print_message("%s on %s\n", c[i].call, c[i].arch);
		assert_int_equal(syscall_families_exists(c[i].call, arch), c[i].want);
	}
}
