/* SPDX-License-Identifier: PostgreSQL */
/* report_status.c - the rounds as --status shows them (text or JSON:
 * records, rate, new syscalls for the global and the session list, lag,
 * loss, the verdict on convergence), and the data of the HTML page
 * (report_html.c draws it). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report-int.h"
#include "report_html.h"
#include "roles.h"
#include "store.h"

/* The format version of the status document, its first member
 * "pgsc_status" (schemas/pgsc-status.schema.json; docs/man/pgsc-report.1,
 * "JSON documents"). */
#define STATUS_JSON_VERSION 1

struct status_row {
	int64_t id, records, loss, nnew, nnew_sess;
	double started, first, last, span;
	int finished;
	char *label, *mode;
};

/* The rows of --status, oldest first. */
struct status_rows {
	struct status_row *v;
	size_t n;
};

static void
status_text(FILE *out, const struct status_row *v, size_t n, double now)
{
	/* "new": new to the server tree (the global list); "new-sess": new
	 * to the session roles (the session list).  Columns keep their
	 * places for scripts: round, started (2 fields), mode, records,
	 * records/s, new, new-sess, ... */
	fprintf(out, "%5s  %-19s  %-8s %10s %10s %5s %8s  %-19s %8s %6s  %s\n",
		"round", "started", "mode", "records", "records/s", "new",
		"new-sess", "last event", "lag", "loss", "label");
	for (size_t i = 0; i < n; i++) {
		const struct status_row *w = &v[i];
		char when[32], lastev[32], lag[32];
		time_t tt = (time_t)w->started;
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S",
			 gmtime_r(&tt, &tm));
		if (w->last > 0) {
			tt = (time_t)w->last;
			strftime(lastev, sizeof(lastev), "%Y-%m-%d %H:%M:%S",
				 gmtime_r(&tt, &tm));
		} else {
			snprintf(lastev, sizeof(lastev), "-");
		}
		if (!w->finished && w->last > 0)
			snprintf(lag, sizeof(lag), "%.1fs", now - w->last);
		else
			snprintf(lag, sizeof(lag), "%s", w->finished ? "done" : "-");
		fprintf(out, "%5lld  %-19s  %-8s %10lld %10.0f %5lld %8lld  %-19s %8s %6lld  ",
			(long long)w->id, when, w->mode ? w->mode : "?",
			(long long)w->records,
			w->span > 0 ? w->records / w->span : 0.0,
			(long long)w->nnew, (long long)w->nnew_sess, lastev, lag,
			(long long)w->loss);
		pgsc_text_escape(out, w->label ? w->label : "");
		fputc('\n', out);
	}
}

/* The times are ISO 8601 in UTC with milliseconds, as the records' are
 * (audit stamps carry milliseconds): a reader need not know the epoch. */
static void
status_json(FILE *out, const struct status_row *v, size_t n,
	    const struct rep *tot, int converged, const char *verdict)
{
	fprintf(out, "{\n  \"pgsc_status\": %d,\n  \"pgsc_version\": \"%s\",\n"
		"  \"converged\": %s,\n  \"verdict\": ", STATUS_JSON_VERSION,
		PGSC_VERSION, converged ? "true" : "false");
	report_json_str(out, verdict);
	fprintf(out, ",\n  \"records\": %llu,\n  \"attributed\": %llu,\n"
		"  \"unattributed\": %llu,\n  \"foreign\": %llu,\n"
		"  \"rounds\": [",
		(unsigned long long)tot->t.records,
		(unsigned long long)tot->t.attributed,
		(unsigned long long)tot->t.unattributed,
		(unsigned long long)tot->t.foreign);
	for (size_t i = 0; i < n; i++) {
		const struct status_row *w = &v[i];
		char iso[UTIL_ISO_TIME_MAX];

		fprintf(out, "%s\n    {\"round\": %lld, \"started\": \"%s\", "
			"\"finished\": %s, \"mode\": ", i ? "," : "",
			(long long)w->id,
			util_iso_time(iso, sizeof(iso), w->started),
			w->finished ? "true" : "false");
		report_json_str(out, w->mode);
		fprintf(out, ", \"records\": %lld, \"records_per_s\": %.0f, "
			"\"new\": %lld, \"new_session\": %lld, \"last_event\": ",
			(long long)w->records,
			w->span > 0 ? w->records / w->span : 0.0,
			(long long)w->nnew, (long long)w->nnew_sess);
		if (w->last > 0)
			fprintf(out, "\"%s\"",
				util_iso_time(iso, sizeof(iso), w->last));
		else
			fputs("null", out);
		fprintf(out, ", \"loss\": %lld, \"label\": ", (long long)w->loss);
		report_json_str(out, w->label);
		fputc('}', out);
	}
	fprintf(out, "%s]\n}\n", n ? "\n  " : "");
}

struct status_acc {
	struct status_row *v;
	size_t n, cap;
};

static int
status_session(void *arg, const char *role)
{
	return roles_in_session(arg, role);
}

static int
status_row(void *arg, const struct store_status_row *row)
{
	struct status_acc *acc = arg;
	struct status_row *w;

	if (acc->n == acc->cap) {
		size_t ncap = acc->cap ? acc->cap * 2 : 16;

		w = realloc(acc->v, ncap * sizeof(*w));
		if (w == NULL)
			return -ENOMEM;
		acc->v = w;
		acc->cap = ncap;
	}
	w = &acc->v[acc->n++];
	*w = (struct status_row){
		.id = row->id, .records = row->records, .loss = row->loss,
		.nnew = row->nnew, .nnew_sess = row->nnew_sess,
		.started = row->started, .first = row->first,
		.last = row->last, .finished = row->finished,
		.label = strdup(row->label ? row->label : ""),
		.mode = strdup(row->mode ? row->mode : "?"),
	};
	if (w->label == NULL || w->mode == NULL)
		return -ENOMEM;
	w->span = w->finished ? row->finished_at - w->started
		  : (row->last_commit > w->started ?
		     row->last_commit - w->started : 0);
	if (w->last > w->first && w->span < w->last - w->first)
		w->span = w->last - w->first;
	return 0;
}

/* The rows of --status, oldest first, in @rows (rows_free() them). */
static int
rows_read(pgsc_store *st, struct strset *session, struct status_rows *rows,
	  char **cause)
{
	struct status_acc acc = { NULL, 0, 0 };
	int rc;

	rc = store_status_rows(st, status_session, session, status_row, &acc,
			       cause);
	rows->v = acc.v;
	rows->n = acc.n;
	return rc;
}

static void
rows_free(struct status_rows *rows)
{
	for (size_t i = 0; i < rows->n; i++) {
		free(rows->v[i].label);
		free(rows->v[i].mode);
	}
	free(rows->v);
	rows->v = NULL;
	rows->n = 0;
}

/*
 * report_open()'s ready() for --status: every round's row, oldest first, in
 * @arg, and the rounds to load are all of them, finished or not (the
 * totals for report_usable()).  Returns 1 when there is no round yet.
 */
static int
status_ready(struct rep *r, void *arg)
{
	struct status_rows *rows = arg;
	int rc;

	rc = rows_read(r->st, &r->session, rows, r->cause);
	if (rc < 0)
		return rc;
	if (rows->n == 0)
		return 1;
	r->from = rows->v[0].id;
	r->to = rows->v[rows->n - 1].id;
	return 0;
}

int
pgsc_status(pgsc_store *st, const struct pgsc_report_opts *opts, FILE *out,
	    int *converged, char **cause)
{
	struct status_rows rows = { NULL, 0 };
	struct rep_spec spec = {
		.session_roles = opts ? opts->session_roles : NULL,
		.range = REP_RANGE_GIVEN,
		.ready = status_ready,
		.arg = &rows,
	};
	struct status_row *v = NULL;
	struct rep tot;
	size_t n = 0;
	char *why = NULL, *verdict = NULL;
	int rc, usable = 0;

	*converged = 0;
	rc = report_open(st, &spec, &tot, cause);
	if (rc < 0)
		goto out;
	rc = 0;
	v = rows.v;
	n = rows.n;
	if (n > 0)
		usable = report_usable(&tot, &why);
	if (n == 0) {
		verdict = strdup("no data: no rounds yet");
	} else if (!usable && why != NULL && strncmp(why, "no data", 7) == 0) {
		/* never "converged" on nothing */
		verdict = strdup(why);
	} else if (!v[n - 1].finished) {
		verdict = strdup("not converged: the last round is still "
				 "being collected");
	} else if (!usable) {
		if (asprintf(&verdict, "not converged: %s",
			     why ? why : "the lists are not usable") < 0)
			verdict = NULL;
	} else if (v[n - 1].nnew != 0 || v[n - 1].nnew_sess != 0) {
		verdict = strdup("not converged: the last round logged "
				 "syscalls new to the global or the session "
				 "list");
	} else {
		*converged = 1;
		verdict = strdup("converged: the last round logged no syscall "
				 "that earlier rounds had not");
	}
	if (verdict == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	if (opts != NULL && opts->format == PGSC_FMT_JSON) {
		status_json(out, v, n, &tot, *converged, verdict);
	} else {
		if (n > 0)
			status_text(out, v, n, util_now());
		fprintf(out, "%s\n", verdict);
	}
	if (fflush(out) != 0 || ferror(out)) {
		rc = errno ? -errno : -EIO;
		util_cause(cause, "writing the status: %s", strerror(-rc));
	}
out:
	if (rc == -ENOMEM)
		util_cause(cause, "out of memory");
	free(why);
	free(verdict);
	rows_free(&rows);
	report_close(&tot);
	return rc;
}

/* ---------------------------------------------------------------- */
/* HTML (report_html.c draws it)                                     */

/* The surface rows of @w (report_surface.c) for the page, into *@hs. */
static int
html_surface_rows(const struct rep_out *w, struct surface_rows *s,
		  struct html_surface **hs)
{
	int rc = report_surface_rows(w, s);

	if (rc < 0)
		return rc;
	*hs = calloc(s->n ? s->n : 1, sizeof(**hs));
	if (*hs == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		(*hs)[i] = (struct html_surface){
			.label = s->v[i].title, .source = s->v[i].source,
			.names = s->v[i].names, .reachable = s->v[i].reachable,
			.baseline = s->v[i].kind == SURFACE_BASELINE,
			.rules = s->v[i].rules, .after = s->v[i].after,
			.closed = s->v[i].kind != SURFACE_TYPE &&
				  s->v[i].rules ? &s->v[i].closed : NULL,
		};
	return 0;
}

/* The page's --explain section (report_explain.c). */
static int
html_explain(FILE *out, const void *arg)
{
	return report_explain_html(arg, out);
}

int
report_html(const struct rep_out *w)
{
	FILE *out = w->out;
	struct rep *r = w->r;
	const struct lists *L = w->L;
	int sort = w->o->sort;
	char **cause = r->cause;
	struct status_rows rows = { NULL, 0 };
	struct html_page pg;
	struct html_syscall *sc = NULL;
	struct html_round *hr = NULL;
	struct strset arches = { 0 };
	const char **cols = NULL;
	uint64_t *counts = NULL;
	struct html_node *nodes = NULL;
	size_t ncols = r->roles.n, nsc = 0;
	char *why = NULL, *iou = NULL;
	struct surface_rows surf = { NULL, 0, 0 };
	struct html_surface *hs = NULL;
	int rc;

	memset(&pg, 0, sizeof(pg));
	rc = rows_read(r->st, &r->session, &rows, cause);
	if (rc < 0)
		goto out;
	report_arch_list(r, &arches);
	cols = calloc(ncols ? ncols : 1, sizeof(*cols));
	sc = calloc(r->n ? r->n : 1, sizeof(*sc));
	counts = calloc((r->n ? r->n : 1) * (ncols ? ncols : 1),
			sizeof(*counts));
	hr = calloc(rows.n ? rows.n : 1, sizeof(*hr));
	nodes = calloc(r->nnodes ? r->nnodes : 1, sizeof(*nodes));
	if (cols == NULL || sc == NULL || counts == NULL || hr == NULL ||
	    nodes == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < ncols; i++)
		cols[i] = r->roles.v[i];
	qsort(cols, ncols, sizeof(*cols), roles_cmp);
	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];
		uint64_t *rc_row = counts + nsc * (ncols ? ncols : 1);

		if (e->name == NULL)
			continue;
		for (size_t c = 0; c < ncols; c++)
			for (size_t k = 0; k < e->nrc; k++)
				if (strcmp(e->rc[k].role, cols[c]) == 0)
					rc_row[c] += e->rc[k].count;
		sc[nsc++] = (struct html_syscall){
			.name = e->name, .arch = pgsc_arch_name(e->arch),
			.all = e->all, .global = e->global,
			.session = e->session, .first_round = e->first_round,
			.example_pid = e->example_pid,
			.example_exe = e->example_exe, .role_counts = rc_row,
			.sensitive = report_types_sensitive(e->name),
			.nr = (uint32_t)e->nr,
		};
	}
	report_html_sort(sc, nsc, sort);
	pg.sort = sort;
	for (size_t i = 0; i < rows.n; i++) {
		const struct status_row *row = &rows.v[i];

		if (row->id < r->from || row->id > r->to)
			continue;
		hr[pg.nrounds++] = (struct html_round){
			.id = row->id, .records = row->records,
			.nnew = row->nnew, .nnew_sess = row->nnew_sess,
			.loss = row->loss, .label = row->label,
		};
	}
	pg.from = r->from;
	pg.to = r->to;
	pg.node = r->node;
	for (size_t i = 0; report_fleet(r) && i < r->nnodes; i++)
		nodes[pg.nnodes++] = (struct html_node){ r->nodes[i].name,
							 r->nodes[i].records };
	pg.nodes = nodes;
	pg.t = &r->t;
	pg.arches = (const char *const *)arches.v;
	pg.narches = arches.n;
	pg.roles = cols;
	pg.nroles = ncols;
	pg.sc = sc;
	pg.nsc = nsc;
	pg.rounds = hr;
	for (int k = 0; k < 2; k++) {
		pg.list[k] = (const char *const *)L->l[k].v;
		pg.nlist[k] = L->l[k].n;
	}
	pg.needs = (const char *const *)L->needs.v;
	pg.nneeds = L->needs.n;
	pg.nglobal = L->l[0].n;
	pg.nsession = L->l[1].n;
	if (!report_usable(r, &why))
		pg.warning = why;
	rc = report_iouring_text(r, &iou);
	pg.iouring = iou;
	if (rc == 0)
		rc = html_surface_rows(w, &surf, &hs);
	pg.surface = hs;
	pg.nsurface = surf.n;
	pg.ncves = surface_cves(NULL);
	pg.rules = w->A != NULL;
	pg.explain = html_explain;
	pg.explain_arg = w;
	if (rc == 0)
		rc = report_html_write(out, &pg);
out:
	if (rc == -ENOMEM)
		util_cause(cause, "out of memory");
	free(hs);
	report_surface_rows_free(&surf);
	free(iou);
	free(why);
	free(cols);
	free(sc);
	free(counts);
	free(hr);
	free(nodes);
	strset_free(&arches);
	rows_free(&rows);
	return rc;
}
