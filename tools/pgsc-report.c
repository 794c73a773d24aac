/* pgsc-report - print allow lists from a pgsc store. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: pgsc-report --db FILE [--format guc|json|table]\n"
		"                   [--round N | --round FROM-TO]\n"
		"                   [--guc-prefix PREFIX] [--session-roles SPEC]\n"
		"       pgsc-report --db FILE --status\n"
		"       pgsc-report --db FILE --check-complete [--round N|FROM-TO]\n"
		"SPEC is client (default), pgseccomp, rfc, or a comma list of roles.\n");
}

static int
prefix_ok(const char *p)
{
	for (; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '.'))
			return 0;
	return 1;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "round", required_argument, NULL, 'r' },
		{ "guc-prefix", required_argument, NULL, 'p' },
		{ "session-roles", required_argument, NULL, 's' },
		{ "status", no_argument, NULL, 'S' },
		{ "check-complete", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct pgsc_report_opts ro = { 0 };
	const char *db = NULL;
	pgsc_store *st = NULL;
	char *cause = NULL;
	int c, rc, status = 1, want_status = 0, check = 0;

	ro.guc_prefix = "";
	while ((c = getopt_long(argc, argv, "d:f:r:p:s:SChV", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "guc") == 0)
				ro.format = PGSC_FMT_GUC;
			else if (strcmp(optarg, "json") == 0)
				ro.format = PGSC_FMT_JSON;
			else if (strcmp(optarg, "table") == 0)
				ro.format = PGSC_FMT_TABLE;
			else {
				fprintf(stderr, "pgsc-report: unknown format \"%s\"\n",
					optarg);
				return 2;
			}
			break;
		case 'r':
			if (pgsc_round_range_parse(optarg, &ro.round_from, &ro.round_to) < 0) {
				fprintf(stderr, "pgsc-report: bad --round \"%s\"\n",
					optarg);
				return 2;
			}
			break;
		case 'p':
			if (!prefix_ok(optarg)) {
				fprintf(stderr, "pgsc-report: --guc-prefix may only "
					"hold letters, digits, '_' and '.'\n");
				return 2;
			}
			ro.guc_prefix = optarg;
			break;
		case 's':
			ro.session_roles = optarg;
			if (pgsc_session_roles_check(optarg, &cause) < 0) {
				fprintf(stderr, "pgsc-report: %s\n", cause);
				free(cause);
				return 2;
			}
			break;
		case 'S':
			want_status = 1;
			break;
		case 'C':
			check = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("pgsc-report %s\n", PGSC_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (db == NULL || optind != argc) {
		usage(stderr);
		return 2;
	}
	rc = pgsc_store_open(db, PGSC_STORE_READONLY, &st, &cause);
	if (rc == 0 && want_status) {
		int converged = 0;

		rc = pgsc_status(st, stdout, &converged, &cause);
		if (rc == 0)
			status = converged ? 0 : 1;
	} else if (rc == 0 && check) {
		rc = pgsc_check_complete(st, &ro, stdout, &cause);
		if (rc >= 0)
			status = rc;
	} else if (rc == 0) {
		rc = pgsc_report(st, &ro, stdout, &cause);
		if (rc == 0)
			status = 0;
	}
	if (rc < 0) {
		fprintf(stderr, "pgsc-report: %s\n", cause ? cause : strerror(-rc));
		status = 2;
	}
	free(cause);
	pgsc_store_free(st);
	return status;
}
