/* SPDX-License-Identifier: PostgreSQL */
/* assemble.c - pgsc's own event assembler: the SYSCALL, EXECVE and
 * PROCTITLE records of one audit event handed over together. */
/*
 * The process tree reads a fork, an exec or an exit from the records of one
 * event together (src/proctree_event.c): SYSCALL, then EXECVE's argv and
 * PROCTITLE's title, then the end of the event.  libauparse did this
 * grouping on the default path and was more than half of an import's
 * instructions (22,000 per line handed to it, docs/internals.md "Where an
 * import's time goes"); it stays the reference (--no-fast-path), and this
 * file groups as libauparse 3.0.9 does (auparse.c, au_check_events()):
 *
 *  - an event is the records with the same time, serial and node;
 *  - it is complete when a record of a type that ends an event joins or
 *    starts it (PROCTITLE, EOE, types below 1300 or from 2100, 2000 and
 *    1406-1419), or when a line of a time at least EOE_TIMEOUT seconds
 *    later comes (auparse's end_of_event_timeout: 2 unless auditd.conf
 *    says otherwise, which is read by auparse and not here);
 *  - events completed together are handed over oldest first.
 *
 * Only SYSCALL, EXECVE and PROCTITLE records are kept (by their text,
 * decoded when handed over, as auparse's callback did): the default path
 * drops every other record, which therefore only starts or ends an event
 * (an event of other records alone is held as auparse holds it, and
 * handed over as nothing).
 *
 * Unlike auparse, a complete event is handed over at once, not when the
 * next line is fed; and what is held is bounded: at most ASM_OPEN_MAX
 * events and ASM_BYTES_MAX bytes of text, past which the oldest events are
 * handed over as they are (auparse holds without a bound).
 */
#include <errno.h>
#include <libaudit.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "feed.h"

#define ASM_OPEN_MAX 256
#define ASM_BYTES_MAX (1024 * 1024)
#define EOE_TIMEOUT 2
/* a slot's buffers above these are freed when its event is handed over,
 * so that a few big events do not keep memory for good */
#define KEEP_BUF 4096
#define KEEP_RECS 16

struct asm_event {
	int64_t sec;
	int msec;
	uint64_t serial;
	int has_node;
	size_t nlen;                /* the node name: buf[0, nlen) */
	char *buf;                  /* node name, then the records' text */
	size_t len, cap;
	struct asm_rec *recs;
	size_t nrec, caprec;
};

struct assemble {
	assemble_fn deliver;
	void *arg;
	struct asm_event ev[ASM_OPEN_MAX]; /* [0, nopen) are open */
	size_t nopen;
	size_t bytes;               /* text held by the open events */
	int64_t oldest;             /* the lowest sec of the open events */
};

int
assemble_new(assemble_fn deliver, void *arg, struct assemble **out)
{
	struct assemble *a = calloc(1, sizeof(*a));

	if (a == NULL)
		return -ENOMEM;
	a->deliver = deliver;
	a->arg = arg;
	*out = a;
	return 0;
}

void
assemble_free(struct assemble *a)
{
	if (a == NULL)
		return;
	for (size_t i = 0; i < ASM_OPEN_MAX; i++) {
		free(a->ev[i].buf);
		free(a->ev[i].recs);
	}
	free(a);
}

/* Is a record held that has not been handed over? */
int
assemble_busy(const struct assemble *a)
{
	for (size_t i = 0; i < a->nopen; i++)
		if (a->ev[i].nrec > 0)
			return 1;
	return 0;
}

/* auparse_timestamp_compare(): time, then serial. */
static int
ev_before(const struct asm_event *x, const struct asm_event *y)
{
	if (x->sec != y->sec)
		return x->sec < y->sec;
	if (x->msec != y->msec)
		return x->msec < y->msec;
	return x->serial < y->serial;
}

static void
oldest_update(struct assemble *a)
{
	for (size_t i = 0; i < a->nopen; i++)
		if (i == 0 || a->ev[i].sec < a->oldest)
			a->oldest = a->ev[i].sec;
}

/* Hand over open event @i and close it (the last open one takes its
 * slot). */
static void
ev_deliver(struct assemble *a, size_t i)
{
	struct asm_event *e = &a->ev[i], tmp;

	if (e->nrec > 0)
		a->deliver(a->arg, e->buf, e->recs, e->nrec);
	a->bytes -= e->len;
	if (e->cap > KEEP_BUF) {
		free(e->buf);
		e->buf = NULL;
		e->cap = 0;
	}
	if (e->caprec > KEEP_RECS) {
		free(e->recs);
		e->recs = NULL;
		e->caprec = 0;
	}
	e->len = e->nrec = 0;
	tmp = *e;
	*e = a->ev[--a->nopen];
	a->ev[a->nopen] = tmp;
	oldest_update(a);
}

/* Hand over the oldest open event. */
static void
deliver_oldest(struct assemble *a)
{
	size_t best = 0;

	for (size_t i = 1; i < a->nopen; i++)
		if (ev_before(&a->ev[i], &a->ev[best]))
			best = i;
	ev_deliver(a, best);
}

/* A line of time @sec came: the events it leaves EOE_TIMEOUT behind are
 * complete, handed over oldest first. */
void
assemble_tick(struct assemble *a, int64_t sec)
{
	if (a->nopen == 0 || a->oldest > sec - EOE_TIMEOUT)
		return;
	for (;;) {
		size_t best = a->nopen;

		for (size_t i = 0; i < a->nopen; i++)
			if (a->ev[i].sec <= sec - EOE_TIMEOUT &&
			    (best == a->nopen || ev_before(&a->ev[i],
							   &a->ev[best])))
				best = i;
		if (best == a->nopen)
			return;
		ev_deliver(a, best);
	}
}

/* Every open event, oldest first (the end of the input, or a live
 * collector's commit). */
void
assemble_flush(struct assemble *a)
{
	while (a->nopen > 0)
		deliver_oldest(a);
}

/*
 * Does a record of audit type @num (auparse's number: libaudit's
 * audit_name_to_msg_type(), -1 for a name it does not know) end its
 * event?  au_check_events() of libauparse 3.0.9.
 */
static int
type_ends_event(int num)
{
	return num == 1327 /* PROCTITLE */ || num == 1320 /* EOE */ ||
	       num < 1300 || num >= 2100 || num == 2000 ||
	       (num >= 1406 && num <= 1419);
}

/* The number of a type auparse would give a record named @tname. */
static int
type_number(int type_num, const char *tname, size_t tlen)
{
	char name[64];

	if (type_num != 0)
		return type_num;
	if (tlen >= sizeof(name))
		return -1;
	memcpy(name, tname, tlen);
	name[tlen] = '\0';
	return audit_name_to_msg_type(name);
}

static struct asm_event *
ev_find(struct assemble *a, const struct assemble_key *k)
{
	for (size_t i = 0; i < a->nopen; i++) {
		struct asm_event *e = &a->ev[i];

		if (e->serial == k->serial && e->msec == k->msec &&
		    e->sec == k->sec && e->has_node == (k->node != NULL) &&
		    e->nlen == k->nlen &&
		    (k->nlen == 0 || memcmp(e->buf, k->node, k->nlen) == 0))
			return e;
	}
	return NULL;
}

/* Append @n bytes to @e's text. */
static int
ev_put(struct asm_event *e, const char *p, size_t n)
{
	if (util_grow(&e->buf, &e->cap, e->len + n, 1024) < 0)
		return -ENOMEM;
	memcpy(e->buf + e->len, p, n);
	e->len += n;
	return 0;
}

/* A new open event of key @k, with room for @need more bytes held. */
static struct asm_event *
ev_open(struct assemble *a, const struct assemble_key *k, size_t need)
{
	struct asm_event *e;

	while (a->nopen > 0 && (a->nopen == ASM_OPEN_MAX ||
				a->bytes + k->nlen + need > ASM_BYTES_MAX))
		deliver_oldest(a);
	e = &a->ev[a->nopen];
	e->sec = k->sec;
	e->msec = k->msec;
	e->serial = k->serial;
	e->has_node = k->node != NULL;
	e->nlen = 0;
	e->len = e->nrec = 0;
	if (k->nlen > 0 && ev_put(e, k->node, k->nlen) < 0)
		return NULL;
	e->nlen = k->nlen;
	a->bytes += e->len;
	if (a->nopen == 0 || k->sec < a->oldest)
		a->oldest = k->sec;
	a->nopen++;
	return e;
}

/* Keep record @line of @e. */
static int
ev_keep(struct assemble *a, struct asm_event *e, const struct assemble_key *k,
	const char *line, size_t len, const struct feed_loc *loc)
{
	const char *sep;
	struct asm_rec *r;

	/* auparse hands over a record's text cut at the enriched part
	 * (\x1d, its parse_up_record()): the decoder sees the same */
	sep = memchr(line, '\x1d', len);
	if (sep != NULL)
		len = (size_t)(sep - line);
	if (util_grow_array(&e->recs, &e->caprec, e->nrec, sizeof(*e->recs),
			    4) < 0)
		return -ENOMEM;
	r = &e->recs[e->nrec];
	r->off = e->len;
	r->len = len;
	r->loc = *loc;
	r->serial = k->serial;
	if (ev_put(e, line, len) < 0)
		return -ENOMEM;
	e->nrec++;
	a->bytes += len;
	return 0;
}

/*
 * One line with a valid header: its key @k, its decoded type @t
 * (enum pgsc_rec_type), the number and name of its type.  SYSCALL, EXECVE
 * and PROCTITLE records are kept in their event; any record ends the
 * event it joins when its type ends events.  Returns 1 when the record is
 * in an event as it would be in auparse's, 0 for a lone EOE (auparse drops
 * it), or -ENOMEM (the record is then lost, the events held are not).
 */
int
assemble_line(struct assemble *a, const struct assemble_key *k, int t,
	      int type_num, const char *tname, size_t tlen, const char *line,
	      size_t len, const struct feed_loc *loc)
{
	struct asm_event *e;
	int keep = t == PGSC_REC_SYSCALL || t == PGSC_REC_EXECVE ||
		   t == PGSC_REC_PROCTITLE;
	int ends;

	assemble_tick(a, k->sec);
	e = ev_find(a, k);
	if (e != NULL && keep && a->bytes + len > ASM_BYTES_MAX) {
		/* the bound: what the event holds goes as it is, and this
		 * record starts it anew */
		ev_deliver(a, (size_t)(e - a->ev));
		e = NULL;
	}
	ends = type_ends_event(type_number(type_num, tname, tlen));
	if (e == NULL) {
		if (t == PGSC_REC_EOE)
			return 0; /* a lone EOE: auparse drops it */
		if (!keep && ends)
			return 1; /* a one-record event of nothing kept */
		/* an event a record not kept starts is held too: a record
		 * of it may come later, and the record ends it as auparse's
		 * event would end (a lone EOE is dropped only then) */
		e = ev_open(a, k, keep ? len : 0);
		if (e == NULL)
			return -ENOMEM;
	}
	if (keep && ev_keep(a, e, k, line, len, loc) < 0) {
		/* out of memory: what the event holds goes now, this record
		 * is lost */
		ev_deliver(a, (size_t)(e - a->ev));
		return -ENOMEM;
	}
	if (ends)
		ev_deliver(a, (size_t)(e - a->ev));
	return 1;
}
