/* SPDX-License-Identifier: PostgreSQL */
/* store_aggs.c - the aggregates of a range of rounds summed in memory in
 * one pass over the table: by (role, arch, nr) for the whole fleet or one
 * node, by (node, role, arch, nr) for every node, by node for the node
 * sums, and each syscall's first round for --status. */
/*
 * SQLite's GROUP BY sorts every row of the range in its sorter, and the
 * range's index fetches each row from the table by rowid: on a store of
 * 100,000 nodes (400,000 aggregate rows) each such query cost about 1 s of
 * CPU, and a fleet's JSON ran three of them.  Here the rows are read in
 * the table's order (the whole table when the range covers every round
 * it holds) and summed in a hash table; only the groups are sorted.  The
 * sums are those of the SQL they replace: sum(count), min(round_id),
 * min(example_pid) and min(example_exe), each min over the non-NULL
 * values, text compared byte by byte (SQLite's BINARY collation).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"
#include "roles.h"
#include "store.h"

struct agg_key {
	const char *node;       /* interned; NULL when not by node */
	const char *role;       /* interned; NULL when not by call */
	uint32_t arch;
	int32_t nr;
};

struct agg_group {
	struct agg_key k;
	uint64_t count;
	int64_t first_round, example_pid;
	const char *example_exe;        /* interned, NULL none */
	int has_pid;
};

struct agg_sum {
	int by_node, by_call;
	struct strhash names;           /* nodes, roles, exes */
	struct agg_group *g;
	size_t n, cap;
	size_t *slot;                   /* index + 1 into g, 0 empty */
	size_t nslot;
};

static const char *const scan_sql[] = {
	"SELECT role, arch, nr, count, round_id, example_pid, example_exe, "
	"node FROM aggregates WHERE round_id BETWEEN ?1 AND ?2 "
	"AND (?3 IS NULL OR node = ?3)",
	/* the range covers the table: its rows in the table's order */
	"SELECT role, arch, nr, count, round_id, example_pid, example_exe, "
	"node FROM aggregates NOT INDEXED WHERE round_id BETWEEN ?1 AND ?2 "
	"AND (?3 IS NULL OR node = ?3)",
};

static void
agg_sum_free(struct agg_sum *a)
{
	strhash_free(&a->names);
	free(a->g);
	free(a->slot);
}

static size_t
agg_slot(const struct agg_sum *a, const struct agg_key *k)
{
	size_t i = (size_t)util_hash(k, sizeof(*k), 0) & (a->nslot - 1);

	while (a->slot[i] != 0 &&
	       memcmp(&a->g[a->slot[i] - 1].k, k, sizeof(*k)) != 0)
		i = (i + 1) & (a->nslot - 1);
	return i;
}

static int
agg_grow(struct agg_sum *a)
{
	size_t nslot = a->nslot ? a->nslot * 2 : 256;
	size_t *old = a->slot, nold = a->nslot;

	if ((a->slot = calloc(nslot, sizeof(*a->slot))) == NULL) {
		a->slot = old;
		return -ENOMEM;
	}
	a->nslot = nslot;
	for (size_t i = 0; i < nold; i++)
		if (old[i] != 0)
			a->slot[agg_slot(a, &a->g[old[i] - 1].k)] = old[i];
	free(old);
	return 0;
}

/* The group of @k, made if new; NULL on OOM. */
static struct agg_group *
agg_group(struct agg_sum *a, const struct agg_key *k)
{
	struct agg_group *g;
	size_t i;

	if (2 * (a->n + 1) > a->nslot && agg_grow(a) < 0)
		return NULL;
	i = agg_slot(a, k);
	if (a->slot[i] != 0)
		return &a->g[a->slot[i] - 1];
	if (util_grow_array(&a->g, &a->cap, a->n, sizeof(*a->g), 256) < 0)
		return NULL;
	g = &a->g[a->n++];
	memset(g, 0, sizeof(*g));
	g->k = *k;
	g->first_round = INT64_MAX;
	a->slot[i] = a->n;
	return g;
}

/* One row of scan_sql into its group. */
static int
agg_row(struct agg_sum *a, sqlite3_stmt *s)
{
	const char *role = (const char *)sqlite3_column_text(s, 0);
	const char *node = (const char *)sqlite3_column_text(s, 7);
	const char *exe = NULL;
	struct agg_group *g;
	struct agg_key k;
	int64_t round;

	if (role == NULL)
		return 0;       /* as store_rows_each(): no role, no row */
	memset(&k, 0, sizeof(k));
	if (a->by_node &&
	    (k.node = strhash_intern(&a->names, node ? node : "")) == NULL)
		return -ENOMEM;
	if (a->by_call) {
		if ((k.role = strhash_intern(&a->names, role)) == NULL)
			return -ENOMEM;
		k.arch = (uint32_t)sqlite3_column_int64(s, 1);
		k.nr = (int32_t)sqlite3_column_int64(s, 2);
		exe = (const char *)sqlite3_column_text(s, 6);
		if (exe != NULL &&
		    (exe = strhash_intern(&a->names, exe)) == NULL)
			return -ENOMEM;
	}
	if ((g = agg_group(a, &k)) == NULL)
		return -ENOMEM;
	g->count += (uint64_t)sqlite3_column_int64(s, 3);
	round = sqlite3_column_int64(s, 4);
	if (round < g->first_round)
		g->first_round = round;
	if (sqlite3_column_type(s, 5) != SQLITE_NULL) {
		int64_t pid = sqlite3_column_int64(s, 5);

		if (!g->has_pid || pid < g->example_pid)
			g->example_pid = pid;
		g->has_pid = 1;
	}
	if (exe != NULL && exe != g->example_exe &&
	    (g->example_exe == NULL || strcmp(exe, g->example_exe) < 0))
		g->example_exe = exe;
	return 0;
}

/* Does @from-@to hold every round the aggregates have?  Then the whole
 * table is read in its order, not row by row through the index. */
static int
agg_whole(pgsc_store *st, int64_t from, int64_t to, char **cause)
{
	sqlite3_stmt *s;
	int rc, whole = 0;

	rc = store_prep(st, "SELECT (SELECT min(round_id) FROM aggregates), "
			"(SELECT max(round_id) FROM aggregates)", &s, cause);
	if (rc < 0)
		return rc;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		whole = sqlite3_column_type(s, 0) == SQLITE_NULL ||
			(from <= sqlite3_column_int64(s, 0) &&
			 to >= sqlite3_column_int64(s, 1));
		rc = SQLITE_DONE;
	}
	rc = store_rows_end(st, s, rc, cause);
	return rc < 0 ? rc : whole;
}

/* The rows of rounds @from-@to (of @node only, unless NULL) summed in @a. */
static int
agg_scan(pgsc_store *st, int64_t from, int64_t to, const char *node,
	 struct agg_sum *a, char **cause)
{
	sqlite3_stmt *s;
	int rc = agg_whole(st, from, to, cause);

	if (rc < 0)
		return rc;
	rc = store_prep(st, scan_sql[rc], &s, cause);
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(s, 1, from);
	sqlite3_bind_int64(s, 2, to);
	store_bind_text(s, 3, node);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		if ((rc = agg_row(a, s)) != 0)
			break;
	return store_rows_end(st, s, rc, cause);
}

static int
agg_cmp(const void *pa, const void *pb)
{
	const struct agg_key *a = &(*(struct agg_group *const *)pa)->k;
	const struct agg_key *b = &(*(struct agg_group *const *)pb)->k;
	int c;

	if (a->node != b->node && (c = strcmp(a->node, b->node)) != 0)
		return c;
	if (a->arch != b->arch)
		return a->arch < b->arch ? -1 : 1;
	if (a->nr != b->nr)
		return a->nr < b->nr ? -1 : 1;
	if (a->role != b->role)
		return strcmp(a->role, b->role);
	return 0;
}

/* The groups of @a sorted by node, arch, number, role, in *@out. */
static int
agg_sorted(const struct agg_sum *a, struct agg_group ***out)
{
	*out = malloc((a->n ? a->n : 1) * sizeof(**out));
	if (*out == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < a->n; i++)
		(*out)[i] = &a->g[i];
	if (a->n > 0)
		qsort(*out, a->n, sizeof(**out), agg_cmp);
	return 0;
}

/* The role rows of rounds @from-@to to @cb: by node when @by_node
 * (row->node the node), else summed over the nodes or of @node alone
 * (row->node @node). */
static int
agg_role_rows(pgsc_store *st, int by_node, int64_t from, int64_t to,
	      const char *node,
	      int (*cb)(void *arg, const struct store_role_row *row),
	      void *arg, char **cause)
{
	struct agg_sum a = { .by_node = by_node, .by_call = 1 };
	struct agg_group **v = NULL;
	int rc;

	rc = agg_scan(st, from, to, node, &a, cause);
	if (rc == 0)
		rc = agg_sorted(&a, &v);
	for (size_t i = 0; rc == 0 && i < a.n; i++) {
		const struct agg_group *g = v[i];
		struct store_role_row w = {
			.role = g->k.role, .arch = g->k.arch, .nr = g->k.nr,
			.count = g->count, .first_round = g->first_round,
			.example_pid = g->has_pid ? g->example_pid : 0,
			.example_exe = g->example_exe,
			.node = by_node ? g->k.node : node,
		};

		rc = cb(arg, &w);
	}
	free(v);
	agg_sum_free(&a);
	return rc;
}

/* The aggregates of a range of rounds summed over their nodes, or of one
 * node (@node, "" the local host: schemas/006_node_aggregates.sql), by
 * arch, number, role. */
int
store_role_aggs(pgsc_store *st, int64_t from, int64_t to, const char *node,
		int (*cb)(void *arg, const struct store_role_row *row),
		void *arg, char **cause)
{
	return agg_role_rows(st, 0, from, to, node, cb, arg, cause);
}

/* Every node's aggregates of a range of rounds in one pass, node by node
 * (by name, as store_node_sums() orders them), then by arch, number,
 * role: a fleet's report reads N nodes in one scan, not N scans. */
int
store_role_aggs_nodes(pgsc_store *st, int64_t from, int64_t to,
		      int (*cb)(void *arg, const struct store_role_row *row),
		      void *arg, char **cause)
{
	return agg_role_rows(st, 1, from, to, NULL, cb, arg, cause);
}

/* Each node of rounds @from-@to ("" the local host) with its records (the
 * counts of its aggregates), by name. */
int
store_node_sums(pgsc_store *st, int64_t from, int64_t to,
		int (*cb)(void *arg, const char *name, uint64_t sum),
		void *arg, char **cause)
{
	struct agg_sum a = { .by_node = 1 };
	struct agg_group **v = NULL;
	int rc;

	rc = agg_scan(st, from, to, NULL, &a, cause);
	if (rc == 0)
		rc = agg_sorted(&a, &v);
	for (size_t i = 0; rc == 0 && i < a.n; i++)
		rc = cb(arg, v[i]->k.node, v[i]->count);
	free(v);
	agg_sum_free(&a);
	return rc;
}

/* The first rounds of one list: (arch, number) and its first round. */
struct agg_first {
	uint32_t arch;
	int32_t nr;
	int64_t round;
};

static int
i64_cmp(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return a < b ? -1 : a > b;
}

static int
first_cmp(const void *pa, const void *pb)
{
	const struct agg_first *a = pa, *b = pb;

	if (a->arch != b->arch)
		return a->arch < b->arch ? -1 : 1;
	if (a->nr != b->nr)
		return a->nr < b->nr ? -1 : 1;
	return a->round < b->round ? -1 : a->round > b->round;
}

/* The rounds of @f (sorted by call, then round) as each call's first,
 * ascending, in *@v. */
static int
first_rounds_of(struct agg_first *f, size_t n, int64_t **v, size_t *nv)
{
	*nv = 0;
	if ((*v = malloc((n ? n : 1) * sizeof(**v))) == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || f[i].arch != f[i - 1].arch ||
		    f[i].nr != f[i - 1].nr)
			(*v)[(*nv)++] = f[i].round;
	if (*nv > 0)
		qsort(*v, *nv, sizeof(**v), i64_cmp);
	return 0;
}

/*
 * Each syscall's first round in the whole store among the rows of a
 * server role (@v[0]) and of a session role (@v[1], @in_session), the
 * rounds ascending: --status counts a round's new calls from them.
 */
int
store_first_rounds(pgsc_store *st,
		   int (*in_session)(void *arg, const char *role), void *sarg,
		   int64_t *v[2], size_t nv[2], char **cause)
{
	struct agg_sum a = { .by_call = 1 };
	struct agg_first *f[2] = { NULL, NULL };
	size_t nf[2] = { 0, 0 }, cap[2] = { 0, 0 };
	int rc;

	v[0] = v[1] = NULL;
	nv[0] = nv[1] = 0;
	rc = agg_scan(st, INT64_MIN, INT64_MAX, NULL, &a, cause);
	for (size_t i = 0; rc == 0 && i < a.n; i++) {
		const struct agg_group *g = &a.g[i];
		struct agg_first e = { g->k.arch, g->k.nr, g->first_round };

		if (pgsc_role_in_server(g->k.role))
			rc = util_append(&f[0], &cap[0], &nf[0], &e,
					 sizeof(e), 64);
		if (rc == 0 && in_session(sarg, g->k.role))
			rc = util_append(&f[1], &cap[1], &nf[1], &e,
					 sizeof(e), 64);
	}
	for (int k = 0; rc == 0 && k < 2; k++) {
		if (nf[k] > 0) /* qsort(NULL, 0, ...) is undefined (UBSan) */
			qsort(f[k], nf[k], sizeof(*f[k]), first_cmp);
		rc = first_rounds_of(f[k], nf[k], &v[k], &nv[k]);
	}
	free(f[0]);
	free(f[1]);
	agg_sum_free(&a);
	return rc;
}
