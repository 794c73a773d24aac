/* SPDX-License-Identifier: PostgreSQL */
/* aggdiff.h - the aggregates a live round last committed, so that the next
 * commit writes only the rows that changed (aggdiff.c). */
#ifndef PGSC_AGGDIFF_H
#define PGSC_AGGDIFF_H

#include "proctree.h"

struct aggdiff_row;

#define AGGDIFF_ICACHE 256

struct aggdiff {
	struct aggdiff_row **slot;  /* open addressing, a power of two */
	size_t nslot, n;
	struct strhash names;       /* node, role and exe strings, interned */
	uint32_t gen;               /* the commit being put together */
	/* strings already interned, by their address (a hint: checked),
	 * emptied by aggdiff_begin() */
	const char *ic_from[AGGDIFF_ICACHE], *ic_to[AGGDIFF_ICACHE];
};

/* A commit's rows: aggdiff_begin(), aggdiff_add() for each row given to
 * the store (rows of one key are summed as the store's upsert did: counts
 * added, the widest times, the first row's example), then
 * aggdiff_each_change() with the rows to write and to delete, then
 * aggdiff_committed() once the transaction is in the store.  Without it
 * (a rolled back commit) the next commit compares with the rows the store
 * still holds.  0 or -ENOMEM. */
void aggdiff_begin(struct aggdiff *d);
int aggdiff_add(struct aggdiff *d, const struct role_agg *a);
/* @put for each row new or changed since the last committed state (every
 * row of this commit with @all), with the store's rowid of the row as the
 * last @put left it (0: not known; @put sets it), @del for each committed
 * row this commit did not give; stops at the first nonzero return.  A
 * rowid is a hint to be checked: a rolled back commit or another program
 * can make it another row's. */
int aggdiff_each_change(struct aggdiff *d, int all,
			int (*put)(void *arg, const struct role_agg *a,
				   int64_t *rowid),
			int (*del)(void *arg, const struct role_agg *a),
			void *arg);
void aggdiff_committed(struct aggdiff *d);
/* The store holds none of the rows (a commit that cleared them all). */
void aggdiff_forget(struct aggdiff *d);
void aggdiff_free(struct aggdiff *d);

#endif
