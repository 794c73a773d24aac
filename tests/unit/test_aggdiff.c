/* SPDX-License-Identifier: PostgreSQL */
/* test_aggdiff.c - unit tests for aggdiff.c: a live commit's aggregate
 * rows summed by key as the store's upsert summed them, and only the rows
 * that differ from the last committed commit written (or deleted). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "aggdiff.h"

/* What the callbacks saw: "+node/role/nr=count" and "-node/role/nr". */
struct seen {
	char text[2048];
	int nput, ndel;
	int known;                  /* puts that came with a rowid */
};

static int64_t last_rowid;

static int
put(void *arg, const struct role_agg *a, int64_t *rowid)
{
	struct seen *s = arg;
	size_t n = strlen(s->text);

	snprintf(s->text + n, sizeof(s->text) - n, "+%s/%s/%d=%llu@%g-%g:%lld ",
		 a->node, a->role, a->nr, (unsigned long long)a->count,
		 a->first, a->last, (long long)a->example_pid);
	s->nput++;
	/* the store's: a new row gets one, a row written before keeps it */
	if (*rowid != 0)
		s->known++;
	else
		*rowid = ++last_rowid;
	return 0;
}

static int
del(void *arg, const struct role_agg *a)
{
	struct seen *s = arg;
	size_t n = strlen(s->text);

	snprintf(s->text + n, sizeof(s->text) - n, "-%s/%s/%d ", a->node,
		 a->role, a->nr);
	s->ndel++;
	return 0;
}

static void
add(struct aggdiff *d, const char *node, const char *role, int nr,
    uint64_t count, double first, double last, int64_t pid)
{
	struct role_agg a = {
		.role = role, .arch = 0xc000003e, .nr = nr, .count = count,
		.first = first, .last = last, .example_pid = pid,
		.example_exe = "/usr/bin/postgres", .node = node,
	};

	assert_int_equal(aggdiff_add(d, &a), 0);
}

/* A commit's rows: three roles' (a), then the walwriter's row under the
 * checkpointer (its role learnt) and a backend's count grown (b). */
static void
commit_a(struct aggdiff *d)
{
	aggdiff_begin(d);
	add(d, NULL, "checkpointer", 1, 4, 1, 2, 20);
	add(d, NULL, "client backend", 2, 1, 1, 1, 21);
	add(d, NULL, "walwriter", 3, 1, 1, 1, 22);
}

static void
commit_b(struct aggdiff *d)
{
	aggdiff_begin(d);
	add(d, NULL, "checkpointer", 1, 4, 1, 2, 20);
	add(d, NULL, "checkpointer", 3, 1, 1, 1, 22);
	add(d, NULL, "client backend", 2, 2, 1, 3, 21);
}

static struct seen
changes(struct aggdiff *d, int all)
{
	struct seen s;

	memset(&s, 0, sizeof(s));
	assert_int_equal(aggdiff_each_change(d, all, put, del, &s), 0);
	return s;
}

/* Rows of one key are summed (counts added, the widest times, the first
 * row's example); NULL and "" are the same local node. */
static void
test_sum(void **state)
{
	struct aggdiff d;
	struct seen s;

	(void)state;
	memset(&d, 0, sizeof(d));
	aggdiff_begin(&d);
	add(&d, NULL, "client backend", 0, 2, 5, 6, 10);
	add(&d, "", "client backend", 0, 3, 4, 7, 11);
	add(&d, "db1", "client backend", 0, 1, 1, 1, 12);
	s = changes(&d, 0);
	assert_int_equal(s.nput, 2);
	assert_int_equal(s.ndel, 0);
	assert_non_null(strstr(s.text, "+/client backend/0=5@4-7:10 "));
	assert_non_null(strstr(s.text, "+db1/client backend/0=1@1-1:12 "));
	aggdiff_free(&d);
}

/* After a commit, only what changed is written, and a row no longer given
 * is deleted; a rolled back commit (no aggdiff_committed()) leaves the
 * comparison with what the store still holds. */
static void
test_diff(void **state)
{
	struct aggdiff d;
	struct seen s;

	(void)state;
	memset(&d, 0, sizeof(d));
	commit_a(&d);
	s = changes(&d, 0);
	assert_int_equal(s.nput, 3);
	assert_int_equal(s.known, 0);
	aggdiff_committed(&d);

	/* the same rows: nothing to write */
	commit_a(&d);
	s = changes(&d, 0);
	assert_int_equal(s.nput, 0);
	assert_int_equal(s.ndel, 0);
	/* with all, every row, each with the rowid its put gave */
	s = changes(&d, 1);
	assert_int_equal(s.nput, 3);
	assert_int_equal(s.known, 3);
	aggdiff_committed(&d);

	/* one changed, one gone (its role learnt: walwriter's row moved to
	 * the checkpointer's key), and it is rolled back */
	commit_b(&d);
	s = changes(&d, 0);
	assert_int_equal(s.nput, 2);
	assert_int_equal(s.ndel, 1);
	assert_non_null(strstr(s.text, "-/walwriter/3 "));
	assert_non_null(strstr(s.text, "+/client backend/2=2@1-3:21 "));
	assert_non_null(strstr(s.text, "+/checkpointer/3=1@1-1:22 "));
	/* the client backend's row has its rowid; the new key none */
	assert_int_equal(s.known, 1);

	/* rolled back: the next commit compares with the stored rows again */
	commit_b(&d);
	s = changes(&d, 0);
	assert_int_equal(s.nput, 2);
	assert_int_equal(s.ndel, 1);
	aggdiff_committed(&d);

	/* committed: the walwriter row is forgotten, nothing left to do */
	commit_b(&d);
	s = changes(&d, 0);
	assert_int_equal(s.nput + s.ndel, 0);
	aggdiff_free(&d);
}

/* aggdiff_forget(): the store holds none (a commit cleared them); many
 * keys (the table grows) are all written, then none. */
static void
test_forget_many(void **state)
{
	struct aggdiff d;
	struct seen s;
	char node[32];

	(void)state;
	memset(&d, 0, sizeof(d));
	for (int round = 0; round < 2; round++) {
		aggdiff_begin(&d);
		if (round == 1)
			aggdiff_forget(&d);
		for (int i = 0; i < 5000; i++) {
			snprintf(node, sizeof(node), "node%d", i % 1000);
			add(&d, node, "client backend", i / 1000, 1, 1, 1, i);
		}
		memset(&s, 0, sizeof(s));
		assert_int_equal(aggdiff_each_change(&d, 0, put, del, &s), 0);
		assert_int_equal(s.nput, 5000);
		assert_int_equal(s.ndel, 0);
		/* forgotten: no rowid is taken as the store's */
		assert_int_equal(s.known, 0);
		aggdiff_committed(&d);
	}
	aggdiff_begin(&d);
	memset(&s, 0, sizeof(s));
	assert_int_equal(aggdiff_each_change(&d, 0, put, del, &s), 0);
	assert_int_equal(s.ndel, 5000);
	aggdiff_committed(&d);
	assert_int_equal(d.n, 0);
	aggdiff_free(&d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sum),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_forget_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
