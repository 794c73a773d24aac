/* SPDX-License-Identifier: PostgreSQL */
/* fuzz_escape.c - libFuzzer harness for the JSON and text escapers: no
 * input may produce a raw control byte or break out of a string. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(const char *out, size_t n, int json)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)out[i];

		if (c < 0x20 || c == 0x7f)
			__builtin_trap();
		if (c == '"' && (!json || i == 0 || out[i - 1] != '\\'))
			__builtin_trap();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *buf = NULL;
	size_t n = 0;
	FILE *f;

	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	f = open_memstream(&buf, &n);
	if (f != NULL) {
		pgsc_json_escape(f, s);
		fclose(f);
		check(buf, n, 1);
		free(buf);
	}
	buf = NULL;
	f = open_memstream(&buf, &n);
	if (f != NULL) {
		pgsc_text_escape(f, s);
		fclose(f);
		check(buf, n, 0);
		free(buf);
	}
	free(s);
	return 0;
}
