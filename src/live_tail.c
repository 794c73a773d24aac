/* SPDX-License-Identifier: PostgreSQL */
/* live_tail.c - the file:PATH source: audit.log followed across
 * rotations, by inode, from where the last run stopped; its position
 * goes into every commit. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "feed.h"
#include "proctree.h"
#include "store.h"
#include "live.h"

#define MAX_ROTATED 99

/* The source's state (live.src_priv). */
struct tail {
	char *path;
	int fd;
	uint64_t inode;
	uint64_t read_off;          /* bytes read from fd */
	char fingerprint[24];       /* of the file behind fd, "" until known */
	/* Files to read next, oldest first, held open: auditd renames
	 * audit.log.K to .K+1 at every rotation, so a name read later may
	 * be another file by then. */
	int queue[MAX_ROTATED + 2];
	int nqueue;
	int final_read;             /* read the renamed file once more */
	int more;                   /* the last read stopped for a commit */
};

static void
live_tail_fingerprint(int fd, char out[24])
{
	char buf[64 * 1024];
	ssize_t n = pread(fd, buf, sizeof(buf), 0);
	const char *nl;

	out[0] = '\0';
	if (n <= 0)
		return;
	nl = memchr(buf, '\n', (size_t)n);
	/* a first line of 64 KiB or more: its first 64 KiB, as an import
	 * identifies it (import.c, infile_open()) */
	if (nl == NULL && (size_t)n == sizeof(buf))
		nl = buf + sizeof(buf);
	if (nl == NULL)
		return;
	snprintf(out, 24, "%016llx",
		 (unsigned long long)util_hash(buf, (size_t)(nl - buf),
					       0x70677363));
}

static char *
rotated_name(const char *path, int k)
{
	char *s = NULL;

	if (k == 0)
		return strdup(path);
	if (asprintf(&s, "%s.%d", path, k) < 0)
		return NULL;
	return s;
}

/* Read @fd next (it is ours now), from @offset. */
static int
tail_use(struct tail *t, int fd, uint64_t offset)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0) {
		close(fd);
		return -errno;
	}
	if (t->fd >= 0)
		close(t->fd);
	t->fd = fd;
	t->inode = (uint64_t)sb.st_ino;
	t->read_off = offset;
	t->final_read = 0;
	live_tail_fingerprint(fd, t->fingerprint);
	return 0;
}

static int
tail_switch(struct tail *t, const char *name, uint64_t offset)
{
	int fd = util_open_regular(name, NULL);

	if (fd < 0)
		return -errno;
	return tail_use(t, fd, offset);
}

/* Open @name now and read it after what is queued; missing is fine. */
static int
tail_queue(struct tail *t, const char *name)
{
	int fd;

	if (name == NULL)
		return -ENOMEM;
	if (t->nqueue >= (int)ARRAY_SIZE(t->queue))
		return 0;
	fd = util_open_regular(name, NULL);
	if (fd >= 0)
		t->queue[t->nqueue++] = fd;
	return 0;
}

/* Queue the rotated files @from down to @to (0: the live name). */
static int
tail_queue_rotated(struct tail *t, int from, int to)
{
	for (int k = from; k >= to; k--) {
		char *name = rotated_name(t->path, k);
		int rc = tail_queue(t, name);

		free(name);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int
tail_next(struct tail *t)
{
	int fd = t->queue[0];

	memmove(t->queue, t->queue + 1,
		(size_t)(t->nqueue - 1) * sizeof(*t->queue));
	t->nqueue--;
	return tail_use(t, fd, 0);
}


/* A rotation gap: said, counted, kept in the gaps table. */
static void
tail_gap(struct live *lv, const char *detail)
{
	lv->rd.r.rotation_gaps++;
	store_gap(lv->st, lv->rd.id, "rotation", util_now(), detail, NULL);
	if (!lv->o->quiet)
		util_diag(lv->diag, "warning: %s\n", detail);
}

/* Open the file to follow: where the last run stopped, or the end. */
static int
tail_locate(struct live *lv)
{
	struct tail *t = lv->src_priv;
	struct store_source src = { 0 };
	char fp[24];
	int rc, k, found = -1;

	t->fd = -1;
	rc = store_source_by_path(lv->st, t->path, fp, &src, lv->cause);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		/* find the file we were reading: it may have rotated */
		for (k = 0; k <= MAX_ROTATED; k++) {
			char *name = rotated_name(t->path, k), cand[24];
			int fd;

			if (name == NULL)
				return -ENOMEM;
			fd = util_open_regular(name, NULL);
			free(name);
			if (fd < 0) {
				if (k > 0)
					break;
				continue;
			}
			live_tail_fingerprint(fd, cand);
			close(fd);
			if (strcmp(cand, fp) == 0) {
				found = k;
				break;
			}
		}
		if (found < 0) {
			char detail[256];

			snprintf(detail, sizeof(detail), "the file last read at "
				 "%s (fingerprint %s, offset %llu) was rotated "
				 "away; records after it may be missing",
				 t->path, fp, (unsigned long long)src.offset);
			tail_gap(lv, detail);
			/* read every file still there, oldest first */
			rc = tail_queue_rotated(t, MAX_ROTATED, 0);
			if (rc < 0)
				return rc;
			if (t->nqueue == 0)
				return tail_switch(t, t->path, 0);
			return tail_next(t);
		}
		/* newer rotated files, then the live one, all opened now */
		rc = tail_queue_rotated(t, found - 1, 0);
		if (rc < 0)
			return rc;
		{
			char *name = rotated_name(t->path, found);

			if (name == NULL)
				return -ENOMEM;
			rc = tail_switch(t, name, src.offset);
			free(name);
		}
		if (rc == 0)
			feed_set_source(lv->rd.feed, t->path, src.lines, src.offset);
		/* the same file read on: the serials read before are no
		 * holes (not after a rotation gap: the next file may be of
		 * another boot, with serials below) */
		if (rc == 0)
			rc = round_serials_resume(&lv->rd, fp, t->path,
						  lv->o->quiet ? NULL : lv->diag,
						  lv->cause);
		return rc;
	}
	/* first run on this file: start at its end, on a line boundary */
	rc = tail_switch(t, t->path, 0);
	if (rc < 0)
		return rc;
	if (!lv->o->from_start) {
		struct stat sb;
		off_t end;
		char c;

		if (fstat(t->fd, &sb) < 0)
			return -errno;
		end = sb.st_size;
		while (end > 0 && pread(t->fd, &c, 1, end - 1) == 1 && c != '\n')
			end--;
		t->read_off = (uint64_t)end;
		feed_set_source(lv->rd.feed, t->path, 0, (uint64_t)end);
	}
	return 0;
}

/*
 * logrotate's copytruncate: the file we read was copied to PATH.1 and
 * emptied in place, the inode kept (once 3,884 of 8,310 records
 * were never read, and no gap said so).  Seen as its size below our
 * offset, or its first line changed (it grew past our offset again
 * meanwhile).  What followed our last whole line is in PATH.1 when that
 * starts as our file did: read on there, then PATH from 0; else PATH from
 * 0, a rotation gap.  1 when switched, 0 when not truncated, or < 0.
 */
static int
tail_truncated(struct live *lv)
{
	struct tail *t = lv->src_priv;
	struct stat sb;
	char fp[24], *name, detail[512];
	uint64_t off = feed_offset(lv->rd.feed), lines = feed_lines(lv->rd.feed);
	int fd;

	if (t->fingerprint[0] == '\0' || fstat(t->fd, &sb) < 0)
		return 0;
	if ((uint64_t)sb.st_size >= t->read_off) {
		live_tail_fingerprint(t->fd, fp);
		if (fp[0] == '\0' || strcmp(fp, t->fingerprint) == 0)
			return 0;
	}
	name = rotated_name(t->path, 1);
	if (name == NULL)
		return -ENOMEM;
	fd = util_open_regular(name, NULL);
	free(name);
	feed_end_source(lv->rd.feed);
	if (fd >= 0) {
		live_tail_fingerprint(fd, fp);
		if (strcmp(fp, t->fingerprint) == 0 && fstat(fd, &sb) == 0 &&
		    (uint64_t)sb.st_size >= off) {
			int rc = tail_queue(t, t->path);

			if (rc == 0)
				rc = tail_use(t, fd, off);
			else
				close(fd);
			if (rc < 0)
				return rc;
			feed_set_source(lv->rd.feed, t->path, lines, off);
			return 1;
		}
		close(fd);
	}
	snprintf(detail, sizeof(detail), "%s was truncated in place "
		 "(copytruncate) after offset %llu, and no %s.1 holds what "
		 "followed; records written meanwhile may be missing",
		 t->path, (unsigned long long)off, t->path);
	tail_gap(lv, detail);
	t->read_off = 0;
	t->final_read = 0;
	live_tail_fingerprint(t->fd, t->fingerprint);
	feed_set_source(lv->rd.feed, t->path, 0, 0);
	return 1;
}

/*
 * Read what is new; move to the next file after a rotation.  A collector
 * far behind (restarted after a long stop) returns once @deadline has
 * passed, with *more set, so that the main loop commits on time: without
 * it, tens of MB were read with no commit, and a kill lost all that work.
 */
static int
tail_read(struct live *lv, short revents, double deadline)
{
	struct tail *t = lv->src_priv;
	int got = 0, *more = &t->more;

	(void)revents;
	*more = 0;
	for (;;) {
		ssize_t n;
		struct stat sb;
		int rc;

		if (got && (util_now() >= deadline ||
			    proctree_prune_due(lv->rd.tree))) {
			*more = 1;
			return 0;
		}
		n = pread(t->fd, lv->buf, BUF_SIZE, (off_t)t->read_off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n > 0) {
			/* the bytes just read are the file's we followed
			 * only if it still starts as it did: a copytruncate
			 * may have emptied it, and new text grown past our
			 * offset, since the last read */
			rc = tail_truncated(lv);
			if (rc < 0)
				return rc;
			if (rc > 0)
				continue;
			if (t->fingerprint[0] == '\0')
				live_tail_fingerprint(t->fd, t->fingerprint);
			t->read_off += (uint64_t)n;
			got = 1;
			rc = feed_bytes(lv->rd.feed, lv->buf, (size_t)n);
			if (rc < 0)
				return rc;
			continue;
		}
		/* at the end of this file: is there a newer one? */
		if (t->nqueue > 0) {
			feed_end_source(lv->rd.feed);
			rc = tail_next(t);
			if (rc < 0)
				return rc;
			feed_set_source(lv->rd.feed, t->path, 0, 0);
			continue;
		}
		rc = tail_truncated(lv);
		if (rc < 0)
			return rc;
		if (rc > 0)
			continue;
		if (stat(t->path, &sb) < 0 || (uint64_t)sb.st_ino == t->inode)
			return 0;
		/* Rotated.  auditd may have written to the renamed file after
		 * our last read: read it to its end once more first. */
		if (!t->final_read) {
			t->final_read = 1;
			continue;
		}
		/* Files rotated more than once meanwhile come first; open
		 * them all at once, before the names move again. */
		for (int k = 2; k <= MAX_ROTATED; k++) {
			char *name = rotated_name(t->path, k);
			struct stat rb;

			if (name == NULL)
				return -ENOMEM;
			if (stat(name, &rb) < 0) {
				free(name);
				break;
			}
			free(name);
			if ((uint64_t)rb.st_ino == t->inode) {
				rc = tail_queue_rotated(t, k - 1, 1);
				if (rc < 0)
					return rc;
				break;
			}
		}
		rc = tail_queue(t, t->path);
		if (rc < 0)
			return rc;
		feed_end_source(lv->rd.feed);
		if (t->nqueue == 0)
			return 0; /* the new file is not there yet */
		rc = tail_next(t);
		if (rc < 0)
			return rc;
		feed_set_source(lv->rd.feed, t->path, 0, 0);
	}
}

static int
tail_open(struct live *lv, const char *spec)
{
	struct tail *t = calloc(1, sizeof(*t));

	lv->source = spec;
	if (t == NULL)
		return -ENOMEM;
	lv->src_priv = t;
	t->fd = -1;
	t->path = strdup(spec + 5);
	if (t->path == NULL)
		return -ENOMEM;
	return 0; /* opened once the round is known */
}

static int
tail_start(struct live *lv)
{
	const struct tail *t = lv->src_priv;
	int rc = tail_locate(lv);

	if (rc < 0 && lv->cause && *lv->cause == NULL)
		util_cause(lv->cause, "%s: %s", t->path, strerror(-rc));
	return rc;
}

/* A file is always readable: poll only the signals, and not at all when
 * the last read stopped for a commit. */
static int
tail_pollfd(struct live *lv, struct pollfd *pfd, int *timeout)
{
	const struct tail *t = lv->src_priv;

	(void)pfd;
	if (t->more)
		*timeout = 0;
	return 0;
}

/* Where the file stands, stored with the commit. */
static int
tail_position(struct live *lv)
{
	struct tail *t = lv->src_priv;
	struct store_source src = { 0 };
	uint8_t *b;
	ssize_t n;
	int rc;

	if (t->fingerprint[0] == '\0' && t->fd >= 0)
		live_tail_fingerprint(t->fd, t->fingerprint);
	if (t->fingerprint[0] == '\0')
		return 0;
	src.path = t->path;
	src.inode = t->inode;
	src.offset = feed_offset(lv->rd.feed);
	src.lines = feed_lines(lv->rd.feed);
	src.last_serial = lv->rd.ser.max;
	src.last_event = lv->rd.r.last_event;
	util_prefix_hash(t->fd, src.offset, src.prefix_hash);
	/* with what this commit does not count as gaps (serials.c) */
	n = serials_save(&lv->rd.ser, lv->rd.settled, &b);
	if (n < 0)
		return (int)n;
	src.serials = b;
	src.serials_len = (size_t)n;
	rc = store_source_put(lv->st, t->fingerprint, &src, lv->rd.id,
			      lv->cause);
	free(b);
	return rc;
}

static void
tail_close(struct live *lv)
{
	struct tail *t = lv->src_priv;

	if (t == NULL)
		return;
	if (t->fd >= 0)
		close(t->fd);
	for (int i = 0; i < t->nqueue; i++)
		close(t->queue[i]);
	free(t->path);
	free(t);
	lv->src_priv = NULL;
}

const struct live_source live_tail = {
	.kind = "file",
	.open = tail_open,
	.start = tail_start,
	.pollfd = tail_pollfd,
	.read = tail_read,
	.position = tail_position,
	.close = tail_close,
};
