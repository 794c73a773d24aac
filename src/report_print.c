/* SPDX-License-Identifier: PostgreSQL */
/* report_print.c - what several formats print the same way: the header
 * line and its warnings, the loss figures, the mapping comment of
 * --arch/--portable, a list joined, a JSON string or list.  It reads the
 * model (struct rep, struct lists) and calls no writer. */
/*
 * The names in the lists were checked against [a-z0-9_]+ when loaded
 * (report_model.c); every other text that came from a record (exe, role,
 * node) is escaped for its format here or by the writer.
 */
#include <stdio.h>

#include "report-int.h"

/* The names of @s with @sep between them (names only: never escaped). */
void
report_print_joined(FILE *out, const struct strset *s, const char *sep)
{
	for (size_t i = 0; i < s->n; i++)
		fprintf(out, "%s%s", i ? sep : "", s->v[i]);
}

/* @s as a JSON string, escaped; NULL is "". */
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

/* The arches of the global list, or the native one for an empty list. */
void
report_arch_list(const struct rep *r, struct strset *out)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].global && pgsc_arch_name(r->e[i].arch))
			strset_add(out, pgsc_arch_name(r->e[i].arch));
	if (out->n == 0 && pgsc_arch_name(pgsc_native_arch()))
		strset_add(out, pgsc_arch_name(pgsc_native_arch()));
}

/* Records may be missing from the rounds of @r. */
int
report_missing(const struct rep *r)
{
	return r->t.lost || r->t.serial_gaps || r->t.rotation_gaps ||
	       r->t.drain_timeouts || r->t.untracked;
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

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		fprintf(out, json ? "%s\"%s\": " : "%s%s ", i ? ", " : "",
			json ? t[i].key : t[i].text);
		/* another host's kernel is not read: not known, not 0 */
		if (i == 0 && r->t.kernel_unread)
			fputs(json ? "null" : "-", out);
		else
			fprintf(out, "%llu", (unsigned long long)t[i].v);
	}
	/* only a fleet past the bound of serial sequences has them: other
	 * outputs stay as they were */
	if (r->t.untracked > 0)
		fprintf(out, json ? ", \"serials_untracked\": %llu" :
			", serials untracked %llu",
			(unsigned long long)r->t.untracked);
}

/* The "# pgsc: ..." header and its warnings, first in the text formats. */
void
report_header_line(FILE *out, const struct rep *r)
{
	struct strset arches = { 0 };
	struct iouring io;

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
	report_iouring_scan(r, &io);
	if (report_iouring_seen(&io)) {
		fputs("# warning: ", out);
		report_iouring_sentence(out, &io);
		fputc('\n', out);
	}
}

/* The "# ..." lines that say what --arch/--portable mapped or left out. */
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
