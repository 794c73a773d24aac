/* SPDX-License-Identifier: PostgreSQL */
/* fuzz_diff.c - libFuzzer harness for pgsc-diff's readers of text in
 * memory (diff.c diff_load_buffer(): a JSON report through json.c, or a
 * GUC file through gucfile.c): any text either gives a pair of lists
 * whose names are all syscall-shaped, or fails with a cause that names
 * the input. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pgsc_lists *ls = NULL;
	char *cause = NULL;
	int rc;

	rc = diff_load_buffer((const char *)data, size, "fuzz", &ls, &cause);
	if (rc == 0) {
		if (ls == NULL)
			__builtin_trap();
		for (int w = 0; w < 2; w++) {
			const struct strset *s = diff_lists_set(ls, w);

			for (size_t i = 0; i < s->n; i++)
				if (!pgsc_guc_name_ok(s->v[i]) ||
				    strlen(s->v[i]) > DIFF_NAME_MAX)
					__builtin_trap();
		}
	} else if (rc != -ENOMEM &&
		   (cause == NULL || strncmp(cause, "fuzz", 4) != 0)) {
		__builtin_trap();
	}
	pgsc_lists_free(ls);
	free(cause);
	return 0;
}
