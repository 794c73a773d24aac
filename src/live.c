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
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "feed.h"
#include "netlink.h"
#include "proctree.h"
#include "store.h"
#include "live.h"

#define DRAIN_TIMEOUT 30.0
/* How long the end of a round waits for the kernel's last status figures
 * (the reply is normally there in milliseconds; see kreq.c). */
#define FIGURES_TIMEOUT 60.0

/* writable copies for execvp()'s argv */
static char s_default[] = "--default", s_log[] = "log", s_ddash[] = "--";

/* The state of one pgsc_live() call around its struct live. */
struct run {
	struct live lv;
	struct pgsc_live_stats *stats;
	struct netlink_figures fig;    /* the kernel's, at the start */
	int have_start, continued, rules;
	char *command;
	int sfd;
	sigset_t oldmask;
	pid_t child;
	int child_done;
	double interval, next_commit, busy_since;
	double longest_wait;    /* between two commits (commit_wait()) */
	enum drain_state drain;
	double drain_until, figures_until;
	uint64_t fig_min;
	int stop;
	int commit_failures;
};

/* round_ops.reject: said, once per line (round.c counts it). */
static void
live_reject(void *arg, int reason, const struct feed_loc *loc, uint64_t serial,
	    const char *text, size_t len)
{
	struct live *lv = arg;

	(void)text, (void)len;
	if (!lv->o->quiet)
		util_diag(lv->diag, "%s:%llu: serial %llu: rejected (%s)\n",
			loc->file, (unsigned long long)loc->line,
			(unsigned long long)serial, pgsc_reject_name(reason));
}

static void
live_line(void *arg, const char *line, size_t len)
{
	struct live *lv = arg;

	live_drain_marker_line(&lv->marker, line, len);
}

/* round_ops.positions: where the source stands, if it has a place. */
static int
live_positions(void *arg, struct round *rd, char **cause)
{
	struct live *lv = arg;

	(void)rd, (void)cause;
	return lv->src->position != NULL ? lv->src->position(lv) : 0;
}

static const struct round_ops live_round_ops = {
	.reject = live_reject,
	.line = live_line,
	.positions = live_positions,
};

/* Does a source drained by reading to its end stand there? */
static int
source_ended(struct live *lv)
{
	return lv->src->ended != NULL && lv->src->ended(lv);
}

/* ---------------------------------------------------------------- */
/* The drain marker                                                   */

void
live_drain_marker_arm(struct drain_marker *m, uint64_t nonce)
{
	snprintf(m->text, sizeof(m->text), "pgsc-drain-%d-%016llx",
		 (int)getpid(), (unsigned long long)nonce);
	m->seen = 0;
}

/* A whole line as the feed found it: the marker cannot be split here. */
void
live_drain_marker_line(struct drain_marker *m, const char *line, size_t len)
{
	if (m->text[0] && !m->seen &&
	    memmem(line, len, m->text, strlen(m->text)) != NULL)
		m->seen = 1;
}

/* ---------------------------------------------------------------- */
/* Setup                                                              */

/* The source named by @spec ("auto" resolved there), or NULL. */
static const struct live_source *
source_choose(const char **spec)
{
	const char *s = *spec;

	if (s == NULL || strcmp(s, "auto") == 0) {
		struct netlink_figures f;

		/* netlink when nobody else is the audit daemon */
		if (netlink_figures_get(&f, NULL) == 0 &&
		    (f.pid == 0 || (kill((pid_t)f.pid, 0) < 0 && errno == ESRCH)))
			s = "netlink";
		else
			s = "file:/var/log/audit/audit.log";
	}
	*spec = s;
	if (strcmp(s, "netlink") == 0)
		return &live_netlink;
	if (strcmp(s, "plugin") == 0)
		return &live_plugin;
	if (strncmp(s, "file:", 5) == 0 && s[5] != '\0')
		return &live_tail;
	return NULL;
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

/* The buffers, the process tree and the feed; nothing opened yet. */
static int
live_init(struct run *ru, pgsc_store *st, const struct pgsc_live_opts *o,
	  char **cause)
{
	struct live *lv = &ru->lv;
	struct proctree_hints hints = { 0 };
	int rc;

	lv->st = st;
	lv->o = o;
	lv->diag = o->diag ? o->diag : stderr;
	lv->cause = cause;
	ru->sfd = -1;
	ru->child = -1;
	ru->interval = o->commit_interval > 0 ? o->commit_interval : 2.0;
	/* now, before any self-filter is loaded */
	if (getrandom(&lv->nonce, sizeof(lv->nonce), 0) !=
	    (ssize_t)sizeof(lv->nonce))
		lv->nonce = (uint64_t)(util_now() * 1e6) ^
			    ((uint64_t)getpid() << 40);
	hints.postmaster_pids = o->postmaster_pids;
	hints.n_postmaster_pids = o->n_postmaster_pids;
	hints.has_server_uid = o->has_server_uid;
	hints.server_uid = o->server_uid;

	rc = round_init(&lv->rd, st, &hints, 0, &live_round_ops, lv, cause);
	lv->rd.live = 1;
	lv->buf = malloc(BUF_SIZE);
	if (rc == 0 && lv->buf == NULL)
		rc = -ENOMEM;
	return rc;
}

/* The kernel's figures at the start: the round's unless a run of it
 * already took them. */
static void
start_figures(struct run *ru)
{
	struct live *lv = &ru->lv;

	if (!ru->have_start)
		return;
	lv->have_figures = 1;
	if (!ru->continued || !lv->rd.r.has_lost) {
		lv->rd.r.has_lost = 1;
		lv->rd.r.kernel_lost_start = ru->fig.lost;
		lv->rd.r.has_wait = ru->fig.has_wait_actual;
		lv->rd.r.backlog_wait_start = ru->fig.backlog_wait_time_actual;
	}
	lv->rd.r.kernel_lost_end = ru->fig.lost;
	lv->rd.r.backlog_wait_end = ru->fig.backlog_wait_time_actual;
}

/* The source, the rules and the round (new or continued). */
static int
live_open(struct run *ru)
{
	struct live *lv = &ru->lv;
	const struct pgsc_live_opts *o = lv->o;
	const char *spec = o->source;
	int rc;

	/*
	 * The kernel's figures at the start, read before we read anything
	 * (and, for netlink, before we register: a request made while the
	 * queue is full would sleep with nobody draining it).  Loss that
	 * happens meanwhile counts against this round: never less than the
	 * truth.
	 */
	ru->have_start = netlink_figures_get(&ru->fig, NULL) == 0;
	lv->src = source_choose(&spec);
	if (lv->src == NULL) {
		util_cause(lv->cause, "unknown source \"%s\" (plugin, "
			   "file:PATH, netlink)", spec);
		return -EINVAL;
	}
	rc = lv->src->open(lv, spec);
	if (rc < 0)
		return rc;
	if (o->load_rules) {
		rc = auditrules_load(o->args_rules, o->args_uid, lv->cause);
		if (rc < 0)
			return rc;
		ru->rules = 1;
	}
	if (o->command != NULL) {
		struct strbuf sb = { 0 };

		for (char *const *a = o->command; *a != NULL; a++) {
			strbuf_addstr(&sb, a == o->command ? "" : " ");
			strbuf_addstr(&sb, *a);
		}
		ru->command = sb.buf;
	}
	rc = store_live_round(lv->st, lv->src->kind, lv->source, o->label,
			      ru->command, &lv->rd.id, &ru->continued,
			      lv->cause);
	if (rc == 0 && ru->continued)
		rc = resume_round(lv);
	if (rc == 0 && lv->src->start != NULL)
		rc = lv->src->start(lv);
	if (rc < 0)
		return rc;
	lv->run_lines0 = feed_lines(lv->rd.feed);
	start_figures(ru);
	ru->sfd = block_signals(&ru->oldmask);
	if (ru->sfd < 0)
		return ru->sfd;
	return live_commit(lv, 0);
}

/*
 * The kernel does not audit the syscalls of the registered audit daemon,
 * so our own fork of the command leaves no record: put that edge in the
 * tree ourselves, or the command and what it runs outside a server count
 * as unattributed.
 */
static int
seed_self(struct run *ru)
{
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
	kid.pid = ru->child;
	kid.ppid = self.pid;
	kid.parent_known = 1;
	if (proctree_seed(ru->lv.rd.tree, &self) < 0 ||
	    proctree_seed(ru->lv.rd.tree, &kid) < 0)
		return -ENOMEM;
	return 0;
}

/* The command, the caller's confinement, then the request thread. */
static int
live_launch(struct run *ru)
{
	struct live *lv = &ru->lv;
	const struct pgsc_live_opts *o = lv->o;
	int rc;

	if (o->command != NULL) {
		ru->child = spawn(o, &ru->oldmask, lv->cause);
		if (ru->child < 0)
			return -ECHILD;
	}
	if (ru->child > 0 && lv->src->audit_daemon) {
		rc = seed_self(ru);
		if (rc < 0)
			return rc;
	}
	/* Everything is open and the command runs: the caller may drop
	 * privileges and confine itself before any record is parsed. */
	if (o->ready != NULL) {
		rc = o->ready(o->ready_arg, lv->cause);
		if (rc < 0)
			return rc;
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
	rc = kreq_start(lv->src->audit_daemon ? ru->interval : 0, &lv->kreq);
	if (rc < 0) {
		util_cause(lv->cause, "cannot start the thread for kernel "
			   "requests: %s", strerror(-rc));
		return rc;
	}
	ru->stats->round = lv->rd.id;
	ru->next_commit = util_now() + ru->interval;
	return 0;
}

/* ---------------------------------------------------------------- */
/* The loop                                                           */

/* The command ended: its exit status, as a shell gives it, once. */
static void
child_reaped(struct run *ru, int status)
{
	ru->child_done = 1;
	ru->lv.rd.r.has_exit_status = 1;
	ru->lv.rd.r.exit_status = WIFEXITED(status) ? WEXITSTATUS(status)
						 : 128 + WTERMSIG(status);
}

static void
live_signals(struct run *ru)
{
	struct signalfd_siginfo si;

	while (read(ru->sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			int status;

			if (ru->child > 0 &&
			    waitpid(ru->child, &status, WNOHANG) == ru->child)
				child_reaped(ru, status);
		} else if (si.ssi_signo == SIGHUP) {
			if (!ru->lv.o->quiet)
				util_diag(ru->lv.diag, "SIGHUP: "
					"committing; nothing else to "
					"reload\n");
			ru->next_commit = 0;
		} else if (ru->child > 0 && !ru->child_done) {
			/* wrap mode: the command decides */
			kill(ru->child, (int)si.ssi_signo);
		} else {
			ru->drain = DRAIN_ASKED;
		}
	}
}

/* Wait for the source or a signal, then read what the source has. */
static int
live_wait_read(struct run *ru)
{
	struct live *lv = &ru->lv;
	struct pollfd pfd[2];
	int nfd = 1, timeout = 100, rc;

	pfd[0] = (struct pollfd){ ru->sfd, POLLIN, 0 };
	nfd += lv->src->pollfd(lv, &pfd[1], &timeout);
	if (poll(pfd, (nfds_t)nfd, timeout) < 0 && errno != EINTR)
		return -errno;
	if (pfd[0].revents & POLLIN)
		live_signals(ru);
	rc = lv->src->read(lv, nfd > 1 ? pfd[1].revents : 0, ru->next_commit);
	if (rc < 0)
		util_cause(lv->cause, "reading %s: %s", lv->source,
			   strerror(-rc));
	return rc;
}

/*
 * Mark the end of the stream and read up to it.  In wrap mode everything
 * the command caused must be in: wait long for the marker, and record it
 * if it never comes.  A daemon told to stop only reads what is in flight;
 * the plugin reads to the end of its pipe.
 */
static void
drain_begin(struct run *ru, double now)
{
	struct live *lv = &ru->lv;

	ru->drain = DRAIN_MARKER;
	lv->marker.seen = 0;
	if (lv->src->ended != NULL) {
		lv->marker.seen = source_ended(lv);
		ru->drain_until = now + 5.0;
		return;
	}
	live_drain_marker_arm(&lv->marker, lv->nonce);
	kreq_send_marker(lv->kreq, lv->marker.text);
	ru->drain_until = now + (ru->child > 0 ? DRAIN_TIMEOUT : 5.0);
}

static void
drain_wait_marker(struct run *ru, double now)
{
	struct live *lv = &ru->lv;
	int mrc;

	if (source_ended(lv))
		lv->marker.seen = 1;
	if (lv->src->ended == NULL && !lv->marker.seen &&
	    kreq_marker_done(lv->kreq, &mrc) && mrc < 0)
		lv->marker.seen = 1; /* cannot: stop */
	if (!lv->marker.seen && now <= ru->drain_until)
		return;
	if (!lv->marker.seen && ru->child > 0) {
		lv->rd.r.drain_timeouts++;
		store_gap(lv->st, lv->rd.id, "drain", now, "the end marker "
			  "did not arrive in time; the last records may be "
			  "missing", NULL);
	}
	/* the kernel's figures at the end, read after the last record; we
	 * go on reading while we wait */
	ru->drain = DRAIN_FIGURES;
	if (lv->have_figures) {
		ru->fig_min = kreq_ask_status(lv->kreq) + 1;
		ru->figures_until = now + FIGURES_TIMEOUT;
	}
}

static void
drain_wait_figures(struct run *ru, double now)
{
	struct live *lv = &ru->lv;
	struct netlink_figures f;

	if (!lv->have_figures) {
		ru->stop = 1;
	} else if (kreq_figures(lv->kreq, ru->fig_min, &f)) {
		lv->rd.r.kernel_lost_end = f.lost;
		if (f.has_wait_actual)
			lv->rd.r.backlog_wait_end = f.backlog_wait_time_actual;
		ru->stop = 1;
	} else if (now > ru->figures_until) {
		if (!lv->o->quiet)
			util_diag(lv->diag, "warning: the kernel did not "
				"answer the status request in %.0f s; the loss "
				"figures are the last ones read\n",
				FIGURES_TIMEOUT);
		store_gap(lv->st, lv->rd.id, "figures", now, "the kernel's "
			  "lost counter could not be read at the end of the "
			  "round", NULL);
		ru->stop = 1;
	}
}

/* One step of the drain; the steps a state allows run at once. */
static void
drain_step(struct run *ru, double now)
{
	if ((ru->child_done || source_ended(&ru->lv)) &&
	    ru->drain == DRAIN_NONE)
		ru->drain = DRAIN_ASKED;
	if (ru->drain == DRAIN_ASKED)
		drain_begin(ru, now);
	if (ru->drain == DRAIN_MARKER)
		drain_wait_marker(ru, now);
	if (ru->drain == DRAIN_FIGURES)
		drain_wait_figures(ru, now);
}

/*
 * A source with a position is committed at an event boundary: auparse
 * may hold an event whose lines are before the file position, and
 * committing now and crashing would lose it.  The next line hands it
 * over; in a quiet log that line may not come, so after a while the event
 * is taken as complete (auditd writes an event's records together).
 * Returns 0 to put a due commit off, else 1.
 */
static int
commit_ready(struct run *ru, double now)
{
	struct live *lv = &ru->lv;

	if (!feed_busy(lv->rd.feed))
		ru->busy_since = 0;
	if (now < ru->next_commit || ru->stop || lv->src->position == NULL)
		return 1;
	if (feed_busy(lv->rd.feed)) {
		if (ru->busy_since == 0)
			ru->busy_since = now;
		/* ... but not when memory calls for the commit: reading on
		 * would fill it (proctree_prune_due()) */
		if (now - ru->busy_since < ru->interval &&
		    !proctree_prune_due(lv->rd.tree)) {
			ru->next_commit = now + 0.05;
			return 0;
		}
		feed_flush_events(lv->rd.feed);
		ru->busy_since = 0;
	}
	feed_flush_events(lv->rd.feed); /* only closed events */
	return 1;
}

/* The last commit: what the feed still holds, and what the source adds
 * (netlink: its overruns). */
static void
commit_last(struct run *ru, double now)
{
	struct live *lv = &ru->lv;

	feed_end_source(lv->rd.feed);
	feed_flush(lv->rd.feed);
	if (lv->src->last != NULL)
		lv->src->last(lv, now);
}

/*
 * The wait from one commit to the next: the interval, or COMMIT_SPREAD
 * times the processor time the last commit took (@took), up to a bound.
 * A commit writes what changed since the last one, and that grows with
 * the store's breadth (a fleet's nodes, each with rows of their own) as
 * well as with the lines read: at a fixed interval the commits of a broad
 * store took most of the collector's time (docs/fleet.md).  Waiting in
 * proportion keeps their share near 1 / COMMIT_SPREAD whatever the
 * breadth, so that the processor time per line does not grow with the
 * nodes.  Processor time, not wall time: a machine busy with other work
 * slows a commit without making it any larger.
 *
 * The bound: what a killed netlink or plugin collector loses is what it
 * read since its last commit, so their commits stay within
 * COMMIT_STRETCH intervals.  A source with a position (file:) loses
 * nothing to a kill, it reads again from the committed one: its bound,
 * COMMIT_STRETCH_REREAD intervals, is only how far a report may lag.
 */
#define COMMIT_SPREAD 20.0
#define COMMIT_STRETCH 4.0
#define COMMIT_STRETCH_REREAD 15.0

static double
commit_wait(struct run *ru, double took)
{
	double wait = took * COMMIT_SPREAD;
	double most = ru->interval * (ru->lv.src->position != NULL ?
				      COMMIT_STRETCH_REREAD : COMMIT_STRETCH);

	if (wait > most)
		wait = most;
	if (wait < ru->interval)
		wait = ru->interval;
	if (wait > ru->longest_wait)
		ru->longest_wait = wait;
	return wait;
}

/* Commit; a store that is full or busy is retried, with what was read
 * kept in memory (docs/robustness.md).  < 0 ends the loop. */
static int
commit_step(struct run *ru, double now)
{
	struct live *lv = &ru->lv;
	char **cause = lv->cause;
	double cpu;
	int rc;

	if (ru->stop)
		commit_last(ru, now);
	cpu = util_cpu_now();
	rc = live_commit(lv, ru->stop);
	if (rc == -ENOSPC || rc == -EIO || rc == -EBUSY) {
		if (ru->commit_failures++ == 0)
			util_diag(lv->diag, "warning: cannot commit (%s); "
				"keeping what was read in memory and retrying "
				"every %g s\n", cause && *cause ? *cause : "",
				ru->interval);
		if (ru->stop && ru->child_done)
			return rc;
		ru->stop = 0;
		ru->next_commit = now + ru->interval;
		return 0;
	}
	if (rc < 0)
		return rc;
	if (ru->commit_failures > 0)
		util_diag(lv->diag, "recovered: committed again after %d "
			"failed attempts; nothing was lost\n",
			ru->commit_failures);
	ru->commit_failures = 0;
	if (!ru->stop) /* the last commit: no wait after it */
		ru->next_commit = now + commit_wait(ru, util_cpu_now() - cpu);
	return 0;
}

static int
live_loop(struct run *ru)
{
	struct live *lv = &ru->lv;
	int rc = 0;

	while (!ru->stop) {
		double now;

		rc = live_wait_read(ru);
		if (rc < 0)
			break;
		now = util_now();
		/* a bound on memory, not only on time (proctree_prune_due()) */
		if (proctree_prune_due(lv->rd.tree))
			ru->next_commit = now;
		drain_step(ru, now);
		if (!commit_ready(ru, now))
			continue;
		if (now >= ru->next_commit || ru->stop) {
			rc = commit_step(ru, now);
			if (rc < 0)
				break;
		}
	}
	return rc;
}

static void
live_cleanup(struct run *ru)
{
	struct live *lv = &ru->lv;

	if (ru->child > 0 && !ru->child_done) {
		kill(ru->child, SIGTERM);
		waitpid(ru->child, NULL, 0);
	}
	if (ru->rules)
		auditrules_remove();
	if (ru->sfd >= 0) {
		close(ru->sfd);
		sigprocmask(SIG_SETMASK, &ru->oldmask, NULL);
	}
	if (lv->src != NULL && lv->src->close != NULL)
		lv->src->close(lv);
	kreq_stop(lv->kreq);
	round_free(&lv->rd);
	free(lv->open);
	free(lv->buf);
	free(ru->command);
}

int
pgsc_live(pgsc_store *st, const struct pgsc_live_opts *o,
	  struct pgsc_live_stats *stats, char **cause)
{
	struct run ru;
	struct live *lv = &ru.lv;
	int rc;

	memset(&ru, 0, sizeof(ru));
	memset(stats, 0, sizeof(*stats));
	ru.stats = stats;
	rc = live_init(&ru, st, o, cause);
	if (rc == 0)
		rc = live_open(&ru);
	if (rc == 0)
		rc = live_launch(&ru);
	if (rc < 0)
		goto out;
	rc = live_loop(&ru);
	stats->records = lv->rd.base_records + lv->rd.records;
	stats->serial_gaps = serials_gaps(&lv->rd.ser, 0);
	stats->serials_untracked = serials_untracked(&lv->rd.ser);
	stats->longest_wait = ru.longest_wait > ru.interval ?
			      ru.longest_wait : 0;
	stats->lost = lv->rd.r.has_lost ?
		      lv->rd.r.kernel_lost_end - lv->rd.r.kernel_lost_start : 0;
	if (ru.child_done) {
		stats->has_exit_status = 1;
		stats->exit_status = lv->rd.r.exit_status;
	}
	if (rc == 0 && stats->records == 0 && lv->rd.id > 1) {
		/* a round that saw nothing is a proof round only in a store
		 * whose earlier rounds hold records */
		struct store_totals t;

		if (store_totals(st, 1, lv->rd.id - 1, &t, NULL) == 0)
			stats->store_has_data = t.records > 0;
	}
out:
	live_cleanup(&ru);
	return rc;
}
