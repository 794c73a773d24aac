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
		"       pgsc-collect --print-rules\n"
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

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
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
	struct pgsc_import_opts io = { 0 };
	struct pgsc_import_stats stats;
	const char *db = NULL;
	const char **pglogs = NULL;
	int64_t *pids = NULL;
	pgsc_store *st = NULL;
	char *cause = NULL;
	struct pgsc_live_opts lo = { 0 };
	struct pgsc_live_stats ls;
	int import = 0, c, rc, status = 1, live = 0, no_rules = 0;
	char exe[4096];
	struct confine cf = { 0 };
	int filter_opt = 0;
	const char *action = getenv("PGSC_SELF_FILTER_ACTION");
	char **inputs = NULL;
	size_t n_inputs = 0, refused = 0;

	/* The environment reaches pgsc-collect through scripts that do not
	 * know the options (tests/security runs the golden tests so). */
	cf.filter = getenv("PGSC_SELF_FILTER");
	if (cf.filter != NULL && cf.filter[0] == '\0')
		cf.filter = NULL;

	pglogs = calloc((size_t)argc, sizeof(*pglogs));
	pids = calloc((size_t)argc, sizeof(*pids));
	if (pglogs == NULL || pids == NULL) {
		fprintf(stderr, "pgsc-collect: out of memory\n");
		return 1;
	}
	/* "+": options end at the first non-option, so "-- COMMAND" and
	 * "--import a b" both work */
	while ((c = getopt_long(argc, argv, "+d:iL:p:g:P:FqhVs:c:SRNtru:f:a:T:E:", opts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'i':
			import = 1;
			break;
		case 'L':
			io.label = optarg;
			lo.label = optarg;
			break;
		case 's':
			lo.source = optarg;
			live = 1;
			break;
		case 'c': {
			char *end;

			lo.commit_interval = strtod(optarg, &end);
			if (*end || lo.commit_interval <= 0 ||
			    lo.commit_interval > 3600) {
				fprintf(stderr, "pgsc-collect: bad --commit-interval\n");
				status = 2;
				goto out;
			}
			break;
		}
		case 'S':
			lo.from_start = 1;
			break;
		case 'R':
			lo.load_rules = 1;
			break;
		case 'N':
			no_rules = 1;
			break;
		case 't':
			lo.trace = 1;
			break;
		case 'u':
			cf.user = optarg;
			break;
		case 'f':
			cf.filter = optarg;
			filter_opt = 1;
			break;
		case 'a':
			action = optarg;
			break;
		case 'r':
			pgsc_print_rules(stdout);
			status = 0;
			goto out;
		case 'p': {
			char *end;
			long long v;

			errno = 0;
			v = strtoll(optarg, &end, 10);
			if (errno || *end || v <= 0 || v > INT_MAX) {
				fprintf(stderr, "pgsc-collect: bad --postmaster-pid \"%s\"\n",
					optarg);
				status = 2;
				goto out;
			}
			pids[io.n_postmaster_pids++] = v;
			break;
		}
		case 'g':
			pglogs[io.n_pg_logs++] = optarg;
			break;
		case 'U':
			if (server_uid(optarg, &io.server_uid) < 0) {
				fprintf(stderr, "pgsc-collect: --server-user: no "
					"user \"%s\" (a name in the passwd "
					"database, or a uid)\n", optarg);
				status = 2;
				goto out;
			}
			io.has_server_uid = 1;
			break;
		case 'P':
			io.pg_log_prefix = optarg;
			break;
		case 'T':
		case 'E': {
			int64_t *t = c == 'T' ? &io.since : &io.until;

			if (pgsc_time_parse(optarg, c == 'E', (int64_t)time(NULL),
					    t) < 0) {
				fprintf(stderr, "pgsc-collect: bad --%s \"%s\" "
					"(YYYY-MM-DD[ HH:MM[:SS]][Z|+HH:MM], "
					"epoch seconds, now, recent, today, "
					"yesterday or week-ago)\n",
					c == 'T' ? "since" : "until", optarg);
				status = 2;
				goto out;
			}
			if (c == 'T')
				io.has_since = 1;
			else
				io.has_until = 1;
			break;
		}
		case 'F':
			io.no_fast_path = 1;
			break;
		case 'q':
			io.quiet = 1;
			break;
		case 'h':
			usage(stdout);
			status = 0;
			goto out;
		case 'V':
			printf("pgsc-collect %s\n", PGSC_VERSION);
			status = 0;
			goto out;
		default:
			usage(stderr);
			status = 2;
			goto out;
		}
	}
	cf.quiet = io.quiet;
	cf.action = PGSC_ACT_ERROR;
	if (action != NULL && action[0] != '\0') {
		cf.action = pgsc_action_parse(action);
		if (cf.action < 0 || cf.action == PGSC_ACT_ALLOW) {
			fprintf(stderr, "pgsc-collect: bad --self-filter-action "
				"(log, error or kill)\n");
			status = 2;
			goto out;
		}
	}
	if (cf.filter != NULL && access(cf.filter, R_OK) < 0) {
		fprintf(stderr, "pgsc-collect: --self-filter %s: %s\n", cf.filter,
			strerror(errno));
		status = 2;
		goto out;
	}
	/* A wrapped command and auditctl would inherit the filter, and a
	 * process that must remove audit rules at the end keeps root. */
	if ((cf.filter != NULL || cf.user != NULL) && !import &&
	    (optind < argc || lo.load_rules)) {
		if (cf.user != NULL || filter_opt) {
			fprintf(stderr, "pgsc-collect: --user and --self-filter "
				"are for --import and --source without a command "
				"or --load-rules (these run programs, and need "
				"root to the end)\n");
			status = 2;
			goto out;
		}
		cf.filter = NULL; /* the environment's: not for this mode */
	}
	if (cf.user != NULL) {
		if (import || lo.source == NULL || strcmp(lo.source, "auto") == 0) {
			fprintf(stderr, "pgsc-collect: --user needs --source "
				"plugin, file:PATH or netlink\n");
			status = 2;
			goto out;
		}
		cf.keep = PGSC_CAP_AUDIT_CONTROL; /* loss figures (AUDIT_GET) */
		if (strcmp(lo.source, "netlink") == 0)
			cf.keep |= PGSC_CAP_AUDIT_WRITE; /* the drain marker */
		else if (strncmp(lo.source, "file:", 5) == 0)
			cf.readable = lo.source + 5;
	}
	if (db != NULL && !import && (live || optind < argc)) {
		/* live: a daemon, or wrap mode around "-- COMMAND" */
		if (optind < argc) {
			lo.command = argv + optind;
			lo.load_rules = !no_rules;
		}
		if (lo.trace) {
			/* pgsc-exec from the same directory as we are */
			ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
			char *slash;

			if (n > 0) {
				exe[n] = '\0';
				slash = strrchr(exe, '/');
				if (slash != NULL && (size_t)(slash - exe) + 10 < sizeof(exe)) {
					strcpy(slash + 1, "pgsc-exec");
					if (access(exe, X_OK) == 0)
						lo.exec_path = exe;
				}
			}
			if (lo.command == NULL) {
				fprintf(stderr, "pgsc-collect: --trace needs -- COMMAND\n");
				status = 2;
				goto out;
			}
		}
		lo.postmaster_pids = pids;
		lo.n_postmaster_pids = io.n_postmaster_pids;
		lo.has_server_uid = io.has_server_uid;
		lo.server_uid = io.server_uid;
		lo.quiet = io.quiet;
		if (cf.user != NULL || cf.filter != NULL) {
			lo.ready = confine;
			lo.ready_arg = &cf;
		}
		rc = pgsc_store_open(db, 0, &st, &cause);
		if (rc == 0)
			rc = pgsc_live(st, &lo, &ls, &cause);
		if (rc < 0) {
			fprintf(stderr, "pgsc-collect: %s\n",
				cause ? cause : strerror(-rc));
			goto out;
		}
		if (!io.quiet)
			fprintf(stderr, "pgsc-collect: round %lld: %llu SECCOMP "
				"records, kernel lost %llu, serial gaps %llu\n",
				(long long)ls.round, (unsigned long long)ls.records,
				(unsigned long long)ls.lost,
				(unsigned long long)ls.serial_gaps);
		status = ls.has_exit_status ? ls.exit_status : 0;
		goto out;
	}
	if ((io.has_since || io.has_until) && !import) {
		fprintf(stderr, "pgsc-collect: --since and --until are for "
			"--import\n");
		status = 2;
		goto out;
	}
	if (db == NULL || !import || optind >= argc) {
		usage(stderr);
		status = 2;
		goto out;
	}
	if (io.has_since && io.has_until && io.until < io.since) {
		fprintf(stderr, "pgsc-collect: --until is before --since\n");
		status = 2;
		goto out;
	}
	io.postmaster_pids = pids;
	io.pg_logs = pglogs;

	rc = pgsc_store_open(db, 0, &st, &cause);
	if (rc < 0) {
		fprintf(stderr, "pgsc-collect: %s\n", cause ? cause : strerror(-rc));
		goto out;
	}
	/* directories are listed before the self-filter (it has no
	 * getdents64: nothing else needs it) */
	rc = pgsc_import_expand((const char *const *)argv + optind,
				(size_t)(argc - optind), stderr, io.quiet,
				&inputs, &n_inputs, &refused);
	if (rc < 0) {
		fprintf(stderr, "pgsc-collect: %s\n", strerror(-rc));
		goto out;
	}
	rc = confine(&cf, &cause);
	if (rc < 0) {
		fprintf(stderr, "pgsc-collect: %s\n", cause ? cause : strerror(-rc));
		goto out;
	}
	rc = pgsc_import(st, &io, (const char *const *)inputs, n_inputs, &stats,
			 &cause);
	if (rc < 0) {
		fprintf(stderr, "pgsc-collect: %s\n", cause ? cause : strerror(-rc));
		goto out;
	}
	stats.refused_files += refused;
	if (stats.round == 0 && !io.quiet && stats.refused_files == 0) {
		fprintf(stderr, "pgsc-collect: nothing new to import (%llu file%s "
			"already imported); no round created\n",
			(unsigned long long)stats.skipped_files,
			stats.skipped_files == 1 ? "" : "s");
	} else if (stats.round != 0) {
		if (!io.quiet)
			fprintf(stderr, "pgsc-collect: round %lld: %llu SECCOMP "
				"records (%llu attributed, %llu unrelated, %llu "
				"standalone, %llu unattributed) from %llu lines, "
				"%llu processes, %llu lines rejected\n",
				(long long)stats.round,
				(unsigned long long)stats.seccomp,
				(unsigned long long)stats.attributed,
				(unsigned long long)stats.unrelated,
				(unsigned long long)stats.standalone,
				(unsigned long long)stats.unattributed,
				(unsigned long long)stats.lines,
				(unsigned long long)stats.processes,
				(unsigned long long)stats.rejected);
		if ((io.has_since || io.has_until) && !io.quiet)
			fprintf(stderr, "pgsc-collect: %llu SECCOMP records "
				"outside --since/--until skipped\n",
				(unsigned long long)stats.outside);
		if (stats.unattributed > 0)
			fprintf(stderr, "pgsc-collect: warning: %llu records "
				"could not be attributed to a server (no "
				"process tree: load examples/pgsc.rules while "
				"collecting, or give --postmaster-pid/--pg-log)\n",
				(unsigned long long)stats.unattributed);
	}
	status = 0;
	if (stats.refused_files > 0) {
		/* like grep or gzip: every operand is tried, and the exit
		 * status says that some could not be */
		fprintf(stderr, "pgsc-collect: %llu input%s not imported (see "
			"above)%s\n", (unsigned long long)stats.refused_files,
			stats.refused_files == 1 ? "" : "s",
			stats.round != 0 ? "; the others are in the round" :
			"; no round created");
		status = 1;
	}
out:
	pgsc_import_expand_free(inputs, n_inputs);
	free(cause);
	pgsc_store_free(st);
	free(pglogs);
	free(pids);
	return status;
}
