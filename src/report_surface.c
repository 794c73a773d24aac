/* SPDX-License-Identifier: PostgreSQL */
/* report_surface.c - the attack-surface score in the report (issue 28,
 * part 4): for the global, the session and each per-type list, the
 * allowed names and the CVEs of the map (src/cves.def) they reach, beside
 * Docker's default profile and systemd's @system-service
 * (src/baselines.def); the JSON "surface" member, the table of --surface
 * and the rows of the HTML page. */
/*
 * Before argument rules, a CVE is reachable when the list allows any call
 * of its entry.  With pgsc-report --args and values in the rounds, the
 * global and session lists carry rules (report_args.c), and each row also
 * says how many stay reachable after them and which the rules close
 * (surface_args.c: only what a rule provably excludes).  The per-type
 * lists are printed without rules, so their "after" is their "before".
 * The baselines' "after" is under their own rules (surface_baseline.c):
 * Docker's "args"; @system-service has none, so its "after" is its
 * "before".  Without --args every output is what it was.  Type names and the
 * baselines' sources are escaped like every other text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"

void
report_surface_rows_free(struct surface_rows *s)
{
	for (size_t i = 0; i < s->n; i++)
		strset_free(&s->v[i].closed);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int
row_add(struct surface_rows *s, const struct surface_row *row)
{
	struct surface_row *v;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;

		v = realloc(s->v, cap * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = *row;
	return 0;
}

/* What the score's callback reads: list @l's rules of @A. */
struct rules_of {
	const struct rargs *A;
	int l;
};

static int
rule_cb(void *arg, const char *name, struct surface_rule *r)
{
	const struct rules_of *ro = arg;

	return report_args_rule(ro->A, ro->l, name, r);
}

/* A row for @names; @l the list whose rules apply (0 global, 1 session,
 * -1 none: a type's list or a baseline). */
static int
row_of(struct surface_rows *s, const struct rep_out *w, int l,
       enum surface_kind kind, const char *id, const char *title,
       const char *source, const struct strset *names)
{
	struct surface_row row = {
		.kind = kind, .id = id, .title = title, .source = source,
		.names = names->n, .reachable = surface_reachable(names),
	};
	struct rules_of ro = { w->A, l };
	int rc;

	if (w->A != NULL) {
		const struct surface_barg *b;
		size_t nb = surface_bargs(&b);

		row.rules = 1;
		row.after = row.reachable;
		if (kind == SURFACE_BASELINE)
			rc = surface_barg_reachable(b, nb, id, names,
						    &row.after, &row.closed);
		else if (l >= 0)
			rc = surface_reachable_rules(names, rule_cb, &ro,
						     &row.after, &row.closed);
		else
			rc = 0;
		if (rc < 0) {
			strset_free(&row.closed);
			return rc;
		}
	}
	if ((rc = row_add(s, &row)) < 0)
		strset_free(&row.closed);
	return rc;
}

int
report_surface_rows(const struct rep_out *w, struct surface_rows *s)
{
	const struct surface_baseline *b;
	size_t nb = surface_baselines(&b);
	int rc;

	memset(s, 0, sizeof(*s));
	rc = row_of(s, w, 0, SURFACE_LIST, "global", "global", NULL,
		    &w->L->l[0]);
	if (rc == 0)
		rc = row_of(s, w, 1, SURFACE_LIST, "session", "session", NULL,
			    &w->L->l[1]);
	for (size_t i = 0; rc == 0 && w->T != NULL && i < w->T->n; i++)
		rc = row_of(s, w, -1, SURFACE_TYPE, w->T->v[i].type,
			    w->T->v[i].type, NULL, &w->T->v[i].calls);
	for (size_t i = 0; rc == 0 && i < nb; i++) {
		struct strset names = { 0 };

		rc = surface_baseline_names(b[i].id, &names);
		if (rc == 0)
			rc = row_of(s, w, -1, SURFACE_BASELINE, b[i].id,
				    b[i].title, b[i].source, &names);
		strset_free(&names);
	}
	if (rc < 0)
		report_surface_rows_free(s);
	return rc;
}

/* One row's figures as a JSON object. */
static void
json_row(FILE *out, const struct surface_row *row)
{
	if (row->kind == SURFACE_BASELINE) {
		fputs("{\"title\": ", out);
		report_json_str(out, row->title);
		fputs(", \"source\": ", out);
		report_json_str(out, row->source);
		fputs(", ", out);
	} else {
		fputc('{', out);
	}
	fprintf(out, "\"names\": %zu, \"reachable\": %zu", row->names,
		row->reachable);
	if (row->rules)
		fprintf(out, ", \"reachable_after\": %zu", row->after);
	if (row->rules && row->kind != SURFACE_TYPE) {
		fputs(", \"closed\": ", out);
		report_json_list(out, &row->closed);
	}
	fputc('}', out);
}

/* The rows of @kind as the members of a JSON object, after @open. */
static void
json_rows(FILE *out, const struct surface_rows *s, enum surface_kind kind,
	  const char *open, const char *sep)
{
	int first = 1;

	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i].kind != kind)
			continue;
		fputs(first ? open : sep, out);
		first = 0;
		report_json_str(out, s->v[i].id);
		fputs(": ", out);
		json_row(out, &s->v[i]);
	}
	if (!first && kind != SURFACE_LIST)
		fputc('}', out);
}

/* The "surface" member of the JSON report: the map's size, the lists',
 * the types' (--per-type) and the baselines' figures. */
int
report_surface_json(const struct rep_out *w)
{
	FILE *out = w->out;
	struct surface_rows s;
	int rc = report_surface_rows(w, &s);

	if (rc < 0)
		return rc;
	fprintf(out, ",\n  \"surface\": {\"cve_map\": {\"cves\": %zu, "
		"\"source\": \"src/cves.def\"}, \"argument_rules\": %s",
		surface_cves(NULL), w->A != NULL ? "true" : "false");
	json_rows(out, &s, SURFACE_LIST, ",\n    ", ",\n    ");
	json_rows(out, &s, SURFACE_TYPE, ",\n    \"types\": {", ", ");
	json_rows(out, &s, SURFACE_BASELINE, ",\n    \"baselines\": {",
		  ",\n      ");
	fputc('}', out);
	report_surface_rows_free(&s);
	return 0;
}

/* --surface in the table format: a row per list, then the baselines and
 * their sources. */
int
report_surface_table(const struct rep_out *w)
{
	FILE *out = w->out;
	struct surface_rows s;
	int rc = report_surface_rows(w, &s);

	if (rc < 0)
		return rc;
	report_header_line(out, w->r);
	if (w->o->no_programs)
		report_programs_comment(out, w->r);
	fprintf(out, "# --surface: the kernel CVEs of pgsc's CVE map "
		"(src/cves.def, %zu CVEs) each list reaches; a CVE is "
		"reachable when the list allows any of its syscalls\n",
		surface_cves(NULL));
	if (w->A == NULL)
		fputs("# before argument rules: pgsc has none yet, an allowed "
		      "name is allowed with every argument "
		      "(docs/hardening.md)\n", out);
	else
		fputs("# after: the CVEs still reachable under the argument "
		      "rules of --args, closed only where a rule excludes the "
		      "argument the CVE needs (src/cve_conds.def); the per-type "
		      "lists carry no rules here, the baselines their own "
		      "(Docker's args; @system-service has none)\n", out);
	if (w->A == NULL)
		fprintf(out, "%6s %10s  %s\n", "names", "reachable", "list");
	else
		fprintf(out, "%6s %10s %6s  %s\n", "names", "reachable",
			"after", "list");
	for (size_t i = 0; i < s.n; i++) {
		const struct surface_row *row = &s.v[i];

		if (w->A == NULL)
			fprintf(out, "%6zu %10zu  ", row->names,
				row->reachable);
		else if (row->rules)
			fprintf(out, "%6zu %10zu %6zu  ", row->names,
				row->reachable, row->after);
		else
			fprintf(out, "%6zu %10zu %6s  ", row->names,
				row->reachable, "-");
		if (row->kind == SURFACE_TYPE) {
			fputs("type ", out);
			pgsc_text_escape(out, row->title);
		} else {
			fputs(row->title, out);
		}
		fputc('\n', out);
	}
	for (size_t i = 0; w->A != NULL && i < s.n; i++)
		if (s.v[i].kind != SURFACE_TYPE && s.v[i].closed.n > 0) {
			fprintf(out, s.v[i].kind == SURFACE_LIST ?
				"# closed by the %s list's rules: " :
				"# closed by %s's own rules: ", s.v[i].title);
			report_print_joined(out, &s.v[i].closed, ",");
			fputc('\n', out);
		}
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].kind == SURFACE_BASELINE)
			fprintf(out, "# %s: %s\n", s.v[i].title,
				s.v[i].source);
	report_surface_rows_free(&s);
	return 0;
}
