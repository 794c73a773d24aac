/* SPDX-License-Identifier: PostgreSQL */
/* logsrc-int.h - struct logsrc, shared by logsrc.c and decompress.c. */
/*
 * logsrc.c opens an input, tells whether it is an audit log, hashes and
 * delivers its bytes; decompress.c reads them raw or through a decoder,
 * with the read-ahead.  Both see one struct logsrc; no other file does
 * (pgsc-int.h has the API).
 */
#ifndef PGSC_LOGSRC_INT_H
#define PGSC_LOGSRC_INT_H

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#define SPAN 4096                        /* util_prefix_hash()'s span */
#define RAW_CHUNK (128 * 1024)
#define SKIP_CHUNK (64 * 1024)
#define SNIFF_LINES 1000
#define UNTIL_HEAD 512                   /* enough for any record header */

struct logsrc {
	char *path;                 /* NULL: standard input */
	char *name;                 /* for messages and the store */
	int fd;                     /* -1 while suspended: one input
				     * open at a time (logsrc_suspend()) */
	int stream;                 /* stdin or a pipe: read once */
	int seekable;               /* a plain regular file: pread() */
	int fmt;                    /* enum logsrc_fmt */
	uint64_t inode;
	uint64_t dev;               /* with inode: the file opened again */
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
	size_t raw_used;            /* of raw_len, given to the decoder */
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

/* decompress.c */
void decompress_end(struct logsrc *ls);
int decompress_init(struct logsrc *ls, char **cause);
int decompress_raw(struct logsrc *ls, void *buf, size_t cap, uint64_t at,
		   size_t *got, char **cause);
int decompress_peek(struct logsrc *ls, size_t want, char **cause);
ssize_t decompress_read(struct logsrc *ls, char *buf, size_t cap,
			char **cause);
int decompress_unread(struct logsrc *ls, const char *p, size_t n);

#endif
