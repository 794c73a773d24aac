/* pgsc-collect - import audit logs into a pgsc store, one round per run. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: pgsc-collect --db FILE [--label TEXT]\n"
		"                    [--postmaster-pid PID]... [--pg-log FILE]...\n"
		"                    [--pg-log-prefix FORMAT] [--quiet]\n"
		"                    --import AUDITLOG...\n"
		"Each run that finds new data is a new round of the store.\n");
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
	int import = 0, c, rc, status = 1;

	pglogs = calloc((size_t)argc, sizeof(*pglogs));
	pids = calloc((size_t)argc, sizeof(*pids));
	if (pglogs == NULL || pids == NULL) {
		fprintf(stderr, "pgsc-collect: out of memory\n");
		return 1;
	}
	while ((c = getopt_long(argc, argv, "d:iL:p:g:P:FqhV", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'i':
			import = 1;
			break;
		case 'L':
			io.label = optarg;
			break;
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
