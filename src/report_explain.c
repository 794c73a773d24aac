/* SPDX-License-Identifier: PostgreSQL */
/* report_explain.c - pgsc-report --explain: one justification per name of
 * the lists (roles and their records, first round and its label, an
 * example process, systemd groups, sensitive, CVEs of src/cves.def),
 * table, JSON and a section of the HTML page. */
/*
 * What a reviewer reads before approving a list (issue 28, part 5).  The
 * names are the global list's (the session and per-type lists are within
 * it), merged over arches as the GUCs take names; security-relevant ones
 * (src/sensitive.def) come first.  The systemd groups are systemd's own,
 * generated into src/systemd_groups.def by tools/pgsc-systemd-groups.
 * Every text that came from a record (role, label, comm, title, exe) is
 * escaped: pgsc_text_escape() in the table, JSON escaping in JSON,
 * report_html_text() (terminal escapes, then HTML) in the page.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "report_html.h"
#include "roles.h"
#include "store.h"

/* systemd's groups, @known left out (systemd_groups.def). */
static const struct {
	const char *group, *name;
} sd_groups[] = {
#define SYSTEMD_VERSION(v)
#define SYSTEMD_GROUP(group, name) { group, name },
#define SYSTEMD_INCLUDE(group, other)
#include "systemd_groups.def"
#undef SYSTEMD_INCLUDE
#undef SYSTEMD_GROUP
#undef SYSTEMD_VERSION
};

/* The systemd that printed them. */
static const char sd_version[] = {
#define SYSTEMD_VERSION(v) v
#define SYSTEMD_GROUP(group, name)
#define SYSTEMD_INCLUDE(group, other)
#include "systemd_groups.def"
#undef SYSTEMD_INCLUDE
#undef SYSTEMD_GROUP
#undef SYSTEMD_VERSION
};

/* Why one name is in the lists. */
struct why {
	const char *name;       /* the global list's copy */
	int session;            /* in the session list */
	const char *sensitive;  /* sensitive.def's group, or NULL */
	const char *added;      /* in without records: why; else NULL */
	struct rolecount *rc;   /* the server roles that made it, merged */
	size_t nrc;
	int64_t first_round;    /* INT64_MAX: no record */
	int by_program;         /* the example is a descendant's */
	int64_t pid;
	char *label, *exe, *comm, *title;
};

struct explain {
	struct why *v;          /* by name until sorted for printing */
	size_t n;
	const struct rep_out *w;
};

static void
explain_free(struct explain *x)
{
	for (size_t i = 0; i < x->n; i++) {
		free(x->v[i].rc);
		free(x->v[i].label);
		free(x->v[i].exe);
		free(x->v[i].comm);
		free(x->v[i].title);
	}
	free(x->v);
	memset(x, 0, sizeof(*x));
}

static int
why_name_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct why *)elem)->name);
}

static struct why *
why_find(const struct explain *x, const char *name)
{
	return bsearch(name, x->v, x->n, sizeof(x->v[0]), why_name_cmp);
}

/* Sensitive names first, then by name. */
static int
why_cmp(const void *a, const void *b)
{
	const struct why *x = a, *y = b;

	if ((x->sensitive != NULL) != (y->sensitive != NULL))
		return x->sensitive != NULL ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int
rolecount_cmp(const void *a, const void *b)
{
	return roles_cmp(&((const struct rolecount *)a)->role,
			 &((const struct rolecount *)b)->role);
}

/* @e's server roles into @y, summed per role (roles are interned in
 * r->roles: one pointer per role). */
static int
why_roles(struct why *y, const struct entry *e)
{
	for (size_t k = 0; k < e->nrc; k++) {
		const struct rolecount *c = &e->rc[k];
		struct rolecount *n;
		size_t j;

		if (c->count == 0 || !pgsc_role_in_server(c->role))
			continue;
		for (j = 0; j < y->nrc && y->rc[j].role != c->role; j++)
			;
		if (j < y->nrc) {
			y->rc[j].count += c->count;
			continue;
		}
		n = realloc(y->rc, (y->nrc + 1) * sizeof(*n));
		if (n == NULL)
			return -ENOMEM;
		y->rc = n;
		y->rc[y->nrc++] = *c;
	}
	return 0;
}

static int
dup_opt(char **to, const char *s)
{
	free(*to);
	*to = NULL;
	if (s != NULL && (*to = strdup(s)) == NULL)
		return -ENOMEM;
	return 0;
}

/* One aggregate row (store_explain_rows()): the first round of a server
 * role, its label and example process, a server process's rather than a
 * program's below it when that round has both. */
static int
explain_row(void *arg, const struct store_explain_row *row)
{
	struct explain *x = arg;
	const char *name = pgsc_syscall_name(row->arch, row->nr);
	struct why *y;
	int rc;

	if (name == NULL || !pgsc_role_in_server(row->role))
		return 0;
	y = why_find(x, name);
	if (y == NULL || row->round > y->first_round ||
	    (row->round == y->first_round &&
	     (!y->by_program || roles_is_descendant(row->role))))
		return 0;
	y->first_round = row->round;
	y->by_program = roles_is_descendant(row->role);
	y->pid = row->example_pid;
	rc = dup_opt(&y->label, row->label);
	if (rc == 0)
		rc = dup_opt(&y->exe, row->example_exe);
	if (rc == 0)
		rc = dup_opt(&y->comm, row->comm);
	if (rc == 0)
		rc = dup_opt(&y->title, row->title);
	return rc;
}

/* The justifications of @w's lists, in printing order. */
static int
explain_build(const struct rep_out *w, struct explain *x)
{
	const struct rep *r = w->r;
	const struct strset *g = &w->L->l[0];
	int rc = 0;

	memset(x, 0, sizeof(*x));
	x->w = w;
	x->v = calloc(g->n ? g->n : 1, sizeof(*x->v));
	if (x->v == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < g->n; i++) {
		struct why *y = &x->v[x->n++];

		y->name = g->v[i];
		y->session = strset_has(&w->L->l[1], y->name);
		y->sensitive = report_types_sensitive_group(y->name);
		y->first_round = INT64_MAX;
		if (strset_has(&w->L->needs, y->name))
			y->added = "the pgsc module's own calls, which every "
				   "backend makes to load its session filter "
				   "(docs/module.md)";
	}
	for (size_t i = 0; i < r->n && rc == 0; i++) {
		struct why *y;

		if (r->e[i].name == NULL || !r->e[i].global)
			continue;
		y = why_find(x, r->e[i].name);
		if (y != NULL)
			rc = why_roles(y, &r->e[i]);
	}
	if (rc == 0)
		rc = store_explain_rows(r->st, r->from, r->to, r->node,
					explain_row, x, r->cause);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < x->n; i++)
		if (x->v[i].nrc > 1)
			qsort(x->v[i].rc, x->v[i].nrc, sizeof(x->v[i].rc[0]),
			      rolecount_cmp);
	if (x->n > 1)
		qsort(x->v, x->n, sizeof(x->v[0]), why_cmp);
	return 0;
}

/*
 * The CVEs @name reaches, into @out: those of the CVE map (src/cves.def,
 * src/surface.c) whose entry names it.  Names only: what argument rules
 * close is the surface score's (--surface, surface_args.c), not a name's.
 */
static int
explain_cves(const char *name, struct strset *out)
{
	return surface_cves_of(name, out);
}

/* The types whose list (--per-type) holds @name, NULL-safe @T. */
static void
types_of(FILE *out, const struct types *T, const char *name, int json)
{
	int first = 1;

	for (size_t i = 0; T != NULL && i < T->n; i++) {
		if (!strset_has(&T->v[i].calls, name))
			continue;
		fputs(first ? "" : ", ", out);
		if (json)
			report_json_str(out, T->v[i].type);
		else
			pgsc_text_escape(out, T->v[i].type);
		first = 0;
	}
	if (first && !json)
		fputc('-', out);
}

/* A quoted, escaped text of a record, or "-". */
static void
text_opt(FILE *out, const char *s)
{
	if (s == NULL) {
		fputc('-', out);
		return;
	}
	fputc('"', out);
	pgsc_text_escape(out, s);
	fputc('"', out);
}

static void
json_opt(FILE *out, const char *s)
{
	if (s == NULL)
		fputs("null", out);
	else
		report_json_str(out, s);
}

/* One name's lines of the table. */
static int
table_why(FILE *out, const struct explain *x, const struct why *y)
{
	struct strset cves = { 0 };
	int first = 1;
	int rc;

	fprintf(out, "%-24s %s  sensitive: %s\n", y->name,
		y->session ? "G S" : "G -", y->sensitive ? y->sensitive : "-");
	fputs("    roles:", out);
	for (size_t k = 0; k < y->nrc; k++) {
		fputs(k ? ", " : " ", out);
		pgsc_text_escape(out, y->rc[k].role);
		fprintf(out, " %llu", (unsigned long long)y->rc[k].count);
	}
	if (y->nrc == 0)
		fputs(" -", out);
	if (y->added != NULL)
		fprintf(out, " (added: %s)", y->added);
	fputc('\n', out);
	if (y->first_round != INT64_MAX) {
		fprintf(out, "    first: round %lld, label ",
			(long long)y->first_round);
		text_opt(out, y->label);
		fprintf(out, "\n    example: pid %lld, comm ",
			(long long)y->pid);
		text_opt(out, y->comm);
		fputs(", title ", out);
		text_opt(out, y->title);
		fputs(", exe ", out);
		text_opt(out, y->exe);
		fputc('\n', out);
	}
	if (x->w->T != NULL) {
		fputs("    types: ", out);
		types_of(out, x->w->T, y->name, 0);
		fputc('\n', out);
	}
	fputs("    systemd:", out);
	for (size_t i = 0; i < ARRAY_SIZE(sd_groups); i++)
		if (strcmp(sd_groups[i].name, y->name) == 0) {
			fprintf(out, " %s", sd_groups[i].group);
			first = 0;
		}
	fputs(first ? " -\n    cves:" : "\n    cves:", out);
	rc = explain_cves(y->name, &cves);
	for (size_t i = 0; rc == 0 && i < cves.n; i++)
		fprintf(out, " %s", cves.v[i]);
	fputs(cves.n ? "\n" : " -\n", out);
	strset_free(&cves);
	return rc;
}

/* --explain in the table format: a block per name. */
int
report_explain_table(const struct rep_out *w)
{
	struct explain x;
	int rc = explain_build(w, &x);

	if (rc == 0) {
		FILE *out = w->out;

		report_header_line(out, w->r);
		if (w->o->no_programs)
			report_programs_comment(out, w->r);
		fprintf(out, "# --explain: why each name is in the lists, the "
			"security-relevant ones (src/sensitive.def) first; "
			"G S: in the global, the session list%s\n",
			w->T != NULL ? "; types: the per-type lists" : "");
		fprintf(out, "# roles: the server's roles that made it, with "
			"their records; first: its first round; systemd: the "
			"groups of %s that list it; cves: the CVEs of the CVE "
			"map (src/cves.def, %zu CVEs) whose syscalls it is "
			"among\n", sd_version, surface_cves(NULL));
		for (size_t i = 0; i < x.n && rc == 0; i++)
			rc = table_why(out, &x, &x.v[i]);
	}
	explain_free(&x);
	return rc;
}

/* One name's member of the JSON "explain" object. */
static int
json_why(FILE *out, const struct explain *x, const struct why *y)
{
	struct strset cves = { 0 };
	int first = 1;
	int rc;

	report_json_str(out, y->name);
	fprintf(out, ": {\"lists\": [\"global\"%s]",
		y->session ? ", \"session\"" : "");
	if (x->w->T != NULL) {
		fputs(", \"types\": [", out);
		types_of(out, x->w->T, y->name, 1);
		fputc(']', out);
	}
	fputs(", \"sensitive\": ", out);
	json_opt(out, y->sensitive);
	fputs(", \"roles\": {", out);
	for (size_t k = 0; k < y->nrc; k++) {
		fputs(k ? ", " : "", out);
		report_json_str(out, y->rc[k].role);
		fprintf(out, ": %llu", (unsigned long long)y->rc[k].count);
	}
	fputs("}, \"added\": ", out);
	json_opt(out, y->added);
	if (y->first_round != INT64_MAX) {
		fprintf(out, ", \"first_round\": %lld, \"label\": ",
			(long long)y->first_round);
		json_opt(out, y->label);
		fprintf(out, ", \"example\": {\"pid\": %lld, \"comm\": ",
			(long long)y->pid);
		json_opt(out, y->comm);
		fputs(", \"title\": ", out);
		json_opt(out, y->title);
		fputs(", \"exe\": ", out);
		json_opt(out, y->exe);
		fputc('}', out);
	} else {
		fputs(", \"first_round\": null, \"label\": null, "
		      "\"example\": null", out);
	}
	fputs(", \"systemd_groups\": [", out);
	for (size_t i = 0; i < ARRAY_SIZE(sd_groups); i++)
		if (strcmp(sd_groups[i].name, y->name) == 0) {
			fputs(first ? "" : ", ", out);
			report_json_str(out, sd_groups[i].group);
			first = 0;
		}
	fputs("], \"cves\": ", out);
	rc = explain_cves(y->name, &cves);
	report_json_list(out, &cves);
	fputc('}', out);
	strset_free(&cves);
	return rc;
}

/* --explain in the JSON format: the "explain" member, a member per
 * name in the table's order. */
int
report_explain_json(const struct rep_out *w)
{
	struct explain x;
	int rc = explain_build(w, &x);

	if (rc == 0) {
		FILE *out = w->out;

		fputs(",\n  \"explain\": {", out);
		for (size_t i = 0; i < x.n && rc == 0; i++) {
			fputs(i ? ",\n    " : "\n    ", out);
			rc = json_why(out, &x, &x.v[i]);
		}
		fputs("\n  }", out);
	}
	explain_free(&x);
	return rc;
}

/* A quoted text of a record for the page, or "-". */
static void
html_opt(FILE *out, const char *s)
{
	if (s == NULL) {
		fputc('-', out);
		return;
	}
	fputs("&quot;", out);
	report_html_text(out, s);
	fputs("&quot;", out);
}

/* One name's row of the page's table. */
static int
html_why(FILE *out, const struct why *y)
{
	struct strset cves = { 0 };
	int first = 1;
	int rc;

	fputs("<tr class=\"why\"><td class=\"x\">", out);
	report_html_text(out, y->name);
	fprintf(out, "</td><td>%s</td><td class=\"x\">%s</td>"
		"<td class=\"x\">", y->session ? "G S" : "G -",
		y->sensitive ? y->sensitive : "-");
	for (size_t k = 0; k < y->nrc; k++) {
		fputs(k ? ", " : "", out);
		report_html_text(out, y->rc[k].role);
		fprintf(out, " %llu", (unsigned long long)y->rc[k].count);
	}
	if (y->nrc == 0)
		fputc('-', out);
	if (y->added != NULL) {
		fputs(" (added: ", out);
		report_html_text(out, y->added);
		fputc(')', out);
	}
	fputs("</td><td class=\"x\">", out);
	if (y->first_round != INT64_MAX) {
		fprintf(out, "round %lld, label ", (long long)y->first_round);
		html_opt(out, y->label);
		fprintf(out, "</td><td class=\"x\">pid %lld, comm ",
			(long long)y->pid);
		html_opt(out, y->comm);
		fputs(", title ", out);
		html_opt(out, y->title);
		fputs(", exe ", out);
		html_opt(out, y->exe);
	} else {
		fputs("-</td><td class=\"x\">-", out);
	}
	fputs("</td><td class=\"x\">", out);
	for (size_t i = 0; i < ARRAY_SIZE(sd_groups); i++)
		if (strcmp(sd_groups[i].name, y->name) == 0) {
			fputs(first ? "" : " ", out);
			report_html_text(out, sd_groups[i].group);
			first = 0;
		}
	fputs(first ? "-</td><td class=\"x\">" : "</td><td class=\"x\">",
	      out);
	rc = explain_cves(y->name, &cves);
	for (size_t i = 0; rc == 0 && i < cves.n; i++) {
		fputs(i ? " " : "", out);
		report_html_text(out, cves.v[i]);
	}
	fputs(cves.n ? "</td></tr>\n" : "-</td></tr>\n", out);
	strset_free(&cves);
	return rc;
}

/* The page's section of --explain: the same justifications as the
 * table, a row per name of the global list, in the same order. */
int
report_explain_html(const struct rep_out *w, FILE *out)
{
	struct explain x;
	int rc = explain_build(w, &x);

	if (rc == 0) {
		fprintf(out, "<h2>Why each name is in the lists</h2>\n<p>What "
			"pgsc-report --explain says: the security-relevant "
			"names (src/sensitive.def) first; G S: in the global, "
			"the session list; roles: the server's roles that made "
			"it, with their records; first: its first round and "
			"label; example: a process that made it; systemd: the "
			"groups of %s that list it; CVEs: those of the CVE map "
			"(src/cves.def, %zu CVEs) whose syscalls it is among."
			"</p>\n<table>\n<tr><th class=\"n\">name</th><th>"
			"lists</th><th class=\"n\">sensitive</th><th class="
			"\"n\">roles</th><th class=\"n\">first</th><th class="
			"\"n\">example</th><th class=\"n\">systemd</th><th "
			"class=\"n\">CVEs</th></tr>\n", sd_version,
			surface_cves(NULL));
		for (size_t i = 0; i < x.n && rc == 0; i++)
			rc = html_why(out, &x.v[i]);
		fputs("</table>\n", out);
	}
	explain_free(&x);
	return rc;
}
