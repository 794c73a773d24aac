/* SPDX-License-Identifier: PostgreSQL */
/* report_json.c - the JSON format: the lists with their provenance (the
 * rounds, the records, the loss, the rejects, per syscall its roles and
 * first example), what --arch/--portable mapped, and a fleet's nodes. */
/*
 * Every text that came from a record (exe, role, node, reject reason)
 * goes through report_json_str(), escaped.
 */
#include <errno.h>
#include <string.h>

#include "report-int.h"
#include "store.h"

/* The format version of the report document, its first member
 * "pgsc_report" (schemas/pgsc-report.schema.json; docs/man/pgsc-report.1,
 * "JSON documents"): raised when a member is removed, renamed or retyped
 * or changes its meaning, not for a new optional member. */
#define REPORT_JSON_VERSION 1

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

/* json_nodes()'s walk. */
struct json_walk {
	FILE *out;
	const struct pgsc_report_opts *o;
	size_t i;
};

/* One node of the "nodes" object: its records and lists, built as
 * --node NAME builds them. */
static int
json_node(struct rep *n, void *arg)
{
	struct json_walk *w = arg;
	struct lists L;
	int rc = 0;

	memset(&L, 0, sizeof(L));
	if (w->o->no_programs)
		rc = report_programs_apply(n);
	if (rc == 0)
		rc = report_lists_build(n, w->o, &L);
	if (rc == 0 && w->o->no_programs)
		report_programs_strip(&L);
	if (rc == 0) {
		fprintf(w->out, "%s\n    ", w->i++ ? "," : "");
		report_json_str(w->out, n->node);
		fputs(": {", w->out);
		json_tallies(w->out, n, ", ");
		fputs(", \"loss\": {", w->out);
		report_loss_write(w->out, n, 1);
		fprintf(w->out, ", \"complete\": %s}",
			report_missing(n) ? "false" : "true");
		fputs(", \"global\": ", w->out);
		report_json_list(w->out, &L.l[0]);
		fprintf(w->out, ", \"session\": ");
		report_json_list(w->out, &L.l[1]);
		fputc('}', w->out);
	}
	report_lists_free(&L);
	return rc;
}

/*
 * The "nodes" object of a fleet's JSON: each node's records and lists,
 * opened and built as --node NAME opens and builds them (the session
 * roles and the rounds of @r, taken as they are), all from one pass over
 * the store (report_each_node()).
 */
static int
json_nodes(FILE *out, const struct rep *r, const struct pgsc_report_opts *o)
{
	struct json_walk w = { .out = out, .o = o };
	int rc;

	fprintf(out, ",\n  \"nodes\": {");
	rc = report_each_node(r, json_node, &w);
	fprintf(out, "\n  }");
	return rc;
}

/* The JSON object of @w's report. */
int
report_json(const struct rep_out *w)
{
	FILE *out = w->out;
	struct rep *r = w->r;
	const struct lists *L = w->L;
	const struct types *T = w->T;
	const struct pgsc_report_opts *o = w->o;
	struct strset arches = { 0 };
	struct json_rejects jr;
	int first;

	report_arch_list(r, &arches);
	fprintf(out, "{\n  \"pgsc_report\": %d,\n  \"pgsc_version\": \"%s\",\n",
		REPORT_JSON_VERSION, PGSC_VERSION);
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
	if (w->A != NULL) {
		fprintf(out, ",\n  \"args\": {\"global\": ");
		report_args_json(out, w->A, 0, &L->l[0]);
		fprintf(out, ", \"session\": ");
		report_args_json(out, w->A, 1, &L->l[1]);
		fputc('}', out);
	}
	report_needs_json(out, L);
	report_known_max_json(out, r, L);
	report_iouring_json(out, r);
	if (T != NULL) {
		fprintf(out, ",\n  \"types\": ");
		report_types_json(out, T);
	}
	if (o->no_programs)
		report_programs_json(out, r);
	if (o->explain) {
		int rc = report_explain_json(w);

		if (rc < 0) {
			strset_free(&arches);
			return rc;
		}
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
	if (report_surface_json(w) < 0) {
		strset_free(&arches);
		return -ENOMEM;
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
