/* SPDX-License-Identifier: PostgreSQL */
/* syscall_lists.c - the one tokenizer of syscall lists ("read, write"). */
/*
 * A syscall list is a GUC value: names separated by commas.  The readers
 * differ only in what else they accept, so each says so in its call
 * rather than splitting on its own: pgsc-exec, pgsc-diff and the filter
 * also split on blanks ("read write"); the effective filter and the
 * module trim blanks around a name; pgsc-report --check-guc keeps empty
 * names to warn about them.  libc only: the module compiles it in.
 */
#include <string.h>

#include "pgsc-int.h"
#include "syscalls.h"

static int
is_blank(const char *blanks, char c)
{
	return c != '\0' && strchr(blanks, c) != NULL;
}

/**
 * The next name of the list at *p.
 * @param p the cursor: the list at first, then left after the
 *	separator that ended the name (so a caller that owns the text may
 *	NUL-terminate the name in place); NULL after the last name of a
 *	LISTS_KEEP_EMPTY list
 * @param blanks the bytes trimmed around a name
 * @param flags LISTS_SPLIT_BLANKS: blanks separate names too;
 *	LISTS_KEEP_EMPTY: every comma-separated piece is a name, even an
 *	empty one (a blank value is one empty name)
 * @param len the length of the name
 * Returns the name (not NUL-terminated), or NULL at the end.
 */
const char *
syscall_lists_next(const char **p, const char *blanks, int flags, size_t *len)
{
	const char *s = *p, *e;

	if (s == NULL)
		return NULL;
	if (flags & LISTS_KEEP_EMPTY) {
		e = s + strcspn(s, ",");
		*p = *e == ',' ? e + 1 : NULL;
	} else {
		while (*s == ',' || is_blank(blanks, *s))
			s++;
		if (*s == '\0') {
			*p = s;
			return NULL;
		}
		e = s;
		while (*e != '\0' && *e != ',' &&
		       !((flags & LISTS_SPLIT_BLANKS) && is_blank(blanks, *e)))
			e++;
		*p = *e != '\0' ? e + 1 : e;
	}
	while (s < e && is_blank(blanks, *s))
		s++;
	while (e > s && is_blank(blanks, e[-1]))
		e--;
	*len = (size_t)(e - s);
	return s;
}

/**
 * The name of list entry @entry (@len bytes, from syscall_lists_next()):
 * all of it, or what comes before the '(' of an argument rule
 * ("socket(a0=1)": "socket"; argrule.c reads the rule).  Readers that
 * need only names use this and keep working on lists with rules.
 * Returns the length of the name.
 */
size_t
syscall_lists_name(const char *entry, size_t len)
{
	const char *open = memchr(entry, '(', len);

	return open != NULL ? (size_t)(open - entry) : len;
}
