/* SPDX-License-Identifier: PostgreSQL */
/* aggdiff.c - the aggregates a live round last committed, and what the next
 * commit changes in them.
 *
 * A live commit's aggregates are a snapshot: the round's folded counts plus
 * every open process's counts under the role it would have now (a role
 * learnt later corrects the earlier commits).  Writing the whole snapshot
 * at each commit cost a row per open process and syscall, and the DELETE
 * of every row before: on a fleet's central log that was nine tenths of
 * the collector's CPU (docs/fleet.md).  The rows are summed here by their
 * key (node, role, arch, nr), as the store's upsert summed them, and
 * compared with what the last committed transaction wrote: only the rows
 * that differ are written, and the rows no longer given are deleted. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "aggdiff.h"

struct aggdiff_row {
	const char *node, *role;    /* interned in d->names; node '' local */
	uint32_t arch;
	int32_t nr;
	uint32_t gen;               /* the commit that last gave the row */
	struct vals {
		uint64_t count;
		double first, last;
		int64_t example_pid;
		const char *example_exe; /* interned, or NULL */
	} cur, stored;
	unsigned has_stored : 1;    /* the store holds the row as ->stored */
	int64_t rowid;              /* the store's, as the last write gave it
				     * (0: not known) */
};

/*
 * @s interned.  A commit adds a row per open process and syscall, and
 * their node, role and exe strings are few and the same objects again and
 * again: a small table by address, emptied by aggdiff_begin(), skips the
 * hash table (at 100 nodes the interning was 4% of the collector's time).
 * A hit is compared all the same: a caller may give the same buffer with
 * another text.
 */
static const char *
intern(struct aggdiff *d, const char *s)
{
	size_t i;
	const char *r;

	if (s == NULL)
		return NULL;
	i = (size_t)(((uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15ULL) >> 56) &
	    (AGGDIFF_ICACHE - 1);
	if (d->ic_from[i] == s && strcmp(d->ic_to[i], s) == 0)
		return d->ic_to[i];
	r = strhash_intern(&d->names, s);
	if (r != NULL) {
		d->ic_from[i] = s;
		d->ic_to[i] = r;
	}
	return r;
}

static size_t
key_slot(const struct aggdiff *d, const char *node, const char *role,
	 uint32_t arch, int32_t nr)
{
	uintptr_t k[4] = { (uintptr_t)node, (uintptr_t)role, arch,
			   (uintptr_t)(uint32_t)nr };
	size_t i = (size_t)util_hash(k, sizeof(k), 0) & (d->nslot - 1);
	struct aggdiff_row *r;

	while ((r = d->slot[i]) != NULL &&
	       !(r->node == node && r->role == role && r->arch == arch &&
		 r->nr == nr))
		i = (i + 1) & (d->nslot - 1);
	return i;
}

/* A table of @nslot slots holding the rows of @d (those @keep says). */
static int
rehash(struct aggdiff *d, size_t nslot, int drop_gone)
{
	struct aggdiff_row **old = d->slot;
	size_t nold = d->nslot;

	d->slot = calloc(nslot, sizeof(*d->slot));
	if (d->slot == NULL) {
		d->slot = old;
		return -ENOMEM;
	}
	d->nslot = nslot;
	d->n = 0;
	for (size_t i = 0; i < nold; i++) {
		struct aggdiff_row *r = old[i];

		if (r == NULL)
			continue;
		if (drop_gone && r->gen != d->gen) {
			free(r);
			continue;
		}
		d->slot[key_slot(d, r->node, r->role, r->arch, r->nr)] = r;
		d->n++;
	}
	free(old);
	return 0;
}

void
aggdiff_begin(struct aggdiff *d)
{
	memset(d->ic_from, 0, sizeof(d->ic_from));
	d->gen++;
	if (d->gen == 0)
		d->gen = 1;
}

int
aggdiff_add(struct aggdiff *d, const struct role_agg *a)
{
	const char *node = intern(d, a->node != NULL ? a->node : "");
	const char *role = intern(d, a->role);
	const char *exe = intern(d, a->example_exe);
	struct aggdiff_row *r;
	size_t i;

	if (node == NULL || role == NULL ||
	    (a->example_exe != NULL && exe == NULL))
		return -ENOMEM;
	if ((d->n + 1) * 2 > d->nslot &&
	    rehash(d, d->nslot ? d->nslot * 2 : 64, 0) < 0)
		return -ENOMEM;
	i = key_slot(d, node, role, a->arch, a->nr);
	r = d->slot[i];
	if (r == NULL) {
		r = calloc(1, sizeof(*r));
		if (r == NULL)
			return -ENOMEM;
		r->node = node;
		r->role = role;
		r->arch = a->arch;
		r->nr = a->nr;
		d->slot[i] = r;
		d->n++;
	}
	if (r->gen != d->gen) {
		r->gen = d->gen;
		r->cur = (struct vals){ a->count, a->first, a->last,
					a->example_pid, exe };
		return 0;
	}
	/* what the store's "ON CONFLICT DO UPDATE" did */
	r->cur.count += a->count;
	if (a->first < r->cur.first)
		r->cur.first = a->first;
	if (a->last > r->cur.last)
		r->cur.last = a->last;
	return 0;
}

static int
same(const struct vals *a, const struct vals *b)
{
	return a->count == b->count && a->first == b->first &&
	       a->last == b->last && a->example_pid == b->example_pid &&
	       a->example_exe == b->example_exe;
}

int
aggdiff_each_change(struct aggdiff *d, int all,
		    int (*put)(void *arg, const struct role_agg *a,
			       int64_t *rowid),
		    int (*del)(void *arg, const struct role_agg *a),
		    void *arg)
{
	for (size_t i = 0; i < d->nslot; i++) {
		struct aggdiff_row *r = d->slot[i];
		const struct vals *v;
		struct role_agg a;
		int rc;

		if (r == NULL)
			continue;
		if (r->gen == d->gen) {
			if (!all && r->has_stored && same(&r->cur, &r->stored))
				continue;
			v = &r->cur;
		} else if (r->has_stored) {
			v = &r->stored;
		} else {
			continue;
		}
		a = (struct role_agg){
			.role = r->role, .arch = r->arch, .nr = r->nr,
			.count = v->count, .first = v->first, .last = v->last,
			.example_pid = v->example_pid,
			.example_exe = v->example_exe, .node = r->node,
		};
		rc = r->gen == d->gen ? put(arg, &a, &r->rowid) : del(arg, &a);
		if (rc != 0)
			return rc;
	}
	return 0;
}

void
aggdiff_committed(struct aggdiff *d)
{
	for (size_t i = 0; i < d->nslot; i++) {
		struct aggdiff_row *r = d->slot[i];

		if (r != NULL && r->gen == d->gen) {
			r->stored = r->cur;
			r->has_stored = 1;
		}
	}
	/* the rows this commit did not give are no longer in the store; if
	 * the table cannot be rebuilt now, they stay as rows not stored */
	if (rehash(d, d->nslot, 1) < 0) {
		for (size_t i = 0; i < d->nslot; i++)
			if (d->slot[i] != NULL && d->slot[i]->gen != d->gen)
				d->slot[i]->has_stored = 0;
	}
}

void
aggdiff_forget(struct aggdiff *d)
{
	for (size_t i = 0; i < d->nslot; i++)
		if (d->slot[i] != NULL) {
			d->slot[i]->has_stored = 0;
			d->slot[i]->rowid = 0;
		}
}

void
aggdiff_free(struct aggdiff *d)
{
	for (size_t i = 0; i < d->nslot; i++)
		free(d->slot[i]);
	free(d->slot);
	strhash_free(&d->names);
	memset(d, 0, sizeof(*d));
}
