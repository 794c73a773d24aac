/* pgsc-collect - import audit logs into a pgsc store, one round per run. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgsc.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: pgsc-collect --db FILE [--label TEXT]\n"
		"                    [--postmaster-pid PID]... [--pg-log FILE]...\n"
		"                    [--pg-log-prefix FORMAT] [--quiet]\n"
		"                    --import AUDITLOG...\n"
		"       pgsc-collect --db FILE [--label TEXT] --source SRC\n"
		"                    [--commit-interval SECS] [--from-start]\n"
		"                    [--load-rules]\n"
		"       pgsc-collect --db FILE [--source SRC] [--trace] [--no-rules]\n"
		"                    -- COMMAND [ARGS...]\n"
		"       pgsc-collect --print-rules\n"
		"SRC is plugin, file:PATH or netlink.  Each run that finds new data\n"
		"is a new round of the store.\n");
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

	pglogs = calloc((size_t)argc, sizeof(*pglogs));
	pids = calloc((size_t)argc, sizeof(*pids));
	if (pglogs == NULL || pids == NULL) {
		fprintf(stderr, "pgsc-collect: out of memory\n");
		return 1;
	}
	/* "+": options end at the first non-option, so "-- COMMAND" and
	 * "--import a b" both work */
	while ((c = getopt_long(argc, argv, "+d:iL:p:g:P:FqhVs:c:SRNtr", opts,
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
		case 'P':
			io.pg_log_prefix = optarg;
			break;
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
		lo.quiet = io.quiet;
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
	if (db == NULL || !import || optind >= argc) {
		usage(stderr);
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
	rc = pgsc_import(st, &io, (const char *const *)argv + optind,
			 (size_t)(argc - optind), &stats, &cause);
	if (rc < 0) {
		fprintf(stderr, "pgsc-collect: %s\n", cause ? cause : strerror(-rc));
		goto out;
	}
	if (stats.round == 0) {
		fprintf(stderr, "pgsc-collect: nothing new to import (%llu file%s "
			"already imported); no round created\n",
			(unsigned long long)stats.skipped_files,
			stats.skipped_files == 1 ? "" : "s");
	} else {
		fprintf(stderr, "pgsc-collect: round %lld: %llu SECCOMP records "
			"(%llu attributed, %llu unrelated, %llu standalone, "
			"%llu unattributed) from %llu lines, %llu processes, "
			"%llu lines rejected\n",
			(long long)stats.round,
			(unsigned long long)stats.seccomp,
			(unsigned long long)stats.attributed,
			(unsigned long long)stats.unrelated,
			(unsigned long long)stats.standalone,
			(unsigned long long)stats.unattributed,
			(unsigned long long)stats.lines,
			(unsigned long long)stats.processes,
			(unsigned long long)stats.rejected);
		if (stats.unattributed > 0)
			fprintf(stderr, "pgsc-collect: warning: %llu records "
				"could not be attributed to a server (no "
				"process tree: load examples/pgsc.rules while "
				"collecting, or give --postmaster-pid/--pg-log)\n",
				(unsigned long long)stats.unattributed);
	}
	status = 0;
out:
	free(cause);
	pgsc_store_free(st);
	free(pglogs);
	free(pids);
	return status;
}
