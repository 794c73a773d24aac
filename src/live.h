/* SPDX-License-Identifier: PostgreSQL */
/* live.h - the parts of a live collection (pgsc_live()) and their table. */
/*
 * live.c runs the loop; each source (live_tail.c, live_plugin.c,
 * live_netlink.c) is a struct live_source chosen once, as OpenSMTPD's
 * queue_backend.c chooses queue_fs or queue_ram.  Around them: the
 * requests to the kernel (kreq.c), the serial accounting (serials.c),
 * continuing a crashed round (resume.c) and the commit (live_commit.c).
 */
#ifndef PGSC_LIVE_H
#define PGSC_LIVE_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

#include "round.h"
#include "netlink.h"
#include "proctree.h"

#define BUF_SIZE (1024 * 1024)

struct live;

/* kreq.c - requests to the kernel, off the read path. */
struct kreq;
int kreq_start(double interval, struct kreq **out);
void kreq_stop(struct kreq *k);
uint64_t kreq_ask_status(struct kreq *k);
int kreq_figures(struct kreq *k, uint64_t min, struct netlink_figures *f);
void kreq_send_marker(struct kreq *k, const char *text);
int kreq_marker_done(struct kreq *k, int *rc);

/* The end marker of a drain, found in whole lines, however the reads
 * split them. */
struct drain_marker {
	char text[64];
	int seen;
};
void live_drain_marker_arm(struct drain_marker *m, uint64_t nonce);
void live_drain_marker_line(struct drain_marker *m, const char *line, size_t len);

/*
 * A source of audit text, with its state private to its file (in
 * live.src_priv, made by open() and freed by close(), which runs also
 * after a failed open()).  open() runs before the round is known, start()
 * (optional) once it is; pollfd() gives the descriptor to wait on (0:
 * none this time) and may shorten the timeout; read() feeds what is
 * there; position() (optional) stores where the source stands in the
 * commit's transaction.  A source with a position is read up to an event
 * boundary before a commit.  ended() (optional) makes a source drained by
 * reading to its end, and says when it is there.  last() (optional) runs
 * before the round's last commit, with what the source adds to it.
 */
struct live_source {
	const char *kind;           /* rounds.kind */
	int audit_daemon;           /* we are the registered audit daemon */
	int (*open)(struct live *lv, const char *spec);
	int (*start)(struct live *lv);
	int (*pollfd)(struct live *lv, struct pollfd *pfd, int *timeout);
	int (*read)(struct live *lv, short revents, double deadline);
	int (*position)(struct live *lv);
	int (*ended)(struct live *lv);
	void (*last)(struct live *lv, double now);
	void (*close)(struct live *lv);
};
extern const struct live_source live_tail, live_plugin, live_netlink;

/* The drain at the end of a collection. */
enum drain_state {
	DRAIN_NONE,                 /* collecting */
	DRAIN_ASKED,                /* a stop, an exit or an EOF: start it */
	DRAIN_MARKER,               /* reading up to the end marker */
	DRAIN_FIGURES,              /* waiting for the kernel's last figures */
};

struct live {
	pgsc_store *st;
	const struct pgsc_live_opts *o;
	FILE *diag;
	struct round rd;             /* the round: tree, feed, counts, its
				      * row (rd.id, rd.r: committed base +
				      * this run) */
	struct proc_count *open;     /* open counts of the last commit */
	size_t nopen, capopen;
	uint64_t run_lines0;
	const struct live_source *src;
	void *src_priv;              /* the source's own state */
	const char *source;          /* as stored in rounds.source */
	struct kreq *kreq;
	int have_figures;
	struct drain_marker marker;
	uint64_t nonce;              /* in the marker: unguessable, since any
				      * process can put text into the stream
				      * (comm, exe, titles), and a forged
				      * marker would end the drain early */
	char *buf;
	char **cause;
};

/* resume.c */
int resume_round(struct live *lv);

/* live_commit.c */
int live_commit(struct live *lv, int finished);

#endif
