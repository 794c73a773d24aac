/* SPDX-License-Identifier: PostgreSQL */
/*
 * unit.c - the helpers every unit test program links (unit.h declares
 * them): the program's private temporary directory as a cmocka group
 * setup and teardown.
 */
#include <errno.h>
#include <limits.h>

#include "unit.h"

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
