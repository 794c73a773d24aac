/* SPDX-License-Identifier: PostgreSQL */
/* round.h - one round as a run reads it (round.c): the accumulator that
 * the feed fills, and the one transaction that writes it. */
/*
 * An import and a live collection read the same way (feed -> process
 * tree, the rejects counted, the serials marked) and commit the same
 * way: begin, the round's row, aggregates, processes, rejects, samples,
 * positions, the row's figures, commit, roll back on error.  What differs
 * is said by struct round_ops (the caller's hooks) and by round.live: a
 * live round is committed many times (a snapshot of a running tree, the
 * open counts, the process rows that changed, a live update of its row),
 * an import once (a finished tree, its row made and finished there).
 */
#ifndef PGSC_ROUND_H
#define PGSC_ROUND_H

#include <stdint.h>

#include "pgsc-int.h"
#include "feed.h"
#include "proctree.h"
#include "store.h"
#include "aggdiff.h"

struct round;

/* The caller's part.  Every hook is optional; @arg is round.arg. */
struct round_ops {
	/* A decoded record at time @t, before it is counted: 0 leaves it
	 * out (neither counted nor given to the tree), 1 counts it. */
	int (*record)(void *arg, const struct pgsc_record *rec, double t);
	/* A reject, already counted (@reason in range): diagnostics. */
	void (*reject)(void *arg, int reason, const struct feed_loc *loc,
		       uint64_t serial, const char *text, size_t len);
	/* serials_mark() found @hole serials missing before @serial. */
	void (*hole)(void *arg, uint64_t serial, uint64_t hole,
		     const char *node, size_t nlen);
	/* Every whole line (feed_ops.line). */
	void (*line)(void *arg, const char *line, size_t len);
	/* In the commit's transaction, after the rejects: the reject
	 * samples, then where the inputs stand (the sources' rows). */
	int (*samples)(void *arg, struct store_batch *b, char **cause);
	int (*positions)(void *arg, struct round *rd, char **cause);
};

struct round {
	pgsc_store *st;
	int64_t id;                 /* the round's row; an import's is made
				     * by its commit */
	int live;                   /* committed many times (see above) */
	const char *label;          /* an import's rounds.label */
	struct proctree *tree;
	struct feed *feed;
	struct serials ser;
	struct store_round r;       /* the row: committed base + this run */
	uint64_t records;           /* SECCOMP records this run counted */
	uint64_t rejects[PGSC_REJ__COUNT]; /* since the last commit */
	/* What earlier runs of a continued live round committed (resume.c);
	 * 0 for a new round. */
	uint64_t base_records, base_rejected, base_lines, base_gaps;
	struct role_agg *base;      /* their aggregates */
	size_t nbase, capbase;
	struct strset base_roles;   /* the keys of base rows */
	int rolled_back;            /* the last commit failed after BEGIN */
	/* A live round's aggregates as its last commit wrote them; with
	 * @incremental the next commit writes only what changed (rows of
	 * aggregates and open counts), else it clears and writes them all
	 * (a run's first commit, the last, the one after a rollback). */
	struct aggdiff snap;
	int incremental;
	/* An import's transaction when its early folds began it
	 * (round_fold()): the batch the commit goes on with, and the
	 * process rows written so far. */
	struct store_batch *batch;
	uint64_t early_rows;
	int settled;                /* the commit under way counts only the
				     * settled serial gaps (not finished):
				     * what serials_save() is given */
	const struct round_ops *ops;
	void *arg;
};

int round_init(struct round *rd, pgsc_store *st,
	       const struct proctree_hints *hints, int no_fast_path,
	       const struct round_ops *ops, void *arg, char **cause);
void round_free(struct round *rd);
void round_reject(struct round *rd, int reason, const struct feed_loc *loc,
		  uint64_t serial, const char *text, size_t len);
int round_fold(struct round *rd, size_t growth, char **cause);
int round_commit(struct round *rd, int finished, char **cause);
int round_serials_resume(struct round *rd, const char *key, const char *path,
			 FILE *diag, char **cause);

/* round.c - a round read and written the same way by import and live
 * its tallies by role, also for the report. */
void round_tally_reset(struct store_round *r);
void round_tally(struct store_round *r, const struct role_agg *a);

#endif
