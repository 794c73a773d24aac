/* SPDX-License-Identifier: PostgreSQL */
/* report_types.c - a list per backend type (pgsc-report --per-type): the
 * calls of the processes of each PostgreSQL backend type and of their
 * descendants, by the roles of docs/roles.md, for a filter per type
 * (docs/per-type.md).  The postmaster's calls are the global list's, and a
 * backend of unknown type has no list of its own. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "roles.h"

/* The longest type a setting is named after: PostgreSQL's custom
 * settings' names are identifiers of at most NAMEDATALEN - 1 (63). */
#define TYPE_NAME_MAX 40

/* The type a role's calls count for, or NULL: the role of a process of
 * that type or of one of its descendants. */
static const char *
role_type(const char *role)
{
	const char *t;

	if (!pgsc_role_in_server(role))
		return NULL;
	t = roles_ancestor(role);
	if (strcmp(t, PGSC_ROLE_POSTMASTER) == 0 ||
	    strcmp(t, PGSC_ROLE_BACKEND_UNKNOWN) == 0 ||
	    roles_is_descendant(t))
		return NULL;
	return t;
}

/*
 * The setting's name for type @t in *@out: "autovacuum worker" gives
 * "autovacuum_worker".  A type is a title the server wrote (an
 * extension's background worker names its own), so only lower-case
 * letters, digits, blanks and underscores make a name; *@out stays NULL
 * otherwise.  Returns 0 or -ENOMEM.
 */
static int
setting_name(const char *t, char **out)
{
	size_t n = strlen(t);

	*out = NULL;
	if (n == 0 || n > TYPE_NAME_MAX || (t[0] >= '0' && t[0] <= '9'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((t[i] >= 'a' && t[i] <= 'z') ||
		      (t[i] >= '0' && t[i] <= '9') || t[i] == ' ' ||
		      t[i] == '_'))
			return 0;
	if ((*out = strdup(t)) == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if ((*out)[i] == ' ')
			(*out)[i] = '_';
	return 0;
}

/* PostgreSQL's own names of the types the module knows. */
static const char *const pg_types[] = {
#define PGSC_TYPE(name, setting, bt, bgw_type, client, since) name,
#include "pgtypes.def"
#undef PGSC_TYPE
};

/* Is @s one of the @n strings of table @t (the .def tables here)? */
static int
in_table(const char *const *t, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i], s) == 0)
			return 1;
	return 0;
}

static int
pg_type(const char *type)
{
	return in_table(pg_types, ARRAY_SIZE(pg_types), type);
}

/*
 * Setting names made unique: types whose names differ only
 * in blanks and underscores make one setting name ("client backend" and
 * a background worker titled "client_backend": client_backend), and the
 * later line would override the earlier in postgresql.conf.  The rule:
 * the type PostgreSQL itself names (pgtypes.def) keeps the name, every
 * other type that makes it gets no line (a comment says why; its calls
 * are in the global list); when PostgreSQL names none of them, none
 * gets a line.
 */
static void
settings_unique(struct types *T)
{
	for (size_t i = 0; i < T->n; i++) {
		struct typelist *a = &T->v[i];

		for (size_t j = i + 1; a->setting != NULL && j < T->n; j++) {
			struct typelist *b = &T->v[j];

			if (b->setting == NULL || strcmp(a->setting,
							 b->setting) != 0)
				continue;
			if (!pg_type(b->type)) {
				b->clash = a->type;
				free(b->setting);
				b->setting = NULL;
			}
			if (!pg_type(a->type)) {
				a->clash = T->v[j].type;
				free(a->setting);
				a->setting = NULL;
			}
		}
	}
}

/* The list of type @t, added empty when new; NULL on OOM. */
static struct typelist *
type_get(struct types *T, const char *t)
{
	struct typelist tl = { 0 };

	for (size_t i = 0; i < T->n; i++)
		if (strcmp(T->v[i].type, t) == 0)
			return &T->v[i];
	tl.type = strdup(t);
	if (tl.type == NULL ||
	    util_append(&T->v, &T->cap, &T->n, &tl, sizeof(tl), 16) < 0) {
		free(tl.type);
		return NULL;
	}
	return &T->v[T->n - 1];
}

static int
type_cmp(const void *a, const void *b)
{
	const struct typelist *x = a, *y = b;

	return roles_cmp(&x->type, &y->type);
}

void
report_types_free(struct types *T)
{
	for (size_t i = 0; i < T->n; i++) {
		free(T->v[i].type);
		free(T->v[i].setting);
		strset_free(&T->v[i].calls);
		strset_free(&T->v[i].lacks);
	}
	free(T->v);
	memset(T, 0, sizeof(*T));
}

/* The records of backends of unknown type: in no type's list. */
static uint64_t
untyped_records(const struct rep *r)
{
	uint64_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		for (size_t k = 0; k < r->e[i].nrc; k++)
			if (r->e[i].name != NULL &&
			    strcmp(roles_ancestor(r->e[i].rc[k].role),
				   PGSC_ROLE_BACKEND_UNKNOWN) == 0)
				n += r->e[i].rc[k].count;
	return n;
}

/* The security-relevant calls (sensitive.def). */
static const char *const sensitive[] = {
#define SENSITIVE(name, group) #name,
#include "sensitive.def"
#undef SENSITIVE
};

int
report_types_sensitive(const char *name)
{
	return in_table(sensitive, ARRAY_SIZE(sensitive), name);
}

/* The groups of sensitive.def, in the order of sensitive[]. */
static const char *const sensitive_groups[] = {
#define SENSITIVE(name, group) #group,
#include "sensitive.def"
#undef SENSITIVE
};

const char *
report_types_sensitive_group(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(sensitive); i++)
		if (strcmp(sensitive[i], name) == 0)
			return sensitive_groups[i];
	return NULL;
}

/*
 * Against the global list @g: with the routine floor (--per-type=routine),
 * add its calls that are not security-relevant to @tl, but with
 * --no-programs none that only programs made (@r); then note the
 * security-relevant ones @tl does not have.
 */
static int
type_against_global(struct typelist *tl, const struct strset *g, int routine,
		    const struct rep *r, int no_programs)
{
	for (size_t i = 0; i < g->n; i++) {
		const char *name = g->v[i];

		if (strset_has(&tl->calls, name))
			continue;
		if (report_types_sensitive(name)) {
			if (strset_add(&tl->lacks, name) < 0)
				return -ENOMEM;
		} else if (routine && !(no_programs &&
					(report_programs_call(name) ||
					 report_programs_only(r, name)))) {
			if (strset_add(&tl->calls, name) < 0)
				return -ENOMEM;
			tl->routine++;
		}
	}
	return 0;
}

/**
 * The list of each backend type seen in @r, its names mapped for @o as
 * the two lists are (--arch, --portable), sorted as the table sorts
 * roles.  Returns 0 or -ENOMEM.
 */
int
report_types_build(const struct rep *r, const struct pgsc_report_opts *o,
		   const struct lists *L, struct types *T)
{
	struct strset to = { 0 };
	int rc = 0;

	memset(T, 0, sizeof(*T));
	for (size_t i = 0; i < r->n && rc == 0; i++) {
		const struct entry *e = &r->e[i];

		if (e->name == NULL)
			continue;
		for (size_t k = 0; k < e->nrc && rc == 0; k++) {
			const char *t = role_type(e->rc[k].role);
			struct typelist *tl;

			if (t == NULL || e->rc[k].count == 0)
				continue;
			/* --no-programs: the type's own processes only */
			if (o->no_programs &&
			    roles_is_descendant(e->rc[k].role))
				continue;
			tl = type_get(T, t);
			if (tl == NULL) {
				rc = -ENOMEM;
				break;
			}
			tl->records += e->rc[k].count;
			rc = report_map_entry(e, o, &to);
			for (size_t j = 0; j < to.n && rc == 0; j++)
				if (!report_iouring_postmaster_only(to.v[j]) &&
				    !(o->no_programs &&
				      report_programs_call(to.v[j])) &&
				    strset_add(&tl->calls, to.v[j]) < 0)
					rc = -ENOMEM;
		}
	}
	strset_free(&to);
	for (size_t i = 0; i < T->n && rc == 0; i++) {
		rc = setting_name(T->v[i].type, &T->v[i].setting);
		if (rc == 0)
			rc = type_against_global(&T->v[i], &L->l[0],
						 o->per_type == PGSC_PER_TYPE_ROUTINE,
						 r, o->no_programs);
	}
	if (rc == 0) {
		settings_unique(T);
		T->untyped = untyped_records(r);
	}
	T->routine = o->per_type == PGSC_PER_TYPE_ROUTINE;
	if (rc < 0) {
		report_types_free(T);
		return rc;
	}
	if (T->n > 1)
		qsort(T->v, T->n, sizeof(T->v[0]), type_cmp);
	return 0;
}

/* The settings of the types the pgsc module has a filter for. */
static const char *const module_types[] = {
#define PGSC_TYPE(name, setting, bt, bgw_type, client, since) setting,
#include "pgtypes.def"
#undef PGSC_TYPE
};
#define MODULE_BGWORKER "background_worker"

static int
module_type(const char *setting)
{
	return in_table(module_types, ARRAY_SIZE(module_types), setting);
}

/* A comment for type @tl, which gets no line: "# backend type "T" (N
 * records): WHY". */
static void
type_comment(FILE *out, const struct typelist *tl, const char *why)
{
	fputs("# backend type \"", out);
	pgsc_text_escape(out, tl->type);
	fprintf(out, "\" (%llu records): %s\n",
		(unsigned long long)tl->records, why);
}

/**
 * After the two lines of the GUC format: one "<prefix><type>_syscall_allow"
 * line per type, and a comment for a type no name can be made from.
 * For the pgsc module (prefix "pgsc."), only the types it has settings
 * for (src/pgtypes.def: it refuses to start with an unknown pgsc.*
 * setting); it gives "background worker"'s settings to every background
 * worker it has no type for, so when such a type was seen, that line is
 * left out too and they all run under the global filter.
 */
void
report_types_guc(FILE *out, const struct types *T, const char *prefix)
{
	int module = strcmp(prefix, "pgsc.") == 0, foreign = 0;

	fprintf(out, "# a list per backend type, each with its descendants' "
		"calls%s (pgsc-report --per-type%s, docs/per-type.md)\n",
		T->routine ? " and the global list's calls that are not "
		"security-relevant" : "", T->routine ? "=routine" : "");
	for (size_t i = 0; module && i < T->n; i++)
		if (T->v[i].setting != NULL && !module_type(T->v[i].setting))
			foreign = 1;
	for (size_t i = 0; i < T->n; i++) {
		const struct typelist *tl = &T->v[i];

		if (tl->setting == NULL && tl->clash != NULL) {
			fputs("# backend type \"", out);
			pgsc_text_escape(out, tl->type);
			fprintf(out, "\" (%llu records): no line: its setting "
				"name is also made from backend type \"",
				(unsigned long long)tl->records);
			pgsc_text_escape(out, tl->clash);
			fputs("\" (docs/per-type.md); its calls are in the "
			      "global list\n", out);
			continue;
		}
		if (tl->setting == NULL) {
			type_comment(out, tl, "no setting name can be made "
				     "from it; its calls are in the global list");
			continue;
		}
		if (module && !module_type(tl->setting)) {
			type_comment(out, tl, "the pgsc module has no filter "
				     "of its own for it: it runs under the "
				     "global filter, whose list has its calls");
			continue;
		}
		if (module && foreign && strcmp(tl->setting,
						MODULE_BGWORKER) == 0) {
			type_comment(out, tl, "no line: the pgsc module would "
				     "give this list to the background workers "
				     "above too, whose calls it does not hold");
			continue;
		}
		fprintf(out, "%s%s_syscall_allow = '", prefix, tl->setting);
		report_print_joined(out, &tl->calls, ",");
		fputs("'\n", out);
	}
	if (T->untyped > 0)
		fprintf(out, "# %llu records of backends of unknown type (role "
			"backend) are in no type's list\n",
			(unsigned long long)T->untyped);
}

/* The "types" object of the JSON format. */
void
report_types_json(FILE *out, const struct types *T)
{
	fputc('{', out);
	for (size_t i = 0; i < T->n; i++) {
		const struct typelist *tl = &T->v[i];

		fputs(i ? ",\n    " : "\n    ", out);
		report_json_str(out, tl->type);
		fputs(": {\"setting\": ", out);
		if (tl->setting != NULL) {
			char name[TYPE_NAME_MAX + sizeof("_syscall_allow")];

			snprintf(name, sizeof(name), "%s_syscall_allow",
				 tl->setting);
			report_json_str(out, name);
		} else {
			fputs("null", out);
		}
		fprintf(out, ", \"records\": %llu, \"routine_added\": %zu, "
			"\"syscalls\": ", (unsigned long long)tl->records,
			tl->routine);
		report_json_list(out, &tl->calls);
		fputs(", \"lacks\": ", out);
		report_json_list(out, &tl->lacks);
		fputc('}', out);
	}
	fputs(T->n ? "\n  }" : "}", out);
}

/**
 * The table with --per-type: one column per type, each the records of
 * the type's processes and their descendants', per syscall as recorded.
 */
int
report_types_table(FILE *out, const struct rep *r, const struct types *T)
{
	report_header_line(out, r);
	fprintf(out, "# records per backend type, each with its "
		"descendants' (--per-type); G: in the global list, S: in the "
		"session list\n");
	fprintf(out, "%-24s %-8s %10s G S", "syscall", "arch", "total");
	for (size_t c = 0; c < T->n; c++) {
		fputs("  ", out);
		pgsc_text_escape(out, T->v[c].type);
	}
	fputc('\n', out);
	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];

		if (e->name == NULL || !e->global)
			continue;
		fprintf(out, "%-24s %-8s %10llu %c %c", e->name,
			pgsc_arch_name(e->arch), (unsigned long long)e->count,
			e->global ? 'G' : '-', e->session ? 'S' : '-');
		for (size_t c = 0; c < T->n; c++) {
			uint64_t v = 0;

			for (size_t k = 0; k < e->nrc; k++) {
				const char *t = role_type(e->rc[k].role);

				if (t != NULL && strcmp(t, T->v[c].type) == 0)
					v += e->rc[k].count;
			}
			fprintf(out, "  %*llu", (int)strlen(T->v[c].type),
				(unsigned long long)v);
		}
		fputc('\n', out);
	}
	if (T->untyped > 0)
		fprintf(out, "# %llu records of backends of unknown type "
			"(role backend) are in no type's column\n",
			(unsigned long long)T->untyped);
	return 0;
}
