/* SPDX-License-Identifier: PostgreSQL */
/* pgsc-int.h - internal declarations the collector core shares: util,
 * strbuf, strset, strhash, serials, logsrc, decode, audit rules, utf8. */
/*
 * A concept that a few files use has a header of its own, included by
 * the files that use it: syscalls.h (names across arches), filter.h (the
 * seccomp filter), feed.h, proctree.h, pglog.h, store.h, round.h,
 * netlink.h, roles.h, diff.h, candidates.h, report_html.h, gucfile.h,
 * json.h, and scan.h for the separately linked scan library.
 */
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
void util_diag(FILE *out, const char *fmt, ...) PGSC_PRINTF(2, 3);
uint64_t util_hash(const void *data, size_t len, uint64_t seed);
double util_now(void);
double util_cpu_now(void);
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
/* The epoch time @t as ISO 8601 in UTC with milliseconds
 * ("2026-12-06T01:45:00.123Z") in @buf (at least UTIL_ISO_TIME_MAX).
 * Returns @buf. */
#define UTIL_ISO_TIME_MAX 32
char *util_iso_time(char *buf, size_t size, double t);
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
/* Remove @str; 1 if it was there, 0 if not. */
int strset_del(struct strset *s, const char *str);
void strset_free(struct strset *s);

/* strhash.c - interned strings in a hash table (a fleet's node names:
 * constant cost per lookup at any size). */
struct strhash {
	char **slot;            /* open addressing, NULL empty */
	size_t nslot, n;
};
const char *strhash_intern(struct strhash *h, const char *str);
const char *strhash_find(const struct strhash *h, const char *str);
void strhash_free(struct strhash *h);

/* surface.c - the attack-surface score (issue 28, part 4): the CVE map
 * (src/cves.def) and the lists it is set beside (src/baselines.def). */
struct surface_cve {
	const char *id;             /* "CVE-YYYY-N" */
	const char *syscalls;       /* x86_64 names apart by blanks */
	const char *condition;      /* the argument it needs, "" none known */
	const char *refs;           /* URLs apart by blanks */
};
struct surface_baseline {
	const char *id;             /* "docker", "system_service" */
	const char *title, *source;
};
/* The map's entries into *@v (NULL-safe); returns their number. */
size_t surface_cves(const struct surface_cve **v);
size_t surface_baselines(const struct surface_baseline **v);
/* Does @names allow any syscall of @c? */
int surface_cve_reached(const struct surface_cve *c, const struct strset *names);
/* The number of the map's CVEs @names reaches. */
size_t surface_reachable(const struct strset *names);
/* The CVE ids whose entry names @name, added to @out. */
int surface_cves_of(const char *name, struct strset *out);
/* The names baseline @id allows, added to @out. */
int surface_baseline_names(const char *id, struct strset *out);

/* surface_args.c - the score after argument rules: the map's conditions
 * (src/cve_conds.def) against a list's rules. */
/* A list's rule for one name as the score reads it: @nargs arguments
 * (index, mask; ~0 the whole argument), @nalts alternatives of @stride
 * values each from @val. */
struct surface_rule {
	unsigned nargs;
	unsigned char arg[3];
	uint64_t mask[3];
	size_t nalts, stride;
	const uint64_t *val;
};
/* 1 with *@r when the list has a rule for @name, 0 when it allows @name
 * with every argument. */
typedef int (*surface_rule_fn)(void *arg, const char *name,
			       struct surface_rule *r);
struct argrule;
/* The value of constant @name (@len bytes) from the system's headers. */
int surface_const(const char *name, size_t len, uint64_t *v);
/* The rules of cve_conds.def for a condition of cves.def, or NULL. */
const char *surface_cond_rules(const char *condition);
/* Its entry for call @name parsed: 1, 0 none, -EINVAL. */
int surface_cond_parse(const char *rules, const char *name, struct argrule *r);
/* 1 when call @name stays open under condition @cr (a CVE's need). */
typedef int (*surface_call_fn)(void *arg, const char *name,
			       const struct argrule *cr);
/* Does a call of CVE @c's entry that @names allows stay open?  Calls
 * with no readable condition are; @open decides the others. */
int surface_cve_walk(const struct surface_cve *c, const struct strset *names,
		     surface_call_fn open, void *arg);
/* Does CVE @c stay reachable by @names under the rules of @fn? */
int surface_cve_open(const struct surface_cve *c, const struct strset *names,
		     surface_rule_fn fn, void *arg);
/* The CVEs @names reaches under the rules of @fn into *@n, the ones the
 * rules close added to @closed (NULL: not kept).  0 or -ENOMEM. */
int surface_reachable_rules(const struct strset *names, surface_rule_fn fn,
			    void *arg, size_t *n, struct strset *closed);

/* surface_baseline.c - a baseline's own argument rules (baselines.def
 * BASELINE_ARGS) and the CVEs still reachable under them. */
struct surface_barg {
	const char *id, *name, *args;   /* one rule: "a0:GT:40 ..." */
};
enum surface_op {
	SURFACE_EQ, SURFACE_NE, SURFACE_LT, SURFACE_LE, SURFACE_GT,
	SURFACE_GE, SURFACE_MASKED_EQ,
};
#define SURFACE_BTERMS_MAX 6
/* One rule parsed: its terms, ANDed; @v2 MASKED_EQ's value (@v its mask). */
struct surface_balt {
	size_t n;
	struct surface_bterm {
		unsigned char arg;
		enum surface_op op;
		uint64_t v, v2;
	} t[SURFACE_BTERMS_MAX];
};
/* The BASELINE_ARGS lines of baselines.def. */
size_t surface_bargs(const struct surface_barg **v);
/* A rule's text parsed into @a: 0 or -EINVAL. */
int surface_barg_parse(const char *args, struct surface_balt *a);
/* Does rule @a admit any call condition @cr needs?  1 unless provably not. */
int surface_balt_admits(const struct surface_balt *a, const struct argrule *cr);
/* Does CVE @c stay reachable by @names under baseline @id's rules in @v? */
int surface_barg_cve_open(const struct surface_barg *v, size_t n,
			  const char *id, const struct surface_cve *c,
			  const struct strset *names);
/* The CVEs @names reaches under baseline @id's rules in @v into *@after,
 * the ones they close added to @closed (NULL: not kept).  0 or -ENOMEM. */
int surface_barg_reachable(const struct surface_barg *v, size_t n,
			   const char *id, const struct strset *names,
			   size_t *after, struct strset *closed);

/* serials.c - serial gaps: kernel serials of a stream should leave no
 * holes; one sequence per node.  The fields are the local host's
 * sequence (records without node=); @nodes the other nodes'.  Shared by
 * a live collection (live.c) and an import (import.c). */
#define SERIAL_WINDOW (1u << 20)
struct serials_node;
struct serials {
	uint8_t *bits;
	uint64_t window;            /* bits; 0: SERIAL_WINDOW */
	uint64_t base, min, max, first;
	uint64_t epoch;             /* 2^32 per wrap of the kernel's serial */
	int started;
	int boundary;               /* a new file begins: see serials_file() */
	uint64_t gaps;
	uint64_t untracked;         /* a node past the bound: its records */
	uint64_t base_gaps, base_untracked; /* serials_base() */
	struct serials_node *nodes;
	size_t nnodes, capnodes, last, nwindows;
	size_t *slot, nslot;        /* the nodes by name: index + 1 */
};
uint64_t serials_mark(struct serials *s, uint64_t serial, const char *node,
		      size_t nlen);
void serials_file(struct serials *s);
uint64_t serials_gaps(const struct serials *s, int settled);
uint64_t serials_untracked(const struct serials *s);
int serials_each_node(const struct serials *s, int settled,
		      int (*cb)(void *arg, const char *name, size_t len,
				uint64_t gaps, uint64_t untracked),
		      void *arg);
int serials_base(struct serials *s, const char *name, size_t len,
		 uint64_t gaps, uint64_t untracked);
ssize_t serials_save(const struct serials *s, int settled, uint8_t **out);
int serials_load(struct serials *s, const uint8_t *buf, size_t len);
void serials_free(struct serials *s);

/* import.c */
#ifdef PGSC_UNITTEST
/* bytes read at a time, processes made between two early folds */
extern size_t import_read_chunk, import_fold_every;
#endif

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
struct decode_cache;
/* The record type (>= 0), or minus a reject reason: -PGSC_REJ_NO_HEADER,
 * -PGSC_REJ_BAD_TIME. */
int decode_header(const char *line, size_t len, int *type_num,
		  const char **type_name, size_t *type_name_len,
		  int64_t *sec, int *msec, uint64_t *serial);
size_t decode_is_seccomp(const char *line, size_t len);
int decode_auparse_reads(const char *line, size_t len, size_t msg);
/* pgsc_record_decode() of a line the feed has checked: no newline, no NUL
 * byte, at most PGSC_LINE_MAX bytes. */
int decode_line(const char *line, size_t len, struct pgsc_record *rec);
#ifdef PGSC_UNITTEST
/* decode_line() without the SECCOMP fast reader (decode_seccomp_fast()) */
int decode_line_general(const char *line, size_t len,
			struct pgsc_record *rec);
#endif
long decode_node(const char *line, size_t len, const char **node,
		 size_t *nlen);
/* decode_line() with @dc, the SECCOMP reader's cache (decode_fast.c);
 * the same record, read faster.  @msg: decode_is_seccomp()'s answer for
 * the line (> 0), or 0 */
int decode_line_cache(const char *line, size_t len, size_t msg,
		      struct pgsc_record *rec, struct decode_cache *dc);

/* decode_fast.c */
#define DECODE_CACHE_N 4         /* processes whose SECCOMP bytes are kept */
struct decode_cache_ent {
	size_t len;                 /* bytes of auid= .. arch=X; 0: empty */
	int64_t uid, pid;
	uint32_t arch;
	size_t comm_len, exe_len;
	char bytes[384];
	char comm[PGSC_COMM_MAX + 1];
	char exe[384];
};
/* zeroed: empty */
struct decode_cache {
	struct decode_cache_ent ent[DECODE_CACHE_N]; /* most recent first */
	int plain;  /* set by its owner: the lines it gives now have no
		     * \x1d (no enriched tail to look for) */
};
/* the SECCOMP fields after the header, [@p, @end), into @rec: 0, or -1
 * for a line not as the kernel lays it out (the general loop reads it);
 * @dc may be NULL */
int decode_seccomp_fast(const char *p, const char *end,
			struct pgsc_record *rec, struct decode_cache *dc);
/* an audit string value into @dst: quoted as is, hex decoded, "(null)"
 * empty; @nul_sep turns NUL bytes into spaces */
void decode_copy_value(char *dst, size_t cap, const char *v, size_t n,
		       int quoted, int nul_sep);

/* args.c - the argument values pgsc-collect --args collects (docs/args.md) */
#define ARGS_NV 2               /* values a key takes at most */
#define ARGS_VALUES_MAX 256     /* distinct values per call and role kept */
#define ARGS_VALS_MAX 48        /* the stored text of the values, with NUL */
struct args_obs {
	const char *role;       /* interned; NULL in a process's table */
	uint32_t arch;
	int32_t nr;
	unsigned nv;            /* values in v; 0: any value (too many) */
	uint64_t v[ARGS_NV];
	uint64_t count;
};
struct args_tab {
	struct args_obs *e;
	size_t n, cap;
};
const char *args_key(const char *name);
int args_hex(const char *name);
unsigned args_nv(const char *name);
unsigned args_layout(const char *name, unsigned idx[ARGS_NV],
		     uint64_t mask[ARGS_NV]);
const char *args_call(size_t i);
int args_extract(uint32_t arch, int64_t nr, const uint64_t a[4],
		 struct args_obs *o);
int args_tab_add(struct args_tab *t, const struct args_obs *o);
void args_tab_free(struct args_tab *t);
void args_vals_text(const struct args_obs *o, char *buf);
int args_vals_parse(const char *s, unsigned nv, struct args_obs *o);

/* auditrules.c - pgsc's audit rules (key "pgsc"), loaded through auditctl */
/* Load them, removing stale ones first; needs root. */
/* @args: also the --args rules for server uid @uid (docs/args.md) */
int auditrules_load(int args, uint32_t uid, char **cause);
int auditrules_remove(void);

/* utf8.c - the one UTF-8 decoder and encoder */
size_t utf8_decode(const unsigned char *p, size_t n, uint32_t *cp);
size_t utf8_encode(uint32_t cp, char out[4]);

#endif /* PGSC_INT_H */
