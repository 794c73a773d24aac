/* SPDX-License-Identifier: PostgreSQL */
/* logsrc.c - one input of an import: a file (plain, gzip, xz or zstd),
 * standard input or a pipe, read as a stream of decoded bytes (the
 * decoders: decompress.c; the operands expanded: logsrc_dir.c). */
/*
 * Why in-process decoders (zlib, liblzma, libzstd) and not a child gzip or
 * xz: pgsc-collect --import runs under its own seccomp filter
 * (docs/security.md), which has no fork or execve; a library needs nothing
 * but read() and memory, reports damage precisely, and caps its memory
 * (LOGSRC_DECODE_MEMLIMIT).  The format is told by the magic bytes, never
 * by the name.
 *
 * What import.c needs from an input (docs/design.md §10) stays the same whatever
 * it is: the first line (the fingerprint), a check that it starts like
 * what was imported (the prefix hash at a stored offset), its bytes from
 * that offset, and the prefix hash at the offset it was read up to.  A
 * plain regular file answers with pread(); anything else is read once, in
 * order, and the hash is computed on the way (track()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "pgsc-int.h"
#include "logsrc-int.h"

/* ------------------------------------------------------------------ */
/* The prefix hash of a stream                                         */

/* dst = the last SPAN bytes of (a, b). */
static void
tail_of(char *dst, size_t *dlen, const char *a, size_t alen, const char *b,
	size_t blen)
{
	if (blen >= SPAN) {
		memcpy(dst, b + blen - SPAN, SPAN);
		*dlen = SPAN;
		return;
	}
	{
		size_t from_a = SPAN - blen < alen ? SPAN - blen : alen;

		memmove(dst, a + alen - from_a, from_a);
		memcpy(dst + from_a, b, blen);
		*dlen = from_a + blen;
	}
}

/* Note bytes delivered at ls->pos. */
static void
track(struct logsrc *ls, const char *p, size_t n)
{
	const char *nl;

	if (n == 0)
		return;
	if (ls->pos < SPAN) {
		size_t k = SPAN - (size_t)ls->pos < n ? SPAN - (size_t)ls->pos : n;

		memcpy(ls->head + ls->pos, p, k);
		ls->head_len = (size_t)ls->pos + k;
	}
	nl = memrchr(p, '\n', n);
	if (nl != NULL) {
		size_t k = (size_t)(nl - p) + 1;
		char tmp[SPAN];
		size_t tl;

		tail_of(tmp, &tl, ls->win, ls->win_len, p, k);
		memcpy(ls->nlwin, tmp, tl);
		ls->nlwin_len = tl;
		ls->nl_end = ls->pos + k;
	}
	{
		char tmp[SPAN];
		size_t tl;

		tail_of(tmp, &tl, ls->win, ls->win_len, p, n);
		memcpy(ls->win, tmp, tl);
		ls->win_len = tl;
	}
	ls->pos += n;
}

static int
hash_from(const struct logsrc *ls, uint64_t off, const char *win,
	  size_t win_len, char out[24])
{
	size_t n = off < SPAN ? (size_t)off : SPAN;
	uint64_t h;

	if (ls->head_len < n || (off > SPAN && win_len < SPAN))
		return -ERANGE;
	h = util_hash(ls->head, n, off);
	if (off > SPAN)
		h ^= util_hash(win, SPAN, h);
	snprintf(out, 24, "%016llx", (unsigned long long)h);
	return 0;
}

int
logsrc_prefix_hash(struct logsrc *ls, uint64_t off, char out[24])
{
	if (ls->seekable && ls->fd < 0)
		return -EBADF;	/* suspended: hashed before (import.c) */
	if (ls->seekable)
		return util_prefix_hash(ls->fd, off, out);
	if (off <= SPAN && ls->head_len >= off)
		return hash_from(ls, off, NULL, 0, out);
	if (off == ls->pos)
		return hash_from(ls, off, ls->win, ls->win_len, out);
	if (off == ls->nl_end)
		return hash_from(ls, off, ls->nlwin, ls->nlwin_len, out);
	if (ls->have_resume && off == ls->resume_off) {
		memcpy(out, ls->resume_hash, 24);
		return 0;
	}
	return -ERANGE;
}

/* Deliver (and hash) @off bytes without using them. */
static int
skip_to(struct logsrc *ls, uint64_t off, char **cause)
{
	char *buf;
	int rc = 0;

	if (ls->pos >= off)
		return 0;
	buf = malloc(SKIP_CHUNK);
	if (buf == NULL)
		return -ENOMEM;
	while (ls->pos < off) {
		uint64_t left = off - ls->pos;
		size_t want = left < SKIP_CHUNK ? (size_t)left : SKIP_CHUNK;
		ssize_t n = decompress_read(ls, buf, want, cause);

		if (n < 0) {
			rc = (int)n;
			break;
		}
		if (n == 0)
			break;
		track(ls, buf, (size_t)n);
	}
	free(buf);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Is it an audit log?                                                 */

/* Does the line start with a record header?  Sets *@sec to its time. */
static int
header_sec(const char *p, size_t len, int64_t *sec)
{
	int type_num, msec;
	const char *tn;
	size_t tl;
	uint64_t serial;

	return decode_header(p, len, &type_num, &tn, &tl, sec, &msec,
			     &serial) >= 0;
}

/* A line that is a record, or ends with one after NUL bytes (the feed
 * reads the text after a line's last NUL byte: tail_note()). */
static int
line_is_record(const char *p, size_t len)
{
	const char *z = memrchr(p, '\0', len);
	int64_t sec;

	if (z != NULL) {
		len -= (size_t)(z + 1 - p);
		p = z + 1;
	}
	if (len > PGSC_LINE_MAX)
		return 0;
	return header_sec(p, len, &sec);
}

/* Could these bytes begin an audit record (a line still being written)? */
static int
record_prefix(const char *p, size_t len)
{
	size_t k = len < 5 ? len : 5;

	if (memchr(p, '\0', len) != NULL)
		return 0;
	return memcmp(p, "type=", k) == 0 || memcmp(p, "node=", k) == 0;
}

/*
 * Read ahead until one line is a record (an audit log), or SNIFF_LINES
 * lines or LOGSRC_SNIFF_MAX bytes were not (it is not).  A log may begin
 * with a block of NUL bytes or a line too long to be a record (a crash,
 * preallocation: tests/fixtures/bad/nul-head*, long-head): what follows
 * decides.  Returns 0 (ls->empty set when there is nothing to import
 * yet), or a negative errno with *cause naming the file.
 */
static int
sniff(struct logsrc *ls, char **cause)
{
	size_t scanned = 0, lines = 0;
	int rc;

	for (;;) {
		while (scanned < ls->pk_len) {
			const char *p = ls->pk + scanned;
			const char *nl = memchr(p, '\n', ls->pk_len - scanned);

			if (nl == NULL)
				break;
			if (line_is_record(p, (size_t)(nl - p)))
				goto first_line;
			scanned += (size_t)(nl - p) + 1;
			lines++;
		}
		if (ls->eof || lines >= SNIFF_LINES ||
		    ls->pk_len >= LOGSRC_SNIFF_MAX)
			break;
		rc = decompress_peek(ls, ls->pk_len + RAW_CHUNK > LOGSRC_SNIFF_MAX ?
			       LOGSRC_SNIFF_MAX : ls->pk_len + RAW_CHUNK, cause);
		if (rc < 0)
			return rc;
	}
	if (ls->err_rc < 0) {
		/* damaged before any record: the damage is the news (the
		 * bytes decoded before it are kept, decompress.c, and a few
		 * of them say nothing) */
		rc = ls->err_rc;
		ls->err_rc = 0;
		if (cause != NULL) {
			free(*cause);
			*cause = ls->err_msg;
		} else {
			free(ls->err_msg);
		}
		ls->err_msg = NULL;
		return rc;
	}
	if (ls->pk_len == 0) {
		ls->empty = 1;
		return 0;
	}
	if (lines == 0 && ls->eof && ls->pk_len < PGSC_LINE_MAX &&
	    record_prefix(ls->pk, ls->pk_len)) {
		/* one incomplete line: nothing to import yet */
		ls->empty = 1;
		return 0;
	}
	{
		const char *nl = memchr(ls->pk, '\n', ls->pk_len);
		size_t l1 = nl ? (size_t)(nl - ls->pk) : ls->pk_len;
		size_t look = ls->pk_len < 512 ? ls->pk_len : 512;
		size_t odd = 0;
		char *ex;
		char how[64] = "";

		for (size_t i = 0; i < look; i++) {
			unsigned char c = (unsigned char)ls->pk[i];

			if (c == 0 || (c < 0x20 && c != '\t' && c != '\n' &&
				       c != '\r'))
				odd++;
		}
		if (ls->fmt != LOGSRC_PLAIN)
			snprintf(how, sizeof(how), ", %s-compressed",
				 decompress_fmt_name(ls->fmt));
		if (odd > 0) {
			util_cause(cause, "%s: not an audit log (binary "
				   "data%s, no audit record in its first "
				   "%zu bytes)", ls->name, how, ls->pk_len);
			return -EINVAL;
		}
		ex = util_excerpt(ls->pk, l1, 80);
		util_cause(cause, "%s:1: not an audit log (text%s, no "
			   "\"type=... msg=audit(...)\" record in its first "
			   "%zu line%s; it begins: %s)", ls->name, how,
			   lines ? lines : 1, lines > 1 ? "s" : "",
			   ex ? ex : "");
		free(ex);
		return -EINVAL;
	}
first_line:
	{
		const char *nl = memchr(ls->pk, '\n', ls->pk_len);

		/* a first line of PGSC_LINE_MAX bytes or more is known by
		 * its first PGSC_LINE_MAX bytes (they never change) */
		if (nl == NULL || (size_t)(nl - ls->pk) > PGSC_LINE_MAX)
			ls->first_len = ls->pk_len < PGSC_LINE_MAX ?
					ls->pk_len : PGSC_LINE_MAX;
		else
			ls->first_len = (size_t)(nl - ls->pk);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Open, resume, read                                                  */

static int
start(struct logsrc *ls, char **cause)
{
	unsigned char m[16];
	const char *what;
	size_t n = 0;
	int rc;

	ls->raw = malloc(RAW_CHUNK);
	if (ls->raw == NULL)
		return -ENOMEM;
	/* the magic: for a stream, the bytes stay in raw */
	while (n < sizeof(m)) {
		size_t got;

		rc = decompress_raw(ls, ls->raw + n, sizeof(m) - n, n, &got, cause);
		if (rc < 0)
			return rc;
		if (got == 0)
			break;
		n += got;
		if (!ls->stream)
			break;
	}
	memcpy(m, ls->raw, n);
	ls->fmt = decompress_magic(m, n, &what);
	if (ls->fmt < 0) {
		util_cause(cause, "%s: not an audit log (%s%s)", ls->name, what,
			   strcmp(what, "bzip2-compressed data") == 0 ?
			   ": bzcat FILE | pgsc-collect ... --import -" : "");
		return -EINVAL;
	}
	if (ls->fmt == LOGSRC_PLAIN) {
		ls->seekable = !ls->stream;
		if (ls->stream) {
			rc = decompress_unread(ls, (char *)ls->raw, n);
			if (rc < 0)
				return rc;
			ls->dec_pos = n;
		}
		free(ls->raw);
		ls->raw = NULL;
	} else {
		rc = decompress_init(ls, cause);
		if (rc < 0)
			return rc;
		if (ls->stream) {
			/* the magic bytes are the decoder's first input */
			ls->raw_len = n;
			ls->raw_off = n;
		}
	}
	return 0;
}

int
logsrc_open(const char *path, struct logsrc **out, char **cause)
{
	struct logsrc *ls;
	struct stat sb;
	int rc;

	*out = NULL;
	ls = calloc(1, sizeof(*ls));
	if (ls == NULL)
		return -ENOMEM;
	ls->fd = -1;
	if (strcmp(path, "-") == 0) {
		ls->name = strdup("(standard input)");
		if (ls->name == NULL) {
			rc = -ENOMEM;
			goto fail;
		}
		if (fstat(0, &sb) < 0) {
			rc = -errno;
			util_cause(cause, "%s: %s", ls->name, strerror(errno));
			goto fail;
		}
		/* a terminal would wait for typing, a device may never end;
		 * told by the device number: isatty()'s ioctl is not in the
		 * self-filter's list (examples/pgsc-self.guc) */
		if ((S_ISCHR(sb.st_mode) && sb.st_rdev != makedev(1, 3)) ||
		    S_ISBLK(sb.st_mode)) {
			util_cause(cause, "%s is a terminal or a device: give "
				   "a file, or pipe a log in (zcat "
				   "audit.log.1.gz | pgsc-collect ... --import "
				   "-)", ls->name);
			rc = -EINVAL;
			goto fail;
		}
		if (S_ISDIR(sb.st_mode)) {
			util_cause(cause, "%s is a directory", ls->name);
			rc = -EISDIR;
			goto fail;
		}
		ls->fd = 0;
		ls->stream = 1;
	} else {
		ls->path = strdup(path);
		ls->name = strdup(path);
		if (ls->path == NULL || ls->name == NULL) {
			rc = -ENOMEM;
			goto fail;
		}
		if (stat(path, &sb) < 0) {
			rc = -errno;
			util_cause(cause, "%s: %s", path, strerror(errno));
			goto fail;
		}
		if (S_ISFIFO(sb.st_mode)) {
			/* a pipe: <(zcat ...), or a named FIFO.  O_NONBLOCK:
			 * open() never waits for a writer, which would hold
			 * the store's writer lock for ever; with none, the
			 * first read() says end of file, and import.c
			 * refuses the FIFO. */
			int fl;

			ls->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC |
				      O_NOCTTY);
			if (ls->fd < 0 || fstat(ls->fd, &sb) < 0 ||
			    !S_ISFIFO(sb.st_mode) ||
			    (fl = fcntl(ls->fd, F_GETFL)) < 0 ||
			    fcntl(ls->fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
				rc = ls->fd < 0 ? -errno : -EINVAL;
				util_cause(cause, "%s: %s", path,
					   rc == -EINVAL ? "changed while "
					   "opened" : strerror(-rc));
				goto fail;
			}
			ls->stream = 1;
		} else {
			/* a regular file; devices, sockets and directories
			 * are refused before open() can block */
			ls->fd = util_open_regular(path, cause);
			if (ls->fd < 0) {
				rc = ls->fd;
				ls->fd = -1;
				goto fail;
			}
			if (fstat(ls->fd, &sb) < 0) {
				rc = -errno;
				util_cause(cause, "%s: %s", path, strerror(errno));
				goto fail;
			}
		}
	}
	ls->inode = (uint64_t)sb.st_ino;
	ls->dev = (uint64_t)sb.st_dev;
	ls->mtime = (double)sb.st_mtime;
	rc = start(ls, cause);
	if (rc == 0)
		rc = sniff(ls, cause);
	if (rc < 0)
		goto fail;
	*out = ls;
	return 0;
fail:
	logsrc_free(ls);
	return rc;
}

/* logsrc_name(), logsrc_fmt(), logsrc_inode(), logsrc_mtime(),
 * logsrc_empty(): what pgsc-int.h says of each. */
#define LOGSRC_GET(type, field)						\
	type								\
	logsrc_##field(const struct logsrc *ls)				\
	{								\
		return ls->field;					\
	}
LOGSRC_GET(const char *, name)
LOGSRC_GET(int, fmt)
LOGSRC_GET(uint64_t, inode)
LOGSRC_GET(double, mtime)
LOGSRC_GET(int, empty)
#undef LOGSRC_GET

int
logsrc_first_line(const struct logsrc *ls, const char **p, size_t *len)
{
	if (ls->empty || ls->pos != 0 || ls->pk_len < ls->first_len ||
	    ls->suspended)
		return -ENODATA;
	*p = ls->pk;
	*len = ls->first_len;
	return 0;
}

/*
 * The first @max decoded bytes of a file just opened (fewer when it is
 * shorter), read ahead: they identify it (import.c).  0, or a negative
 * errno.  A damaged compressed file gives what was decoded before the
 * damage; the damage is met again when it is read.
 */
int
logsrc_head(struct logsrc *ls, size_t max, const char **p, size_t *len,
	    char **cause)
{
	int rc;

	if (ls->pos != 0 || ls->suspended)
		return -ENODATA;
	rc = decompress_peek(ls, max, cause);
	if (rc < 0)
		return rc;
	*p = ls->pk;
	*len = ls->pk_len < max ? ls->pk_len : max;
	return 0;
}

int
logsrc_resume(struct logsrc *ls, uint64_t off, const char *hash,
	      char **cause)
{
	char h[24];
	int rc;

	if (ls->seekable) {
		struct stat sb;

		if (fstat(ls->fd, &sb) < 0) {
			rc = -errno;
			util_cause(cause, "%s: %s", ls->name, strerror(-rc));
			return rc;
		}
		if (off > (uint64_t)sb.st_size ||
		    util_prefix_hash(ls->fd, off, h) < 0 || strcmp(h, hash) != 0)
			return LOGSRC_DIFFERS;
		if (off == (uint64_t)sb.st_size)
			return LOGSRC_DONE;
		/* read from there: what was read ahead is before it */
		free(ls->pk);
		ls->pk = NULL;
		ls->pk_len = ls->pk_cap = 0;
		ls->pos = ls->dec_pos = off;
		ls->eof = 0;
		ls->have_resume = 1;
		ls->resume_off = off;
		memcpy(ls->resume_hash, hash, 24);
		return LOGSRC_RESUME;
	}
	rc = skip_to(ls, off, cause);
	if (rc < 0)
		return rc;
	if (ls->pos < off || hash_from(ls, off, ls->win, ls->win_len, h) < 0 ||
	    strcmp(h, hash) != 0)
		return LOGSRC_DIFFERS;
	ls->have_resume = 1;
	ls->resume_off = off;
	memcpy(ls->resume_hash, hash, 24);
	rc = decompress_peek(ls, 1, cause);
	if (rc < 0)
		return rc;
	return ls->pk_len == 0 ? LOGSRC_DONE : LOGSRC_RESUME;
}

void
logsrc_suspend(struct logsrc *ls)
{
	if (ls->stream || ls->suspended)
		return;
	decompress_end(ls);
	free(ls->pk);
	ls->pk = NULL;
	ls->pk_len = ls->pk_cap = 0;
	free(ls->raw);
	ls->raw = NULL;
	/* decoded again from the start: an error is met again */
	ls->err_rc = 0;
	free(ls->err_msg);
	ls->err_msg = NULL;
	ls->suspended = 1;
	/* a call may name more files than there are descriptors: a file
	 * waits closed, and is opened again when read (reopen()) */
	if (ls->path != NULL && ls->fd >= 0) {
		close(ls->fd);
		ls->fd = -1;
	}
}

/*
 * A suspended file opened again by its name: it must be the very file
 * (device and inode) that was identified, else it was replaced since,
 * by a rotation perhaps, and is not read (-ESTALE): its name now holds
 * other bytes, which the next import identifies on their own.
 */
int
logsrc_reopen(struct logsrc *ls, char **cause)
{
	struct stat sb;
	int fd;

	if (ls->fd >= 0)
		return 0;
	fd = util_open_regular(ls->path, cause);
	if (fd < 0)
		return fd;
	if (fstat(fd, &sb) < 0) {
		int e = errno;

		close(fd);
		util_cause(cause, "%s: %s", ls->name, strerror(e));
		return -e;
	}
	if ((uint64_t)sb.st_ino != ls->inode || (uint64_t)sb.st_dev != ls->dev) {
		close(fd);
		util_cause(cause, "%s: replaced by another file while the "
			   "import ran (a rotation?); not read: import it "
			   "again", ls->name);
		return -ESTALE;
	}
	ls->fd = fd;
	return 0;
}

/* A suspended file from its start again, up to its resume offset. */
static int
restart(struct logsrc *ls, char **cause)
{
	int rc;

	rc = logsrc_reopen(ls, cause);
	if (rc < 0)
		return rc;
	ls->suspended = 0;
	ls->eof = 0;
	if (ls->seekable) {
		ls->pos = ls->dec_pos = ls->have_resume ? ls->resume_off : 0;
		return 0;
	}
	ls->raw = malloc(RAW_CHUNK);
	if (ls->raw == NULL)
		return -ENOMEM;
	ls->raw_len = 0;
	ls->raw_off = 0;
	ls->raw_eof = 0;
	ls->dec_pos = 0;
	ls->pos = 0;
	ls->head_len = ls->win_len = ls->nlwin_len = 0;
	ls->nl_end = 0;
	rc = decompress_init(ls, cause);
	if (rc < 0)
		return rc;
	if (ls->have_resume) {
		char h[24];

		rc = skip_to(ls, ls->resume_off, cause);
		if (rc < 0)
			return rc;
		if (ls->pos < ls->resume_off ||
		    hash_from(ls, ls->pos, ls->win, ls->win_len, h) < 0 ||
		    strcmp(h, ls->resume_hash) != 0) {
			util_cause(cause, "%s: changed while it was imported",
				   ls->name);
			return -ESTALE;
		}
	}
	return 0;
}

void
logsrc_set_until(struct logsrc *ls, int64_t until)
{
	ls->has_until = 1;
	ls->until = until;
}

/* Does this line hold a record later than @until? */
static int
line_after(const char *p, size_t len, int64_t until)
{
	int64_t sec;

	return header_sec(p, len, &sec) && sec > until;
}

/*
 * How much of @buf to deliver under --until: up to the first line whose
 * record is later than it (ls->cut then), or up to the start of a last
 * line whose header is not complete yet (the caller puts it back; the
 * line @buf starts with was decided by logsrc_read(), so this is never
 * all of it).
 */
static size_t
until_cut(struct logsrc *ls, const char *buf, size_t n, int at_end)
{
	size_t p = 0;

	while (p < n) {
		const char *nl = memchr(buf + p, '\n', n - p);
		size_t len = nl ? (size_t)(nl - (buf + p)) : n - p;

		if (ls->line_open) {
			if (nl == NULL)
				return n;
			ls->line_open = 0;
			p += len + 1;
			continue;
		}
		if (nl == NULL && len < UNTIL_HEAD && !at_end)
			return p;
		if (line_after(buf + p, len < UNTIL_HEAD ? len : UNTIL_HEAD,
			       ls->until)) {
			ls->cut = 1;
			return p;
		}
		if (nl == NULL) {
			ls->line_open = 1;
			return n;
		}
		p += len + 1;
	}
	return n;
}

ssize_t
logsrc_read(struct logsrc *ls, char *buf, size_t cap, char **cause)
{
	ssize_t n;
	size_t keep;
	int rc;

	if (ls->suspended) {
		rc = restart(ls, cause);
		if (rc < 0)
			return rc;
	}
	for (;;) {
		if (ls->cut)
			return 0;
		if (ls->has_until && !ls->line_open) {
			/* the line that starts here, decided on its head
			 * read ahead, whatever @cap is */
			rc = decompress_peek(ls, UNTIL_HEAD, cause);
			if (rc < 0)
				return rc;
			if (ls->pk_len > 0) {
				const char *nl = memchr(ls->pk, '\n', ls->pk_len);
				size_t len = nl ? (size_t)(nl - ls->pk) : ls->pk_len;

				if (line_after(ls->pk, len < UNTIL_HEAD ? len :
					       UNTIL_HEAD, ls->until)) {
					ls->cut = 1;
					return 0;
				}
				ls->line_open = 1;
			}
		}
		n = decompress_read(ls, buf, cap, cause);
		if (n <= 0)
			return n;
		if (!ls->has_until) {
			/* a plain file's hash is read back with pread() */
			if (!ls->seekable)
				track(ls, buf, (size_t)n);
			return n;
		}
		keep = until_cut(ls, buf, (size_t)n,
				 ls->eof && ls->pk_len == 0);
		if (!ls->cut && keep < (size_t)n) {
			rc = decompress_unread(ls, buf + keep, (size_t)n - keep);
			if (rc < 0)
				return rc;
		}
		if (keep > 0) {
			if (!ls->seekable)
				track(ls, buf, keep);
			return (ssize_t)keep;
		}
	}
}

void
logsrc_free(struct logsrc *ls)
{
	if (ls == NULL)
		return;
	decompress_end(ls);
	if (ls->fd > 0 || (ls->fd == 0 && ls->path != NULL))
		close(ls->fd);
	void *owned[] = { ls->raw, ls->pk, ls->err_msg, ls->path, ls->name,
			  ls };

	for (size_t i = 0; i < ARRAY_SIZE(owned); i++)
		free(owned[i]);
}
