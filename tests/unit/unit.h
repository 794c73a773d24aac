/* SPDX-License-Identifier: PostgreSQL */
/*
 * unit.h - what the unit tests under tests/unit share: cmocka with the
 * headers it wants before it, the library's internal header, the audit
 * arch tokens and record separator the recorded lines use, a private
 * temporary directory per test program, and the path of a fixture
 * (tests/fixtures, or $PGSC_FIXTURES as ctest sets it).  What is not
 * inline here is in unit.c, linked into every unit test program.
 */
#ifndef PGSC_UNIT_H
#define PGSC_UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgsc-int.h"

/* audit arch tokens (AUDIT_ARCH_*) of the recorded lines */
#define X86_64 0xc000003eU
#define I386 0x40000003U
#define AARCH64 0xc00000b7U

/* The ENRICHED separator; kept apart so "\x1d" never swallows hex digits
 * of the text that follows it. */
#define GS "\x1d"

/* nftw callback of unit_rmtree() */
static inline int
unit_rm_one(const char *path, const struct stat *sb, int flag,
	    struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Remove @dir and everything under it.  Returns 0 or -1. */
static inline int
unit_rmtree(const char *dir)
{
	return nftw(dir, unit_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The path of fixture @name (relative to tests/fixtures) in @out. */
static inline void
unit_fixture_path(char *out, size_t sz, const char *name)
{
	const char *dir = getenv("PGSC_FIXTURES");

	if (dir != NULL && *dir != '\0') {
		snprintf(out, sz, "%s/%s", dir, name);
	} else {
		/* run by hand: tests/unit/../fixtures */
		const char *src = __FILE__, *slash = strrchr(src, '/');

		snprintf(out, sz, "%.*s/../fixtures/%s",
			 slash ? (int)(slash - src) : 1, slash ? src : ".", name);
	}
}

/* One field of a struct against the value it must have: a row of the
 * tables unit_expect_fields() checks. */
struct unit_field {
	const char *name;
	int64_t got, want;
};

/* A call, the name of an arch (pgsc_arch_token()), and what
 * syscall_families_exists() must return for them: a row of unit_expect_exists(). */
struct unit_exists {
	const char *call, *arch;
	int want;
};

/* unit.c */
extern char unit_tmpdir[];
int unit_tmpdir_setup(void **);
int unit_tmpdir_teardown(void **);
void unit_expect_fields(const struct unit_field *, size_t);
void unit_expect_exists(const struct unit_exists *, size_t);

#endif /* PGSC_UNIT_H */
