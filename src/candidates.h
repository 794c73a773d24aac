/* SPDX-License-Identifier: PostgreSQL */
/* candidates.h - pgsc-report --candidates: pgsc-scan's JSON read back
 * (candidates.c). */
#ifndef PGSC_CANDIDATES_H
#define PGSC_CANDIDATES_H

#include "pgsc-int.h"

/* candidates.c - pgsc-report --candidates */
struct cand_list;
/* Read a pgsc-scan JSON file (bounded: 32 MiB).  Returns 0 or a
 * negative errno with *cause naming the file and line. */
int candidates_load(const char *path, struct cand_list **out, char **cause);
int candidates_parse(const char *name, const char *text, size_t len,
		     struct cand_list **out, char **cause);
void candidates_free(struct cand_list *c);
size_t candidates_count(const struct cand_list *c);

#endif
