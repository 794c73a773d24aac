/* SPDX-License-Identifier: PostgreSQL */
/* strhash.c - interned strings in a hash table: a set that grows to a
 * fleet's node names (100,000 and more) at a constant cost per lookup,
 * where strset's sorted array moves half of itself on each insert. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"

/* The slot of @str in @slot (@nslot a power of two): its own, or the
 * empty one where it goes. */
static size_t
strhash_slot(char *const *slot, size_t nslot, const char *str)
{
	size_t i = (size_t)util_hash(str, strlen(str), 0) & (nslot - 1);

	while (slot[i] != NULL && strcmp(slot[i], str) != 0)
		i = (i + 1) & (nslot - 1);
	return i;
}

/* Twice the slots (16 at first), every string moved to its new slot. */
static int
strhash_grow(struct strhash *h)
{
	size_t nslot = h->nslot ? h->nslot * 2 : 16;
	char **slot = calloc(nslot, sizeof(*slot));

	if (slot == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < h->nslot; i++)
		if (h->slot[i] != NULL)
			slot[strhash_slot(slot, nslot, h->slot[i])] = h->slot[i];
	free(h->slot);
	h->slot = slot;
	h->nslot = nslot;
	return 0;
}

/* The table's copy of @str, or NULL when it has none. */
const char *
strhash_find(const struct strhash *h, const char *str)
{
	if (h->n == 0)
		return NULL;
	return h->slot[strhash_slot(h->slot, h->nslot, str)];
}

/* The table's copy of @str, added if needed; NULL on OOM.  Equal strings
 * get the same pointer: callers compare interned strings by address. */
const char *
strhash_intern(struct strhash *h, const char *str)
{
	size_t i;

	/* at most half full: a probe ends after a slot or two */
	if (2 * (h->n + 1) > h->nslot && strhash_grow(h) < 0)
		return NULL;
	i = strhash_slot(h->slot, h->nslot, str);
	if (h->slot[i] == NULL) {
		if ((h->slot[i] = strdup(str)) == NULL)
			return NULL;
		h->n++;
	}
	return h->slot[i];
}

void
strhash_free(struct strhash *h)
{
	for (size_t i = 0; i < h->nslot; i++)
		free(h->slot[i]);
	free(h->slot);
	memset(h, 0, sizeof(*h));
}
