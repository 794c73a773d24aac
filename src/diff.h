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

#include "pgsc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* List pairs and their differences (diff.c)                           */
/* ------------------------------------------------------------------ */

/* The two lists of a pair, as indices. */
#define PGSC_LIST_GLOBAL 0
#define PGSC_LIST_SESSION 1

/* What a list pair was read from (found by content, never by name). */
enum pgsc_lists_kind {
	PGSC_LISTS_STORE = 0,   /* a pgsc store: "SQLite format 3\0" */
	PGSC_LISTS_JSON,        /* pgsc-report --format json: starts with '{' */
	PGSC_LISTS_GUC,         /* lines [prefix.]global_syscall_allow = '...' */
};

/* A global and a session list, each a sorted set of syscall names. */
typedef struct pgsc_lists pgsc_lists;

struct pgsc_lists_opts {
	int64_t round_from, round_to;   /* stores only; 0,0 = all rounds */
	const char *session_roles;      /* stores only; NULL = default */
};

/**
 * Read a list pair from @path ("-" is standard input): a pgsc store, a
 * JSON report or a GUC file, told apart by content.  Text input is
 * bounded (16 MiB, 4096 names a list, 64 bytes a name) and every name
 * must match [a-z0-9_]+.
 * @param opts NULL for the defaults
 * Returns 0 and sets *out, or a negative errno with *cause set (file
 * names in it are escaped for a terminal).
 */
int pgsc_lists_load(const char *path, const struct pgsc_lists_opts *opts,
		    pgsc_lists **out, char **cause);

/** Free a list pair; NULL is a no-op. */
void pgsc_lists_free(pgsc_lists *ls);

/** What @ls was read from. */
enum pgsc_lists_kind pgsc_lists_kind(const pgsc_lists *ls);

/** The sorted names of list @which (PGSC_LIST_*); returns their number. */
size_t pgsc_lists_names(const pgsc_lists *ls, int which,
			const char *const **names);

/* The differences between two pairs A and B. */
typedef struct pgsc_diff pgsc_diff;

/* One name in one list of A or B but not both. */
struct pgsc_diff_entry {
	const char *name;
	int sign;                       /* '+' only in B, '-' only in A */
	int equivalent;                 /* a family member is on the other
					 * side: not a difference */
	const char *const *with;        /* those members, sorted */
	size_t n_with;
	const char *const *families;    /* the families joining them, sorted */
	size_t n_families;
};

/**
 * Compare @a with @b.  With @equivalent, a name whose family has a
 * member in the other pair's same list is equivalent, not different.
 * Returns 0 and sets *out, or -ENOMEM.
 */
int pgsc_diff_new(const pgsc_lists *a, const pgsc_lists *b, int equivalent,
		  pgsc_diff **out);

/** Free a diff; NULL is a no-op. */
void pgsc_diff_free(pgsc_diff *d);

/** Returns 1 when the pairs have no difference (equivalents allowed). */
int pgsc_diff_equal(const pgsc_diff *d);

/**
 * The entries of list @which: the differences sorted by name, then the
 * equivalents sorted by name.  Returns their number.
 */
size_t pgsc_diff_entries(const pgsc_diff *d, int which,
			 const struct pgsc_diff_entry **entries);

enum pgsc_diff_format {
	PGSC_DIFF_TEXT = 0,
	PGSC_DIFF_MARKDOWN,
	PGSC_DIFF_JSON,
};

/**
 * Write @d in @format; @name_a and @name_b (file names, untrusted) are
 * escaped for the format.
 * Returns 0, or a negative errno when @out cannot be written.
 */
int pgsc_diff_print(const pgsc_diff *d, enum pgsc_diff_format format,
		    const char *name_a, const char *name_b, FILE *out);

/** Print every syscall family with its members and its reason. */
void pgsc_families_print(FILE *out);

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
