/* SPDX-License-Identifier: PostgreSQL */
/* report_surface.c - the attack-surface score in the report (issue 28,
 * part 4): for the global, the session and each per-type list, the
 * allowed names and the CVEs of the map (src/cves.def) they reach, beside
 * Docker's default profile and systemd's @system-service
 * (src/baselines.def); the JSON "surface" member, the table of --surface
 * and the rows of the HTML page. */
/*
 * The counts are "before argument rules": pgsc has no argument rules yet
 * (issue 28 part 2), so a name it allows is allowed with every argument
 * and no entry's argument condition can make a CVE unreachable.  An
 * "after" column would only repeat the same numbers, so none is printed
 * (docs/hardening.md, "Attack surface").  Type names and the baselines'
 * sources are escaped like every other text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"

void
report_surface_rows_free(struct surface_rows *s)
{
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

static int
row_of(struct surface_rows *s, enum surface_kind kind, const char *id,
       const char *title, const char *source, const struct strset *names)
{
	struct surface_row row = {
		.kind = kind, .id = id, .title = title, .source = source,
		.names = names->n, .reachable = surface_reachable(names),
	};

	return row_add(s, &row);
}

int
report_surface_rows(const struct rep_out *w, struct surface_rows *s)
{
	const struct surface_baseline *b;
	size_t nb = surface_baselines(&b);
	int rc;

	memset(s, 0, sizeof(*s));
	rc = row_of(s, SURFACE_LIST, "global", "global", NULL, &w->L->l[0]);
	if (rc == 0)
		rc = row_of(s, SURFACE_LIST, "session", "session", NULL,
			    &w->L->l[1]);
	for (size_t i = 0; rc == 0 && w->T != NULL && i < w->T->n; i++)
		rc = row_of(s, SURFACE_TYPE, w->T->v[i].type, w->T->v[i].type,
			    NULL, &w->T->v[i].calls);
	for (size_t i = 0; rc == 0 && i < nb; i++) {
		struct strset names = { 0 };

		rc = surface_baseline_names(b[i].id, &names);
		if (rc == 0)
			rc = row_of(s, SURFACE_BASELINE, b[i].id, b[i].title,
				    b[i].source, &names);
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
	fprintf(out, "\"names\": %zu, \"reachable\": %zu}", row->names,
		row->reachable);
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
		"\"source\": \"src/cves.def\"}, \"argument_rules\": false",
		surface_cves(NULL));
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
	fputs("# before argument rules: pgsc has none yet, an allowed name "
	      "is allowed with every argument (docs/hardening.md)\n", out);
	fprintf(out, "%6s %10s  %s\n", "names", "reachable", "list");
	for (size_t i = 0; i < s.n; i++) {
		const struct surface_row *row = &s.v[i];

		fprintf(out, "%6zu %10zu  ", row->names, row->reachable);
		if (row->kind == SURFACE_TYPE) {
			fputs("type ", out);
			pgsc_text_escape(out, row->title);
		} else {
			fputs(row->title, out);
		}
		fputc('\n', out);
	}
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].kind == SURFACE_BASELINE)
			fprintf(out, "# %s: %s\n", s.v[i].title,
				s.v[i].source);
	report_surface_rows_free(&s);
	return 0;
}
