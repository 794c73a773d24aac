/* SPDX-License-Identifier: PostgreSQL */
/* import.c - pgsc_import(): audit log files into a new round of the store. */
/*
 * The flow (docs/design.md §2): bytes -> feed (libauparse) -> records -> process
 * tree -> aggregates -> one transaction.  The whole round, the sources'
 * new positions included, is committed at once, so an import killed at
 * any point leaves the store as it was and can simply be run again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "pgsc-int.h"
#include "ahead.h"
#include "feed.h"
#include "pglog.h"
#include "proctree.h"
#include "store.h"
#include "round.h"

/* read in pieces that stay in the CPU's cache between the kernel's copy
 * and the line splitter: 1 MiB cost 0.15 s of system time on a 342 MB
 * log, 128 KiB 0.04 s (64 KiB and 256 KiB were slower; docs/internals.md,
 * "Issue 30 part 6") */
#define READ_CHUNK (128 * 1024)
#define MAX_SAMPLES 100
#define EXCERPT_MAX 200
#define HEAD_MAX (64 * 1024)        /* the start that identifies a file */
#define MAX_HOLES 100               /* serial ranges between files kept */
/* processes made between two early folds (round_fold()): about 0.5 MB */
#define FOLD_EVERY 1024

/* The unit tests fold after every few lines (tests/unit/test_store.c). */
UNITTEST size_t import_read_chunk = READ_CHUNK;
UNITTEST size_t import_fold_every = FOLD_EVERY;

struct infile {
	const char *path;
	struct logsrc *ls;          /* src/logsrc.c: plain, compressed, stdin */
	size_t order;               /* its place among the operands */
	uint64_t inode;
	double first_t;
	uint64_t first_serial;
	char fingerprint[24];       /* its first line's hash */
	char key[48];               /* the store's: fingerprint[/N] */
	uint64_t head_len;          /* its start, hashed: head */
	char head[40];
	uint64_t start, lines0;     /* where this import begins */
	int skip;
	uint64_t end_offset, end_lines;
	char end_hash[24];          /* the prefix hash at end_offset */
	uint64_t last_serial;
	double last_event;
	int64_t seed_round;         /* round that last read it */
	uint8_t *serials;           /* serials_save() at its end */
	size_t serials_len;
};

struct sample {
	int reason;
	const char *source;
	uint64_t line, serial;
	char *excerpt;
};

struct importer {
	const struct pgsc_import_opts *opts;
	FILE *diag;
	struct round rd;            /* tree, feed, counts, serials (round.c) */
	struct ahead *ahead;        /* the reading thread, NULL: none */
	struct infile *files;
	size_t nfiles;
	struct infile *cur;
	uint64_t file_rejects;
	struct sample samples[MAX_SAMPLES];
	size_t nsamples;
	uint64_t outside;           /* --since/--until */
	const char *prev_path;      /* the file read before this one */
	char *holes[MAX_HOLES];     /* between files: the gaps table */
	size_t nholes;
	double seen_first, seen_last; /* every SECCOMP record's, in or out */
};

/* round_ops.record: the window of --since/--until, and where the file
 * stands; round.c counts what is in the window. */
static int
imp_record(void *arg, const struct pgsc_record *rec, double t)
{
	struct importer *im = arg;

	if (rec->type == PGSC_REC_SECCOMP)
		util_widen(&im->seen_first, &im->seen_last, t);
	/* the window selects what is counted; the process tree still
	 * learns from every other record (a backend forked before
	 * --since) */
	if (rec->type == PGSC_REC_SECCOMP &&
	    ((im->opts->has_since && rec->sec < im->opts->since) ||
	     (im->opts->has_until && rec->sec > im->opts->until))) {
		im->outside++;
		return 0;
	}
	if (im->cur != NULL && rec->type != PGSC_REC_OTHER) {
		im->cur->last_serial = rec->serial;
		im->cur->last_event = t;
	}
	return 1;
}

/* round_ops.reject: a sample kept, and said up to --max-diagnostics per
 * file. */
static void
imp_reject(void *arg, int reason, const struct feed_loc *loc, uint64_t serial,
	   const char *text, size_t len)
{
	struct importer *im = arg;
	size_t maxd = im->opts->max_diagnostics ? im->opts->max_diagnostics : 20;

	im->file_rejects++;
	if (im->nsamples < MAX_SAMPLES) {
		struct sample *s = &im->samples[im->nsamples++];

		s->reason = reason;
		s->source = loc->file;
		s->line = loc->line;
		s->serial = serial;
		s->excerpt = util_excerpt(text, len, EXCERPT_MAX);
	}
	if (!im->opts->quiet && im->file_rejects <= maxd) {
		char *ex = util_excerpt(text, len, 120);

		if (loc->line)
			util_diag(im->diag, "%s:%llu: rejected (%s): %s\n",
				loc->file, (unsigned long long)loc->line,
				pgsc_reject_name(reason), ex ? ex : "");
		else
			util_diag(im->diag, "%s: serial %llu: rejected (%s): %s\n",
				loc->file, (unsigned long long)serial,
				pgsc_reject_name(reason), ex ? ex : "");
		free(ex);
	}
}

/*
 * Every record's serial, per node, across the files of the call in the
 * order they are read (serials.c): a hole is a gap of the round, as in a
 * live run.  A hole at the start of a file, after the highest serial of
 * the files before it, is the serials of a file not given (a rotated
 * one): said with its range and kept in the gaps table.  Not gaps: the
 * serials before the first file's first (the log starts mid-stream), and
 * a file that starts well below the files before (another boot).
 */
static void
imp_hole(void *arg, uint64_t serial, uint64_t hole, const char *node,
	 size_t nlen)
{
	struct importer *im = arg;
	char *d = NULL, *nd;

	if (im->cur == NULL)
		return;
	nd = node ? util_excerpt(node, nlen, 64) : NULL;
	util_cause(&d, "%s: serials %llu-%llu%s%s are in no file given "
		   "(%s ends before them): a rotated file missing?",
		   im->cur->path,
		   (unsigned long long)((serial - hole) & 0xffffffffu),
		   (unsigned long long)((serial - 1) & 0xffffffffu),
		   nd ? " of node " : "", nd ? nd : "",
		   im->prev_path ? im->prev_path : "the file before");
	free(nd);
	if (d == NULL)
		return;
	if (!im->opts->quiet)
		util_diag(im->diag, "%s\n", d);
	if (im->nholes < MAX_HOLES)
		im->holes[im->nholes++] = d;
	else
		free(d);
}

static void
hex64(char out[24], uint64_t v)
{
	snprintf(out, 24, "%016llx", (unsigned long long)v);
}

/*
 * The identity of a file's start (schemas/008_source_head.sql): not a
 * cryptographic hash, two of different families (util_hash(), zlib's
 * CRC-32) so that different logs never meet by accident.  Whoever can
 * craft a collision writes the log, and could write its records anyway.
 */
static void
head_hash(const char *p, size_t n, char out[40])
{
	snprintf(out, 40, "%016llx%08lx",
		 (unsigned long long)util_hash(p, n, 0x68656164),
		 crc32(0L, (const Bytef *)p, (uInt)n));
}

/* Open an input (src/logsrc.c) and identify it by its first line and by
 * its first HEAD_MAX bytes. */
static int
infile_open(struct infile *f, char **cause)
{
	const char *line;
	size_t len;
	int type_num;
	const char *tn;
	size_t tl;
	int64_t sec;
	int msec;
	int rc;

	rc = logsrc_open(f->path, &f->ls, cause);
	if (rc < 0)
		return rc;
	f->path = logsrc_name(f->ls);
	f->inode = logsrc_inode(f->ls);
	f->first_t = logsrc_mtime(f->ls);
	if (logsrc_empty(f->ls) ||
	    logsrc_first_line(f->ls, &line, &len) < 0) {
		/* empty, or one incomplete line: nothing to import yet */
		f->skip = 1;
		return 0;
	}
	hex64(f->fingerprint, util_hash(line, len, 0x70677363));
	if (decode_header(line, len, &type_num, &tn, &tl, &sec, &msec,
			  &f->first_serial) >= 0)
		f->first_t = (double)sec + msec / 1000.0;
	rc = logsrc_head(f->ls, HEAD_MAX, &line, &len, cause);
	if (rc < 0)
		return rc;
	f->head_len = len;
	head_hash(line, len, f->head);
	return 0;
}

static int
infile_cmp(const void *a, const void *b)
{
	const struct infile *x = a, *y = b;

	if (x->first_t != y->first_t)
		return x->first_t < y->first_t ? -1 : 1;
	if (x->first_serial != y->first_serial)
		return x->first_serial < y->first_serial ? -1 : 1;
	/* a directory's files come oldest first (pgsc_import_expand()) */
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The damage that ended a compressed file, as a reject of its own. */
static void
damage_note(struct importer *im, struct infile *f, const char *why)
{
	char msg[512];
	struct feed_loc loc = { .file = f->path,
				.line = feed_lines(im->rd.feed) + 1 };
	size_t nl = strlen(f->path);

	/* logsrc's message starts with the name the location gives */
	if (why != NULL && strncmp(why, f->path, nl) == 0 &&
	    strncmp(why + nl, ": ", 2) == 0)
		why += nl + 2;
	snprintf(msg, sizeof(msg), "decoded offset %llu: %s",
		 (unsigned long long)(feed_offset(im->rd.feed) +
				      feed_pending(im->rd.feed)),
		 why ? why : "damaged data");
	round_reject(&im->rd, PGSC_REJ_DAMAGED, &loc, 0, msg, strlen(msg));
}

/* A failure with no room left (-ENOSPC) rolled the import back: say what
 * it left, nothing. */
static void
say_rolled_back(const struct importer *im, int rc, char **cause)
{
	char *c;

	if (rc != -ENOSPC || !im->rd.rolled_back || cause == NULL ||
	    *cause == NULL)
		return;
	c = *cause;
	*cause = NULL;
	util_cause(cause, "%s; the import was rolled back and the store is "
		   "unchanged: free some space and run it again", c);
	free(c);
}

/* Read @f to its end (or its damage) into the feed, a piece at a time:
 * from the reading thread when there is one (ahead.c), else here. */
static int
read_pieces(struct importer *im, struct infile *f, char *buf,
	    struct pgsc_import_stats *stats, char **cause)
{
	int rc;

	for (;;) {
		char *why = NULL;
		struct ahead_chunk *ck = NULL;
		const char *data = buf;
		ssize_t n;

		if (im->ahead != NULL)
			n = ahead_next(im->ahead, &data, &ck, &why);
		else
			n = logsrc_read(f->ls, buf, import_read_chunk, &why);

		if (n < 0) {
			rc = (int)n;
			if (rc == -ENOMEM) {
				free(why);
				util_cause(cause, "%s: out of memory", f->path);
				return rc;
			}
			/* damaged: what came before it is kept and counted,
			 * the damage is a reject at the line and decoded
			 * offset it cuts (the stored position stays there,
			 * so a re-import meets it again, and a repaired
			 * copy is read on from it), the input is reported
			 * (exit status 1) */
			damage_note(im, f, why);
			free(why);
			stats->refused_files++;
			break;
		}
		if (n == 0)
			break;
		rc = feed_bytes_ahead(im->rd.feed, data, (size_t)n, ck);
		if (im->ahead != NULL)
			ahead_done(im->ahead);
		if (rc < 0) {
			util_cause(cause, "%s: out of memory", f->path);
			return rc;
		}
		/* the processes that are done go to the store, so that
		 * memory holds the live ones, not every one of the log */
		rc = round_fold(&im->rd, import_fold_every, cause);
		if (rc < 0) {
			say_rolled_back(im, rc, cause);
			return rc;
		}
	}
	return 0;
}

static int
read_file(struct importer *im, struct infile *f, char *buf,
	  struct pgsc_import_stats *stats, char **cause)
{
	int rc = 0;
	char *err = NULL;

	/* a file waits closed until it is read (logsrc_suspend()) */
	rc = logsrc_reopen(f->ls, &err);
	if (rc == -ENOMEM) {
		free(err);
		return rc;
	}
	if (rc < 0) {
		util_diag(im->diag, "%s\n", err ? err : f->path);
		free(err);
		f->skip = 1;
		stats->refused_files++;
		return 0;
	}
	im->cur = f;
	im->file_rejects = 0;
	serials_file(&im->rd.ser);
	if (f->start != 0) {
		/* read on: the serials read before are not holes */
		rc = round_serials_resume(&im->rd, f->key, f->path, im->diag,
					  cause);
		if (rc < 0)
			return rc;
	}
	feed_set_source(im->rd.feed, f->path, f->lines0, f->start);
	if (im->opts->has_until)
		logsrc_set_until(f->ls, im->opts->until);
	if (im->ahead != NULL)
		ahead_start(im->ahead, f->ls);
	rc = read_pieces(im, f, buf, stats, cause);
	if (im->ahead != NULL)
		ahead_stop(im->ahead); /* f->ls is this thread's again */
	if (rc < 0)
		return rc;
	if (feed_pending(im->rd.feed) > 0 && !im->opts->quiet)
		util_diag(im->diag, "%s: last line is incomplete (%zu bytes); "
			"left for the next import\n", f->path,
			feed_pending(im->rd.feed));
	feed_end_source(im->rd.feed);
	f->end_offset = feed_offset(im->rd.feed);
	f->end_lines = feed_lines(im->rd.feed);
	if (logsrc_prefix_hash(f->ls, f->end_offset, f->end_hash) < 0) {
		util_cause(cause, "%s: cannot re-read", f->path);
		return -EIO;
	}
	{
		/* every hole up to here is the round's: a later import of
		 * the file ignores the serials below */
		ssize_t n = serials_save(&im->rd.ser, 0, &f->serials);

		if (n < 0) {
			util_cause(cause, "%s: out of memory", f->path);
			return (int)n;
		}
		f->serials_len = (size_t)n;
	}
	if (im->file_rejects > (im->opts->max_diagnostics ?
				im->opts->max_diagnostics : 20) &&
	    !im->opts->quiet)
		util_diag(im->diag, "%s: %llu lines rejected in all\n",
			f->path, (unsigned long long)im->file_rejects);
	im->cur = NULL;
	im->prev_path = f->path;
	logsrc_suspend(f->ls);
	return 0;
}

/* round_ops.samples: the first MAX_SAMPLES rejects, with their place. */
static int
imp_samples(void *arg, struct store_batch *b, char **cause)
{
	struct importer *im = arg;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < im->nsamples; i++) {
		struct sample *s = &im->samples[i];

		rc = store_batch_sample(b, pgsc_reject_name(s->reason),
					s->source, s->line, s->serial,
					s->excerpt, cause);
	}
	return rc;
}

/* round_ops.positions: where each file read ends (its sources row), and
 * the serials that no file given holds (the gaps table). */
static int
imp_positions(void *arg, struct round *rd, char **cause)
{
	struct importer *im = arg;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < im->nfiles; i++) {
		struct infile *f = &im->files[i];
		struct store_source src = {
			.path = f->path, .inode = f->inode,
			.offset = f->end_offset, .lines = f->end_lines,
			.last_serial = f->last_serial,
			.last_event = f->last_event,
			.head_len = f->head_len,
			.serials = f->serials, .serials_len = f->serials_len,
		};

		if (f->skip)
			continue;
		memcpy(src.prefix_hash, f->end_hash, sizeof(src.prefix_hash));
		memcpy(src.head_hash, f->head, sizeof(src.head_hash));
		rc = store_source_put(rd->st, f->key, &src, rd->id, cause);
	}
	for (size_t i = 0; rc == 0 && i < im->nholes; i++)
		rc = store_gap(rd->st, rd->id, "serial", util_now(),
			       im->holes[i], cause);
	return rc;
}

/* The round in one transaction (round_commit()). */
static int
write_round(struct importer *im, struct pgsc_import_stats *stats,
	    char **cause)
{
	const struct store_round *r = &im->rd.r;
	int rc;

	for (size_t i = 0; i < im->nfiles; i++) {
		struct infile *f = &im->files[i];

		if (f->skip)
			continue;
		stats->lines += f->end_lines - f->lines0;
		stats->bytes += f->end_offset - f->start;
	}
	im->rd.r.lines = stats->lines;
	im->rd.label = im->opts->label;
	rc = round_commit(&im->rd, 1, cause);
	if (rc < 0) {
		say_rolled_back(im, rc, cause);
		return rc;
	}
	stats->round = im->rd.id;
	stats->seccomp = r->records;
	stats->attributed = r->attributed;
	stats->unrelated = r->unrelated;
	stats->standalone = r->standalone;
	stats->unattributed = r->unattributed;
	stats->foreign = r->foreign;
	stats->rejected = r->rejected;
	stats->serial_gaps = r->serial_gaps;
	stats->serials_untracked = serials_untracked(&im->rd.ser);
	return 0;
}

static const struct round_ops imp_round_ops = {
	.record = imp_record,
	.reject = imp_reject,
	.hole = imp_hole,
	.samples = imp_samples,
	.positions = imp_positions,
};

static int
seed_proc(void *arg, const struct proc_info *p)
{
	return proctree_seed(arg, p);
}

static int
count_proc(void *arg, const struct proc_info *p)
{
	(void)p;
	(*(uint64_t *)arg)++;
	return 0;
}

/* @f is not an audit log, or unreadable: reported, and the others are
 * imported (exit status 1).  Frees @why. */
static int
infile_refuse(struct importer *im, struct infile *f, char *why,
	      struct pgsc_import_stats *stats)
{
	util_diag(im->diag, "%s; not imported\n", why ? why : f->path);
	free(why);
	f->skip = 1;
	stats->refused_files++;
	return 0;
}

/* What infile_twice() and infile_identify() found. */
enum { ID_NEW = 0, ID_KNOWN = 1, TWICE_SAME = 2, TWICE_REFUSED = 3 };

/* The hash of the first @n bytes of @f's start (n <= f->head_len). */
static int
head_at(struct infile *f, uint64_t n, char out[40])
{
	const char *p;
	size_t len;

	if (logsrc_head(f->ls, HEAD_MAX, &p, &len, NULL) < 0 || len < n)
		return -ENODATA;
	head_hash(p, (size_t)n, out);
	return 0;
}

/*
 * files[@i] against the files of this call before it that start with the
 * same line: ID_NEW to go on (a different log), TWICE_SAME when it is one
 * of them under another name (read once), TWICE_REFUSED when it holds the
 * same start as one of them (the same log twice, one copy perhaps grown:
 * refused by name, exit status 1, so nothing is counted twice; alone in
 * a call, it is read on from where the other left).
 */
static int
infile_twice(struct importer *im, struct infile *files, size_t i)
{
	struct infile *f = &files[i];
	char h[40];

	for (size_t j = 0; j < i; j++) {
		struct infile *g = &files[j];
		int same_start;

		if (g->skip || strcmp(g->fingerprint, f->fingerprint) != 0)
			continue;
		same_start = g->head_len == f->head_len &&
			     strcmp(g->head, f->head) == 0;
		if (same_start && g->inode != 0 && g->inode == f->inode) {
			util_diag(im->diag, "%s: the same file as %s; "
				"read once\n", f->path, g->path);
			return TWICE_SAME;
		}
		if (same_start || (g->head_len < f->head_len &&
				   head_at(f, g->head_len, h) == 0 &&
				   strcmp(h, g->head) == 0)) {
			util_diag(im->diag, "%s: starts as %s does (its "
				"first %llu bytes): the same log twice; not "
				"imported (import it in a call of its own: "
				"it is then read on from where %s ends)\n",
				f->path, g->path,
				(unsigned long long)g->head_len, g->path);
			return TWICE_REFUSED;
		}
	}
	return ID_NEW;
}

struct pick {
	struct infile *f;
	struct store_source src, legacy;
	char key[48], legacy_key[48];
	int found, has_legacy, rows;
	unsigned long max_n;
};

/* store_source_each() callback: the row whose head @f starts with (the
 * longest such), else the newest row from before schema 8. */
static int
pick_row(void *arg, const char *key, const struct store_source *src)
{
	struct pick *pk = arg;
	const char *slash = strchr(key, '/');
	char h[40];

	pk->rows++;
	if (slash != NULL && strtoul(slash + 1, NULL, 10) > pk->max_n)
		pk->max_n = strtoul(slash + 1, NULL, 10);
	if (src->head_len == 0) {
		if (!pk->has_legacy) {
			pk->legacy = *src;
			snprintf(pk->legacy_key, sizeof(pk->legacy_key), "%s", key);
			pk->has_legacy = 1;
		}
		return 0;
	}
	if (src->head_len > pk->f->head_len ||
	    (pk->found && src->head_len <= pk->src.head_len) ||
	    head_at(pk->f, src->head_len, h) < 0 ||
	    strcmp(h, src->head_hash) != 0)
		return 0;
	pk->src = *src;
	snprintf(pk->key, sizeof(pk->key), "%s", key);
	pk->found = 1;
	return 0;
}

/* Is @key taken by one of files[0..@i)? */
static int
key_taken(const struct infile *files, size_t i, const char *key)
{
	for (size_t j = 0; j < i; j++)
		if (!files[j].skip && strcmp(files[j].key, key) == 0)
			return 1;
	return 0;
}

/*
 * Which source of the store files[@i] is (schemas/008_source_head.sql):
 * ID_KNOWN with @src filled, ID_NEW (a key of its own: the fingerprint,
 * or fingerprint/N when other logs start with the same line),
 * TWICE_REFUSED when another file of this call is that source, or < 0.
 */
static int
infile_identify(pgsc_store *st, struct infile *files, size_t i,
		struct store_source *src, char **cause)
{
	struct infile *f = &files[i];
	struct pick pk = { .f = f };
	int rc;

	rc = store_source_each(st, f->fingerprint, pick_row, &pk, cause);
	if (rc < 0)
		return rc;
	if (!pk.found && pk.has_legacy) {
		pk.src = pk.legacy;
		memcpy(pk.key, pk.legacy_key, sizeof(pk.key));
		pk.found = 1;
	}
	if (pk.found) {
		if (key_taken(files, i, pk.key))
			return TWICE_REFUSED;
		memcpy(f->key, pk.key, sizeof(f->key));
		*src = pk.src;
		return ID_KNOWN;
	}
	for (unsigned long n = pk.rows ? pk.max_n + 1 : 0;; n++) {
		if (n == 0)
			snprintf(f->key, sizeof(f->key), "%s", f->fingerprint);
		else
			snprintf(f->key, sizeof(f->key), "%.16s/%lu",
				 f->fingerprint, n);
		if (!key_taken(files, i, f->key))
			return ID_NEW;
	}
}

/*
 * Open files[@i] and find where to start reading it: 1 to read it, 0 when
 * it is skipped (said on the diagnostics, counted in @stats), or < 0.
 */
static int
infile_prepare(pgsc_store *st, struct importer *im, struct infile *files,
	       size_t i, char *path, size_t *stdin_seen,
	       struct pgsc_import_stats *stats, char **cause)
{
	struct store_source src;
	struct stat sb;
	char *why = NULL;
	int rc;

	files[i].path = path;
	files[i].order = i;
	if (strcmp(path, "-") == 0 && (*stdin_seen)++) {
		util_diag(im->diag, "\"-\" (standard input) given "
			"twice; read once\n");
		files[i].skip = 1;
		return 0;
	}
	rc = infile_open(&files[i], &why);
	if (rc == -ENOMEM) {
		free(why);
		return rc;
	}
	if (rc < 0)
		return infile_refuse(im, &files[i], why, stats);
	if (files[i].skip && stat(path, &sb) == 0 && S_ISFIFO(sb.st_mode)) {
		/* opened without waiting (logsrc_open()), and nothing came:
		 * no writer, or one that wrote nothing */
		util_diag(im->diag, "%s: a FIFO with no writer (or one "
			"that wrote nothing): nothing was read; refused: "
			"start its writer first, or pipe the log in "
			"(zcat LOG | pgsc-collect --import -)\n", path);
		stats->fifo_no_writer++;
		return 0;
	}
	if (files[i].skip) {
		/* empty, or one incomplete line: an empty input */
		stats->empty_files++;
		return 0;
	}
	rc = infile_twice(im, files, i);
	if (rc == ID_NEW) {
		rc = infile_identify(st, files, i, &src, cause);
		if (rc == TWICE_REFUSED)
			util_diag(im->diag, "%s: the same log as another "
				"input of this call, grown; not imported "
				"(import it in a call of its own)\n",
				files[i].path);
	}
	if (rc < 0)
		return rc;
	if (rc == TWICE_SAME) {
		files[i].skip = 1;
		stats->skipped_files++;
		return 0;
	}
	if (rc == TWICE_REFUSED) {
		files[i].skip = 1;
		stats->refused_files++;
		return 0;
	}
	if (rc == ID_KNOWN) {
		rc = logsrc_resume(files[i].ls, src.offset,
				   src.prefix_hash, &why);
		if (rc == -ENOMEM) {
			free(why);
			return rc;
		}
		if (rc < 0)
			return infile_refuse(im, &files[i], why, stats);
		if (rc == LOGSRC_DIFFERS) {
			util_diag(im->diag, "%s: starts like an "
				"imported file but its content differs; "
				"skipped so nothing is counted twice\n",
				files[i].path);
			files[i].skip = 1;
			stats->skipped_files++;
			return 0;
		}
		if (rc == LOGSRC_DONE) {
			files[i].skip = 1;
			stats->skipped_files++;
			return 0;
		}
		files[i].start = src.offset;
		files[i].lines0 = src.lines;
		files[i].seed_round = src.last_round;
	}
	return 1;
}

/* Inputs whose first record comes after --until: nothing was read of
 * them, and that is "no matches", not "nothing new". */
static int
until_cut(const struct importer *im, const struct infile *files, size_t n,
	  struct pgsc_import_stats *stats)
{
	if (!im->opts->has_until)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (files[i].skip || files[i].start != 0 ||
		    files[i].first_t <= (double)im->opts->until)
			continue;
		stats->until_cut++;
		util_widen(&stats->seen_first, &stats->seen_last,
			   files[i].first_t);
	}
	return stats->until_cut > 0;
}

/*
 * Is what was read worth a round?  Not when every SECCOMP
 * record was outside --since/--until: ausearch's "<no matches>".  Not
 * when the input held no SECCOMP record at all and the store no earlier
 * record either: an empty round would report empty lists.  A round
 * without records in a store that holds some is a proof round (a run
 * under error that nothing was denied in) and is kept.  Returns 1 (write
 * the round), 0 (none; stats say why) or a negative errno.
 */
static int
import_worth_round(pgsc_store *st, const struct importer *im,
		   const struct infile *files, size_t n,
		   struct pgsc_import_stats *stats, char **cause)
{
	struct store_totals t;
	int rc;

	if (im->rd.records > 0)
		return 1;
	if (im->outside == 0) {
		rc = store_totals(st, 1, INT64_MAX, &t, cause);
		if (rc < 0)
			return rc;
		stats->store_has_data = t.records > 0;
		if (stats->store_has_data)
			return 1;
	}
	/* no round: the lines read, for the message */
	for (size_t i = 0; i < n; i++)
		if (!files[i].skip)
			stats->lines += files[i].end_lines - files[i].lines0;
	return 0;
}

int
pgsc_import(pgsc_store *st, const struct pgsc_import_opts *opts,
	    const char *const *paths, size_t n, struct pgsc_import_stats *stats,
	    char **cause)
{
	struct importer im;
	struct infile *files = NULL;
	struct pglog *pl = NULL;
	struct proctree_hints hints = { 0 };
	char *buf = NULL;
	char **list = NULL;
	size_t todo = 0, stdin_seen = 0;
	int rc = 0;

	memset(stats, 0, sizeof(*stats));
	memset(&im, 0, sizeof(im));
	im.opts = opts;
	im.diag = opts->diag ? opts->diag : stderr;

	/* a directory is its rotated set, oldest first (src/logsrc.c) */
	{
		size_t refused = 0;

		rc = pgsc_import_expand(paths, n, im.diag, opts->quiet, &list,
					&n, &refused);
		if (rc < 0)
			return rc;
		stats->refused_files += refused;
	}
	files = calloc(n ? n : 1, sizeof(*files));
	if (files == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		rc = infile_prepare(st, &im, files, i, list[i], &stdin_seen,
				    stats, cause);
		if (rc < 0)
			goto out;
		/* skipped or not, it waits closed and without its decoder
		 * (decoded again when read): a call may name more files
		 * than there are descriptors */
		if (files[i].ls != NULL)
			logsrc_suspend(files[i].ls);
		todo += (size_t)rc;
		rc = 0;
	}
	if (todo == 0)
		goto out;
	qsort(files, n, sizeof(*files), infile_cmp);

	if (opts->n_pg_logs > 0) {
		rc = pglog_new(&pl);
		if (rc < 0)
			goto out;
		for (size_t i = 0; i < opts->n_pg_logs; i++) {
			rc = pglog_load(pl, opts->pg_logs[i], opts->pg_log_prefix,
					cause);
			if (rc < 0)
				goto out;
		}
		hints.pglog = pl;
	}
	hints.postmaster_pids = opts->postmaster_pids;
	hints.n_postmaster_pids = opts->n_postmaster_pids;
	hints.has_server_uid = opts->has_server_uid;
	hints.server_uid = opts->server_uid;
	rc = round_init(&im.rd, st, &hints, opts->no_fast_path, &imp_round_ops,
			&im, cause);
	if (rc < 0)
		goto out;
	im.rd.label = opts->label;      /* an early fold makes the round */
	/* Continuing a log read before: the processes still alive at the end
	 * of that round are the parents of what follows. */
	for (size_t i = 0; i < n; i++) {
		if (files[i].skip || files[i].start == 0 || files[i].seed_round == 0)
			continue;
		rc = store_live_procs(st, files[i].seed_round, seed_proc, im.rd.tree,
				      cause);
		if (rc < 0)
			goto out;
		break;
	}
	buf = malloc(import_read_chunk);
	if (buf == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	if (!opts->no_fast_path) /* without the thread, this one reads */
		(void)ahead_new(import_read_chunk, &im.ahead);
	for (size_t i = 0; i < n; i++) {
		if (files[i].skip)
			continue;
		rc = read_file(&im, &files[i], buf, stats, cause);
		if (rc < 0)
			goto out;
	}
	stats->outside = im.outside;
	/*
	 * Files that grew by an incomplete line only: nothing to import.  A
	 * round here would hold no record, only copies of the processes
	 * seeded from the last one (and a re-run after a kill -9 that came
	 * just after the commit would not be "nothing new").
	 */
	{
		uint64_t consumed = 0;

		for (size_t i = 0; i < n; i++)
			if (!files[i].skip)
				consumed += files[i].end_offset - files[i].start;
		if (consumed == 0) {
			if (!until_cut(&im, files, n, stats))
				stats->skipped_files += todo;
			goto out;
		}
	}
	/* auparse's open events first: their records count (a node=
	 * log read without the fast path delivers them only here) */
	feed_flush(im.rd.feed);
	stats->seen_first = im.seen_first;
	stats->seen_last = im.seen_last;
	rc = import_worth_round(st, &im, files, n, stats, cause);
	if (rc <= 0)
		goto out;
	rc = proctree_finish(im.rd.tree);
	if (rc < 0) {
		util_cause(cause, "out of memory while building the process tree");
		goto out;
	}
	stats->processes = im.rd.early_rows;
	proctree_each_proc(im.rd.tree, count_proc, &stats->processes);
	im.files = files;
	im.nfiles = n;
	rc = write_round(&im, stats, cause);
out:
	for (size_t i = 0; i < im.nsamples; i++)
		free(im.samples[i].excerpt);
	for (size_t i = 0; i < im.nholes; i++)
		free(im.holes[i]);
	for (size_t i = 0; files != NULL && i < n; i++) {
		logsrc_free(files[i].ls);
		free(files[i].serials);
	}
	free(files);
	pgsc_import_expand_free(list, n);
	free(buf);
	ahead_free(im.ahead);
	round_free(&im.rd);
	pglog_free(pl);
	return rc;
}
