/* SPDX-License-Identifier: PostgreSQL */
/*
 * round.c - writing a round: its aggregates, processes, open counts and
 * rejects go into a store batch the same way for an import and for a
 * live commit, and the aggregates are tallied by role on the way (the
 * server's roles against unrelated, standalone and unattributed), so that
 * the store receives counts, not a rule about roles.
 */
#include <string.h>

#include "pgsc-int.h"

void
round_tally_reset(struct store_round *r)
{
	r->attributed = r->unrelated = r->standalone = r->unattributed = 0;
	r->foreign = 0;
}

/* Count @a in its role's tally of @r. */
void
round_tally(struct store_round *r, const struct role_agg *a)
{
	if (pgsc_role_in_server(a->role))
		r->attributed += a->count;
	else if (strcmp(a->role, PGSC_ROLE_UNRELATED) == 0)
		r->unrelated += a->count;
	else if (strcmp(a->role, PGSC_ROLE_STANDALONE) == 0)
		r->standalone += a->count;
	else
		r->unattributed += a->count;
	/* the store's unattributed column holds the foreign records too
	 * (no column of their own); the report tells them apart by role */
	if (strcmp(a->role, PGSC_ROLE_FOREIGN) == 0)
		r->foreign += a->count;
}

/* Callbacks for proctree_each_agg(), _snapshot(), _each_proc() and
 * _each_open(), with a struct round_batch as @arg. */
int
round_agg(void *arg, const struct role_agg *a)
{
	struct round_batch *w = arg;

	round_tally(w->r, a);
	return store_batch_agg(w->b, a, w->cause);
}

int
round_proc(void *arg, const struct proc_info *p)
{
	struct round_batch *w = arg;

	return store_batch_proc(w->b, p, w->cause);
}

int
round_open(void *arg, const struct proc_count *c)
{
	struct round_batch *w = arg;

	return store_batch_open(w->b, c, w->cause);
}

/* The rejects counted by reason; *@total gets their sum. */
int
round_rejects(struct round_batch *w, const uint64_t rejects[PGSC_REJ__COUNT],
	      uint64_t *total)
{
	int rc = 0;

	*total = 0;
	for (int i = 1; i < PGSC_REJ__COUNT; i++) {
		if (rejects[i] == 0)
			continue;
		*total += rejects[i];
		if (rc == 0)
			rc = store_batch_reject(w->b, pgsc_reject_name(i),
						rejects[i], w->cause);
	}
	return rc;
}
