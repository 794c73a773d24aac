/* SPDX-License-Identifier: PostgreSQL */
/*
 * oom.c - out-of-memory injection for the decoder, the feed and the store,
 * as audit-userspace's auparse/test does: the program is linked with
 * -Wl,--wrap=malloc (calloc, realloc, reallocarray, strdup, strndup), so
 * every allocation of pgsc's own code goes through the wrappers below, and
 * SQLite's allocator is replaced the same way (SQLITE_CONFIG_MALLOC).  For
 * N = 1, 2, ... every allocation from the Nth on fails, until the
 * operation runs without meeting a failure.  Each run must end in an
 * error (-ENOMEM for pgsc's own allocations, a negative errno for
 * SQLite's), or in success when the failure was tolerated, without a
 * crash and without a leak (ASan's leak check, and SQLite's own count of
 * the bytes it holds).
 */
#include "unit.h"
#include "ahead.h"
#include "feed.h"
#include "proctree.h"
#include "store.h"

#include <errno.h>
#include <sqlite3.h>

/* The allocators -Wl,--wrap replaces, with the prefix @pfx: __real_ (libc's)
 * and __wrap_ (below). */
#define OOM_ALLOCATORS(pfx)						\
	void *pfx##malloc(size_t n);					\
	void *pfx##calloc(size_t nmemb, size_t n);			\
	void *pfx##realloc(void *p, size_t n);				\
	void *pfx##reallocarray(void *p, size_t nmemb, size_t n);	\
	char *pfx##strdup(const char *s);				\
	char *pfx##strndup(const char *s, size_t n);			\
	void *pfx##aligned_alloc(size_t align, size_t n);

OOM_ALLOCATORS(__real_)
OOM_ALLOCATORS(__wrap_)
#undef OOM_ALLOCATORS

enum oom_kind { OOM_OFF, OOM_LIBC, OOM_SQLITE };

static enum oom_kind oom_kind;
static long oom_at;             /* the first allocation that fails */
static long oom_n;              /* allocations of oom_kind so far */

/* Does this allocation (of @kind) fail?  Sets errno as malloc does. */
static int oom_paused;          /* no failures for now: cleaning up */

static int
oom_fail(enum oom_kind kind)
{
	if (kind != oom_kind || oom_paused || ++oom_n < oom_at)
		return 0;
	errno = ENOMEM;
	return 1;
}

static void
oom_arm(enum oom_kind kind, long at)
{
	oom_kind = kind;
	oom_at = at;
	oom_n = 0;
}

/* Disarm; returns whether a failure was injected since oom_arm(). */
static int
oom_disarm(void)
{
	int hit = oom_at > 0 && oom_n >= oom_at;

	oom_kind = OOM_OFF;
	return hit;
}

void *
__wrap_malloc(size_t n)
{
	return oom_fail(OOM_LIBC) ? NULL : __real_malloc(n);
}

void *
__wrap_calloc(size_t nmemb, size_t n)
{
	return oom_fail(OOM_LIBC) ? NULL : __real_calloc(nmemb, n);
}

void *
__wrap_realloc(void *p, size_t n)
{
	return oom_fail(OOM_LIBC) ? NULL : __real_realloc(p, n);
}

void *
__wrap_reallocarray(void *p, size_t nmemb, size_t n)
{
	return oom_fail(OOM_LIBC) ? NULL : __real_reallocarray(p, nmemb, n);
}

char *
__wrap_strdup(const char *s)
{
	return oom_fail(OOM_LIBC) ? NULL : __real_strdup(s);
}

char *
__wrap_strndup(const char *s, size_t n)
{
	return oom_fail(OOM_LIBC) ? NULL : __real_strndup(s, n);
}

void *
__wrap_aligned_alloc(size_t align, size_t n)
{
	return oom_fail(OOM_LIBC) ? NULL : __real_aligned_alloc(align, n);
}

/* SQLite's allocator, failing on the same schedule. */
static sqlite3_mem_methods sq_real;

static void *
sq_malloc(int n)
{
	return oom_fail(OOM_SQLITE) ? NULL : sq_real.xMalloc(n);
}

static void *
sq_realloc(void *p, int n)
{
	return oom_fail(OOM_SQLITE) ? NULL : sq_real.xRealloc(p, n);
}

#define OOM_MAX_RUNS 100000L

/*
 * The allocation to fail in the next run.  Every one of the first
 * OOM_EVERY, then every OOM_STRIDE-th: creating a store's schema makes
 * some 10,000 of SQLite's allocations, and failing each in turn takes
 * minutes under ASan.  PGSC_OOM_FULL=1 fails every one.
 */
#define OOM_EVERY 400
#define OOM_STRIDE 37

static long
oom_next(long at)
{
	static int full = -1;

	if (full < 0) {
		const char *e = getenv("PGSC_OOM_FULL");

		full = e != NULL && strcmp(e, "1") == 0;
	}
	return full || at < OOM_EVERY ? at + 1 : at + OOM_STRIDE;
}

/* The checks of one kind of failure on a result @rc. */
static void
oom_check_rc(enum oom_kind kind, long at, int rc)
{
	if (rc == 0)
		return;
	if (kind == OOM_LIBC && rc != -ENOMEM)
		fail_msg("allocation %ld failed: %d, not -ENOMEM", at, rc);
	if (rc > 0)
		fail_msg("allocation %ld failed: %d, not a negative errno",
			 at, rc);
}

/*
 * Run @op (its result 0 or a negative errno) with the Nth and later
 * allocations of @kind failing, for N = 1, 2, ... (oom_next()) until a
 * run meets no failure.  With @closes (@op closes all it opens), SQLite must give back
 * every byte a run took.  Returns the number of runs.
 */
static long
oom_loop(enum oom_kind kind, int (*op)(void *arg), void *arg, int closes)
{
	long runs = 0;

	for (long at = 1; at < OOM_MAX_RUNS; at = oom_next(at)) {
		sqlite3_int64 held = sqlite3_memory_used();
		int rc, hit;

		oom_arm(kind, at);
		rc = op(arg);
		hit = oom_disarm();
		runs++;
		if (closes && sqlite3_memory_used() != held)
			fail_msg("allocation %ld failed: SQLite holds %lld bytes "
				 "more", at,
				 (long long)(sqlite3_memory_used() - held));
		if (!hit) {
			assert_int_equal(rc, 0);
			print_message("%ld runs; %ld allocations without a "
				      "failure\n", runs, oom_n);
			return runs;
		}
		oom_check_rc(kind, at, rc);
	}
	fail_msg("no run without a failure in %ld", OOM_MAX_RUNS);
	return 0;
}

/* ---------------------------------------------------------------- */
/* The decoder and the feed                                           */

struct input {
	char *text;
	size_t len;
};

static struct input small;

static void
read_small(void)
{
	char path[1024];
	FILE *f;
	long n;

	unit_fixture_path(path, sizeof(path), "unit/import-small.log");
	f = fopen(path, "rb");
	if (f == NULL)
		fail_msg("%s: %s (set PGSC_FIXTURES)", path, strerror(errno));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	small.text = __real_malloc((size_t)n);
	assert_non_null(small.text);
	assert_int_equal(fread(small.text, 1, (size_t)n, f), (size_t)n);
	small.len = (size_t)n;
	fclose(f);
}

/* Decode every line of the fixture and compare with @want (or fill it). */
static int
decode_all(struct pgsc_record *want, int *want_rc, int fill)
{
	const char *p = small.text, *end = small.text + small.len;
	struct pgsc_record rec;
	size_t i = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		int rc;

		memset(&rec, 0xa5, sizeof(rec));
		rc = pgsc_record_decode(p, n, &rec);
		if (fill) {
			want[i] = rec;
			want_rc[i] = rc;
		} else if (rc != want_rc[i] ||
			   memcmp(&rec, &want[i], sizeof(rec)) != 0) {
			return -EINVAL;
		}
		i++;
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* pgsc_record_decode() needs no memory: with every allocation failing,
 * each line decodes as before, and none is asked for. */
static void
test_decode(void **state)
{
	struct pgsc_record want[64];
	int want_rc[64];

	(void)state;
	assert_int_equal(decode_all(want, want_rc, 1), 0);
	oom_arm(OOM_LIBC, 1);
	assert_int_equal(decode_all(want, want_rc, 0), 0);
	assert_false(oom_disarm());
	assert_int_equal(oom_n, 0);
}

struct feed_run {
	uint64_t records, rejects, events;
};

static void
on_record(void *arg, const struct pgsc_record *rec)
{
	(void)rec;
	((struct feed_run *)arg)->records++;
}

static void
on_reject(void *arg, int reason, const struct feed_loc *loc, uint64_t serial,
	  const char *text, size_t len)
{
	(void)reason;
	(void)loc;
	(void)serial;
	(void)text;
	(void)len;
	((struct feed_run *)arg)->rejects++;
}

static void
on_event_end(void *arg)
{
	((struct feed_run *)arg)->events++;
}

static const struct feed_ops feed_ops = {
	.record = on_record, .reject = on_reject, .event_end = on_event_end,
};

static struct feed_run feed_want;

/* The fixture through a feed, cut in the middle of a line so the partial
 * line is carried (part_append). */
static int
feed_op(void *arg)
{
	struct feed_run run = { 0, 0, 0 };
	struct feed *f = NULL;
	size_t cut = small.len / 2 + 7;
	char *cause = NULL;
	int rc;

	rc = feed_new(&feed_ops, &run, 0, &f, &cause);
	free(cause);
	if (rc < 0)
		return rc;
	feed_set_source(f, "import-small.log", 0, 0);
	rc = feed_bytes(f, small.text, cut);
	if (rc == 0)
		rc = feed_bytes(f, small.text + cut, small.len - cut);
	if (rc == 0)
		rc = feed_flush(f);
	feed_free(f);
	if (rc == 0 && arg != NULL)
		*(struct feed_run *)arg = run;
	else if (rc == 0 && (run.records != feed_want.records ||
			     run.rejects != feed_want.rejects ||
			     run.events != feed_want.events))
		return -EINVAL;
	return rc;
}

static void
test_feed(void **state)
{
	(void)state;
	assert_int_equal(feed_op(&feed_want), 0);
	assert_true(feed_want.records > 0);
	assert_true(oom_loop(OOM_LIBC, feed_op, NULL, 1) > 1);
}

/* The fixture through a feed in pieces of 2,000 bytes decoded ahead, as the
 * import's reading thread does (ahead.c), with allocations failing only
 * there: a failure leaves the rest of the piece to the feed (its newlines
 * too), so every run gives what feed_op() gave. */
static int
ahead_op(void *arg)
{
	struct feed_run run = { 0, 0, 0 };
	struct feed *f = NULL;
	struct ahead_chunk *ck = ahead_chunk_new();
	char *cause = NULL;
	int rc = -ENOMEM;

	(void)arg;
	if (ck == NULL)
		return rc;
	oom_paused = 1;
	rc = feed_new(&feed_ops, &run, 0, &f, &cause);
	oom_paused = 0;
	free(cause);
	assert_int_equal(rc, 0);
	feed_set_source(f, "import-small.log", 0, 0);
	for (size_t off = 0; rc == 0 && off < small.len; off += 2000) {
		size_t n = small.len - off < 2000 ? small.len - off : 2000;

		ahead_chunk_decode(ck, small.text + off, n);
		oom_paused = 1;
		rc = feed_bytes_ahead(f, small.text + off, n, ck);
		oom_paused = 0;
	}
	oom_paused = 1;
	if (rc == 0)
		rc = feed_flush(f);
	feed_free(f);
	ahead_chunk_free(ck);
	oom_paused = 0;
	if (rc == 0 && (run.records != feed_want.records ||
			run.rejects != feed_want.rejects ||
			run.events != feed_want.events))
		return -EINVAL;
	return rc;
}

static void
test_ahead(void **state)
{
	(void)state;
	assert_int_equal(feed_op(&feed_want), 0);
	assert_int_equal(ahead_op(NULL), 0);
	assert_true(oom_loop(OOM_LIBC, ahead_op, NULL, 1) > 1);
}

/* ---------------------------------------------------------------- */
/* The store                                                          */

static char tmpdir[64];
static char store_path[512];

static int
group_setup(void **state)
{
	(void)state;
	/* on tmpfs when there is one: thousands of stores are created */
	snprintf(tmpdir, sizeof(tmpdir), "%s/test_oom.XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	snprintf(store_path, sizeof(store_path), "%s/pgsc.db", tmpdir);
	read_small();
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	free(small.text);
	return unit_rmtree(tmpdir);
}

/* Open a new store (creating its schema), then reopen it read-only. */
static int
open_op(void *arg)
{
	pgsc_store *st = NULL;
	char *cause = NULL;
	int rc;

	(void)arg;
	unlink(store_path);
	rc = pgsc_store_open(store_path, 0, &st, &cause);
	free(cause);
	cause = NULL;
	pgsc_store_free(st);
	st = NULL;
	if (rc < 0)
		return rc;
	rc = pgsc_store_open(store_path, PGSC_STORE_READONLY, &st, &cause);
	free(cause);
	pgsc_store_free(st);
	return rc;
}

static int
batch_rows(struct store_batch *b, char **cause)
{
	struct role_agg a = {
		.role = "client backend", .arch = X86_64, .nr = 39,
		.count = 3, .first = 1796277282.679, .last = 1796277283.019,
		.example_pid = 5523,
		.example_exe = "/usr/lib/postgresql/15/bin/postgres",
	};
	struct proc_info p = {
		.pid = 5523, .ppid = 5514, .parent_known = 1,
		.birth = 1796277282.679, .birth_serial = 4033,
		.last = 1796277283.019,
		.exe = "/usr/lib/postgresql/15/bin/postgres",
		.comm = "postgres", .title = "postgres: postgres postgres",
		.role = "client backend", .records = 5, .exited = 1,
		.uid = 101, .node = NULL,
	};
	int rc;

	rc = store_batch_agg(b, &a, cause);
	if (rc == 0)
		rc = store_batch_proc(b, &p, cause);
	if (rc == 0)
		rc = store_batch_reject(b, "truncated", 2, cause);
	if (rc == 0)
		rc = store_batch_sample(b, "truncated", "audit.log", 7, 4040,
					"type=SECCOMP msg=audit(", cause);
	return rc;
}

/* A round with one row of each kind, in one transaction, on the open
 * store @arg. */
static int
round_op(void *arg)
{
	pgsc_store *st = arg;
	struct store_batch *b = NULL;
	char *cause = NULL;
	int64_t round;
	int rc;

	rc = store_begin(st, &cause);
	if (rc < 0)
		goto out;
	rc = store_round_new(st, "oom", "import", 1796277282.0, &round, &cause);
	if (rc == 0)
		rc = store_batch_new(st, round, &b, &cause);
	if (rc == 0)
		rc = batch_rows(b, &cause);
	store_batch_free(b);
	if (rc == 0)
		rc = store_commit(st, &cause);
	if (rc < 0) {
		/* ROLLBACK needs memory too: one that fails leaves the
		 * transaction open and every later BEGIN refused, so it
		 * runs with memory and the next run starts clean */
		oom_paused = 1;
		store_rollback(st);
		oom_paused = 0;
	}
out:
	free(cause);
	return rc;
}

static void
test_store_open_libc(void **state)
{
	(void)state;
	assert_true(oom_loop(OOM_LIBC, open_op, NULL, 1) > 1);
}

static void
test_store_open_sqlite(void **state)
{
	(void)state;
	assert_int_equal(open_op(NULL), 0);     /* SQLite's own set-up */
	assert_true(oom_loop(OOM_SQLITE, open_op, NULL, 1) > 1);
}

/* The open store keeps its caches and last error between runs: what it
 * holds is compared once it is closed. */
static void
round_loop(enum oom_kind kind)
{
	pgsc_store *st = NULL;
	char *cause = NULL;
	sqlite3_int64 held = sqlite3_memory_used();

	unlink(store_path);
	assert_int_equal(pgsc_store_open(store_path, 0, &st, &cause), 0);
	assert_int_equal(round_op(st), 0);
	assert_true(oom_loop(kind, round_op, st, 0) > 1);
	pgsc_store_free(st);
	assert_int_equal(sqlite3_memory_used(), held);
}

static void
test_store_round_libc(void **state)
{
	(void)state;
	round_loop(OOM_LIBC);
}

static void
test_store_round_sqlite(void **state)
{
	(void)state;
	round_loop(OOM_SQLITE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_feed),
		cmocka_unit_test(test_ahead),
		cmocka_unit_test(test_store_open_libc),
		cmocka_unit_test(test_store_open_sqlite),
		cmocka_unit_test(test_store_round_libc),
		cmocka_unit_test(test_store_round_sqlite),
	};
	sqlite3_mem_methods mem;

	/* before SQLite initialises itself */
	if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &sq_real) != SQLITE_OK)
		return 1;
	mem = sq_real;
	mem.xMalloc = sq_malloc;
	mem.xRealloc = sq_realloc;
	if (sqlite3_config(SQLITE_CONFIG_MALLOC, &mem) != SQLITE_OK)
		return 1;
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
