/* SPDX-License-Identifier: PostgreSQL */
/* fuzz_gucfile.c - libFuzzer harness for the GUC-file reader (gucfile.c):
 * every entry has a line number that never goes down and stays within the
 * input's lines, a lower-case name that PostgreSQL's lexer takes (letters,
 * digits, '_', bytes >= 0x80, at most one dot) and a value no longer than
 * its line; an error names why. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pgsc-int.h"
#include "gucfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	unsigned last, lines;
	size_t size;
};

static int
each(void *arg, const struct gucfile_entry *e)
{
	struct seen *s = arg;
	int dots = 0;

	if (e->line < s->last || e->line > s->lines)
		__builtin_trap();
	s->last = e->line;
	if (e->kind == GUCFILE_ERROR) {
		if (e->why == NULL || *e->why == '\0')
			__builtin_trap();
		return 0;
	}
	if (e->name == NULL || e->value == NULL || *e->name == '\0')
		__builtin_trap();
	for (const unsigned char *p = (const unsigned char *)e->name; *p; p++) {
		if (*p == '.')
			dots++;
		else if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
			   *p == '_' || *p >= 0x80))
			__builtin_trap();
	}
	if (dots > 1 || strlen(e->value) > s->size)
		__builtin_trap();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen s = { 0, 1, size };

	for (size_t i = 0; i < size; i++)
		if (data[i] == '\n')
			s.lines++;
	gucfile_parse((const char *)data, size, each, &s);
	return 0;
}
