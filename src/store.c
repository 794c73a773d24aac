/* SPDX-License-Identifier: PostgreSQL */
/* store.c - the SQLite store: open (the writer's lock, a checked
 * read-only open), migrate, and the schema version; the statement
 * helpers and the error mapping are store_sql.c's. */
/*
 * The store knows nothing about parsing: it takes rounds, sources,
 * processes, aggregates and rejects as plain values.  Every statement
 * binds its parameters; no text from a record is ever put into SQL.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "store.h"
#include "store-int.h"

struct pgsc_schema {
	int version;
	const char *sql;
};
extern const struct pgsc_schema pgsc_schemas[];
extern const size_t pgsc_n_schemas;

static int
get_version(pgsc_store *st, int *v)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s, NULL) !=
	    SQLITE_OK)
		return -EIO;
	rc = sqlite3_step(s);
	*v = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : -EIO;
}

/* Apply every schema newer than the store, each in its own transaction
 * together with the user_version bump. */
static int
migrate(pgsc_store *st, char **cause)
{
	int rc = 0, fresh = st->version == 0;

	for (size_t i = 0; i < pgsc_n_schemas; i++) {
		char bump[64];

		if (pgsc_schemas[i].version <= st->version)
			continue;
		if (st->readonly) {
			util_cause(cause, "%s: schema version %d is older than "
				   "this pgsc's (%d); open it read-write once "
				   "(pgsc-collect) to upgrade", st->path,
				   st->version, pgsc_schemas[i].version);
			return -EROFS;
		}
		rc = store_begin(st, cause);
		if (rc < 0)
			return rc;
		rc = store_exec(st, pgsc_schemas[i].sql, cause);
		snprintf(bump, sizeof(bump), "PRAGMA user_version = %d",
			 pgsc_schemas[i].version);
		if (rc == 0)
			rc = store_exec(st, bump, cause);
		if (rc == 0)
			rc = store_commit(st, cause);
		if (rc < 0) {
			store_rollback(st);
			return rc;
		}
		st->version = pgsc_schemas[i].version;
	}
	/*
	 * A new store went through every migration, and 006 copies three
	 * tables into new ones: the pages of the first copies are free
	 * pages, which integrity_check does not read (a damaged one would
	 * pass it).  An empty store is rewritten in a moment; an upgraded one
	 * keeps its pages (a VACUUM of a large store is the user's call).
	 */
	if (fresh && !st->readonly && st->version > 0) {
		rc = store_exec(st, "VACUUM", cause);
		if (rc < 0)
			return rc;
	}
	if (pgsc_n_schemas > 0 &&
	    st->version > pgsc_schemas[pgsc_n_schemas - 1].version) {
		util_cause(cause, "%s: schema version %d is newer than this "
			   "pgsc understands (%d)", st->path, st->version,
			   pgsc_schemas[pgsc_n_schemas - 1].version);
		return -EPROTO;
	}
	return 0;
}

/* The pid holding a flock() on @fd's file, from /proc/locks, or 0. */
static long
lock_holder(int fd)
{
	struct stat sb;
	char line[256];
	long pid = 0;
	FILE *f;

	if (fstat(fd, &sb) < 0 || (f = fopen("/proc/locks", "re")) == NULL)
		return 0;
	while (pid == 0 && fgets(line, sizeof(line), f) != NULL) {
		char kind[16];
		long p;
		unsigned maj, min;
		unsigned long long ino;

		/* "1: FLOCK  ADVISORY  WRITE 1234 08:02:5678 0 EOF" */
		if (sscanf(line, "%*s %15s %*s %*s %ld %x:%x:%llu", kind, &p,
			   &maj, &min, &ino) == 5 && strcmp(kind, "FLOCK") == 0 &&
		    ino == (unsigned long long)sb.st_ino && p != (long)getpid())
			pid = p;
	}
	fclose(f);
	return pid;
}

/* ---------------------------------------------------------------- */
/* Readers                                                            */

/*
 * The check a reader runs before it trusts a store.  Of 150 truncated or
 * bit-flipped stores, 16 that failed integrity_check still reported, 2
 * with a changed list.  quick_check is not enough: it does not
 * check that indexes match their tables, and a flipped bit in an index
 * page (report queries use the indexes) passed it in 32 of 150 copies in
 * tests/store/damage.sh.  integrity_check refuses exactly what SQLite
 * itself calls damaged; tests/bench/bench-check.sh prints what each costs.
 */
#ifndef STORE_CHECK
#define STORE_CHECK "PRAGMA integrity_check"
#endif

static int
check_store(pgsc_store *st, char **cause)
{
	sqlite3_stmt *s;
	int rc;
	char first[256] = "";
	int bad = 0;

	rc = sqlite3_prepare_v2(st->db, STORE_CHECK, -1, &s, NULL);
	if (rc != SQLITE_OK) {
		snprintf(first, sizeof(first), "%s", sqlite3_errmsg(st->db));
		bad = 1;
	} else {
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			const char *m = (const char *)sqlite3_column_text(s, 0);

			if (m != NULL && strcmp(m, "ok") == 0)
				continue;
			if (!bad) {
				/* "*** in database main ***\nOn tree page..." */
				const char *l = m ? m : "?";

				if (strncmp(l, "*** ", 4) == 0 &&
				    strchr(l, '\n') != NULL)
					l = strchr(l, '\n') + 1;
				snprintf(first, sizeof(first), "%.*s",
					 (int)strcspn(l, "\n"), l);
			}
			bad++;
		}
		if (rc != SQLITE_DONE && !bad) {
			snprintf(first, sizeof(first), "%s",
				 sqlite3_errmsg(st->db));
			bad = 1;
		}
		sqlite3_finalize(s);
	}
	if (!bad)
		return 0;
	util_cause(cause, "%s: the store is damaged and is not trusted "
		   "(integrity_check: %s); nothing was read from it: restore a "
		   "copy or collect again", st->path, first);
	return -EBADMSG;
}

static int
not_a_store(pgsc_store *st, char **cause)
{
	int e = sqlite3_errcode(st->db) & 0xff;

	if (e == SQLITE_CORRUPT) {
		util_cause(cause, "%s: the store is damaged and is not trusted "
			   "(%s); nothing was read from it: restore a copy or "
			   "collect again", st->path, sqlite3_errmsg(st->db));
		return -EBADMSG;
	}
	util_cause(cause, "%s: not a pgsc store (%s)", st->path,
		   sqlite3_errmsg(st->db));
	return -EINVAL;
}

/* The shared read-only open: SQLite's own locking through the -shm. */
static int
ro_open_shared(pgsc_store *st, char **cause)
{
	int rc;

	if (sqlite3_open_v2(st->path, &st->db, SQLITE_OPEN_READONLY |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		util_cause(cause, "%s: %s", st->path,
			   st->db ? sqlite3_errmsg(st->db) : "cannot open");
		return -EIO;
	}
	store_check_harden(st->db);
	sqlite3_busy_timeout(st->db, 10000);
	rc = store_exec(st, "PRAGMA foreign_keys = ON", cause);
	if (rc < 0)
		return rc;
	/* a reader's passes over a fleet's store (integrity_check, then
	 * the reports' scans) read its pages more than once: up to 32 MiB
	 * of them stay in memory instead of being read again.  Only a
	 * setting: a file that is no store fails in the checks below, which
	 * say so, not here */
	(void)sqlite3_exec(st->db, "PRAGMA cache_size = -32768", NULL, NULL,
			   NULL);
	/*
	 * A reader sees one snapshot: every query of a report runs in this
	 * one read transaction (WAL), so a collector committing meanwhile
	 * never makes a report mix two commits, and never blocks it.  It ends
	 * in pgsc_store_free().
	 */
	rc = store_exec(st, "BEGIN", cause);
	if (rc < 0)
		return rc;
	st->snapshot = 1;
	if (get_version(st, &st->version) < 0)
		return not_a_store(st, cause);
	return 0;
}

/* Does a -wal file hold frames?  Absent or empty, the store file alone
 * holds every commit (a writer changes the file only by checkpointing
 * frames of a non-empty -wal). */
static int
wal_used(const char *wal)
{
	struct stat sb;

	return stat(wal, &sb) == 0 && sb.st_size > 0;
}

/* The largest store a reader copies into memory (ro_open_image()). */
#define STORE_IMAGE_MAX ((uint64_t)1 << 30)

static int
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/*
 * A reader that cannot write the store's directory cannot create the
 * -shm file WAL readers need.  When no -wal file exists, or
 * an empty one (left by a reader that could write the directory), the file
 * alone is the whole committed store: a writer's commits go to the -wal,
 * and reach the file only by a checkpoint of a -wal that holds them.  The
 * file is copied into memory and read there, so no writer starting later
 * can change what this reader sees; a copy is kept only when the file is
 * the same (inode, size, mtime, ctime) and the -wal still empty after the
 * read as before it, so it is never a torn one.  With a writer's frames in
 * the -wal, the -wal and -shm are needed: SQLite creates them with the
 * store's mode, and ro_open_shared() reads through them.
 */
static int
ro_open_image(pgsc_store *st, char **cause)
{
	char *wal = NULL;
	unsigned char *img = NULL;
	struct stat a, b;
	int fd = -1, rc = -EAGAIN;

	if (asprintf(&wal, "%s-wal", st->path) < 0)
		return -ENOMEM;
	for (int attempt = 0; attempt < 5 && rc == -EAGAIN; attempt++) {
		size_t got = 0;

		sqlite3_free(img);
		img = NULL;
		if (fd >= 0)
			close(fd);
		if (wal_used(wal)) {
			util_cause(cause, "%s: %s holds commits not yet in "
				   "the store file, and this user cannot use the "
				   "-shm file: reading needs read access to the "
				   "store and its -wal and -shm files "
				   "(docs/security.md)", st->path, wal);
			rc = -EACCES;
			break;
		}
		fd = util_open_regular(st->path, cause);
		if (fd < 0) {
			rc = fd;
			break;
		}
		if (fstat(fd, &a) < 0) {
			rc = -errno;
			util_cause(cause, "%s: %s", st->path, strerror(errno));
			break;
		}
		if ((uint64_t)a.st_size > STORE_IMAGE_MAX || a.st_size < 100) {
			util_cause(cause, "%s: %s for a read-only copy (%lld "
				   "bytes); read it as a user who can write its "
				   "directory", st->path, a.st_size < 100 ?
				   "too small" : "too big",
				   (long long)a.st_size);
			rc = -EFBIG;
			break;
		}
		img = sqlite3_malloc64((sqlite3_uint64)a.st_size);
		if (img == NULL) {
			rc = -ENOMEM;
			break;
		}
		while (got < (size_t)a.st_size) {
			ssize_t n = pread(fd, img + got, (size_t)a.st_size - got,
					  (off_t)got);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		if (got == (size_t)a.st_size && fstat(fd, &b) == 0 &&
		    same_file(&a, &b) && stat(st->path, &b) == 0 &&
		    same_file(&a, &b) && !wal_used(wal))
			rc = 0;
	}
	if (fd >= 0)
		close(fd);
	free(wal);
	if (rc == -EAGAIN)
		util_cause(cause, "%s: the store kept changing while it was "
			   "read; try again", st->path);
	if (rc < 0) {
		sqlite3_free(img);
		return rc;
	}
	/* the copy is read as a rollback-journal database: bytes 18 and 19
	 * of the header say WAL (2), which an in-memory image cannot be */
	if (memcmp(img, "SQLite format 3", 16) == 0 && img[18] == 2 &&
	    img[19] == 2)
		img[18] = img[19] = 1;
	if (sqlite3_open_v2(":memory:", &st->db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		sqlite3_free(img);
		util_cause(cause, "%s: cannot open a copy", st->path);
		return -ENOMEM;
	}
	store_check_harden(st->db);
	if (sqlite3_deserialize(st->db, "main", img, a.st_size, a.st_size,
				SQLITE_DESERIALIZE_FREEONCLOSE |
				SQLITE_DESERIALIZE_READONLY) != SQLITE_OK) {
		util_cause(cause, "%s: %s", st->path, sqlite3_errmsg(st->db));
		return -EIO;
	}
	rc = store_exec(st, "PRAGMA foreign_keys = ON", cause);
	if (rc < 0)
		return rc;
	if (get_version(st, &st->version) < 0)
		return not_a_store(st, cause);
	st->image = 1;
	return 0;
}

static int
dir_writable(const char *path)
{
	char *d = strdup(path), *slash;
	int ok;

	if (d == NULL)
		return 1;
	slash = strrchr(d, '/');
	if (slash == NULL)
		ok = access(".", W_OK | X_OK) == 0;
	else if (slash == d)
		ok = access("/", W_OK | X_OK) == 0;
	else {
		*slash = '\0';
		ok = access(d, W_OK | X_OK) == 0;
	}
	free(d);
	return ok;
}

/* Open for reading, then check the store before it is trusted. */
static int
ro_open(pgsc_store *st, char **cause)
{
	struct stat sb;
	int rc;

	/* SQLite would block in open() on a FIFO */
	if (stat(st->path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		util_cause(cause, "%s: not a regular file; a store is one",
			   st->path);
		return -EINVAL;
	}
	if (access(st->path, R_OK) < 0) {
		rc = -errno;
		util_cause(cause, "%s: %s%s", st->path, strerror(errno),
			   errno == EACCES ? " (a store is created 0600: its "
			   "owner grants read access, docs/security.md)" : "");
		return rc;
	}
	rc = ro_open_shared(st, cause);
	if (rc < 0 && !dir_writable(st->path)) {
		if (st->db != NULL)
			sqlite3_close_v2(st->db);
		st->db = NULL;
		st->snapshot = 0;
		rc = ro_open_image(st, cause);
	}
	if (rc < 0)
		return rc;
	return check_store(st, cause);
}

/*
 * One writer per store: a read-write open takes an exclusive flock() on
 * the store file for as long as the store is open, and refuses at once
 * (-EBUSY) when another collector holds it.  SQLite would serialize the
 * transactions of two writers, but not their logic: two imports of the
 * same log would both read it from the same committed position and count
 * it twice.  The kernel drops the lock when its holder dies (kill -9), so
 * nothing stale is left behind.  SQLite itself uses POSIX fcntl() locks,
 * which flock() locks do not interact with on Linux; the descriptor is
 * closed only after SQLite has closed the store, because closing any
 * descriptor of a file drops the process's fcntl() locks on it.
 */
static int
lock_writer(pgsc_store *st, char **cause)
{
	long pid;

	if (flock(st->lockfd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK) {
		int e = errno;

		util_cause(cause, "%s: cannot lock: %s", st->path, strerror(e));
		return -e;
	}
	pid = lock_holder(st->lockfd);
	if (pid > 0)
		util_cause(cause, "%s: another pgsc-collect (pid %ld) is writing "
			   "this store; only one collector can write a store "
			   "at a time (stop it, or use another --db)", st->path,
			   pid);
	else
		util_cause(cause, "%s: another pgsc-collect is writing this "
			   "store; only one collector can write a store at a "
			   "time (stop it, or use another --db)", st->path);
	return -EBUSY;
}

/*
 * The store's file, opened read-write, or made 0600 when there is none;
 * -1 with errno.  Another process may make it between the two opens (a
 * reader's sqlite3 creates the file it is given): O_EXCL then fails with
 * EEXIST, and the file is opened as it is, as one there before would be
 * (the input tests, polling a collector's new store with sqlite3, saw one
 * refuse its own store so: "live.db: File exists").
 */
static int
store_file_open(const char *path)
{
	int fd = -1;

	for (int i = 0; i < 3; i++) {
		fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
		if (fd >= 0 || errno != ENOENT)
			break;
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC |
			  O_NOFOLLOW, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	return fd;
}

int
pgsc_store_open(const char *path, int flags, pgsc_store **out, char **cause)
{
	pgsc_store *st;
	struct stat sb;
	int rc, fd, sflags;

	*out = NULL;
	st = calloc(1, sizeof(*st));
	if (st == NULL)
		return -ENOMEM;
	st->readonly = (flags & PGSC_STORE_READONLY) != 0;
	st->lockfd = -1;
	st->path = strdup(path);
	if (st->path == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	if (!st->readonly) {
		/* Create it 0600 ourselves: the store names every program
		 * the server ran, and sqlite would honour the umask.  Never
		 * through a symlink, and a new store is a new file (O_EXCL):
		 * a collector often runs as root, and --db may be in a
		 * directory another user owns (docs/security.md §10). */
		fd = store_file_open(path);
		if (fd < 0) {
			rc = -errno;
			util_cause(cause, "%s: %s", path, errno == ELOOP ?
				   "a symlink; a store is opened only by its "
				   "own name, never through one" :
				   strerror(errno));
			goto fail;
		}
		st->lockfd = fd;
		if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
			util_cause(cause, "%s: not a regular file; a store is "
				   "one", path);
			rc = -EINVAL;
			goto fail;
		}
		rc = lock_writer(st, cause);
		if (rc < 0)
			goto fail;
		sflags = SQLITE_OPEN_READWRITE;
	} else {
		rc = ro_open(st, cause);
		if (rc < 0)
			goto fail;
		goto opened;
	}
	if (sqlite3_open_v2(path, &st->db, sflags | SQLITE_OPEN_NOMUTEX |
			    SQLITE_OPEN_NOFOLLOW,
			    NULL) != SQLITE_OK) {
		util_cause(cause, "%s: %s", path,
			   st->db ? sqlite3_errmsg(st->db) : "cannot open");
		rc = -EIO;
		goto fail;
	}
	store_check_harden(st->db);
	sqlite3_busy_timeout(st->db, 10000);
	if (!st->readonly) {
		rc = store_exec(st, "PRAGMA journal_mode = WAL;"
				    "PRAGMA synchronous = NORMAL;", cause);
		if (rc < 0)
			goto fail;
	}
	rc = store_exec(st, "PRAGMA foreign_keys = ON", cause);
	if (rc < 0)
		goto fail;
	if (get_version(st, &st->version) < 0) {
		util_cause(cause, "%s: not a pgsc store (%s)", path,
			   sqlite3_errmsg(st->db));
		rc = -EINVAL;
		goto fail;
	}
opened:
	if (st->version == 0) {
		/* version 0 is a new, empty file: never another program's
		 * database that we would add our tables to */
		sqlite3_stmt *s;
		int tables = 0;

		if (sqlite3_prepare_v2(st->db, "SELECT count(*) FROM "
				       "sqlite_master", -1, &s, NULL) == SQLITE_OK) {
			if (sqlite3_step(s) == SQLITE_ROW)
				tables = sqlite3_column_int(s, 0);
			sqlite3_finalize(s);
		}
		if (tables > 0) {
			util_cause(cause, "%s: not a pgsc store (it has tables "
				   "but no pgsc schema version)", path);
			rc = -EINVAL;
			goto fail;
		}
		if (st->readonly) {
			util_cause(cause, "%s: empty; nothing collected yet", path);
			rc = -ENOENT;
			goto fail;
		}
	}
	/* before any statement reads a table: a planted view or trigger
	 * runs in the migration's and the report's statements */
	rc = store_check_schema(st, cause);
	if (rc < 0)
		goto fail;
	rc = migrate(st, cause);
	if (rc < 0)
		goto fail;
	if (flags & PGSC_STORE_UNTRUSTED)
		store_check_limit(st, &st->deadline,
				  PGSC_STORE_UNTRUSTED_SECONDS);
	*out = st;
	return 0;
fail:
	pgsc_store_free(st);
	return rc;
}

void
pgsc_store_free(pgsc_store *st)
{
	if (st == NULL)
		return;
	if (st->db != NULL) {
		if (st->snapshot)
			sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
		sqlite3_close_v2(st->db);
	}
	if (st->lockfd >= 0)
		close(st->lockfd);
	free(st->path);
	free(st);
}

int
pgsc_store_schema_version(pgsc_store *st)
{
	return st->version;
}
