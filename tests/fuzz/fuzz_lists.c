/* SPDX-License-Identifier: PostgreSQL */
/* fuzz_lists.c - libFuzzer harness for the list readers: the GUC and
 * JSON readers of pgsc_lists_load() (pgsc-diff's inputs) and the
 * --check-guc checker.  Names that come out must be [a-z0-9_]+, and no
 * finding may carry a raw control byte to a terminal. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pgsc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_names(const pgsc_lists *ls, int which)
{
	const char *const *names;
	size_t n = pgsc_lists_names(ls, which, &names);

	for (size_t i = 0; i < n; i++) {
		const char *p = names[i];

		if (*p == '\0' || !pgsc_guc_name_ok(p))
			__builtin_trap();
		if (i > 0 && strcmp(names[i - 1], p) >= 0)
			__builtin_trap();       /* sorted, no duplicates */
	}
}

static void
check_text(const char *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)out[i];

		if ((c < 0x20 && c != '\n') || c == 0x7f)
			__builtin_trap();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t arches[] = { 0, 0xc00000b7 /* aarch64 */ };
	char path[64], *cause = NULL, *buf = NULL;
	pgsc_lists *ls = NULL;
	size_t n = 0;
	FILE *f;
	int fd;

	fd = memfd_create("fuzz", 0);
	if (fd < 0)
		return 0;
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		goto out;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	if (pgsc_lists_load(path, NULL, &ls, &cause) == 0) {
		pgsc_diff *d = NULL;

		check_names(ls, PGSC_LIST_GLOBAL);
		check_names(ls, PGSC_LIST_SESSION);
		/* a pair always equals itself */
		if (pgsc_diff_new(ls, ls, 1, &d) == 0) {
			if (!pgsc_diff_equal(d))
				__builtin_trap();
			pgsc_diff_free(d);
		}
	} else if (cause != NULL) {
		check_text(cause, strlen(cause));
	}
	pgsc_lists_free(ls);
	free(cause);
	cause = NULL;

	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++) {
		struct pgsc_guc_check_opts o = { arches[i], (int)i };
		struct pgsc_guc_check_result res;

		f = open_memstream(&buf, &n);
		if (f == NULL)
			break;
		if (pgsc_guc_check(path, &o, f, &res, &cause) < 0) {
			free(cause);
			cause = NULL;
		}
		fclose(f);
		check_text(buf, n);
		free(buf);
		buf = NULL;
	}
out:
	close(fd);
	return 0;
}
