/* SPDX-License-Identifier: PostgreSQL */
/* pgsc-collect - import audit logs into a pgsc store, one round per run. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pgsc.h"

/* Least privilege, applied once everything is open (docs/security.md). */
struct confine {
	const char *user;            /* --user */
	unsigned keep;               /* PGSC_CAP_* the mode needs */
	const char *readable;        /* file: the log to keep reading */
	const char *filter;          /* --self-filter */
	int action;                  /* --self-filter-action */
	int quiet;
};

/* Drop root, then load the self-filter (the filter allows neither setuid
 * nor capset, so the order is fixed). */
static int
confine(void *arg, char **cause)
{
	struct confine *c = arg;
	unsigned kept = 0;
	int rc;

	if (c->user != NULL) {
		rc = pgsc_priv_drop(c->user, c->keep, c->readable, &kept, cause);
		if (rc < 0)
			return rc;
		if (!c->quiet) {
			fprintf(stderr, "pgsc-collect: running as %s (uid %u), "
				"capabilities: ", c->user, (unsigned)getuid());
			pgsc_caps_print(stderr, kept);
			fputc('\n', stderr);
		}
	}
	if (c->filter != NULL) {
		rc = pgsc_self_filter_load(c->filter, (enum pgsc_action)c->action,
					   cause);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* --server-user: a name of the passwd database, or a uid. */
static int
server_uid(const char *arg, uint32_t *uid)
{
	struct passwd *pw;
	char *end;
	unsigned long long v;

	if (*arg == '\0')
		return -EINVAL;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*end == '\0' && errno == 0 && arg[0] != '-' &&
	    v < UINT32_MAX) {
		*uid = (uint32_t)v;
		return 0;
	}
	pw = getpwnam(arg);
	if (pw == NULL)
		return -ENOENT;
	*uid = (uint32_t)pw->pw_uid;
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: pgsc-collect --db FILE [--label TEXT]\n"
		"                    [--postmaster-pid PID]... [--pg-log FILE]...\n"
		"                    [--pg-log-prefix FORMAT] [--server-user USER]\n"
		"                    [--since TIME] [--until TIME]\n"
		"                    [--quiet] --import AUDITLOG...\n"
		"       pgsc-collect --db FILE [--label TEXT] --source SRC\n"
		"                    [--commit-interval SECS] [--from-start]\n"
		"                    [--load-rules] [--user NAME]\n"
		"       pgsc-collect --db FILE [--source SRC] [--trace] [--no-rules]\n"
		"                    -- COMMAND [ARGS...]\n"
		"       pgsc-collect --print-rules [--args [--server-user USER]]\n"
		"--args adds the rules that record the arguments of socket,\n"
		"setsockopt, ioctl, clone... of the server's uid (--server-user,\n"
		"else postgres) to --print-rules and --load-rules (docs/args.md).\n"
		"--self-filter FILE [--self-filter-action log|error|kill] confines\n"
		"the collector (import and daemon modes) with the GUC file's\n"
		"global list (tools/pgsc-selflist writes one).\n"
		"--server-user USER (a name or a uid): a postgres binary that runs\n"
		"as another uid is not a server's (every mode).\n"
		"SRC is plugin, file:PATH or netlink.  Each run that finds new data\n"
		"is a new round of the store.\n"
		"AUDITLOG: a file (plain, .gz, .xz or .zst, told by its content),\n"
		"- for standard input, or a directory (its audit.log* files, oldest\n"
		"first).  TIME: YYYY-MM-DD[ HH:MM[:SS]][Z|+HH:MM], epoch seconds,\n"
		"now, recent, today, yesterday or week-ago.\n");
}

static const struct option long_opts[] = {
	{ "db", required_argument, NULL, 'd' },
	{ "import", no_argument, NULL, 'i' },
	{ "label", required_argument, NULL, 'L' },
	{ "postmaster-pid", required_argument, NULL, 'p' },
	{ "pg-log", required_argument, NULL, 'g' },
	{ "pg-log-prefix", required_argument, NULL, 'P' },
	{ "no-fast-path", no_argument, NULL, 'F' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "source", required_argument, NULL, 's' },
	{ "commit-interval", required_argument, NULL, 'c' },
	{ "from-start", no_argument, NULL, 'S' },
	{ "load-rules", no_argument, NULL, 'R' },
	{ "no-rules", no_argument, NULL, 'N' },
	{ "trace", no_argument, NULL, 't' },
	{ "print-rules", no_argument, NULL, 'r' },
	{ "args", no_argument, NULL, 'A' },
	{ "user", required_argument, NULL, 'u' },
	{ "server-user", required_argument, NULL, 'U' },
	{ "self-filter", required_argument, NULL, 'f' },
	{ "self-filter-action", required_argument, NULL, 'a' },
	{ "since", required_argument, NULL, 'T' },
	{ "until", required_argument, NULL, 'E' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* What the command line says, and what the run holds to free. */
struct args {
	struct pgsc_import_opts io;
	struct pgsc_live_opts lo;
	struct confine cf;
	const char *db;
	const char **pglogs;
	int64_t *pids;
	int import, live, no_rules, filter_opt;
	int print_rules, args;       /* --print-rules, --args */
	const char *action;
	char **argv;                 /* the operands (after the options) */
	int argc;
	char exe[4096];
	pgsc_store *st;
	char *cause;
	char **inputs;
	size_t n_inputs, refused;
};

/* One option; -1 to go on, else the exit status. */
static int
parse_opt(struct args *a, int c)
{
	switch (c) {
	case 'd':
		a->db = optarg;
		break;
	case 'i':
		a->import = 1;
		break;
	case 'L':
		a->io.label = optarg;
		a->lo.label = optarg;
		break;
	case 's':
		a->lo.source = optarg;
		a->live = 1;
		break;
	case 'c': {
		char *end;

		a->lo.commit_interval = strtod(optarg, &end);
		if (*end || a->lo.commit_interval <= 0 ||
		    a->lo.commit_interval > 3600) {
			fprintf(stderr, "pgsc-collect: bad --commit-interval\n");
			return 2;
		}
		break;
	}
	case 'S':
		a->lo.from_start = 1;
		break;
	case 'R':
		a->lo.load_rules = 1;
		break;
	case 'N':
		a->no_rules = 1;
		break;
	case 't':
		a->lo.trace = 1;
		break;
	case 'u':
		a->cf.user = optarg;
		break;
	case 'f':
		a->cf.filter = optarg;
		a->filter_opt = 1;
		break;
	case 'a':
		a->action = optarg;
		break;
	case 'r':
		a->print_rules = 1;
		break;
	case 'A':
		a->args = 1;
		break;
	case 'p': {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(optarg, &end, 10);
		if (errno || *end || v <= 0 || v > INT_MAX) {
			fprintf(stderr, "pgsc-collect: bad --postmaster-pid \"%s\"\n",
				optarg);
			return 2;
		}
		a->pids[a->io.n_postmaster_pids++] = v;
		break;
	}
	case 'g':
		a->pglogs[a->io.n_pg_logs++] = optarg;
		break;
	case 'U':
		if (server_uid(optarg, &a->io.server_uid) < 0) {
			fprintf(stderr, "pgsc-collect: --server-user: no "
				"user \"%s\" (a name in the passwd "
				"database, or a uid)\n", optarg);
			return 2;
		}
		a->io.has_server_uid = 1;
		break;
	case 'P':
		a->io.pg_log_prefix = optarg;
		break;
	case 'T':
	case 'E': {
		int64_t *t = c == 'T' ? &a->io.since : &a->io.until;

		if (pgsc_time_parse(optarg, c == 'E', (int64_t)time(NULL),
				    t) < 0) {
			fprintf(stderr, "pgsc-collect: bad --%s \"%s\" "
				"(YYYY-MM-DD[ HH:MM[:SS]][Z|+HH:MM], "
				"epoch seconds, now, recent, today, "
				"yesterday or week-ago)\n",
				c == 'T' ? "since" : "until", optarg);
			return 2;
		}
		if (c == 'T')
			a->io.has_since = 1;
		else
			a->io.has_until = 1;
		break;
	}
	case 'F':
		a->io.no_fast_path = 1;
		break;
	case 'q':
		a->io.quiet = 1;
		break;
	case 'h':
		usage(stdout);
		return 0;
	case 'V':
		printf("pgsc-collect %s\n", PGSC_VERSION);
		return 0;
	default:
		usage(stderr);
		return 2;
	}
	return -1;
}

/* The confinement the mode allows; -1 to go on, else the exit status. */
static int
check_confine(struct args *a)
{
	a->cf.quiet = a->io.quiet;
	a->cf.action = PGSC_ACT_ERROR;
	if (a->action != NULL && a->action[0] != '\0') {
		a->cf.action = pgsc_action_parse(a->action);
		if (a->cf.action < 0 || a->cf.action == PGSC_ACT_ALLOW) {
			fprintf(stderr, "pgsc-collect: bad --self-filter-action "
				"(log, error or kill)\n");
			return 2;
		}
	}
	if (a->cf.filter != NULL && access(a->cf.filter, R_OK) < 0) {
		fprintf(stderr, "pgsc-collect: --self-filter %s: %s\n", a->cf.filter,
			strerror(errno));
		return 2;
	}
	/* A wrapped command and auditctl would inherit the filter, and a
	 * process that must remove audit rules at the end keeps root. */
	if ((a->cf.filter != NULL || a->cf.user != NULL) && !a->import &&
	    (a->argc > 0 || a->lo.load_rules)) {
		if (a->cf.user != NULL || a->filter_opt) {
			fprintf(stderr, "pgsc-collect: --user and --self-filter "
				"are for --import and --source without a command "
				"or --load-rules (these run programs, and need "
				"root to the end)\n");
			return 2;
		}
		a->cf.filter = NULL; /* the environment's: not for this mode */
	}
	if (a->cf.user != NULL) {
		if (a->import || a->lo.source == NULL || strcmp(a->lo.source, "auto") == 0) {
			fprintf(stderr, "pgsc-collect: --user needs --source "
				"plugin, file:PATH or netlink\n");
			return 2;
		}
		a->cf.keep = PGSC_CAP_AUDIT_CONTROL; /* loss figures (AUDIT_GET) */
		if (strcmp(a->lo.source, "netlink") == 0)
			a->cf.keep |= PGSC_CAP_AUDIT_WRITE; /* the drain marker */
		else if (strncmp(a->lo.source, "file:", 5) == 0)
			a->cf.readable = a->lo.source + 5;
	}
	return -1;
}

/*
 * --args: the server's uid for its rules, --server-user's or postgres's.
 * -1 to go on, else the exit status.
 */
static int
args_uid(struct args *a)
{
	if (!a->args)
		return -1;
	if (!a->io.has_server_uid &&
	    server_uid("postgres", &a->io.server_uid) < 0) {
		fprintf(stderr, "pgsc-collect: --args: no user postgres; "
			"name the server's with --server-user\n");
		return 2;
	}
	a->lo.args_rules = 1;
	a->lo.args_uid = a->io.server_uid;
	return -1;
}

/* A daemon, or wrap mode around "-- COMMAND". */
static int
run_live(struct args *a)
{
	struct pgsc_live_stats ls;
	int rc;

	if (a->argc > 0) {
		a->lo.command = a->argv;
		a->lo.load_rules = !a->no_rules;
	}
	if (a->lo.trace) {
		/* pgsc-exec from the same directory as we are */
		ssize_t n = readlink("/proc/self/exe", a->exe,
				     sizeof(a->exe) - 1);
		char *slash;

		if (n > 0) {
			a->exe[n] = '\0';
			slash = strrchr(a->exe, '/');
			if (slash != NULL &&
			    (size_t)(slash - a->exe) + 10 < sizeof(a->exe)) {
				strcpy(slash + 1, "pgsc-exec");
				if (access(a->exe, X_OK) == 0)
					a->lo.exec_path = a->exe;
			}
		}
		if (a->lo.command == NULL) {
			fprintf(stderr, "pgsc-collect: --trace needs -- COMMAND\n");
			return 2;
		}
	}
	a->lo.postmaster_pids = a->pids;
	a->lo.n_postmaster_pids = a->io.n_postmaster_pids;
	a->lo.has_server_uid = a->io.has_server_uid;
	a->lo.server_uid = a->io.server_uid;
	a->lo.quiet = a->io.quiet;
	if (a->cf.user != NULL || a->cf.filter != NULL) {
		a->lo.ready = confine;
		a->lo.ready_arg = &a->cf;
	}
	rc = pgsc_store_open(a->db, 0, &a->st, &a->cause);
	if (rc == 0)
		rc = pgsc_live(a->st, &a->lo, &ls, &a->cause);
	if (rc < 0) {
		fprintf(stderr, "pgsc-collect: %s\n",
			a->cause ? a->cause : strerror(-rc));
		/* a store with planted SQL: refused like a usage error */
		return rc == -EUCLEAN ? 2 : 1;
	}
	if (!a->io.quiet) {
		fprintf(stderr, "pgsc-collect: round %lld: %llu SECCOMP "
			"records, kernel lost %llu, serial gaps %llu",
			(long long)ls.round, (unsigned long long)ls.records,
			(unsigned long long)ls.lost,
			(unsigned long long)ls.serial_gaps);
		/* only a fleet past the bound of serial sequences */
		if (ls.serials_untracked > 0)
			fprintf(stderr, ", serials untracked %llu",
				(unsigned long long)ls.serials_untracked);
		/* only a store whose commits took long (src/live.c) */
		if (ls.longest_wait > 0)
			fprintf(stderr, ", commits up to %.1f s apart",
				ls.longest_wait);
		fputc('\n', stderr);
	}
	if (ls.has_exit_status && ls.exit_status != 0)
		return ls.exit_status;
	if (ls.records == 0 && !ls.store_has_data) {
		/* said even with --quiet: the round is no evidence */
		fprintf(stderr, "pgsc-collect: round %lld saw no SECCOMP "
			"record and no earlier round holds one: nothing was "
			"logged under a seccomp filter (is the server running "
			"under a filter whose default action is log?); its "
			"report has no data\n", (long long)ls.round);
		return 1;
	}
	return 0;
}

/* A time of the audit clock as text (UTC). */
static void
when(char *buf, size_t size, double t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(buf, size, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		snprintf(buf, size, "%.0f", t);
}

/*
 * New input that gave no round: every SECCOMP record outside
 * --since/--until (ausearch's "<no matches>"), no SECCOMP record at all,
 * or only empty inputs.  Said even with --quiet: it is the result.  Exit 1.
 */
static int
import_nothing(const struct pgsc_import_stats *stats)
{
	char a[64], b[64];

	if (stats->until_cut > 0) {
		when(a, sizeof(a), stats->seen_first);
		fprintf(stderr, "pgsc-collect: no matches: the input's "
			"records begin at %s, after --until; no round "
			"created\n", a);
	} else if (stats->outside > 0) {
		when(a, sizeof(a), stats->seen_first);
		when(b, sizeof(b), stats->seen_last);
		fprintf(stderr, "pgsc-collect: no matches: all %llu SECCOMP "
			"records are outside --since/--until (the input's "
			"records run from %s to %s); no round created\n",
			(unsigned long long)stats->outside, a, b);
	} else if (stats->lines > 0) {
		fprintf(stderr, "pgsc-collect: no SECCOMP record in the "
			"input (%llu lines read): nothing was logged under a "
			"seccomp filter; run the server under a filter whose "
			"default action is log (pgsc-exec --default log, or "
			"the pgsc module with pgsc.default = log) and import "
			"its audit log; no round created\n",
			(unsigned long long)stats->lines);
	} else {
		fprintf(stderr, "pgsc-collect: the input is empty (%llu "
			"input%s without a complete line); no round created\n",
			(unsigned long long)stats->empty_files,
			stats->empty_files == 1 ? "" : "s");
	}
	return 1;
}

/* A named FIFO gave nothing: no writer, or one that wrote nothing.
 * Nothing was read, which is neither "nothing new" nor an empty log:
 * refused, exit 2 (it is never waited for, docs). */
static int
import_fifo(const struct pgsc_import_stats *stats)
{
	fprintf(stderr, "pgsc-collect: %llu FIFO%s had no writer; %s\n",
		(unsigned long long)stats->fifo_no_writer,
		stats->fifo_no_writer == 1 ? "" : "s",
		stats->round != 0 ? "the other inputs are in the round"
		: "no round created");
	return 2;
}

/* What an import did, on stderr; the exit status. */
static int
import_report(const struct pgsc_import_opts *io,
	      const struct pgsc_import_stats *stats)
{
	/* the store's unattributed count holds the foreign records too */
	uint64_t unattributed = stats->unattributed - stats->foreign;

	if (stats->fifo_no_writer > 0 && stats->round == 0)
		return import_fifo(stats);
	if (stats->round == 0 && stats->refused_files == 0 &&
	    (stats->outside > 0 || stats->lines > 0 || stats->empty_files > 0 ||
	     stats->until_cut > 0))
		return import_nothing(stats);
	if (stats->round == 0 && !io->quiet && stats->refused_files == 0) {
		fprintf(stderr, "pgsc-collect: nothing new to import (%llu file%s "
			"already imported); no round created\n",
			(unsigned long long)stats->skipped_files,
			stats->skipped_files == 1 ? "" : "s");
	} else if (stats->round != 0) {
		if (!io->quiet)
			fprintf(stderr, "pgsc-collect: round %lld: %llu SECCOMP "
				"records (%llu attributed, %llu unrelated, %llu "
				"standalone, %llu unattributed%s%.0llu%s) from "
				"%llu lines, %llu processes, %llu lines "
				"rejected\n",
				(long long)stats->round,
				(unsigned long long)stats->seccomp,
				(unsigned long long)stats->attributed,
				(unsigned long long)stats->unrelated,
				(unsigned long long)stats->standalone,
				(unsigned long long)unattributed,
				stats->foreign ? ", " : "",
				(unsigned long long)stats->foreign,
				stats->foreign ? " foreign" : "",
				(unsigned long long)stats->lines,
				(unsigned long long)stats->processes,
				(unsigned long long)stats->rejected);
		if ((io->has_since || io->has_until) && !io->quiet)
			fprintf(stderr, "pgsc-collect: %llu SECCOMP records "
				"outside --since/--until skipped\n",
				(unsigned long long)stats->outside);
		if (stats->serial_gaps > 0 && !io->quiet)
			fprintf(stderr, "pgsc-collect: warning: %llu serial "
				"gaps: events the logs do not hold (a backlog "
				"overflow, a rotated file not given); the round "
				"is not complete (pgsc-report --check-complete)\n",
				(unsigned long long)stats->serial_gaps);
		if (stats->serials_untracked > 0 && !io->quiet)
			fprintf(stderr, "pgsc-collect: warning: %llu lines of "
				"nodes past the bound of serial sequences "
				"(docs/fleet.md): their serial gaps are not "
				"known; the round is not complete (pgsc-report "
				"--check-complete)\n",
				(unsigned long long)stats->serials_untracked);
		if (unattributed > 0)
			fprintf(stderr, "pgsc-collect: warning: %llu records "
				"could not be attributed to a server (no "
				"process tree: load examples/pgsc.rules while "
				"collecting, or give --postmaster-pid/--pg-log)\n",
				(unsigned long long)unattributed);
		if (stats->foreign > 0 && stats->attributed == 0 &&
		    unattributed == 0)
			fprintf(stderr, "pgsc-collect: warning: all %llu "
				"records are foreign (other programs, other "
				"uids, no parent: docs/roles.md); the input "
				"holds no record of a server\n",
				(unsigned long long)stats->foreign);
	}
	if (stats->fifo_no_writer > 0)
		return import_fifo(stats);
	if (stats->refused_files == 0)
		return 0;
	/* like grep or gzip: every operand is tried, and the exit status
	 * says that some could not be */
	fprintf(stderr, "pgsc-collect: %llu input%s not imported (see "
		"above)%s\n", (unsigned long long)stats->refused_files,
		stats->refused_files == 1 ? "" : "s",
		stats->round != 0 ? "; the others are in the round" :
		"; no round created");
	return 1;
}

static int
run_import(struct args *a)
{
	struct pgsc_import_stats stats;
	int rc;

	if ((a->io.has_since || a->io.has_until) && !a->import) {
		fprintf(stderr, "pgsc-collect: --since and --until are for "
			"--import\n");
		return 2;
	}
	if (a->db == NULL && (a->import || a->live || a->argc > 0)) {
		/* the one option every mode needs: say so before the usage */
		fprintf(stderr, "pgsc-collect: --db FILE is required (the "
			"store: a new SQLite file, or one to add a round to)\n");
		usage(stderr);
		return 2;
	}
	if (a->db == NULL || !a->import || a->argc == 0) {
		usage(stderr);
		return 2;
	}
	if (a->io.has_since && a->io.has_until && a->io.until < a->io.since) {
		fprintf(stderr, "pgsc-collect: --until is before --since\n");
		return 2;
	}
	a->io.postmaster_pids = a->pids;
	a->io.pg_logs = a->pglogs;

	rc = pgsc_store_open(a->db, 0, &a->st, &a->cause);
	if (rc < 0) {
		fprintf(stderr, "pgsc-collect: %s\n",
			a->cause ? a->cause : strerror(-rc));
		return rc == -EUCLEAN ? 2 : 1;
	}
	/* directories are listed before the self-filter (it has no
	 * getdents64: nothing else needs it) */
	rc = pgsc_import_expand((const char *const *)a->argv, (size_t)a->argc,
				stderr, a->io.quiet, &a->inputs, &a->n_inputs,
				&a->refused);
	if (rc < 0) {
		fprintf(stderr, "pgsc-collect: %s\n", strerror(-rc));
		return 1;
	}
	rc = confine(&a->cf, &a->cause);
	if (rc == 0)
		rc = pgsc_import(a->st, &a->io, (const char *const *)a->inputs,
				 a->n_inputs, &stats, &a->cause);
	if (rc < 0) {
		fprintf(stderr, "pgsc-collect: %s\n",
			a->cause ? a->cause : strerror(-rc));
		return 1;
	}
	stats.refused_files += a->refused;
	return import_report(&a->io, &stats);
}

int
main(int argc, char **argv)
{
	struct args a;
	int c, status = 2;

	pgsc_set_progname("pgsc-collect");
	memset(&a, 0, sizeof(a));
	a.action = getenv("PGSC_SELF_FILTER_ACTION");
	/* The environment reaches pgsc-collect through scripts that do not
	 * know the options (tests/security runs the golden tests so). */
	a.cf.filter = getenv("PGSC_SELF_FILTER");
	if (a.cf.filter != NULL && a.cf.filter[0] == '\0')
		a.cf.filter = NULL;

	a.pglogs = calloc((size_t)argc, sizeof(*a.pglogs));
	a.pids = calloc((size_t)argc, sizeof(*a.pids));
	if (a.pglogs == NULL || a.pids == NULL) {
		fprintf(stderr, "pgsc-collect: out of memory\n");
		return 1;
	}
	/* "+": options end at the first non-option, so "-- COMMAND" and
	 * "--import a b" both work */
	while ((c = getopt_long(argc, argv, "+d:iL:p:g:P:FqhVs:c:SRNtru:f:a:T:E:",
				long_opts, NULL)) != -1) {
		status = parse_opt(&a, c);
		if (status >= 0)
			goto out;
	}
	status = args_uid(&a);
	if (status >= 0)
		goto out;
	if (a.print_rules) {
		pgsc_print_rules(stdout);
		if (a.args)
			pgsc_print_args_rules(stdout, a.lo.args_uid);
		status = 0;
		goto out;
	}
	a.argv = argv + optind;
	a.argc = argc - optind;
	status = check_confine(&a);
	if (status >= 0)
		goto out;
	if (a.db != NULL && !a.import && (a.live || a.argc > 0))
		status = run_live(&a);
	else
		status = run_import(&a);
out:
	pgsc_import_expand_free(a.inputs, a.n_inputs);
	free(a.cause);
	pgsc_store_free(a.st);
	free(a.pglogs);
	free(a.pids);
	return status;
}
