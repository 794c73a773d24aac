/* SPDX-License-Identifier: PostgreSQL */
/* diff.h - list pairs and their differences (diff.c, diff_compare.c,
 * pgsc-diff), and the lists pgsc-report prints (report_lists()). */
#ifndef PGSC_DIFF_H
#define PGSC_DIFF_H

#include "pgsc-int.h"

/* report.c: the global and session lists of rounds @from-@to (0: all),
 * as pgsc-report prints them (pgsc-diff). */
int report_lists(pgsc_store *st, int64_t from, int64_t to,
		 const char *session_roles, const char *node,
		 struct strset *global, struct strset *session, char **cause);

/* diff.c, diff_compare.c - list pairs and their differences (pgsc-diff) */
/* Largest text input, names in one list, bytes in one name, JSON depth. */
#define DIFF_TEXT_MAX (16 * 1024 * 1024)
#define DIFF_NAMES_MAX 4096
#define DIFF_NAME_MAX 64
#define DIFF_JSON_DEPTH 64
/* A pair from text already in memory (a GUC file or a JSON report);
 * @name names it in causes. */
int diff_load_buffer(const char *buf, size_t len, const char *name,
		     pgsc_lists **out, char **cause);
/* The "global" and "session" arrays of a JSON object. */
int diff_parse_json(const char *buf, size_t len, const char *name,
		    struct strset *global, struct strset *session,
		    char **cause);
/* @s escaped with pgsc_text_escape(), in a new string; NULL on OOM. */
char *diff_escaped(const char *s);
/* The list @which (0 global, 1 session) of a pair. */
const struct strset *diff_lists_set(const pgsc_lists *ls, int which);
/* A GUC list value: names separated by commas and blanks. */
int diff_parse_names(const char *value, const char *name, const char *which,
		     struct strset *out, char **cause);

#endif
