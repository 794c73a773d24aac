/* SPDX-License-Identifier: PostgreSQL */
/* report.c - pgsc_report(): the options checked, the report opened
 * (report_model.c), then the writer of the format from one table; and
 * report_lists(), the same lists with no format, for pgsc-diff.  The
 * writers live beside it (report_guc.c, report_json.c, report_table.c,
 * report_filter.c, report_status.c) and never call back here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "diff.h"

/* The formats: whether the writer reads the lists, whether it takes
 * --per-type, and the writer. */
static const struct format {
	enum pgsc_format format;
	int needs_lists;
	int per_type;
	int (*write)(const struct rep_out *w);
} formats[] = {
	{ PGSC_FMT_GUC, 1, 1, report_guc },
	{ PGSC_FMT_JSON, 1, 1, report_json },
	{ PGSC_FMT_TABLE, 0, 1, report_table },
	{ PGSC_FMT_SYSTEMD, 1, 0, report_systemd },
	{ PGSC_FMT_OCI, 1, 0, report_oci },
	{ PGSC_FMT_SPO, 1, 0, report_spo },
	{ PGSC_FMT_EFFECTIVE, 1, 0, report_effective },
	{ PGSC_FMT_HTML, 1, 0, report_html },
};

static const struct format *
format_find(enum pgsc_format format)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (formats[i].format == format)
			return &formats[i];
	return NULL;
}

/*
 * The options that do not fit together, checked once the rounds are
 * known to be there (report_open()'s ready(): a store without rounds says
 * "no data" first).  @arg is the writer's struct rep_out.
 */
static int
options_check(struct rep *r, void *arg)
{
	const struct pgsc_report_opts *opts = ((struct rep_out *)arg)->o;
	const struct format *f = format_find(opts->format);
	char **cause = r->cause;

	if ((opts->arch != 0 || opts->portable) &&
	    opts->format == PGSC_FMT_TABLE) {
		util_cause(cause, "--arch and --portable do not apply to the "
			   "table, which shows the names as recorded");
		return -EINVAL;
	}
	if (opts->per_type && (f == NULL || !f->per_type)) {
		util_cause(cause, "--per-type applies to the guc, json and "
			   "table formats");
		return -EINVAL;
	}
	if (opts->explain && opts->format != PGSC_FMT_TABLE &&
	    opts->format != PGSC_FMT_JSON) {
		util_cause(cause, "--explain applies to the table and json "
			   "formats");
		return -EINVAL;
	}
	if (opts->explain && (opts->arch != 0 || opts->portable)) {
		util_cause(cause, "--explain justifies the names as recorded: "
			   "it does not take --arch or --portable");
		return -EINVAL;
	}
	if (opts->surface && opts->format != PGSC_FMT_TABLE) {
		util_cause(cause, "--surface applies to the table format; the "
			   "json format and the html page always have the "
			   "surface");
		return -EINVAL;
	}
	if (opts->surface && opts->explain) {
		util_cause(cause, "--surface and --explain are two views of "
			   "the table: give one");
		return -EINVAL;
	}
	if (opts->no_programs && (opts->format == PGSC_FMT_SYSTEMD ||
				  opts->format == PGSC_FMT_OCI ||
				  opts->format == PGSC_FMT_SPO)) {
		util_cause(cause, "--no-programs changes the session and "
			   "per-type lists; the systemd, oci and spo formats "
			   "print the global list only");
		return -EINVAL;
	}
	if (opts->base && report_spo_options(opts, cause) < 0)
		return -EINVAL;
	if (opts->arch != 0 && pgsc_arch_name(opts->arch) == NULL) {
		util_cause(cause, "unknown arch token 0x%08x", opts->arch);
		return -EINVAL;
	}
	if (opts->has_default && (opts->def < PGSC_ACT_LOG ||
				  opts->def > PGSC_ACT_KILL)) {
		util_cause(cause, "the default action must be log, error or "
			   "kill");
		return -EINVAL;
	}
	return 0;
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


int
pgsc_report(pgsc_store *st, const struct pgsc_report_opts *opts, FILE *out,
	    char **cause)
{
	const struct format *f = format_find(opts->format);
	struct rep_out w = {
		.out = out,
		.o = opts,
		.def = opts->has_default ? (enum pgsc_action)opts->def
			: PGSC_ACT_ERROR,
	};
	struct rep_spec spec = {
		.session_roles = opts->session_roles,
		.node = opts->node,
		.range = REP_RANGE_FINISHED,
		.from = opts->round_from,
		.to = opts->round_to,
		.ready = options_check,
		.arg = &w,
	};
	struct rep r;
	struct lists L;
	struct types T;
	struct rargs *A = NULL;
	int rc;

	memset(&L, 0, sizeof(L));
	memset(&T, 0, sizeof(T));
	/* 1: no rounds, no data, not an error */
	rc = report_open(st, &spec, &r, cause);
	if (rc != 0)
		goto out;
	if (opts->no_programs)
		rc = report_programs_apply(&r);
	if (rc == 0 && f != NULL &&
	    (f->needs_lists || opts->per_type || opts->explain ||
	     opts->surface))
		rc = report_lists_build(&r, opts, &L);
	/* a family mapped back in what --no-programs took out */
	if (rc == 0 && opts->no_programs)
		report_programs_strip(&L);
	if (rc == 0 && opts->per_type)
		rc = report_types_build(&r, opts, &L, &T);
	if (rc == 0 && opts->args)
		rc = report_args_load(&r, &A);
	if (rc < 0)
		goto out;
	w.r = &r;
	w.L = &L;
	w.A = A;
	w.T = opts->per_type ? &T : NULL;
	if (f != NULL) {
		rc = f->write(&w);
	} else {
		util_cause(cause, "unknown format %d", (int)opts->format);
		rc = -EINVAL;
	}
	if (rc == 0 && (fflush(out) != 0 || ferror(out))) {
		rc = errno ? -errno : -EIO;
		util_cause(cause, "writing the report: %s", strerror(-rc));
	}
	if (rc == 0) {
		lists_warn(&L, opts->diag != NULL ? opts->diag : stderr);
		report_iouring_warn(opts->diag != NULL ? opts->diag : stderr,
				    &r, "pgsc-report: ");
	}
	else if (rc == -ENOMEM)
		util_cause(cause, "out of memory");
	if (rc == 0 && (!report_usable(&r, cause) ||
			(opts->per_type && !report_usable_types(&r, &T, cause))))
		rc = 1;
out:
	report_args_free(A);
	report_types_free(&T);
	report_lists_free(&L);
	report_close(&r);
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
	struct rep_spec spec = {
		.session_roles = session_roles,
		.node = node,
		.range = REP_RANGE_FINISHED,
		.from = from,
		.to = to,
	};
	struct rep r;
	int rc;

	rc = report_open(st, &spec, &r, cause);
	if (rc == 1)
		rc = -ENOENT;   /* no rounds: as pgsc-diff has always been told */
	if (rc == 0 && !report_usable(&r, cause))
		rc = -ENODATA;
	if (rc == 0)
		rc = report_list_names(&r, 0, global);
	if (rc == 0)
		rc = report_needs_add(global, NULL, 0);
	if (rc == 0)
		rc = report_list_names(&r, 1, session);
	if (rc == -ENOMEM)
		util_cause(cause, "out of memory");
	report_close(&r);
	return rc;
}
