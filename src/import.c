/* SPDX-License-Identifier: PostgreSQL */
/* import.c - pgsc_import(): audit log files into a new round of the store. */
/*
 * The flow is DESIGN §2: bytes -> feed (libauparse) -> records -> process
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

#include "pgsc-int.h"

#define READ_CHUNK (1024 * 1024)
#define MAX_SAMPLES 100
#define EXCERPT_MAX 200

struct infile {
	const char *path;
	struct logsrc *ls;          /* src/logsrc.c: plain, compressed, stdin */
	size_t order;               /* its place among the operands */
	uint64_t inode;
	double first_t;
	uint64_t first_serial;
	char fingerprint[24];
	uint64_t start, lines0;     /* where this import begins */
	int skip;
	uint64_t end_offset, end_lines;
	uint64_t last_serial;
	double last_event;
	int64_t seed_round;         /* round that last read it */
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
	struct proctree *tree;
	struct feed *feed;
	struct infile *cur;
	uint64_t rejects[PGSC_REJ__COUNT];
	uint64_t file_rejects;
	struct sample samples[MAX_SAMPLES];
	size_t nsamples;
	uint64_t seccomp;
	uint64_t outside;           /* --since/--until */
	double first_event, last_event;
	double seen_first, seen_last; /* every SECCOMP record's, in or out */
};

static void
imp_record(void *arg, const struct pgsc_record *rec)
{
	struct importer *im = arg;
	double t = (double)rec->sec + rec->msec / 1000.0;

	if (rec->type == PGSC_REC_SECCOMP)
		util_widen(&im->seen_first, &im->seen_last, t);
	/* the window selects what is counted; the process tree still
	 * learns from every record (a backend forked before --since) */
	if (rec->type == PGSC_REC_SECCOMP &&
	    ((im->opts->has_since && rec->sec < im->opts->since) ||
	     (im->opts->has_until && rec->sec > im->opts->until))) {
		im->outside++;
		return;
	}
	if (rec->type == PGSC_REC_SECCOMP) {
		im->seccomp++;
		util_widen(&im->first_event, &im->last_event, t);
	}
	if (im->cur != NULL && rec->type != PGSC_REC_OTHER) {
		im->cur->last_serial = rec->serial;
		im->cur->last_event = t;
	}
	proctree_record(im->tree, rec);
}

static void
imp_event_end(void *arg)
{
	struct importer *im = arg;

	proctree_event_end(im->tree);
}

static void
imp_reject(void *arg, int reason, const struct feed_loc *loc, uint64_t serial,
	   const char *text, size_t len)
{
	struct importer *im = arg;
	size_t maxd = im->opts->max_diagnostics ? im->opts->max_diagnostics : 20;

	if (reason <= 0 || reason >= PGSC_REJ__COUNT)
		reason = PGSC_REJ_BAD_FIELD;
	im->rejects[reason]++;
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
			fprintf(im->diag, "pgsc: %s:%llu: rejected (%s): %s\n",
				loc->file, (unsigned long long)loc->line,
				pgsc_reject_name(reason), ex ? ex : "");
		else
			fprintf(im->diag, "pgsc: %s: serial %llu: rejected (%s): %s\n",
				loc->file, (unsigned long long)serial,
				pgsc_reject_name(reason), ex ? ex : "");
		free(ex);
	}
}

static const struct feed_ops imp_ops = {
	.record = imp_record,
	.reject = imp_reject,
	.event_end = imp_event_end,
};

static void
hex64(char out[24], uint64_t v)
{
	snprintf(out, 24, "%016llx", (unsigned long long)v);
}

/* Open an input (src/logsrc.c) and identify it by its first line. */
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

static int
read_file(struct importer *im, struct infile *f, char *buf,
	  struct pgsc_import_stats *stats, char **cause)
{
	int rc = 0;

	im->cur = f;
	im->file_rejects = 0;
	feed_set_source(im->feed, f->path, f->lines0, f->start);
	if (im->opts->has_until)
		logsrc_set_until(f->ls, im->opts->until);
	for (;;) {
		char *why = NULL;
		ssize_t n = logsrc_read(f->ls, buf, READ_CHUNK, &why);

		if (n < 0) {
			rc = (int)n;
			if (rc == -ENOMEM) {
				free(why);
				util_cause(cause, "%s: out of memory", f->path);
				return rc;
			}
			/* damaged: what came before it is kept and counted,
			 * the input is reported (exit status 1) */
			fprintf(im->diag, "pgsc: %s\n", why ? why : f->path);
			free(why);
			stats->refused_files++;
			break;
		}
		if (n == 0)
			break;
		rc = feed_bytes(im->feed, buf, (size_t)n);
		if (rc < 0) {
			util_cause(cause, "%s: out of memory", f->path);
			return rc;
		}
	}
	if (feed_pending(im->feed) > 0 && !im->opts->quiet)
		fprintf(im->diag, "pgsc: %s: last line is incomplete (%zu bytes); "
			"left for the next import\n", f->path,
			feed_pending(im->feed));
	feed_end_source(im->feed);
	f->end_offset = feed_offset(im->feed);
	f->end_lines = feed_lines(im->feed);
	if (im->file_rejects > (im->opts->max_diagnostics ?
				im->opts->max_diagnostics : 20) &&
	    !im->opts->quiet)
		fprintf(im->diag, "pgsc: %s: %llu lines rejected in all\n",
			f->path, (unsigned long long)im->file_rejects);
	im->cur = NULL;
	logsrc_suspend(f->ls);
	return 0;
}

static int
write_round(pgsc_store *st, struct importer *im, struct infile *files,
	    size_t n, struct pgsc_import_stats *stats, char **cause)
{
	struct store_batch *b = NULL;
	struct store_round r = { 0 };
	struct round_batch w;
	int64_t round = 0;
	int rc;

	rc = store_begin(st, cause);
	if (rc < 0)
		return rc;
	rc = store_round_new(st, im->opts->label, "import", util_now(), &round,
			     cause);
	if (rc < 0)
		goto out;
	rc = store_batch_new(st, round, &b, cause);
	if (rc < 0)
		goto out;
	w.b = b;
	w.cause = cause;
	w.r = &r;
	rc = proctree_each_agg(im->tree, round_agg, &w);
	if (rc == 0)
		rc = proctree_each_proc(im->tree, round_proc, &w);
	if (rc == 0)
		rc = round_rejects(&w, im->rejects, &r.rejected);
	for (size_t i = 0; rc == 0 && i < im->nsamples; i++) {
		struct sample *s = &im->samples[i];

		rc = store_batch_sample(b, pgsc_reject_name(s->reason),
					s->source, s->line, s->serial,
					s->excerpt, cause);
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct infile *f = &files[i];
		struct store_source src = {
			.path = f->path, .inode = f->inode,
			.offset = f->end_offset, .lines = f->end_lines,
			.last_serial = f->last_serial,
			.last_event = f->last_event,
		};

		if (f->skip)
			continue;
		rc = logsrc_prefix_hash(f->ls, f->end_offset, src.prefix_hash);
		if (rc < 0) {
			util_cause(cause, "%s: cannot re-read", f->path);
			break;
		}
		rc = store_source_put(st, f->fingerprint, &src, round, cause);
		stats->lines += f->end_lines - f->lines0;
		stats->bytes += f->end_offset - f->start;
	}
	if (rc < 0)
		goto out;
	r.finished = util_now();
	r.records = im->seccomp;
	r.lines = stats->lines;
	r.first_event = im->first_event;
	r.last_event = im->last_event;
	rc = store_round_finish(st, round, &r, cause);
	if (rc == 0)
		rc = store_commit(st, cause);
out:
	store_batch_free(b);
	if (rc < 0) {
		store_rollback(st);
		if (rc == -ENOSPC && cause != NULL && *cause != NULL) {
			/* say what the failure left: nothing */
			char *c = *cause;

			*cause = NULL;
			util_cause(cause, "%s; the import was rolled back and the "
				   "store is unchanged: free some space and run "
				   "it again", c);
			free(c);
		}
		return rc;
	}
	stats->round = round;
	stats->seccomp = r.records;
	stats->attributed = r.attributed;
	stats->unrelated = r.unrelated;
	stats->standalone = r.standalone;
	stats->unattributed = r.unattributed;
	stats->foreign = r.foreign;
	stats->rejected = r.rejected;
	return 0;
}

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
	fprintf(im->diag, "pgsc: %s; not imported\n", why ? why : f->path);
	free(why);
	f->skip = 1;
	stats->refused_files++;
	return 0;
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
		fprintf(im->diag, "pgsc: \"-\" (standard input) given "
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
		 * no writer, or one that wrote nothing (issue 24) */
		fprintf(im->diag, "pgsc: %s: a FIFO with no writer (or one "
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
	/* the same file given twice under two names */
	for (size_t j = 0; j < i; j++) {
		if (!files[j].skip && strcmp(files[j].fingerprint,
					     files[i].fingerprint) == 0) {
			files[i].skip = 1;
			stats->skipped_files++;
			break;
		}
	}
	if (files[i].skip) {
		logsrc_suspend(files[i].ls);
		return 0;
	}
	rc = store_source_get(st, files[i].fingerprint, &src, cause);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		rc = logsrc_resume(files[i].ls, src.offset,
				   src.prefix_hash, &why);
		if (rc == -ENOMEM) {
			free(why);
			return rc;
		}
		if (rc < 0)
			return infile_refuse(im, &files[i], why, stats);
		if (rc == LOGSRC_DIFFERS) {
			fprintf(im->diag, "pgsc: %s: starts like an "
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
	/* one decoder at a time: a file is decoded again when read */
	logsrc_suspend(files[i].ls);
	return 1;
}

/* Inputs whose first record comes after --until: nothing was read of
 * them, and that is "no matches", not "nothing new" (issue 24). */
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
 * Is what was read worth a round (issue 24)?  Not when every SECCOMP
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

	if (im->seccomp > 0)
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
	rc = proctree_new(&hints, &im.tree);
	if (rc < 0)
		goto out;
	/* Continuing a log read before: the processes still alive at the end
	 * of that round are the parents of what follows. */
	for (size_t i = 0; i < n; i++) {
		if (files[i].skip || files[i].start == 0 || files[i].seed_round == 0)
			continue;
		rc = store_live_procs(st, files[i].seed_round, seed_proc, im.tree,
				      cause);
		if (rc < 0)
			goto out;
		break;
	}
	rc = feed_new(&imp_ops, &im, opts->no_fast_path, &im.feed, cause);
	if (rc < 0)
		goto out;
	buf = malloc(READ_CHUNK);
	if (buf == NULL) {
		rc = -ENOMEM;
		goto out;
	}
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
	feed_flush(im.feed);
	stats->seen_first = im.seen_first;
	stats->seen_last = im.seen_last;
	rc = import_worth_round(st, &im, files, n, stats, cause);
	if (rc <= 0)
		goto out;
	rc = proctree_finish(im.tree);
	if (rc < 0) {
		util_cause(cause, "out of memory while building the process tree");
		goto out;
	}
	proctree_each_proc(im.tree, count_proc, &stats->processes);
	rc = write_round(st, &im, files, n, stats, cause);
out:
	for (size_t i = 0; i < im.nsamples; i++)
		free(im.samples[i].excerpt);
	for (size_t i = 0; files != NULL && i < n; i++)
		logsrc_free(files[i].ls);
	free(files);
	pgsc_import_expand_free(list, n);
	free(buf);
	feed_free(im.feed);
	proctree_free(im.tree);
	pglog_free(pl);
	return rc;
}
