/* report.c - lists from the store: GUC lines, JSON provenance, a table. */
/*
 * Every name printed comes from libseccomp for the record's own arch and
 * is checked against [a-z0-9_]+ before it reaches a GUC line; every other
 * text that came from a record (exe, role) is escaped for its format.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgsc-int.h"

/* Session presets, see docs/roles.md.  Each role brings its descendants. */
static const char *const preset_client[] = {
	"client backend", "walsender", PGSC_ROLE_BACKEND_UNKNOWN, NULL,
};
static const char *const preset_pgseccomp[] = {
	"client backend", "walsender", NULL,
};
static const char *const preset_rfc[] = {
	"client backend", "walsender", PGSC_ROLE_BACKEND_UNKNOWN,
	"autovacuum launcher", "background worker",
	"logical replication launcher", "logical replication worker",
	"logical replication apply worker",
	"logical replication tablesync worker",
	"logical replication parallel worker", "parallel worker", NULL,
};

int
report_session_roles(const char *spec, struct strset *roles, char **cause)
{
	const char *const *preset = NULL;
	char *copy, *tok, *save = NULL;
	int rc = 0;

	if (spec == NULL || strcmp(spec, "client") == 0)
		preset = preset_client;
	else if (strcmp(spec, "pgseccomp") == 0)
		preset = preset_pgseccomp;
	else if (strcmp(spec, "rfc") == 0)
		preset = preset_rfc;
	if (preset != NULL) {
		for (; *preset != NULL; preset++)
			if (strset_add(roles, *preset) < 0)
				return -ENOMEM;
		return 0;
	}
	copy = strdup(spec);
	if (copy == NULL)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		if (*tok == '\0')
			continue;
		if (!pgsc_role_in_server(tok) ||
		    strcmp(tok, PGSC_ROLE_POSTMASTER) == 0) {
			util_cause(cause, "role \"%s\" cannot be in the session "
				   "list (the postmaster and processes outside "
				   "the server never run a session)", tok);
			rc = -EINVAL;
			break;
		}
		if (strset_add(roles, tok) < 0) {
			rc = -ENOMEM;
			break;
		}
	}
	free(copy);
	if (rc == 0 && roles->n == 0) {
		util_cause(cause, "empty --session-roles");
		rc = -EINVAL;
	}
	return rc;
}

int
pgsc_session_roles_check(const char *spec, char **cause)
{
	struct strset s = { 0 };
	int rc = report_session_roles(spec, &s, cause);

	strset_free(&s);
	return rc;
}

static int
in_session(const struct strset *roles, const char *role)
{
	if (strset_has(roles, role))
		return 1;
	if (strncmp(role, "descendant/", 11) == 0)
		return strset_has(roles, role + 11);
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

static int
load(struct rep *r)
{
	sqlite3 *db = store_db(r->st);
	sqlite3_stmt *s = NULL;
	int rc;

	/* the totals and the loss figures of the rounds, in one pass */
	if (sqlite3_prepare_v2(db, "SELECT coalesce(sum(records),0), "
			       "coalesce(sum(attributed),0), "
			       "coalesce(sum(unrelated),0), "
			       "coalesce(sum(standalone),0), "
			       "coalesce(sum(unattributed),0), "
			       "coalesce(sum(rejected),0), "
			       "coalesce(sum(max(coalesce(kernel_lost_end, 0) "
			       "- coalesce(kernel_lost_start, 0), 0)), 0), "
			       "coalesce(sum(serial_gaps), 0), "
			       "coalesce(sum(rotation_gaps), 0), "
			       "coalesce(sum(drain_timeouts), 0), "
			       "coalesce(sum(finished IS NULL), 0) FROM rounds "
			       "WHERE id BETWEEN ?1 AND ?2", -1, &s,
			       NULL) != SQLITE_OK)
		goto sqlerr;
	sqlite3_bind_int64(s, 1, r->from);
	sqlite3_bind_int64(s, 2, r->to);
	if (sqlite3_step(s) == SQLITE_ROW) {
		r->records = (uint64_t)sqlite3_column_int64(s, 0);
		r->attributed = (uint64_t)sqlite3_column_int64(s, 1);
		r->unrelated = (uint64_t)sqlite3_column_int64(s, 2);
		r->standalone = (uint64_t)sqlite3_column_int64(s, 3);
		r->unattributed = (uint64_t)sqlite3_column_int64(s, 4);
		r->rejected = (uint64_t)sqlite3_column_int64(s, 5);
		r->lost = (uint64_t)sqlite3_column_int64(s, 6);
		r->serial_gaps = (uint64_t)sqlite3_column_int64(s, 7);
		r->rotation_gaps = (uint64_t)sqlite3_column_int64(s, 8);
		r->drain_timeouts = (uint64_t)sqlite3_column_int64(s, 9);
		r->unfinished = sqlite3_column_int64(s, 10);
	}
	sqlite3_finalize(s);

	if (sqlite3_prepare_v2(db, "SELECT role, arch, nr, sum(count), "
			       "min(round_id), min(example_pid), "
			       "min(example_exe) FROM aggregates "
			       "WHERE round_id BETWEEN ?1 AND ?2 "
			       "GROUP BY role, arch, nr ORDER BY arch, nr, role",
			       -1, &s, NULL) != SQLITE_OK)
		goto sqlerr;
	sqlite3_bind_int64(s, 1, r->from);
	sqlite3_bind_int64(s, 2, r->to);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *role = (const char *)sqlite3_column_text(s, 0);
		uint32_t arch = (uint32_t)sqlite3_column_int64(s, 1);
		int32_t nr = (int32_t)sqlite3_column_int64(s, 2);
		uint64_t count = (uint64_t)sqlite3_column_int64(s, 3);
		int64_t round = sqlite3_column_int64(s, 4);
		const char *exe = (const char *)sqlite3_column_text(s, 6);
		struct entry *e;
		struct rolecount *nrc;
		int server;

		if (role == NULL)
			continue;
		role = strset_intern(&r->roles, role);
		e = entry_get(r, arch, nr);
		if (role == NULL || e == NULL)
			goto oom;
		server = pgsc_role_in_server(role);
		e->all += count;
		nrc = realloc(e->rc, (e->nrc + 1) * sizeof(*nrc));
		if (nrc == NULL)
			goto oom;
		e->rc = nrc;
		e->rc[e->nrc++] = (struct rolecount){ role, count };
		if (!server)
			continue;
		e->count += count;
		e->global = 1;
		if (in_session(&r->session, role))
			e->session = 1;
		if (round < e->first_round)
			e->first_round = round;
		if (e->example_exe == NULL) {
			e->example_pid = sqlite3_column_int64(s, 5);
			if (exe != NULL && (e->example_exe = strdup(exe)) == NULL)
				goto oom;
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		goto sqlerr2;
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
sqlerr:
	util_cause(r->cause, "store: %s", sqlite3_errmsg(db));
	return -EIO;
sqlerr2:
	util_cause(r->cause, "store: %s", sqlite3_errmsg(db));
	return -EIO;
oom:
	sqlite3_finalize(s);
	return -ENOMEM;
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

static int
report_guc(FILE *out, struct rep *r, const char *prefix)
{
	struct strset g = { 0 }, s = { 0 };
	int rc;

	rc = list_names(r, 0, &g);
	if (rc == 0)
		rc = list_names(r, 1, &s);
	if (rc == 0) {
		header_line(out, r);
		fprintf(out, "%sglobal_syscall_allow = '", prefix);
		print_joined(out, &g, ",");
		fprintf(out, "'\n%ssession_syscall_allow = '", prefix);
		print_joined(out, &s, ",");
		fprintf(out, "'\n");
	}
	strset_free(&g);
	strset_free(&s);
	return rc;
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

static int
report_json(FILE *out, struct rep *r)
{
	struct strset g = { 0 }, s = { 0 }, arches = { 0 };
	sqlite3_stmt *st = NULL;
	int rc, first = 1;

	rc = list_names(r, 0, &g);
	if (rc == 0)
		rc = list_names(r, 1, &s);
	if (rc < 0)
		goto out;
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
	if (sqlite3_prepare_v2(store_db(r->st), "SELECT reason, sum(count) "
			       "FROM rejects WHERE round_id BETWEEN ?1 AND ?2 "
			       "GROUP BY reason ORDER BY reason", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, r->from);
		sqlite3_bind_int64(st, 2, r->to);
		while (sqlite3_step(st) == SQLITE_ROW) {
			fprintf(out, "%s", first ? "" : ", ");
			json_str(out, (const char *)sqlite3_column_text(st, 0));
			fprintf(out, ": %lld", (long long)sqlite3_column_int64(st, 1));
			first = 0;
		}
		sqlite3_finalize(st);
	}
	fprintf(out, "},\n  \"arch\": ");
	json_list(out, &arches);
	fprintf(out, ",\n  \"session_roles\": ");
	json_list(out, &r->session);
	fprintf(out, ",\n  \"global\": ");
	json_list(out, &g);
	fprintf(out, ",\n  \"session\": ");
	json_list(out, &s);
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
out:
	strset_free(&g);
	strset_free(&s);
	strset_free(&arches);
	return rc;
}

static int
role_rank(const char *role)
{
	if (strcmp(role, PGSC_ROLE_POSTMASTER) == 0)
		return 0;
	if (strcmp(role, "client backend") == 0)
		return 1;
	if (strcmp(role, "descendant/client backend") == 0)
		return 2;
	if (!pgsc_role_in_server(role))
		return 9;
	return strncmp(role, "descendant/", 11) == 0 ? 4 : 3;
}

static int
role_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int rx = role_rank(x), ry = role_rank(y);

	return rx != ry ? rx - ry : strcmp(x, y);
}

static int
report_table(FILE *out, struct rep *r)
{
	const char **cols;
	size_t ncols = r->roles.n;
	sqlite3_stmt *st = NULL;

	cols = malloc((ncols ? ncols : 1) * sizeof(*cols));
	if (cols == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < ncols; i++)
		cols[i] = r->roles.v[i];
	qsort(cols, ncols, sizeof(*cols), role_cmp);

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
	if (sqlite3_prepare_v2(store_db(r->st), "SELECT reason, sum(count) "
			       "FROM rejects WHERE round_id BETWEEN ?1 AND ?2 "
			       "GROUP BY reason ORDER BY reason", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, r->from);
		sqlite3_bind_int64(st, 2, r->to);
		while (sqlite3_step(st) == SQLITE_ROW)
			fprintf(out, "# rejected: %s: %lld lines\n",
				(const char *)sqlite3_column_text(st, 0),
				(long long)sqlite3_column_int64(st, 1));
		sqlite3_finalize(st);
	}
	fprintf(out, "# records: %llu attributed, %llu unrelated, %llu "
		"standalone, %llu unattributed\n",
		(unsigned long long)r->attributed,
		(unsigned long long)r->unrelated,
		(unsigned long long)r->standalone,
		(unsigned long long)r->unattributed);
	return 0;
}

static int
round_range(struct rep *r, int64_t from, int64_t to)
{
	sqlite3_stmt *s;
	int rc = -ENOENT;

	if (sqlite3_prepare_v2(store_db(r->st), "SELECT min(id), max(id) "
			       "FROM rounds WHERE finished IS NOT NULL", -1,
			       &s, NULL) != SQLITE_OK) {
		util_cause(r->cause, "store: %s",
			   sqlite3_errmsg(store_db(r->st)));
		return -EIO;
	}
	if (sqlite3_step(s) == SQLITE_ROW &&
	    sqlite3_column_type(s, 0) != SQLITE_NULL) {
		int64_t lo = sqlite3_column_int64(s, 0);
		int64_t hi = sqlite3_column_int64(s, 1);

		r->from = from > 0 ? from : lo;
		r->to = to > 0 ? to : hi;
		if (r->from < lo || r->to > hi || r->from > r->to) {
			util_cause(r->cause, "rounds %lld-%lld are not in the "
				   "store (it has %lld-%lld)", (long long)r->from,
				   (long long)r->to, (long long)lo, (long long)hi);
			rc = -ERANGE;
		} else {
			rc = 0;
		}
	} else {
		util_cause(r->cause, "the store has no rounds yet; import with "
			   "pgsc-collect --import first");
	}
	sqlite3_finalize(s);
	return rc;
}

int
pgsc_report(pgsc_store *st, const struct pgsc_report_opts *opts, FILE *out,
	    char **cause)
{
	struct rep r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.st = st;
	r.cause = cause;
	rc = report_session_roles(opts->session_roles, &r.session, cause);
	if (rc < 0)
		goto out;
	rc = round_range(&r, opts->round_from, opts->round_to);
	if (rc < 0)
		goto out;
	rc = load(&r);
	if (rc < 0)
		goto out;
	switch (opts->format) {
	case PGSC_FMT_GUC:
		rc = report_guc(out, &r, opts->guc_prefix ? opts->guc_prefix : "");
		break;
	case PGSC_FMT_JSON:
		rc = report_json(out, &r);
		break;
	case PGSC_FMT_TABLE:
		rc = report_table(out, &r);
		break;
	}
	if (rc == 0 && fflush(out) != 0)
		rc = -errno;
out:
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

		fprintf(out, "rounds %lld-%lld: kernel lost %llu, serial gaps "
			"%llu, rotation gaps %llu, drain timeouts %llu: %s\n",
			(long long)r.from, (long long)r.to,
			(unsigned long long)r.lost,
			(unsigned long long)r.serial_gaps,
			(unsigned long long)r.rotation_gaps,
			(unsigned long long)r.drain_timeouts,
			missing ? "records may be missing" : "complete");
		rc = missing;
	}
	rep_free(&r);
	return rc;
}

int
pgsc_status(pgsc_store *st, FILE *out, int *converged, char **cause)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *s = NULL;
	int rc, n = 0, last_finished = 0;
	int64_t last_new = -1;
	double now = util_now();

	/* new = syscalls of the server tree first seen in that round */
	if (sqlite3_prepare_v2(db,
		"SELECT r.id, coalesce(r.label, ''), r.mode, "
		"coalesce(r.source, ''), r.records, "
		"coalesce(r.first_event, 0), coalesce(r.last_event, 0), "
		"r.started, r.finished, coalesce(r.last_commit, 0), "
		"max(coalesce(r.kernel_lost_end, 0) - coalesce(r.kernel_lost_start, 0), 0)"
		" + r.serial_gaps + r.rotation_gaps + r.drain_timeouts, "
		"(SELECT count(*) FROM (SELECT DISTINCT a.arch, a.nr FROM "
		"  aggregates a WHERE a.round_id = r.id AND a.role NOT IN "
		"  ('unrelated', 'standalone', 'unattributed') AND NOT EXISTS "
		"  (SELECT 1 FROM aggregates b WHERE b.round_id < r.id AND "
		"   b.arch = a.arch AND b.nr = a.nr AND b.role NOT IN "
		"   ('unrelated', 'standalone', 'unattributed')))), "
		"r.exit_status "
		"FROM rounds r ORDER BY r.id", -1, &s, NULL) != SQLITE_OK) {
		util_cause(cause, "store: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	fprintf(out, "%5s  %-19s  %-8s %10s %10s %5s  %-19s %8s %6s  %s\n",
		"round", "started", "mode", "records", "records/s", "new",
		"last event", "lag", "loss", "label");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0);
		const char *label = (const char *)sqlite3_column_text(s, 1);
		const char *mode = (const char *)sqlite3_column_text(s, 2);
		int64_t records = sqlite3_column_int64(s, 4);
		double first = sqlite3_column_double(s, 5);
		double last = sqlite3_column_double(s, 6);
		double started = sqlite3_column_double(s, 7);
		int finished = sqlite3_column_type(s, 8) != SQLITE_NULL;
		double fin = sqlite3_column_double(s, 8);
		double lastc = sqlite3_column_double(s, 9);
		int64_t loss = sqlite3_column_int64(s, 10);
		int64_t nnew = sqlite3_column_int64(s, 11);
		double span = finished ? fin - started
				       : (lastc > started ? lastc - started : 0);
		char when[32], lastev[32], lag[32];
		time_t tt = (time_t)started;
		struct tm tm;

		if (last > first && span < last - first)
			span = last - first;
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S",
			 gmtime_r(&tt, &tm));
		if (last > 0) {
			tt = (time_t)last;
			strftime(lastev, sizeof(lastev), "%Y-%m-%d %H:%M:%S",
				 gmtime_r(&tt, &tm));
		} else {
			snprintf(lastev, sizeof(lastev), "-");
		}
		if (!finished && last > 0)
			snprintf(lag, sizeof(lag), "%.1fs", now - last);
		else
			snprintf(lag, sizeof(lag), "%s", finished ? "done" : "-");
		fprintf(out, "%5lld  %-19s  %-8s %10lld %10.0f %5lld  %-19s %8s %6lld  ",
			(long long)id, when, mode ? mode : "?",
			(long long)records, span > 0 ? records / span : 0.0,
			(long long)nnew, lastev, lag, (long long)loss);
		pgsc_text_escape(out, label ? label : "");
		fputc('\n', out);
		last_new = nnew;
		last_finished = finished;
		n++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		util_cause(cause, "store: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	if (n == 0) {
		fprintf(out, "no rounds yet\n");
		*converged = 0;
	} else {
		*converged = last_new == 0 && last_finished;
		fprintf(out, "%s\n", *converged
			? "converged: the last round logged no syscall that "
			  "earlier rounds had not"
			: !last_finished
			? "not converged: the last round is still being collected"
			: "not converged: the last round logged new syscalls");
	}
	return 0;
}
