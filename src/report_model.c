/* SPDX-License-Identifier: PostgreSQL */
/* report_model.c - what every report stands on: a range of rounds opened
 * once (report_open(): the session roles, the rounds, the counts loaded) and
 * the global and session lists built from it (report_lists_build()).  It
 * prints nothing; the writers and report_usable.c read what it built. */
/*
 * Every name kept comes from libseccomp for the record's own arch and is
 * checked against [a-z0-9_]+ here, before any writer sees it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "proctree.h"
#include "roles.h"
#include "round.h"
#include "store.h"
#include "syscalls.h"

/*
 * Every role of @roles is a known backend type or a role the store holds
 * in some round: "--session-roles clinet" is a typo, not an empty list.
 * Returns 0, or -EINVAL with *cause naming the role.
 */
static int
session_known(pgsc_store *st, const struct strset *roles, char **cause)
{
	for (size_t i = 0; i < roles->n; i++) {
		const char *role = roles->v[i];
		int rc;

		if (roles_known(role))
			continue;
		rc = store_role_seen(st, role, cause);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			util_cause(cause, "--session-roles: unknown role \"%s\": "
				   "not a PostgreSQL backend type (client "
				   "backend, walsender, autovacuum worker, "
				   "parallel worker, ...) and not in the store "
				   "(pgsc-report --format=table lists its roles)",
				   role);
			return -EINVAL;
		}
	}
	return 0;
}

/* What report_open() filled in @r, freed; a zeroed @r is fine. */
void
report_close(struct rep *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->e[i].example_exe);
		free(r->e[i].rc);
	}
	free(r->e);
	strset_free(&r->roles);
	strset_free(&r->session);
	strset_free(&r->dropped);
	for (size_t i = 0; i < r->nnodes; i++)
		free(r->nodes[i].name);
	free(r->nodes);
}

static struct entry *
entry_get(struct rep *r, uint32_t arch, int32_t nr)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].arch == arch && r->e[i].nr == nr)
			return &r->e[i];
	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 128;
		struct entry *ne = realloc(r->e, ncap * sizeof(*ne));

		if (ne == NULL)
			return NULL;
		r->e = ne;
		r->cap = ncap;
	}
	memset(&r->e[r->n], 0, sizeof(r->e[0]));
	r->e[r->n].arch = arch;
	r->e[r->n].nr = nr;
	r->e[r->n].first_round = INT64_MAX;
	return &r->e[r->n++];
}

/* One role's count of one syscall (store_role_aggs()) into its entry. */
static int
load_row(void *arg, const struct store_role_row *w)
{
	struct rep *r = arg;
	const char *role = strset_intern(&r->roles, w->role);
	struct entry *e = entry_get(r, w->arch, w->nr);
	struct rolecount *nrc;
	struct role_agg a = { .role = role, .count = w->count };

	if (role == NULL || e == NULL)
		return -ENOMEM;
	round_tally(&r->tally, &a);
	e->all += w->count;
	nrc = realloc(e->rc, (e->nrc + 1) * sizeof(*nrc));
	if (nrc == NULL)
		return -ENOMEM;
	e->rc = nrc;
	e->rc[e->nrc++] = (struct rolecount){ role, w->count };
	if (!pgsc_role_in_server(role))
		return 0;
	e->count += w->count;
	e->global = 1;
	if (roles_in_session(&r->session, role))
		e->session = 1;
	if (w->first_round < e->first_round)
		e->first_round = w->first_round;
	if (e->example_exe == NULL) {
		e->example_pid = w->example_pid;
		if (w->example_exe != NULL &&
		    (e->example_exe = strdup(w->example_exe)) == NULL)
			return -ENOMEM;
	}
	return 0;
}

/* What the rows loaded into @r make of its totals and names. */
static void
load_done(struct rep *r)
{
	if (r->node != NULL) {
		/* one node: its records are its aggregates' (store_sums());
		 * the loss figures stay the rounds' (the whole log's) */
		r->t.attributed = r->tally.attributed;
		r->t.unrelated = r->tally.unrelated;
		r->t.standalone = r->tally.standalone;
		r->t.unattributed = r->tally.unattributed;
		r->t.records = r->t.attributed + r->t.unrelated + r->t.standalone +
			     r->t.unattributed;
	}
	/* the rounds' unattributed column holds the foreign records too */
	r->t.foreign = r->tally.foreign < r->t.unattributed ? r->tally.foreign
			: r->t.unattributed;
	r->t.unattributed -= r->t.foreign;
	for (size_t i = 0; i < r->n; i++) {
		struct entry *e = &r->e[i];

		e->name = pgsc_syscall_name(e->arch, e->nr);
		if (e->name == NULL || !pgsc_guc_name_ok(e->name)) {
			/* cannot happen for imported data: checked at import */
			e->global = e->session = 0;
			e->name = NULL;
		}
	}
}

/* The totals and the counts per (role, arch, number) of @r's rounds. */
static int
load(struct rep *r)
{
	int rc;

	/* the totals and the loss figures of the rounds, in one pass */
	rc = store_totals(r->st, r->from, r->to, &r->t, r->cause);
	if (rc < 0)
		return rc;
	r->t_rounds = r->t;
	rc = report_nodes_load(r);
	if (rc < 0)
		return rc;
	round_tally_reset(&r->tally);
	rc = store_role_aggs(r->st, r->from, r->to, r->node, load_row, r,
			     r->cause);
	if (rc < 0)
		return rc;
	load_done(r);
	return 0;
}

/*
 * The rounds @from-@to in @r, within the finished ones (0: the first, the
 * last).  Returns 0, 1 when the store has no rounds yet (*cause says so),
 * or -ERANGE when the rounds asked are not there.
 */
static int
range_check(struct rep *r, int64_t from, int64_t to)
{
	int64_t lo = 0, hi = 0;
	int rc = store_finished_range(r->st, &lo, &hi, r->cause);

	if (rc < 0)
		return rc;
	if (rc == 0) {
		util_cause(r->cause, "no data: the store has no rounds yet; "
			   "import with pgsc-collect --import first");
		return 1;
	}
	r->from = from > 0 ? from : lo;
	r->to = to > 0 ? to : hi;
	if (r->from < lo || r->to > hi || r->from > r->to) {
		util_cause(r->cause, "rounds %lld-%lld are not in the "
			   "store (it has %lld-%lld)", (long long)r->from,
			   (long long)r->to, (long long)lo, (long long)hi);
		return -ERANGE;
	}
	return 0;
}

/**
 * Open the report of @spec on @st into @r: the session roles parsed and
 * checked against the store, the rounds checked, @spec->ready() asked,
 * then the totals, the nodes and the counts loaded.  Every report, the
 * status, --check-complete and pgsc-diff's lists open here.
 * Returns 0; 1 when there is nothing to load (no rounds yet: *cause says
 * so; or ready() said so); or -errno with *cause.  report_close(@r) in every
 * case.
 */
int
report_open(pgsc_store *st, const struct rep_spec *spec, struct rep *r,
	 char **cause)
{
	int rc;

	memset(r, 0, sizeof(*r));
	r->st = st;
	r->cause = cause;
	r->node = spec->node;
	rc = roles_session_parse(spec->session_roles, &r->session, cause);
	if (rc == 0)
		rc = session_known(st, &r->session, cause);
	if (rc == 0 && spec->range == REP_RANGE_FINISHED)
		rc = range_check(r, spec->from, spec->to);
	if (rc == 0 && spec->range == REP_RANGE_GIVEN) {
		r->from = spec->from;
		r->to = spec->to;
	}
	if (rc == 0 && spec->ready != NULL)
		rc = spec->ready(r, spec->arg);
	if (rc == 0)
		rc = load(r);
	return rc;
}

/* report_each_node()'s walk: the node being loaded, and whom to give it. */
struct node_walk {
	const struct rep *parent;
	struct rep n;
	char *node;             /* n.node's copy; NULL before the first row */
	int (*cb)(struct rep *n, void *arg);
	void *arg;
};

/* The node loaded so far handed to the callback, then closed. */
static int
walk_flush(struct node_walk *w)
{
	int rc = 0;

	if (w->node != NULL) {
		load_done(&w->n);
		rc = w->cb(&w->n, w->arg);
	}
	report_close(&w->n);
	free(w->node);
	w->node = NULL;
	memset(&w->n, 0, sizeof(w->n));
	return rc;
}

/* A node's report opened as report_open() would with --node, from what
 * its parent already holds (the session roles, the rounds' totals). */
static int
walk_begin(struct node_walk *w, const char *node)
{
	const struct rep *p = w->parent;

	if ((w->node = strdup(node)) == NULL)
		return -ENOMEM;
	w->n.st = p->st;
	w->n.cause = p->cause;
	w->n.from = p->from;
	w->n.to = p->to;
	w->n.node = w->node;
	w->n.t = w->n.t_rounds = p->t_rounds;
	report_node_loss(&w->n, p);
	round_tally_reset(&w->n.tally);
	for (size_t i = 0; i < p->session.n; i++)
		if (strset_add(&w->n.session, p->session.v[i]) < 0)
			return -ENOMEM;
	return 0;
}

static int
walk_row(void *arg, const struct store_role_row *row)
{
	struct node_walk *w = arg;
	const char *node = row->node != NULL ? row->node : "";
	int rc = 0;

	if (w->node == NULL || strcmp(w->node, node) != 0) {
		rc = walk_flush(w);
		if (rc == 0)
			rc = walk_begin(w, node);
	}
	return rc != 0 ? rc : load_row(&w->n, row);
}

/**
 * Each node of @r's rounds as report_open() opens it with --node, handed
 * to @cb in the order of @r->nodes, from one pass over the store (not one
 * per node: a fleet's report takes time linear in the store).  @cb does
 * not close the node.  Returns 0, @cb's non-zero, or -errno with *cause.
 */
int
report_each_node(const struct rep *r, int (*cb)(struct rep *n, void *arg),
		 void *arg)
{
	struct node_walk w = { .parent = r, .cb = cb, .arg = arg };
	int rc;

	rc = store_role_aggs_nodes(r->st, r->from, r->to, walk_row, &w,
				   r->cause);
	if (rc == 0)
		return walk_flush(&w);
	report_close(&w.n);
	free(w.node);
	return rc;
}

/* The sorted, de-duplicated names of one list (names of several arches
 * merge into one list, as the GUCs take names). */
int
report_list_names(const struct rep *r, int session, struct strset *out)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];

		if (e->name == NULL || !(session ? e->session : e->global))
			continue;
		if (strset_add(out, e->name) < 0)
			return -ENOMEM;
	}
	return 0;
}

void
report_lists_free(struct lists *L)
{
	for (int k = 0; k < 2; k++) {
		strset_free(&L->l[k]);
		strset_free(&L->unmapped[k]);
		strset_free(&L->noted[k]);
		for (size_t i = 0; i < L->nnotes[k]; i++)
			strset_free(&L->notes[k][i].to);
		free(L->notes[k]);
	}
	strset_free(&L->needs);
	strset_free(&L->startup);
	strset_free(&L->resume);
}

static int
note_cmp(const void *a, const void *b)
{
	return strcmp(((const struct mapnote *)a)->from,
		      ((const struct mapnote *)b)->from);
}

/* @name stands for @to in list @k. */
static int
lists_note(struct lists *L, int k, const char *name, const struct strset *to)
{
	struct mapnote *nn;
	const char *from;

	if (to->n == 1 && strcmp(to->v[0], name) == 0)
		return 0;
	if (strset_has(&L->noted[k], name))
		return 0;
	from = strset_intern(&L->noted[k], name);
	nn = realloc(L->notes[k], (L->nnotes[k] + 1) * sizeof(*nn));
	if (from == NULL || nn == NULL)
		return -ENOMEM;
	L->notes[k] = nn;
	nn = &nn[L->nnotes[k]++];
	nn->from = from;
	memset(&nn->to, 0, sizeof(nn->to));
	for (size_t i = 0; i < to->n; i++)
		if (strset_add(&nn->to, to->v[i]) < 0)
			return -ENOMEM;
	return 0;
}

/*
 * The names @e stands for in a list made for @o, in @to (emptied first;
 * left empty when it has no equivalent): as recorded, or mapped through
 * the families.  With --arch T every name is mapped to T.  With
 * --portable alone each name is widened on the native arch and on the
 * arch it was recorded on, so a name of a 32-bit descendant (_llseek)
 * stays in the list for the compat part of the filter.
 * docs/portability.md.
 */
int
report_map_entry(const struct entry *e, const struct pgsc_report_opts *o,
	      struct strset *to)
{
	uint32_t t[2];
	size_t nt = 0;
	int rc;

	strset_free(to);
	if (o->arch == 0 && !o->portable)
		return strset_add(to, e->name) < 0 ? -ENOMEM : 0;
	if (o->arch != 0) {
		t[nt++] = o->arch;
	} else {
		t[nt++] = pgsc_native_arch();
		if (e->arch != t[0])
			t[nt++] = e->arch;
	}
	for (size_t j = 0; j < nt; j++) {
		rc = syscall_portable_map(e->name, t[j], o->portable, to);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The two lists for @o, with what the mapping did to them. */
int
report_lists_build(const struct rep *r, const struct pgsc_report_opts *o,
		struct lists *L)
{
	struct strset to = { 0 };
	int rc = 0;

	memset(L, 0, sizeof(*L));
	L->mapping = o->arch != 0 || o->portable;
	L->target = o->arch;
	L->portable = o->portable;
	for (int k = 0; k < 2; k++) {
		if (!L->mapping) {
			rc = report_list_names(r, k, &L->l[k]);
			if (rc < 0)
				goto out;
			continue;
		}
		for (size_t i = 0; i < r->n; i++) {
			const struct entry *e = &r->e[i];

			if (e->name == NULL || !(k ? e->session : e->global))
				continue;
			rc = report_map_entry(e, o, &to);
			if (rc < 0)
				goto out;
			if (to.n == 0) {
				if (strset_add(&L->unmapped[k], e->name) < 0)
					rc = -ENOMEM;
			} else {
				for (size_t j = 0; j < to.n && rc == 0; j++)
					if (strset_add(&L->l[k], to.v[j]) < 0)
						rc = -ENOMEM;
				if (rc == 0)
					rc = lists_note(L, k, e->name, &to);
			}
			if (rc < 0)
				goto out;
		}
		if (L->nnotes[k] > 1)
			qsort(L->notes[k], L->nnotes[k], sizeof(L->notes[k][0]),
			      note_cmp);
	}
	rc = report_needs_add(&L->l[0], &L->needs, L->target);
out:
	strset_free(&to);
	return rc;
}
