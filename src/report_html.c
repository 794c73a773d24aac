/* SPDX-License-Identifier: PostgreSQL */
/* report_html.c - pgsc-report --format=html: one self-contained page. */
/*
 * The page loads nothing: no script, no external style, font or image; a
 * Content-Security-Policy of default-src 'none' makes the browser refuse
 * any fetch all the same.  The chart is inline SVG.  Every text that came
 * from the store (exe, role, label) is first escaped as for a terminal
 * (pgsc_text_escape: control bytes, quotes, invalid UTF-8 as \xNN), then
 * for HTML (& < > '), so a hostile comm or exe shows as text.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "report_html.h"

/* @s as HTML text (also safe inside a quoted attribute). */
static void
html_text(FILE *out, const char *s)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *m;

	if (s == NULL)
		return;
	m = open_memstream(&buf, &sz);
	if (m == NULL)
		return;
	pgsc_text_escape(m, s);
	if (fclose(m) != 0) {
		free(buf);
		return;
	}
	for (const char *p = buf; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*p, out); break;
		}
	}
	free(buf);
}

void
report_html_text(FILE *out, const char *s)
{
	html_text(out, s);
}

static const char style[] =
	"body{font-family:sans-serif;margin:1.5em;color:#222;background:#fff}"
	"h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.15em;"
	"margin-top:1.6em;border-bottom:2px solid #2a6ebb}"
	".warn{background:#fde2e1;border-left:6px solid #c0392b;padding:.6em;"
	"margin:1em 0}.ok{background:#e3f4e1;border-left:6px solid #2e8b3e;"
	"padding:.6em;margin:1em 0}.amber{background:#fff3cd;border-left:6px "
	"solid #d39e00;padding:.6em;margin:1em 0}"
	"table{border-collapse:collapse;font-size:.85em}"
	"td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
	"th{background:#eef3fa;position:sticky;top:0}"
	"td.n,th.n{text-align:left;font-family:monospace}"
	"td.x{text-align:left;font-family:monospace;max-width:28em;"
	"overflow-wrap:anywhere}"
	/* the matrix fits 1280 px: role names wrap, the example process
	 * opens on demand */
	"table.m{font-size:.75em}table.m td,table.m th{padding:1px 3px}"
	"th.r{white-space:normal;overflow-wrap:anywhere;max-width:6em;"
	"min-width:3em;font-family:sans-serif;vertical-align:bottom}"
	"td.x details{max-width:16em}td.x summary{cursor:pointer}"
	"tr.risk td.n:first-child{border-left:4px solid #c0392b}"
	"pre{background:#f6f6f6;padding:.6em;white-space:pre-wrap;"
	"overflow-wrap:anywhere;font-size:.8em}"
	".g{color:#fff;background:#2a6ebb}.s{color:#fff;background:#e67e22}"
	".k{display:inline-block;width:1em;height:1em;vertical-align:middle}";

static void
head(FILE *out, const struct html_page *p)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\""
	      "default-src 'none'; style-src 'unsafe-inline'\">\n"
	      "<title>pgsc report</title>\n<style>", out);
	fputs(style, out);
	fprintf(out, "</style>\n</head>\n<body>\n<h1>pgsc report: rounds "
		"%lld&ndash;%lld</h1>\n", (long long)p->from, (long long)p->to);
	fprintf(out, "<p>%llu SECCOMP records: %llu attributed to the server, "
		"%llu unrelated, %llu standalone, %llu unattributed, %llu "
		"foreign (no server's: docs/roles.md); arch ",
		(unsigned long long)p->t->records,
		(unsigned long long)p->t->attributed,
		(unsigned long long)p->t->unrelated,
		(unsigned long long)p->t->standalone,
		(unsigned long long)p->t->unattributed,
		(unsigned long long)p->t->foreign);
	for (size_t i = 0; i < p->narches; i++) {
		fputs(i ? ", " : "", out);
		html_text(out, p->arches[i]);
	}
	fprintf(out, "; %zu syscalls in the global list, %zu in the session "
		"list.</p>\n", p->nglobal, p->nsession);
	if (p->node != NULL) {
		fputs("<p>Node <b>", out);
		html_text(out, p->node[0] ? p->node : "(local host)");
		fputs("</b> (--node): its lists; the loss figures are the "
		      "whole log's.</p>\n", out);
	}
	for (size_t i = 0; i < p->nnodes; i++) {
		fputs(i ? ", " : "<p>Nodes: ", out);
		html_text(out, p->nodes[i].name[0] ? p->nodes[i].name :
			  "(local host)");
		fprintf(out, ": %llu records%s",
			(unsigned long long)p->nodes[i].records,
			i + 1 == p->nnodes ? ".</p>\n" : "");
	}
	if (p->warning != NULL) {
		fputs("<div class=\"warn\"><b>These lists are not usable.</b> ",
		      out);
		html_text(out, p->warning);
		fputs("</div>\n", out);
	}
	if (p->iouring != NULL) {
		fputs("<div class=\"amber\"><b>io_uring:</b> ", out);
		html_text(out, p->iouring);
		fputs("</div>\n", out);
	}
}

/*
 * The loss section's box tells the same story as the head: green only
 * when nothing was lost and every record was placed; amber with the
 * counts when records may be missing or were not placed; red when the
 * lists are not usable (report_usable()).
 */
static void
loss(FILE *out, const struct html_page *p)
{
	int missing = p->t->lost || p->t->serial_gaps ||
		      p->t->rotation_gaps || p->t->drain_timeouts;

	fputs("<h2>Loss</h2>\n<table>\n<tr><th class=\"n\">figure</th>"
	      "<th>count</th></tr>\n", out);
	fprintf(out, "<tr><td class=\"n\">kernel lost</td><td>%llu</td></tr>\n"
		"<tr><td class=\"n\">serial gaps</td><td>%llu</td></tr>\n"
		"<tr><td class=\"n\">rotation gaps</td><td>%llu</td></tr>\n"
		"<tr><td class=\"n\">drain timeouts</td><td>%llu</td></tr>\n"
		"<tr><td class=\"n\">rejected lines</td><td>%llu</td></tr>\n"
		"<tr><td class=\"n\">unattributed records</td><td>%llu</td>"
		"</tr>\n<tr><td class=\"n\">foreign records</td><td>%llu</td>"
		"</tr>\n</table>\n",
		(unsigned long long)p->t->lost,
		(unsigned long long)p->t->serial_gaps,
		(unsigned long long)p->t->rotation_gaps,
		(unsigned long long)p->t->drain_timeouts,
		(unsigned long long)p->t->rejected,
		(unsigned long long)p->t->unattributed,
		(unsigned long long)p->t->foreign);
	if (p->warning != NULL) {
		fputs("<div class=\"warn\">The lists are not usable (see "
		      "above): nothing here is a success.</div>\n", out);
	} else if (missing || p->t->unattributed > 0 || p->t->rejected > 0) {
		fputs("<div class=\"amber\">", out);
		if (missing)
			fprintf(out, "Records may be missing: %llu lost "
				"records, gaps and drain timeouts (the table "
				"above; pgsc-report --check-complete). ",
				(unsigned long long)(p->t->lost +
				p->t->serial_gaps + p->t->rotation_gaps +
				p->t->drain_timeouts));
		if (p->t->unattributed > 0)
			fprintf(out, "%llu of the %llu records could not be "
				"attributed to a server: the lists may lack "
				"their calls. ",
				(unsigned long long)p->t->unattributed,
				(unsigned long long)p->t->records);
		if (p->t->rejected > 0)
			fprintf(out, "%llu input lines were rejected.",
				(unsigned long long)p->t->rejected);
		fputs("</div>\n", out);
	} else {
		fprintf(out, "<div class=\"ok\">Nothing was lost: every "
			"record of these rounds was read and placed%s.</div>\n",
			p->t->foreign ? " (the foreign records are no "
			"server's: docs/roles.md)" : "");
	}
}

/* Grouped bars per round: syscalls new to the global list and to the
 * session list. */
static void
chart(FILE *out, const struct html_page *p)
{
	const int W = 760, H = 260, L = 48, B = 36, T = 16, R = 150;
	int64_t max = 1, tick;
	double slot, bw;
	int step, ticks;

	fputs("<h2>Convergence: syscalls new in each round</h2>\n", out);
	if (p->nrounds == 0) {
		fputs("<p>No rounds.</p>\n", out);
		return;
	}
	for (size_t i = 0; i < p->nrounds; i++) {
		if (p->rounds[i].nnew > max)
			max = p->rounds[i].nnew;
		if (p->rounds[i].nnew_sess > max)
			max = p->rounds[i].nnew_sess;
	}
	slot = (double)(W - L - R) / (double)p->nrounds;
	bw = slot * 0.38;
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
		"aria-label=\"new syscalls per round\">\n", W, H, W, H);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"#fafbfd\"/>\n", W, H);
	/* horizontal grid and the y axis: integer ticks, at most one per
	 * integer and at most five, the axis ending on the last one */
	tick = (max + 3) / 4;
	ticks = (int)((max + tick - 1) / tick);
	max = tick * ticks;
	for (int k = 0; k <= ticks; k++) {
		double y = T + (H - T - B) * (1.0 - (double)k / ticks);

		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#ddd\"/><text class=\"tick\" x=\"%d\" "
			"y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">"
			"%lld</text>\n", L, y, W - R, y, L - 6, y + 4,
			(long long)(tick * k));
	}
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"stroke=\"#444\"/>\n", L, H - B, W - R, H - B);
	step = p->nrounds > 30 ? (int)(p->nrounds / 15) : 1;
	for (size_t i = 0; i < p->nrounds; i++) {
		const struct html_round *r = &p->rounds[i];
		double x = L + slot * (double)i + slot * 0.1;
		double hg = (double)(H - T - B) * (double)r->nnew / (double)max;
		double hs = (double)(H - T - B) * (double)r->nnew_sess /
			    (double)max;

		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\" fill=\"#2a6ebb\"><title>round %lld: "
			"%lld new to the global list</title></rect>\n",
			x, H - B - hg, bw, hg, (long long)r->id,
			(long long)r->nnew);
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.1f\" fill=\"#e67e22\"><title>round %lld: "
			"%lld new to the session list</title></rect>\n",
			x + bw, H - B - hs, bw, hs, (long long)r->id,
			(long long)r->nnew_sess);
		if (i % (size_t)step == 0)
			fprintf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" "
				"text-anchor=\"middle\">%lld</text>\n",
				x + bw, H - B + 14, (long long)r->id);
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\" "
		"text-anchor=\"middle\">round</text>\n", (L + W - R) / 2, H - 6);
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" "
		"fill=\"#2a6ebb\"/><text x=\"%d\" y=\"%d\" font-size=\"12\">"
		"global list</text>\n", W - R + 12, T + 4, W - R + 32, T + 15);
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" "
		"fill=\"#e67e22\"/><text x=\"%d\" y=\"%d\" font-size=\"12\">"
		"session list</text>\n", W - R + 12, T + 26, W - R + 32, T + 37);
	fputs("</svg>\n", out);
	fprintf(out, "<p>The last round added %lld to the global list and %lld "
		"to the session list: %s.</p>\n",
		(long long)p->rounds[p->nrounds - 1].nnew,
		(long long)p->rounds[p->nrounds - 1].nnew_sess,
		p->rounds[p->nrounds - 1].nnew == 0 &&
		p->rounds[p->nrounds - 1].nnew_sess == 0 && p->warning == NULL
		? "converged" : "not converged");
}

/* A cell shade for @v of at most @max: white to blue, on a log scale. */
static void
shade(FILE *out, uint64_t v, uint64_t max)
{
	double f;
	int l;

	if (v == 0 || max == 0) {
		fputs("<td>", out);
		return;
	}
	f = log1p((double)v) / log1p((double)max);
	l = 95 - (int)(f * 50.0);
	fprintf(out, "<td style=\"background:hsl(212,60%%,%d%%)%s\">", l,
		l < 65 ? ";color:#fff" : "");
}

static const char *const sort_words[] = {
	[PGSC_SORT_RISK] = ("security-relevant calls (src/sensitive.def, "
			    "marked red) first, then the rarest first"),
	[PGSC_SORT_RARE] = "the rarest first",
	[PGSC_SORT_COUNT] = "the most frequent first",
	[PGSC_SORT_NAME] = "by name",
	[PGSC_SORT_NUMBER] = "by arch and syscall number",
};

static void
matrix_head(FILE *out, const struct html_page *p)
{
	int sort = p->sort >= 0 && p->sort <= PGSC_SORT_NUMBER ? p->sort : 0;

	fprintf(out, "<h2>Syscalls by role</h2>\n<p>G: in the global list, "
		"S: in the session list.  The first round, an example "
		"process (click its pid) and the arch are those of the "
		"server's records.  Counts are records per role.  Rows: %s "
		"(pgsc-report --sort risk|rare|count|name|number).</p>\n"
		"<table class=\"m\">\n<tr><th class=\"n\">syscall</th>"
		"<th class=\"n\">arch</th><th>G</th><th>S</th>"
		"<th>first round</th><th class=\"n\">example</th>"
		"<th>total</th>", sort_words[sort]);
	for (size_t c = 0; c < p->nroles; c++) {
		fputs("<th class=\"r\">", out);
		html_text(out, p->roles[c]);
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
}

static void
matrix(FILE *out, const struct html_page *p)
{
	uint64_t max = 0;

	matrix_head(out, p);
	for (size_t i = 0; i < p->nsc; i++)
		for (size_t c = 0; c < p->nroles; c++)
			if (p->sc[i].role_counts[c] > max)
				max = p->sc[i].role_counts[c];
	for (size_t i = 0; i < p->nsc; i++) {
		const struct html_syscall *s = &p->sc[i];

		fputs(s->sensitive ? "<tr class=\"risk\"><td class=\"n\">"
		      : "<tr><td class=\"n\">", out);
		html_text(out, s->name);
		fputs("</td><td class=\"n\">", out);
		html_text(out, s->arch);
		fprintf(out, "</td><td%s>%s</td><td%s>%s</td>",
			s->global ? " class=\"g\"" : "", s->global ? "G" : "-",
			s->session ? " class=\"s\"" : "", s->session ? "S" : "-");
		if (s->global) {
			fprintf(out, "<td>%lld</td><td class=\"x\"><details>"
				"<summary>%lld</summary>",
				(long long)s->first_round,
				(long long)s->example_pid);
			html_text(out, s->example_exe != NULL ? s->example_exe
				  : "?");
			fputs("</details></td>", out);
		} else {
			fputs("<td>-</td><td class=\"x\">-</td>", out);
		}
		fprintf(out, "<td>%llu</td>", (unsigned long long)s->all);
		for (size_t c = 0; c < p->nroles; c++) {
			shade(out, s->role_counts[c], max);
			if (s->role_counts[c] > 0)
				fprintf(out, "%llu",
					(unsigned long long)s->role_counts[c]);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

static int
sc_cmp(const void *a, const void *b, void *arg)
{
	const struct html_syscall *x = a, *y = b;
	int c = 0;

	switch (*(const int *)arg) {
	case PGSC_SORT_RISK:
	case PGSC_SORT_RARE:
		/* risk: the security-relevant first, then as rare */
		if (*(const int *)arg == PGSC_SORT_RISK)
			c = y->sensitive - x->sensitive;
		if (c == 0)
			c = (x->all > y->all) - (x->all < y->all);
		break;
	case PGSC_SORT_COUNT:
		c = (x->all < y->all) - (x->all > y->all);
		break;
	case PGSC_SORT_NUMBER:
		c = strcmp(x->arch ? x->arch : "", y->arch ? y->arch : "");
		if (c == 0)
			c = (x->nr > y->nr) - (x->nr < y->nr);
		break;
	default:
		break;
	}
	if (c == 0)
		c = strcmp(x->name, y->name);
	if (c == 0)
		c = strcmp(x->arch ? x->arch : "", y->arch ? y->arch : "");
	return c;
}

void
report_html_sort(struct html_syscall *sc, size_t n, int sort)
{
	if (n > 1)
		qsort_r(sc, n, sizeof(*sc), sc_cmp, &sort);
}

static void
lists(FILE *out, const struct html_page *p)
{
	fputs("<h2>The lines for postgresql.conf</h2>\n<pre>", out);
	for (int k = 0; k < 2; k++) {
		fprintf(out, "%s_syscall_allow = '", k ? "session" : "global");
		for (size_t i = 0; i < p->nlist[k]; i++) {
			fputs(i ? "," : "", out);
			html_text(out, p->list[k][i]);
		}
		fputs("'\n", out);
	}
	if (p->nneeds > 0) {
		fputs("# added to the global list, not seen in the records: ",
		      out);
		for (size_t i = 0; i < p->nneeds; i++) {
			fputs(i ? "," : "", out);
			html_text(out, p->needs[i]);
		}
		fputs(" (every backend makes these calls to load its session "
		      "filter: the pgsc module refuses to start without them)\n",
		      out);
	}
	fputs("</pre>\n", out);
}

/* The attack-surface score: the CVEs of the map each list reaches (with
 * --args, before and after argument rules, and the CVEs the rules close),
 * then the baselines with their sources (report_surface.c). */
static void
surface(FILE *out, const struct html_page *p)
{
	fprintf(out, "<h2>Attack surface</h2>\n<p>The kernel CVEs of pgsc's "
		"CVE map (src/cves.def, %zu CVEs) each list reaches: a CVE is "
		"reachable when the list allows any of its syscalls. ",
		p->ncves);
	if (!p->rules)
		fputs("Before argument rules: pgsc has none yet, so an allowed "
		      "name is allowed with every argument.</p>\n<table>\n"
		      "<tr><th class=\"n\">list</th><th>names</th><th>reachable"
		      " CVEs</th></tr>\n", out);
	else
		fputs("After argument rules (pgsc-report --args): a CVE stays "
		      "reachable unless a rule excludes the argument it needs "
		      "(src/cve_conds.def); the baselines under their own "
		      "rules (Docker's args; @system-service has none)."
		      "</p>\n<table>\n<tr><th class=\"n\">list</th><th>names"
		      "</th><th>reachable CVEs</th><th>after argument rules</th>"
		      "</tr>\n", out);
	for (size_t i = 0; i < p->nsurface; i++) {
		const struct html_surface *s = &p->surface[i];

		fputs("<tr><td class=\"x\">", out);
		html_text(out, s->label);
		fprintf(out, "</td><td>%zu</td><td>%zu</td>", s->names,
			s->reachable);
		if (p->rules && s->rules)
			fprintf(out, "<td>%zu</td>", s->after);
		else if (p->rules)
			fputs("<td>-</td>", out);
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
	for (size_t i = 0; i < p->nsurface; i++) {
		const struct html_surface *s = &p->surface[i];

		if (s->closed == NULL || s->closed->n == 0)
			continue;
		fputs(s->baseline ? "<p>Closed by " : "<p>Closed by the ", out);
		html_text(out, s->label);
		fputs(s->baseline ? "'s own argument rules:" :
		      " list's argument rules:", out);
		for (size_t k = 0; k < s->closed->n; k++) {
			fputs(k ? ", " : " ", out);
			html_text(out, s->closed->v[k]);
		}
		fputs("</p>\n", out);
	}
	for (size_t i = 0; i < p->nsurface; i++) {
		if (!p->surface[i].baseline)
			continue;
		fputs("<p><small>", out);
		html_text(out, p->surface[i].label);
		fputs(": ", out);
		html_text(out, p->surface[i].source);
		fputs("</small></p>\n", out);
	}
}

static void
rounds_table(FILE *out, const struct html_page *p)
{
	fputs("<h2>Rounds</h2>\n<table>\n<tr><th>round</th><th>records</th>"
	      "<th>new (global)</th><th>new (session)</th><th>loss</th>"
	      "<th class=\"n\">label</th></tr>\n", out);
	for (size_t i = 0; i < p->nrounds; i++) {
		const struct html_round *r = &p->rounds[i];

		fprintf(out, "<tr><td>%lld</td><td>%lld</td><td>%lld</td>"
			"<td>%lld</td><td>%lld</td><td class=\"x\">",
			(long long)r->id, (long long)r->records,
			(long long)r->nnew, (long long)r->nnew_sess,
			(long long)r->loss);
		html_text(out, r->label);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

int
report_html_write(FILE *out, const struct html_page *p)
{
	head(out, p);
	chart(out, p);
	loss(out, p);
	lists(out, p);
	surface(out, p);
	matrix(out, p);
	if (p->explain != NULL && p->explain(out, p->explain_arg) < 0)
		return -ENOMEM;
	rounds_table(out, p);
	fprintf(out, "<p><small>pgsc %s</small></p>\n</body>\n</html>\n",
		PGSC_VERSION);
	return ferror(out) ? -EIO : 0;
}
