/* SPDX-License-Identifier: PostgreSQL */
/* pgsc-int.h - internal declarations shared by the files in src/. */
#ifndef PGSC_INT_H
#define PGSC_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pgsc.h"

#define PGSC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Unit tests reach file-static helpers through this (curl's UNITTEST). */
#ifdef PGSC_UNITTEST
#define UNITTEST
#else
#define UNITTEST static
#endif

/* util.c */
void util_cause(char **cause, const char *fmt, ...) PGSC_PRINTF(2, 3);
uint64_t util_hash(const void *data, size_t len, uint64_t seed);
double util_now(void);
int util_prefix_hash(int fd, uint64_t off, char out[24]);
int util_open_regular(const char *path, char **cause);
int util_open_input(const char *path, int *fifo, char **cause);
int util_read_file(const char *path, size_t max, char **buf, size_t *len,
		   char **cause);
int util_exe_is(const char *exe, const char *name);
char *util_strndup(const char *s, size_t n);
/* At most @max of the @len bytes at @p, escaped, in a new string. */
char *util_excerpt(const char *p, size_t len, size_t max);
/* Grow *@buf to hold @need bytes, doubling from @first.  Returns 0 or
 * -ENOMEM (the buffer is then as it was). */
int util_grow(char **buf, size_t *cap, size_t need, size_t first);
/* Grow the array *@v (elements of @size) to hold @n + 1; the first
 * allocation holds @first.  Returns 0 or -ENOMEM (the array unchanged). */
int util_grow_array(void *v, size_t *cap, size_t n, size_t size,
		    size_t first);
int util_u64_cmp(const void *a, const void *b);
/* The epoch time of a calendar date (month 1-12) in UTC or else in the
 * local zone; (time_t)-1 if none.  *@tm is left normalised. */
struct tm;
time_t util_make_time(struct tm *tm, int year, int mon, int mday, int hour,
		      int min, int sec, int utc);
/* Widen the span [*@first, *@last] (*@first 0: none yet) to hold @t. */
static inline void
util_widen(double *first, double *last, double t)
{
	if (*first == 0 || t < *first)
		*first = t;
	if (t > *last)
		*last = t;
}
/* Widen the span [*@first, *@last] (both set) to hold [@lo, @hi]: a count
 * merged into an entry brings its window along. */
static inline void
util_widen_span(double *first, double *last, double lo, double hi)
{
	if (lo < *first)
		*first = lo;
	if (hi > *last)
		*last = hi;
}
/* Append a copy of @elem (@size bytes) to the array *@v of *@n elements,
 * grown as util_grow_array() grows it.  Returns 0 or -ENOMEM (the array
 * unchanged). */
int util_append(void *v, size_t *cap, size_t *n, const void *elem, size_t size,
		size_t first);

/* strbuf.c - a growing string; out of memory is remembered in ->oom and
 * later additions do nothing. */
struct strbuf {
	char *buf;
	size_t len, cap;
	int oom;
};
void strbuf_add(struct strbuf *sb, const char *s, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) PGSC_PRINTF(2, 3);
void strbuf_free(struct strbuf *sb);

/* strset.c - a set of strings kept sorted (small; used for lists and
 * role sets). */
struct strset {
	char **v;
	size_t n, cap;
};
int strset_add(struct strset *s, const char *str);
int strset_has(const struct strset *s, const char *str);
/* The set's own copy of @str, added if needed; NULL on OOM. */
const char *strset_intern(struct strset *s, const char *str);
void strset_free(struct strset *s);

/* serials.c - serial gaps: kernel serials of a stream should leave no
 * holes; one sequence per node.  The fields are the local host's
 * sequence (records without node=); @nodes the other nodes'.  Shared by
 * a live collection (live.c) and an import (import.c). */
#define SERIAL_WINDOW (1u << 20)
struct serials_node;
struct serials {
	uint8_t *bits;
	uint64_t base, min, max, first;
	uint64_t epoch;             /* 2^32 per wrap of the kernel's serial */
	int started;
	int boundary;               /* a new file begins: see serials_file() */
	uint64_t gaps;
	struct serials_node *nodes;
	size_t nnodes, last;
};
uint64_t serials_mark(struct serials *s, uint64_t serial, const char *node,
		      size_t nlen);
void serials_file(struct serials *s);
uint64_t serials_gaps(const struct serials *s, int settled);
ssize_t serials_save(const struct serials *s, int settled, uint8_t **out);
int serials_load(struct serials *s, const uint8_t *buf, size_t len);
void serials_free(struct serials *s);

/* logsrc.c (decompress_magic() in decompress.c, logsrc_log_name() in
 * logsrc_dir.c) */
enum logsrc_fmt { LOGSRC_PLAIN, LOGSRC_GZIP, LOGSRC_XZ, LOGSRC_ZSTD };
/* What logsrc_resume() found at the stored offset. */
enum { LOGSRC_RESUME = 0, LOGSRC_DONE = 1, LOGSRC_DIFFERS = 2 };
#define LOGSRC_DECODE_MEMLIMIT (128 << 20) /* xz, zstd: at most 128 MiB */
#define LOGSRC_SNIFF_MAX (1024 * 1024)     /* read to call it an audit log */
struct logsrc;
/* "-" is standard input.  Refuses (-EINVAL and a cause naming it) what is
 * not an audit log; sets logsrc_empty() when there is nothing yet. */
int logsrc_open(const char *path, struct logsrc **out, char **cause);
void logsrc_free(struct logsrc *ls);
const char *logsrc_name(const struct logsrc *ls);
const char *decompress_fmt_name(int fmt);
int logsrc_fmt(const struct logsrc *ls);
uint64_t logsrc_inode(const struct logsrc *ls);
double logsrc_mtime(const struct logsrc *ls);
int logsrc_empty(const struct logsrc *ls);
/* The first line (at most PGSC_LINE_MAX bytes), before any other call. */
int logsrc_first_line(const struct logsrc *ls, const char **p, size_t *len);
int logsrc_head(struct logsrc *ls, size_t max, const char **p, size_t *len,
		char **cause);
/* Continue at @off if the input starts with what @hash says was read. */
int logsrc_resume(struct logsrc *ls, uint64_t off, const char *hash,
		  char **cause);
/* Free the decoder until the next read (a file is read again then). */
void logsrc_suspend(struct logsrc *ls);
/* A suspended file opened again: 0, -ESTALE when its name holds another
 * file now, or a negative errno. */
int logsrc_reopen(struct logsrc *ls, char **cause);
/* Stop at the first line whose record is later than @until (seconds). */
void logsrc_set_until(struct logsrc *ls, int64_t until);
ssize_t logsrc_read(struct logsrc *ls, char *buf, size_t cap, char **cause);
/* util_prefix_hash() of what was read: at 0, the resume offset, the end
 * of the last whole line read, or the end of what was read. */
int logsrc_prefix_hash(struct logsrc *ls, uint64_t off, char out[24]);
int decompress_magic(const unsigned char *b, size_t n, const char **what);
#ifdef PGSC_UNITTEST
int logsrc_log_name(const char *name, size_t *base_len, int *cls,
		    unsigned long long *num);
#endif

/* decode.c */
/* The record type (>= 0), or minus a reject reason: -PGSC_REJ_NO_HEADER,
 * -PGSC_REJ_BAD_TIME. */
int decode_header(const char *line, size_t len, int *type_num,
		  const char **type_name, size_t *type_name_len,
		  int64_t *sec, int *msec, uint64_t *serial);
int decode_is_seccomp(const char *line, size_t len);
long decode_node(const char *line, size_t len, const char **node,
		 size_t *nlen);

/* gucfile.c - the one reader of configuration files (guc-file.l rules) */
#define GUCFILE_MAX (16 * 1024 * 1024)
#define GUCFILE_LINE_MAX (1024 * 1024)
enum gucfile_kind {
	GUCFILE_SETTING,        /* name = value */
	GUCFILE_INCLUDE,        /* include, include_if_exists, include_dir */
	GUCFILE_ERROR,          /* a line PostgreSQL refuses: @why */
};
struct gucfile_entry {
	enum gucfile_kind kind;
	unsigned line;
	const char *name;       /* lower-cased */
	const char *value;      /* quotes and escapes undone */
	const char *why;        /* GUCFILE_ERROR */
	int cut;                /* a \0 escape ended the value early */
};
/* Called for every entry; a non-zero return stops the reading with it. */
typedef int (*gucfile_fn)(void *arg, const struct gucfile_entry *e);
int gucfile_load(const char *path, char **buf, size_t *len, char **cause);
int gucfile_parse(const char *buf, size_t len, gucfile_fn fn, void *arg);
int gucfile_read(const char *path, gucfile_fn fn, void *arg, char **cause);

/* report_html.c - the HTML page of pgsc-report --format=html */
struct html_syscall {
	const char *name, *arch;
	uint64_t all;                   /* records in every role */
	int global, session;
	int64_t first_round, example_pid;
	const char *example_exe;        /* untrusted */
	const uint64_t *role_counts;    /* per html_page.roles */
	int sensitive;                  /* in src/sensitive.def */
	uint32_t nr;
};
struct html_round {
	int64_t id, records, nnew, nnew_sess, loss;
	const char *label;              /* untrusted */
};
struct html_node {
	const char *name;               /* untrusted; "" the local host */
	uint64_t records;
};
struct html_page {
	int64_t from, to;
	const char *node;               /* --node, untrusted; NULL: all */
	const struct html_node *nodes;  /* a central log's nodes, or none */
	size_t nnodes;
	const struct store_totals *t;   /* the records and the loss */
	const char *const *arches;
	size_t narches;
	const char *const *roles;       /* untrusted; the matrix's columns */
	size_t nroles;
	const struct html_syscall *sc;
	size_t nsc;
	const struct html_round *rounds;
	size_t nrounds;
	const char *const *list[2];     /* the global and session lists */
	size_t nlist[2], nglobal, nsession;
	const char *const *needs;       /* the module's, added to the global */
	size_t nneeds;                  /* list (report_needs.c) */
	const char *warning;            /* why the lists are not usable */
	int sort;                       /* enum pgsc_sort: the matrix's rows */
};
int report_html_write(FILE *out, const struct html_page *p);
/* The matrix's rows in the order of @sort (enum pgsc_sort). */
void report_html_sort(struct html_syscall *sc, size_t n, int sort);

/* names.c */
void names_reset_cache(void);
size_t names_cache_size(size_t *misses);

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

/* proctree*.c - processes, ancestry and roles (proctree-int.h inside). */
struct proctree;
struct proctree_hints {
	const int64_t *postmaster_pids;
	size_t n_postmaster_pids;
	struct pglog *pglog;
	/* a postgres binary run by another uid is not a server's (a
	 * process whose uid no record gave is taken as the server's) */
	int has_server_uid;
	uint32_t server_uid;
};
struct role_agg {
	const char *role;
	uint32_t arch;
	int32_t nr;
	uint64_t count;
	double first, last;
	int64_t example_pid;
	const char *example_exe;
	const char *node;          /* as proc_info.node (schema 6) */
};
struct proc_info {
	int64_t pid, ppid;         /* ppid -1 when unknown */
	int parent_known;          /* ppid comes from a fork record */
	double birth;              /* time of the fork record or first record */
	uint64_t birth_serial;     /* serial of the fork record, 0 if unknown */
	double last;
	const char *exe, *comm, *title, *role;
	uint64_t records;
	int exited;                /* its exit (or the reuse of its pid) was seen */
	int64_t uid;               /* last uid= of its records, -1 when none */
	const char *node;          /* node= of its records, NULL: local host */
};
int proctree_new(const struct proctree_hints *hints, struct proctree **out);
void proctree_free(struct proctree *t);
void proctree_record(struct proctree *t, const struct pgsc_record *rec);
void proctree_event_end(struct proctree *t);
/* Carry a process over from an earlier round (an import that continues a
 * growing log): its parent by pid among the seeded, its role kept. */
int proctree_seed(struct proctree *t, const struct proc_info *p);
/* Settle every process and assign roles; afterwards only the iterators
 * below may be called. */
int proctree_finish(struct proctree *t);
int proctree_each_agg(struct proctree *t,
		      int (*cb)(void *arg, const struct role_agg *a), void *arg);
/* Titles of running postgres processes from /proc (live collection). */
void proctree_proc_titles(struct proctree *t);
/* The counts so far, for a periodic commit; settles nothing. */
int proctree_snapshot(struct proctree *t,
		      int (*cb)(void *arg, const struct role_agg *a), void *arg);
int proctree_each_proc(struct proctree *t,
		       int (*cb)(void *arg, const struct proc_info *p),
		       void *arg);
/* The same, but only the rows that differ from what the last call wrote
 * (a live commit: most processes in memory have not changed since the
 * last one, and their rows are in the store); after a commit that was
 * rolled back, proctree_rows_unwritten() makes the next call write all. */
int proctree_each_changed_proc(struct proctree *t,
			       int (*cb)(void *arg, const struct proc_info *p),
			       void *arg);
void proctree_rows_unwritten(struct proctree *t);
/* Forget processes that exited more than @keep s (stream time) ago, their
 * counts folded into the aggregates; a live collector calls it after each
 * commit.  Returns how many went. */
size_t proctree_prune(struct proctree *t, double keep);
/* Has the tree grown enough since the last prune that a commit (and its
 * prune) should come now rather than at the commit interval? */
int proctree_prune_due(const struct proctree *t);
size_t proctree_nprocs(const struct proctree *t);
/* The counts of a process not folded yet, as a live commit stores them
 * (open_counts) so that a restarted collector can give them back. */
struct proc_count {
	int64_t pid;
	const char *node;          /* as proc_info.node */
	double birth;              /* as proc_info.birth */
	const char *role;          /* the role they were committed under */
	uint32_t arch;
	int32_t nr;
	int pending;               /* records kept one by one (at @first) */
	uint64_t count;
	double first, last;
};
int proctree_each_open(struct proctree *t,
		       int (*cb)(void *arg, const struct proc_count *c),
		       void *arg);
/* Continue a crashed live round: seed a process (oldest first) with its
 * provisional role left open, then give it back its open counts; returns
 * 1 when @c was taken, 0 when it belongs to no seeded process. */
int proctree_seed_open(struct proctree *t, const struct proc_info *p);
int proctree_seed_count(struct proctree *t, const struct proc_count *c);

/* pglog.c - PostgreSQL server logs as attribution hints. */
struct pglog;
int pglog_new(struct pglog **out);
void pglog_free(struct pglog *l);
int pglog_load(struct pglog *l, const char *path, const char *prefix,
	       char **cause);
/* Backend type of @pid around time @t, or NULL. */
const char *pglog_lookup(const struct pglog *l, int64_t pid, double t);
size_t pglog_count(const struct pglog *l);

/* pglog_value.c - the values of server log lines */
#define PGLOG_TYPE_MAX 64       /* bytes of a backend type */
/* Each returns the bytes it used (or 1 for a whole value), 0 if none. */
size_t pglog_parse_time(const char *s, size_t n, double *out);
size_t pglog_parse_epoch(const char *s, size_t n, double *out);
int pglog_parse_pid(const char *s, size_t n, int64_t *out);
int pglog_type_ok(const char *s, size_t n);

/* pglog_prefix.c - stderr logs: log_line_prefix, compiled and matched */
#define PGLOG_PFX_LEN 1024      /* log_line_prefix bytes */
#define PGLOG_PFX_ELEMS 256
struct pglog_pelem {
	int kind;
	int pad;                /* log_line_prefix padding, 0 if none */
	size_t off, len;        /* PE_LIT: text in prefix.lit */
};
struct pglog_prefix {
	struct pglog_pelem e[PGLOG_PFX_ELEMS];
	size_t n;
	char lit[PGLOG_PFX_LEN];
	size_t litlen;
	int has_pid, has_type, has_ts;
	const char *why;        /* why the prefix cannot be used, or NULL */
};
struct pglog_hit {
	int64_t pid;
	const char *type;       /* in the line, not terminated */
	size_t type_len;
	double first, last;
};
void pglog_prefix_compile(struct pglog_prefix *pf, const char *s);
int pglog_prefix_match(const struct pglog_prefix *pf, const char *s,
		       size_t n, struct pglog_hit *h);

/* store.c - the SQLite store. */
int store_begin(pgsc_store *st, char **cause);
int store_commit(pgsc_store *st, char **cause);
void store_rollback(pgsc_store *st);
int store_exec(pgsc_store *st, const char *sql, char **cause);

struct store_round {
	double finished;
	uint64_t records, attributed, unrelated, standalone, unattributed;
	uint64_t foreign;       /* of unattributed: no server's (not a column:
				 * the report sums the aggregates' role) */
	uint64_t rejected, lines;
	double first_event, last_event;
	/* live rounds */
	uint64_t serial_gaps, rotation_gaps, drain_timeouts;
	int has_lost, has_wait, has_exit_status;
	uint64_t kernel_lost_start, kernel_lost_end;
	uint64_t backlog_wait_start, backlog_wait_end;
	int exit_status;
};
int store_round_new(pgsc_store *st, const char *label, const char *mode,
		    double started, int64_t *id, char **cause);
int store_round_finish(pgsc_store *st, int64_t id, const struct store_round *r,
		       char **cause);

struct store_source {
	int64_t id;
	const char *path;
	uint64_t inode, offset, lines, last_serial;
	double last_event;
	char prefix_hash[24];
	uint64_t head_len;          /* 0: a row from before schema 8 */
	char head_hash[40];
	int64_t last_round;
	/* serials_save()'s state, written by store_source_put() (NULL:
	 * none); read by store_source_serials() */
	const uint8_t *serials;
	size_t serials_len;
};
/* Each source whose fingerprint is @fingerprint or @fingerprint/N (the
 * files that start with one line: schemas/008_source_head.sql), newest
 * first, to @cb with its fingerprint; a negative errno stops. */
int store_source_each(pgsc_store *st, const char *fingerprint,
		      int (*cb)(void *arg, const char *key,
				const struct store_source *src),
		      void *arg, char **cause);
int store_source_put(pgsc_store *st, const char *fingerprint,
		     const struct store_source *src, int64_t round,
		     char **cause);
/* The serial state stored with source @fingerprint, in a buffer the
 * caller frees: 1, 0 when there is none (*@buf NULL), or < 0. */
int store_source_serials(pgsc_store *st, const char *fingerprint,
			 uint8_t **buf, size_t *len, char **cause);

/* Prepared inserts for one round. */
struct store_batch;
int store_batch_new(pgsc_store *st, int64_t round, struct store_batch **out,
		    char **cause);
void store_batch_free(struct store_batch *b);
int store_batch_agg(struct store_batch *b, const struct role_agg *a,
		    char **cause);
int store_batch_proc(struct store_batch *b, const struct proc_info *p,
		     char **cause);
int store_batch_reject(struct store_batch *b, const char *reason,
		       uint64_t count, char **cause);
int store_live_round(pgsc_store *st, const char *mode, const char *source,
		     const char *label, const char *command, int64_t *round,
		     int *continued, char **cause);
int store_gap(pgsc_store *st, int64_t round, const char *kind, double at,
	      const char *detail, char **cause);
int store_round_get(pgsc_store *st, int64_t round, struct store_round *r,
		    char **cause);
int store_round_aggs(pgsc_store *st, int64_t round,
		     int (*cb)(void *arg, const struct role_agg *a), void *arg,
		     char **cause);
/* Drop a round's aggregates and open counts: a live commit writes its
 * whole snapshot afresh. */
int store_round_clear_snapshot(pgsc_store *st, int64_t round, char **cause);
int store_round_live_update(pgsc_store *st, int64_t round,
			    const struct store_round *r, int finished,
			    char **cause);
/* The newest known position in the file last read at @path. */
int store_source_by_path(pgsc_store *st, const char *path,
			 char fingerprint[24], struct store_source *src,
			 char **cause);
/* Processes of @round not known to have exited, oldest first. */
int store_live_procs(pgsc_store *st, int64_t round,
		     int (*cb)(void *arg, const struct proc_info *p),
		     void *arg, char **cause);
int store_batch_open(struct store_batch *b, const struct proc_count *c,
		     char **cause);
/* What a continued round gives back to its processes: its open counts
 * (by pid, birth and node) to @count, then to @proc the processes not
 * seen to exit and those with open counts, oldest first. */
int store_open_state(pgsc_store *st, int64_t round,
		     int (*count)(void *arg, const struct proc_count *c),
		     int (*proc)(void *arg, const struct proc_info *p),
		     void *arg, char **cause);
int store_batch_sample(struct store_batch *b, const char *reason,
		       const char *source, uint64_t line, uint64_t serial,
		       const char *excerpt, char **cause);

/* round.c - a round read and written the same way by import and live
 * (round.h); its tallies by role, also for the report. */
void round_tally_reset(struct store_round *r);
void round_tally(struct store_round *r, const struct role_agg *a);

/* netlink.c - the kernel's audit stream over netlink, audit status. */
struct netlink_figures {
	uint32_t enabled, pid, lost, backlog, backlog_limit;
	uint32_t backlog_wait_time;
	uint32_t backlog_wait_time_actual;
	int has_wait_actual;     /* the kernel reports backlog_wait_time_actual */
};
/* Read the kernel's audit status.  Returns 0 or a negative errno. */
int netlink_figures_get(struct netlink_figures *f, char **cause);
struct netlink;
/* Register as the kernel's audit daemon (refused with -EEXIST and a cause
 * naming the pid when another live daemon is registered), enable audit if
 * it is off, set the backlog limit and wait time (0 = leave as is), and
 * use a receive buffer of at least 8 MiB. */
int netlink_open(uint32_t backlog_limit, uint32_t backlog_wait_ms,
	       struct netlink **out, char **cause);
int netlink_fd(const struct netlink *s);
/* Append the records waiting on the socket to @buf as audit.log-style
 * text lines ("type=NAME msg=audit(...): ...\n"), without blocking.
 * Returns the bytes written (0: nothing waiting), or a negative errno. */
long netlink_read(struct netlink *s, char *buf, size_t cap);
/* Unregister (audit stays enabled) and close; NULL is a no-op. */
void netlink_close(struct netlink *s);
/* Send a user message through the kernel, so that it appears in the
 * audit stream (type=USER ... msg='@text'): the drain marker. */
int netlink_send_marker(const char *text, char **cause);

/* store_report.c - the store's reads for the report, status and diff. */
struct store_totals {
	/* unattributed: foreign not included (report_load() takes them
	 * out); foreign: records no server's (docs/roles.md) */
	uint64_t records, attributed, unrelated, standalone, unattributed;
	uint64_t foreign;
	uint64_t rejected;
	uint64_t lost, serial_gaps, rotation_gaps, drain_timeouts;
	int64_t unfinished;
};
int store_totals(pgsc_store *st, int64_t from, int64_t to,
		 struct store_totals *t, char **cause);
/* One role's count of one syscall over a range of rounds. */
struct store_role_row {
	const char *role;
	uint32_t arch;
	int32_t nr;
	uint64_t count;
	int64_t first_round, example_pid;
	const char *example_exe;
};
/* @node: one node's rows ("" the local host), NULL every node's. */
int store_role_aggs(pgsc_store *st, int64_t from, int64_t to,
		    const char *node,
		    int (*cb)(void *arg, const struct store_role_row *row),
		    void *arg, char **cause);
/* What store_sums() counts over rounds @from-@to, by name. */
enum store_sum {
	STORE_SUM_NODES,        /* the nodes ("" the local host), records */
	STORE_SUM_REJECTS,      /* the reject reasons, rejected lines */
};
int store_sums(pgsc_store *st, enum store_sum what, int64_t from, int64_t to,
	       int (*cb)(void *arg, const char *name, uint64_t sum),
	       void *arg, char **cause);
/* 1 when some round holds @role or its descendants, 0 when none does. */
int store_role_seen(pgsc_store *st, const char *role, char **cause);
/* 1 and the first and last finished round, 0 when none is finished. */
int store_finished_range(pgsc_store *st, int64_t *lo, int64_t *hi,
			 char **cause);
struct store_status_row {
	int64_t id, records, loss, nnew, nnew_sess;
	double started, first, last, finished_at, last_commit;
	int finished;
	const char *label, *mode;
};
int store_status_rows(pgsc_store *st,
		      int (*in_session)(void *arg, const char *role),
		      void *sarg,
		      int (*cb)(void *arg, const struct store_status_row *row),
		      void *arg, char **cause);

/* roles.c - role names, the descendant rule, session presets, rank. */
int roles_is_descendant(const char *role);
/* The role a descendant's role names ("descendant/walsender" -> walsender). */
const char *roles_ancestor(const char *role);
/* "descendant/@role" into @buf, or -ENAMETOOLONG. */
int roles_descendant(char *buf, size_t size, const char *role);
int roles_provisional(const char *role);
/* A PostgreSQL 15 backend type pgsc can name without a store. */
int roles_known(const char *role);
int roles_in_session(const struct strset *session, const char *role);
int roles_rank(const char *role);
int roles_cmp(const void *a, const void *b);   /* qsort of const char * */
/* report.c: the global and session lists of rounds @from-@to (0: all),
 * as pgsc-report prints them (pgsc-diff). */
int report_lists(pgsc_store *st, int64_t from, int64_t to,
		 const char *session_roles, const char *node,
		 struct strset *global, struct strset *session, char **cause);
/* The roles of a --session-roles spec (a preset or a list) into @roles. */
int roles_session_parse(const char *spec, struct strset *roles,
			 char **cause);

/* portable.c */
/* Add to @out the names that stand for @name on @arch: @name itself when
 * it exists there, else the nearest member of each of its families that
 * does; with @all, @name (if it exists) and every member that does.
 * Returns how many names were new in @out (with an empty @out, 0 means
 * no equivalent), or -ENOMEM. */
int portable_map(const char *name, uint32_t arch, int all,
		 struct strset *out);
/* systemd's SystemCallArchitectures= and the OCI profile's name of an
 * arch, or NULL. */
const char *portable_systemd_arch(uint32_t arch);
const char *portable_oci_arch(uint32_t arch);

/* scan.c - static candidate syscalls of an installed server: scanelf.c
 * (ELF objects, DT_NEEDED), scandis.c (disassembly, syscall sites),
 * scangraph.c (call graph, reachability), scanjson.c (output),
 * candidates.c (the coverage view of pgsc-report); docs/static.md. */
enum scan_kind {
	SCAN_EXE = 0,             /* the server binary */
	SCAN_MODULE,              /* a pkglibdir module (dlopen'ed) */
	SCAN_LIB,                 /* a DT_NEEDED library */
	SCAN_INTERP,              /* the dynamic loader (PT_INTERP) */
};
/* An edge out of a function: a local function (index), or an imported
 * symbol by name (resolved across objects by scangraph.c). */
struct scan_edge {
	uint32_t local;           /* UINT32_MAX when @import is set */
	const char *import;       /* interned in the object's names */
	int32_t arg0;             /* edi constant before the call, -1 if not */
};
struct scan_func {
	uint64_t addr, end;       /* [addr, end) */
	const char *name;         /* a symbol, or NULL */
	struct scan_edge *edges;
	size_t nedges, capedges;
	int32_t *sys;             /* resolved syscall numbers at direct sites */
	size_t nsys, capsys;
	uint32_t unresolved;      /* syscall sites with an unknown number */
	uint32_t sysarg;          /* sites whose number is the first argument
				   * (glibc's syscall()) */
	uint32_t indirect;        /* indirect calls and jumps */
	unsigned taken : 1;       /* its address is taken */
	unsigned exported : 1;    /* a defined, visible dynamic symbol */
};
/* A relocated pointer slot (GOT): the symbol it is bound to. */
struct scan_slot {
	uint64_t addr;
	const char *name;         /* NULL: an IRELATIVE or RELATIVE slot */
	uint64_t target;          /* its addend for IRELATIVE/RELATIVE */
};
struct scan_dsym {
	const char *name;
	uint64_t addr;
	int func;                 /* STT_FUNC or STT_GNU_IFUNC */
	int is_default;           /* not a hidden (non-default) version */
};
struct scan_sec {
	uint64_t addr, size;
	const unsigned char *data;
	int plt;                  /* .plt, .plt.sec, .plt.got */
};
struct scan_obj {
	char *path;
	const char *base;         /* file name part of @path */
	enum scan_kind kind;
	unsigned char *image;     /* the whole file */
	size_t image_len;
	void *elf;                /* Elf * */
	struct scan_dsym *fsyms;  /* function symbols (dynsym, symtab), by
				   * address: starts and names */
	size_t nfsyms;
	const char **needed;
	size_t nneeded;
	const char *runpath, *rpath, *soname;
	char *interp;
	uint64_t entry;
	uint64_t *roots;          /* DT_INIT, DT_FINI, init/fini arrays */
	size_t nroots;
	struct scan_dsym *dsyms;  /* defined dynamic symbols, by name */
	size_t ndsyms;
	struct scan_slot *slots;  /* relocated slots, by address */
	size_t nslots;
	uint64_t *taken;          /* data-relocated code addresses */
	size_t ntaken;
	struct scan_sec *secs;    /* executable sections */
	size_t nsecs;
	struct scan_func *funcs;  /* sorted by address */
	size_t nfuncs;
	const char **taken_imports; /* imported functions whose address is
				     * read (not called) */
	size_t ntaken_imports;
	uint64_t insns, sites, bad_bytes;
};
/* scanelf.c */
/* Load an ELF object (a copy of @len bytes at @data, named @path).
 * Returns 0, or a negative errno with *cause naming @path. */
int scanelf_load_mem(const char *path, const void *data, size_t len,
		     enum scan_kind kind, struct scan_obj **out, char **cause);
int scanelf_load(const char *path, enum scan_kind kind,
		 struct scan_obj **out, char **cause);
void scanelf_free(struct scan_obj *o);
/* The path the loader would use for DT_NEEDED @name of @from: RPATH
 * (when no RUNPATH), LD_LIBRARY_PATH is ignored, RUNPATH, ld.so.cache,
 * the default directories.  @root prefixes every path (""), for tests.
 * Returns 0 and a malloc'd *out, or -ENOENT. */
int scanelf_find_needed(const struct scan_obj *from, const char *name,
			const char *root, char **out);
/* Parse /etc/ld.so.cache (new format) of @len bytes: call @cb for each
 * (name, path) entry of the x86-64 kind.  Returns the number of entries
 * or -EINVAL. */
int scanelf_ldcache_parse(const unsigned char *data, size_t len,
			  int (*cb)(void *arg, const char *name,
				    const char *path), void *arg);
const struct scan_dsym *scanelf_dsym(const struct scan_obj *o,
				     const char *name);
const struct scan_slot *scanelf_slot(const struct scan_obj *o, uint64_t a);
/* The executable section holding @a, or NULL. */
const struct scan_sec *scanelf_sec(const struct scan_obj *o, uint64_t a);

/* scandis.c */
/* Disassemble @o's executable sections: functions, their edges and
 * syscall sites.  Returns 0, or a negative errno. */
int scandis_object(struct scan_obj *o, char **cause);
/* Index of the function containing @addr, or -1. */
long scandis_func_at(const struct scan_obj *o, uint64_t addr);

/* scangraph.c */
struct scan;                 /* every object and the reachability */
int scangraph_run(const struct pgsc_scan_opts *opts, struct scan **out, char **cause);
void scangraph_free(struct scan *s);
/* Candidate syscalls, sorted by name. */
struct scan_cand {
	const char *name;
	int32_t nr;
	const char **chain;        /* function names from the site outwards */
	size_t nchain;
	int postmaster, children;  /* reachable from main with the child
				    * entries cut off / from the child
				    * entries (-1: no phase split) */
};
size_t scangraph_candidates(const struct scan *s, const struct scan_cand **out);
/* Figures for the summary. */
struct scan_stats {
	size_t objects, modules, libs, funcs, reached;
	uint64_t insns, sites, unresolved_sites;
	uint64_t unresolved_reached, indirect_sites, bad_bytes;
	uint64_t unresolved_calls;  /* reached calls of syscall(2) whose
				     * number is not a constant */
	int phases;               /* the phase split was computed */
};
void scangraph_get_stats(const struct scan *s, struct scan_stats *st);
size_t scangraph_objects(const struct scan *s, const struct scan_obj *const **out);
int scangraph_indirect(const struct scan *s);
/* Objects left out ("PATH: reason"): pkglibdir files that are not x86-64
 * ELF objects, libraries of modules that cannot be found or read. */
size_t scangraph_skipped(const struct scan *s, const char *const **out);
/* Did the server's reachability reach function @func of object @obj? */
int scangraph_func_reached(const struct scan *s, size_t obj, size_t func);
/* Reached calls of syscall(2) with an unknown number made by function
 * @func of object @obj. */
unsigned scangraph_func_unknown_calls(const struct scan *s, size_t obj,
				 size_t func);

/* scanjson.c */
int scanjson_write(const struct scan *s, FILE *out);
int scanjson_text_write(const struct scan *s, FILE *out);

/* candidates.c - pgsc-report --candidates */
struct cand_list;
/* Read a pgsc-scan JSON file (bounded: 32 MiB).  Returns 0 or a
 * negative errno with *cause naming the file and line. */
int candidates_load(const char *path, struct cand_list **out, char **cause);
int candidates_parse(const char *name, const char *text, size_t len,
		     struct cand_list **out, char **cause);
void candidates_free(struct cand_list *c);
size_t candidates_count(const struct cand_list *c);

/* diff.c, diff_compare.c - list pairs and their differences (pgsc-diff) */
/* Largest text input, names in one list, bytes in one name, JSON depth. */
#define DIFF_TEXT_MAX (16 * 1024 * 1024)
#define DIFF_NAMES_MAX 4096
#define DIFF_NAME_MAX 64
#define DIFF_JSON_DEPTH 64
/* A pair from text already in memory (a GUC file or a JSON report);
 * @name names it in causes. */
int diff_load_buffer(const char *buf, size_t len, const char *name,
		     pgsc_lists **out, char **cause);
/* The "global" and "session" arrays of a JSON object. */
int diff_parse_json(const char *buf, size_t len, const char *name,
		    struct strset *global, struct strset *session,
		    char **cause);
/* @s escaped with pgsc_text_escape(), in a new string; NULL on OOM. */
char *diff_escaped(const char *s);
/* The list @which (0 global, 1 session) of a pair. */
const struct strset *diff_lists_set(const pgsc_lists *ls, int which);
/* A GUC list value: names separated by commas and blanks. */
int diff_parse_names(const char *value, const char *name, const char *which,
		     struct strset *out, char **cause);

/* families.c */
struct family {
	const char *name;               /* the family's id in families.def */
	const char *reason;             /* one line: why they are one job */
	const char *const *members;     /* NULL-terminated */
};
size_t families_count(void);
const struct family *families_at(size_t i);
/* The family called @name, or NULL. */
const struct family *families_find(const char *name);
/* The @i-th family (from 0) that has @member, or NULL past the last. */
const struct family *families_of(const char *member, size_t i);
/* Returns 1 when @member is in @f, else 0. */
int families_has(const struct family *f, const char *member);
/* Returns 1 when syscall @member exists on audit arch @arch, 0 when
 * libseccomp knows the name but the arch lacks it, -ENOENT when
 * libseccomp does not know the name, -EINVAL for an unknown arch. */
int families_exists(const char *member, uint32_t arch);

/* filter.c */
/* The allow list @which ("global", "session") of GUC text in memory. */
int filter_guc_list(const char *buf, size_t len, const char *path,
		    const char *which, char **out, char **cause);
struct ruleset_unknown;
/* pgsc_filter_load() with an unknown part (ruleset.c; NULL: none) */
int filter_load_unknown(enum pgsc_action def, const char *allow,
			const struct ruleset_unknown *u, char **cause);

/* arch.c - the one table of arches */
struct arch_info {
	uint32_t token;         /* audit arch token, SCMP_ARCH_* */
	const char *name;       /* as auparse prints arch= */
	const char *systemd;    /* SystemCallArchitectures= */
	const char *oci;        /* an OCI profile's architectures */
	uint32_t compat;        /* the 32-bit arch that runs on it, or 0 */
};
const struct arch_info *arch_find(uint32_t token);
int arch_known_max(uint32_t arch);
int arch_known_max_spec(const char *spec, uint32_t arch, int *max,
			     char **cause);
int arch_known_max_text(char *buf, size_t size);
#define ARCH_LIST_MAX 16        /* arches arch_known_max_list() takes */
int arch_known_max_list(char *buf, size_t size, const uint32_t *arch,
			     size_t n, int json);

/* rules.c - pgsc's audit rules (key "pgsc"), loaded through auditctl */
/* Load them, removing stale ones first; needs root. */
int rules_load(char **cause);
int rules_remove(void);

/* ruleset.c - the one seccomp filter builder */
struct ruleset_rule {
	const char *name;       /* for messages */
	int nr;                 /* a negative placeholder is allowed */
	uint32_t action;        /* SCMP_ACT_* */
};
enum ruleset_step {
	RULESET_INIT, RULESET_COMPAT, RULESET_LOG, RULESET_RULE, RULESET_LOAD,
	RULESET_UNKNOWN, RULESET_MERGE,
};
struct ruleset_unknown {        /* ENOSYS above the known max */
	int max_native;         /* -1: none on that arch */
	int max_compat;
};
int ruleset_load(uint32_t def, const struct ruleset_rule *r, size_t n,
		 const struct ruleset_unknown *u, enum ruleset_step *step,
		 size_t *bad);
/* The calls a backend makes to build and load its session (or client
 * type) filter under the global filter: ruleset_export() and
 * ruleset_load() (malloc, the pipe, no_new_privs, seccomp(2)).  The
 * module refuses to start with a global filter that refuses one of
 * them, and pgsc-report adds them to every global list it prints.
 * NULL-terminated. */
extern const char *const ruleset_needs[];
/* The same filter as BPF (struct sock_filter), malloc'd, at most
 * RULESET_BPF_MAX bytes (BPF_MAXINSNS instructions of 8 bytes). */
#define RULESET_BPF_MAX (4096 * 8)
int ruleset_export(uint32_t def, const struct ruleset_rule *r, size_t n,
		   const struct ruleset_unknown *u, void **bpf, size_t *len,
		   enum ruleset_step *step, size_t *bad);

/* lists.c - the one tokenizer of syscall lists */
#define LISTS_SEP_BLANKS " \t\n"      /* what pgsc-exec splits on */
enum {
	LISTS_SPLIT_BLANKS = 1,         /* "read write": two names */
	LISTS_KEEP_EMPTY = 2,           /* "a,,b": an empty name too */
};
const char *lists_next(const char **p, const char *blanks, int flags,
		       size_t *len);

/* utf8.c - the one UTF-8 decoder and encoder */
size_t utf8_decode(const unsigned char *p, size_t n, uint32_t *cp);
size_t utf8_encode(uint32_t cp, char out[4]);

/* json.c - the one JSON reader: a cursor, strict (RFC 8259) or loose */
struct json {
	const char *start, *p, *end;
	int depth, maxdepth;
	int strict;
	int failed;             /* json_fail() was called: */
	size_t fail_at;         /* the byte where, */
	int fail_end;           /* whether that was the end, */
	char why[128];          /* and why */
};
struct json_str {
	size_t len;             /* decoded bytes, even past the buffer */
	int over;               /* did not fit (with its NUL) */
	int nul;                /* held \u0000 */
	int nonascii;           /* held a byte past 0x7f */
};
void json_init(struct json *j, const char *buf, size_t len, int strict,
	       int maxdepth);
int json_fail(struct json *j, const char *fmt, ...) PGSC_PRINTF(2, 3);
void json_ws(struct json *j);
int json_eat(struct json *j, char c);
int json_at(struct json *j, char c);
int json_next(struct json *j, char close);
int json_string(struct json *j, char *dst, size_t cap, struct json_str *s);
int json_skip(struct json *j);
#define JSON_KEY_MAX 64         /* a name json_each_member() hands on */
int json_each_member(struct json *j,
		     int (*fn)(struct json *j, const char *key, void *arg),
		     void *arg);
int json_each_element(struct json *j,
		      int (*fn)(struct json *j, void *arg), void *arg);
int json_read_object(struct json *j, const char *buf, size_t len,
		     int maxdepth,
		     int (*fn)(struct json *j, const char *key, void *arg),
		     void *arg);
int json_int(struct json *j, long long *v);
int json_strdup(struct json *j, size_t max, char **out);
size_t json_fail_line(const struct json *j);

#endif /* PGSC_INT_H */
