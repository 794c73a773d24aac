/* SPDX-License-Identifier: PostgreSQL */
/* report.c - lists from the store: GUC lines, JSON provenance, a table,
 * a systemd drop-in, an OCI seccomp profile, the effective filters. */
/*
 * Every name printed comes from libseccomp for the record's own arch and
 * is checked against [a-z0-9_]+ before it reaches a GUC line; every other
 * text that came from a record (exe, role) is escaped for its format.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgsc-int.h"

/*
 * Every role of @roles is a known backend type or a role the store holds
 * in some round: "--session-roles clinet" is a typo, not an empty list.
 * Returns 0, or -EINVAL with *cause naming the role.
 */
static int
report_roles_known(pgsc_store *st, const struct strset *roles, char **cause)
{
	for (size_t i = 0; i < roles->n; i++) {
		const char *role = roles->v[i];
		int rc;

		if (roles_known(role))
			continue;
		rc = store_role_seen(st, role, cause);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			util_cause(cause, "--session-roles: unknown role \"%s\": "
				   "not a PostgreSQL backend type (client "
				   "backend, walsender, autovacuum worker, "
				   "parallel worker, ...) and not in the store "
				   "(pgsc-report --format=table lists its roles)",
				   role);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- */

struct rolecount {
	const char *role;   /* interned in rep->roles */
	uint64_t count;
};

struct entry {
	uint32_t arch;
	int32_t nr;
	const char *name;
	uint64_t count;         /* in server roles */
	uint64_t all;           /* in every role */
	int64_t first_round;
	int64_t example_pid;
	char *example_exe;
	int global, session;
	struct rolecount *rc;
	size_t nrc;
};

struct rep {
	pgsc_store *st;
	int64_t from, to;
	struct entry *e;
	size_t n, cap;
	struct strset roles;
	struct strset session;
	uint64_t records, attributed, unrelated, standalone, unattributed;
	uint64_t rejected;
	uint64_t lost, serial_gaps, rotation_gaps, drain_timeouts;
	int64_t unfinished;
	char **cause;
};

static void
rep_free(struct rep *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->e[i].example_exe);
		free(r->e[i].rc);
	}
	free(r->e);
	strset_free(&r->roles);
	strset_free(&r->session);
}

static struct entry *
entry_get(struct rep *r, uint32_t arch, int32_t nr)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].arch == arch && r->e[i].nr == nr)
			return &r->e[i];
	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 128;
		struct entry *ne = realloc(r->e, ncap * sizeof(*ne));

		if (ne == NULL)
			return NULL;
		r->e = ne;
		r->cap = ncap;
	}
	memset(&r->e[r->n], 0, sizeof(r->e[0]));
	r->e[r->n].arch = arch;
	r->e[r->n].nr = nr;
	r->e[r->n].first_round = INT64_MAX;
	return &r->e[r->n++];
}

/* One role's count of one syscall (store_role_aggs()) into its entry. */
static int
load_row(void *arg, const struct store_role_row *w)
{
	struct rep *r = arg;
	const char *role = strset_intern(&r->roles, w->role);
	struct entry *e = entry_get(r, w->arch, w->nr);
	struct rolecount *nrc;

	if (role == NULL || e == NULL)
		return -ENOMEM;
	e->all += w->count;
	nrc = realloc(e->rc, (e->nrc + 1) * sizeof(*nrc));
	if (nrc == NULL)
		return -ENOMEM;
	e->rc = nrc;
	e->rc[e->nrc++] = (struct rolecount){ role, w->count };
	if (!pgsc_role_in_server(role))
		return 0;
	e->count += w->count;
	e->global = 1;
	if (roles_in_session(&r->session, role))
		e->session = 1;
	if (w->first_round < e->first_round)
		e->first_round = w->first_round;
	if (e->example_exe == NULL) {
		e->example_pid = w->example_pid;
		if (w->example_exe != NULL &&
		    (e->example_exe = strdup(w->example_exe)) == NULL)
			return -ENOMEM;
	}
	return 0;
}

static int
load(struct rep *r)
{
	struct store_totals t;
	int rc;

	/* the totals and the loss figures of the rounds, in one pass */
	rc = store_totals(r->st, r->from, r->to, &t, r->cause);
	if (rc < 0)
		return rc;
	r->records = t.records;
	r->attributed = t.attributed;
	r->unrelated = t.unrelated;
	r->standalone = t.standalone;
	r->unattributed = t.unattributed;
	r->rejected = t.rejected;
	r->lost = t.lost;
	r->serial_gaps = t.serial_gaps;
	r->rotation_gaps = t.rotation_gaps;
	r->drain_timeouts = t.drain_timeouts;
	r->unfinished = t.unfinished;
	rc = store_role_aggs(r->st, r->from, r->to, load_row, r, r->cause);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < r->n; i++) {
		struct entry *e = &r->e[i];

		e->name = pgsc_syscall_name(e->arch, e->nr);
		if (e->name == NULL || !pgsc_guc_name_ok(e->name)) {
			/* cannot happen for imported data: checked at import */
			e->global = e->session = 0;
			e->name = NULL;
		}
	}
	return 0;
}

/* The sorted, de-duplicated names of one list (names of several arches
 * merge into one list, as the GUCs take names). */
static int
list_names(const struct rep *r, int session, struct strset *out)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];

		if (e->name == NULL || !(session ? e->session : e->global))
			continue;
		if (strset_add(out, e->name) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A name that --arch or --portable replaced: "open" -> "openat". */
struct mapnote {
	const char *from;       /* interned in lists->noted */
	struct strset to;
};

/* The two lists as printed, with what --arch/--portable did to them. */
struct lists {
	struct strset l[2];
	int mapping;                    /* --arch or --portable given */
	int portable;
	uint32_t target;                /* --arch, 0 = none */
	struct strset unmapped[2];      /* no equivalent on the target */
	struct strset noted[2];
	struct mapnote *notes[2];       /* sorted by from */
	size_t nnotes[2];
};

static void
lists_free(struct lists *L)
{
	for (int k = 0; k < 2; k++) {
		strset_free(&L->l[k]);
		strset_free(&L->unmapped[k]);
		strset_free(&L->noted[k]);
		for (size_t i = 0; i < L->nnotes[k]; i++)
			strset_free(&L->notes[k][i].to);
		free(L->notes[k]);
	}
}

static int
note_cmp(const void *a, const void *b)
{
	return strcmp(((const struct mapnote *)a)->from,
		      ((const struct mapnote *)b)->from);
}

/* @name stands for @to in list @k. */
static int
lists_note(struct lists *L, int k, const char *name, const struct strset *to)
{
	struct mapnote *nn;
	const char *from;

	if (to->n == 1 && strcmp(to->v[0], name) == 0)
		return 0;
	if (strset_has(&L->noted[k], name))
		return 0;
	from = strset_intern(&L->noted[k], name);
	nn = realloc(L->notes[k], (L->nnotes[k] + 1) * sizeof(*nn));
	if (from == NULL || nn == NULL)
		return -ENOMEM;
	L->notes[k] = nn;
	nn = &nn[L->nnotes[k]++];
	nn->from = from;
	memset(&nn->to, 0, sizeof(nn->to));
	for (size_t i = 0; i < to->n; i++)
		if (strset_add(&nn->to, to->v[i]) < 0)
			return -ENOMEM;
	return 0;
}

/*
 * The lists for @o: as recorded, or mapped through the families.
 * With --arch T every name is mapped to T.  With --portable alone each
 * name is widened on the native arch and on the arch it was recorded on,
 * so a name of a 32-bit descendant (_llseek) stays in the list for the
 * compat part of the filter.  docs/portability.md.
 */
static int
lists_build(const struct rep *r, const struct pgsc_report_opts *o,
	    struct lists *L)
{
	struct strset to = { 0 };
	int rc = 0;

	memset(L, 0, sizeof(*L));
	L->mapping = o->arch != 0 || o->portable;
	L->target = o->arch;
	L->portable = o->portable;
	for (int k = 0; k < 2; k++) {
		if (!L->mapping) {
			rc = list_names(r, k, &L->l[k]);
			if (rc < 0)
				goto out;
			continue;
		}
		for (size_t i = 0; i < r->n; i++) {
			const struct entry *e = &r->e[i];
			uint32_t t[2];
			size_t nt = 0;

			if (e->name == NULL || !(k ? e->session : e->global))
				continue;
			if (o->arch != 0) {
				t[nt++] = o->arch;
			} else {
				t[nt++] = pgsc_native_arch();
				if (e->arch != t[0])
					t[nt++] = e->arch;
			}
			strset_free(&to);
			for (size_t j = 0; j < nt; j++) {
				rc = portable_map(e->name, t[j], o->portable, &to);
				if (rc < 0)
					goto out;
			}
			rc = 0;
			if (to.n == 0) {
				if (strset_add(&L->unmapped[k], e->name) < 0)
					rc = -ENOMEM;
			} else {
				for (size_t j = 0; j < to.n && rc == 0; j++)
					if (strset_add(&L->l[k], to.v[j]) < 0)
						rc = -ENOMEM;
				if (rc == 0)
					rc = lists_note(L, k, e->name, &to);
			}
			if (rc < 0)
				goto out;
		}
		if (L->nnotes[k] > 1)
			qsort(L->notes[k], L->nnotes[k], sizeof(L->notes[k][0]),
			      note_cmp);
	}
out:
	strset_free(&to);
	return rc;
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
}

static void print_joined(FILE *out, const struct strset *s, const char *sep);

static void
lists_comment(FILE *out, const struct lists *L)
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
				print_joined(out, &L->notes[k][i].to, ",");
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

static void
arch_list(const struct rep *r, struct strset *out)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->e[i].global && pgsc_arch_name(r->e[i].arch))
			strset_add(out, pgsc_arch_name(r->e[i].arch));
	if (out->n == 0 && pgsc_arch_name(pgsc_native_arch()))
		strset_add(out, pgsc_arch_name(pgsc_native_arch()));
}

static void
print_joined(FILE *out, const struct strset *s, const char *sep)
{
	for (size_t i = 0; i < s->n; i++)
		fprintf(out, "%s%s", i ? sep : "", s->v[i]);
}

static void
header_line(FILE *out, const struct rep *r)
{
	struct strset arches = { 0 };

	arch_list(r, &arches);
	fprintf(out, "# pgsc: %llu records, rounds %lld-%lld, arch ",
		(unsigned long long)r->records, (long long)r->from,
		(long long)r->to);
	print_joined(out, &arches, ",");
	fprintf(out, ", %llu unattributed\n",
		(unsigned long long)r->unattributed);
	strset_free(&arches);
	if (r->unattributed > 0)
		fprintf(out, "# warning: %llu records could not be attributed "
			"to a server; collect with examples/pgsc.rules loaded "
			"or give --postmaster-pid / --pg-log\n",
			(unsigned long long)r->unattributed);
	if (r->rejected > 0)
		fprintf(out, "# warning: %llu input lines were rejected; "
			"pgsc-report --format=table lists the reasons\n",
			(unsigned long long)r->rejected);
	if (r->lost || r->serial_gaps || r->rotation_gaps || r->drain_timeouts)
		fprintf(out, "# warning: records may be missing: kernel lost "
			"%llu, serial gaps %llu, rotation gaps %llu, drain "
			"timeouts %llu (pgsc-report --check-complete)\n",
			(unsigned long long)r->lost,
			(unsigned long long)r->serial_gaps,
			(unsigned long long)r->rotation_gaps,
			(unsigned long long)r->drain_timeouts);
	if (r->unfinished)
		fprintf(out, "# note: %lld round(s) still being collected\n",
			(long long)r->unfinished);
}

/*
 * Are the lists of @r worth pasting?  Not when more than half of the
 * records could not be attributed: the missing half is as likely to hold
 * the server's calls.  With @need_server, not either when no record of
 * the rounds was attributed to a server (the lists are empty).
 * Returns 1, or 0 with *cause saying what to do.
 */
static int
rep_usable(const struct rep *r, int need_server, char **cause)
{
	/* no record at all is a round that logged nothing: a proof run
	 * under error that nothing was denied in (tools/pgsc-iterate) */
	if (r->records == 0)
		return 1;
	if (need_server && r->attributed == 0) {
		util_cause(cause, "none of the %llu records of rounds "
			   "%lld-%lld was attributed to a PostgreSQL server "
			   "(%llu unattributed, %llu unrelated, %llu "
			   "standalone), so the lists are empty: load the "
			   "rules examples/pgsc.rules (auditctl -R) while "
			   "collecting, or import the log into a new store "
			   "with the hints --postmaster-pid PID or --pg-log "
			   "FILE", (unsigned long long)r->records,
			   (long long)r->from, (long long)r->to,
			   (unsigned long long)r->unattributed,
			   (unsigned long long)r->unrelated,
			   (unsigned long long)r->standalone);
		return 0;
	}
	if (r->unattributed > r->records / 2) {
		util_cause(cause, "%llu of the %llu records of rounds "
			   "%lld-%lld (more than half) could not be "
			   "attributed to a server, so the lists are likely "
			   "incomplete: load the rules examples/pgsc.rules "
			   "(auditctl -R) while collecting, or import the log "
			   "into a new store with the hints --postmaster-pid "
			   "PID or --pg-log FILE",
			   (unsigned long long)r->unattributed,
			   (unsigned long long)r->records, (long long)r->from,
			   (long long)r->to);
		return 0;
	}
	return 1;
}

static int
report_guc(FILE *out, struct rep *r, const struct lists *L,
	   const char *prefix)
{
	header_line(out, r);
	lists_comment(out, L);
	fprintf(out, "%sglobal_syscall_allow = '", prefix);
	print_joined(out, &L->l[0], ",");
	fprintf(out, "'\n%ssession_syscall_allow = '", prefix);
	print_joined(out, &L->l[1], ",");
	fprintf(out, "'\n");
	return 0;
}

static void
json_str(FILE *out, const char *s)
{
	fputc('"', out);
	pgsc_json_escape(out, s ? s : "");
	fputc('"', out);
}

static void
json_list(FILE *out, const struct strset *s)
{
	fputc('[', out);
	for (size_t i = 0; i < s->n; i++) {
		if (i)
			fputs(", ", out);
		json_str(out, s->v[i]);
	}
	fputc(']', out);
}

struct json_rejects {
	FILE *out;
	int first;
};

static int
json_reject(void *arg, const char *reason, uint64_t count)
{
	struct json_rejects *jr = arg;

	fprintf(jr->out, "%s", jr->first ? "" : ", ");
	json_str(jr->out, reason);
	fprintf(jr->out, ": %lld", (long long)count);
	jr->first = 0;
	return 0;
}

static int
report_json(FILE *out, struct rep *r, const struct lists *L)
{
	struct strset arches = { 0 };
	struct json_rejects jr;
	int first;

	arch_list(r, &arches);
	fprintf(out, "{\n  \"pgsc_version\": \"%s\",\n", PGSC_VERSION);
	fprintf(out, "  \"rounds\": {\"from\": %lld, \"to\": %lld},\n",
		(long long)r->from, (long long)r->to);
	fprintf(out, "  \"records\": %llu,\n  \"attributed\": %llu,\n"
		"  \"unrelated\": %llu,\n  \"standalone\": %llu,\n"
		"  \"unattributed\": %llu,\n",
		(unsigned long long)r->records,
		(unsigned long long)r->attributed,
		(unsigned long long)r->unrelated,
		(unsigned long long)r->standalone,
		(unsigned long long)r->unattributed);
	fprintf(out, "  \"loss\": {\"kernel_lost\": %llu, \"serial_gaps\": %llu, "
		"\"rotation_gaps\": %llu, \"drain_timeouts\": %llu, "
		"\"complete\": %s},\n",
		(unsigned long long)r->lost, (unsigned long long)r->serial_gaps,
		(unsigned long long)r->rotation_gaps,
		(unsigned long long)r->drain_timeouts,
		(r->lost || r->serial_gaps || r->rotation_gaps ||
		 r->drain_timeouts) ? "false" : "true");
	fprintf(out, "  \"rejected\": {");
	jr.out = out;
	jr.first = 1;
	if (store_rejects(r->st, r->from, r->to, json_reject, &jr, r->cause) < 0)
		return -EIO;
	fprintf(out, "},\n  \"arch\": ");
	json_list(out, &arches);
	fprintf(out, ",\n  \"session_roles\": ");
	json_list(out, &r->session);
	fprintf(out, ",\n  \"global\": ");
	json_list(out, &L->l[0]);
	fprintf(out, ",\n  \"session\": ");
	json_list(out, &L->l[1]);
	if (L->mapping) {
		/* --arch, --portable: what was mapped, what was left out */
		fprintf(out, ",\n  \"target_arch\": ");
		if (L->target)
			json_str(out, pgsc_arch_name(L->target));
		else
			fputs("null", out);
		fprintf(out, ",\n  \"portable\": %s,\n  \"mapped\": {",
			L->portable ? "true" : "false");
		for (int k = 0; k < 2; k++) {
			fprintf(out, "%s\"%s\": {", k ? ", " : "",
				k ? "session" : "global");
			for (size_t i = 0; i < L->nnotes[k]; i++) {
				fputs(i ? ", " : "", out);
				json_str(out, L->notes[k][i].from);
				fputs(": ", out);
				json_list(out, &L->notes[k][i].to);
			}
			fputc('}', out);
		}
		fprintf(out, "},\n  \"unmapped\": {\"global\": ");
		json_list(out, &L->unmapped[0]);
		fprintf(out, ", \"session\": ");
		json_list(out, &L->unmapped[1]);
		fputc('}', out);
	}
	fprintf(out, ",\n  \"syscalls\": [");
	first = 1;
	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];

		if (e->name == NULL)
			continue;
		fprintf(out, "%s\n    {\"name\": ", first ? "" : ",");
		first = 0;
		json_str(out, e->name);
		fprintf(out, ", \"arch\": ");
		json_str(out, pgsc_arch_name(e->arch));
		fprintf(out, ", \"nr\": %d, \"count\": %llu, \"global\": %s, "
			"\"session\": %s, \"roles\": {", e->nr,
			(unsigned long long)e->count, e->global ? "true" : "false",
			e->session ? "true" : "false");
		for (size_t k = 0; k < e->nrc; k++) {
			if (k)
				fputs(", ", out);
			json_str(out, e->rc[k].role);
			fprintf(out, ": %llu", (unsigned long long)e->rc[k].count);
		}
		fputc('}', out);
		if (e->global) {
			fprintf(out, ", \"first_round\": %lld, \"example_pid\": "
				"%lld, \"example_exe\": ", (long long)e->first_round,
				(long long)e->example_pid);
			json_str(out, e->example_exe);
		}
		fputc('}', out);
	}
	fprintf(out, "\n  ]\n}\n");
	strset_free(&arches);
	return 0;
}

static int
table_reject(void *arg, const char *reason, uint64_t count)
{
	fprintf(arg, "# rejected: %s: %lld lines\n", reason, (long long)count);
	return 0;
}

static int
report_table(FILE *out, struct rep *r)
{
	const char **cols;
	size_t ncols = r->roles.n;

	cols = malloc((ncols ? ncols : 1) * sizeof(*cols));
	if (cols == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < ncols; i++)
		cols[i] = r->roles.v[i];
	qsort(cols, ncols, sizeof(*cols), roles_cmp);

	header_line(out, r);
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
	if (store_rejects(r->st, r->from, r->to, table_reject, out, r->cause) < 0)
		return -EIO;
	fprintf(out, "# records: %llu attributed, %llu unrelated, %llu "
		"standalone, %llu unattributed\n",
		(unsigned long long)r->attributed,
		(unsigned long long)r->unrelated,
		(unsigned long long)r->standalone,
		(unsigned long long)r->unattributed);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Filters for other loaders: systemd, OCI runtimes, the effective rows */

/*
 * The arches a filter must cover: the target of --arch; else the native
 * arch and every arch the global list was recorded on (a filter without
 * i386 kills a 32-bit descendant: DESIGN §4).
 */
static int
filter_arches(const struct rep *r, const struct lists *L, uint32_t *v,
	      size_t cap)
{
	size_t n = 0;

	if (L->target != 0) {
		v[n++] = L->target;
		return (int)n;
	}
	v[n++] = pgsc_native_arch();
	for (size_t i = 0; i < r->n && n < cap; i++) {
		size_t k;

		if (!r->e[i].global || r->e[i].name == NULL)
			continue;
		for (k = 0; k < n && v[k] != r->e[i].arch; k++)
			;
		if (k == n)
			v[n++] = r->e[i].arch;
	}
	return (int)n;
}

static int
filter_nonempty(const struct lists *L, char **cause)
{
	if (L->l[0].n > 0)
		return 0;
	util_cause(cause, "the global list is empty: a filter built from it "
		   "would allow nothing (collect a round first)");
	return -ENODATA;
}

/*
 * A systemd unit drop-in.  systemd loads one filter, before it execs the
 * service's main process, and every process of the service inherits it:
 * exactly the global context (DESIGN §1).  The session list has no
 * systemd counterpart (backends load it after authentication), so it is
 * not emitted.  systemd 252 (Debian 12): SystemCallErrorNumber= takes an
 * errno or "kill", not "log"; logging everything not listed is
 * SystemCallLog=~LIST, which filters nothing.
 */
static int
report_systemd(FILE *out, struct rep *r, const struct lists *L,
	       enum pgsc_action def, char **cause)
{
	uint32_t arches[16];
	int na = filter_arches(r, L, arches, ARRAY_SIZE(arches));
	int rc = filter_nonempty(L, cause);

	if (rc < 0)
		return rc;
	header_line(out, r);
	lists_comment(out, L);
	fprintf(out, "# A drop-in for the server's unit, e.g.\n"
		"#   /etc/systemd/system/postgresql@15-main.service.d/"
		"pgsc.conf\n"
		"# It holds the global list: systemd loads one filter for "
		"the whole service.\n"
		"# systemd also allows execve, exit, exit_group, getrlimit, "
		"rt_sigreturn,\n"
		"# sigreturn and the calls that read the time or sleep, "
		"listed or not.\n"
		"[Service]\n");
	fputs("SystemCallArchitectures=", out);
	for (int i = 0; i < na; i++) {
		const char *n = arches[i] == pgsc_native_arch() ? "native"
				: portable_systemd_arch(arches[i]);

		fprintf(out, "%s%s", i ? " " : "", n ? n : "native");
	}
	fputc('\n', out);
	if (def == PGSC_ACT_LOG) {
		fputs("# default log: every call not listed is logged, none "
		      "is refused\nSystemCallLog=~", out);
		print_joined(out, &L->l[0], " ");
		fputc('\n', out);
	} else {
		fputs("SystemCallFilter=", out);
		print_joined(out, &L->l[0], " ");
		fprintf(out, "\nSystemCallErrorNumber=%s\n",
			def == PGSC_ACT_KILL ? "kill" : "EPERM");
	}
	return 0;
}

/*
 * An OCI runtime seccomp profile (opencontainers/runtime-spec,
 * config-linux.md "Seccomp"; runc, crun, podman and docker read it).
 * The whole container runs under it, so it holds the global list.
 * No "flags": runc 1.1.5 (Debian 12) refuses the whole profile when it
 * has any ("seccomp flags are not yet supported by runc"), so
 * SECCOMP_FILTER_FLAG_LOG cannot make the kernel audit the errors as
 * the module's filters do; a collection round uses --default=log.
 */
static int
report_oci(FILE *out, struct rep *r, const struct lists *L,
	   enum pgsc_action def, char **cause)
{
	uint32_t arches[16];
	int na = filter_arches(r, L, arches, ARRAY_SIZE(arches));
	int rc = filter_nonempty(L, cause);

	if (rc < 0)
		return rc;
	fprintf(out, "{\n  \"defaultAction\": \"%s\",\n",
		def == PGSC_ACT_LOG ? "SCMP_ACT_LOG" :
		def == PGSC_ACT_KILL ? "SCMP_ACT_KILL_PROCESS" :
		"SCMP_ACT_ERRNO");
	if (def == PGSC_ACT_ERROR)
		fprintf(out, "  \"defaultErrnoRet\": %d,\n", EPERM);
	fputs("  \"architectures\": [", out);
	for (int i = 0, first = 1; i < na; i++) {
		const char *n = portable_oci_arch(arches[i]);

		if (n == NULL)
			continue;
		fprintf(out, "%s\"%s\"", first ? "" : ", ", n);
		first = 0;
	}
	fputs("],\n  \"syscalls\": [\n    {\n      \"names\": [", out);
	for (size_t i = 0; i < L->l[0].n; i++) {
		fputs(i == 0 ? "\n        " : (i % 6 == 0 ? ",\n        "
						  : ", "), out);
		json_str(out, L->l[0].v[i]);
	}
	fputs("\n      ],\n      \"action\": \"SCMP_ACT_ALLOW\"\n    }\n"
	      "  ]\n}\n", out);
	return 0;
}

/*
 * The effective filters, one row per (syscall, context), like the RFC's
 * pg_get_seccomp_filter() and the module's pgsc_filter(), with the
 * default first as "<default>": computed by effective.c, the code the
 * module runs, so both agree.  The lists are allow lists; every other
 * call gets the default.  Each context is shown alone, as pgsc_filter()
 * shows it; a backend runs under both, the strictest action winning.
 */
static int
report_effective(FILE *out, struct rep *r, const struct lists *L,
		 enum pgsc_action def, char **cause)
{
	uint32_t arch = L->target ? L->target : pgsc_native_arch();
	pgsc_effective *eff[2] = { NULL, NULL };
	char *joined[2] = { NULL, NULL };
	int rc = 0;

	for (int k = 0; k < 2; k++) {
		struct pgsc_filter_spec spec;
		struct strbuf sb = { 0 };

		for (size_t i = 0; i < L->l[k].n; i++) {
			if (i)
				strbuf_addstr(&sb, ",");
			strbuf_addstr(&sb, L->l[k].v[i]);
		}
		if (sb.oom) {
			strbuf_free(&sb);
			rc = -ENOMEM;
			goto out;
		}
		joined[k] = sb.buf;
		memset(&spec, 0, sizeof(spec));
		spec.def = def;
		spec.list[PGSC_ACT_ALLOW] = joined[k] ? joined[k] : "";
		rc = pgsc_effective_new(&spec, arch, &eff[k], cause);
		if (rc < 0)
			goto out;
	}
	header_line(out, r);
	lists_comment(out, L);
	for (int k = 0; k < 2; k++) {
		const struct pgsc_effective_entry *v;
		size_t n = pgsc_effective_entries(eff[k], &v);

		fprintf(out, "# %s: default %s on %s, %zu listed\n",
			k ? "session" : "global",
			pgsc_action_name(pgsc_effective_default(eff[k])),
			pgsc_arch_name(arch), n);
	}
	fprintf(out, "%-24s %7s  %-6s %s\n", "syscall", "nr", "action",
		"context");
	for (int k = 0; k < 2; k++) {
		const struct pgsc_effective_entry *v;
		size_t n = pgsc_effective_entries(eff[k], &v);

		/* as pgsc_filter() does: the default first */
		fprintf(out, "%-24s %7s  %-6s %s\n", "<default>", "-",
			pgsc_action_name(pgsc_effective_default(eff[k])),
			k ? "session" : "global");
		for (size_t i = 0; i < n; i++) {
			fprintf(out, "%-24s ", v[i].name);
			fprintf(out, "%7d  %-6s %s\n", v[i].nr,
				pgsc_action_name(v[i].action),
				k ? "session" : "global");
		}
	}
out:
	for (int k = 0; k < 2; k++) {
		pgsc_effective_free(eff[k]);
		free(joined[k]);
	}
	return rc;
}

struct status_row;
static int status_rows(pgsc_store *st, struct strset *session,
		       struct status_row **v, size_t *n, char **cause);
static void status_rows_free(struct status_row *v, size_t n);
static int report_html(FILE *out, struct rep *r, const struct lists *L,
		       char **cause);

static int
round_range(struct rep *r, int64_t from, int64_t to)
{
	int64_t lo = 0, hi = 0;
	int rc = store_finished_range(r->st, &lo, &hi, r->cause);

	if (rc < 0)
		return rc;
	if (rc == 0) {
		util_cause(r->cause, "the store has no rounds yet; import with "
			   "pgsc-collect --import first");
		return -ENOENT;
	}
	r->from = from > 0 ? from : lo;
	r->to = to > 0 ? to : hi;
	if (r->from < lo || r->to > hi || r->from > r->to) {
		util_cause(r->cause, "rounds %lld-%lld are not in the "
			   "store (it has %lld-%lld)", (long long)r->from,
			   (long long)r->to, (long long)lo, (long long)hi);
		return -ERANGE;
	}
	return 0;
}

int
pgsc_report(pgsc_store *st, const struct pgsc_report_opts *opts, FILE *out,
	    char **cause)
{
	struct rep r;
	struct lists L;
	enum pgsc_action def;
	int rc;

	memset(&r, 0, sizeof(r));
	memset(&L, 0, sizeof(L));
	r.st = st;
	r.cause = cause;
	rc = report_session_roles(opts->session_roles, &r.session, cause);
	if (rc < 0)
		goto out;
	rc = report_roles_known(st, &r.session, cause);
	if (rc < 0)
		goto out;
	rc = round_range(&r, opts->round_from, opts->round_to);
	if (rc < 0)
		goto out;
	if ((opts->arch != 0 || opts->portable) &&
	    opts->format == PGSC_FMT_TABLE) {
		util_cause(cause, "--arch and --portable do not apply to the "
			   "table, which shows the names as recorded");
		rc = -EINVAL;
		goto out;
	}
	if (opts->arch != 0 && pgsc_arch_name(opts->arch) == NULL) {
		util_cause(cause, "unknown arch token 0x%08x", opts->arch);
		rc = -EINVAL;
		goto out;
	}
	if (opts->has_default && (opts->def < PGSC_ACT_LOG ||
				  opts->def > PGSC_ACT_KILL)) {
		util_cause(cause, "the default action must be log, error or "
			   "kill");
		rc = -EINVAL;
		goto out;
	}
	rc = load(&r);
	if (rc < 0)
		goto out;
	rc = lists_build(&r, opts, &L);
	if (rc < 0)
		goto out;
	def = opts->has_default ? (enum pgsc_action)opts->def : PGSC_ACT_ERROR;
	switch (opts->format) {
	case PGSC_FMT_GUC:
		rc = report_guc(out, &r, &L,
				opts->guc_prefix ? opts->guc_prefix : "");
		break;
	case PGSC_FMT_JSON:
		rc = report_json(out, &r, &L);
		break;
	case PGSC_FMT_TABLE:
		rc = report_table(out, &r);
		break;
	case PGSC_FMT_SYSTEMD:
		rc = report_systemd(out, &r, &L, def, cause);
		break;
	case PGSC_FMT_OCI:
		rc = report_oci(out, &r, &L, def, cause);
		break;
	case PGSC_FMT_EFFECTIVE:
		rc = report_effective(out, &r, &L, def, cause);
		break;
	case PGSC_FMT_HTML:
		rc = report_html(out, &r, &L, cause);
		break;
	default:
		util_cause(cause, "unknown format %d", (int)opts->format);
		rc = -EINVAL;
		break;
	}
	if (rc == 0 && (fflush(out) != 0 || ferror(out))) {
		rc = errno ? -errno : -EIO;
		util_cause(cause, "writing the report: %s", strerror(-rc));
	}
	if (rc == 0)
		lists_warn(&L, opts->diag != NULL ? opts->diag : stderr);
	else if (rc == -ENOMEM)
		util_cause(cause, "out of memory");
	if (rc == 0 && !rep_usable(&r, 1, cause))
		rc = 1;
out:
	lists_free(&L);
	rep_free(&r);
	return rc;
}

/* ---------------------------------------------------------------- */
/* Status and completeness                                           */

int
pgsc_check_complete(pgsc_store *st, const struct pgsc_report_opts *opts,
		    FILE *out, char **cause)
{
	struct rep r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.st = st;
	r.cause = cause;
	rc = round_range(&r, opts->round_from, opts->round_to);
	if (rc == 0)
		rc = report_session_roles(NULL, &r.session, cause);
	if (rc == 0)
		rc = load(&r);
	if (rc == 0) {
		int missing = r.lost || r.serial_gaps || r.rotation_gaps ||
			      r.drain_timeouts;
		char *why = NULL;
		int usable = rep_usable(&r, 0, &why);

		fprintf(out, "rounds %lld-%lld: kernel lost %llu, serial gaps "
			"%llu, rotation gaps %llu, drain timeouts %llu, "
			"unattributed %llu of %llu: %s\n",
			(long long)r.from, (long long)r.to,
			(unsigned long long)r.lost,
			(unsigned long long)r.serial_gaps,
			(unsigned long long)r.rotation_gaps,
			(unsigned long long)r.drain_timeouts,
			(unsigned long long)r.unattributed,
			(unsigned long long)r.records,
			missing ? "records may be missing"
			: !usable ? "not usable"
			: "complete");
		if (!usable && why != NULL)
			fprintf(out, "%s\n", why);
		free(why);
		rc = missing || !usable;
	}
	rep_free(&r);
	return rc;
}

/* One row of --status. */
struct status_row {
	int64_t id, records, loss, nnew, nnew_sess;
	double started, first, last, span;
	int finished;
	char *label, *mode;
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

static void
status_json(FILE *out, const struct status_row *v, size_t n,
	    const struct rep *tot, int converged, const char *verdict)
{
	fprintf(out, "{\n  \"pgsc_version\": \"%s\",\n  \"converged\": %s,\n"
		"  \"verdict\": ", PGSC_VERSION, converged ? "true" : "false");
	json_str(out, verdict);
	fprintf(out, ",\n  \"records\": %llu,\n  \"attributed\": %llu,\n"
		"  \"unattributed\": %llu,\n  \"rounds\": [",
		(unsigned long long)tot->records,
		(unsigned long long)tot->attributed,
		(unsigned long long)tot->unattributed);
	for (size_t i = 0; i < n; i++) {
		const struct status_row *w = &v[i];

		fprintf(out, "%s\n    {\"round\": %lld, \"started\": %.3f, "
			"\"finished\": %s, \"mode\": ", i ? "," : "",
			(long long)w->id, w->started,
			w->finished ? "true" : "false");
		json_str(out, w->mode);
		fprintf(out, ", \"records\": %lld, \"records_per_s\": %.0f, "
			"\"new\": %lld, \"new_session\": %lld, \"last_event\": ",
			(long long)w->records,
			w->span > 0 ? w->records / w->span : 0.0,
			(long long)w->nnew, (long long)w->nnew_sess);
		if (w->last > 0)
			fprintf(out, "%.3f", w->last);
		else
			fputs("null", out);
		fprintf(out, ", \"loss\": %lld, \"label\": ", (long long)w->loss);
		json_str(out, w->label);
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
	w = &acc->v[acc->n];
	memset(w, 0, sizeof(*w));
	acc->n++;
	w->id = row->id;
	w->label = strdup(row->label ? row->label : "");
	w->mode = strdup(row->mode ? row->mode : "?");
	if (w->label == NULL || w->mode == NULL)
		return -ENOMEM;
	w->records = row->records;
	w->first = row->first;
	w->last = row->last;
	w->started = row->started;
	w->finished = row->finished;
	w->loss = row->loss;
	w->nnew = row->nnew;
	w->nnew_sess = row->nnew_sess;
	w->span = w->finished ? row->finished_at - w->started
		  : (row->last_commit > w->started ?
		     row->last_commit - w->started : 0);
	if (w->last > w->first && w->span < w->last - w->first)
		w->span = w->last - w->first;
	return 0;
}

/* The rows of --status, oldest first, in *@v (the caller frees them). */
static int
status_rows(pgsc_store *st, struct strset *session, struct status_row **v,
	    size_t *n, char **cause)
{
	struct status_acc acc = { NULL, 0, 0 };
	int rc;

	rc = store_status_rows(st, status_session, session, status_row, &acc,
			       cause);
	*v = acc.v;
	*n = acc.n;
	return rc;
}

static void
status_rows_free(struct status_row *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].label);
		free(v[i].mode);
	}
	free(v);
}

int
pgsc_status(pgsc_store *st, const struct pgsc_report_opts *opts, FILE *out,
	    int *converged, char **cause)
{
	struct status_row *v = NULL;
	struct rep tot;
	size_t n = 0;
	char *why = NULL, *verdict = NULL;
	int rc, usable = 0;

	memset(&tot, 0, sizeof(tot));
	tot.st = st;
	tot.cause = cause;
	*converged = 0;
	rc = report_session_roles(opts ? opts->session_roles : NULL,
				  &tot.session, cause);
	if (rc == 0)
		rc = report_roles_known(st, &tot.session, cause);
	if (rc == 0)
		rc = status_rows(st, &tot.session, &v, &n, cause);
	if (rc < 0)
		goto out;
	if (n > 0) {
		/* the totals of every round, for rep_usable() */
		tot.from = v[0].id;
		tot.to = v[n - 1].id;
		rc = load(&tot);
		if (rc < 0)
			goto out;
		usable = rep_usable(&tot, 1, &why);
	}
	if (n == 0) {
		verdict = strdup("no rounds yet");
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
	status_rows_free(v, n);
	rep_free(&tot);
	return rc;
}

/* ---------------------------------------------------------------- */
/* HTML (report_html.c draws it)                                     */

static int
report_html(FILE *out, struct rep *r, const struct lists *L, char **cause)
{
	struct html_page pg;
	struct html_syscall *sc = NULL;
	struct html_round *hr = NULL;
	struct status_row *rows = NULL;
	struct strset arches = { 0 };
	const char **cols = NULL;
	uint64_t *counts = NULL;
	size_t nrows = 0, ncols = r->roles.n, nsc = 0;
	char *why = NULL;
	int rc;

	memset(&pg, 0, sizeof(pg));
	rc = status_rows(r->st, &r->session, &rows, &nrows, cause);
	if (rc < 0)
		goto out;
	arch_list(r, &arches);
	cols = calloc(ncols ? ncols : 1, sizeof(*cols));
	sc = calloc(r->n ? r->n : 1, sizeof(*sc));
	counts = calloc((r->n ? r->n : 1) * (ncols ? ncols : 1),
			sizeof(*counts));
	hr = calloc(nrows ? nrows : 1, sizeof(*hr));
	if (cols == NULL || sc == NULL || counts == NULL || hr == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < ncols; i++)
		cols[i] = r->roles.v[i];
	qsort(cols, ncols, sizeof(*cols), roles_cmp);
	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];
		struct html_syscall *h = &sc[nsc];
		uint64_t *rc_row = counts + nsc * (ncols ? ncols : 1);

		if (e->name == NULL)
			continue;
		h->name = e->name;
		h->arch = pgsc_arch_name(e->arch);
		h->all = e->all;
		h->global = e->global;
		h->session = e->session;
		h->first_round = e->first_round;
		h->example_pid = e->example_pid;
		h->example_exe = e->example_exe;
		for (size_t c = 0; c < ncols; c++)
			for (size_t k = 0; k < e->nrc; k++)
				if (strcmp(e->rc[k].role, cols[c]) == 0)
					rc_row[c] += e->rc[k].count;
		h->role_counts = rc_row;
		nsc++;
	}
	for (size_t i = 0; i < nrows; i++) {
		struct status_row *w = &rows[i];

		if (w->id < r->from || w->id > r->to)
			continue;
		hr[pg.nrounds].id = w->id;
		hr[pg.nrounds].records = w->records;
		hr[pg.nrounds].nnew = w->nnew;
		hr[pg.nrounds].nnew_sess = w->nnew_sess;
		hr[pg.nrounds].loss = w->loss;
		hr[pg.nrounds].label = w->label;
		pg.nrounds++;
	}
	pg.from = r->from;
	pg.to = r->to;
	pg.records = r->records;
	pg.attributed = r->attributed;
	pg.unrelated = r->unrelated;
	pg.standalone = r->standalone;
	pg.unattributed = r->unattributed;
	pg.rejected = r->rejected;
	pg.lost = r->lost;
	pg.serial_gaps = r->serial_gaps;
	pg.rotation_gaps = r->rotation_gaps;
	pg.drain_timeouts = r->drain_timeouts;
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
	pg.nglobal = L->l[0].n;
	pg.nsession = L->l[1].n;
	if (!rep_usable(r, 1, &why))
		pg.warning = why;
	rc = html_write(out, &pg);
out:
	if (rc == -ENOMEM)
		util_cause(cause, "out of memory");
	free(why);
	free(cols);
	free(sc);
	free(counts);
	free(hr);
	strset_free(&arches);
	status_rows_free(rows, nrows);
	return rc;
}
