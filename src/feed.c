/* SPDX-License-Identifier: PostgreSQL */
/* feed.c - split bytes into lines, decode SECCOMP lines at once and the
 * other records by events (pgsc's assembler, or libauparse). */
/*
 * libauparse 3.0.9 is quadratic on SECCOMP-only streams: a SECCOMP record
 * is a one-record event with no EOE, not one of auparse's "last record"
 * types, so it stays open for end_of_event_timeout and every new record
 * scans all open events (105k records took 104 s: docs/design.md §4.1).  Two
 * paths, both here:
 *
 *  - the default fast path decodes a standalone SECCOMP line directly,
 *    and groups the SYSCALL, EXECVE and PROCTITLE records into events with
 *    pgsc's own assembler (src/assemble.c), which groups as auparse does:
 *    auparse cost 22,000 instructions per line handed to it, more than
 *    half of an import (docs/internals.md, "Where an import's time goes");
 *  - with no_fast_path, every line goes to libauparse, the reference: a
 *    SECCOMP line followed by a synthetic EOE line with the same
 *    timestamp and serial, which closes the event at once.
 *
 * tests/golden runs every fixture both ways and requires identical
 * output, and fuzz_paths the same records and rejects, which is what
 * keeps the fast path honest.
 *
 * A SECCOMP record can share its serial with the SYSCALL record of the
 * same syscall when an audit rule also matches it (clone is both logged by
 * the filter and audited by pgsc.rules).  Closing the SECCOMP record's
 * event early only splits it from that SYSCALL record; pgsc interprets
 * records one by one, so nothing is lost.
 *
 * Events held.  auparse hands over an event only when a later line
 * arrives; the assembler hands over a complete one at once, but an event
 * whose PROCTITLE has not come waits (a writer paused mid-event), at most
 * end_of_event_timeout seconds of log time.  feed_busy()
 * tells a live collector that committing the file position now would put
 * it past such an event, which a crash would then lose for good
 * (tests/hardening/crash-live-auditd); the collector waits, then hands the
 * held events over with feed_flush_events() and commits.  (Sending SECCOMP
 * lines through auparse while it holds an event was tried: imports got
 * 60 times slower.)
 */
#include <auparse.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "ahead.h"
#include "feed.h"

/* Remember where recent lines handed to auparse came from, so that a
 * record rejected inside an event can still be reported by line. */
#define LINE_RING 4096

/* Serials of the events auparse holds (see feed_busy()). */
#define HELD_MAX 64

struct ring_ent {
	uint64_t serial;
	uint64_t line;
};

struct feed {
	auparse_state_t *au;        /* the reference path only */
	struct assemble *as;        /* the default path */
	const struct feed_ops *ops;
	void *arg;
	int no_fast_path;

	/* the partial line carried between feed_bytes() calls */
	char *part;
	size_t part_len, part_cap;
	int part_too_long;          /* discarding until the next newline */
	size_t long_len;            /* length so far of a too-long line */
	/* what follows the last NUL byte of a too-long line, when it may
	 * still be a whole record written after a zeroed block */
	char *tail;
	size_t tail_len;
	int tail_on;
	int long_nul;               /* the too-long line holds NUL bytes */
	int oom;                    /* a record was lost for memory */
	int no_nul;                 /* the line in hand is known to have no
				     * NUL byte: its buffer was searched */
	struct ahead_chunk *ck;     /* the buffer's lines decoded ahead */
	struct ahead_chunk *take;   /* ck, for the line in hand at take_off
				     * of the buffer (a whole line in it) */
	size_t take_off;

	const char *src;
	uint64_t line;              /* lines completed so far */
	uint64_t offset;            /* bytes consumed up to the last newline */

	struct ring_ent ring[LINE_RING];
	size_t ring_pos;

	uint64_t held[HELD_MAX];    /* serials auparse holds, unordered */
	size_t nheld;
	int held_overflow;          /* more than HELD_MAX: busy until flush */

	struct decode_cache dcache; /* the SECCOMP reader's (decode_fast.c) */
	struct pgsc_record rec;     /* scratch, big: kept out of the stack */
	struct pgsc_record erec;    /* the assembler's events' */
};

static uint64_t
ring_lookup(const struct feed *f, uint64_t serial)
{
	for (size_t i = 0; i < LINE_RING; i++) {
		size_t j = (f->ring_pos + LINE_RING - 1 - i) % LINE_RING;

		if (f->ring[j].line == 0)
			break;
		if (f->ring[j].serial == serial)
			return f->ring[j].line;
	}
	return 0;
}

static void
held_add(struct feed *f, uint64_t serial)
{
	for (size_t i = 0; i < f->nheld; i++)
		if (f->held[i] == serial)
			return;
	if (f->nheld == HELD_MAX) {
		f->held_overflow = 1;
		return;
	}
	f->held[f->nheld++] = serial;
}

static void
held_del(struct feed *f, uint64_t serial)
{
	for (size_t i = 0; i < f->nheld; i++)
		if (f->held[i] == serial) {
			f->held[i] = f->held[--f->nheld];
			return;
		}
}

static void
au_callback(auparse_state_t *au, auparse_cb_event_t type, void *arg)
{
	struct feed *f = arg;

	if (type != AUPARSE_CB_EVENT_READY)
		return;
	if (auparse_first_record(au) <= 0)
		return;
	held_del(f, auparse_get_serial(au));
	do {
		const char *text = auparse_get_record_text(au);
		size_t len;
		int rc;

		if (text == NULL)
			continue;
		len = strlen(text);
		rc = pgsc_record_decode(text, len, &f->rec);
		if (rc != 0) {
			struct feed_loc loc = { f->src, 0, 0 };
			uint64_t serial = auparse_get_serial(au);

			loc.line = ring_lookup(f, serial);
			f->ops->reject(f->arg, rc, &loc, serial, text, len);
			continue;
		}
		if (f->rec.type == PGSC_REC_EOE)
			continue;
		if (f->rec.type == PGSC_REC_OTHER && !f->no_fast_path)
			continue;
		f->ops->record(f->arg, &f->rec);
	} while (auparse_next_record(au) > 0);
	if (f->ops->event_end)
		f->ops->event_end(f->arg);
}

/* A complete event from the assembler: decoded and handed over as
 * au_callback() does. */
static void
as_event(void *arg, const char *buf, const struct asm_rec *recs, size_t n)
{
	struct feed *f = arg;

	for (size_t i = 0; i < n; i++) {
		const char *text = buf + recs[i].off;
		int rc = decode_line(text, recs[i].len, &f->erec);

		if (rc != 0) {
			f->ops->reject(f->arg, rc, &recs[i].loc,
				       recs[i].serial, text, recs[i].len);
			continue;
		}
		f->ops->record(f->arg, &f->erec);
	}
	if (f->ops->event_end)
		f->ops->event_end(f->arg);
}

int
feed_new(const struct feed_ops *ops, void *arg, int no_fast_path,
	 struct feed **out, char **cause)
{
	struct feed *f = calloc(1, sizeof(*f));
	int rc;

	if (f == NULL)
		return -ENOMEM;
	f->ops = ops;
	f->arg = arg;
	f->no_fast_path = no_fast_path;
	f->src = "-";
	if (!no_fast_path) {
		rc = assemble_new(as_event, f, &f->as);
		if (rc < 0) {
			free(f);
			return rc;
		}
		*out = f;
		return 0;
	}
	f->au = auparse_init(AUSOURCE_FEED, NULL);
	if (f->au == NULL) {
		int e = errno ? errno : ENOMEM;

		util_cause(cause, "auparse_init failed: %s", strerror(e));
		free(f);
		return -e;
	}
	auparse_add_callback(f->au, au_callback, f, NULL);
	*out = f;
	return 0;
}

void
feed_free(struct feed *f)
{
	if (f == NULL)
		return;
	if (f->au != NULL)
		auparse_destroy(f->au);
	assemble_free(f->as);
	free(f->part);
	free(f->tail);
	free(f);
}

void
feed_set_source(struct feed *f, const char *name, uint64_t line0,
		uint64_t offset0)
{
	f->src = name;
	f->line = line0;
	f->offset = offset0;
}

uint64_t
feed_lines(const struct feed *f)
{
	return f->line;
}

uint64_t
feed_offset(const struct feed *f)
{
	return f->offset;
}

static void
reject_line(struct feed *f, int reason, const char *line, size_t len)
{
	struct feed_loc loc = { f->src, f->line, f->offset };

	f->ops->reject(f->arg, reason, &loc, 0, line, len);
}

static void
to_auparse(struct feed *f, const char *line, size_t len, uint64_t serial)
{
	held_add(f, serial);
	f->ring[f->ring_pos].serial = serial;
	f->ring[f->ring_pos].line = f->line;
	f->ring_pos = (f->ring_pos + 1) % LINE_RING;
	/* auparse wants whole lines ending in '\n'. */
	auparse_feed(f->au, line, len);
	auparse_feed(f->au, "\n", 1);
}

/* One complete line, without its newline. */
/* Hand @serial of @line to the serial accounting, with the line's node. */
static void
feed_serial(struct feed *f, uint64_t serial, int type_num, const char *line,
	    size_t len)
{
	const char *node;
	size_t nlen;

	(void)decode_node(line, len, &node, &nlen);
	f->ops->serial(f->arg, serial, type_num, node, nlen);
}

/* f->rec, a SECCOMP record decoded from @line, handed over. */
static void
seccomp_line(struct feed *f, const char *line, size_t len)
{
	if (f->ops->serial) {
		const char *node = NULL;
		size_t nlen = 0;

		/* without node=, the line is not read again */
		if (f->rec.has_node)
			(void)decode_node(line, len, &node, &nlen);
		f->ops->serial(f->arg, f->rec.serial, f->rec.type_num, node,
			       nlen);
	}
	/* events this line leaves behind go first, as auparse would hand
	 * them over */
	assemble_tick(f->as, f->rec.sec);
	f->ops->record(f->arg, &f->rec);
	if (f->ops->event_end)
		f->ops->event_end(f->arg);
}

static void
do_line(struct feed *f, const char *line, size_t len)
{
	int type_num, t;
	const char *tname;
	size_t tlen, msg;
	int64_t sec;
	int msec;
	uint64_t serial;

	/* A line decoded ahead (ahead.c) passed every check below and is a
	 * SECCOMP line: taken first, its bytes are not read here.  They
	 * were read on the thread's CPU, and reading its last byte for a
	 * '\r' was a twentieth of the feed's time. */
	if (f->take != NULL && !f->no_fast_path &&
	    ahead_take(f->take, f->take_off, len, &f->rec)) {
		seccomp_line(f, line, len);
		return;
	}
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len == 0)
		return;
	if (len > PGSC_LINE_MAX) {
		reject_line(f, PGSC_REJ_TOO_LONG, line, 200);
		return;
	}
	if (!f->no_nul && memchr(line, '\0', len) != NULL) {
		/* NUL bytes: a preallocated or crash-zeroed block.  A writer
		 * that went on after it starts a whole record right after the
		 * last NUL: that record is kept, the block is rejected. */
		const char *z = memrchr(line, '\0', len);
		size_t rest = len - (size_t)(z + 1 - line);

		if (rest > 0 && decode_header(z + 1, rest, &type_num, &tname,
					      &tlen, &sec, &msec, &serial) >= 0) {
			reject_line(f, PGSC_REJ_BINARY, line, len - rest);
			do_line(f, z + 1, rest);
			return;
		}
		reject_line(f, PGSC_REJ_BINARY, line, len);
		return;
	}
	msg = decode_is_seccomp(line, len);
	if (msg > 0 && !f->no_fast_path) {
		int rc = decode_line_cache(line, len, msg, &f->rec,
					   &f->dcache);

		if (rc != PGSC_REJ_NO_HEADER && rc != PGSC_REJ_BAD_TIME &&
		    !decode_auparse_reads(line, len, msg)) {
			reject_line(f, PGSC_REJ_NO_HEADER, line, len);
			return;
		}
		if (rc != 0) {
			reject_line(f, rc, line, len);
			/* it came, and is counted as rejected: its serial is
			 * no gap (a syscall number with no name, syscall(1023),
			 * counted twice as damage and as loss) */
			if (f->ops->serial &&
			    decode_header(line, len, &type_num, &tname, &tlen,
					  &sec, &msec, &serial) >= 0)
				feed_serial(f, serial, type_num, line, len);
			return;
		}
		seccomp_line(f, line, len);
		return;
	}
	t = decode_header(line, len, &type_num, &tname, &tlen, &sec, &msec,
			  &serial);
	if (t < 0) {
		reject_line(f, -t, line, len);
		return;
	}
	/* a header auparse would not read: refused on both paths before
	 * auparse sees it */
	if (!decode_auparse_reads(line, len, (size_t)(tname + tlen + 1 - line))) {
		reject_line(f, PGSC_REJ_NO_HEADER, line, len);
		return;
	}
	if (f->ops->line)
		f->ops->line(f->arg, line, len);
	/* auditd numbers its own DAEMON_* records with a separate counter */
	if (f->ops->serial && !(tlen > 7 && memcmp(tname, "DAEMON_", 7) == 0))
		feed_serial(f, serial, type_num, line, len);
	if (!f->no_fast_path) {
		struct feed_loc loc = { f->src, f->line, f->offset };
		struct assemble_key k = { sec, msec, serial, NULL, 0 };
		int rc;

		(void)decode_node(line, len, &k.node, &k.nlen);
		rc = assemble_line(f->as, &k, t, type_num, tname, tlen, line,
				   len, &loc);
		if (rc < 0)
			f->oom = 1; /* feed_bytes() says so */
		return;
	}
	to_auparse(f, line, len, serial);
	if (t == PGSC_REC_SECCOMP) {
		char eoe[96];
		int n = snprintf(eoe, sizeof(eoe),
				 "type=EOE msg=audit(%lld.%03d:%llu): ",
				 (long long)sec, msec, (unsigned long long)serial);

		to_auparse(f, eoe, (size_t)n, serial);
		/* closed: auparse hands it over with the next line, or at
		 * feed_flush_events() */
		held_del(f, serial);
	}
}

/* Forget the carried partial line, and the too-long one with its tail. */
static void
part_drop(struct feed *f)
{
	f->part_len = 0;
	f->part_too_long = 0;
	f->long_len = 0;
	f->tail_on = 0;
	f->tail_len = 0;
	f->long_nul = 0;
}

/* Append to the carried partial line. */
static int
part_append(struct feed *f, const char *p, size_t n)
{
	if (util_grow(&f->part, &f->part_cap, f->part_len + n + 1, 4096) < 0)
		return -ENOMEM;
	memcpy(f->part + f->part_len, p, n);
	f->part_len += n;
	return 0;
}

/*
 * A too-long line is not stored, but a zeroed block (preallocation, a
 * crash) is one huge "line" of NUL bytes that runs into the first record
 * written after it.  Keep what follows the last NUL byte seen, while it
 * fits a line, so that record is not lost with the block.
 */
static int
tail_note(struct feed *f, const char *p, size_t n)
{
	const char *z = n ? memrchr(p, '\0', n) : NULL;

	if (z != NULL) {
		f->long_nul = 1;
		f->tail_on = 1;
		f->tail_len = 0;
		n -= (size_t)(z + 1 - p);
		p = z + 1;
	}
	if (!f->tail_on || n == 0)
		return 0;
	if (f->tail_len + n > PGSC_LINE_MAX) {
		f->tail_on = 0;
		f->tail_len = 0;
		return 0;
	}
	if (f->tail == NULL) {
		f->tail = malloc(PGSC_LINE_MAX);
		if (f->tail == NULL)
			return -ENOMEM;
	}
	memcpy(f->tail + f->tail_len, p, n);
	f->tail_len += n;
	return 0;
}

/* The tail of a too-long line, if it is a record of its own. */
static void
tail_line(struct feed *f)
{
	int type_num;
	const char *tname;
	size_t tlen;
	int64_t sec;
	int msec;
	uint64_t serial;
	size_t len = f->tail_len;

	if (len > 0 && f->tail[len - 1] == '\r')
		len--;
	if (decode_header(f->tail, len, &type_num, &tname, &tlen, &sec, &msec,
			  &serial) >= 0)
		do_line(f, f->tail, len);
}

static int
split_lines(struct feed *f, const char *data, size_t len)
{
	const char *p = data, *end = data + len;
	/* a piece the reading thread indexed (ahead.c): its newlines are
	 * known, and it has no NUL byte */
	struct ahead_chunk *ix = f->ck != NULL && ahead_clean(f->ck) ? f->ck
								 : NULL;
	/* one search of the buffer instead of one a line: the lines made
	 * whole inside it are read without their own (a tenth of the
	 * searches' cost was the calls) */
	int clean = ix != NULL || memchr(data, '\0', len) == NULL;
	int plain = ix != NULL && ahead_plain(ix);

	while (p < end) {
		const char *nl;
		size_t n;

		if (ix != NULL) {
			size_t o = ahead_newline(ix, (size_t)(p - data));

			nl = o < len ? data + o : NULL;
		} else {
			nl = memchr(p, '\n', (size_t)(end - p));
		}
		n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (!f->part_too_long && f->part_len + n > PGSC_LINE_MAX) {
			/* Over the bound: keep a head for the message and
			 * count the rest without storing it. */
			size_t keep = f->part_len < 200 ? 200 - f->part_len : 0;

			if (keep > n)
				keep = n;
			if (part_append(f, p, keep) < 0)
				return -ENOMEM;
			f->long_len = f->part_len - keep + n;
			f->part_too_long = 1;
			f->tail_on = 0;
			f->tail_len = 0;
			f->long_nul = 0;
			if (tail_note(f, f->part, f->part_len - keep) < 0 ||
			    tail_note(f, p, n) < 0)
				return -ENOMEM;
		} else if (f->part_too_long) {
			f->long_len += n;
			if (tail_note(f, p, n) < 0)
				return -ENOMEM;
		}
		if (f->part_too_long) {
			if (nl == NULL)
				return 0;
			f->line++;
			/* a zeroed block is "binary" however long it is */
			reject_line(f, f->long_nul ? PGSC_REJ_BINARY
						   : PGSC_REJ_TOO_LONG, f->part,
				    f->part_len < 200 ? f->part_len : 200);
			if (f->tail_on && f->tail_len > 0)
				tail_line(f);
			f->offset += f->long_len + 1;
			part_drop(f);
			p = nl + 1;
			continue;
		}
		if (nl != NULL && f->part_len == 0) {
			/* the common case: a whole line inside the buffer */
			f->line++;
			f->no_nul = clean;
			f->take = f->ck;
			f->take_off = (size_t)(p - data);
			f->dcache.plain = plain;
			do_line(f, p, n);
			f->dcache.plain = 0;
			f->take = NULL;
			f->no_nul = 0;
			f->offset += n + 1;
			p = nl + 1;
			continue;
		}
		if (part_append(f, p, n) < 0)
			return -ENOMEM;
		if (nl == NULL)
			return 0;
		f->line++;
		do_line(f, f->part, f->part_len);
		f->offset += f->part_len + 1;
		f->part_len = 0;
		p = nl + 1;
	}
	return 0;
}

int
feed_bytes(struct feed *f, const char *data, size_t len)
{
	return feed_bytes_ahead(f, data, len, NULL);
}

int
feed_bytes_ahead(struct feed *f, const char *data, size_t len,
		 struct ahead_chunk *ck)
{
	int rc;

	f->ck = ck;
	rc = split_lines(f, data, len);
	f->ck = NULL;
	if (rc == 0 && f->oom)
		rc = -ENOMEM;
	f->oom = 0;
	return rc;
}

/*
 * Does auparse hold records of an event that is not closed yet?  Then
 * feed_offset() is past records not counted: a live collector waits with
 * its commit.  Closed events it may still hold are handed over by
 * feed_flush_events(), which a collector calls before committing.
 */
int
feed_busy(const struct feed *f)
{
	if (f->as != NULL)
		return assemble_busy(f->as);
	return f->nheld > 0 || f->held_overflow;
}

/* Hand over every event held, as complete. */
void
feed_flush_events(struct feed *f)
{
	if (f->as != NULL) {
		assemble_flush(f->as);
		return;
	}
	auparse_flush_feed(f->au);
	f->nheld = 0;
	f->held_overflow = 0;
}

/* Bytes of an incomplete last line held back. */
size_t
feed_pending(const struct feed *f)
{
	return f->part_too_long ? f->long_len : f->part_len;
}

void
feed_end_source(struct feed *f)
{
	/* An incomplete last line stays unconsumed: feed_offset() points at
	 * its start, so the next import reads it again once it is whole. */
	part_drop(f);
}

int
feed_flush(struct feed *f)
{
	feed_end_source(f);
	feed_flush_events(f);
	return 0;
}
