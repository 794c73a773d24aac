/* SPDX-License-Identifier: PostgreSQL */
/* pgsc_module.c - the pgsc PostgreSQL module: seccomp filters for PostgreSQL. */
/*
 * Loaded with shared_preload_libraries = 'pgsc'.  It gives the semantics
 * of the 2019 RFC patch (never merged) without patching the server:
 *
 *   - a global filter, loaded in the postmaster while
 *     shared_preload_libraries is processed, inherited by every child
 *     and every program they exec;
 *   - a session filter, stacked on it in each client backend (walsenders
 *     included) once the role's and database's settings are in force.
 *
 * Each filter has a default action and four lists (allow, log, error,
 * kill); a name on several lists gets the strictest action, computed by
 * ../filter_effective.c, the same code pgsc-report --format=effective uses.
 * docs/module.md says where each filter is loaded and why.
 *
 * Only libc, libseccomp and ../filter_effective.c are linked in: nothing of the
 * rest of pgsc (sqlite, auparse) belongs in a backend.
 */
#include "postgres.h"

#include <errno.h>
#include <seccomp.h>
#include <string.h>

#include "access/xact.h"
#include "fmgr.h"
#include "funcapi.h"
#include "libpq/auth.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"
#include "utils/memutils.h"

#include "pgsc_module.h"
#include "filter.h"
#include "syscalls.h"

PG_MODULE_MAGIC;

static const struct config_enum_entry global_default_options[] = {
	{ "allow", PGSC_ACT_ALLOW, false },
	{ "log", PGSC_ACT_LOG, false },
	{ "error", PGSC_ACT_ERROR, false },
	{ "kill", PGSC_ACT_KILL, false },
	{ NULL, 0, false },
};

/* The session's and the types' defaults: "*" = the default of the filter
 * they fall back to. */
const struct config_enum_entry pgsc_star_default_options[] = {
	{ "allow", PGSC_ACT_ALLOW, false },
	{ "log", PGSC_ACT_LOG, false },
	{ "error", PGSC_ACT_ERROR, false },
	{ "kill", PGSC_ACT_KILL, false },
	{ "*", DEF_STAR, false },
	{ NULL, 0, false },
};

/* pgsc.unknown_syscall_action */
#define UNKNOWN_DEFAULT 0
#define UNKNOWN_ENOSYS 1

static const struct config_enum_entry unknown_options[] = {
	{ "enosys", UNKNOWN_ENOSYS, false },
	{ "default", UNKNOWN_DEFAULT, false },
	{ NULL, 0, false },
};

/* GUC variables */
static bool pgsc_enabled = false;
static int global_default = PGSC_ACT_LOG;
static int session_default = DEF_STAR;
static char *global_list[4];
static char *session_list[4];
static int unknown_action = UNKNOWN_ENOSYS;
static char *known_max_spec;

/* The known max of each arch, from pgsc.syscall_known_max or this
 * libseccomp: computed once (in the postmaster, before the global
 * filter), inherited by every child. */
static struct filter_unknown known_max;
static bool known_max_ready = false;

/* The session spec as loaded in this backend (TopMemoryContext), for
 * pgsc_filter(): later SETs cannot change a loaded filter. */
static bool session_loaded = false;
static bool session_tried = false;
static int loaded_session_default;
static char *loaded_session_list[4];

static ClientAuthentication_hook_type prev_client_auth_hook = NULL;

void _PG_init(void);

/* ------------------------------------------------------------------ */
/* Check hooks                                                         */
/* ------------------------------------------------------------------ */

/* Is @s "*", give or take blanks? */
bool
pgsc_is_star(const char *s)
{
	size_t len;
	const char *t = syscall_lists_next(&s, " \t", LISTS_KEEP_EMPTY, &len);

	return s == NULL && len == 1 && *t == '*';
}

/*
 * Validate one list: every name must be known to libseccomp.  Names are
 * resolved for the native arch (arch 0), as seccomp_rule_add will.  A name
 * libseccomp knows but this arch lacks (open on aarch64) resolves to a
 * negative placeholder: it is accepted, so one list can serve several
 * arches, and the filter has no rule for it here (see docs/module.md).
 * Returns NULL when valid, else a malloc'd sentence.
 */
char *
pgsc_list_problem(const char *value, bool star_ok)
{
	struct pgsc_filter_spec spec = { .def = PGSC_ACT_ALLOW };
	pgsc_effective *e = NULL;
	char *cause = NULL;
	int rc;

	if (value == NULL || (star_ok && pgsc_is_star(value)))
		return NULL;
	spec.list[PGSC_ACT_ALLOW] = value;
	rc = pgsc_effective_new(&spec, 0, &e, &cause);
	pgsc_effective_free(e);
	if (rc == 0)
		return NULL;
	if (cause == NULL)
		cause = strdup(rc == -ENOMEM ? "out of memory" : "invalid list");
	return cause;
}

static bool
check_list(char **newval, bool session)
{
	char *cause = pgsc_list_problem(*newval, session);

	if (cause == NULL)
		return true;
	GUC_check_errdetail("%s", cause);
	free(cause);
	return false;
}

static bool
check_global_list(char **newval, void **extra, GucSource source)
{
	(void)extra;
	(void)source;
	return check_list(newval, false);
}

/* A session or type list: names, or "*" alone. */
bool
pgsc_check_star_list(char **newval, void **extra, GucSource source)
{
	(void)extra;
	(void)source;
	return check_list(newval, true);
}

static bool
check_known_max(char **newval, void **extra, GucSource source)
{
	char *cause = NULL;
	int max;

	(void)extra;
	(void)source;
	if (syscall_known_max_spec(*newval, 0, &max, &cause) == 0)
		return true;
	GUC_check_errdetail("%s", cause != NULL ? cause : "invalid value");
	free(cause);
	return false;
}

/* ------------------------------------------------------------------ */
/* Filters                                                             */
/* ------------------------------------------------------------------ */

/* The known max of the native and the compat arch (-1: no compat). */
const struct filter_unknown *
pgsc_known_max_get(void)
{
	uint32_t native = pgsc_native_arch();
	uint32_t compat = pgsc_compat_arch(native);

	if (known_max_ready)
		return &known_max;
	known_max.max_native = known_max.max_compat = -1;
	/* checked by check_known_max() */
	(void)syscall_known_max_spec(known_max_spec, native,
				       &known_max.max_native, NULL);
	if (compat != 0)
		(void)syscall_known_max_spec(known_max_spec, compat,
					       &known_max.max_compat, NULL);
	known_max_ready = true;
	return &known_max;
}

/* The unknown part of the filters, or NULL for "default". */
const struct filter_unknown *
pgsc_unknown_part(void)
{
	return unknown_action == UNKNOWN_ENOSYS ? pgsc_known_max_get() : NULL;
}

void
pgsc_global_spec(struct pgsc_filter_spec *spec)
{
	spec->def = (enum pgsc_action)global_default;
	for (int a = 0; a < 4; a++)
		spec->list[a] = global_list[a];
}

/*
 * The session spec from @def and @lists, '*' resolved against the global
 * one.  Returns 0 or -EINVAL with *cause.
 */
int
pgsc_session_spec(int def, char *const *lists, struct pgsc_filter_spec *out,
		  char **cause)
{
	struct pgsc_filter_spec g, s;

	pgsc_global_spec(&g);
	s.def = def == DEF_STAR ? g.def : (enum pgsc_action)def;
	for (int a = 0; a < 4; a++)
		s.list[a] = lists[a];
	return pgsc_session_spec_resolve(&g, &s, out, cause);
}

/*
 * The rules of the filter of @spec, in @fr (free with
 * pgsc_filter_rules_free()): one per listed name, those whose action is
 * the default included (filter_build_load() leaves them out of the filter,
 * and out of its unknown part); fr->nrules counts the others.  @what
 * ("global", "session", a type) is for messages.
 * Returns 0 or a negative errno with *cause (malloc'd).
 */
int
pgsc_filter_rules(const struct pgsc_filter_spec *spec, const char *what,
		  struct filter_rules *fr, char **cause)
{
	const struct pgsc_effective_entry *v;
	size_t n;
	int rc;

	memset(fr, 0, sizeof(*fr));
	rc = pgsc_effective_new(spec, 0, &fr->e, cause);
	if (rc < 0)
		return rc;
	n = pgsc_effective_entries(fr->e, &v);
	fr->r = calloc(n > 0 ? n : 1, sizeof(*fr->r));
	if (fr->r == NULL) {
		pgsc_filter_rules_free(fr);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		/* filter_build_load() leaves out a rule whose action is the
		 * default (libseccomp refuses it), but its number keeps the
		 * default rather than ENOSYS. */
		if (v[i].action != spec->def)
			fr->nrules++;
		if (v[i].nr < 0 && v[i].action != spec->def)
			/* A placeholder: the native arch has no such call.
			 * libseccomp still places the rule on the arches of
			 * the filter that have it (i386's _llseek on the
			 * compat arch); say so once per load. */
			ereport(LOG,
				(errmsg("pgsc: %s filter: syscall \"%s\" does "
					"not exist on the native architecture; "
					"its rule applies only where it exists "
					"(the 32-bit compat arch)", what,
					v[i].name)));
		fr->r[fr->n].name = v[i].name;
		fr->r[fr->n].nr = v[i].nr;
		fr->r[fr->n].args = v[i].args;
		fr->r[fr->n++].action = pgsc_action_scmp(v[i].action);
	}
	return 0;
}

void
pgsc_filter_rules_free(struct filter_rules *fr)
{
	free(fr->r);
	pgsc_effective_free(fr->e);
	memset(fr, 0, sizeof(*fr));
}

/* The sentence for a filter_build_load() or filter_build_export() that failed at
 * @step with @rc (rule @bad at FILTER_STEP_RULE), in *@cause. */
void
pgsc_filter_cause(enum filter_step step, int rc,
		   const struct filter_rules *fr, size_t bad, char **cause)
{
	char buf[160];

	if (step == FILTER_STEP_COMPAT)
		snprintf(buf, sizeof(buf), "cannot add the 32-bit compat arch");
	else if (step == FILTER_STEP_LOG)
		snprintf(buf, sizeof(buf), "cannot set SCMP_FLTATR_CTL_LOG "
			 "(kernel without seccomp logging?)");
	else if (step == FILTER_STEP_RULE)
		snprintf(buf, sizeof(buf), "seccomp_rule_add(%s): %s",
			 fr->r[bad].name, strerror(-rc));
	else if (step == FILTER_STEP_UNKNOWN)
		snprintf(buf, sizeof(buf), "seccomp_rule_add(%zu, ENOSYS): %s",
			 bad, strerror(-rc));
	else if (step == FILTER_STEP_MERGE)
		snprintf(buf, sizeof(buf), "seccomp_merge: %s", strerror(-rc));
	else
		snprintf(buf, sizeof(buf), "seccomp_load: %s", strerror(-rc));
	*cause = strdup(buf);
}

/* The session spec of this backend: the loaded one, or the one the
 * current settings give. */
int
pgsc_session_spec_now(struct pgsc_filter_spec *out, char **cause)
{
	if (session_loaded)
		return pgsc_session_spec(loaded_session_default,
					 loaded_session_list, out, cause);
	return pgsc_session_spec(session_default, session_list, out, cause);
}

/*
 * Build the filter of @spec and load it into the calling process: the
 * native arch plus its 32-bit compat arch (i386 on x86_64: a filter for
 * the native arch alone kills every i386 call through the bad-arch
 * action), with SCMP_FLTATR_CTL_LOG so error and kill are audited too.
 * @what ("global", "session") is for messages.
 * Returns 0 or a negative errno with *cause (malloc'd).
 */
static int
filter_load(const struct pgsc_filter_spec *spec, const char *what,
	    int *n_rules, char **cause)
{
	struct filter_rules fr;
	enum filter_step step;
	size_t bad = 0;
	int rc;

	*n_rules = 0;
	rc = pgsc_filter_rules(spec, what, &fr, cause);
	if (rc < 0)
		return rc;
	rc = filter_build_load(pgsc_action_scmp(spec->def), fr.r, fr.n,
			  pgsc_unknown_part(), &step, &bad);
	if (rc == 0 || step == FILTER_STEP_INIT) {
		*n_rules = rc == 0 ? (int)fr.nrules : 0;
		goto out;
	}
	*n_rules = step == FILTER_STEP_RULE ? (int)bad : (int)fr.nrules;
	pgsc_filter_cause(step, rc, &fr, bad, cause);
out:
	pgsc_filter_rules_free(&fr);
	return rc < 0 ? rc : 0;
}

/*
 * The module's own needs (filter_needs[]): a backend whose lists are
 * not the postmaster's builds and loads its session filter (or its
 * client type's) under the global filter, the postmaster rebuilds its
 * session programs under it after a reload (pgsc_prebuilt.c), and every
 * other child loads its program with seccomp(2) under it too.  A global
 * filter that refuses one of those calls would fail every connection
 * ("cannot load the session seccomp filter"), so the postmaster refuses
 * to start with it, naming them.
 */
static void
check_needs(const struct pgsc_filter_spec *g)
{
	const struct pgsc_effective_entry *v;
	pgsc_effective *e = NULL;
	char *cause = NULL, missing[256] = "";
	size_t n, len = 0;
	int rc;

	rc = pgsc_effective_new(g, 0, &e, &cause);
	if (rc < 0)
		pgsc_load_failed("global", rc, cause);
	n = pgsc_effective_entries(e, &v);
	for (const char *const *need = filter_needs; *need != NULL; need++) {
		int nr = seccomp_syscall_resolve_name(*need);
		enum pgsc_action a = g->def;

		for (size_t i = 0; i < n; i++)
			if (v[i].nr == nr)
				a = v[i].action;
		if (a == PGSC_ACT_ALLOW || a == PGSC_ACT_LOG)
			continue;
		len += (size_t)snprintf(missing + len, sizeof(missing) - len,
					"%s%s", len > 0 ? "," : "", *need);
		if (len >= sizeof(missing))
			len = sizeof(missing) - 1;
	}
	pgsc_effective_free(e);
	if (len == 0)
		return;
	ereport(FATAL,
		(errmsg("pgsc: the global filter refuses %s, which every "
			"backend needs to load its own filter", missing),
		 errdetail("A backend whose lists differ from the "
			   "postmaster's builds its session filter under the "
			   "global filter (libseccomp's memory, a pipe for the "
			   "BPF program, then prctl and seccomp), and every "
			   "child loads its filter with prctl and seccomp: "
			   "with these calls refused, connections would fail."),
		 errhint("Add %s to pgsc.global_syscall_allow; pgsc-report "
			 "adds the module's needs to every global list it "
			 "prints (docs/module.md).", missing)));
}

/* ereport(FATAL) for a failed load; frees @cause first. */
void
pgsc_load_failed(const char *what, int rc, char *cause)
{
	char *msg = pstrdup(cause != NULL ? cause : strerror(-rc));

	free(cause);
	ereport(FATAL,
		(errmsg("pgsc: cannot load the %s seccomp filter", what),
		 errdetail("%s", msg)));
	pg_unreachable();
}

/* The session filter, at the commit of InitPostgres's transaction. */
static void
session_xact_callback(XactEvent event, void *arg)
{
	struct pgsc_filter_spec spec;
	const char *what = "session";
	MemoryContext old;
	char *cause = NULL;
	bool prebuilt = false;
	int rc, n_rules;

	(void)arg;
	if (event != XACT_EVENT_PRE_COMMIT || session_tried)
		return;
	session_tried = true;
	if (!pgsc_enabled)
		return;
	/* Keep what is loaded: a later SET cannot change the filter. */
	old = MemoryContextSwitchTo(TopMemoryContext);
	loaded_session_default = session_default;
	for (int a = 0; a < 4; a++)
		loaded_session_list[a] = session_list[a] != NULL ?
						 pstrdup(session_list[a]) :
						 NULL;
	MemoryContextSwitchTo(old);

	rc = pgsc_session_spec(loaded_session_default, loaded_session_list, &spec,
			  &cause);
	/* a client backend's or walsender's own filter, when its type
	 * has settings, in place of the session filter */
	if (rc == 0)
		rc = pgsc_types_client_spec(&spec, &what, &cause);
	/* the postmaster's program when the settings give its lists
	 * (pgsc_prebuilt.c), else one built here */
	if (rc == 0)
		rc = pgsc_prebuilt_load(&spec, &n_rules, &cause);
	if (rc == 0)
		rc = filter_load(&spec, what, &n_rules, &cause);
	else if (rc > 0) {
		prebuilt = true;
		rc = 0;
	}
	if (rc < 0)
		pgsc_load_failed(what, rc, cause);
	session_loaded = true;
	ereport(DEBUG1,
		(errmsg("pgsc: %s filter loaded: default %s, %d rules, %s",
			what, pgsc_action_name(spec.def), n_rules,
			prebuilt ? "built by the postmaster" :
				   "built by this backend")));
}

/*
 * ClientAuthentication_hook runs inside InitPostgres before the role's
 * and the database's settings (ALTER ROLE/DATABASE ... SET) and the
 * startup packet's options are applied, so the session filter cannot be
 * built here.  The first point after them that every client connection
 * passes, before the first message is read, is the commit of
 * InitPostgres's own transaction: register for it.
 */
static void
pgsc_client_auth(Port *port, int status)
{
	if (prev_client_auth_hook != NULL)
		prev_client_auth_hook(port, status);
	if (status == STATUS_OK && pgsc_enabled && !session_tried)
		RegisterXactCallback(session_xact_callback, NULL);
}

/* ------------------------------------------------------------------ */
/* Settings given to the postmaster                                    */
/* ------------------------------------------------------------------ */

const char *const pgsc_action_suffix[4] = { "allow", "log", "error",
					    "kill" };

/*
 * A custom GUC with a bad value in postgresql.conf (or -c) is only a
 * WARNING when the module defines it, and the built-in default stays:
 * the server would start with a filter nobody asked for.  Check the
 * values given to the postmaster before defining the GUCs, and refuse
 * to start on any bad one.
 */
/* Is @name one of the module's settings? */
static bool
known_setting(const char *name)
{
	char buf[64];

	if (pg_strcasecmp(name, PGSC_GUC_PREFIX ".enabled") == 0 ||
	    pg_strcasecmp(name, PGSC_GUC_PREFIX ".unknown_syscall_action") == 0 ||
	    pg_strcasecmp(name, PGSC_GUC_PREFIX ".syscall_known_max") == 0 ||
	    pgsc_types_known_setting(name))
		return true;
	for (int ctx = 0; ctx < 2; ctx++) {
		for (int a = -1; a < 4; a++) {
			snprintf(buf, sizeof(buf), PGSC_GUC_PREFIX ".%s_syscall_%s",
				 ctx == 0 ? "global" : "session",
				 a < 0 ? "default" : pgsc_action_suffix[a]);
			if (pg_strcasecmp(name, buf) == 0)
				return true;
		}
	}
	return false;
}

static void
check_postmaster_values(void)
{
#if PG_VERSION_NUM >= 160000
	int nvars;
	struct config_generic **vars = get_guc_variables(&nvars);
#else
	struct config_generic **vars = get_guc_variables();
	int nvars = GetNumConfigOptions();
#endif
	const char *v;
	bool b;

	/* A misspelt name ("pgsc.global_syscal_kill") would only be a
	 * WARNING, and its list would silently be missing from the filter. */
	for (int i = 0; i < nvars; i++) {
		const char *n = vars[i]->name;

		if ((vars[i]->flags & GUC_CUSTOM_PLACEHOLDER) != 0 &&
		    pg_strncasecmp(n, PGSC_GUC_PREFIX ".",
				   strlen(PGSC_GUC_PREFIX) + 1) == 0 &&
		    !known_setting(n))
			ereport(FATAL,
				(errmsg("pgsc: unknown parameter \"%s\"", n),
				 errdetail("The pgsc settings are pgsc.enabled, "
					   "pgsc.{global,session,TYPE}_syscall_"
					   "{default,allow,log,error,kill} (TYPE a "
					   "backend type, docs/module.md), "
					   "pgsc.unknown_syscall_action and "
					   "pgsc.syscall_known_max."),
				 errhint("The server does not start with an "
					 "invalid pgsc setting.")));
	}

	v = GetConfigOption(PGSC_GUC_PREFIX ".enabled", true, false);
	if (v != NULL && !parse_bool(v, &b))
		ereport(FATAL,
			(errmsg("pgsc: invalid value for parameter "
				"\"pgsc.enabled\": \"%s\"", v),
			 errhint("The server does not start with an invalid "
				 "pgsc setting.")));
	v = GetConfigOption(PGSC_GUC_PREFIX ".unknown_syscall_action", true,
			    false);
	if (v != NULL && pg_strcasecmp(v, "enosys") != 0 &&
	    pg_strcasecmp(v, "default") != 0)
		ereport(FATAL,
			(errmsg("pgsc: invalid value for parameter "
				"\"pgsc.unknown_syscall_action\": \"%s\"", v),
			 errdetail("Valid values are enosys and default."),
			 errhint("The server does not start with an invalid "
				 "pgsc setting.")));
	v = GetConfigOption(PGSC_GUC_PREFIX ".syscall_known_max", true, false);
	if (v != NULL) {
		char *cause = NULL;
		int max;

		if (syscall_known_max_spec(v, 0, &max, &cause) < 0) {
			char *msg = pstrdup(cause != NULL ? cause : "invalid");

			free(cause);
			ereport(FATAL,
				(errmsg("pgsc: invalid value for parameter "
					"\"pgsc.syscall_known_max\""),
				 errdetail("%s", msg),
				 errhint("The server does not start with an "
					 "invalid pgsc setting.")));
		}
	}
	pgsc_check_values("global", false);
	pgsc_check_values("session", true);
	pgsc_types_check_values();
}

/*
 * The values of pgsc.WHICH_syscall_* given to the postmaster: a default
 * among the actions (and "*" when @star), lists of known names (or "*"
 * alone when @star).  FATAL on a bad one.
 */
void
pgsc_check_values(const char *which, bool star)
{
	const struct config_enum_entry *opt =
		star ? pgsc_star_default_options : global_default_options;
	char name[96];
	const char *v;

	snprintf(name, sizeof(name), PGSC_GUC_PREFIX ".%s_syscall_default",
		 which);
	v = GetConfigOption(name, true, false);
	if (v != NULL) {
		bool ok = false;

		for (; opt->name != NULL; opt++)
			if (pg_strcasecmp(opt->name, v) == 0)
				ok = true;
		if (!ok)
			ereport(FATAL,
				(errmsg("pgsc: invalid value for parameter "
					"\"%s\": \"%s\"", name, v),
				 errdetail("Valid values are allow, log, error, "
					   "kill%s.", star ? " and *" : ""),
				 errhint("The server does not start with an "
					 "invalid pgsc setting.")));
	}
	for (int a = 0; a < 4; a++) {
		char *cause;

		snprintf(name, sizeof(name), PGSC_GUC_PREFIX ".%s_syscall_%s",
			 which, pgsc_action_suffix[a]);
		v = GetConfigOption(name, true, false);
		cause = pgsc_list_problem(v, star);
		if (cause != NULL) {
			char *msg = pstrdup(cause);

			free(cause);
			ereport(FATAL,
				(errmsg("pgsc: invalid value for parameter "
					"\"%s\"", name),
				 errdetail("%s", msg),
				 errhint("The server does not start with an "
					 "invalid pgsc setting.")));
		}
	}
}

static void
define_gucs(void)
{
	/* PostgreSQL keeps pointers to the descriptions, not copies: they
	 * must live as long as the process (PostmasterContext is gone in a
	 * backend), hence string constants. */
	static const char *const list_desc[2][4] = {
		{ "Syscalls allowed by the global seccomp filter.",
		  "Syscalls allowed and audited (a SECCOMP record) by the "
		  "global seccomp filter.",
		  "Syscalls failing with EPERM (audited) under the global "
		  "seccomp filter.",
		  "Syscalls killing the process (audited) under the global "
		  "seccomp filter." },
		{ "Syscalls allowed by the session seccomp filter.",
		  "Syscalls allowed and audited (a SECCOMP record) by the "
		  "session seccomp filter.",
		  "Syscalls failing with EPERM (audited) under the session "
		  "seccomp filter.",
		  "Syscalls killing the process (audited) under the session "
		  "seccomp filter." },
	};

	DefineCustomBoolVariable(PGSC_GUC_PREFIX ".enabled",
				 "Load the pgsc seccomp filters.",
				 "Needs shared_preload_libraries = 'pgsc'.",
				 &pgsc_enabled, false, PGC_POSTMASTER, 0,
				 NULL, NULL, NULL);
	DefineCustomEnumVariable(PGSC_GUC_PREFIX ".global_syscall_default",
				 "Action of the global filter for syscalls "
				 "on none of its lists.",
				 NULL, &global_default, PGSC_ACT_LOG,
				 global_default_options, PGC_POSTMASTER, 0,
				 NULL, NULL, NULL);
	DefineCustomEnumVariable(PGSC_GUC_PREFIX ".session_syscall_default",
				 "Action of the session filter for syscalls "
				 "on none of its lists.",
				 "\"*\" means the global default.",
				 &session_default, DEF_STAR,
				 pgsc_star_default_options, PGC_SUSET, 0, NULL,
				 NULL, NULL);
	for (int a = 0; a < 4; a++) {
		char name[64];

		snprintf(name, sizeof(name),
			 PGSC_GUC_PREFIX ".global_syscall_%s", pgsc_action_suffix[a]);
		DefineCustomStringVariable(
			MemoryContextStrdup(TopMemoryContext, name),
			list_desc[0][a],
			"A comma-separated list of syscall names.",
			&global_list[a], "", PGC_POSTMASTER, 0,
			check_global_list, NULL, NULL);
		/* PGC_SUSET: only superusers change them, and settings of
		 * ALTER ROLE/DATABASE ... SET (made by a superuser) apply at
		 * session start, before the session filter is built. */
		snprintf(name, sizeof(name),
			 PGSC_GUC_PREFIX ".session_syscall_%s",
			 pgsc_action_suffix[a]);
		DefineCustomStringVariable(
			MemoryContextStrdup(TopMemoryContext, name),
			list_desc[1][a],
			"A comma-separated list of syscall names, or \"*\" "
			"for the global list.",
			&session_list[a], "", PGC_SUSET, 0,
			pgsc_check_star_list, NULL, NULL);
	}
	DefineCustomEnumVariable(PGSC_GUC_PREFIX ".unknown_syscall_action",
				 "What a refusing filter does with a syscall "
				 "newer than its list.",
				 "enosys: numbers above pgsc.syscall_known_max "
				 "fail with ENOSYS, so that libc falls back; "
				 "default: the default action.",
				 &unknown_action, UNKNOWN_ENOSYS,
				 unknown_options, PGC_POSTMASTER, 0,
				 NULL, NULL, NULL);
	DefineCustomStringVariable(PGSC_GUC_PREFIX ".syscall_known_max",
				   "The highest syscall number per arch that "
				   "the lists' arch tables knew.",
				   "ARCH:N[,ARCH:N], e.g. 'x86_64:456,i386:456';"
				   " empty: this libseccomp's.",
				   &known_max_spec, "", PGC_POSTMASTER, 0,
				   check_known_max, NULL, NULL);
	pgsc_types_define_gucs();
	MarkGUCPrefixReserved(PGSC_GUC_PREFIX);
}

void
_PG_init(void)
{
	bool postmaster = process_shared_preload_libraries_in_progress &&
			  IsPostmasterEnvironment && !IsUnderPostmaster;
	struct pgsc_filter_spec g, s;
	char *cause = NULL;
	int rc, n_rules;

	if (postmaster)
		check_postmaster_values();
	define_gucs();
	/* Loaded by LOAD or CREATE EXTENSION in a backend: settings and
	 * pgsc_filter() only, no filter. */
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_client_auth_hook = ClientAuthentication_hook;
	ClientAuthentication_hook = pgsc_client_auth;
	/* Single-user and bootstrap backends (initdb) preload libraries
	 * too, outside any postmaster: no filter there. */
	if (!postmaster || !pgsc_enabled)
		return;

	/* The session settings given to the postmaster must resolve too,
	 * or every connection would fail later. */
	rc = pgsc_session_spec(session_default, session_list, &s, &cause);
	if (rc < 0)
		pgsc_load_failed("session", rc, cause);

	/* The filters of the types whose processes load their own after
	 * the fork, built now, while nothing filters the postmaster. */
	pgsc_types_prepare();
	/* The session filter (and the client types'), built once here:
	 * a backend whose settings give the same lists loads it. */
	pgsc_prebuilt_prepare();

	/*
	 * The global filter, in the postmaster, now: everything the server
	 * does from here on (shared memory, sockets, the other preloaded
	 * libraries, every child and what it execs) runs under it, and a
	 * filter cannot be lifted once loaded.
	 */
	pgsc_global_spec(&g);
	check_needs(&g);
	(void)pgsc_known_max_get();
	rc = filter_load(&g, "global", &n_rules, &cause);
	if (rc < 0)
		pgsc_load_failed("global", rc, cause);
	ereport(LOG,
		(errmsg("pgsc: global seccomp filter loaded: default %s, %d "
			"rules; session filter: default %s; unknown "
			"syscalls: %s above %d",
			pgsc_action_name(g.def), n_rules,
			pgsc_action_name(s.def),
			unknown_action == UNKNOWN_ENOSYS ? "enosys"
							 : "default",
			known_max.max_native)));
}

/* ------------------------------------------------------------------ */
/* pgsc_filter()                                                       */
/* ------------------------------------------------------------------ */

/*
 * One row "<unknown ARCH>" per arch: syscallnum is the known max, and
 * every number above it that the lists do not name gets filter_action
 * ("enosys", or the default's name when ENOSYS does not apply: under
 * pgsc.unknown_syscall_action = default, or a default of allow or log).
 */
static void
put_unknown_rows(ReturnSetInfo *rsi, const struct pgsc_filter_spec *spec,
		 const char *context)
{
	const struct filter_unknown *k = pgsc_known_max_get();
	uint32_t native = pgsc_native_arch();
	uint32_t arch[2] = { native, pgsc_compat_arch(native) };
	int max[2] = { k->max_native, k->max_compat };
	bool enosys = unknown_action == UNKNOWN_ENOSYS &&
		      (spec->def == PGSC_ACT_ERROR ||
		       spec->def == PGSC_ACT_KILL);
	bool nulls[5] = { false, false, false, false, true };
	Datum values[5] = { 0 };
	char name[64];

	for (int i = 0; i < 2; i++) {
		if (arch[i] == 0 || max[i] < 0)
			continue;
		snprintf(name, sizeof(name), "<unknown %s>",
			 pgsc_arch_name(arch[i]));
		values[0] = CStringGetTextDatum(name);
		values[1] = Int32GetDatum(max[i]);
		values[2] = CStringGetTextDatum(enosys ? "enosys" :
				pgsc_action_name(spec->def));
		values[3] = CStringGetTextDatum(context);
		tuplestore_putvalues(rsi->setResult, rsi->setDesc, values,
				     nulls);
	}
}

void
pgsc_put_rows(ReturnSetInfo *rsi, const struct pgsc_filter_spec *spec,
	      const char *context)
{
	const struct pgsc_effective_entry *v;
	pgsc_effective *e = NULL;
	char *cause = NULL;
	/* arg_rule, the fifth column, is read only by a pgsc--1.0.sql
	 * that declares it: heap_form_tuple() takes the declared columns */
	Datum values[5] = { 0 };
	bool nulls[5] = { false, false, false, false, true };
	size_t n;
	int rc;

	rc = pgsc_effective_new(spec, 0, &e, &cause);
	if (rc < 0) {
		char *msg = pstrdup(cause != NULL ? cause : strerror(-rc));

		free(cause);
		ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("pgsc: invalid %s filter", context),
			 errdetail("%s", msg)));
	}
	/* the default first, as "<default>" with no number */
	values[0] = CStringGetTextDatum("<default>");
	nulls[1] = true;
	values[1] = (Datum)0;
	values[2] = CStringGetTextDatum(pgsc_action_name(spec->def));
	values[3] = CStringGetTextDatum(context);
	tuplestore_putvalues(rsi->setResult, rsi->setDesc, values, nulls);
	nulls[1] = false;

	n = pgsc_effective_entries(e, &v);
	for (size_t i = 0; i < n; i++) {
		values[0] = CStringGetTextDatum(v[i].name);
		values[1] = Int32GetDatum(v[i].nr);
		values[2] = CStringGetTextDatum(pgsc_action_name(v[i].action));
		nulls[4] = v[i].rule == NULL;
		values[4] = v[i].rule != NULL ? CStringGetTextDatum(v[i].rule)
					      : (Datum)0;
		tuplestore_putvalues(rsi->setResult, rsi->setDesc, values,
				     nulls);
	}
	pgsc_effective_free(e);
	put_unknown_rows(rsi, spec, context);
}

PG_FUNCTION_INFO_V1(pgsc_filter);

/*
 * pgsc_filter() RETURNS TABLE(syscall text, syscallnum int,
 *                             filter_action text, context text,
 *                             arg_rule text)
 * The global filter, then the session filter: the one loaded in this
 * backend, or, when none was loaded (pgsc.enabled off, not a client
 * backend), the one the current settings would give; then the filter of
 * each backend type that has settings of its own, under the type's name
 * (pgsc_types_rows()).
 */
Datum
pgsc_filter(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsi = (ReturnSetInfo *)fcinfo->resultinfo;
	struct pgsc_filter_spec g, s;
	char *cause = NULL;
	int rc;

	InitMaterializedSRF(fcinfo, 0);
	pgsc_global_spec(&g);
	pgsc_put_rows(rsi, &g, "global");
	rc = pgsc_session_spec_now(&s, &cause);
	if (rc < 0) {
		char *msg = pstrdup(cause != NULL ? cause : "invalid");

		free(cause);
		ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("pgsc: invalid session filter"),
			 errdetail("%s", msg)));
	}
	pgsc_put_rows(rsi, &s, "session");
	pgsc_types_rows(rsi);
	return (Datum)0;
}
