/* SPDX-License-Identifier: PostgreSQL */
/* gucdump.c - print what gucfile.c reads from a configuration file, one
 * "S name hexvalue", "I directive hexvalue" or "E line why" per entry, for
 * tests/gucfile/run.sh to compare with postgres -C. */
#include <stdio.h>
#include <stdlib.h>

#include "pgsc-int.h"
#include "gucfile.h"

static int
each(void *arg, const struct gucfile_entry *e)
{
	(void)arg;
	if (e->kind == GUCFILE_ERROR) {
		printf("E %u %s\n", e->line, e->why);
		return 0;
	}
	printf("%c %u %s ", e->kind == GUCFILE_INCLUDE ? 'I' : 'S', e->line,
	       e->name);
	for (const unsigned char *p = (const unsigned char *)e->value; *p; p++)
		printf("%02x", *p);
	printf("%s\n", e->cut ? " cut" : "");
	return 0;
}

int
main(int argc, char **argv)
{
	char *cause = NULL;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: gucdump FILE\n");
		return 2;
	}
	rc = gucfile_read(argv[1], each, NULL, &cause);
	if (rc < 0) {
		fprintf(stderr, "gucdump: %s\n", cause ? cause : "error");
		free(cause);
		return 2;
	}
	return 0;
}
