/* SPDX-License-Identifier: PostgreSQL */
/* logsrc.c - one input of an import: a file (plain, gzip, xz or zstd),
 * standard input or a pipe, read as a stream of decoded bytes; and the
 * operands expanded (a directory becomes its rotated set, oldest first). */
/*
 * Why in-process decoders (zlib, liblzma, libzstd) and not a child gzip or
 * xz: pgsc-collect --import runs under its own seccomp filter
 * (docs/security.md), which has no fork or execve; a library needs nothing
 * but read() and memory, reports damage precisely, and caps its memory
 * (LOGSRC_DECODE_MEMLIMIT).  The format is told by the magic bytes, never
 * by the name.
 *
 * What import.c needs from an input (DESIGN §10) stays the same whatever
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

#define SPAN 4096                        /* util_prefix_hash()'s span */
#define RAW_CHUNK (128 * 1024)
#define SKIP_CHUNK (64 * 1024)
#define SNIFF_LINES 1000
#define UNTIL_HEAD 512                   /* enough for any record header */

struct logsrc {
	char *path;                 /* NULL: standard input */
	char *name;                 /* for messages and the store */
	int fd;
	int stream;                 /* stdin or a pipe: read once */
	int seekable;               /* a plain regular file: pread() */
	int fmt;                    /* enum logsrc_fmt */
	uint64_t inode;
	double mtime;
	int suspended;              /* decoder freed until the next read */
	int empty;                  /* nothing to import: empty, or an
				     * incomplete first line */
	size_t first_len;
	/* raw (compressed) input */
	unsigned char *raw;
	size_t raw_len;
	uint64_t raw_off;           /* raw bytes read so far */
	int raw_eof;
	/* decoders */
	z_stream z;
	int z_on;
	lzma_stream x;
	int x_on;
	ZSTD_DStream *zs;
	size_t zs_last;
	const unsigned char *zin;   /* zstd's input left */
	size_t zin_len;
	int err_rc;                 /* an error after bytes still to deliver */
	char *err_msg;
	int dec_end;                /* at the end of a complete member */
	int eof;                    /* no more decoded bytes */
	uint64_t dec_pos;           /* decoded bytes produced */
	/* decoded bytes read ahead, not delivered yet */
	char *pk;
	size_t pk_len, pk_cap;
	/* the prefix hash of what was delivered */
	uint64_t pos;               /* decoded bytes delivered */
	char head[SPAN];
	size_t head_len;
	char win[SPAN];             /* the last bytes delivered */
	size_t win_len;
	char nlwin[SPAN];           /* ... ending at the last newline */
	size_t nlwin_len;
	uint64_t nl_end;
	int have_resume;
	uint64_t resume_off;
	char resume_hash[24];
	/* --until */
	int has_until;
	int64_t until;
	int cut;
	int line_open;              /* inside a line whose head was read */
};

static const char *const fmt_names[] = { "plain", "gzip", "xz", "zstd" };

const char *
logsrc_fmt_name(int fmt)
{
	return fmt >= 0 && fmt < (int)ARRAY_SIZE(fmt_names) ? fmt_names[fmt] : "?";
}

/* ------------------------------------------------------------------ */
/* Formats                                                             */

/*
 * The format from the first bytes.  Returns an enum logsrc_fmt, or -1
 * with *what naming a format that is known and not read.
 */
UNITTEST int
logsrc_magic(const unsigned char *b, size_t n, const char **what)
{
	*what = NULL;
	if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		return LOGSRC_GZIP;
	if (n >= 6 && memcmp(b, "\xfd" "7zXZ\0", 6) == 0)
		return LOGSRC_XZ;
	if (n >= 4 && memcmp(b, "\x28\xb5\x2f\xfd", 4) == 0)
		return LOGSRC_ZSTD;
	if (n >= 4 && memcmp(b, "BZh", 3) == 0 && b[3] >= '1' && b[3] <= '9')
		*what = "bzip2-compressed data";
	else if (n >= 4 && memcmp(b, "\x04\x22\x4d\x18", 4) == 0)
		*what = "lz4-compressed data";
	else if (n >= 2 && b[0] == 0x1f && (b[1] == 0x9d || b[1] == 0xa0))
		*what = "compress(1) data";
	else if (n >= 4 && memcmp(b, "PK\3\4", 4) == 0)
		*what = "a zip archive";
	else if (n >= 4 && memcmp(b, "\x7f" "ELF", 4) == 0)
		*what = "an ELF binary";
	else if (n >= 16 && memcmp(b, "SQLite format 3\0", 16) == 0)
		*what = "an SQLite database (a pgsc store?)";
	return *what != NULL ? -1 : LOGSRC_PLAIN;
}

static void
dec_end_all(struct logsrc *ls)
{
	if (ls->z_on)
		inflateEnd(&ls->z);
	ls->z_on = 0;
	if (ls->x_on)
		lzma_end(&ls->x);
	ls->x_on = 0;
	ZSTD_freeDStream(ls->zs);
	ls->zs = NULL;
}

static int
dec_init(struct logsrc *ls, char **cause)
{
	switch (ls->fmt) {
	case LOGSRC_GZIP:
		memset(&ls->z, 0, sizeof(ls->z));
		/* 16 + 15: gzip wrapper only, 32 KiB window */
		if (inflateInit2(&ls->z, 16 + MAX_WBITS) != Z_OK)
			goto oom;
		ls->z_on = 1;
		break;
	case LOGSRC_XZ: {
		lzma_stream init = LZMA_STREAM_INIT;

		ls->x = init;
		/* LZMA_CONCATENATED: several .xz streams in a row, as xz -d */
		if (lzma_stream_decoder(&ls->x, LOGSRC_DECODE_MEMLIMIT,
					LZMA_CONCATENATED) != LZMA_OK)
			goto oom;
		ls->x_on = 1;
		break;
	}
	case LOGSRC_ZSTD:
		ls->zs = ZSTD_createDStream();
		if (ls->zs == NULL)
			goto oom;
		ZSTD_initDStream(ls->zs);
		/* 2^27 = 128 MiB, zstd's default limit, said explicitly */
		ZSTD_DCtx_setParameter(ls->zs, ZSTD_d_windowLogMax, 27);
		ls->zs_last = 1;
		ls->zin_len = 0;
		break;
	default:
		break;
	}
	ls->dec_end = 0;
	return 0;
oom:
	util_cause(cause, "%s: out of memory for the %s decoder", ls->name,
		   logsrc_fmt_name(ls->fmt));
	return -ENOMEM;
}

static int
damaged(struct logsrc *ls, const char *what, char **cause)
{
	util_cause(cause, "%s: damaged %s data (%s) after %llu bytes of "
		   "compressed input; what came before it was read", ls->name,
		   logsrc_fmt_name(ls->fmt), what,
		   (unsigned long long)ls->raw_off);
	ls->eof = 1;
	return -EBADMSG;
}

/* Read raw bytes from the descriptor. 0, or a negative errno. */
static int
fd_read(struct logsrc *ls, void *buf, size_t cap, uint64_t at, size_t *got,
	char **cause)
{
	for (;;) {
		ssize_t n = ls->stream ? read(ls->fd, buf, cap)
				       : pread(ls->fd, buf, cap, (off_t)at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			util_cause(cause, "%s: %s", ls->name, strerror(e));
			return -e;
		}
		*got = (size_t)n;
		return 0;
	}
}

/* More raw input for a decoder; sets raw_eof at the end. */
static int
raw_fill(struct logsrc *ls, char **cause)
{
	size_t n;
	int rc;

	rc = fd_read(ls, ls->raw, RAW_CHUNK, ls->raw_off, &n, cause);
	if (rc < 0)
		return rc;
	ls->raw_len = n;
	ls->raw_off += n;
	if (n == 0)
		ls->raw_eof = 1;
	return 0;
}

/*
 * The decoders may hold output when their input is used up (zlib keeps
 * bits in its accumulator, a match may be half copied): at the end of
 * the input each is called once more with none, and only a call that
 * gives nothing then means the data was cut short.
 */
static ssize_t
gz_read(struct logsrc *ls, char *out, size_t cap, char **cause)
{
	z_stream *z = &ls->z;
	int rc;

	z->next_out = (unsigned char *)out;
	z->avail_out = (uInt)cap;
	while (z->avail_out == cap) {
		if (z->avail_in == 0 && !ls->raw_eof) {
			rc = raw_fill(ls, cause);
			if (rc < 0)
				return rc;
			z->next_in = ls->raw;
			z->avail_in = (uInt)ls->raw_len;
		}
		if (ls->dec_end) {
			if (z->avail_in == 0) {
				ls->eof = 1;
				break;
			}
			/* another member follows (gzip's concatenation) */
			if (z->next_in[0] != 0x1f)
				return damaged(ls, "bytes after the end of "
					       "the compressed stream", cause);
			if (inflateReset(z) != Z_OK)
				return damaged(ls, "reset", cause);
			ls->dec_end = 0;
		}
		rc = inflate(z, Z_NO_FLUSH);
		if (rc == Z_STREAM_END) {
			ls->dec_end = 1;
			continue;
		}
		if (rc == Z_MEM_ERROR)
			return -ENOMEM;
		if (rc != Z_OK && rc != Z_BUF_ERROR)
			return damaged(ls, z->msg ? z->msg : "bad data", cause);
		if (z->avail_out == cap && z->avail_in == 0 && ls->raw_eof)
			return damaged(ls, "truncated", cause);
	}
	return (ssize_t)(cap - z->avail_out);
}

static ssize_t
xz_read(struct logsrc *ls, char *out, size_t cap, char **cause)
{
	lzma_stream *x = &ls->x;
	lzma_ret r;
	int rc;

	x->next_out = (uint8_t *)out;
	x->avail_out = cap;
	while (x->avail_out == cap) {
		if (x->avail_in == 0 && !ls->raw_eof) {
			rc = raw_fill(ls, cause);
			if (rc < 0)
				return rc;
			x->next_in = ls->raw;
			x->avail_in = ls->raw_len;
		}
		r = lzma_code(x, ls->raw_eof ? LZMA_FINISH : LZMA_RUN);
		if (r == LZMA_STREAM_END) {
			ls->eof = 1;
			break;
		}
		if (r == LZMA_OK)
			continue;
		if (r == LZMA_MEM_ERROR)
			return -ENOMEM;
		if (r == LZMA_MEMLIMIT_ERROR) {
			util_cause(cause, "%s: xz data that needs more than "
				   "%d MiB to decompress", ls->name,
				   LOGSRC_DECODE_MEMLIMIT >> 20);
			ls->eof = 1;
			return -EFBIG;
		}
		return damaged(ls, r == LZMA_BUF_ERROR ? "truncated" :
			       r == LZMA_FORMAT_ERROR ? "not xz" :
			       r == LZMA_OPTIONS_ERROR ? "unsupported options" :
			       "bad data", cause);
	}
	return (ssize_t)(cap - x->avail_out);
}

static ssize_t
zstd_read(struct logsrc *ls, char *out, size_t cap, char **cause)
{
	ZSTD_outBuffer ob = { out, cap, 0 };
	ZSTD_inBuffer ib;
	int rc;

	while (ob.pos == 0) {
		if (ls->zin_len == 0 && !ls->raw_eof) {
			rc = raw_fill(ls, cause);
			if (rc < 0)
				return rc;
			ls->zin = ls->raw;
			ls->zin_len = ls->raw_len;
		}
		if (ls->zin_len == 0 && ls->raw_eof && ls->zs_last == 0) {
			/* every frame complete and flushed */
			ls->eof = 1;
			break;
		}
		ib.src = ls->zin;
		ib.size = ls->zin_len;
		ib.pos = 0;
		ls->zs_last = ZSTD_decompressStream(ls->zs, &ob, &ib);
		if (ZSTD_isError(ls->zs_last)) {
			if (ZSTD_getErrorCode(ls->zs_last) ==
			    ZSTD_error_memory_allocation)
				return -ENOMEM;
			if (ZSTD_getErrorCode(ls->zs_last) ==
			    ZSTD_error_frameParameter_windowTooLarge) {
				util_cause(cause, "%s: zstd data that needs "
					   "more than 128 MiB to decompress",
					   ls->name);
				ls->eof = 1;
				return -EFBIG;
			}
			return damaged(ls, ZSTD_getErrorName(ls->zs_last),
				       cause);
		}
		ls->zin += ib.pos;
		ls->zin_len -= ib.pos;
		if (ob.pos == 0 && ls->zin_len == 0 && ls->raw_eof) {
			if (ls->zs_last == 0) {
				ls->eof = 1;
				break;
			}
			return damaged(ls, "truncated", cause);
		}
	}
	return (ssize_t)ob.pos;
}

/* New decoded bytes, after those read ahead. 0 at the end. */
static ssize_t
dec_read(struct logsrc *ls, char *out, size_t cap, char **cause)
{
	ssize_t n;
	size_t got;
	int rc;

	if (ls->eof || cap == 0)
		return 0;
	switch (ls->fmt) {
	case LOGSRC_GZIP:
		n = gz_read(ls, out, cap, cause);
		break;
	case LOGSRC_XZ:
		n = xz_read(ls, out, cap, cause);
		break;
	case LOGSRC_ZSTD:
		n = zstd_read(ls, out, cap, cause);
		break;
	default:
		rc = fd_read(ls, out, cap, ls->dec_pos, &got, cause);
		if (rc < 0)
			return rc;
		if (got == 0)
			ls->eof = 1;
		n = (ssize_t)got;
		break;
	}
	if (n > 0)
		ls->dec_pos += (uint64_t)n;
	return n;
}

/* Read ahead until @want bytes are held (or the end). */
static int
peek_more(struct logsrc *ls, size_t want, char **cause)
{
	while (ls->pk_len < want && !ls->eof) {
		char *c = NULL;
		ssize_t n;

		if (ls->pk_cap < want) {
			char *np = realloc(ls->pk, want);

			if (np == NULL)
				return -ENOMEM;
			ls->pk = np;
			ls->pk_cap = want;
		}
		n = dec_read(ls, ls->pk + ls->pk_len, want - ls->pk_len, &c);
		if (n < 0 && n != -ENOMEM && ls->pk_len > 0) {
			/* damage after some bytes: they are read first, the
			 * error comes after them (src_read()) */
			ls->err_rc = (int)n;
			ls->err_msg = c;
			ls->eof = 1;
			return 0;
		}
		if (n < 0) {
			if (cause != NULL) {
				free(*cause);
				*cause = c;
			} else {
				free(c);
			}
			return (int)n;
		}
		ls->pk_len += (size_t)n;
	}
	return 0;
}

/* Read-ahead bytes first, then new ones. */
static ssize_t
src_read(struct logsrc *ls, char *buf, size_t cap, char **cause)
{
	size_t n = ls->pk_len < cap ? ls->pk_len : cap;
	char *c = NULL;
	ssize_t m;

	if (ls->err_rc < 0 && ls->pk_len == 0) {
		/* the error met while bytes before it were still held */
		m = ls->err_rc;
		ls->err_rc = 0;
		if (cause != NULL) {
			free(*cause);
			*cause = ls->err_msg;
		} else {
			free(ls->err_msg);
		}
		ls->err_msg = NULL;
		return m;
	}
	if (n > 0) {
		memcpy(buf, ls->pk, n);
		memmove(ls->pk, ls->pk + n, ls->pk_len - n);
		ls->pk_len -= n;
		if (ls->pk_len == 0) {
			free(ls->pk);
			ls->pk = NULL;
			ls->pk_cap = 0;
		}
	}
	m = dec_read(ls, buf + n, cap - n, &c);
	if (m < 0) {
		if (n > 0) {
			/* the bytes before the damage first, the error on
			 * the next call */
			ls->err_rc = (int)m;
			ls->err_msg = c;
			return (ssize_t)n;
		}
		if (cause != NULL) {
			free(*cause);
			*cause = c;
		} else {
			free(c);
		}
		return m;
	}
	return (ssize_t)n + m;
}

/* Put bytes back in front of the read-ahead. */
static int
push_back(struct logsrc *ls, const char *p, size_t n)
{
	char *np;

	if (n == 0)
		return 0;
	np = malloc(ls->pk_len + n);
	if (np == NULL)
		return -ENOMEM;
	memcpy(np, p, n);
	if (ls->pk_len)
		memcpy(np + n, ls->pk, ls->pk_len);
	free(ls->pk);
	ls->pk = np;
	ls->pk_len += n;
	ls->pk_cap = ls->pk_len;
	return 0;
}

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
		ssize_t n = src_read(ls, buf, want, cause);

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

/* A line that is a record, or ends with one after NUL bytes (the feed
 * reads the text after a line's last NUL byte: tail_note()). */
static int
line_is_record(const char *p, size_t len)
{
	const char *z = memrchr(p, '\0', len);
	int type_num;
	const char *tn;
	size_t tl;
	int64_t sec;
	int msec;
	uint64_t serial;

	if (z != NULL) {
		len -= (size_t)(z + 1 - p);
		p = z + 1;
	}
	if (len > PGSC_LINE_MAX)
		return 0;
	return decode_header(p, len, &type_num, &tn, &tl, &sec, &msec,
			     &serial) >= 0;
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

static char *
escaped(const char *p, size_t len, size_t max)
{
	char tmp[128];
	char *buf = NULL;
	size_t sz = 0;
	FILE *f;

	if (max > sizeof(tmp) - 1)
		max = sizeof(tmp) - 1;
	if (len > max)
		len = max;
	memcpy(tmp, p, len);
	tmp[len] = '\0';
	f = open_memstream(&buf, &sz);
	if (f == NULL)
		return NULL;
	pgsc_text_escape(f, tmp);
	fclose(f);
	return buf;
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
		rc = peek_more(ls, ls->pk_len + RAW_CHUNK > LOGSRC_SNIFF_MAX ?
			       LOGSRC_SNIFF_MAX : ls->pk_len + RAW_CHUNK, cause);
		if (rc < 0)
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
				 logsrc_fmt_name(ls->fmt));
		if (odd > 0) {
			util_cause(cause, "%s: not an audit log (binary "
				   "data%s, no audit record in its first "
				   "%zu bytes)", ls->name, how, ls->pk_len);
			return -EINVAL;
		}
		ex = escaped(ls->pk, l1, 80);
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

		rc = fd_read(ls, ls->raw + n, sizeof(m) - n, n, &got, cause);
		if (rc < 0)
			return rc;
		if (got == 0)
			break;
		n += got;
		if (!ls->stream)
			break;
	}
	memcpy(m, ls->raw, n);
	ls->fmt = logsrc_magic(m, n, &what);
	if (ls->fmt < 0) {
		util_cause(cause, "%s: not an audit log (%s%s)", ls->name, what,
			   strcmp(what, "bzip2-compressed data") == 0 ?
			   ": bzcat FILE | pgsc-collect ... --import -" : "");
		return -EINVAL;
	}
	if (ls->fmt == LOGSRC_PLAIN) {
		ls->seekable = !ls->stream;
		if (ls->stream) {
			rc = push_back(ls, (char *)ls->raw, n);
			if (rc < 0)
				return rc;
			ls->dec_pos = n;
		}
		free(ls->raw);
		ls->raw = NULL;
	} else {
		rc = dec_init(ls, cause);
		if (rc < 0)
			return rc;
		if (ls->stream) {
			/* the magic bytes are the decoder's first input */
			ls->raw_len = n;
			ls->raw_off = n;
			ls->z.next_in = ls->raw;
			ls->z.avail_in = (uInt)n;
			ls->x.next_in = ls->raw;
			ls->x.avail_in = n;
			ls->zin = ls->raw;
			ls->zin_len = n;
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
			 * open() never waits for a writer (with none, the
			 * first read() says end of file). */
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
	ls->mtime = (double)sb.st_mtime;
	rc = start(ls, cause);
	if (rc < 0)
		goto fail;
	rc = sniff(ls, cause);
	if (rc < 0)
		goto fail;
	*out = ls;
	return 0;
fail:
	logsrc_free(ls);
	return rc;
}

const char *
logsrc_name(const struct logsrc *ls)
{
	return ls->name;
}

int
logsrc_fmt(const struct logsrc *ls)
{
	return ls->fmt;
}

uint64_t
logsrc_inode(const struct logsrc *ls)
{
	return ls->inode;
}

double
logsrc_mtime(const struct logsrc *ls)
{
	return ls->mtime;
}

int
logsrc_empty(const struct logsrc *ls)
{
	return ls->empty;
}

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
	rc = peek_more(ls, 1, cause);
	if (rc < 0)
		return rc;
	return ls->pk_len == 0 ? LOGSRC_DONE : LOGSRC_RESUME;
}

void
logsrc_suspend(struct logsrc *ls)
{
	if (ls->stream || ls->suspended)
		return;
	dec_end_all(ls);
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
}

/* A suspended file from its start again, up to its resume offset. */
static int
restart(struct logsrc *ls, char **cause)
{
	int rc;

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
	rc = dec_init(ls, cause);
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
	int type_num;
	const char *tn;
	size_t tl;
	int64_t sec;
	int msec;
	uint64_t serial;

	return decode_header(p, len, &type_num, &tn, &tl, &sec, &msec,
			     &serial) >= 0 && sec > until;
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
			rc = peek_more(ls, UNTIL_HEAD, cause);
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
		n = src_read(ls, buf, cap, cause);
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
			rc = push_back(ls, buf + keep, (size_t)n - keep);
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
	dec_end_all(ls);
	if (ls->fd > 0 || (ls->fd == 0 && ls->path != NULL))
		close(ls->fd);
	free(ls->raw);
	free(ls->pk);
	free(ls->err_msg);
	free(ls->path);
	free(ls->name);
	free(ls);
}

/* ------------------------------------------------------------------ */
/* Operands: a directory is its rotated set                            */

/*
 * Is @name one of a rotated set: BASE, BASE.N or BASE-DATE, where BASE
 * ends in ".log", each possibly with ".gz", ".xz" or ".zst"?  Sets the
 * length of BASE, the class (0 numbered, 1 dated, 2 the current file)
 * and N.  Returns 1 or 0.
 */
UNITTEST int
logsrc_log_name(const char *name, size_t *base_len, int *cls,
		unsigned long long *num)
{
	static const char *const sfx[] = { ".gz", ".xz", ".zst" };
	size_t len = strlen(name);
	int found = 0;

	for (size_t i = 0; i < ARRAY_SIZE(sfx); i++) {
		size_t k = strlen(sfx[i]);

		if (len > k && strcmp(name + len - k, sfx[i]) == 0) {
			len -= k;
			break;
		}
	}
	for (size_t i = 0; i + 4 <= len; i++) {
		const char *r = name + i + 4;
		size_t rl = len - i - 4, d = 0;

		if (memcmp(name + i, ".log", 4) != 0 || i == 0)
			continue;
		if (rl == 0) {
			*cls = 2;
			*num = 0;
		} else if (r[0] == '.' && rl > 1) {
			unsigned long long v = 0;

			for (d = 1; d < rl && r[d] >= '0' && r[d] <= '9'; d++)
				v = v < 1000000000ULL ? v * 10 + (unsigned)(r[d] - '0') : v;
			if (d != rl || rl > 10)
				continue;
			*cls = 0;
			*num = v;
		} else if (r[0] == '-' && rl > 1) {
			int digits = 0;

			for (d = 1; d < rl; d++) {
				if (r[d] >= '0' && r[d] <= '9')
					digits++;
				else if (r[d] != '-' && r[d] != '_')
					break;
			}
			if (d != rl || digits == 0)
				continue;
			*cls = 1;
			*num = 0;
		} else {
			continue;
		}
		*base_len = i + 4;
		found = 1;
	}
	return found;
}

struct member {
	char *path;
	const char *name;
	size_t base_len;
	int cls;
	unsigned long long num;
};

/* Oldest first: per base, BASE.N by N downwards, then BASE-DATE by date,
 * then BASE itself. */
static int
member_cmp(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	size_t bl = x->base_len < y->base_len ? x->base_len : y->base_len;
	int c = memcmp(x->name, y->name, bl);

	if (c != 0)
		return c;
	if (x->base_len != y->base_len)
		return x->base_len < y->base_len ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->cls == 0 && x->num != y->num)
		return x->num > y->num ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int
push(char ***v, size_t *n, size_t *cap, char *s)
{
	if (s == NULL)
		return -ENOMEM;
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		char **nv = realloc(*v, nc * sizeof(**v));

		if (nv == NULL) {
			free(s);
			return -ENOMEM;
		}
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = s;
	return 0;
}

static int
expand_dir(const char *dir, FILE *diag, int quiet, char ***v, size_t *n,
	   size_t *cap, size_t *refused)
{
	DIR *d = opendir(dir);
	struct member *m = NULL;
	size_t nm = 0, cm = 0;
	struct dirent *de;
	int rc = 0;
	const char *sep = dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/";

	if (d == NULL) {
		fprintf(diag, "pgsc: %s: %s; not imported\n", dir,
			strerror(errno));
		(*refused)++;
		return 0;
	}
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		struct member e = { 0 };
		struct stat sb;
		char *p;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (asprintf(&p, "%s%s%s", dir, sep, de->d_name) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		if (stat(p, &sb) < 0 || !S_ISREG(sb.st_mode)) {
			if (!quiet)
				fprintf(diag, "pgsc: %s: skipped (not a "
					"regular file)\n", p);
			free(p);
			continue;
		}
		if (!logsrc_log_name(de->d_name, &e.base_len, &e.cls, &e.num)) {
			if (!quiet)
				fprintf(diag, "pgsc: %s: skipped (not named "
					"like an audit log: NAME.log, "
					"NAME.log.N or NAME.log-DATE, maybe "
					".gz, .xz or .zst)\n", p);
			free(p);
			continue;
		}
		if (nm == cm) {
			size_t nc = cm ? cm * 2 : 16;
			struct member *nmv = realloc(m, nc * sizeof(*m));

			if (nmv == NULL) {
				free(p);
				rc = -ENOMEM;
				goto out;
			}
			m = nmv;
			cm = nc;
		}
		e.path = p;
		e.name = p + strlen(dir) + strlen(sep);
		m[nm++] = e;
		errno = 0;
	}
	if (errno != 0) {
		fprintf(diag, "pgsc: %s: %s; not imported\n", dir,
			strerror(errno));
		(*refused)++;
		goto out;
	}
	if (nm == 0) {
		fprintf(diag, "pgsc: %s: a directory without audit logs "
			"(NAME.log, NAME.log.N, NAME.log-DATE, maybe .gz, .xz "
			"or .zst); nothing imported from it\n", dir);
		(*refused)++;
		goto out;
	}
	qsort(m, nm, sizeof(*m), member_cmp);
	for (size_t i = 0; i < nm; i++) {
		rc = push(v, n, cap, m[i].path);
		m[i].path = NULL;
		if (rc < 0)
			goto out;
	}
out:
	for (size_t i = 0; i < nm; i++)
		free(m[i].path);
	free(m);
	closedir(d);
	return rc;
}

int
pgsc_import_expand(const char *const *paths, size_t n, FILE *diag, int quiet,
		   char ***out, size_t *n_out, size_t *refused)
{
	char **v = NULL;
	size_t nv = 0, cap = 0;
	int rc = 0;

	if (diag == NULL)
		diag = stderr;
	*out = NULL;
	*n_out = 0;
	*refused = 0;
	for (size_t i = 0; i < n; i++) {
		struct stat sb;

		if (strcmp(paths[i], "-") != 0 && stat(paths[i], &sb) == 0 &&
		    S_ISDIR(sb.st_mode))
			rc = expand_dir(paths[i], diag, quiet, &v, &nv, &cap,
					refused);
		else
			rc = push(&v, &nv, &cap, strdup(paths[i]));
		if (rc < 0)
			break;
	}
	if (rc < 0) {
		pgsc_import_expand_free(v, nv);
		return rc;
	}
	*out = v;
	*n_out = nv;
	return 0;
}

void
pgsc_import_expand_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
