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

#define BUF_SIZE (1024 * 1024)
#define MAX_ROTATED 99

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

/* live_tail.c - file:PATH, followed across rotations. */
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

/*
 * A source of audit text.  open() runs before the round is known, start()
 * (optional) once it is; pollfd() gives the descriptor to wait on (0:
 * none this time) and may shorten the timeout; read() feeds what is
 * there; position() (optional) stores where the source stands in the
 * commit's transaction.  A source with a position is read up to an event
 * boundary before a commit.
 */
struct live_source {
	const char *kind;           /* rounds.kind */
	int audit_daemon;           /* we are the registered audit daemon */
	int ends_at_eof;            /* drained by reading to its end */
	int (*open)(struct live *lv, const char *spec);
	int (*start)(struct live *lv);
	int (*pollfd)(struct live *lv, struct pollfd *pfd, int *timeout);
	int (*read)(struct live *lv, short revents, double deadline);
	int (*position)(struct live *lv);
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
	uint64_t base_gaps;          /* serial gaps earlier runs committed */
	int have_base_gaps;
	const struct live_source *src;
	const char *source;          /* as stored in rounds.source */
	struct tail tail;
	struct netlink *nl;
	struct kreq *kreq;
	uint64_t overruns;           /* netlink socket overruns seen */
	int have_figures;
	struct drain_marker marker;
	uint64_t nonce;              /* in the marker: unguessable, since any
				      * process can put text into the stream
				      * (comm, exe, titles), and a forged
				      * marker would end the drain early */
	int eof;                     /* the plugin's stdin ended */
	int more;                    /* the tail stopped reading for a commit */
	int plugin_short, plugin_wait;
	char *buf;
	char **cause;
};

/* resume.c */
int resume_round(struct live *lv);

/* live_commit.c */
int live_commit(struct live *lv, int finished);

/* live_tail.c */
void live_tail_fingerprint(int fd, char out[24]);

#endif
