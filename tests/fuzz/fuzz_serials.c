/* SPDX-License-Identifier: PostgreSQL */
/* fuzz_serials.c - libFuzzer harness for serials_load(), the reader of
 * the serial state a sources row stores: any bytes are taken whole or
 * refused whole, and a state taken is saved again as it was read, and
 * marks and counts after it stay in bounds. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct serials s = { 0 }, t = { 0 };
	uint8_t *out = NULL, *out2 = NULL;
	ssize_t n, n2;
	int rc;

	s.bits = calloc(SERIAL_WINDOW / 8, 1);
	t.bits = calloc(SERIAL_WINDOW / 8, 1);
	if (s.bits == NULL || t.bits == NULL)
		goto out;
	rc = serials_load(&s, data, size);
	if (rc == -ENOMEM)
		goto out;
	if (rc < 0) {
		if (s.started || s.nnodes != 0)
			__builtin_trap();   /* refused, yet taken */
		goto out;
	}
	/* what was taken is given back: load(save(load(x))) == load(x) */
	n = serials_save(&s, 1, &out);
	if (n < 0)
		goto out;
	if (n > 0 && serials_load(&t, out, (size_t)n) != 0)
		__builtin_trap();
	n2 = serials_save(&t, 1, &out2);
	if (n2 != n || (n > 0 && memcmp(out, out2, (size_t)n) != 0))
		__builtin_trap();
	/* the sequences go on from there */
	for (size_t i = 0; i < 8 && i * 8 + 8 <= size; i++) {
		uint64_t v;

		memcpy(&v, data + i * 8, 8);
		serials_mark(&s, v % (UINT64_C(1) << 33), NULL, 0);
	}
	(void)serials_gaps(&s, 0);
	(void)serials_gaps(&s, 1);
out:
	free(out);
	free(out2);
	serials_free(&s);
	serials_free(&t);
	return 0;
}
