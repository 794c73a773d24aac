/* SPDX-License-Identifier: PostgreSQL */
/* kreq.c - requests to the kernel (status figures, the drain marker),
 * made by a thread off the read path. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pgsc-int.h"
#include "netlink.h"
#include "live.h"

/* A thread that lost its wait for the kernel is left behind after this. */
#define KREQ_JOIN_SECS 5

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
	struct netlink_figures fig;   /* the latest status read */
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
		struct netlink_figures f;
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
			rc = netlink_send_marker(text, NULL);
			pthread_mutex_lock(&k->mu);
			k->marker_rc = rc;
			k->marker_done = 1;
			continue;
		}
		k->want_status = 0;
		pthread_mutex_unlock(&k->mu);
		rc = netlink_figures_get(&f, NULL);
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
int
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
void
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
uint64_t
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
int
kreq_figures(struct kreq *k, uint64_t min, struct netlink_figures *f)
{
	int have;

	pthread_mutex_lock(&k->mu);
	have = k->nfig >= min && k->nfig > 0;
	if (have)
		*f = k->fig;
	pthread_mutex_unlock(&k->mu);
	return have;
}

void
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
int
kreq_marker_done(struct kreq *k, int *rc)
{
	int done;

	pthread_mutex_lock(&k->mu);
	done = k->marker_done;
	*rc = k->marker_rc;
	pthread_mutex_unlock(&k->mu);
	return done;
}
