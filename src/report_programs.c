/* SPDX-License-Identifier: PostgreSQL */
/* report_programs.c - pgsc-report --no-programs: the session list and the
 * per-type lists without the calls only programs run below backends
 * made, and without the calls that run a program (docs/hardening.md). */
/*
 * The names come from the roles in the store, never from a list typed
 * here: a call stays when a process of a session role made it itself,
 * and goes when only its descendants did ("descendant/client backend":
 * COPY ... TO PROGRAM, an archive_command's shell; docs/roles.md).  The
 * three names below are the exception issue 28 names: they are how a
 * program starts at all, whoever was seen making them.  clone is not
 * among them: a backend may make threads with it, and only an argument
 * rule on its flags (CLONE_VFORK, a later part of issue 28) can refuse
 * the vfork a program spawner makes with it; it goes, like any other
 * name, when only descendants made it.
 */
#include <errno.h>
#include <string.h>

#include "report-int.h"
#include "roles.h"

static const char *const program_calls[] = { "execve", "execveat", "vfork" };

int
report_programs_call(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(program_calls); i++)
		if (strcmp(program_calls[i], name) == 0)
			return 1;
	return 0;
}

/* The three calls out of the session list of @L and out of what its
 * notes say a name was mapped to: --portable maps clone3 to its family,
 * vfork included. */
void
report_programs_strip(struct lists *L)
{
	for (size_t i = 0; i < ARRAY_SIZE(program_calls); i++) {
		strset_del(&L->l[1], program_calls[i]);
		for (size_t k = 0; k < L->nnotes[1]; k++)
			strset_del(&L->notes[1][k].to, program_calls[i]);
	}
}

/* Did a process of a session role, not one of its descendants, make
 * @e? */
static int
session_made(const struct rep *r, const struct entry *e)
{
	for (size_t k = 0; k < e->nrc; k++) {
		const char *role = e->rc[k].role;

		if (e->rc[k].count > 0 && !roles_is_descendant(role) &&
		    pgsc_role_in_server(role) &&
		    roles_in_session(&r->session, role))
			return 1;
	}
	return 0;
}

/**
 * --no-programs on @r, before any list is built from it: each entry whose
 * session records all come from descendants, and the program calls, leave
 * the session list (e->session), so every format sees the same list; the
 * names the list lost go to r->dropped (a name another arch still brings
 * stays).  The global list is untouched: the postmaster's children and
 * the loaders outside the module may still run programs.
 * Returns 0 or -ENOMEM.
 */
int
report_programs_apply(struct rep *r)
{
	struct strset before = { 0 }, after = { 0 };
	int rc;

	rc = report_list_names(r, 1, &before);
	for (size_t i = 0; rc == 0 && i < r->n; i++) {
		struct entry *e = &r->e[i];

		if (e->name != NULL && e->session &&
		    (report_programs_call(e->name) || !session_made(r, e)))
			e->session = 0;
	}
	if (rc == 0)
		rc = report_list_names(r, 1, &after);
	for (size_t i = 0; rc == 0 && i < before.n; i++)
		if (!strset_has(&after, before.v[i]) &&
		    strset_add(&r->dropped, before.v[i]) < 0)
			rc = -ENOMEM;
	strset_free(&before);
	strset_free(&after);
	return rc;
}

/* Was @name made in the server by descendants only (the routine floor of
 * --per-type=routine does not bring such a name back)? */
int
report_programs_only(const struct rep *r, const char *name)
{
	int seen = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];

		if (e->name == NULL || strcmp(e->name, name) != 0)
			continue;
		for (size_t k = 0; k < e->nrc; k++) {
			if (e->rc[k].count == 0 ||
			    !pgsc_role_in_server(e->rc[k].role))
				continue;
			if (!roles_is_descendant(e->rc[k].role))
				return 0;
			seen = 1;
		}
	}
	return seen;
}

/* The "# --no-programs: ..." line of the GUC and table formats: what was
 * dropped, and why. */
void
report_programs_comment(FILE *out, const struct rep *r)
{
	fputs("# --no-programs: dropped from the session list", out);
	fputs(r->dropped.n ? " (" : " (nothing", out);
	report_print_joined(out, &r->dropped, ",");
	fputs(") and from each type's list: the calls only programs run "
	      "below backends made (roles descendant/...: COPY ... PROGRAM, "
	      "archive_command) and execve, execveat, vfork, which start "
	      "them; clone goes only by its roles (CLONE_VFORK needs an "
	      "argument rule); docs/hardening.md\n", out);
}

/* The "no_programs" member of the JSON format. */
void
report_programs_json(FILE *out, const struct rep *r)
{
	fputs(",\n  \"no_programs\": {\"dropped\": ", out);
	report_json_list(out, &r->dropped);
	fputs(", \"program_calls\": [", out);
	for (size_t i = 0; i < ARRAY_SIZE(program_calls); i++) {
		fputs(i ? ", " : "", out);
		report_json_str(out, program_calls[i]);
	}
	fputs("]}", out);
}
