/* SPDX-License-Identifier: PostgreSQL */
/* test_store.c - unit tests for store.c, import.c and report.c: opening
 * and migrating a store, importing a small real log once, reporting. */
#include "unit.h"
#include "filter.h"
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

/*
 * fixtures/unit/import-small.log: 15 lines cut from a recorded ENRICHED
 * audit.log.  The postmaster 5514 (no fork record) clones 5523, a client
 * backend that exits with the title "postgres: postgres postgres [local]
 * idle".  11 SECCOMP records: 6 of the postmaster (getsockname, getpid,
 * clone, close, rt_sigprocmask, pselect6), 5 of the backend
 * (set_robust_list, getpid x3, getrandom).
 */
#define SMALL_LOG "unit/import-small.log"
#define SMALL_LINES 15
#define SMALL_SECCOMP 11

static void
tmp_path(char *out, size_t sz, const char *name)
{
	snprintf(out, sz, "%s/%s", unit_tmpdir, name);
}

/* Copy a fixture into unit_tmpdir (so it can be appended to). */
static void
copy_fixture(const char *name, const char *dst)
{
	char src[1024], buf[4096];
	FILE *in, *out;
	size_t n;

	unit_fixture_path(src, sizeof(src), name);
	in = fopen(src, "rb");
	if (in == NULL)
		fail_msg("%s: %s (set PGSC_FIXTURES)", src, strerror(errno));
	out = fopen(dst, "wb");
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

/* The line appended to the fixture: the postmaster 5514 calls accept. */
#define ACCEPT_LINE                                                        \
	"type=SECCOMP msg=audit(1796277283.100:9990): auid=4294967295 "    \
	"uid=101 gid=104 ses=4294967295 pid=5514 comm=\"postgres\" "      \
	"exe=\"/usr/lib/postgresql/15/bin/postgres\" sig=0 arch=c000003e " \
	"syscall=43 compat=0 ip=0x7f9be62afdd4 code=0x7ffc0000\x1d"        \
	"AUID=\"unset\" UID=\"postgres\" GID=\"postgres\" ARCH=x86_64 "  \
	"SYSCALL=unknown-syscall(-1)\n"

static void
append(const char *path, const char *text)
{
	FILE *f = fopen(path, "a");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char *
report(pgsc_store *st, enum pgsc_format fmt, int *rc)
{
	struct pgsc_report_opts ro = { fmt, 0, 0, "", NULL };
	char *buf = NULL, *cause = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	assert_non_null(f);
	*rc = pgsc_report(st, &ro, f, &cause);
	assert_int_equal(fclose(f), 0);
	if (*rc != 0 && getenv("PGSC_TEST_VERBOSE") != NULL)
		print_message("report: %s\n", cause ? cause : "(no cause)");
	free(cause);
	return buf;
}

/* ---------------------------------------------------------------- */

static void
test_open_creates_0600(void **state)
{
	char path[512], wal[600];
	struct stat sb;
	pgsc_store *st = NULL;
	char *cause = NULL;
	mode_t old;
	int v;

	(void)state;
	tmp_path(path, sizeof(path), "mode.db");
	old = umask(0);
	assert_int_equal(pgsc_store_open(path, 0, &st, &cause), 0);
	umask(old);
	assert_non_null(st);
	assert_null(cause);
	assert_int_equal(stat(path, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	assert_int_equal(sb.st_mode & 07777, 0600);
	/* sqlite's side files follow the database's mode */
	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (stat(wal, &sb) == 0)
		assert_int_equal(sb.st_mode & 07777, 0600);
	v = pgsc_store_schema_version(st);
	assert_true(v >= 1);
	pgsc_store_free(st);

	/* reopening is idempotent */
	st = NULL;
	assert_int_equal(pgsc_store_open(path, 0, &st, &cause), 0);
	assert_non_null(st);
	assert_int_equal(pgsc_store_schema_version(st), v);
	pgsc_store_free(st);
	st = NULL;
	assert_int_equal(pgsc_store_open(path, PGSC_STORE_READONLY, &st,
					 &cause), 0);
	assert_non_null(st);
	assert_int_equal(pgsc_store_schema_version(st), v);
	pgsc_store_free(st);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);

	pgsc_store_free(NULL);
}

/* The count of aggregate row (node '', @role, nr @nr) of @path's round 1,
 * read with SQLite itself; -1: none. */
static int64_t
agg_count(const char *path, const char *role, int nr)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t n = -1;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count FROM aggregates "
					    "WHERE round_id = 1 AND node = '' "
					    "AND role = ?1 AND nr = ?2", -1,
					    &s, NULL), SQLITE_OK);
	sqlite3_bind_text(s, 1, role, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, nr);
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return n;
}

/* One aggregate row of a live commit's changes in its own transaction. */
static void
agg_set(pgsc_store *st, const char *role, int nr, uint64_t count,
	int64_t *rowid)
{
	struct role_agg a = {
		.role = role, .arch = 0xc000003e, .nr = nr, .count = count,
		.first = 1, .last = 2, .example_pid = 7,
		.example_exe = "/usr/bin/postgres", .node = NULL,
	};
	struct store_batch *b = NULL;
	char *cause = NULL;

	assert_int_equal(store_begin(st, &cause), 0);
	assert_int_equal(store_batch_new(st, 1, &b, &cause), 0);
	assert_int_equal(store_batch_agg_set(b, &a, rowid, &cause), 0);
	store_batch_free(b);
	assert_int_equal(store_commit(st, &cause), 0);
	assert_null(cause);
}

/*
 * A live commit updates a changed aggregate row by the rowid its first
 * write got, and checks the key: a rowid that is another row's (a rolled
 * back insert's, a VACUUM's renumbering) updates nothing of that row, and
 * the row is written by its key.
 */
static void
test_agg_rowid(void **state)
{
	char path[512];
	pgsc_store *st = NULL;
	char *cause = NULL;
	int64_t id = 0, r1 = 0, r2 = 0, stale;

	(void)state;
	tmp_path(path, sizeof(path), "rowid.db");
	unlink(path);
	assert_int_equal(pgsc_store_open(path, 0, &st, &cause), 0);
	assert_int_equal(store_begin(st, &cause), 0);
	assert_int_equal(store_round_new(st, "t", "live", 1, &id, &cause), 0);
	assert_int_equal(store_commit(st, &cause), 0);
	assert_int_equal(id, 1);
	/* new rows: rowids given */
	agg_set(st, "client backend", 0, 3, &r1);
	agg_set(st, "checkpointer", 0, 5, &r2);
	assert_true(r1 > 0 && r2 > 0 && r1 != r2);
	/* by its rowid */
	stale = r1;
	agg_set(st, "client backend", 0, 4, &r1);
	assert_int_equal(r1, stale);
	assert_int_equal(agg_count(path, "client backend", 0), 4);
	/* another row's rowid: that row stays, this one is written */
	stale = r2;
	agg_set(st, "client backend", 0, 6, &stale);
	assert_int_equal(agg_count(path, "client backend", 0), 6);
	assert_int_equal(agg_count(path, "checkpointer", 0), 5);
	assert_int_equal(stale, 0);
	/* no rowid, a row there: by its key */
	stale = 0;
	agg_set(st, "checkpointer", 0, 8, &stale);
	assert_int_equal(agg_count(path, "checkpointer", 0), 8);
	assert_int_equal(agg_count(path, "client backend", 0), 6);
	pgsc_store_free(st);
}

/* An open count row of @path's round 1 (pid 42, not kept one by one):
 * its count, first and last "c@f-l"; "" none. */
static void
open_row(const char *path, int nr, char *out, size_t sz)
{
	sqlite3 *db;
	sqlite3_stmt *s;

	*out = '\0';
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count, first_seen, "
					    "last_seen, role FROM open_counts "
					    "WHERE round_id = 1 AND pid = 42 "
					    "AND pending = 0 AND nr = ?1", -1,
					    &s, NULL), SQLITE_OK);
	sqlite3_bind_int(s, 1, nr);
	if (sqlite3_step(s) == SQLITE_ROW)
		snprintf(out, sz, "%lld@%g-%g %s", sqlite3_column_int64(s, 0),
			 sqlite3_column_double(s, 1),
			 sqlite3_column_double(s, 2),
			 (const char *)sqlite3_column_text(s, 3));
	assert_int_equal(sqlite3_step(s), SQLITE_DONE);
	sqlite3_finalize(s);
	sqlite3_close(db);
}

static void
open_put(pgsc_store *st, int nr, uint64_t count, double first, double last,
	 int replace)
{
	struct proc_count c = {
		.pid = 42, .node = NULL, .birth = 1, .role = "client backend",
		.arch = 0xc000003e, .nr = nr, .pending = 0, .count = count,
		.first = first, .last = last, .replace = replace,
	};
	struct store_batch *b = NULL;
	char *cause = NULL;

	assert_int_equal(store_begin(st, &cause), 0);
	assert_int_equal(store_batch_new(st, 1, &b, &cause), 0);
	assert_int_equal(store_batch_open(b, &c, &cause), 0);
	store_batch_free(b);
	assert_int_equal(store_commit(st, &cause), 0);
	assert_null(cause);
}

/* A live commit replaces the figures of a stored open count row (one
 * syscall of a process whose role and birth did not change), its first
 * time earlier included, and inserts it when it is not there. */
static void
test_open_count_replace(void **state)
{
	char path[512], row[128];
	pgsc_store *st = NULL;
	char *cause = NULL;
	int64_t id = 0;

	(void)state;
	tmp_path(path, sizeof(path), "opencount.db");
	unlink(path);
	assert_int_equal(pgsc_store_open(path, 0, &st, &cause), 0);
	assert_int_equal(store_begin(st, &cause), 0);
	assert_int_equal(store_round_new(st, "t", "live", 1, &id, &cause), 0);
	assert_int_equal(store_commit(st, &cause), 0);
	open_put(st, 0, 3, 5, 6, 0);
	open_row(path, 0, row, sizeof(row));
	assert_string_equal(row, "3@5-6 client backend");
	open_put(st, 0, 7, 4, 9, 1);
	open_row(path, 0, row, sizeof(row));
	assert_string_equal(row, "7@4-9 client backend");
	/* no row to replace: written */
	open_put(st, 1, 2, 1, 2, 1);
	open_row(path, 1, row, sizeof(row));
	assert_string_equal(row, "2@1-2 client backend");
	open_row(path, 0, row, sizeof(row));
	assert_string_equal(row, "7@4-9 client backend");
	pgsc_store_free(st);
}

static void
test_open_readonly_missing(void **state)
{
	char path[512];
	struct stat sb;
	pgsc_store *st = (pgsc_store *)(uintptr_t)1;
	char *cause = NULL;
	int rc;

	(void)state;
	tmp_path(path, sizeof(path), "missing.db");
	rc = pgsc_store_open(path, PGSC_STORE_READONLY, &st, &cause);
	assert_true(rc < 0);
	assert_int_equal(rc, -ENOENT);
	assert_null(st);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "missing.db"));
	free(cause);
	/* and nothing was created */
	assert_int_equal(stat(path, &sb), -1);
	assert_int_equal(errno, ENOENT);
}

static void
test_open_not_a_store(void **state)
{
	char path[512];
	pgsc_store *st = NULL;
	char *cause = NULL;
	FILE *f;
	int rc;

	(void)state;
	tmp_path(path, sizeof(path), "junk.db");
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 200; i++)
		fputs("this is not an SQLite database\n", f);
	fclose(f);
	rc = pgsc_store_open(path, 0, &st, &cause);
	assert_true(rc < 0);
	assert_null(st);
	assert_non_null(cause);
	free(cause);
}

static void
test_report_empty_store(void **state)
{
	char path[512], *out;
	pgsc_store *st = NULL;
	char *cause = NULL;
	int rc;

	(void)state;
	tmp_path(path, sizeof(path), "empty.db");
	assert_int_equal(pgsc_store_open(path, 0, &st, &cause), 0);
	out = report(st, PGSC_FMT_GUC, &rc);
	/* no rounds: no data, exit 1, not an error */
	assert_int_equal(rc, 1);
	free(out);
	pgsc_store_free(st);
}

/* An import into a new store: what the tests of pgsc_import() hold. */
struct import_run {
	char log[512];                  /* files[0] */
	const char *files[1];
	struct pgsc_import_opts io;
	struct pgsc_import_stats stats;
	pgsc_store *st;
};

/*
 * A new store unit_tmpdir/@db open in @r->st for an import with @r->io
 * (zeroed, quiet) of one file, unit_tmpdir/@name.
 */
static void
import_setup(struct import_run *r, const char *db, const char *name)
{
	char path[512], *cause = NULL;

	memset(r, 0, sizeof(*r));
	tmp_path(path, sizeof(path), db);
	tmp_path(r->log, sizeof(r->log), name);
	r->files[0] = r->log;
	r->io.quiet = 1;
	assert_int_equal(pgsc_store_open(path, 0, &r->st, &cause), 0);
}

/* The counts of an import @got against @want, the zeros included. */
static void
expect_counts(const struct pgsc_import_stats *got,
	      const struct pgsc_import_stats *want)
{
#define F(x) { #x, (int64_t)got->x, (int64_t)want->x }
	const struct unit_field f[] = {
		F(round), F(seccomp), F(lines), F(rejected), F(skipped_files),
		F(attributed), F(unattributed), F(unrelated), F(standalone),
	};
#undef F

	unit_expect_fields(f, ARRAY_SIZE(f));
}

static void
test_import_and_report(void **state)
{
	char *out, *cause = NULL;
	struct import_run r;
	int rc;

	(void)state;
	import_setup(&r, "import.db", "audit.log");
	copy_fixture(SMALL_LOG, r.log);
	r.io.label = "unit";

	/* first import: one round with every record */
	rc = pgsc_import(r.st, &r.io, r.files, 1, &r.stats, &cause);
	if (rc != 0)
		fail_msg("import: %s", cause ? cause : "?");
	expect_counts(&r.stats, &(const struct pgsc_import_stats){
		.round = 1, .seccomp = SMALL_SECCOMP, .lines = SMALL_LINES,
		.attributed = SMALL_SECCOMP });
	assert_true(r.stats.processes >= 2);

	/* the same file again: nothing new, no round */
	rc = pgsc_import(r.st, &r.io, r.files, 1, &r.stats, &cause);
	assert_int_equal(rc, 0);
	assert_int_equal(r.stats.round, 0);
	assert_int_equal(r.stats.seccomp, 0);
	assert_int_equal(r.stats.skipped_files, 1);

	/* the report */
	out = report(r.st, PGSC_FMT_GUC, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(out);
	assert_true(strncmp(out, "# pgsc: ", 8) == 0);
	assert_non_null(strstr(out, "global_syscall_allow = '"));
	assert_non_null(strstr(out, "session_syscall_allow = '"));
	assert_non_null(strstr(out, "# pgsc: 11 records, rounds 1-1"));
	/* every syscall of both processes, names sorted, with the
	 * module's needs (filter_needs[]) the records lacked, said so */
	assert_non_null(strstr(out, "\nglobal_syscall_allow = 'brk,clone,"
			       "close,fcntl,getpid,getrandom,getsockname,"
			       "mmap,munmap,pipe2,prctl,pselect6,read,"
			       "rt_sigprocmask,seccomp,set_robust_list,"
			       "write'\n"));
	assert_non_null(strstr(out, "\n# added to the global list, not seen "
			       "in the records: brk,fcntl,mmap,munmap,pipe2,"
			       "prctl,read,seccomp,write ("));
	for (const char *const *n = filter_needs; *n != NULL; n++) {
		const char *g = strstr(out, "\nglobal_syscall_allow = '");
		char want[64];

		/* each name of the table is a whole entry of the list */
		snprintf(want, sizeof(want), ",%s,", *n);
		assert_true(strstr(g, want) != NULL ||
			    strncmp(g + 25, want + 1, strlen(want) - 1) == 0 ||
			    (snprintf(want, sizeof(want), ",%s'", *n) > 0 &&
			     strstr(g, want) != NULL));
	}
	/* the backend's syscalls only */
	assert_non_null(strstr(out, "\nsession_syscall_allow = 'getpid,"
			       "getrandom,set_robust_list'\n"));
	/* the fixture is cut from a log (serials 4030-4041, then 9977):
	 * an import counts the serials between as gaps (docs/robustness.md) */
	assert_non_null(strstr(out, "# warning: records may be missing: "
			       "kernel lost 0, serial gaps 5935, rotation "
			       "gaps 0, drain timeouts 0"));
	free(out);

	/* JSON carries the same */
	out = report(r.st, PGSC_FMT_JSON, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "\"records\": 11"));
	assert_non_null(strstr(out, "\"client backend\""));
	assert_non_null(strstr(out, "\"postmaster\""));
	free(out);

	/* appended lines are imported once, into a new round */
	append(r.log, ACCEPT_LINE);
	rc = pgsc_import(r.st, &r.io, r.files, 1, &r.stats, &cause);
	assert_int_equal(rc, 0);
	assert_int_equal(r.stats.round, 2);
	assert_int_equal(r.stats.seccomp, 1);
	assert_int_equal(r.stats.lines, 1);
	rc = pgsc_import(r.st, &r.io, r.files, 1, &r.stats, &cause);
	assert_int_equal(rc, 0);
	assert_int_equal(r.stats.round, 0);

	pgsc_store_free(r.st);
	free(cause);
}

/* The global_syscall_allow line of a GUC report (malloc'd). */
static char *
global_line(pgsc_store *st)
{
	int rc;
	char *out = report(st, PGSC_FMT_GUC, &rc), *l, *e, *r;

	assert_int_equal(rc, 0);
	l = strstr(out, "\nglobal_syscall_allow = '");
	assert_non_null(l);
	e = strchr(l + 1, '\n');
	assert_non_null(e);
	r = util_strndup(l + 1, (size_t)(e - l - 1));
	free(out);
	return r;
}

/*
 * A log imported in two steps (the second import picks up what was
 * appended, as a periodic pgsc-collect --import of a growing audit.log
 * does) must give the same lists as the whole log imported at once.
 */
static void
test_import_split_equals_whole(void **state)
{
	char db1[512], db2[512], log1[512], log2[512], *cause = NULL;
	char *whole, *split;
	const char *files[1];
	struct pgsc_import_opts io;
	struct pgsc_import_stats stats;
	pgsc_store *st1 = NULL, *st2 = NULL;

	(void)state;
	memset(&io, 0, sizeof(io));
	io.quiet = 1;
	tmp_path(db1, sizeof(db1), "whole.db");
	tmp_path(db2, sizeof(db2), "split.db");
	tmp_path(log1, sizeof(log1), "whole.log");
	tmp_path(log2, sizeof(log2), "split.log");

	/* at once */
	copy_fixture(SMALL_LOG, log1);
	append(log1, ACCEPT_LINE);
	assert_int_equal(pgsc_store_open(db1, 0, &st1, &cause), 0);
	files[0] = log1;
	assert_int_equal(pgsc_import(st1, &io, files, 1, &stats, &cause), 0);
	assert_int_equal(stats.round, 1);
	assert_int_equal(stats.seccomp, SMALL_SECCOMP + 1);
	whole = global_line(st1);
	assert_non_null(strstr(whole, "'accept,"));

	/* in two steps */
	copy_fixture(SMALL_LOG, log2);
	assert_int_equal(pgsc_store_open(db2, 0, &st2, &cause), 0);
	files[0] = log2;
	assert_int_equal(pgsc_import(st2, &io, files, 1, &stats, &cause), 0);
	assert_int_equal(stats.round, 1);
	append(log2, ACCEPT_LINE);
	assert_int_equal(pgsc_import(st2, &io, files, 1, &stats, &cause), 0);
	assert_int_equal(stats.round, 2);
	assert_int_equal(stats.seccomp, 1);
	split = global_line(st2);

	/*
	 * A continued import must know the processes of the round before
	 * it: the postmaster 5514, identified in round 1, makes the accept
	 * of round 2 and has no fork record in it.
	 */
	assert_int_equal(stats.unattributed, 0);
	assert_string_equal(split, whole);

	free(whole);
	free(split);
	free(cause);
	pgsc_store_free(st1);
	pgsc_store_free(st2);
}

static void
test_import_missing_file(void **state)
{
	char *cause = NULL, *diag = NULL;
	size_t dsz = 0;
	struct import_run r;
	int rc;

	(void)state;
	import_setup(&r, "missing-import.db", "no-such.log");
	r.io.diag = open_memstream(&diag, &dsz);
	assert_non_null(r.io.diag);
	/* an input that cannot be read is reported by name and counted
	 * (pgsc-collect exits 1); the others would be imported */
	rc = pgsc_import(r.st, &r.io, r.files, 1, &r.stats, &cause);
	fclose(r.io.diag);
	assert_int_equal(rc, 0);
	assert_int_equal(r.stats.refused_files, 1);
	assert_non_null(diag);
	assert_non_null(strstr(diag, "no-such.log: No such file"));
	assert_int_equal(r.stats.round, 0);
	free(diag);
	free(cause);
	pgsc_store_free(r.st);
}

/* Run pgsc_status on @db; returns its output, sets *converged. */
static char *
status_of(const char *db, const char *roles, int *converged)
{
	struct pgsc_report_opts ro;
	pgsc_store *st = NULL;
	char *buf = NULL, *cause = NULL;
	size_t sz = 0;
	FILE *f;

	memset(&ro, 0, sizeof(ro));
	ro.session_roles = roles;
	assert_int_equal(pgsc_store_open(db, PGSC_STORE_READONLY, &st,
					 &cause), 0);
	f = open_memstream(&buf, &sz);
	assert_non_null(f);
	if (pgsc_status(st, &ro, f, converged, &cause) != 0)
		fail_msg("status: %s", cause ? cause : "?");
	assert_int_equal(fclose(f), 0);
	pgsc_store_free(st);
	free(cause);
	return buf;
}

static void
sql(const char *db, const char *stmt)
{
	sqlite3 *h = NULL;
	char *err = NULL;

	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	if (sqlite3_exec(h, stmt, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", stmt, err ? err : "?");
	sqlite3_close(h);
}

/* The rows @query gives, one line each ('|' between columns). */
static char *
dump(const char *db, const char *query)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *s;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	if (sqlite3_prepare_v2(h, query, -1, &s, NULL) != SQLITE_OK)
		fail_msg("%s: %s", query, sqlite3_errmsg(h));
	while (sqlite3_step(s) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(s); i++) {
			const unsigned char *v = sqlite3_column_text(s, i);

			fprintf(out, "%s%s", i ? "|" : "", v ? (const char *)v : "");
		}
		fputc('\n', out);
	}
	sqlite3_finalize(s);
	sqlite3_close(h);
	assert_int_equal(fclose(out), 0);
	return buf;
}

/* What an import writes, in a fixed order. */
static const char *const import_tables[] = {
	"SELECT * FROM processes ORDER BY round_id, node, pid, birth",
	"SELECT round_id, role, arch, nr, count, first_seen, last_seen, "
	"example_pid, example_exe, node FROM aggregates "
	"ORDER BY round_id, node, role, arch, nr",
	"SELECT * FROM arg_values ORDER BY 1, 2, 3, 4, 5, 6, 7",
	"SELECT id, label, records, attributed, unrelated, standalone, "
	"unattributed, rejected, lines, first_event, last_event, serial_gaps "
	"FROM rounds ORDER BY id",
};

/* Import golden log @name (tests/golden) into a new store @db, reading
 * @chunk bytes at a time and folding every @every processes. */
static void
import_golden(const char *db, const char *name, int no_fast_path,
	      size_t chunk, size_t every, struct pgsc_import_stats *stats)
{
	char log[1024], rel[256], *cause = NULL;
	const char *files[1] = { log };
	struct pgsc_import_opts io;
	size_t chunk0 = import_read_chunk, every0 = import_fold_every;
	pgsc_store *st = NULL;

	snprintf(rel, sizeof(rel), "../golden/%s", name);
	unit_fixture_path(log, sizeof(log), rel);
	memset(&io, 0, sizeof(io));
	io.quiet = 1;
	io.label = "fold";
	io.no_fast_path = no_fast_path;
	unlink(db);
	assert_int_equal(pgsc_store_open(db, 0, &st, &cause), 0);
	import_read_chunk = chunk;
	import_fold_every = every;
	if (pgsc_import(st, &io, files, 1, stats, &cause) != 0)
		fail_msg("%s: %s", name, cause ? cause : "?");
	import_read_chunk = chunk0;
	import_fold_every = every0;
	pgsc_store_free(st);
}

/*
 * An import's early fold (proctree_fold_exited()) writes the processes
 * that are done during the import, in its transaction: the store is the
 * same as when every process waits for the end (tests/golden's logs have
 * fewer processes than one fold needs), rows, roles, aggregates and their
 * examples, argument values and the round's tallies.  Read 512 bytes at a
 * time and folding whenever the tree grows by a quarter, the rows come
 * in another order: the folds did write them early.
 */
static void
test_import_early_fold(void **state)
{
	static const struct { const char *log; int no_fast_path; } in[] = {
		{ "raw.log.gz", 0 }, { "raw.log.gz", 1 },
		{ "enriched.log.gz", 0 }, { "node.log.gz", 0 },
		{ "norules.log.gz", 0 },
	};
	char db1[512], db2[512];

	(void)state;
	tmp_path(db1, sizeof(db1), "fold-end.db");
	tmp_path(db2, sizeof(db2), "fold-early.db");
	for (size_t i = 0; i < ARRAY_SIZE(in); i++) {
		struct pgsc_import_stats s1, s2;
		char *a, *b;

		import_golden(db1, in[i].log, in[i].no_fast_path,
			      import_read_chunk, import_fold_every, &s1);
		import_golden(db2, in[i].log, in[i].no_fast_path, 512, 1, &s2);
		expect_counts(&s2, &s1);
		assert_int_equal(s2.processes, s1.processes);
		for (size_t k = 0; k < ARRAY_SIZE(import_tables); k++) {
			a = dump(db1, import_tables[k]);
			b = dump(db2, import_tables[k]);
			if (strcmp(a, b) != 0)
				fail_msg("%s: %s differs", in[i].log,
					 import_tables[k]);
			free(a);
			free(b);
		}
		if (strcmp(in[i].log, "norules.log.gz") == 0)
			continue; /* no fork record: nothing folds early */
		a = dump(db1, "SELECT pid FROM processes ORDER BY rowid");
		b = dump(db2, "SELECT pid FROM processes ORDER BY rowid");
		assert_string_not_equal(a, b);
		free(a);
		free(b);
	}
	unlink(db1);
	unlink(db2);
}

/*
 * An import whose early folds began its transaction and that then makes
 * no round (every SECCOMP record before --since) leaves the store as it
 * was, and the next import writes to it.
 */
static void
test_import_early_fold_no_round(void **state)
{
	char db[512], log[1024], *cause = NULL, *rows;
	const char *files[1] = { log };
	struct pgsc_import_opts io;
	struct pgsc_import_stats stats;
	size_t chunk0 = import_read_chunk, every0 = import_fold_every;
	pgsc_store *st = NULL;

	(void)state;
	tmp_path(db, sizeof(db), "fold-none.db");
	unit_fixture_path(log, sizeof(log), "../golden/raw.log.gz");
	memset(&io, 0, sizeof(io));
	io.quiet = 1;
	io.has_since = 1;
	io.since = INT64_C(4000000000);
	assert_int_equal(pgsc_store_open(db, 0, &st, &cause), 0);
	import_read_chunk = 512;
	import_fold_every = 1;
	assert_int_equal(pgsc_import(st, &io, files, 1, &stats, &cause), 0);
	import_read_chunk = chunk0;
	import_fold_every = every0;
	assert_int_equal(stats.round, 0);
	assert_true(stats.outside > 0);
	rows = dump(db, "SELECT (SELECT count(*) FROM rounds), "
		    "(SELECT count(*) FROM processes)");
	assert_string_equal(rows, "0|0\n");
	free(rows);
	io.has_since = 0;
	assert_int_equal(pgsc_import(st, &io, files, 1, &stats, &cause), 0);
	assert_int_equal(stats.round, 1);
	pgsc_store_free(st);
	unlink(db);
}

/* A syscall the server made before, but only outside the session roles,
 * is new to the session list when a client backend makes it: the
 * session filter logs it, so the lists have not converged. */
static void
test_status_new_to_session(void **state)
{
	char db[512], *out, *cause = NULL;
	pgsc_store *st = NULL;
	int conv = -1;

	(void)state;
	tmp_path(db, sizeof(db), "status.db");
	assert_int_equal(pgsc_store_open(db, 0, &st, &cause), 0);
	pgsc_store_free(st);
	sql(db,
	    "INSERT INTO rounds (id, label, mode, started, finished, records, "
	    " attributed) VALUES (1, 'one', 'import', 1000, 1001, 2, 2), "
	    " (2, 'two', 'import', 1002, 1003, 1, 1);"
	    "INSERT INTO aggregates (round_id, role, arch, nr, count, "
	    "first_seen, last_seen, example_pid, example_exe) VALUES "
	    " (1, 'checkpointer', 3221225534, 74, 1, 1000, 1000, 10, NULL),"
	    " (1, 'client backend', 3221225534, 0, 1, 1000, 1000, 11, NULL),"
	    " (2, 'client backend', 3221225534, 74, 1, 1002, 1002, 12, NULL);");

	/* round 2: 0 new to the server, 1 new to the session list */
	out = status_of(db, NULL, &conv);
	assert_non_null(strstr(out, "new-sess"));
	assert_int_equal(conv, 0);
	assert_non_null(strstr(out, "not converged"));
	free(out);

	/* with the checkpointer among the session roles, nothing is new */
	out = status_of(db, "client backend,checkpointer", &conv);
	assert_int_equal(conv, 1);
	assert_non_null(strstr(out, "converged: "));
	free(out);

	/* a third round repeating round 2 converges with the default roles */
	sql(db,
	    "INSERT INTO rounds (id, label, mode, started, finished, records, "
	    " attributed) VALUES (3, 'three', 'import', 1004, 1005, 1, 1);"
	    "INSERT INTO aggregates (round_id, role, arch, nr, count, "
	    "first_seen, last_seen, example_pid, example_exe) VALUES "
	    " (3, 'descendant/client backend', 3221225534, 74, 1, 1004, 1004,"
	    "  13, NULL);");
	out = status_of(db, NULL, &conv);
	assert_int_equal(conv, 1);
	free(out);
}

/* Run pgsc_report (guc) or pgsc_check_complete on rounds @from-@to of
 * @db (0, 0: all); returns its rc. */
static int
report_rc_range(const char *db, int complete, const char *roles,
		int64_t from, int64_t to)
{
	struct pgsc_report_opts ro;
	pgsc_store *st = NULL;
	char *buf = NULL, *cause = NULL;
	size_t sz = 0;
	FILE *f;
	int rc;

	memset(&ro, 0, sizeof(ro));
	ro.guc_prefix = "";
	ro.session_roles = roles;
	ro.round_from = from;
	ro.round_to = to;
	assert_int_equal(pgsc_store_open(db, PGSC_STORE_READONLY, &st,
					 &cause), 0);
	f = open_memstream(&buf, &sz);
	assert_non_null(f);
	rc = complete ? pgsc_check_complete(st, &ro, f, &cause)
		      : pgsc_report(st, &ro, f, &cause);
	if (rc != 0 && !complete)
		assert_non_null(cause);
	assert_int_equal(fclose(f), 0);
	pgsc_store_free(st);
	free(cause);
	free(buf);
	return rc;
}

static int
report_rc(const char *db, int complete, const char *roles)
{
	return report_rc_range(db, complete, roles, 0, 0);
}

/*
 * A store whose records are all unattributed (a log recorded without the
 * rules, imported without hints) is neither a usable report (1), nor
 * converged, nor complete; more than half unattributed is the same; a
 * misspelt session role is an error, a role the store holds is not.
 */
static void
test_unattributed_not_usable(void **state)
{
	char db[] = "/tmp/pgsc-unattr-XXXXXX";
	int fd = mkstemp(db), conv = -1;
	int64_t from, to;
	pgsc_store *st = NULL;
	char *cause = NULL, *out;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	unlink(db);
	assert_int_equal(pgsc_store_open(db, 0, &st, &cause), 0);
	pgsc_store_free(st);
	sql(db,
	    "INSERT INTO rounds (id, label, mode, started, finished, records, "
	    " unattributed) VALUES (1, 'one', 'import', 1000, 1001, 10, 10),"
	    " (2, 'two', 'import', 1002, 1003, 10, 10);"
	    "INSERT INTO aggregates (round_id, role, arch, nr, count, "
	    "first_seen, last_seen, example_pid, example_exe) VALUES "
	    " (1, 'unattributed', 3221225534, 0, 10, 1000, 1000, 10, NULL),"
	    " (2, 'unattributed', 3221225534, 0, 10, 1002, 1002, 10, NULL);");
	out = status_of(db, NULL, &conv);
	assert_int_equal(conv, 0);
	assert_non_null(strstr(out, "examples/pgsc.rules"));
	free(out);
	assert_int_equal(report_rc(db, 0, NULL), 1);
	assert_int_equal(report_rc(db, 1, NULL), 1);

	/* 4 of 10 attributed in round 3: 16 of 30 unattributed in all */
	sql(db,
	    "INSERT INTO rounds (id, label, mode, started, finished, records, "
	    " attributed, unattributed) VALUES "
	    " (3, 'three', 'import', 1004, 1005, 10, 4, 6);"
	    "INSERT INTO aggregates (round_id, role, arch, nr, count, "
	    "first_seen, last_seen, example_pid, example_exe) VALUES "
	    " (3, 'client backend', 3221225534, 0, 4, 1004, 1004, 11, NULL),"
	    " (3, 'my worker', 3221225534, 0, 6, 1004, 1004, 11, NULL);");
	assert_int_equal(report_rc(db, 0, NULL), 1);
	assert_int_equal(report_rc(db, 1, NULL), 1);
	/* round 3 alone: 6 of 10, still more than half */
	assert_int_equal(pgsc_round_range_parse("3", &from, &to), 0);
	assert_int_equal(report_rc_range(db, 0, NULL, from, to), 1);
	/* 30 of 120 unattributed */
	sql(db, "UPDATE rounds SET records = 100, attributed = 90, "
		"unattributed = 10 WHERE id = 3");
	assert_int_equal(report_rc(db, 0, NULL), 0);
	assert_int_equal(report_rc(db, 1, NULL), 0);
	/* an extension's worker type is known from the store; a typo is not */
	assert_int_equal(report_rc(db, 0, "client backend,my worker"), 0);
	assert_int_equal(report_rc(db, 0, "client backend,parallel worker"), 0);
	assert_int_equal(report_rc(db, 0, "clinet backend"), -EINVAL);
	unlink(db);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_creates_0600),
		cmocka_unit_test(test_agg_rowid),
		cmocka_unit_test(test_open_count_replace),
		cmocka_unit_test(test_open_readonly_missing),
		cmocka_unit_test(test_open_not_a_store),
		cmocka_unit_test(test_report_empty_store),
		cmocka_unit_test(test_import_and_report),
		cmocka_unit_test(test_import_split_equals_whole),
		cmocka_unit_test(test_import_missing_file),
		cmocka_unit_test(test_import_early_fold),
		cmocka_unit_test(test_import_early_fold_no_round),
		cmocka_unit_test(test_status_new_to_session),
		cmocka_unit_test(test_unattributed_not_usable),
	};

	return cmocka_run_group_tests(tests, unit_tmpdir_setup,
				      unit_tmpdir_teardown);
}
