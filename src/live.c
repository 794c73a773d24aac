/* SPDX-License-Identifier: PostgreSQL */
/* live.c - pgsc_live(): follow the audit stream as a daemon or around a command. */
/*
 * Three sources feed the same path as an import (feed -> process tree):
 *   plugin      auditd's dispatcher on stdin (plugins.d, format = string);
 *   file:PATH   audit.log followed across rotations, by inode;
 *   netlink     the kernel itself, pgsc registered as the audit daemon.
 *
 * Every commit replaces the round's aggregates with a snapshot of the
 * process tree (plus what an earlier run of the same round committed) and
 * stores the file position in the same transaction.  After kill -9 the next
 * start continues the unfinished round from that position: nothing is
 * lost, nothing is counted twice (docs/live.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pgsc-int.h"

#define BUF_SIZE (1024 * 1024)
#define SERIAL_WINDOW (1u << 20)
#define DRAIN_TIMEOUT 30.0
#define MAX_ROTATED 99
/* How long the end of a round waits for the kernel's last status figures
 * (the reply is normally there in milliseconds; see kreq below). */
#define FIGURES_TIMEOUT 60.0
/* A thread that lost its wait for the kernel is left behind after this. */
#define KREQ_JOIN_SECS 5
/* Exited processes stay in memory this long (stream time) after their
 * exit, for late fork records and pid reuse: well above proctree.c's
 * SETTLE_SECS. */
#define PRUNE_KEEP_SECS 60.0
/*
 * After a short read from auditd, let its socket fill this long before
 * reading again.  Measured (docs/live.md, 200k-record storm, medians of 3
 * interleaved runs): 1 and 2 ms alike, 5 ms 30 % slower, 10 ms 50 %: the
 * socket auditd writes to (a socketpair, so F_SETPIPE_SZ does not apply)
 * fills, and auditd's dispatcher blocks.
 */
#define PLUGIN_BATCH_MS 2

/* The rules of examples/pgsc.rules (tests/golden checks they agree). */
static const char *const pgsc_rules[] = {
	"-a always,exit -F arch=b64 -S clone,fork,vfork,clone3 -F success=1 -k pgsc",
	"-a always,exit -F arch=b32 -S clone,fork,vfork,clone3 -F success=1 -k pgsc",
	"-a always,exit -F arch=b64 -S execve,execveat -k pgsc",
	"-a always,exit -F arch=b32 -S execve,execveat -k pgsc",
	"-a always,exit -F arch=b64 -S exit_group -k pgsc",
	"-a always,exit -F arch=b32 -S exit_group -k pgsc",
	NULL,
};

void
pgsc_print_rules(FILE *out)
{
	for (const char *const *r = pgsc_rules; *r != NULL; r++)
		fprintf(out, "%s\n", *r);
}

/* ---------------------------------------------------------------- */
/* Serial gaps: kernel serials of a stream should leave no holes.     */

struct serials {
	uint8_t *bits;
	uint64_t base, min, max;
	int started;
	uint64_t gaps;
};

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

static void
serials_mark(struct serials *s, uint64_t serial)
{
	uint64_t i;

	if (s->bits == NULL)
		return;
	if (!s->started) {
		s->base = serial > SERIAL_WINDOW / 4 ? serial - SERIAL_WINDOW / 4 : 0;
		s->min = s->max = serial;
		s->started = 1;
	}
	if (serial < s->base)
		return; /* far too late to place: ignore */
	if (serial >= s->base + SERIAL_WINDOW) {
		/* slide: count the holes we leave behind, shift the rest */
		uint64_t nb = serial - SERIAL_WINDOW / 2, keep;

		if (nb > s->max)
			nb = s->max + 1;
		if (s->min < nb)
			s->gaps += serials_zeros(s, s->min, nb);
		if (nb - s->base < SERIAL_WINDOW) {
			uint64_t shift = nb - s->base;
			uint8_t *nbits = calloc(SERIAL_WINDOW / 8, 1);

			if (nbits == NULL)
				return;
			keep = SERIAL_WINDOW - shift;
			for (uint64_t k = 0; k < keep; k++) {
				uint64_t src = k + shift;

				if (s->bits[src / 8] & (1u << (src % 8)))
					nbits[k / 8] |= (uint8_t)(1u << (k % 8));
			}
			free(s->bits);
			s->bits = nbits;
		} else {
			memset(s->bits, 0, SERIAL_WINDOW / 8);
		}
		s->base = nb;
		if (s->min < nb)
			s->min = nb;
		if (serial >= s->base + SERIAL_WINDOW)
			return;
	}
	i = serial - s->base;
	s->bits[i / 8] |= (uint8_t)(1u << (i % 8));
	if (serial < s->min)
		s->min = serial;
	if (serial > s->max)
		s->max = serial;
}

static uint64_t
serials_total(const struct serials *s)
{
	if (s->bits == NULL || !s->started)
		return s->gaps;
	return s->gaps + serials_zeros(s, s->min, s->max + 1);
}

/* ---------------------------------------------------------------- */
/* file:PATH - follow audit.log across rotations                      */

struct tail {
	char *path;
	int fd;
	uint64_t inode;
	uint64_t read_off;          /* bytes read from fd */
	char fingerprint[24];       /* of the file behind fd, "" until known */
	/* Files to read next, oldest first, held open: auditd renames
	 * audit.log.K to .K+1 at every rotation, so a name read later may
	 * be another file by then. */
	int queue[MAX_ROTATED + 2];
	int nqueue;
	int final_read;             /* read the renamed file once more */
};

static void
fingerprint_of(int fd, char out[24])
{
	char buf[64 * 1024];
	ssize_t n = pread(fd, buf, sizeof(buf), 0);
	const char *nl;

	out[0] = '\0';
	if (n <= 0)
		return;
	nl = memchr(buf, '\n', (size_t)n);
	/* a first line of 64 KiB or more: its first 64 KiB, as an import
	 * identifies it (import.c, infile_open()) */
	if (nl == NULL && (size_t)n == sizeof(buf))
		nl = buf + sizeof(buf);
	if (nl == NULL)
		return;
	snprintf(out, 24, "%016llx",
		 (unsigned long long)util_hash(buf, (size_t)(nl - buf),
					       0x70677363));
}

static char *
rotated_name(const char *path, int k)
{
	char *s = NULL;

	if (k == 0)
		return strdup(path);
	if (asprintf(&s, "%s.%d", path, k) < 0)
		return NULL;
	return s;
}

/* Read @fd next (it is ours now), from @offset. */
static int
tail_use(struct tail *t, int fd, uint64_t offset)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0) {
		close(fd);
		return -errno;
	}
	if (t->fd >= 0)
		close(t->fd);
	t->fd = fd;
	t->inode = (uint64_t)sb.st_ino;
	t->read_off = offset;
	t->final_read = 0;
	fingerprint_of(fd, t->fingerprint);
	return 0;
}

static int
tail_switch(struct tail *t, const char *name, uint64_t offset)
{
	int fd = util_open_regular(name, NULL);

	if (fd < 0)
		return -errno;
	return tail_use(t, fd, offset);
}

/* Open @name now and read it after what is queued; missing is fine. */
static int
tail_queue(struct tail *t, const char *name)
{
	int fd;

	if (name == NULL)
		return -ENOMEM;
	if (t->nqueue >= (int)ARRAY_SIZE(t->queue))
		return 0;
	fd = util_open_regular(name, NULL);
	if (fd >= 0)
		t->queue[t->nqueue++] = fd;
	return 0;
}

static int
tail_next(struct tail *t)
{
	int fd = t->queue[0];

	memmove(t->queue, t->queue + 1,
		(size_t)(t->nqueue - 1) * sizeof(*t->queue));
	t->nqueue--;
	return tail_use(t, fd, 0);
}

/* ---------------------------------------------------------------- */
/* Requests to the kernel, off the read path                          */
/*
 * While the kernel's audit queue is over backlog_limit, audit_receive()
 * makes every sender of a request sleep (uninterruptibly) for up to
 * backlog_wait_time, the registered daemon included (kernel/audit.c,
 * "penalize the sender").  A collector that asked for the status figures
 * at each commit, or sent its drain marker, from its reading thread would
 * stop reading just when reading matters most; as the netlink daemon it
 * would keep the queue full itself until the wait ran out (240 s with the
 * usual 60000 jiffies).  So every request after the start goes through
 * this thread; the reading loop only looks at its answers.
 */
struct kreq {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	double interval;            /* periodic status reads, 0: none */
	int stop, orphan;
	int want_status;
	int want_marker, marker_done, marker_rc;
	char marker[64];
	struct audit_figures fig;   /* the latest status read */
	uint64_t nfig;              /* status reads done */
};

static void
kreq_unlock_free(struct kreq *k)
{
	pthread_mutex_unlock(&k->mu);
	pthread_cond_destroy(&k->cv);
	pthread_mutex_destroy(&k->mu);
	free(k);
}

static void *
kreq_main(void *arg)
{
	struct kreq *k = arg;

	pthread_mutex_lock(&k->mu);
	for (;;) {
		struct audit_figures f;
		char text[sizeof(k->marker)];
		int rc;

		while (!k->stop && !k->want_marker && !k->want_status) {
			struct timespec ts;

			if (k->interval <= 0) {
				pthread_cond_wait(&k->cv, &k->mu);
				continue;
			}
			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_sec += (time_t)k->interval;
			ts.tv_nsec += (long)((k->interval - (double)(time_t)k->interval) * 1e9);
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			if (pthread_cond_timedwait(&k->cv, &k->mu, &ts) == ETIMEDOUT)
				k->want_status = 1;
		}
		if (k->stop)
			break;
		if (k->want_marker) {
			memcpy(text, k->marker, sizeof(text));
			k->want_marker = 0;
			pthread_mutex_unlock(&k->mu);
			rc = audit_send_marker(text, NULL);
			pthread_mutex_lock(&k->mu);
			k->marker_rc = rc;
			k->marker_done = 1;
			continue;
		}
		k->want_status = 0;
		pthread_mutex_unlock(&k->mu);
		rc = audit_figures_get(&f, NULL);
		pthread_mutex_lock(&k->mu);
		if (rc == 0) {
			k->fig = f;
			k->nfig++;
		}
	}
	if (k->orphan) {
		kreq_unlock_free(k);
		return NULL;
	}
	pthread_mutex_unlock(&k->mu);
	return NULL;
}

/* Start the thread; call with the signals the loop handles blocked, so
 * that it inherits the mask and the signalfd gets them all. */
static int
kreq_start(double interval, struct kreq **out)
{
	pthread_condattr_t ca;
	struct kreq *k = calloc(1, sizeof(*k));
	int rc;

	if (k == NULL)
		return -ENOMEM;
	k->interval = interval;
	pthread_mutex_init(&k->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&k->cv, &ca);
	pthread_condattr_destroy(&ca);
	rc = pthread_create(&k->th, NULL, kreq_main, k);
	if (rc != 0) {
		pthread_mutex_lock(&k->mu);
		kreq_unlock_free(k);
		return -rc;
	}
	*out = k;
	return 0;
}

/*
 * Stop the thread.  One still asleep in the kernel after KREQ_JOIN_SECS is
 * left to finish on its own: it frees its state when it wakes.
 */
static void
kreq_stop(struct kreq *k)
{
	struct timespec ts;

	if (k == NULL)
		return;
	pthread_mutex_lock(&k->mu);
	k->stop = 1;
	pthread_cond_signal(&k->cv);
	pthread_mutex_unlock(&k->mu);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += KREQ_JOIN_SECS;
	if (pthread_timedjoin_np(k->th, NULL, &ts) == 0) {
		pthread_mutex_lock(&k->mu);
		kreq_unlock_free(k);
		return;
	}
	pthread_mutex_lock(&k->mu);
	k->orphan = 1;
	pthread_detach(k->th);
	pthread_mutex_unlock(&k->mu);
}

/* Ask for a status read; returns the count of reads done before it, so
 * that kreq_figures(k, that + 1, ...) tells when this one is in. */
static uint64_t
kreq_ask_status(struct kreq *k)
{
	uint64_t n;

	pthread_mutex_lock(&k->mu);
	n = k->nfig;
	k->want_status = 1;
	pthread_cond_signal(&k->cv);
	pthread_mutex_unlock(&k->mu);
	return n;
}

/* The latest figures if at least @min reads are done: 1, else 0. */
static int
kreq_figures(struct kreq *k, uint64_t min, struct audit_figures *f)
{
	int have;

	pthread_mutex_lock(&k->mu);
	have = k->nfig >= min && k->nfig > 0;
	if (have)
		*f = k->fig;
	pthread_mutex_unlock(&k->mu);
	return have;
}

static void
kreq_send_marker(struct kreq *k, const char *text)
{
	pthread_mutex_lock(&k->mu);
	snprintf(k->marker, sizeof(k->marker), "%s", text);
	k->want_marker = 1;
	k->marker_done = 0;
	pthread_cond_signal(&k->cv);
	pthread_mutex_unlock(&k->mu);
}

/* 1 and the result once the marker went out (or failed), else 0. */
static int
kreq_marker_done(struct kreq *k, int *rc)
{
	int done;

	pthread_mutex_lock(&k->mu);
	done = k->marker_done;
	*rc = k->marker_rc;
	pthread_mutex_unlock(&k->mu);
	return done;
}

/* ---------------------------------------------------------------- */

struct live {
	pgsc_store *st;
	const struct pgsc_live_opts *o;
	FILE *diag;
	int64_t round;
	struct proctree *tree;
	struct feed *feed;
	struct store_round r;        /* committed base + this run */
	uint64_t base_records, base_rejected, base_lines;
	struct role_agg *base;       /* aggregates committed by earlier runs */
	size_t nbase, capbase;
	struct strset base_roles;
	struct proc_count *open;     /* open counts of the last commit */
	size_t nopen, capopen;
	uint64_t rejects[PGSC_REJ__COUNT]; /* since the last commit */
	uint64_t run_records, run_lines0;
	struct serials ser;
	enum { SRC_FILE, SRC_PLUGIN, SRC_NETLINK } kind;
	const char *source;          /* as stored in rounds.source */
	struct tail tail;
	struct nlsrc *nl;
	struct kreq *kreq;
	uint64_t overruns;           /* netlink socket overruns seen */
	int have_figures;
	char marker[64];
	uint64_t nonce;              /* in the marker: unguessable, since any
				      * process can put text into the stream
				      * (comm, exe, titles), and a forged
				      * marker would end the drain early */
	int marker_seen;
	char *buf;
	char **cause;
};

static void
live_record(void *arg, const struct pgsc_record *rec)
{
	struct live *lv = arg;
	double t = (double)rec->sec + rec->msec / 1000.0;

	if (rec->type == PGSC_REC_SECCOMP) {
		lv->run_records++;
		if (lv->r.first_event == 0 || t < lv->r.first_event)
			lv->r.first_event = t;
		if (t > lv->r.last_event)
			lv->r.last_event = t;
	}
	proctree_record(lv->tree, rec);
}

static void
live_event_end(void *arg)
{
	struct live *lv = arg;

	proctree_event_end(lv->tree);
}

static void
live_serial(void *arg, uint64_t serial, int type_num)
{
	struct live *lv = arg;

	(void)type_num;
	serials_mark(&lv->ser, serial);
}

static void
live_reject(void *arg, int reason, const struct feed_loc *loc, uint64_t serial,
	    const char *text, size_t len)
{
	struct live *lv = arg;

	(void)text, (void)len;
	if (reason <= 0 || reason >= PGSC_REJ__COUNT)
		reason = PGSC_REJ_BAD_FIELD;
	lv->rejects[reason]++;
	if (!lv->o->quiet)
		fprintf(lv->diag, "pgsc: %s:%llu: serial %llu: rejected (%s)\n",
			loc->file, (unsigned long long)loc->line,
			(unsigned long long)serial, pgsc_reject_name(reason));
}

static const struct feed_ops live_ops = {
	.record = live_record,
	.reject = live_reject,
	.event_end = live_event_end,
	.serial = live_serial,
};

static int
base_add(void *arg, const struct role_agg *a)
{
	struct live *lv = arg;
	struct role_agg *n;

	if (lv->nbase == lv->capbase) {
		size_t cap = lv->capbase ? lv->capbase * 2 : 256;

		n = realloc(lv->base, cap * sizeof(*n));
		if (n == NULL)
			return -ENOMEM;
		lv->base = n;
		lv->capbase = cap;
	}
	n = &lv->base[lv->nbase];
	*n = *a;
	n->role = strset_intern(&lv->base_roles, a->role);
	n->example_exe = a->example_exe ? strdup(a->example_exe) : NULL;
	if (n->role == NULL)
		return -ENOMEM;
	lv->nbase++;
	return 0;
}

static int
open_add(void *arg, const struct proc_count *c)
{
	struct live *lv = arg;
	struct proc_count *n;

	if (lv->nopen == lv->capopen) {
		size_t cap = lv->capopen ? lv->capopen * 2 : 256;

		n = realloc(lv->open, cap * sizeof(*n));
		if (n == NULL)
			return -ENOMEM;
		lv->open = n;
		lv->capopen = cap;
	}
	n = &lv->open[lv->nopen];
	*n = *c;
	n->role = strset_intern(&lv->base_roles, c->role);
	n->node = c->node ? strset_intern(&lv->base_roles, c->node) : NULL;
	if (n->role == NULL || (c->node != NULL && n->node == NULL))
		return -ENOMEM;
	lv->nopen++;
	return 0;
}

/* Take counts given back to a process out of the committed base: the
 * next commit writes them again, under the role the process has then. */
static void
base_sub(struct live *lv, const struct proc_count *c)
{
	for (size_t i = 0; i < lv->nbase; i++) {
		struct role_agg *a = &lv->base[i];

		if (a->role != c->role || a->arch != c->arch || a->nr != c->nr)
			continue;
		a->count = a->count > c->count ? a->count - c->count : 0;
		return;
	}
}

static int
open_cmp(int64_t pid, double birth, const struct proc_count *c)
{
	if (pid != c->pid)
		return pid < c->pid ? -1 : 1;
	if (birth != c->birth)
		return birth < c->birth ? -1 : 1;
	return 0;
}

/*
 * A continued round: seed a process the last commit left open and give
 * it back its open counts (sorted by pid, birth), so that its role is
 * computed again (docs/robustness.md).
 */
static int
seed_cb(void *arg, const struct proc_info *p)
{
	struct live *lv = arg;
	size_t lo = 0, hi = lv->nopen;
	int rc = proctree_seed_open(lv->tree, p);

	if (rc < 0)
		return rc;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (open_cmp(p->pid, p->birth, &lv->open[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < lv->nopen && open_cmp(p->pid, p->birth, &lv->open[lo]) == 0;
	     lo++) {
		rc = proctree_seed_count(lv->tree, &lv->open[lo]);
		if (rc < 0)
			return rc;
		if (rc == 1)
			base_sub(lv, &lv->open[lo]);
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* Commit                                                             */

struct commit_ctx {
	struct store_batch *b;
	char **cause;
};

static int
commit_agg(void *arg, const struct role_agg *a)
{
	struct commit_ctx *c = arg;

	return store_batch_agg(c->b, a, c->cause);
}

static int
commit_proc(void *arg, const struct proc_info *p)
{
	struct commit_ctx *c = arg;

	return store_batch_proc(c->b, p, c->cause);
}

static int
commit_open(void *arg, const struct proc_count *p)
{
	struct commit_ctx *c = arg;

	return store_batch_open(c->b, p, c->cause);
}

/* Take the kernel's latest figures, as far as the request thread has
 * them: a commit never waits for the kernel. */
static void
update_figures(struct live *lv)
{
	struct audit_figures f;

	if (!lv->have_figures || lv->kreq == NULL ||
	    !kreq_figures(lv->kreq, 1, &f))
		return;
	lv->r.kernel_lost_end = f.lost;
	if (f.has_wait_actual)
		lv->r.backlog_wait_end = f.backlog_wait_time_actual;
}

static int
live_commit(struct live *lv, int finished)
{
	struct store_batch *b = NULL;
	struct commit_ctx c;
	char **cause = lv->cause;
	int rc;

	update_figures(lv);
	proctree_proc_titles(lv->tree);
	lv->r.records = lv->base_records + lv->run_records;
	lv->r.lines = lv->base_lines + (feed_lines(lv->feed) - lv->run_lines0);
	lv->r.serial_gaps = serials_total(&lv->ser);
	rc = store_begin(lv->st, cause);
	if (rc < 0)
		return rc;
	rc = store_round_clear_aggs(lv->st, lv->round, cause);
	if (rc == 0)
		rc = store_round_clear_open(lv->st, lv->round, cause);
	if (rc == 0)
		rc = store_batch_new(lv->st, lv->round, &b, cause);
	if (rc < 0)
		goto out;
	c.b = b;
	c.cause = cause;
	for (size_t i = 0; rc == 0 && i < lv->nbase; i++)
		rc = store_batch_agg(b, &lv->base[i], cause);
	if (rc == 0)
		rc = proctree_snapshot(lv->tree, commit_agg, &c);
	/* a finished round is never continued: no open counts */
	if (rc == 0 && !finished)
		rc = proctree_each_open(lv->tree, commit_open, &c);
	if (rc == 0)
		rc = proctree_each_proc(lv->tree, commit_proc, &c);
	for (int i = 1; rc == 0 && i < PGSC_REJ__COUNT; i++) {
		if (lv->rejects[i] == 0)
			continue;
		rc = store_batch_reject(b, pgsc_reject_name(i), lv->rejects[i],
					cause);
	}
	if (lv->kind == SRC_FILE && lv->tail.fingerprint[0] == '\0' &&
	    lv->tail.fd >= 0)
		fingerprint_of(lv->tail.fd, lv->tail.fingerprint);
	if (rc == 0 && lv->kind == SRC_FILE && lv->tail.fingerprint[0]) {
		struct store_source src = { 0 };

		src.path = lv->tail.path;
		src.inode = lv->tail.inode;
		src.offset = feed_offset(lv->feed);
		src.lines = feed_lines(lv->feed);
		src.last_serial = lv->ser.max;
		src.last_event = lv->r.last_event;
		util_prefix_hash(lv->tail.fd, src.offset, src.prefix_hash);
		rc = store_source_put(lv->st, lv->tail.fingerprint, &src,
				      lv->round, cause);
	}
	if (rc == 0) {
		uint64_t rej = 0;

		for (int i = 1; i < PGSC_REJ__COUNT; i++)
			rej += lv->rejects[i];
		lv->r.rejected = lv->base_rejected + rej;
		rc = store_round_live_update(lv->st, lv->round, &lv->r, finished,
					     cause);
	}
	if (rc == 0)
		rc = store_commit(lv->st, cause);
out:
	store_batch_free(b);
	if (rc < 0) {
		store_rollback(lv->st);
		return rc;
	}
	/* rejects are added, not replaced: start counting afresh */
	lv->base_rejected = lv->r.rejected;
	memset(lv->rejects, 0, sizeof(lv->rejects));
	/* what exited long enough ago is in the store now, as exited */
	proctree_prune(lv->tree, PRUNE_KEEP_SECS);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Reading the sources                                                */

static int
feed_chunk(struct live *lv, const char *data, size_t n)
{
	if (lv->marker[0] && !lv->marker_seen &&
	    memmem(data, n, lv->marker, strlen(lv->marker)) != NULL)
		lv->marker_seen = 1;
	return feed_bytes(lv->feed, data, n);
}

/* Open the file to follow: where the last run stopped, or the end. */
static int
tail_start(struct live *lv)
{
	struct tail *t = &lv->tail;
	struct store_source src = { 0 };
	char fp[24];
	int rc, k, found = -1;

	t->fd = -1;
	rc = store_source_by_path(lv->st, t->path, fp, &src, lv->cause);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		/* find the file we were reading: it may have rotated */
		for (k = 0; k <= MAX_ROTATED; k++) {
			char *name = rotated_name(t->path, k), cand[24];
			int fd;

			if (name == NULL)
				return -ENOMEM;
			fd = util_open_regular(name, NULL);
			free(name);
			if (fd < 0) {
				if (k > 0)
					break;
				continue;
			}
			fingerprint_of(fd, cand);
			close(fd);
			if (strcmp(cand, fp) == 0) {
				found = k;
				break;
			}
		}
		if (found < 0) {
			char detail[256];

			snprintf(detail, sizeof(detail), "the file last read at "
				 "%s (fingerprint %s, offset %llu) was rotated "
				 "away; records after it may be missing",
				 t->path, fp, (unsigned long long)src.offset);
			lv->r.rotation_gaps++;
			store_gap(lv->st, lv->round, "rotation", util_now(),
				  detail, NULL);
			if (!lv->o->quiet)
				fprintf(lv->diag, "pgsc: warning: %s\n", detail);
			/* read every file still there, oldest first */
			for (k = MAX_ROTATED; k >= 0; k--) {
				char *name = rotated_name(t->path, k);

				rc = tail_queue(t, name);
				free(name);
				if (rc < 0)
					return rc;
			}
			if (t->nqueue == 0)
				return tail_switch(t, t->path, 0);
			return tail_next(t);
		}
		/* newer rotated files, then the live one, all opened now */
		for (k = found - 1; k >= 0; k--) {
			char *name = rotated_name(t->path, k);

			rc = tail_queue(t, name);
			free(name);
			if (rc < 0)
				return rc;
		}
		{
			char *name = rotated_name(t->path, found);

			if (name == NULL)
				return -ENOMEM;
			rc = tail_switch(t, name, src.offset);
			free(name);
		}
		if (rc == 0)
			feed_set_source(lv->feed, t->path, src.lines, src.offset);
		return rc;
	}
	/* first run on this file: start at its end, on a line boundary */
	rc = tail_switch(t, t->path, 0);
	if (rc < 0)
		return rc;
	if (!lv->o->from_start) {
		struct stat sb;
		off_t end;
		char c;

		if (fstat(t->fd, &sb) < 0)
			return -errno;
		end = sb.st_size;
		while (end > 0 && pread(t->fd, &c, 1, end - 1) == 1 && c != '\n')
			end--;
		t->read_off = (uint64_t)end;
		feed_set_source(lv->feed, t->path, 0, (uint64_t)end);
	}
	return 0;
}

/*
 * Read what is new; move to the next file after a rotation.  A collector
 * far behind (restarted after a long stop) returns once @deadline has
 * passed, with *more set, so that the main loop commits on time: without
 * it, tens of MB were read with no commit, and a kill lost all that work.
 */
static int
tail_poll(struct live *lv, int *got, int *more, double deadline)
{
	struct tail *t = &lv->tail;

	*got = *more = 0;
	for (;;) {
		ssize_t n;
		struct stat sb;
		int rc;

		if (*got && (util_now() >= deadline ||
			     proctree_prune_due(lv->tree))) {
			*more = 1;
			return 0;
		}
		n = pread(t->fd, lv->buf, BUF_SIZE, (off_t)t->read_off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n > 0) {
			t->read_off += (uint64_t)n;
			*got = 1;
			rc = feed_chunk(lv, lv->buf, (size_t)n);
			if (rc < 0)
				return rc;
			continue;
		}
		/* at the end of this file: is there a newer one? */
		if (t->nqueue > 0) {
			feed_end_source(lv->feed);
			rc = tail_next(t);
			if (rc < 0)
				return rc;
			feed_set_source(lv->feed, t->path, 0, 0);
			continue;
		}
		if (stat(t->path, &sb) < 0 || (uint64_t)sb.st_ino == t->inode)
			return 0;
		/* Rotated.  auditd may have written to the renamed file after
		 * our last read: read it to its end once more first. */
		if (!t->final_read) {
			t->final_read = 1;
			continue;
		}
		/* Files rotated more than once meanwhile come first; open
		 * them all at once, before the names move again. */
		for (int k = 2; k <= MAX_ROTATED; k++) {
			char *name = rotated_name(t->path, k);
			struct stat rb;

			if (name == NULL)
				return -ENOMEM;
			if (stat(name, &rb) < 0) {
				free(name);
				break;
			}
			free(name);
			if ((uint64_t)rb.st_ino == t->inode) {
				for (int j = k - 1; j >= 1; j--) {
					char *nm = rotated_name(t->path, j);

					rc = tail_queue(t, nm);
					free(nm);
					if (rc < 0)
						return rc;
				}
				break;
			}
		}
		rc = tail_queue(t, t->path);
		if (rc < 0)
			return rc;
		feed_end_source(lv->feed);
		if (t->nqueue == 0)
			return 0; /* the new file is not there yet */
		rc = tail_next(t);
		if (rc < 0)
			return rc;
		feed_set_source(lv->feed, t->path, 0, 0);
	}
}

static int
read_fd(struct live *lv, int fd, int *eof, ssize_t *got)
{
	ssize_t n;

	n = read(fd, lv->buf, BUF_SIZE);
	*eof = 0;
	*got = n > 0 ? n : 0;
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0) {
		*eof = 1;
		return 0;
	}
	return feed_chunk(lv, lv->buf, (size_t)n);
}

/*
 * An overrun (ENOBUFS) of the daemon socket is not fatal: the kernel sends
 * to its daemon without waiting, and a record that finds the socket full
 * goes to kauditd's retry queue, to be sent again.  Only records that the
 * kernel finally gives up on are lost, and those show as serial gaps (and,
 * on a kernel booted with audit=1, in "lost").  So count it, say it once,
 * and go on reading: stopping would lose everything after.
 */
static int
read_netlink(struct live *lv, int *got)
{
	long n;

	*got = 0;
	for (;;) {
		int rc;

		n = nlsrc_read(lv->nl, lv->buf, BUF_SIZE);
		if (n == -ENOBUFS) {
			if (lv->overruns++ == 0 && !lv->o->quiet)
				fprintf(lv->diag, "pgsc: warning: the netlink "
					"socket overran (we were too slow); "
					"the kernel retries, and what it drops "
					"counts as serial gaps\n");
			continue;
		}
		if (n <= 0)
			break;
		rc = feed_chunk(lv, lv->buf, (size_t)n);
		if (rc < 0)
			return rc;
		*got = 1;
	}
	return n < 0 ? (int)n : 0;
}

/* ---------------------------------------------------------------- */
/* Audit rules for the duration of a wrapped command                  */

/* writable copies for execvp()'s argv */
static char s_auditctl[] = "auditctl", s_D[] = "-D", s_k[] = "-k",
	    s_pgsc[] = "pgsc", s_R[] = "-R", s_default[] = "--default",
	    s_log[] = "log", s_ddash[] = "--";

static int
run_auditctl(char *const argv[], int keep_fd)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		/* the rules file (a memfd) stays open across the exec */
		if (keep_fd >= 0)
			fcntl(keep_fd, F_SETFD, 0);
		if (devnull >= 0)
			dup2(devnull, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

/**
 * Remove pgsc's rules (also stale ones left by a crash).
 * Returns 0 or a negative errno.
 */
int
pgsc_rules_remove(void)
{
	char *const argv[] = { s_auditctl, s_D, s_k, s_pgsc, NULL };

	return run_auditctl(argv, -1);
}

int
pgsc_rules_load(char **cause)
{
	/*
	 * auditctl -R wants a regular file owned by root and writable by
	 * nobody else, not a pipe.  A memfd is one (after fchmod), and it
	 * leaves nothing in /tmp, even after a kill -9.
	 */
	char path[64];
	char *argv[] = { s_auditctl, s_R, path, NULL };
	int fd, rc = 0;
	FILE *f;

	pgsc_rules_remove();
	fd = memfd_create("pgsc-rules", MFD_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0600) < 0) {
		rc = -errno;
		util_cause(cause, "cannot write the audit rules: %s",
			   strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	f = fdopen(dup(fd), "w");
	if (f == NULL) {
		close(fd);
		return -ENOMEM;
	}
	pgsc_print_rules(f);
	if (fclose(f) != 0)
		rc = -EIO;
	if (rc == 0)
		rc = run_auditctl(argv, fd);
	close(fd);
	if (rc < 0)
		util_cause(cause, "auditctl could not load pgsc's audit rules "
			   "(is auditd installed, and are we root?)");
	return rc;
}

/* ---------------------------------------------------------------- */

static int
open_source(struct live *lv)
{
	const char *s = lv->o->source;
	int rc;

	if (s == NULL || strcmp(s, "auto") == 0) {
		struct audit_figures f;

		/* netlink when nobody else is the audit daemon */
		if (audit_figures_get(&f, NULL) == 0 &&
		    (f.pid == 0 || (kill((pid_t)f.pid, 0) < 0 && errno == ESRCH)))
			s = "netlink";
		else
			s = "file:/var/log/audit/audit.log";
	}
	if (strcmp(s, "netlink") == 0) {
		lv->kind = SRC_NETLINK;
		lv->source = "netlink";
		rc = nlsrc_open(8192, 60000, &lv->nl, lv->cause);
		if (rc == 0)
			feed_set_source(lv->feed, "netlink", 0, 0);
		return rc;
	}
	if (strcmp(s, "plugin") == 0) {
		lv->kind = SRC_PLUGIN;
		lv->source = "plugin";
		if (lv->o->command != NULL) {
			util_cause(lv->cause, "--source plugin reads auditd's "
				   "dispatcher on stdin; it cannot wrap a command");
			return -EINVAL;
		}
		feed_set_source(lv->feed, "stdin", 0, 0);
		if (fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK) < 0)
			return -errno;
		return 0;
	}
	if (strncmp(s, "file:", 5) == 0 && s[5] != '\0') {
		lv->kind = SRC_FILE;
		lv->source = s;
		lv->tail.path = strdup(s + 5);
		if (lv->tail.path == NULL)
			return -ENOMEM;
		return 0; /* opened once the round is known */
	}
	util_cause(lv->cause, "unknown source \"%s\" (plugin, file:PATH, "
		   "netlink)", s);
	return -EINVAL;
}

static int
block_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, old) < 0)
		return -errno;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static pid_t
spawn(const struct pgsc_live_opts *o, const sigset_t *old, char **cause)
{
	pid_t pid = fork();

	if (pid < 0) {
		util_cause(cause, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, old, NULL);
		if (o->trace) {
			size_t n = 0;
			char **argv;

			while (o->command[n] != NULL)
				n++;
			argv = calloc(n + 5, sizeof(*argv));
			if (argv == NULL)
				_exit(127);
			argv[0] = strdup(o->exec_path ? o->exec_path : "pgsc-exec");
			argv[1] = s_default;
			argv[2] = s_log;
			argv[3] = s_ddash;
			if (argv[0] == NULL)
				_exit(127);
			for (size_t i = 0; i < n; i++)
				argv[4 + i] = o->command[i];
			execvp(argv[0], argv);
			fprintf(stderr, "pgsc-collect: %s: %s\n", argv[0],
				strerror(errno));
			_exit(127);
		}
		execvp(o->command[0], o->command);
		fprintf(stderr, "pgsc-collect: %s: %s\n", o->command[0],
			strerror(errno));
		_exit(127);
	}
	return pid;
}

int
pgsc_live(pgsc_store *st, const struct pgsc_live_opts *o,
	  struct pgsc_live_stats *stats, char **cause)
{
	struct live lv;
	struct proctree_hints hints = { 0 };
	struct audit_figures fig;
	sigset_t oldmask;
	int sfd = -1, rc, continued = 0, rules = 0, stop = 0, draining = 0;
	int child_status = 0, child_done = 0, eof = 0;
	int plugin_short = 0, plugin_wait = 0, have_start = 0;
	int commit_failures = 0;
	pid_t child = -1;
	uint64_t fig_min = 0;
	double next_commit, drain_until = 0, interval, figures_until = 0;
	double busy_since = 0;
	int file_more = 0;          /* tail_poll() stopped for a commit */
	char *command = NULL;

	memset(&lv, 0, sizeof(lv));
	memset(stats, 0, sizeof(*stats));
	lv.st = st;
	lv.o = o;
	lv.diag = o->diag ? o->diag : stderr;
	lv.cause = cause;
	lv.tail.fd = -1;
	interval = o->commit_interval > 0 ? o->commit_interval : 2.0;
	/* now, before any self-filter is loaded */
	if (getrandom(&lv.nonce, sizeof(lv.nonce), 0) !=
	    (ssize_t)sizeof(lv.nonce))
		lv.nonce = (uint64_t)(util_now() * 1e6) ^
			   ((uint64_t)getpid() << 40);
	hints.postmaster_pids = o->postmaster_pids;
	hints.n_postmaster_pids = o->n_postmaster_pids;
	hints.has_server_uid = o->has_server_uid;
	hints.server_uid = o->server_uid;

	lv.buf = malloc(BUF_SIZE);
	lv.ser.bits = calloc(SERIAL_WINDOW / 8, 1);
	if (lv.buf == NULL || lv.ser.bits == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	rc = proctree_new(&hints, &lv.tree);
	if (rc == 0)
		rc = feed_new(&live_ops, &lv, 0, &lv.feed, cause);
	if (rc < 0)
		goto out;
	/*
	 * The kernel's figures at the start, read before we read anything
	 * (and, for netlink, before we register: a request made while the
	 * queue is full would sleep with nobody draining it).  Loss that
	 * happens meanwhile counts against this round: never less than the
	 * truth.
	 */
	have_start = audit_figures_get(&fig, NULL) == 0;
	rc = open_source(&lv);
	if (rc < 0)
		goto out;

	if (o->load_rules) {
		rc = pgsc_rules_load(cause);
		if (rc < 0)
			goto out;
		rules = 1;
	}
	if (o->command != NULL) {
		struct strbuf sb = { 0 };

		for (char *const *a = o->command; *a != NULL; a++) {
			strbuf_addstr(&sb, a == o->command ? "" : " ");
			strbuf_addstr(&sb, *a);
		}
		command = sb.buf;
	}
	rc = store_live_round(st, lv.kind == SRC_FILE ? "file" :
			      lv.kind == SRC_NETLINK ? "netlink" : "plugin",
			      lv.source, o->label, command, &lv.round, &continued,
			      cause);
	if (rc < 0)
		goto out;
	if (continued) {
		rc = store_round_get(st, lv.round, &lv.r, cause);
		if (rc == 0)
			rc = store_round_aggs(st, lv.round, base_add, &lv, cause);
		if (rc == 0)
			rc = store_open_counts(st, lv.round, open_add, &lv, cause);
		if (rc == 0)
			rc = store_open_procs(st, lv.round, seed_cb, &lv, cause);
		if (rc < 0)
			goto out;
		/* what went back to the processes is no longer base */
		{
			size_t k = 0;

			for (size_t i = 0; i < lv.nbase; i++) {
				if (lv.base[i].count > 0) {
					lv.base[k++] = lv.base[i];
					continue;
				}
				free((char *)(uintptr_t)lv.base[i].example_exe);
			}
			lv.nbase = k;
		}
		free(lv.open);
		lv.open = NULL;
		lv.nopen = lv.capopen = 0;
		lv.base_records = lv.r.records;
		lv.base_rejected = lv.r.rejected;
		lv.base_lines = lv.r.lines;
		if (!o->quiet)
			fprintf(lv.diag, "pgsc: continuing round %lld (%llu "
				"records committed before)\n",
				(long long)lv.round,
				(unsigned long long)lv.base_records);
	}
	if (lv.kind == SRC_FILE) {
		rc = tail_start(&lv);
		if (rc < 0) {
			if (cause && *cause == NULL)
				util_cause(cause, "%s: %s", lv.tail.path,
					   strerror(-rc));
			goto out;
		}
	}
	lv.run_lines0 = feed_lines(lv.feed);
	if (have_start) {
		lv.have_figures = 1;
		if (!continued || !lv.r.has_lost) {
			lv.r.has_lost = 1;
			lv.r.kernel_lost_start = fig.lost;
			lv.r.has_wait = fig.has_wait_actual;
			lv.r.backlog_wait_start = fig.backlog_wait_time_actual;
		}
		lv.r.kernel_lost_end = fig.lost;
		lv.r.backlog_wait_end = fig.backlog_wait_time_actual;
	}
	sfd = block_signals(&oldmask);
	if (sfd < 0) {
		rc = sfd;
		goto out;
	}
	rc = live_commit(&lv, 0);
	if (rc < 0)
		goto out;
	if (o->command != NULL) {
		child = spawn(o, &oldmask, cause);
		if (child < 0) {
			rc = -ECHILD;
			goto out;
		}
	}
	if (child > 0 && lv.kind == SRC_NETLINK) {
		/*
		 * The kernel does not audit the syscalls of the registered
		 * audit daemon, so our own fork of the command leaves no
		 * record: put that edge in the tree ourselves, or the command
		 * and what it runs outside a server count as unattributed.
		 */
		struct proc_info self = { 0 }, kid = { 0 };
		char exe[PGSC_EXE_MAX + 1];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		exe[n > 0 ? n : 0] = '\0';
		self.pid = getpid();
		self.ppid = getppid();
		self.birth = self.last = util_now();
		self.exe = exe;
		self.uid = (int64_t)getuid();   /* the command starts as us */
		kid = self;
		kid.pid = child;
		kid.ppid = self.pid;
		kid.parent_known = 1;
		if (proctree_seed(lv.tree, &self) < 0 ||
		    proctree_seed(lv.tree, &kid) < 0) {
			rc = -ENOMEM;
			goto out;
		}
	}
	/* Everything is open and the command runs: the caller may drop
	 * privileges and confine itself before any record is parsed. */
	if (o->ready != NULL) {
		rc = o->ready(o->ready_arg, cause);
		if (rc < 0)
			goto out;
	}
	/*
	 * The request thread starts after the hook, so that it inherits the
	 * confinement: capabilities and seccomp filters belong to a thread,
	 * and a thread made before would keep what the hook dropped.  It
	 * needs what the reading thread needed for these requests before:
	 * CAP_AUDIT_CONTROL (status) and CAP_AUDIT_WRITE (the marker).
	 * Periodic status reads only where we are the daemon: next to
	 * auditd, a request of ours while the queue is full adds a sleeper
	 * that competes with auditd's own requests (docs/live.md).
	 */
	rc = kreq_start(lv.kind == SRC_NETLINK ? interval : 0, &lv.kreq);
	if (rc < 0) {
		util_cause(cause, "cannot start the thread for kernel requests: "
			   "%s", strerror(-rc));
		goto out;
	}
	stats->round = lv.round;
	next_commit = util_now() + interval;

	while (!stop) {
		struct pollfd pfd[2];
		int nfd = 0, got = 0, timeout = file_more ? 0 : 100;
		double now;

		pfd[nfd++] = (struct pollfd){ sfd, POLLIN, 0 };
		if (lv.kind == SRC_NETLINK) {
			pfd[nfd++] = (struct pollfd){ nlsrc_fd(lv.nl), POLLIN, 0 };
		} else if (lv.kind == SRC_PLUGIN && !eof && plugin_short) {
			/*
			 * After a short read, let auditd's socket fill for
			 * PLUGIN_BATCH_MS before reading again: a reader woken
			 * for every event makes auditd pay a wake-up per event
			 * and slows its reading of the kernel (measured: a
			 * no-op "cat" plugin ran auditd at 0.6 of its speed
			 * alone; pgsc so batching at about 0.85).  Signals
			 * still wake us at once.
			 */
			timeout = PLUGIN_BATCH_MS;
			plugin_short = 0;
			plugin_wait = 1;
		} else if (lv.kind == SRC_PLUGIN && !eof) {
			pfd[nfd++] = (struct pollfd){ 0, POLLIN, 0 };
		}
		if (poll(pfd, (nfds_t)nfd, timeout) < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGCHLD) {
					int status;

					if (child > 0 &&
					    waitpid(child, &status, WNOHANG) == child) {
						child_status = status;
						child_done = 1;
					}
				} else if (si.ssi_signo == SIGHUP) {
					if (!o->quiet)
						fprintf(lv.diag, "pgsc: SIGHUP: "
							"committing; nothing else "
							"to reload\n");
					next_commit = 0;
				} else if (child > 0 && !child_done) {
					/* wrap mode: the command decides */
					kill(child, (int)si.ssi_signo);
				} else {
					draining = 1;
				}
			}
		}
		switch (lv.kind) {
		case SRC_NETLINK:
			rc = read_netlink(&lv, &got);
			break;
		case SRC_PLUGIN:
			if (plugin_wait || (nfd > 1 &&
					    (pfd[1].revents & (POLLIN | POLLHUP)))) {
				ssize_t got_bytes = 0;

				rc = read_fd(&lv, 0, &eof, &got_bytes);
				plugin_short = !eof && got_bytes < 64 * 1024;
			} else {
				rc = 0;
			}
			plugin_wait = 0;
			break;
		case SRC_FILE:
			rc = tail_poll(&lv, &got, &file_more, next_commit);
			break;
		}
		if (rc < 0) {
			util_cause(cause, "reading %s: %s", lv.source,
				   strerror(-rc));
			break;
		}
		now = util_now();
		/* a bound on memory, not only on time (proctree_prune_due()) */
		if (proctree_prune_due(lv.tree))
			next_commit = now;
		if ((child_done || eof) && !draining)
			draining = 1;
		if (draining == 1) {
			/*
			 * Mark the end of the stream and read up to it.  In
			 * wrap mode everything the command caused must be in:
			 * wait long for the marker, and record it if it never
			 * comes.  A daemon told to stop only reads what is in
			 * flight; the plugin reads to the end of its pipe.
			 */
			draining = 2;
			lv.marker_seen = 0;
			if (lv.kind == SRC_PLUGIN) {
				lv.marker_seen = eof;
				drain_until = now + 5.0;
			} else {
				snprintf(lv.marker, sizeof(lv.marker),
					 "pgsc-drain-%d-%016llx", (int)getpid(),
					 (unsigned long long)lv.nonce);
				kreq_send_marker(lv.kreq, lv.marker);
				drain_until = now + (child > 0 ? DRAIN_TIMEOUT : 5.0);
			}
		}
		if (draining == 2 && lv.kind == SRC_PLUGIN && eof)
			lv.marker_seen = 1;
		if (draining == 2 && lv.kind != SRC_PLUGIN && !lv.marker_seen) {
			int mrc;

			if (kreq_marker_done(lv.kreq, &mrc) && mrc < 0)
				lv.marker_seen = 1; /* cannot: stop */
		}
		if (draining == 2 && (lv.marker_seen || now > drain_until)) {
			if (!lv.marker_seen && child > 0) {
				lv.r.drain_timeouts++;
				store_gap(st, lv.round, "drain", now, "the end "
					  "marker did not arrive in time; the "
					  "last records may be missing", NULL);
			}
			/* the kernel's figures at the end, read after the
			 * last record; we go on reading while we wait */
			draining = 3;
			if (lv.have_figures) {
				fig_min = kreq_ask_status(lv.kreq) + 1;
				figures_until = now + FIGURES_TIMEOUT;
			}
		}
		if (draining == 3) {
			struct audit_figures f;

			if (!lv.have_figures) {
				stop = 1;
			} else if (kreq_figures(lv.kreq, fig_min, &f)) {
				lv.r.kernel_lost_end = f.lost;
				if (f.has_wait_actual)
					lv.r.backlog_wait_end =
						f.backlog_wait_time_actual;
				stop = 1;
			} else if (now > figures_until) {
				if (!o->quiet)
					fprintf(lv.diag, "pgsc: warning: the "
						"kernel did not answer the "
						"status request in %.0f s; the "
						"loss figures are the last "
						"ones read\n", FIGURES_TIMEOUT);
				store_gap(st, lv.round, "figures", now, "the "
					  "kernel's lost counter could not be "
					  "read at the end of the round", NULL);
				stop = 1;
			}
		}
		if (!feed_busy(lv.feed))
			busy_since = 0;
		if (now >= next_commit && !stop && lv.kind == SRC_FILE &&
		    feed_busy(lv.feed)) {
			/* auparse holds an event whose lines are before the
			 * file position: committing now and crashing would
			 * lose it.  The next line hands it over; in a quiet
			 * log that line may not come, so after a while the
			 * event is taken as complete (auditd writes an
			 * event's records together). */
			if (busy_since == 0)
				busy_since = now;
			/* ... but not when memory calls for the commit:
			 * reading on would fill it (proctree_prune_due()) */
			if (now - busy_since < interval &&
			    !proctree_prune_due(lv.tree)) {
				next_commit = now + 0.05;
				continue;
			}
			feed_flush_events(lv.feed);
			busy_since = 0;
		}
		if (now >= next_commit && !stop && lv.kind == SRC_FILE)
			feed_flush_events(lv.feed); /* only closed events */
		if (now >= next_commit || stop) {
			if (stop) {
				feed_end_source(lv.feed);
				feed_flush(lv.feed);
			}
			if (stop && lv.overruns > 0) {
				char detail[160];

				snprintf(detail, sizeof(detail), "the netlink "
					 "socket overran %llu times; records "
					 "the kernel dropped are serial gaps",
					 (unsigned long long)lv.overruns);
				store_gap(st, lv.round, "overrun", now, detail,
					  NULL);
				lv.overruns = 0;
			}
			if (child_done) {
				lv.r.has_exit_status = 1;
				lv.r.exit_status = WIFEXITED(child_status)
							   ? WEXITSTATUS(child_status)
							   : 128 + WTERMSIG(child_status);
			}
			rc = live_commit(&lv, stop);
			if (rc == -ENOSPC || rc == -EIO || rc == -EBUSY) {
				/* keep everything in memory and retry; say so
				 * once (docs/robustness.md) */
				if (commit_failures++ == 0)
					fprintf(lv.diag, "pgsc: warning: cannot "
						"commit (%s); keeping what was "
						"read in memory and retrying "
						"every %g s\n",
						cause && *cause ? *cause : "",
						interval);
				if (stop && child_done)
					break;
				stop = 0;
				next_commit = now + interval;
				continue;
			}
			if (rc < 0)
				break;
			if (commit_failures > 0)
				fprintf(lv.diag, "pgsc: recovered: committed "
					"again after %d failed attempts; "
					"nothing was lost\n", commit_failures);
			commit_failures = 0;
			next_commit = now + interval;
		}
	}
	stats->records = lv.base_records + lv.run_records;
	stats->serial_gaps = serials_total(&lv.ser);
	stats->lost = lv.r.has_lost ? lv.r.kernel_lost_end - lv.r.kernel_lost_start : 0;
	if (child_done) {
		stats->has_exit_status = 1;
		stats->exit_status = WIFEXITED(child_status)
					     ? WEXITSTATUS(child_status)
					     : 128 + WTERMSIG(child_status);
	}
out:
	if (child > 0 && !child_done) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	if (rules)
		pgsc_rules_remove();
	if (sfd >= 0) {
		close(sfd);
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
	}
	nlsrc_close(lv.nl);
	kreq_stop(lv.kreq);
	if (lv.tail.fd >= 0)
		close(lv.tail.fd);
	for (int i = 0; i < lv.tail.nqueue; i++)
		close(lv.tail.queue[i]);
	free(lv.tail.path);
	feed_free(lv.feed);
	proctree_free(lv.tree);
	for (size_t i = 0; i < lv.nbase; i++)
		free((char *)(uintptr_t)lv.base[i].example_exe);
	free(lv.base);
	free(lv.open);
	strset_free(&lv.base_roles);
	free(lv.ser.bits);
	free(lv.buf);
	free(command);
	return rc;
}
