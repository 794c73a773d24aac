/* SPDX-License-Identifier: PostgreSQL */
/* report.c - lists from the store: a range of rounds loaded, the global
 * and session lists built from it, the GUC lines, the JSON provenance and
 * the table (report_filter.c writes the filters, report_status.c the
 * status and the HTML page's data). */
/*
 * Every name printed comes from libseccomp for the record's own arch and
 * is checked against [a-z0-9_]+ before it reaches a GUC line; every other
 * text that came from a record (exe, role) is escaped for its format.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report-int.h"

/*
 * Every role of @roles is a known backend type or a role the store holds
 * in some round: "--session-roles clinet" is a typo, not an empty list.
 * Returns 0, or -EINVAL with *cause naming the role.
 */
int
report_roles_known(pgsc_store *st, const struct strset *roles, char **cause)
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

/* ---------------------------------------------------------------- */




void
report_free(struct rep *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->e[i].example_exe);
		free(r->e[i].rc);
	}
	free(r->e);
	strset_free(&r->roles);
	strset_free(&r->session);
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

int
report_load(struct rep *r)
{
	int rc;

	/* the totals and the loss figures of the rounds, in one pass */
	rc = store_totals(r->st, r->from, r->to, &r->t, r->cause);
	if (rc < 0)
		return rc;
	rc = report_nodes_load(r);
	if (rc < 0)
		return rc;
	round_tally_reset(&r->tally);
	rc = store_role_aggs(r->st, r->from, r->to, r->node, load_row, r,
			     r->cause);
	if (rc < 0)
		return rc;
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
	return 0;
}

/* The sorted, de-duplicated names of one list (names of several arches
 * merge into one list, as the GUCs take names). */
static int
list_names(const struct rep *r, int session, struct strset *out)
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

static void
lists_free(struct lists *L)
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
		rc = portable_map(e->name, t[j], o->portable, to);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The two lists for @o, with what the mapping did to them. */
static int
lists_build(const struct rep *r, const struct pgsc_report_opts *o,
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
			rc = list_names(r, k, &L->l[k]);
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

/* What --arch left out, on @diag (the caller's stderr) and as comments. */
static void
lists_warn(const struct lists *L, FILE *diag)
{
	for (int k = 0; k < 2; k++) {
		if (L->unmapped[k].n == 0)
			continue;
		fprintf(diag, "pgsc-report: no equivalent on %s, left out of "
			"the %s list:", pgsc_arch_name(L->target),
			k ? "session" : "global");
		for (size_t i = 0; i < L->unmapped[k].n; i++) {
			fputc(' ', diag);
			pgsc_text_escape(diag, L->unmapped[k].v[i]);
		}
		fputc('\n', diag);
	}
	report_needs_startup_note(diag, L, "pgsc-report: ");
}


void
report_lists_comment(FILE *out, const struct lists *L)
{
	if (!L->mapping)
		return;
	if (L->target != 0)
		fprintf(out, "# for %s (--arch%s): names mapped through the "
			"alias families\n", pgsc_arch_name(L->target),
			L->portable ? ", --portable" : "");
	else
		fprintf(out, "# --portable: every alias family member that "
			"exists on %s or on the arch a name was recorded on\n",
			pgsc_arch_name(pgsc_native_arch()));
	for (int k = 0; k < 2; k++) {
		if (L->nnotes[k] > 0) {
			fprintf(out, "# %s: ", k ? "session" : "global");
			for (size_t i = 0; i < L->nnotes[k]; i++) {
				fprintf(out, "%s%s -> ", i ? ", " : "",
					L->notes[k][i].from);
				report_print_joined(out, &L->notes[k][i].to, ",");
			}
			fputc('\n', out);
		}
		if (L->unmapped[k].n > 0) {
			fprintf(out, "# warning: no equivalent on %s, left out "
				"of the %s list: ", pgsc_arch_name(L->target),
				k ? "session" : "global");
			for (size_t i = 0; i < L->unmapped[k].n; i++)
				fprintf(out, "%s%s", i ? ", " : "",
					L->unmapped[k].v[i]);
			fputc('\n', out);
		}
	}
}

void
report_arch_list(const struct rep *r, struct strset *out)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].global && pgsc_arch_name(r->e[i].arch))
			strset_add(out, pgsc_arch_name(r->e[i].arch));
	if (out->n == 0 && pgsc_arch_name(pgsc_native_arch()))
		strset_add(out, pgsc_arch_name(pgsc_native_arch()));
}

void
report_print_joined(FILE *out, const struct strset *s, const char *sep)
{
	for (size_t i = 0; i < s->n; i++)
		fprintf(out, "%s%s", i ? sep : "", s->v[i]);
}

/* Records may be missing from the rounds of @r. */
int
report_missing(const struct rep *r)
{
	return r->t.lost || r->t.serial_gaps || r->t.rotation_gaps ||
	       r->t.drain_timeouts;
}

/* The loss figures of @r, in the one order every format gives them:
 * "kernel lost N, serial gaps N, ..." as text, or as JSON members. */
void
report_loss_write(FILE *out, const struct rep *r, int json)
{
	const struct {
		const char *key, *text;
		uint64_t v;
	} t[] = {
		{ "kernel_lost", "kernel lost", r->t.lost },
		{ "serial_gaps", "serial gaps", r->t.serial_gaps },
		{ "rotation_gaps", "rotation gaps", r->t.rotation_gaps },
		{ "drain_timeouts", "drain timeouts", r->t.drain_timeouts },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		fprintf(out, json ? "%s\"%s\": %llu" : "%s%s %llu",
			i ? ", " : "", json ? t[i].key : t[i].text,
			(unsigned long long)t[i].v);
}

void
report_header_line(FILE *out, const struct rep *r)
{
	struct strset arches = { 0 };

	report_arch_list(r, &arches);
	fprintf(out, "# pgsc: %llu records, rounds %lld-%lld, arch ",
		(unsigned long long)r->t.records, (long long)r->from,
		(long long)r->to);
	report_print_joined(out, &arches, ",");
	fprintf(out, ", %llu unattributed", (unsigned long long)r->t.unattributed);
	if (r->t.foreign > 0)
		fprintf(out, ", %llu foreign (no server's: docs/roles.md)",
			(unsigned long long)r->t.foreign);
	fputc('\n', out);
	strset_free(&arches);
	report_nodes_header(out, r);
	if (r->t.unattributed > 0)
		fprintf(out, "# warning: %llu records could not be attributed "
			"to a server; collect with examples/pgsc.rules loaded "
			"or give --postmaster-pid / --pg-log\n",
			(unsigned long long)r->t.unattributed);
	if (r->t.rejected > 0)
		fprintf(out, "# warning: %llu input lines were rejected; "
			"pgsc-report --format=table lists the reasons\n",
			(unsigned long long)r->t.rejected);
	if (report_missing(r)) {
		fputs("# warning: records may be missing: ", out);
		report_loss_write(out, r, 0);
		fputs(" (pgsc-report --check-complete)\n", out);
	}
	if (r->t.unfinished)
		fprintf(out, "# note: %lld round(s) still being collected\n",
			(long long)r->t.unfinished);
}

static int
report_guc(FILE *out, struct rep *r, const struct lists *L,
	   const char *prefix)
{
	report_header_line(out, r);
	report_lists_comment(out, L);
	fprintf(out, "%sglobal_syscall_allow = '", prefix);
	report_print_joined(out, &L->l[0], ",");
	fprintf(out, "'\n%ssession_syscall_allow = '", prefix);
	report_print_joined(out, &L->l[1], ",");
	fprintf(out, "'\n");
	report_needs_guc(out, L);
	report_known_max_guc(out, r, L, prefix);
	return 0;
}

void
report_json_str(FILE *out, const char *s)
{
	fputc('"', out);
	pgsc_json_escape(out, s ? s : "");
	fputc('"', out);
}

void
report_json_list(FILE *out, const struct strset *s)
{
	fputc('[', out);
	for (size_t i = 0; i < s->n; i++) {
		if (i)
			fputs(", ", out);
		report_json_str(out, s->v[i]);
	}
	fputc(']', out);
}

struct json_rejects {
	FILE *out;
	int first;
};

static int
json_reject(void *arg, const char *reason, uint64_t count)
{
	struct json_rejects *jr = arg;

	fprintf(jr->out, "%s", jr->first ? "" : ", ");
	report_json_str(jr->out, reason);
	fprintf(jr->out, ": %lld", (long long)count);
	jr->first = 0;
	return 0;
}

/* The record tallies of @r as JSON members, one after another with @sep
 * between them: the whole report's and each node's. */
static void
json_tallies(FILE *out, const struct rep *r, const char *sep)
{
	const struct {
		const char *key;
		uint64_t v;
	} t[] = {
		{ "records", r->t.records },
		{ "attributed", r->t.attributed },
		{ "unrelated", r->t.unrelated },
		{ "standalone", r->t.standalone },
		{ "unattributed", r->t.unattributed },
		{ "foreign", r->t.foreign },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		fprintf(out, "%s\"%s\": %llu", i ? sep : "", t[i].key,
			(unsigned long long)t[i].v);
}

/*
 * The "nodes" object of a fleet's JSON: each node's records and lists,
 * loaded and built as --node NAME loads and builds them.
 */
static int
json_nodes(FILE *out, const struct rep *r, const struct pgsc_report_opts *o)
{
	int rc = 0;

	fprintf(out, ",\n  \"nodes\": {");
	for (size_t i = 0; rc == 0 && i < r->nnodes; i++) {
		struct rep n;
		struct lists L;

		memset(&n, 0, sizeof(n));
		memset(&L, 0, sizeof(L));
		n.st = r->st;
		n.cause = r->cause;
		n.from = r->from;
		n.to = r->to;
		n.node = r->nodes[i].name;
		for (size_t k = 0; rc == 0 && k < r->session.n; k++)
			if (strset_add(&n.session, r->session.v[k]) < 0)
				rc = -ENOMEM;
		if (rc == 0)
			rc = report_load(&n);
		if (rc == 0)
			rc = lists_build(&n, o, &L);
		if (rc == 0) {
			fprintf(out, "%s\n    ", i ? "," : "");
			report_json_str(out, n.node);
			fputs(": {", out);
			json_tallies(out, &n, ", ");
			fputs(", \"global\": ", out);
			report_json_list(out, &L.l[0]);
			fprintf(out, ", \"session\": ");
			report_json_list(out, &L.l[1]);
			fputc('}', out);
		}
		lists_free(&L);
		report_free(&n);
	}
	fprintf(out, "\n  }");
	return rc;
}

static int
report_json(FILE *out, struct rep *r, const struct lists *L,
	    const struct pgsc_report_opts *o, const struct types *T)
{
	struct strset arches = { 0 };
	struct json_rejects jr;
	int first;

	report_arch_list(r, &arches);
	fprintf(out, "{\n  \"pgsc_version\": \"%s\",\n", PGSC_VERSION);
	fprintf(out, "  \"rounds\": {\"from\": %lld, \"to\": %lld},\n",
		(long long)r->from, (long long)r->to);
	if (r->node != NULL) {
		fputs("  \"node\": ", out);
		report_json_str(out, r->node);
		fputs(",\n", out);
	}
	fputs("  ", out);
	json_tallies(out, r, ",\n  ");
	fputs(",\n", out);
	fputs("  \"loss\": {", out);
	report_loss_write(out, r, 1);
	fprintf(out, ", \"complete\": %s},\n",
		report_missing(r) ? "false" : "true");
	fprintf(out, "  \"rejected\": {");
	jr.out = out;
	jr.first = 1;
	if (store_sums(r->st, STORE_SUM_REJECTS, r->from, r->to, json_reject,
		       &jr, r->cause) < 0)
		return -EIO;
	fprintf(out, "},\n  \"arch\": ");
	report_json_list(out, &arches);
	fprintf(out, ",\n  \"session_roles\": ");
	report_json_list(out, &r->session);
	fprintf(out, ",\n  \"global\": ");
	report_json_list(out, &L->l[0]);
	fprintf(out, ",\n  \"session\": ");
	report_json_list(out, &L->l[1]);
	report_needs_json(out, L);
	report_known_max_json(out, r, L);
	if (T != NULL) {
		fprintf(out, ",\n  \"types\": ");
		report_types_json(out, T);
	}
	if (L->mapping) {
		/* --arch, --portable: what was mapped, what was left out */
		fprintf(out, ",\n  \"target_arch\": ");
		if (L->target)
			report_json_str(out, pgsc_arch_name(L->target));
		else
			fputs("null", out);
		fprintf(out, ",\n  \"portable\": %s,\n  \"mapped\": {",
			L->portable ? "true" : "false");
		for (int k = 0; k < 2; k++) {
			fprintf(out, "%s\"%s\": {", k ? ", " : "",
				k ? "session" : "global");
			for (size_t i = 0; i < L->nnotes[k]; i++) {
				fputs(i ? ", " : "", out);
				report_json_str(out, L->notes[k][i].from);
				fputs(": ", out);
				report_json_list(out, &L->notes[k][i].to);
			}
			fputc('}', out);
		}
		fprintf(out, "},\n  \"unmapped\": {\"global\": ");
		report_json_list(out, &L->unmapped[0]);
		fprintf(out, ", \"session\": ");
		report_json_list(out, &L->unmapped[1]);
		fputc('}', out);
	}
	if (r->node == NULL && report_fleet(r)) {
		int rc = json_nodes(out, r, o);

		if (rc < 0)
			return rc;
	}
	fprintf(out, ",\n  \"syscalls\": [");
	first = 1;
	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];

		if (e->name == NULL)
			continue;
		fprintf(out, "%s\n    {\"name\": ", first ? "" : ",");
		first = 0;
		report_json_str(out, e->name);
		fprintf(out, ", \"arch\": ");
		report_json_str(out, pgsc_arch_name(e->arch));
		fprintf(out, ", \"nr\": %d, \"count\": %llu, \"global\": %s, "
			"\"session\": %s, \"roles\": {", e->nr,
			(unsigned long long)e->count, e->global ? "true" : "false",
			e->session ? "true" : "false");
		for (size_t k = 0; k < e->nrc; k++) {
			if (k)
				fputs(", ", out);
			report_json_str(out, e->rc[k].role);
			fprintf(out, ": %llu", (unsigned long long)e->rc[k].count);
		}
		fputc('}', out);
		if (e->global) {
			fprintf(out, ", \"first_round\": %lld, \"example_pid\": "
				"%lld, \"example_exe\": ", (long long)e->first_round,
				(long long)e->example_pid);
			report_json_str(out, e->example_exe);
		}
		fputc('}', out);
	}
	fprintf(out, "\n  ]\n}\n");
	strset_free(&arches);
	return 0;
}

static int
table_reject(void *arg, const char *reason, uint64_t count)
{
	fprintf(arg, "# rejected: %s: %lld lines\n", reason, (long long)count);
	return 0;
}

static int
report_table(FILE *out, struct rep *r)
{
	const char **cols;
	size_t ncols = r->roles.n;

	cols = malloc((ncols ? ncols : 1) * sizeof(*cols));
	if (cols == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < ncols; i++)
		cols[i] = r->roles.v[i];
	qsort(cols, ncols, sizeof(*cols), roles_cmp);

	report_header_line(out, r);
	fprintf(out, "# G: in the global list, S: in the session list\n");
	fprintf(out, "%-24s %-8s %10s G S", "syscall", "arch", "total");
	for (size_t c = 0; c < ncols; c++) {
		fputs("  ", out);
		pgsc_text_escape(out, cols[c]);
	}
	fputc('\n', out);
	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];

		if (e->name == NULL)
			continue;
		fprintf(out, "%-24s %-8s %10llu %c %c", e->name,
			pgsc_arch_name(e->arch), (unsigned long long)e->all,
			e->global ? 'G' : '-', e->session ? 'S' : '-');
		for (size_t c = 0; c < ncols; c++) {
			uint64_t v = 0;

			for (size_t k = 0; k < e->nrc; k++)
				if (strcmp(e->rc[k].role, cols[c]) == 0)
					v = e->rc[k].count;
			fprintf(out, "  %*llu", (int)strlen(cols[c]),
				(unsigned long long)v);
		}
		fputc('\n', out);
	}
	free(cols);
	if (store_sums(r->st, STORE_SUM_REJECTS, r->from, r->to, table_reject,
		       out, r->cause) < 0)
		return -EIO;
	fprintf(out, "# records: %llu attributed, %llu unrelated, %llu "
		"standalone, %llu unattributed",
		(unsigned long long)r->t.attributed,
		(unsigned long long)r->t.unrelated,
		(unsigned long long)r->t.standalone,
		(unsigned long long)r->t.unattributed);
	if (r->t.foreign > 0)
		fprintf(out, ", %llu foreign (docs/roles.md)",
			(unsigned long long)r->t.foreign);
	fputc('\n', out);
	return 0;
}

int
report_round_range(struct rep *r, int64_t from, int64_t to)
{
	int64_t lo = 0, hi = 0;
	int rc = store_finished_range(r->st, &lo, &hi, r->cause);

	if (rc < 0)
		return rc;
	if (rc == 0) {
		util_cause(r->cause, "no data: the store has no rounds yet; "
			   "import with pgsc-collect --import first");
		return -ENOENT;
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

int
pgsc_report(pgsc_store *st, const struct pgsc_report_opts *opts, FILE *out,
	    char **cause)
{
	struct rep r;
	struct lists L;
	struct types T;
	enum pgsc_action def;
	int rc;

	memset(&r, 0, sizeof(r));
	memset(&L, 0, sizeof(L));
	memset(&T, 0, sizeof(T));
	r.st = st;
	r.cause = cause;
	r.node = opts->node;
	rc = roles_session_parse(opts->session_roles, &r.session, cause);
	if (rc < 0)
		goto out;
	rc = report_roles_known(st, &r.session, cause);
	if (rc < 0)
		goto out;
	rc = report_round_range(&r, opts->round_from, opts->round_to);
	if (rc == -ENOENT)
		rc = 1;         /* no rounds: no data, not an error */
	if (rc != 0)
		goto out;
	if ((opts->arch != 0 || opts->portable) &&
	    opts->format == PGSC_FMT_TABLE) {
		util_cause(cause, "--arch and --portable do not apply to the "
			   "table, which shows the names as recorded");
		rc = -EINVAL;
		goto out;
	}
	if (opts->per_type && opts->format != PGSC_FMT_GUC &&
	    opts->format != PGSC_FMT_JSON && opts->format != PGSC_FMT_TABLE) {
		util_cause(cause, "--per-type applies to the guc, json and "
			   "table formats");
		rc = -EINVAL;
		goto out;
	}
	if (opts->arch != 0 && pgsc_arch_name(opts->arch) == NULL) {
		util_cause(cause, "unknown arch token 0x%08x", opts->arch);
		rc = -EINVAL;
		goto out;
	}
	if (opts->has_default && (opts->def < PGSC_ACT_LOG ||
				  opts->def > PGSC_ACT_KILL)) {
		util_cause(cause, "the default action must be log, error or "
			   "kill");
		rc = -EINVAL;
		goto out;
	}
	rc = report_load(&r);
	if (rc < 0)
		goto out;
	rc = lists_build(&r, opts, &L);
	if (rc == 0 && opts->per_type)
		rc = report_types_build(&r, opts, &L, &T);
	if (rc < 0)
		goto out;
	def = opts->has_default ? (enum pgsc_action)opts->def : PGSC_ACT_ERROR;
	switch (opts->format) {
	case PGSC_FMT_GUC:
		rc = report_guc(out, &r, &L,
				opts->guc_prefix ? opts->guc_prefix : "");
		if (rc == 0 && opts->per_type)
			report_types_guc(out, &T, opts->guc_prefix ?
					 opts->guc_prefix : "");
		break;
	case PGSC_FMT_JSON:
		rc = report_json(out, &r, &L, opts, opts->per_type ? &T : NULL);
		break;
	case PGSC_FMT_TABLE:
		rc = opts->per_type ? report_types_table(out, &r, &T)
				    : report_table(out, &r);
		break;
	case PGSC_FMT_SYSTEMD:
		rc = report_systemd(out, &r, &L, def, cause);
		break;
	case PGSC_FMT_OCI:
		rc = report_oci(out, &r, &L, def, !opts->unknown_default,
				cause);
		break;
	case PGSC_FMT_EFFECTIVE:
		rc = report_effective(out, &r, &L, def, cause);
		break;
	case PGSC_FMT_HTML:
		rc = report_html(out, &r, &L, opts->sort, cause);
		break;
	default:
		util_cause(cause, "unknown format %d", (int)opts->format);
		rc = -EINVAL;
		break;
	}
	if (rc == 0 && (fflush(out) != 0 || ferror(out))) {
		rc = errno ? -errno : -EIO;
		util_cause(cause, "writing the report: %s", strerror(-rc));
	}
	if (rc == 0)
		lists_warn(&L, opts->diag != NULL ? opts->diag : stderr);
	else if (rc == -ENOMEM)
		util_cause(cause, "out of memory");
	if (rc == 0 && (!report_usable(&r, cause) ||
			(opts->per_type && !report_usable_types(&r, &T, cause))))
		rc = 1;
out:
	report_types_free(&T);
	lists_free(&L);
	report_free(&r);
	return rc;
}

/*
 * The global and session lists of a store's rounds, into @global and
 * @session (pgsc-diff): the lists pgsc-report prints, by the same code,
 * with no format in between.
 */
int
report_lists(pgsc_store *st, int64_t from, int64_t to,
	     const char *session_roles, const char *node,
	     struct strset *global, struct strset *session, char **cause)
{
	struct rep r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.st = st;
	r.cause = cause;
	r.node = node;
	rc = roles_session_parse(session_roles, &r.session, cause);
	if (rc == 0)
		rc = report_roles_known(st, &r.session, cause);
	if (rc == 0)
		rc = report_round_range(&r, from, to);
	if (rc == 0)
		rc = report_load(&r);
	if (rc == 0 && !report_usable(&r, cause))
		rc = -ENODATA;
	if (rc == 0)
		rc = list_names(&r, 0, global);
	if (rc == 0)
		rc = report_needs_add(global, NULL, 0);
	if (rc == 0)
		rc = list_names(&r, 1, session);
	if (rc == -ENOMEM)
		util_cause(cause, "out of memory");
	report_free(&r);
	return rc;
}
