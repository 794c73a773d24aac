/* SPDX-License-Identifier: PostgreSQL */
/* strset.c - a small set of strings kept sorted; interning. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"

static size_t
strset_find(const struct strset *s, const char *str, int *found)
{
	size_t lo = 0, hi = s->n;

	*found = 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->v[mid], str);

		if (c == 0) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/**
 * Add a copy of @str to the sorted set.
 * Returns 1 if added, 0 if already present, -ENOMEM.
 */
int
strset_add(struct strset *s, const char *str)
{
	int found;
	size_t at = strset_find(s, str, &found);
	char *copy;

	if (found)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		char **nv = realloc(s->v, cap * sizeof(*nv));

		if (nv == NULL)
			return -ENOMEM;
		s->v = nv;
		s->cap = cap;
	}
	copy = strdup(str);
	if (copy == NULL)
		return -ENOMEM;
	memmove(s->v + at + 1, s->v + at, (s->n - at) * sizeof(*s->v));
	s->v[at] = copy;
	s->n++;
	return 1;
}

int
strset_has(const struct strset *s, const char *str)
{
	int found;

	strset_find(s, str, &found);
	return found;
}

const char *
strset_intern(struct strset *s, const char *str)
{
	int found;
	size_t at;

	if (strset_add(s, str) < 0)
		return NULL;
	at = strset_find(s, str, &found);
	return found ? s->v[at] : NULL;
}

/* Remove @str from the set.  Returns 1 if it was there, 0 if not. */
int
strset_del(struct strset *s, const char *str)
{
	int found;
	size_t at = strset_find(s, str, &found);

	if (!found)
		return 0;
	free(s->v[at]);
	memmove(s->v + at, s->v + at + 1, (s->n - at - 1) * sizeof(*s->v));
	s->n--;
	return 1;
}

void
strset_free(struct strset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}
