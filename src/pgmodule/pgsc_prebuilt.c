/* SPDX-License-Identifier: PostgreSQL */
/* pgsc_prebuilt.c - the session filter built once, in the postmaster:
 * a client backend or walsender whose settings are the postmaster's
 * loads that program instead of building its own (docs/module.md, "The
 * session filter, built once"). */
/*
 * Building a filter with libseccomp is most of what a connection costs
 * a server that opens one per query: 6.5 ms a connection against 1.75 ms
 * with pgsc.enabled = off (pgbench -C, 2026-12-07), libseccomp 30% of
 * the machine's samples.  The program depends on the spec (the default
 * and the four lists once "*" is resolved), on the unknown part and on
 * the arch, and the last two are the postmaster's (PGC_POSTMASTER).  So
 * the postmaster builds, before it loads the global filter, the program
 * of each distinct spec its own settings give the client types (the
 * session filter, and the client backend's or walsender's own when that
 * type has settings), and keeps it with its spec; every child inherits
 * both.  At the commit of InitPostgres's transaction, a backend whose
 * spec, after its role's and database's settings, is character for
 * character one of them loads that program with filter_load_bpf()
 * (no_new_privs and seccomp(2): no libseccomp, no allocation).  Any
 * other spec is built by the backend itself, as before.
 *
 * A reload can change the session settings in the postmaster.  Before
 * each fork, a pthread_atfork() prepare handler compares the specs the
 * settings give now with the kept ones (a few string compares) and
 * rebuilds on a difference, in the postmaster, under the global filter:
 * the calls of filter_needs[], which check_needs() requires the global
 * list to allow.  A rebuild that fails keeps no program, and the
 * backends then build their own and report the failure as they always
 * did (fail closed).
 */
#include "postgres.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "miscadmin.h"

#include "pgsc_module.h"

/* client backend and walsender: at most one spec each */
#define N_PREBUILT 4

struct prebuilt {
	struct pgsc_filter_spec spec;   /* its lists malloc'd, "" for none */
	void *bpf;              /* filter_build_export()'s */
	size_t len;             /* bytes */
	int nrules;
};

static struct prebuilt prebuilt[N_PREBUILT];
static size_t n_prebuilt;
static bool fork_armed;

static const char *
list_or_empty(const char *s)
{
	return s != NULL ? s : "";
}

/* Do @a and @b give the same filter, character for character (NULL
 * and "" are the same empty list)? */
static bool
spec_equal(const struct pgsc_filter_spec *a, const struct pgsc_filter_spec *b)
{
	if (a->def != b->def)
		return false;
	for (int k = 0; k < 4; k++)
		if (strcmp(list_or_empty(a->list[k]),
			   list_or_empty(b->list[k])) != 0)
			return false;
	return true;
}

static void
spec_free(struct pgsc_filter_spec *spec)
{
	for (int a = 0; a < 4; a++)
		free((char *)(uintptr_t)spec->list[a]);
}

static void
prebuilt_clear(void)
{
	for (size_t i = 0; i < n_prebuilt; i++) {
		spec_free(&prebuilt[i].spec);
		free(prebuilt[i].bpf);
	}
	memset(prebuilt, 0, sizeof(prebuilt));
	n_prebuilt = 0;
}

/*
 * The specs the postmaster's settings give the client types now, in
 * @specs (at most N_PREBUILT, duplicates removed) and their names in
 * @whats.  Returns their number, or -EINVAL with *cause.
 */
static int
current_specs(struct pgsc_filter_spec *specs, const char **whats,
	      char **cause)
{
	struct pgsc_filter_spec session, s;
	const char *what;
	int n = 0, rc;

	rc = pgsc_session_spec_now(&session, cause);
	if (rc < 0)
		return rc;
	for (size_t i = 0; (rc = pgsc_types_client_nth(i, &session, &s, &what,
						      cause)) > 0; i++) {
		bool dup = false;

		for (int k = 0; k < n && !dup; k++)
			dup = spec_equal(&specs[k], &s);
		if (dup)
			continue;
		if (n == N_PREBUILT)
			break;
		specs[n] = s;
		whats[n++] = what;
	}
	return rc < 0 ? rc : n;
}

/*
 * Keep @spec in @p and build its program; on a failure @p keeps the
 * spec without a program (its backends build their own) and the
 * result is a negative errno with *cause.
 */
static int
build(struct prebuilt *p, const struct pgsc_filter_spec *spec,
      const char *what, char **cause)
{
	struct filter_rules fr;
	enum filter_step step;
	size_t bad = 0;
	int rc;

	memset(p, 0, sizeof(*p));
	p->spec.def = spec->def;
	for (int a = 0; a < 4; a++) {
		p->spec.list[a] = strdup(list_or_empty(spec->list[a]));
		if (p->spec.list[a] == NULL) {
			spec_free(&p->spec);
			memset(p, 0, sizeof(*p));
			return -ENOMEM;
		}
	}
	rc = pgsc_filter_rules(spec, what, &fr, cause);
	if (rc < 0)
		return rc;
	rc = filter_build_export(pgsc_action_scmp(spec->def), fr.r, fr.n,
				 pgsc_unknown_part(), &p->bpf, &p->len, &step,
				 &bad);
	if (rc < 0 && step != FILTER_STEP_INIT)
		pgsc_filter_cause(step, rc, &fr, bad, cause);
	p->nrules = (int)fr.nrules;
	pgsc_filter_rules_free(&fr);
	return rc;
}

/* current_specs() failed at the last build: do not retry (and log) at
 * every fork while the settings stay what they are */
static bool specs_failed;

/*
 * Build the programs of the settings now, logging each at LOG.  One
 * that cannot be built is logged with its cause and kept as a spec
 * without a program: the backends whose settings give it build their
 * own and fail with that cause.
 */
static void
build_all(void)
{
	struct pgsc_filter_spec specs[N_PREBUILT];
	const char *whats[N_PREBUILT];
	char *cause = NULL;
	int n;

	prebuilt_clear();
	n = current_specs(specs, whats, &cause);
	specs_failed = n < 0;
	for (int i = 0; i < n; i++) {
		struct prebuilt *p = &prebuilt[n_prebuilt];
		int rc = build(p, &specs[i], whats[i], &cause);

		if (p->spec.list[0] != NULL)
			n_prebuilt++;
		if (rc == 0) {
			ereport(LOG,
				(errmsg("pgsc: %s filter built in the "
					"postmaster: default %s, %d rules, "
					"%zu BPF instructions; each backend "
					"whose settings give these lists "
					"loads it", whats[i],
					pgsc_action_name(specs[i].def),
					p->nrules, p->len / 8)));
			continue;
		}
		ereport(LOG,
			(errmsg("pgsc: the postmaster cannot build the %s "
				"filter; each backend builds its own",
				whats[i]),
			 errdetail("%s", cause != NULL ? cause :
						       strerror(-rc))));
		free(cause);
		cause = NULL;
	}
	if (n < 0) {
		ereport(LOG,
			(errmsg("pgsc: the postmaster cannot build the "
				"session filter; each backend builds its own"),
			 errdetail("%s", cause != NULL ? cause :
						       strerror(-n))));
		free(cause);
	}
}

/* Are the kept specs those of the settings now? */
static bool
up_to_date(void)
{
	struct pgsc_filter_spec specs[N_PREBUILT];
	const char *whats[N_PREBUILT];
	char *cause = NULL;
	int n = current_specs(specs, whats, &cause);

	free(cause);
	if (n < 0)
		return specs_failed;
	if (specs_failed || (size_t)n != n_prebuilt)
		return false;
	for (int i = 0; i < n; i++)
		if (!spec_equal(&prebuilt[i].spec, &specs[i]))
			return false;
	return true;
}

/* Before each fork of the postmaster: rebuild after a reload changed
 * the settings. */
static void
fork_prepare(void)
{
	if (MyProcPid != PostmasterPid || !IsPostmasterEnvironment ||
	    IsUnderPostmaster)
		return;
	if (!up_to_date())
		build_all();
}

/*
 * In the postmaster, before the global filter: build the programs and
 * arm the rebuild after a reload.  A failure is not fatal here: the
 * backends build their own filter and refuse the connection with the
 * cause, as without this.
 */
void
pgsc_prebuilt_prepare(void)
{
	int rc;

	build_all();
	if (fork_armed)
		return;
	rc = pthread_atfork(fork_prepare, NULL, NULL);
	if (rc != 0)
		ereport(LOG,
			(errmsg("pgsc: pthread_atfork failed (%s): after a "
				"reload that changes the session settings, "
				"each backend builds its own filter",
				strerror(rc))));
	else
		fork_armed = true;
}

/*
 * In a client backend or walsender: load the postmaster's program of
 * @spec, if it has one.  Returns 1 when loaded (*@n_rules its rules),
 * 0 when there is none (build one), or a negative errno with *cause.
 */
int
pgsc_prebuilt_load(const struct pgsc_filter_spec *spec, int *n_rules,
		   char **cause)
{
	for (size_t i = 0; i < n_prebuilt; i++) {
		int rc;

		if (!spec_equal(&prebuilt[i].spec, spec))
			continue;
		if (prebuilt[i].bpf == NULL)
			return 0; /* the postmaster could not build it */
		rc = filter_load_bpf(prebuilt[i].bpf, prebuilt[i].len);
		if (rc < 0) {
			pgsc_filter_cause(FILTER_STEP_LOAD, rc, NULL, 0, cause);
			return rc;
		}
		*n_rules = prebuilt[i].nrules;
		return 1;
	}
	return 0;
}
