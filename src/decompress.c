/* SPDX-License-Identifier: PostgreSQL */
/* decompress.c - an input's bytes: read raw, or decoded from gzip, xz, zstd. */
/*
 * Under logsrc.c: the format told by the magic bytes, the in-process
 * decoders (zlib, liblzma, libzstd: see logsrc.c for why not a child
 * process), with their memory capped (LOGSRC_DECODE_MEMLIMIT), and the
 * read-ahead the format sniffing and --until need, with bytes put back.
 * Damage is reported after the bytes before it were delivered.
 */
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "pgsc-int.h"
#include "logsrc-int.h"

static const char *const fmt_names[] = { "plain", "gzip", "xz", "zstd" };

const char *
decompress_fmt_name(int fmt)
{
	return fmt >= 0 && fmt < (int)ARRAY_SIZE(fmt_names) ? fmt_names[fmt] : "?";
}

/* ------------------------------------------------------------------ */
/* Formats                                                             */

/*
 * The format from the first bytes.  Returns an enum logsrc_fmt, or -1
 * with *what naming a format that is known and not read.
 */
int
decompress_magic(const unsigned char *b, size_t n, const char **what)
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

void
decompress_end(struct logsrc *ls)
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

int
decompress_init(struct logsrc *ls, char **cause)
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
		ls->zs_last = ZSTD_initDStream(ls->zs);
		/* 2^27 = 128 MiB, zstd's default limit, said explicitly */
		ZSTD_DCtx_setParameter(ls->zs, ZSTD_d_windowLogMax, 27);
		if (ZSTD_isError(ls->zs_last) || ls->zs_last == 0)
			ls->zs_last = 1;
		break;
	default:
		break;
	}
	ls->raw_used = 0;
	ls->dec_end = 0;
	return 0;
oom:
	util_cause(cause, "%s: out of memory for the %s decoder", ls->name,
		   decompress_fmt_name(ls->fmt));
	return -ENOMEM;
}

static int
damaged(struct logsrc *ls, const char *what, char **cause)
{
	util_cause(cause, "%s: damaged %s data (%s) after %llu bytes of "
		   "compressed input", ls->name,
		   decompress_fmt_name(ls->fmt), what,
		   (unsigned long long)ls->raw_off);
	ls->eof = 1;
	return -EBADMSG;
}

/*
 * A decoder failed (@rc, the message in *@cause) after it had produced
 * @made bytes in this call: those are returned now and the failure on
 * the next call (decompress_read()), never thrown away with it: a bad
 * CRC or checksum is only found at the end of what it covers.
 */
static ssize_t
keep_made(struct logsrc *ls, size_t made, int rc, char **cause)
{
	if (made == 0 || rc == -ENOMEM)
		return rc;
	if (cause != NULL) {
		free(ls->err_msg);
		ls->err_msg = *cause;
		*cause = NULL;
	}
	ls->err_rc = rc;
	ls->eof = 1;
	return (ssize_t)made;
}

/* Read raw bytes from the descriptor. 0, or a negative errno. */
int
decompress_raw(struct logsrc *ls, void *buf, size_t cap, uint64_t at, size_t *got,
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

	rc = decompress_raw(ls, ls->raw, RAW_CHUNK, ls->raw_off, &n, cause);
	if (rc < 0)
		return rc;
	ls->raw_len = n;
	ls->raw_off += n;
	if (n == 0)
		ls->raw_eof = 1;
	return 0;
}

/* The raw bytes not given to the decoder yet. */
static size_t
raw_left(const struct logsrc *ls)
{
	return ls->raw_len - ls->raw_used;
}

/*
 * More raw input when the decoder has used up ls->raw: 0, or a negative
 * errno.  The three decoders take their input from ls->raw at raw_used
 * and say after each call how much of it they used.
 */
static int
raw_need(struct logsrc *ls, char **cause)
{
	int rc;

	if (raw_left(ls) != 0 || ls->raw_eof)
		return 0;
	rc = raw_fill(ls, cause);
	if (rc == 0)
		ls->raw_used = 0;
	return rc;
}

/* Data whose decoder would need more than @mib MiB: refused. */
static int
too_big(struct logsrc *ls, const char *fmt, int mib, char **cause)
{
	util_cause(cause, "%s: %s data that needs more than %d MiB to "
		   "decompress", ls->name, fmt, mib);
	ls->eof = 1;
	return -EFBIG;
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
		rc = raw_need(ls, cause);
		if (rc < 0)
			return rc;
		if (ls->dec_end) {
			if (raw_left(ls) == 0) {
				ls->eof = 1;
				break;
			}
			/* another member follows (gzip's concatenation) */
			if (ls->raw[ls->raw_used] != 0x1f)
				return damaged(ls, "bytes after the end of "
					       "the compressed stream", cause);
			if (inflateReset(z) != Z_OK)
				return damaged(ls, "reset", cause);
			ls->dec_end = 0;
		}
		z->next_in = ls->raw + ls->raw_used;
		z->avail_in = (uInt)raw_left(ls);
		rc = inflate(z, Z_NO_FLUSH);
		ls->raw_used = ls->raw_len - z->avail_in;
		if (rc == Z_STREAM_END) {
			ls->dec_end = 1;
			continue;
		}
		if (rc == Z_MEM_ERROR)
			return -ENOMEM;
		if (rc != Z_OK && rc != Z_BUF_ERROR)
			return keep_made(ls, cap - z->avail_out,
					 damaged(ls, z->msg ? z->msg :
						 "bad data", cause), cause);
		if (z->avail_out == cap && raw_left(ls) == 0 && ls->raw_eof)
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
		rc = raw_need(ls, cause);
		if (rc < 0)
			return rc;
		x->next_in = ls->raw + ls->raw_used;
		x->avail_in = raw_left(ls);
		r = lzma_code(x, ls->raw_eof ? LZMA_FINISH : LZMA_RUN);
		ls->raw_used = ls->raw_len - x->avail_in;
		if (r == LZMA_STREAM_END) {
			ls->eof = 1;
			break;
		}
		if (r == LZMA_OK)
			continue;
		if (r == LZMA_MEM_ERROR)
			return -ENOMEM;
		if (r == LZMA_MEMLIMIT_ERROR)
			return too_big(ls, "xz", LOGSRC_DECODE_MEMLIMIT >> 20,
				       cause);
		return keep_made(ls, cap - x->avail_out,
				 damaged(ls, r == LZMA_BUF_ERROR ? "truncated" :
					 r == LZMA_FORMAT_ERROR ? "not xz" :
					 r == LZMA_OPTIONS_ERROR ?
					 "unsupported options" : "bad data",
					 cause), cause);
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
		rc = raw_need(ls, cause);
		if (rc < 0)
			return rc;
		if (raw_left(ls) == 0 && ls->raw_eof && ls->zs_last == 0) {
			/* every frame complete and flushed */
			ls->eof = 1;
			break;
		}
		/* No more than the decoder's hint (the next block, or the
		 * frame's checksum): a checksum that fails then fails in a
		 * call of its own.  libzstd returns an error without the
		 * output position of that call, so a call that decoded the
		 * last block and then checked the sum would lose the block. */
		ib.src = ls->raw + ls->raw_used;
		ib.size = raw_left(ls);
		if (ls->zs_last > 0 && ls->zs_last < ib.size)
			ib.size = ls->zs_last;
		ib.pos = 0;
		ls->zs_last = ZSTD_decompressStream(ls->zs, &ob, &ib);
		if (ZSTD_isError(ls->zs_last)) {
			if (ZSTD_getErrorCode(ls->zs_last) ==
			    ZSTD_error_memory_allocation)
				return -ENOMEM;
			if (ZSTD_getErrorCode(ls->zs_last) ==
			    ZSTD_error_frameParameter_windowTooLarge)
				return too_big(ls, "zstd", 128, cause);
			return keep_made(ls, ob.pos,
					 damaged(ls, ZSTD_getErrorName(
						 ls->zs_last), cause), cause);
		}
		ls->raw_used += ib.pos;
		if (ob.pos == 0 && raw_left(ls) == 0 && ls->raw_eof) {
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
		rc = decompress_raw(ls, out, cap, ls->dec_pos, &got, cause);
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

/* Give the caller the message @c (theirs to free), or free it. */
static void
hand_cause(char **cause, char *c)
{
	if (cause != NULL) {
		free(*cause);
		*cause = c;
	} else {
		free(c);
	}
}

/* Read ahead until @want bytes are held (or the end). */
int
decompress_peek(struct logsrc *ls, size_t want, char **cause)
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
			 * error comes after them (decompress_read()) */
			ls->err_rc = (int)n;
			ls->err_msg = c;
			ls->eof = 1;
			return 0;
		}
		if (n < 0) {
			hand_cause(cause, c);
			return (int)n;
		}
		ls->pk_len += (size_t)n;
	}
	return 0;
}

/* Read-ahead bytes first, then new ones. */
ssize_t
decompress_read(struct logsrc *ls, char *buf, size_t cap, char **cause)
{
	size_t n = ls->pk_len < cap ? ls->pk_len : cap;
	char *c = NULL;
	ssize_t m;

	if (ls->err_rc < 0 && ls->pk_len == 0) {
		/* the error met while bytes before it were still held */
		m = ls->err_rc;
		ls->err_rc = 0;
		hand_cause(cause, ls->err_msg);
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
		hand_cause(cause, c);
		return m;
	}
	return (ssize_t)n + m;
}

/* Put bytes back in front of the read-ahead. */
int
decompress_unread(struct logsrc *ls, const char *p, size_t n)
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
