/* SPDX-License-Identifier: PostgreSQL */
/* serials.c - serial gaps: the kernel serials of a stream should leave
 * no holes; count the ones it leaves, in a sliding window of bits, one
 * sequence per node (each host's kernel numbers its own events). */
/*
 * A central log (docs/fleet.md) interleaves several hosts' events, each
 * with its own serials: taken as one sequence, every host's serials fill
 * only some of the numbers between the lowest and the highest, and the
 * rest were counted as lost (tests/fleet/nodes.sh: 2 false gaps in its
 * follow).  The local host's records (no node=) keep the sequence in
 * struct serials itself; each node= name gets its own, found by name.
 * A continued round starts every sequence afresh at the position it reads
 * from, and keeps the gaps its earlier runs committed (live_commit.c).
 * So that those are gaps, a commit of a running round counts only the
 * holes at least SERIAL_SLACK serials below a sequence's highest: the
 * serials of the holes above may still come (a log merged by time has a
 * node's serials out of order: tests/fleet/nodes.sh's by up to 206), and
 * a crash would have frozen them as gaps.  The last commit counts all.
 * A run ignores the serials below its first one (of each sequence): the
 * run before it read them, and they would open false holes.
 *
 * The kernel numbers an event when it starts and queues it when it ends,
 * so a log holds serials out of order (in a storm of four processes on
 * two cores, one line in 130 comes after a higher serial, by up to ~100).
 * A run that starts where another stopped, between N+1 and N, would take
 * N as its first and N+1 (read by the run before) as a hole: one false
 * gap per such restart.  So each commit stores, with the position, the
 * state of every sequence above what it counted (serials_save()): the
 * highest serial, and which serials the window above the counted ones
 * holds.  The next run starts from there (serials_load()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "pgsc-int.h"
#include "live.h"

/*
 * Every node= name gets a sequence of its own, with a window of
 * SERIAL_NODE_WINDOW bits (2 KiB: a serial up to 8,192 below the node's
 * highest is still placed, twice SERIAL_SLACK; the local host's keeps
 * SERIAL_WINDOW, 128 KiB).  The windows of all nodes are bounded by
 * SERIAL_NODES_BYTES (64 MiB: 32,768 nodes).  node= names are written by
 * the central auditd from its clients' configuration, but a log can hold
 * any: a node past the bound keeps only its name and counters, and its
 * records are counted as untracked (serials_untracked()), a loss figure
 * of its own: the gaps of such a node cannot be known, and the round is
 * not complete (docs/fleet.md).
 */
#define SERIAL_NODE_WINDOW (1u << 14)
#define SERIAL_NODES_BYTES ((size_t)64 << 20)
#define SERIALS_NODES_MAX (SERIAL_NODES_BYTES / (SERIAL_NODE_WINDOW / 8))
#define SERIAL_SLACK 4096
#define SERIAL_WRAP (UINT64_C(1) << 32)

struct serials_node {
	char *name;                 /* not terminated: len bytes */
	size_t len;
	struct serials seq;         /* seq.bits NULL: past the bound */
};

/* The window of @s in bits. */
static uint64_t
seq_window(const struct serials *s)
{
	return s->window ? s->window : SERIAL_WINDOW;
}

static uint64_t
serials_zeros(const struct serials *s, uint64_t from, uint64_t to)
{
	uint64_t z = 0;

	for (uint64_t v = from; v < to; v++) {
		uint64_t i = v - s->base;

		if (!(s->bits[i / 8] & (1u << (i % 8))))
			z++;
	}
	return z;
}

/* Start @s afresh at @serial, the holes it holds so far counted. */
static void
seq_start(struct serials *s, uint64_t serial)
{
	if (s->started)
		s->gaps += serials_zeros(s, s->min, s->max + 1);
	memset(s->bits, 0, seq_window(s) / 8);
	s->base = serial > seq_window(s) / 4 ? serial - seq_window(s) / 4 : 0;
	s->min = s->max = s->first = serial;
	s->started = 1;
}

/*
 * The kernel's serial is an unsigned int (kernel/audit.c, audit_serial())
 * and starts again at 0 after 2^32 events.  Serials are placed on a 64-bit
 * line: one below the highest by more than half the 32-bit range is past
 * a wrap (the next epoch), one above it by as much is a late one from
 * before the wrap.  Without this a run was blind after a wrap: every
 * serial was below its first one.
 */
static uint64_t
seq_unwrap(struct serials *s, uint64_t serial)
{
	uint64_t u;

	if (!s->started || serial >= SERIAL_WRAP)
		return serial;
	u = serial + s->epoch;
	if (u + SERIAL_WRAP / 2 < s->max) {
		s->epoch += SERIAL_WRAP;
		u += SERIAL_WRAP;
	} else if (u >= SERIAL_WRAP && u > s->max + SERIAL_WRAP / 2) {
		u -= SERIAL_WRAP;
	}
	return u;
}

/* Slide the window of @s so that @serial fits, counting the holes left
 * behind; a jump past the whole window counts the jump too. */
static void
seq_slide(struct serials *s, uint64_t serial)
{
	uint64_t w = seq_window(s), nb = serial - w / 2, keep;

	if (serial > s->max + w / 2) {
		/* more than the window missing at once (a rotated file
		 * not given, a long overflow): every one of them, those
		 * below the new window now, the window's own as holes in it
		 * (the serials just below may still come, out of order) */
		s->gaps += serials_zeros(s, s->min, s->max + 1);
		s->base = serial - w / 4;
		s->gaps += s->base - s->max - 1;
		memset(s->bits, 0, w / 8);
		s->min = s->base;
		s->max = serial;
		return;
	}
	if (s->min < nb)
		s->gaps += serials_zeros(s, s->min, nb);
	if (nb - s->base < w) {
		uint64_t shift = nb - s->base;
		uint8_t *nbits = calloc(w / 8, 1);

		if (nbits == NULL)
			return;
		keep = w - shift;
		for (uint64_t k = 0; k < keep; k++) {
			uint64_t src = k + shift;

			if (s->bits[src / 8] & (1u << (src % 8)))
				nbits[k / 8] |= (uint8_t)(1u << (k % 8));
		}
		free(s->bits);
		s->bits = nbits;
	} else {
		memset(s->bits, 0, w / 8);
	}
	s->base = nb;
	if (s->min < nb)
		s->min = nb;
}

/*
 * Mark @serial in the one sequence @s.  Returns, for the first serial of
 * a file (serials_file()), how many serials lie between the highest of
 * the files before and it: the serials no file given holds.  A file
 * that starts well below that highest is another sequence (a log of
 * another boot): it starts afresh.
 */
static uint64_t
seq_mark(struct serials *s, uint64_t serial)
{
	uint64_t i, hole = 0;

	if (s->bits == NULL)
		return 0;
	serial = seq_unwrap(s, serial);
	if (!s->started) {
		seq_start(s, serial);
	} else if (s->boundary) {
		if (serial + SERIAL_SLACK <= s->max)
			seq_start(s, serial);
		else if (serial > s->max + 1)
			hole = serial - s->max - 1;
	}
	s->boundary = 0;
	if (serial < s->base || serial < s->first)
		return hole; /* far too late to place, or before this run */
	if (serial >= s->base + seq_window(s)) {
		seq_slide(s, serial);
		if (serial >= s->base + seq_window(s))
			return hole;
	}
	i = serial - s->base;
	s->bits[i / 8] |= (uint8_t)(1u << (i % 8));
	if (serial < s->min)
		s->min = serial;
	if (serial > s->max)
		s->max = serial;
	return hole;
}

/* Where the part of @s that a commit does not count begins: past its
 * highest serial when every hole counts (!@settled), else SERIAL_SLACK
 * below it. */
static uint64_t
seq_from(const struct serials *s, int settled)
{
	if (!settled)
		return s->max + 1;
	return s->max > s->min + SERIAL_SLACK ? s->max - SERIAL_SLACK : s->min;
}

/* The gaps of one sequence; @settled: only the holes SERIAL_SLACK below
 * its highest serial. */
static uint64_t
seq_total(const struct serials *s, int settled)
{
	if (s->bits == NULL || !s->started)
		return s->gaps;
	return s->gaps + serials_zeros(s, s->min, seq_from(s, settled));
}

static size_t
node_hash(const char *name, size_t len)
{
	return (size_t)util_hash(name, len, 0);
}

/* The slot of node @name in s->slot: its own, or the empty one. */
static size_t
node_slot(const struct serials *s, const char *name, size_t len)
{
	size_t i = node_hash(name, len) & (s->nslot - 1);

	while (s->slot[i] != 0) {
		const struct serials_node *n = &s->nodes[s->slot[i] - 1];

		if (n->len == len && memcmp(n->name, name, len) == 0)
			break;
		i = (i + 1) & (s->nslot - 1);
	}
	return i;
}

/* Room for one more node in the index (at most half full). */
static int
node_index_grow(struct serials *s)
{
	size_t nslot, *slot;

	if (2 * (s->nnodes + 1) <= s->nslot)
		return 0;
	nslot = s->nslot ? s->nslot * 2 : 64;
	if ((slot = calloc(nslot, sizeof(*slot))) == NULL)
		return -ENOMEM;
	free(s->slot);
	s->slot = slot;
	s->nslot = nslot;
	for (size_t k = 0; k < s->nnodes; k++)
		s->slot[node_slot(s, s->nodes[k].name, s->nodes[k].len)] = k + 1;
	return 0;
}

/* The node @name (@len bytes), made on its first serial, with a window
 * while SERIALS_NODES_MAX nodes have none; NULL out of memory. */
static struct serials_node *
node_get(struct serials *s, const char *name, size_t len)
{
	struct serials_node *n;
	size_t i;

	if (len > PGSC_NODE_MAX)
		len = PGSC_NODE_MAX;    /* as decode.c cuts it */
	if (s->last < s->nnodes && s->nodes[s->last].len == len &&
	    memcmp(s->nodes[s->last].name, name, len) == 0)
		return &s->nodes[s->last];
	if (node_index_grow(s) < 0)
		return NULL;
	i = node_slot(s, name, len);
	if (s->slot[i] != 0) {
		s->last = s->slot[i] - 1;
		return &s->nodes[s->last];
	}
	if (util_grow_array(&s->nodes, &s->capnodes, s->nnodes,
			    sizeof(*s->nodes), 16) < 0)
		return NULL;
	n = &s->nodes[s->nnodes];
	memset(n, 0, sizeof(*n));
	if ((n->name = malloc(len ? len : 1)) == NULL)
		return NULL;
	memcpy(n->name, name, len);
	n->len = len;
	n->seq.window = SERIAL_NODE_WINDOW;
	if (s->nwindows < SERIALS_NODES_MAX) {
		if ((n->seq.bits = calloc(SERIAL_NODE_WINDOW / 8, 1)) == NULL) {
			free(n->name);
			return NULL;
		}
		s->nwindows++;
	}
	s->slot[i] = ++s->nnodes;
	s->last = s->nnodes - 1;
	return n;
}

/* The sequence of node @name, NULL past the bound or out of memory
 * (a node past the bound counts the record as untracked). */
static struct serials *
node_seq(struct serials *s, const char *name, size_t len)
{
	struct serials_node *n = node_get(s, name, len);

	if (n == NULL)
		return NULL;
	if (n->seq.bits == NULL) {
		n->seq.untracked++;
		return NULL;
	}
	return &n->seq;
}

/**
 * Mark @serial of node @node (@nlen bytes, decode_node(); NULL: the local
 * host).  Accounting is off while @s->bits is NULL.  Returns the serials
 * missing before it when it is its sequence's first of a file (see
 * seq_mark()), else 0.
 */
uint64_t
serials_mark(struct serials *s, uint64_t serial, const char *node,
	     size_t nlen)
{
	if (s->bits == NULL)
		return 0;
	if (node == NULL)
		return seq_mark(s, serial);
	if ((s = node_seq(s, node, nlen)) != NULL)
		return seq_mark(s, serial);
	return 0;
}

/* A new file of an import begins: the next serial of each sequence is
 * its first in that file (seq_mark()). */
void
serials_file(struct serials *s)
{
	s->boundary = 1;
	for (size_t i = 0; i < s->nnodes; i++)
		s->nodes[i].seq.boundary = 1;
}

/* The gaps of every sequence; with @settled, only those whose serials
 * cannot come any more (a running round's commit). */
uint64_t
serials_gaps(const struct serials *s, int settled)
{
	uint64_t t = seq_total(s, settled);

	for (size_t i = 0; i < s->nnodes; i++)
		t += seq_total(&s->nodes[i].seq, settled);
	return t;
}

/* The records of nodes past the bound, whose serials no sequence took. */
uint64_t
serials_untracked(const struct serials *s)
{
	uint64_t t = 0;

	for (size_t i = 0; i < s->nnodes; i++)
		t += s->nodes[i].seq.untracked;
	return t;
}

/**
 * Each sequence's loss to @cb: the local host's first ("" when it started
 * or has a base), then every node in the order first seen, with the base
 * serials_base() gave it added; @settled as serials_gaps().  Returns 0 or
 * the first non-zero @cb returned.
 */
int
serials_each_node(const struct serials *s, int settled,
		  int (*cb)(void *arg, const char *name, size_t len,
			    uint64_t gaps, uint64_t untracked),
		  void *arg)
{
	int rc = 0;

	if (s->started || s->base_gaps || s->base_untracked)
		rc = cb(arg, "", 0, s->base_gaps + seq_total(s, settled),
			s->base_untracked);
	for (size_t i = 0; rc == 0 && i < s->nnodes; i++) {
		const struct serials *q = &s->nodes[i].seq;

		rc = cb(arg, s->nodes[i].name, s->nodes[i].len,
			q->base_gaps + seq_total(q, settled),
			q->base_untracked + q->untracked);
	}
	return rc;
}

/* What a continued round's earlier runs committed for node @name (@len
 * bytes, 0 the local host): added to its figures by serials_each_node(),
 * not by serials_gaps() (the round keeps its own base). */
int
serials_base(struct serials *s, const char *name, size_t len, uint64_t gaps,
	     uint64_t untracked)
{
	struct serials_node *n;

	if (len == 0) {
		s->base_gaps = gaps;
		s->base_untracked = untracked;
		return 0;
	}
	if ((n = node_get(s, name, len)) == NULL)
		return -ENOMEM;
	n->seq.base_gaps = gaps;
	n->seq.base_untracked = untracked;
	return 0;
}

/*
 * The stored state (serials_save()), version 1, integers little-endian:
 *   u8 version (1)
 *   per sequence: u8 name length (0: the local host), the name,
 *                 u64 epoch, u64 from, u64 max,
 *                 ceil((max + 1 - from) / 8) bytes: bit k set when serial
 *                 from + k was read (none when from = max + 1)
 * Serials below from were counted (their holes are in the round's gaps),
 * so the next run ignores them; those from from on are its own.
 */
#define SAVE_VERSION 1
#define SAVE_SPAN_MAX (SERIAL_SLACK + 1)

static void
put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t
get_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* The state of one started sequence, at @out: its length. */
static size_t
seq_save(const struct serials *s, const char *name, size_t nlen,
	 int settled, uint8_t *out)
{
	uint64_t from = seq_from(s, settled), span;
	size_t n = 0;

	out[n++] = (uint8_t)nlen;
	memcpy(out + n, name, nlen);
	n += nlen;
	put_u64(out + n, s->epoch);
	put_u64(out + n + 8, from);
	put_u64(out + n + 16, s->max);
	n += 24;
	span = s->max + 1 - from;
	memset(out + n, 0, (span + 7) / 8);
	for (uint64_t k = 0; k < span; k++) {
		uint64_t i = from + k - s->base;

		if (s->bits[i / 8] & (1u << (i % 8)))
			out[n + k / 8] |= (uint8_t)(1u << (k % 8));
	}
	return n + (size_t)((span + 7) / 8);
}

/**
 * The state of every started sequence of @s, as a round commits it
 * (@settled: a running round's commit, see serials_gaps()), in a buffer
 * the caller frees: 0 and *@out NULL when there is none, the length, or
 * -ENOMEM.
 */
ssize_t
serials_save(const struct serials *s, int settled, uint8_t **out)
{
	size_t cap = 1, n = 1;
	uint8_t *b;

	*out = NULL;
	if (s->bits == NULL)
		return 0;
	/* a sequence: at most 1 + 255 + 24 + SAVE_SPAN_MAX / 8 + 1 */
	cap += (1 + s->nwindows) * (1 + PGSC_NODE_MAX + 24 + SAVE_SPAN_MAX / 8 + 1);
	b = malloc(cap);
	if (b == NULL)
		return -ENOMEM;
	b[0] = SAVE_VERSION;
	if (s->started)
		n += seq_save(s, "", 0, settled, b + n);
	for (size_t i = 0; i < s->nnodes; i++)
		if (s->nodes[i].seq.started && s->nodes[i].seq.bits != NULL)
			n += seq_save(&s->nodes[i].seq, s->nodes[i].name,
				      s->nodes[i].len, settled, b + n);
	if (n == 1) {
		free(b);
		return 0;
	}
	*out = b;
	return (ssize_t)n;
}

/* Start @s at a stored state: serials below @from ignored, those from
 * @from to @max read as @bits says. */
static void
seq_load(struct serials *s, uint64_t epoch, uint64_t from, uint64_t max,
	 const uint8_t *bits)
{
	uint64_t span = max + 1 - from;

	memset(s->bits, 0, seq_window(s) / 8);
	s->epoch = epoch;
	s->base = from > seq_window(s) / 4 ? from - seq_window(s) / 4 : 0;
	s->first = s->min = from;
	s->max = max;
	s->gaps = 0;
	s->started = 1;
	for (uint64_t k = 0; k < span; k++) {
		if (bits[k / 8] & (1u << (k % 8))) {
			uint64_t i = from + k - s->base;

			s->bits[i / 8] |= (uint8_t)(1u << (i % 8));
		}
	}
}

/* One sequence of a stored state, as entry_at() reads it. */
struct entry {
	const char *name;           /* not terminated; NULL: the local host */
	size_t nlen;
	uint64_t epoch, from, max;
	const uint8_t *bits;
};

/* The sequence at @n of the state @buf (@len bytes) into @e: its
 * length, or 0 when it is not one. */
static size_t
entry_at(const uint8_t *buf, size_t len, size_t n, struct entry *e)
{
	const uint8_t *p;
	uint64_t span;

	e->nlen = buf[n];
	if (len - n < 1 + e->nlen + 24)
		return 0;
	e->name = e->nlen > 0 ? (const char *)buf + n + 1 : NULL;
	p = buf + n + 1 + e->nlen;
	e->epoch = get_u64(p);
	e->from = get_u64(p + 8);
	e->max = get_u64(p + 16);
	e->bits = p + 24;
	if (e->max == UINT64_MAX || e->from > e->max + 1 ||
	    e->epoch % SERIAL_WRAP != 0)
		return 0;
	span = e->max + 1 - e->from;
	if (span > SAVE_SPAN_MAX || len - n - 1 - e->nlen - 24 < (span + 7) / 8)
		return 0;
	return 1 + e->nlen + 24 + (size_t)((span + 7) / 8);
}

/**
 * Start the sequences of @s that have not started at the state @buf
 * (@len bytes) that serials_save() made: a run that reads on where the
 * one that committed it stopped.  Sequences already started keep their
 * own.  Returns 0, -EINVAL when @buf is not such a state (nothing is
 * taken from it), or -ENOMEM.
 */
int
serials_load(struct serials *s, const uint8_t *buf, size_t len)
{
	struct entry e;
	size_t n, k;

	if (s->bits == NULL)
		return 0;
	if (len < 1 || buf[0] != SAVE_VERSION)
		return -EINVAL;
	/* check it all before taking any of it */
	for (n = 1; n < len; n += k)
		if ((k = entry_at(buf, len, n, &e)) == 0)
			return -EINVAL;
	for (n = 1; n < len; n += k) {
		struct serials *q = s;

		k = entry_at(buf, len, n, &e);
		if (e.name != NULL) {
			struct serials_node *nd = node_get(s, e.name, e.nlen);

			if (nd == NULL)
				return -ENOMEM;
			q = nd->seq.bits != NULL ? &nd->seq : NULL;
		}
		if (q != NULL && !q->started)
			seq_load(q, e.epoch, e.from, e.max, e.bits);
	}
	return 0;
}

void
serials_free(struct serials *s)
{
	for (size_t i = 0; i < s->nnodes; i++) {
		free(s->nodes[i].seq.bits);
		free(s->nodes[i].name);
	}
	free(s->nodes);
	free(s->slot);
	free(s->bits);
	s->nodes = NULL;
	s->slot = NULL;
	s->bits = NULL;
	s->nnodes = s->capnodes = s->nslot = s->nwindows = 0;
}
