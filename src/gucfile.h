/* SPDX-License-Identifier: PostgreSQL */
/* gucfile.h - the one reader of configuration files (gucfile.c). */
#ifndef PGSC_GUCFILE_H
#define PGSC_GUCFILE_H

#include "pgsc-int.h"

/* gucfile.c - the one reader of configuration files (guc-file.l rules) */
#define GUCFILE_MAX (16 * 1024 * 1024)
#define GUCFILE_LINE_MAX (1024 * 1024)
enum gucfile_kind {
	GUCFILE_SETTING,        /* name = value */
	GUCFILE_INCLUDE,        /* include, include_if_exists, include_dir */
	GUCFILE_ERROR,          /* a line PostgreSQL refuses: @why */
};
struct gucfile_entry {
	enum gucfile_kind kind;
	unsigned line;
	const char *name;       /* lower-cased */
	const char *value;      /* quotes and escapes undone */
	const char *why;        /* GUCFILE_ERROR */
	int cut;                /* a \0 escape ended the value early */
};
/* Called for every entry; a non-zero return stops the reading with it. */
typedef int (*gucfile_fn)(void *arg, const struct gucfile_entry *e);
int gucfile_load(const char *path, char **buf, size_t *len, char **cause);
int gucfile_parse(const char *buf, size_t len, gucfile_fn fn, void *arg);
int gucfile_read(const char *path, gucfile_fn fn, void *arg, char **cause);

#endif
