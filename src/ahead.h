/* SPDX-License-Identifier: PostgreSQL */
/* ahead.h - an import's file read, and its SECCOMP lines decoded, on a
 * second thread ahead of the feed (ahead.c). */
#ifndef PGSC_AHEAD_H
#define PGSC_AHEAD_H

#include <stddef.h>
#include <sys/types.h>

struct logsrc;
struct pgsc_record;
struct ahead;
struct ahead_chunk;

/* The reading thread, idle.  Returns 0 or -errno (no thread: the caller
 * reads by itself). */
int ahead_new(size_t chunk, struct ahead **out);
/* Stops and joins the thread (a file still being read is abandoned). */
void ahead_free(struct ahead *a);
/* Read @ls from where it is to its end, ahead of ahead_next().  The caller
 * must not touch @ls until ahead_stop(). */
void ahead_start(struct ahead *a, struct logsrc *ls);
/* The next piece of the file, in order: its bytes (> 0) with *@data and
 * *@ck, 0 at the end, or logsrc_read()'s error with *@why (the caller's
 * to free).  Waits for the thread.  The piece stays valid until
 * ahead_done(). */
ssize_t ahead_next(struct ahead *a, const char **data,
		   struct ahead_chunk **ck, char **why);
/* The piece ahead_next() gave is consumed: its buffer may be read into. */
void ahead_done(struct ahead *a);
/* The file is done with, read to its end or not: waits until the thread
 * has let go of it, and drops what it read ahead.  @ls is the caller's
 * again. */
void ahead_stop(struct ahead *a);

/* Was the piece read without a NUL byte, and its newlines indexed? */
int ahead_clean(const struct ahead_chunk *ck);
/* ahead_clean(), and without a \x1d byte (no enriched tail in it)? */
int ahead_plain(const struct ahead_chunk *ck);
/* With ahead_clean(): the offset of the first newline at or after @off,
 * SIZE_MAX if none (offsets asked for must not decrease). */
size_t ahead_newline(struct ahead_chunk *ck, size_t off);

/* The record of the SECCOMP line at @off (@len bytes up to its newline, a
 * '\r' before it included) of @ck, as decode_line_cache() gives it for a
 * line that the feed then hands over (no longer than PGSC_LINE_MAX,
 * decoded, and read by auparse alike): 1 with *@rec filled, or 0 when the
 * thread did not decode that line (the caller does).  Lines must be asked
 * for in the order of their offsets. */
int ahead_take(struct ahead_chunk *ck, size_t off, size_t len,
	       struct pgsc_record *rec);

/* What the thread does to each piece it reads, without the thread: the
 * tests and fuzz_paths hold the feed's records with it to those
 * without.  @ck from ahead_chunk_new(). */
struct ahead_chunk *ahead_chunk_new(void);
void ahead_chunk_free(struct ahead_chunk *ck);
void ahead_chunk_decode(struct ahead_chunk *ck, const char *data, size_t n);

#endif
