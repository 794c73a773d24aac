/* SPDX-License-Identifier: PostgreSQL */
/* fuzz_argrule.c - libFuzzer harness for the argument rules of list
 * entries (argrule.c) and the effective filter that reads them: an
 * entry either fails with a cause naming it and a byte inside it, with
 * no raw control byte, or gives a rule whose canonical text parses back
 * to the same text; a whole list never crashes the effective filter. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc.h"
#include "syscalls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_cause(const char *cause, size_t size)
{
	const char *at;
	size_t pos;

	if (cause == NULL || strncmp(cause, "entry \"", 7) != 0)
		__builtin_trap();
	for (const char *p = cause; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			__builtin_trap();
	/* the last one: the entry may hold the same text */
	at = NULL;
	for (const char *p = cause; (p = strstr(p, "\": at byte ")) != NULL;
	     p++)
		at = p;
	if (at == NULL || sscanf(at + 11, "%zu", &pos) != 1 || pos == 0 ||
	    pos > size + 1)
		__builtin_trap();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *entry = (const char *)data;
	char text[ARGRULE_TEXT_MAX], again[ARGRULE_TEXT_MAX + 80];
	char text2[ARGRULE_TEXT_MAX];
	struct pgsc_filter_spec spec = { .def = PGSC_ACT_ERROR };
	struct argrule r, r2;
	pgsc_effective *e = NULL;
	char *cause = NULL, *list;
	size_t name;
	int rc;

	rc = argrule_parse(entry, size, &r, &cause);
	if (rc < 0) {
		check_cause(cause, size);
	} else if (rc == 1) {
		if (cause != NULL || r.nargs < 1 ||
		    r.nargs > ARGRULE_ARGS_MAX || r.nalts < 1 ||
		    r.nalts > ARGRULE_ALTS_MAX)
			__builtin_trap();
		if (argrule_format(&r, text, sizeof(text)) >= sizeof(text))
			__builtin_trap();
		name = syscall_lists_name(entry, size);
		if (name > 64)
			name = 64;
		if (memchr(entry, '\0', name) == NULL) {
			snprintf(again, sizeof(again), "%.*s(%s)", (int)name,
				 entry, text);
			if (argrule_parse(again, strlen(again), &r2,
					  NULL) != 1)
				__builtin_trap();
			argrule_format(&r2, text2, sizeof(text2));
			if (strcmp(text, text2) != 0)
				__builtin_trap();
		}
	}
	free(cause);
	cause = NULL;
	/* the whole input as a list */
	list = malloc(size + 1);
	if (list == NULL)
		return 0;
	memcpy(list, data, size);
	list[size] = '\0';
	spec.list[PGSC_ACT_ALLOW] = list;
	rc = pgsc_effective_new(&spec, 0, &e, &cause);
	if ((rc == 0) != (e != NULL) || (rc == -EINVAL && cause == NULL))
		__builtin_trap();
	pgsc_effective_free(e);
	free(cause);
	free(list);
	return 0;
}
