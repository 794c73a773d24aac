/* SPDX-License-Identifier: PostgreSQL */
/* report_table.c - the table format: per syscall as recorded, its total,
 * whether each list has it, and its count in each role; the rejects and
 * the records' tally at the end (--per-type: report_types_table()). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "roles.h"
#include "store.h"

static int
table_reject(void *arg, const char *reason, uint64_t count)
{
	fprintf(arg, "# rejected: %s: %lld lines\n", reason, (long long)count);
	return 0;
}

/* The table of @w's report, or with --per-type one column per type. */
int
report_table(const struct rep_out *w)
{
	FILE *out = w->out;
	struct rep *r = w->r;
	const char **cols;
	size_t ncols = r->roles.n;

	if (w->o->explain)
		return report_explain_table(w);
	if (w->o->surface)
		return report_surface_table(w);
	if (w->T != NULL)
		return report_types_table(out, r, w->T);
	cols = malloc((ncols ? ncols : 1) * sizeof(*cols));
	if (cols == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < ncols; i++)
		cols[i] = r->roles.v[i];
	qsort(cols, ncols, sizeof(*cols), roles_cmp);

	report_header_line(out, r);
	if (w->o->no_programs)
		report_programs_comment(out, r);
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
