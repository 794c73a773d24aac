/* SPDX-License-Identifier: PostgreSQL */
/* fuzz_candidates.c - libFuzzer harness for the reader of pgsc-scan's
 * JSON (candidates.c, pgsc-report --candidates): any text either fails
 * with a cause naming the file and a line, or gives candidates. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "candidates.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cand_list *l = NULL;
	char *cause = NULL;
	int rc;

	rc = candidates_parse("fuzz.json", (const char *)data, size, &l, &cause);
	if (rc == 0) {
		if (l == NULL)
			__builtin_trap();
		(void)candidates_count(l);
	} else if (rc == -EINVAL &&
		   (cause == NULL || strncmp(cause, "fuzz.json:", 10) != 0)) {
		__builtin_trap();
	}
	candidates_free(l);
	free(cause);
	return 0;
}
