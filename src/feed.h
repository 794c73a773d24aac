/* SPDX-License-Identifier: PostgreSQL */
/* feed.h - bytes to decoded records (feed.c, assemble.c). */
#ifndef PGSC_FEED_H
#define PGSC_FEED_H

#include "pgsc-int.h"

/* feed.c - turns bytes into decoded records, through libauparse. */
struct feed;
struct feed_loc {
	const char *file;       /* source name for messages */
	uint64_t line;          /* 1-based line number, 0 when not known */
	uint64_t offset;        /* byte offset of the line's start */
};
struct feed_ops {
	/* A record passed decoding.  Records of one event arrive together. */
	void (*record)(void *arg, const struct pgsc_record *rec);
	/* A line or record was rejected; @loc->line or @serial locates it. */
	void (*reject)(void *arg, int reason, const struct feed_loc *loc,
		       uint64_t serial, const char *text, size_t len);
	/* The event with @serial is complete (all its records were seen). */
	void (*event_end)(void *arg);
	/* Every line with a valid header, for serial gap accounting
	 * (optional); @node (@nlen bytes, NULL: the local host) names the
	 * sequence. */
	void (*serial)(void *arg, uint64_t serial, int type_num,
		       const char *node, size_t nlen);
	/* Every whole line with a valid header, however it was split into
	 * reads (optional; the live drain marker). */
	void (*line)(void *arg, const char *line, size_t len);
};
int feed_new(const struct feed_ops *ops, void *arg, int no_fast_path,
	     struct feed **out, char **cause);
void feed_free(struct feed *f);
/* Feed bytes (any split).  @loc_name names the source in messages. */
int feed_bytes(struct feed *f, const char *data, size_t len);
/* feed_bytes() of a piece ahead.c has read and decoded ahead (@ck: its
 * SECCOMP lines' records, taken instead of decoding them again). */
struct ahead_chunk;
int feed_bytes_ahead(struct feed *f, const char *data, size_t len,
		     struct ahead_chunk *ck);
void feed_set_source(struct feed *f, const char *name, uint64_t line0,
		     uint64_t offset0);
/* The current source ended: drop an incomplete last line. */
void feed_end_source(struct feed *f);
/* Complete all open events (end of input). */
int feed_flush(struct feed *f);
uint64_t feed_lines(const struct feed *f);
/* Offset just past the last complete line consumed. */
uint64_t feed_offset(const struct feed *f);
/* Bytes of an incomplete last line held back. */
size_t feed_pending(const struct feed *f);
int feed_busy(const struct feed *f);
void feed_flush_events(struct feed *f);

/* assemble.c - the default path's event assembler: SYSCALL, EXECVE and
 * PROCTITLE records grouped into events as libauparse groups them. */
struct assemble;
struct asm_rec {
	size_t off, len;        /* the record's text in the event's buffer */
	struct feed_loc loc;    /* where its line was */
	uint64_t serial;
};
struct assemble_key {
	int64_t sec;
	int msec;
	uint64_t serial;
	const char *node;       /* NULL: no node= prefix */
	size_t nlen;
};
/* A complete event: its @n records (n >= 1), their text in @buf. */
typedef void (*assemble_fn)(void *arg, const char *buf,
			    const struct asm_rec *recs, size_t n);
int assemble_new(assemble_fn deliver, void *arg, struct assemble **out);
void assemble_free(struct assemble *a);
int assemble_line(struct assemble *a, const struct assemble_key *k, int t,
		  int type_num, const char *tname, size_t tlen,
		  const char *line, size_t len, const struct feed_loc *loc);
void assemble_tick(struct assemble *a, int64_t sec);
void assemble_flush(struct assemble *a);
int assemble_busy(const struct assemble *a);

#endif
