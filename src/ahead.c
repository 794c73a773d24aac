/* SPDX-License-Identifier: PostgreSQL */
/* ahead.c - an import's file read, and its SECCOMP lines decoded, on a
 * second thread ahead of the feed. */
/*
 * An import is one reader: the process tree, the serials and the store
 * take the records in the log's order.  About half of its time was the
 * SECCOMP line's decode (docs/internals.md, "Where an import's time
 * goes"), which needs nothing but the line.  So while the import's thread
 * feeds piece k, this thread reads piece k + 1 (up to AHEAD_N pieces of
 * AHEAD_PIECE bytes ahead) and decodes its SECCOMP lines into slots.
 * The feed splits the piece into lines as before, and for a whole line of
 * the piece takes the slot at that offset instead of decoding the line
 * (ahead_take()); anything the thread did not decode (the first line of a
 * piece when it continues the previous one, the last one, a piece with a
 * NUL byte, a line the decode refused, any other record type) the feed
 * reads itself as before.  What is stored is the same either way: the
 * slot holds what decode_line_cache() gave, and the feed takes it only
 * for the line at the same offset of the same bytes.
 *
 * The file is the thread's from ahead_start() to ahead_stop(): the import
 * asks for nothing else of it in between.  The thread has its own decode
 * cache, and syscall_names.c keeps a cache per thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "ahead.h"
#include "syscalls.h"

/* pieces read ahead, the one being fed included, and their size */
#define AHEAD_N 4
#define AHEAD_PIECE (64 * 1024)
/* the share of the SECCOMP lines the thread decodes is in SHARE_MAXths */
#define SHARE_MAX 16
/* polls before a wait_for() sleeps */
#define SPIN 2000

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ __volatile__("yield" ::: "memory")
#else
#define cpu_relax() ((void)0)
#endif

/*
 * A decoded SECCOMP line.  The record is copied in three parts, the
 * strings aside (a record is 5.5 KiB, a line about 300 bytes): its fields
 * before node[], those from pid to comm[], and argc.
 */
#define HEAD_LEN offsetof(struct pgsc_record, node)
#define MID_OFF offsetof(struct pgsc_record, pid)
#define MID_LEN (offsetof(struct pgsc_record, comm) - MID_OFF)

_Static_assert(offsetof(struct pgsc_record, node) + PGSC_NODE_MAX + 1 <=
	       offsetof(struct pgsc_record, pid), "node[] before pid");
_Static_assert(offsetof(struct pgsc_record, comm) <
	       offsetof(struct pgsc_record, exe), "comm[] before exe[]");
_Static_assert(offsetof(struct pgsc_record, exe) <
	       offsetof(struct pgsc_record, title), "exe[] before title[]");

struct slot {
	uint32_t off, len;          /* the line in its piece, to its newline */
	uint32_t str;               /* node, comm, exe in the arena */
	uint16_t node_len, comm_len, exe_len;
	int argc;
	unsigned char head[HEAD_LEN];
	unsigned char mid[MID_LEN];
};

struct dec {
	struct decode_cache dc;
	struct pgsc_record rec;
};

/*
 * A piece.  The thread fills one while the feed reads another: each
 * starts on a cache line of its own, and the feed's two cursors are on
 * another.  When they shared lines with the next piece's counts, which
 * the thread bumps line by line, a sixth of the feed's time went to
 * waiting for those lines to come back from the thread's CPU.
 */
#define CACHE_LINE 64
struct ahead_chunk {
	_Alignas(CACHE_LINE) char *buf; /* the thread's pieces: read into */
	ssize_t n;                  /* logsrc_read()'s answer */
	char *why;
	struct slot *slots;
	size_t nslots, cap;
	char *arena;
	size_t arena_len, arena_cap;
	uint32_t *nl;               /* every newline's offset, when indexed */
	size_t nnl, nl_cap;
	int indexed;                /* no NUL byte, every newline in nl[] */
	int plain;                  /* indexed, and no \x1d byte */
	struct dec *own;            /* ahead_chunk_new()'s */
	/* the feed's: the next slot and newline to look at */
	_Alignas(CACHE_LINE) size_t cur, nl_cur;
};

struct ahead {
	pthread_t th;
	pthread_mutex_t mu;         /* for ls, gen, busy, quit, and sleeping */
	pthread_cond_t cv;
	size_t size;                /* bytes a read asks for */
	struct logsrc *ls;          /* the file to read, NULL: none */
	unsigned gen;               /* ahead_start()s */
	int busy;                   /* the thread is reading ls */
	int quit;
	atomic_size_t head, tail;   /* pieces read, pieces consumed */
	atomic_int stop;            /* ahead_stop(): let go of ls */
	atomic_int sleepers;        /* in wait_for()'s sleep */
	atomic_int starved;         /* the feed found no piece read */
	unsigned share;             /* of SHARE_MAX SECCOMP lines, those
				     * the thread decodes (the thread's) */
	struct ahead_chunk ck[AHEAD_N];
	struct dec dec;             /* the thread's */
};

/* Zeroed memory for @size bytes, aligned to a cache line (struct ahead,
 * struct ahead_chunk). */
static void *
zalloc_lines(size_t size)
{
	void *p;

	size = (size + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
	p = aligned_alloc(CACHE_LINE, size);
	if (p != NULL)
		memset(p, 0, size);
	return p;
}

static void
chunk_reset(struct ahead_chunk *ck)
{
	ck->nslots = 0;
	ck->cur = 0;
	ck->arena_len = 0;
	ck->nnl = ck->nl_cur = 0;
	ck->indexed = 0;
	free(ck->why);
	ck->why = NULL;
	ck->n = 0;
}

static int
put_str(struct ahead_chunk *ck, const char *s, size_t n)
{
	if (n == 0)
		return 0;
	if (util_grow(&ck->arena, &ck->arena_cap, ck->arena_len + n, 16384) < 0)
		return -1;
	memcpy(ck->arena + ck->arena_len, s, n);
	ck->arena_len += n;
	return 0;
}

/* Keep @rec, decoded from the line at @off: 0, or -1 out of memory. */
static int
slot_put(struct ahead_chunk *ck, size_t off, size_t len,
	 const struct pgsc_record *rec)
{
	struct slot *s;
	size_t nl = strlen(rec->node), cl = strlen(rec->comm);
	size_t el = strlen(rec->exe);

	if (off > UINT32_MAX || len > UINT32_MAX || nl > UINT16_MAX ||
	    cl > UINT16_MAX || el > UINT16_MAX ||
	    ck->arena_len + nl + cl + el > UINT32_MAX)
		return -1;
	if (util_grow_array(&ck->slots, &ck->cap, ck->nslots, sizeof(*s),
			    512) < 0)
		return -1;
	s = &ck->slots[ck->nslots];
	s->off = (uint32_t)off;
	s->len = (uint32_t)len;
	s->str = (uint32_t)ck->arena_len;
	if (put_str(ck, rec->node, nl) < 0 || put_str(ck, rec->comm, cl) < 0 ||
	    put_str(ck, rec->exe, el) < 0) {
		ck->arena_len = s->str;
		return -1;
	}
	s->node_len = (uint16_t)nl;
	s->comm_len = (uint16_t)cl;
	s->exe_len = (uint16_t)el;
	s->argc = rec->argc;
	memcpy(s->head, rec, HEAD_LEN);
	memcpy(s->mid, (const char *)rec + MID_OFF, MID_LEN);
	ck->nslots++;
	return 0;
}

/* Decode the SECCOMP lines of [@data, @data + @n) that end in it, as the
 * feed's do_line() would hand them over. */
static void
chunk_decode(struct ahead_chunk *ck, struct dec *d, const char *data,
	     size_t n, unsigned share)
{
	const char *p = data, *end = data + n;
	unsigned k = 0;

	ck->nslots = 0;
	ck->cur = 0;
	ck->arena_len = 0;
	ck->nnl = ck->nl_cur = 0;
	ck->indexed = 0;
	/* the feed reads a piece with a NUL byte line by line */
	if (n > UINT32_MAX || memchr(data, '\0', n) != NULL)
		return;
	ck->indexed = 1;
	/* a raw log has no enriched tail: not looked for line by line (a
	 * twentieth of the thread's instructions) */
	ck->plain = memchr(data, '\x1d', n) == NULL;
	d->dc.plain = ck->plain;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len, msg;

		if (nl == NULL)
			break;  /* the last line goes on in the next piece */
		if (ck->indexed &&
		    util_grow_array(&ck->nl, &ck->nl_cap, ck->nnl,
				    sizeof(*ck->nl), 1024) == 0)
			ck->nl[ck->nnl++] = (uint32_t)(nl - data);
		else
			ck->indexed = 0;
		len = (size_t)(nl - p);
		if (len > 0 && p[len - 1] == '\r')
			len--;
		if (len > 0 && len <= PGSC_LINE_MAX &&
		    (msg = decode_is_seccomp(p, len)) > 0 &&
		    (k++ % SHARE_MAX) < share &&
		    decode_line_cache(p, len, msg, &d->rec, &d->dc) == 0 &&
		    decode_auparse_reads(p, len, msg) &&
		    d->rec.title[0] == '\0' &&
		    slot_put(ck, (size_t)(p - data), (size_t)(nl - p),
			     &d->rec) < 0) {
			/* out of memory: the feed decodes the rest, and
			 * finds the newlines not indexed yet itself */
			ck->indexed = 0;
			return;
		}
		p = nl + 1;
	}
}

int
ahead_clean(const struct ahead_chunk *ck)
{
	return ck->indexed;
}

int
ahead_plain(const struct ahead_chunk *ck)
{
	return ck->indexed && ck->plain;
}

size_t
ahead_newline(struct ahead_chunk *ck, size_t off)
{
	while (ck->nl_cur < ck->nnl && ck->nl[ck->nl_cur] < off)
		ck->nl_cur++;
	return ck->nl_cur < ck->nnl ? ck->nl[ck->nl_cur] : SIZE_MAX;
}

int
ahead_take(struct ahead_chunk *ck, size_t off, size_t len,
	   struct pgsc_record *rec)
{
	const struct slot *s;
	const char *str;

	while (ck->cur < ck->nslots && ck->slots[ck->cur].off < off)
		ck->cur++;
	if (ck->cur == ck->nslots)
		return 0;
	s = &ck->slots[ck->cur];
	if (s->off != off || s->len != len)
		return 0;
	ck->cur++;
	memcpy(rec, s->head, HEAD_LEN);
	memcpy((char *)rec + MID_OFF, s->mid, MID_LEN);
	rec->node[0] = rec->comm[0] = rec->exe[0] = rec->title[0] = '\0';
	rec->argc = s->argc;
	if (ck->arena == NULL) /* every string empty */
		return 1;
	str = ck->arena + s->str;
	memcpy(rec->node, str, s->node_len);
	rec->node[s->node_len] = '\0';
	str += s->node_len;
	memcpy(rec->comm, str, s->comm_len);
	rec->comm[s->comm_len] = '\0';
	str += s->comm_len;
	memcpy(rec->exe, str, s->exe_len);
	rec->exe[s->exe_len] = '\0';
	return 1;
}

/* Wait for @ready: a short spin first (a handover costs a wake-up across
 * CPUs otherwise, which on a virtual machine is tens of microseconds),
 * then asleep. */
static void
wait_for(struct ahead *a, int (*ready)(struct ahead *))
{
	for (int i = 0; i < SPIN; i++) {
		if (ready(a))
			return;
		cpu_relax();
	}
	pthread_mutex_lock(&a->mu);
	atomic_fetch_add(&a->sleepers, 1);
	while (!ready(a))
		pthread_cond_wait(&a->cv, &a->mu);
	atomic_fetch_sub(&a->sleepers, 1);
	pthread_mutex_unlock(&a->mu);
}

/* After a change some wait_for() may be waiting for. */
static void
wake(struct ahead *a)
{
	if (atomic_load(&a->sleepers) == 0)
		return;
	pthread_mutex_lock(&a->mu);
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

static int
room(struct ahead *a)
{
	return atomic_load(&a->stop) ||
	       atomic_load(&a->head) - atomic_load(&a->tail) < AHEAD_N;
}

static int
piece(struct ahead *a)
{
	return atomic_load(&a->head) != atomic_load(&a->tail);
}

/* Read @ls to its end, or until ahead_stop(). */
static void
read_file(struct ahead *a, struct logsrc *ls)
{
	for (;;) {
		struct ahead_chunk *ck;
		char *why = NULL;
		size_t h;
		ssize_t n;
		int full = !room(a);

		wait_for(a, room);
		if (atomic_load(&a->stop))
			return;
		/* the feed waited for this thread: it decodes more itself;
		 * this thread waited for the feed: it decodes more here */
		if (full && a->share < SHARE_MAX)
			a->share++;
		else if (!full && atomic_exchange(&a->starved, 0) > 0 &&
			 a->share > 0)
			a->share--;
		h = atomic_load(&a->head);
		ck = &a->ck[h % AHEAD_N];
		n = logsrc_read(ls, ck->buf, a->size, &why);
		if (n > 0)
			chunk_decode(ck, &a->dec, ck->buf, (size_t)n, a->share);
		else
			ck->nslots = 0;
		ck->n = n;
		ck->why = why;
		atomic_store(&a->head, h + 1);
		wake(a);
		if (n <= 0)
			return;
	}
}

static void *
ahead_main(void *arg)
{
	struct ahead *a = arg;
	unsigned done = 0;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		struct logsrc *ls;

		while (!a->quit && (a->ls == NULL || a->gen == done))
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->quit)
			break;
		ls = a->ls;
		done = a->gen;
		a->busy = 1;
		pthread_mutex_unlock(&a->mu);
		read_file(a, ls);
		pthread_mutex_lock(&a->mu);
		a->busy = 0;
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	/* the names this thread looked up (syscall_names.c) */
	syscall_names_reset_cache();
	return NULL;
}

static void
ahead_release(struct ahead *a)
{
	for (size_t i = 0; i < AHEAD_N; i++) {
		chunk_reset(&a->ck[i]);
		free(a->ck[i].buf);
		free(a->ck[i].slots);
		free(a->ck[i].arena);
		free(a->ck[i].nl);
	}
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	free(a);
}

/* CPUs online.  Not sched_getaffinity(): pgsc-collect's self-filter
 * (examples/pgsc-self.guc) has no room for it, and under
 * --self-filter-action kill the call would end the import; this reads
 * /sys (openat, read, close). */
static long
cpus(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

int
ahead_new(size_t chunk, struct ahead **out)
{
	struct ahead *a;
	int rc;

	*out = NULL;
	/* one CPU: the thread would only take turns with the feed */
	if (cpus() < 2)
		return -EOPNOTSUPP;
	a = zalloc_lines(sizeof(*a));
	if (a == NULL)
		return -ENOMEM;
	/* pieces that stay in the two CPUs' caches: at 128 KiB the four
	 * filled a CPU's L2 and the kernel's copy into them took four times
	 * as long */
	a->size = chunk < AHEAD_PIECE ? chunk : AHEAD_PIECE;
	a->share = SHARE_MAX;
	if ((rc = pthread_mutex_init(&a->mu, NULL)) != 0) {
		free(a);
		return -rc;
	}
	if ((rc = pthread_cond_init(&a->cv, NULL)) != 0) {
		pthread_mutex_destroy(&a->mu);
		free(a);
		return -rc;
	}
	for (size_t i = 0; i < AHEAD_N; i++) {
		a->ck[i].buf = malloc(a->size);
		if (a->ck[i].buf == NULL) {
			ahead_release(a);
			return -ENOMEM;
		}
	}
	if ((rc = pthread_create(&a->th, NULL, ahead_main, a)) != 0) {
		ahead_release(a);
		return -rc;
	}
	*out = a;
	return 0;
}

void
ahead_stop(struct ahead *a)
{
	atomic_store(&a->stop, 1);
	pthread_mutex_lock(&a->mu);
	pthread_cond_broadcast(&a->cv);
	while (a->busy)
		pthread_cond_wait(&a->cv, &a->mu);
	a->ls = NULL;
	for (size_t i = 0; i < AHEAD_N; i++)
		chunk_reset(&a->ck[i]);
	atomic_store(&a->head, 0);
	atomic_store(&a->tail, 0);
	atomic_store(&a->stop, 0);
	pthread_mutex_unlock(&a->mu);
}

void
ahead_free(struct ahead *a)
{
	if (a == NULL)
		return;
	ahead_stop(a);
	pthread_mutex_lock(&a->mu);
	a->quit = 1;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->th, NULL);
	ahead_release(a);
}

void
ahead_start(struct ahead *a, struct logsrc *ls)
{
	pthread_mutex_lock(&a->mu);
	a->ls = ls;
	a->gen++;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

ssize_t
ahead_next(struct ahead *a, const char **data, struct ahead_chunk **ck,
	   char **why)
{
	struct ahead_chunk *c;

	if (!piece(a))
		atomic_fetch_add(&a->starved, 1);
	wait_for(a, piece);
	c = &a->ck[atomic_load(&a->tail) % AHEAD_N];
	*data = c->buf;
	*ck = c;
	if (c->n < 0) {
		*why = c->why;
		c->why = NULL;
	}
	return c->n;
}

void
ahead_done(struct ahead *a)
{
	size_t t = atomic_load(&a->tail);

	chunk_reset(&a->ck[t % AHEAD_N]);
	atomic_store(&a->tail, t + 1);
	wake(a);
}

struct ahead_chunk *
ahead_chunk_new(void)
{
	struct ahead_chunk *ck = zalloc_lines(sizeof(*ck));

	if (ck == NULL)
		return NULL;
	ck->own = calloc(1, sizeof(*ck->own));
	if (ck->own == NULL) {
		free(ck);
		return NULL;
	}
	return ck;
}

void
ahead_chunk_free(struct ahead_chunk *ck)
{
	if (ck == NULL)
		return;
	free(ck->slots);
	free(ck->arena);
	free(ck->nl);
	free(ck->why);
	free(ck->own);
	free(ck);
}

void
ahead_chunk_decode(struct ahead_chunk *ck, const char *data, size_t n)
{
	chunk_decode(ck, ck->own, data, n, SHARE_MAX);
}
