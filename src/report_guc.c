/* SPDX-License-Identifier: PostgreSQL */
/* report_guc.c - the GUC format: the two lists as the lines a
 * postgresql.conf takes (global_syscall_allow, session_syscall_allow,
 * with the prefix of --guc-prefix), what was added to them, the known
 * max and, with --per-type, a list per backend type. */
/*
 * Every name printed was checked against [a-z0-9_]+ when loaded
 * (report_model.c): a GUC line quotes none.
 */
#include "report-int.h"

/* The GUC lines of @w's report. */
int
report_guc(const struct rep_out *w)
{
	const char *prefix = w->o->guc_prefix ? w->o->guc_prefix : "";
	FILE *out = w->out;
	const struct lists *L = w->L;

	report_header_line(out, w->r);
	if (w->o->no_programs)
		report_programs_comment(out, w->r);
	report_lists_comment(out, L);
	fprintf(out, "%sglobal_syscall_allow = '", prefix);
	report_args_joined(out, w->A, 0, &L->l[0], ",");
	fprintf(out, "'\n%ssession_syscall_allow = '", prefix);
	report_args_joined(out, w->A, 1, &L->l[1], ",");
	fprintf(out, "'\n");
	report_args_comment(out, w->A, L);
	report_needs_guc(out, L);
	report_known_max_guc(out, w->r, L, prefix);
	if (w->T != NULL)
		report_types_guc(out, w->T, prefix);
	return 0;
}
