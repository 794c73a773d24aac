/* SPDX-License-Identifier: PostgreSQL */
/* diff.h - list pairs, their differences and syscall families (pgsc-diff). */
/*
 * The first part is written as public interface (pgsc_* names, opaque
 * handles, *_free(NULL) a no-op) so that it can move into pgsc.h as it
 * is; tools/pgsc-diff.c includes this header and pgsc.h only.  The second
 * part holds the internal functions of diff.c and families.c, reached by
 * tests/unit/test_diff.c.
 */
#ifndef PGSC_DIFF_H
#define PGSC_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pgsc.h"  /* the public half lives there */

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Internal                                                            */
/* ------------------------------------------------------------------ */

struct strset;

/* diff.c */
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

/* families.c */
struct family {
	const char *name;               /* the family's id in families.def */
	const char *reason;             /* one line: why they are one job */
	const char *const *members;     /* NULL-terminated */
};
size_t families_count(void);
const struct family *families_at(size_t i);
/* The family called @name, or NULL. */
const struct family *families_find(const char *name);
/* The @i-th family (from 0) that has @member, or NULL past the last. */
const struct family *families_of(const char *member, size_t i);
/* Returns 1 when @member is in @f, else 0. */
int families_has(const struct family *f, const char *member);
/* Returns 1 when syscall @member exists on audit arch @arch, 0 when
 * libseccomp knows the name but the arch lacks it, -ENOENT when
 * libseccomp does not know the name, -EINVAL for an unknown arch. */
int families_exists(const char *member, uint32_t arch);

#ifdef __cplusplus
}
#endif
#endif /* PGSC_DIFF_H */
