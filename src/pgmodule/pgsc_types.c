/* SPDX-License-Identifier: PostgreSQL */
/* pgsc_types.c - a filter per backend type in the pgsc module: the
 * pgsc.TYPE_syscall_* settings, which filter each process of the server
 * gets, and where it is loaded (docs/module.md, "A filter per backend
 * type"). */
/*
 * Two kinds of type:
 *
 *   - client backend and walsender read their role's and database's
 *     settings inside InitPostgres: their filter takes the place of the
 *     session filter at the commit of InitPostgres's transaction
 *     (pgsc_module.c), and an unset type is the session filter;
 *   - every other type takes its settings from the postmaster
 *     (PGC_POSTMASTER), and stock PostgreSQL (15 to 18) calls no hook
 *     of a library in it once its type is known: the aux processes run
 *     no transaction, and the autovacuum launcher none before its loop.
 *     17 and 18 launch every child through postmaster_child_launch()
 *     and its table child_process_kinds[], but that table is const and
 *     calls no library either, so the same way in serves all four.
 *     The postmaster builds each such type's filter as BPF before it
 *     loads the global filter.  A fork handler (pthread_atfork) makes
 *     each child of the postmaster raise TYPE_SIGNAL at itself, blocked:
 *     PostgreSQL forks with every signal blocked (15: the postmaster
 *     runs its forks with signals blocked; 16 on: fork_process() blocks
 *     them) and sets MyBackendType (17 on: postmaster_child_launch())
 *     and MyBgworkerEntry before the child first unblocks its signals,
 *     so the handler runs at that first unblock, knows the type, and
 *     loads the prebuilt filter with filter_load_bpf() (prctl and
 *     seccomp(2)), which is async-signal-safe.  An unset type runs under the global filter
 *     alone, as before.
 */
#include "postgres.h"

#include <errno.h>
#include <linux/filter.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "utils/memutils.h"

#include "pgsc_module.h"

struct ptype {
	const char *name;       /* as pgsc-report and pg_stat_activity say */
	const char *setting;    /* pgsc.<setting>_syscall_* */
	BackendType bt;
	const char *bgw_type;   /* B_BG_WORKER: its bgw_type; NULL: others */
	bool client;            /* falls back to the session filter */
	int def;                /* GUC: enum pgsc_action or DEF_STAR */
	char *list[4];          /* GUCs */
	struct sock_filter *bpf;        /* prebuilt in the postmaster */
	unsigned short bpf_len;         /* instructions */
};

/* The types of the PostgreSQL this module is built for: an entry of
 * pgtypes.def whose "since" is a later major expands to nothing (its
 * BackendType does not exist in this server's headers). */
#define TYPE_ENTRY(name, setting, bt, bgw_type, client) \
	{ name, setting, bt, bgw_type, client },
#define TYPE_NONE(name, setting, bt, bgw_type, client)
#define PGSC_TYPE_15 TYPE_ENTRY
#if PG_VERSION_NUM >= 170000
#define PGSC_TYPE_17 TYPE_ENTRY
#else
#define PGSC_TYPE_17 TYPE_NONE
#endif
#if PG_VERSION_NUM >= 180000
#define PGSC_TYPE_18 TYPE_ENTRY
#else
#define PGSC_TYPE_18 TYPE_NONE
#endif
static struct ptype ptypes[] = {
#define PGSC_TYPE(name, setting, bt, bgw_type, client, since) \
	PGSC_TYPE_##since(name, setting, bt, bgw_type, client)
#include "pgtypes.def"
#undef PGSC_TYPE
};
#define N_TYPES (sizeof(ptypes) / sizeof(ptypes[0]))

/* The signal a child of the postmaster raises at itself (SIGRTMIN + 7:
 * PostgreSQL uses no real-time signal); 0 = no type has a filter. */
static int type_signo;

/*
 * Is a background worker's bgw_type @have the type @want?  PostgreSQL 16
 * to 18 give each kind of logical replication worker a bgw_type of its
 * own (apply, tablesync, parallel apply); they are one type here, as
 * they are one role in pgsc-report (src/roles.c).
 */
static bool
bgw_type_is(const char *have, const char *want)
{
	static const char *const lrw[] = {
		"logical replication apply worker",
		"logical replication tablesync worker",
		"logical replication parallel worker",
	};

	if (strcmp(have, want) == 0)
		return true;
	if (strcmp(want, "logical replication worker") != 0)
		return false;
	for (size_t i = 0; i < sizeof(lrw) / sizeof(lrw[0]); i++)
		if (strcmp(have, lrw[i]) == 0)
			return true;
	return false;
}

/* The type of the calling process, or NULL (async-signal-safe). */
static struct ptype *
type_of_self(void)
{
	for (size_t i = 0; i < N_TYPES; i++) {
		struct ptype *t = &ptypes[i];

		if (t->bt != MyBackendType)
			continue;
		if (t->bt != B_BG_WORKER || t->bgw_type == NULL)
			return t;
		if (MyBgworkerEntry != NULL &&
		    bgw_type_is(MyBgworkerEntry->bgw_type, t->bgw_type))
			return t;
	}
	return NULL;
}

/* Has @t a setting of its own (anything but "*")? */
static bool
type_is_set(const struct ptype *t)
{
	if (t->def != DEF_STAR)
		return true;
	for (int a = 0; a < 4; a++)
		if (t->list[a] == NULL || !pgsc_is_star(t->list[a]))
			return true;
	return false;
}

/* @t's spec, "*" resolved against @base (the session or global one). */
static int
type_spec(const struct ptype *t, const struct pgsc_filter_spec *base,
	  struct pgsc_filter_spec *out, char **cause)
{
	struct pgsc_filter_spec ts;

	ts.def = t->def == DEF_STAR ? base->def : (enum pgsc_action)t->def;
	for (int a = 0; a < 4; a++)
		ts.list[a] = t->list[a];
	return pgsc_session_spec_resolve(base, &ts, out, cause);
}

/* ------------------------------------------------------------------ */
/* Settings                                                            */
/* ------------------------------------------------------------------ */

void
pgsc_types_define_gucs(void)
{
	/* PostgreSQL keeps the pointers: string constants. */
	static const char *const desc[2] = {
		"Action of this backend type's filter for syscalls on none "
		"of its lists (\"*\": the default of the filter it falls "
		"back to).",
		"Syscalls of one action in this backend type's filter: a "
		"comma-separated list, or \"*\" for the list of the filter it "
		"falls back to.",
	};
	static const char *const fallback[2] = {
		"The type falls back to the global filter.",
		"The type falls back to the session filter.",
	};

	for (size_t i = 0; i < N_TYPES; i++) {
		struct ptype *t = &ptypes[i];
		GucContext ctx = t->client ? PGC_SUSET : PGC_POSTMASTER;
		char name[96];

		snprintf(name, sizeof(name), PGSC_GUC_PREFIX ".%s_syscall_default",
			 t->setting);
		DefineCustomEnumVariable(
			MemoryContextStrdup(TopMemoryContext, name), desc[0],
			fallback[t->client], &t->def, DEF_STAR,
			pgsc_star_default_options, ctx, 0, NULL, NULL, NULL);
		for (int a = 0; a < 4; a++) {
			snprintf(name, sizeof(name),
				 PGSC_GUC_PREFIX ".%s_syscall_%s", t->setting,
				 pgsc_action_suffix[a]);
			DefineCustomStringVariable(
				MemoryContextStrdup(TopMemoryContext, name),
				desc[1], fallback[t->client], &t->list[a], "*",
				ctx, 0, pgsc_check_star_list, NULL, NULL);
		}
	}
}

bool
pgsc_types_known_setting(const char *name)
{
	char buf[96];

	for (size_t i = 0; i < N_TYPES; i++)
		for (int a = -1; a < 4; a++) {
			snprintf(buf, sizeof(buf), PGSC_GUC_PREFIX ".%s_syscall_%s",
				 ptypes[i].setting,
				 a < 0 ? "default" : pgsc_action_suffix[a]);
			if (pg_strcasecmp(name, buf) == 0)
				return true;
		}
	return false;
}

void
pgsc_types_check_values(void)
{
	for (size_t i = 0; i < N_TYPES; i++)
		pgsc_check_values(ptypes[i].setting, true);
}

/* ------------------------------------------------------------------ */
/* Client backends and walsenders: at InitPostgres's commit            */
/* ------------------------------------------------------------------ */

/*
 * In a client backend or walsender whose type has settings, replace the
 * session @spec by the type's (its "*" the session's); *@what becomes
 * the type.  Returns 0 or -EINVAL with *cause.
 */
int
pgsc_types_client_spec(struct pgsc_filter_spec *spec, const char **what,
		       char **cause)
{
	struct ptype *t = type_of_self();
	struct pgsc_filter_spec out;
	int rc;

	if (t == NULL || !t->client || !type_is_set(t))
		return 0;
	rc = type_spec(t, spec, &out, cause);
	if (rc < 0)
		return rc;
	*spec = out;
	*what = t->name;
	return 0;
}

/*
 * The spec of the @i-th client type (counting from 0) as the postmaster's
 * settings give it, @session its session spec, in @out; *@what is the
 * type, or "session" for a type without settings (pgsc_prebuilt.c).
 * Returns 1, 0 past the last client type, or -EINVAL with *cause.
 */
int
pgsc_types_client_nth(size_t i, const struct pgsc_filter_spec *session,
		      struct pgsc_filter_spec *out, const char **what,
		      char **cause)
{
	for (size_t k = 0; k < N_TYPES; k++) {
		const struct ptype *t = &ptypes[k];
		int rc;

		if (!t->client || i-- > 0)
			continue;
		if (!type_is_set(t)) {
			*out = *session;
			*what = "session";
			return 1;
		}
		rc = type_spec(t, session, out, cause);
		*what = t->name;
		return rc < 0 ? rc : 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The other types: prebuilt, loaded at the child's first unblock      */
/* ------------------------------------------------------------------ */

static void
type_signal(int signo)
{
	static const char failed[] = "pgsc: FATAL: cannot load the seccomp "
				     "filter of this backend type\n";
	static const char early[] = "pgsc: FATAL: a child of the postmaster "
				    "unblocked its signals before its type was "
				    "known; no type filter can be loaded\n";
	int save_errno = errno;
	struct ptype *t = type_of_self();

	(void)signo;
	if (t == NULL && (MyBackendType == B_INVALID ||
			  MyProcPid == PostmasterPid)) {
		/* cannot happen on PostgreSQL 15: fail closed, loudly */
		(void)!write(STDERR_FILENO, early, sizeof(early) - 1);
		_exit(1);
	}
	/* filter_load_bpf() is two system calls: async-signal-safe */
	if (t != NULL && !t->client && t->bpf != NULL) {
		if (filter_load_bpf(t->bpf, (size_t)t->bpf_len *
						    sizeof(struct sock_filter)) < 0) {
			(void)!write(STDERR_FILENO, failed, sizeof(failed) - 1);
			_exit(1);
		}
	}
	errno = save_errno;
}

/* In each child of the postmaster: TYPE_SIGNAL, pending until the child
 * unblocks its signals. */
static void
after_fork(void)
{
	static const char failed[] = "pgsc: FATAL: cannot raise the signal "
				     "that loads the filter of this backend "
				     "type\n";
	sigset_t s;

	if (MyProcPid != PostmasterPid || type_signo == 0)
		return;
	sigemptyset(&s);
	sigaddset(&s, type_signo);
	if (sigprocmask(SIG_BLOCK, &s, NULL) != 0 || raise(type_signo) != 0) {
		(void)!write(STDERR_FILENO, failed, sizeof(failed) - 1);
		_exit(1);
	}
}

/* Build @t's filter as BPF, its "*" the global spec's; FATAL if not. */
static void
type_build(struct ptype *t, const struct pgsc_filter_spec *g)
{
	struct pgsc_filter_spec spec;
	struct filter_rules fr;
	enum filter_step step;
	char *cause = NULL;
	size_t bad = 0, len = 0;
	void *bpf = NULL;
	int rc;

	rc = type_spec(t, g, &spec, &cause);
	if (rc < 0)
		pgsc_load_failed(t->name, rc, cause);
	rc = pgsc_filter_rules(&spec, t->name, &fr, &cause);
	if (rc < 0)
		pgsc_load_failed(t->name, rc, cause);
	rc = filter_build_export(pgsc_action_scmp(spec.def), fr.r, fr.n,
			    pgsc_unknown_part(), &bpf, &len, &step, &bad);
	if (rc < 0) {
		if (step != FILTER_STEP_INIT)
			pgsc_filter_cause(step, rc, &fr, bad, &cause);
		pgsc_filter_rules_free(&fr);
		pgsc_load_failed(t->name, rc, cause);
	}
	t->bpf = bpf;
	t->bpf_len = (unsigned short)(len / sizeof(struct sock_filter));
	ereport(LOG,
		(errmsg("pgsc: %s filter built: default %s, %zu rules, %u BPF "
			"instructions; each %s process loads it", t->name,
			pgsc_action_name(spec.def), fr.nrules, t->bpf_len,
			t->name)));
	pgsc_filter_rules_free(&fr);
}

/*
 * In the postmaster, before the global filter: build the filter of each
 * type that has settings and is not a client type, and arm the fork
 * handler and the signal that load them.  FATAL on any failure: the
 * server does not start with a filter missing.
 */
void
pgsc_types_prepare(void)
{
	struct pgsc_filter_spec g;
	struct sigaction sa;
	int n = 0, rc;

	pgsc_global_spec(&g);
	for (size_t i = 0; i < N_TYPES; i++)
		if (!ptypes[i].client && type_is_set(&ptypes[i])) {
			type_build(&ptypes[i], &g);
			n++;
		}
	if (n == 0)
		return;
	type_signo = SIGRTMIN + 7;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = type_signal;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(type_signo, &sa, NULL) != 0)
		pgsc_load_failed("backend type", -errno,
				 strdup("sigaction of the signal that loads "
					"the type filters failed"));
	rc = pthread_atfork(NULL, NULL, after_fork);
	if (rc != 0)
		pgsc_load_failed("backend type", -rc,
				 strdup("pthread_atfork failed"));
}

/* ------------------------------------------------------------------ */
/* pgsc_filter()                                                       */
/* ------------------------------------------------------------------ */

/* The rows of each type with settings of its own, as the current
 * settings give it, under the type's name. */
void
pgsc_types_rows(ReturnSetInfo *rsi)
{
	struct pgsc_filter_spec g, s, base, out;
	char *cause = NULL;

	pgsc_global_spec(&g);
	for (size_t i = 0; i < N_TYPES; i++) {
		struct ptype *t = &ptypes[i];

		if (!type_is_set(t))
			continue;
		if (t->client && pgsc_session_spec_now(&s, &cause) < 0)
			break; /* pgsc_filter() has reported it */
		base = t->client ? s : g;
		if (type_spec(t, &base, &out, &cause) < 0) {
			char *msg = pstrdup(cause != NULL ? cause : "invalid");

			free(cause);
			ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("pgsc: invalid %s filter", t->name),
				 errdetail("%s", msg)));
		}
		pgsc_put_rows(rsi, &out, t->name);
	}
}
