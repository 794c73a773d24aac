/* SPDX-License-Identifier: PostgreSQL */
/* pgsc-scan - the static candidate syscalls of an installed PostgreSQL
 * server: its binary, its modules and every library they need. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc.h"

#define MAX_EXTRA 256

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: pgsc-scan [--server FILE] [--pkglibdir DIR | --no-modules]\n"
		"                 [--module FILE]... [--pg-config FILE]\n"
		"                 [--indirect address-taken|none] [--no-phases]\n"
		"                 [--format text|json] [--output FILE] [--quiet]\n"
		"       pgsc-scan --help | --version\n"
		"Without --server, the postgres binary of pg_config --bindir;\n"
		"without --pkglibdir, pg_config --pkglibdir.  The pg_config:\n"
		"--pg-config, else $PG_CONFIG, else PATH's when its bindir\n"
		"holds postgres, else /usr/lib/postgresql/NN/bin (Debian),\n"
		"then /usr/pgsql-NN/bin (PGDG), newest NN first.\n"
		"Progress goes to stderr, a line per step (--quiet: none).\n");
}

static void
bad_value(const char *what, const char *value)
{
	fprintf(stderr, "pgsc-scan: %s \"", what);
	pgsc_text_escape(stderr, value);
	fputs("\"\n", stderr);
}

/* The server and its modules that the options left out, found in pgsc's
 * one order (pgsc_pg_layout_find()), said on stderr unless @quiet.
 * @pkglibdir is NULL with --no-modules.  Returns 0 or -1 (said). */
static int
find_server(const char *pgc, int quiet, char **server, char **pkglibdir)
{
	struct pgsc_pg_layout pg = { 0 };
	char *cause = NULL;
	int rc = -1;

	if (pgsc_pg_layout_find(pgc, &pg, &cause) < 0) {
		fputs("pgsc-scan: ", stderr);
		pgsc_text_escape(stderr, cause);
		fputs(*server == NULL ? "; name the server with --server "
		      "FILE, or its pg_config with --pg-config FILE\n" :
		      "; --pkglibdir DIR names the modules, --no-modules "
		      "scans the server alone\n", stderr);
		goto out;
	}
	if (!quiet) {
		fputs("pgsc-scan: PostgreSQL of ", stderr);
		pgsc_text_escape(stderr, pg.pg_config ? pg.pg_config : pg.bindir);
		fprintf(stderr, " (%s)\n", pg.how);
	}
	if (*server == NULL &&
	    asprintf(server, "%s/postgres", pg.bindir) < 0) {
		*server = NULL;
		fputs("pgsc-scan: out of memory\n", stderr);
		goto out;
	}
	if (pkglibdir != NULL && *pkglibdir == NULL) {
		*pkglibdir = strdup(pg.pkglibdir);
		if (*pkglibdir == NULL) {
			fputs("pgsc-scan: out of memory\n", stderr);
			goto out;
		}
	}
	rc = 0;
out:
	pgsc_pg_layout_clear(&pg);
	free(cause);
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "pkglibdir", required_argument, NULL, 'L' },
		{ "no-modules", no_argument, NULL, 'N' },
		{ "module", required_argument, NULL, 'm' },
		{ "pg-config", required_argument, NULL, 'c' },
		{ "indirect", required_argument, NULL, 'i' },
		{ "no-phases", no_argument, NULL, 'P' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct pgsc_scan_opts so = { .indirect = 1 };
	enum pgsc_scan_format format = PGSC_SCAN_TEXT;
	const char *extra[MAX_EXTRA];
	const char *pgc = NULL, *output = NULL;
	char *server = NULL, *pkglibdir = NULL, *cause = NULL;
	int c, no_modules = 0, quiet = 0, status = 1, rc;
	FILE *out = stdout;

	pgsc_set_progname("pgsc-scan");
	while ((c = getopt_long(argc, argv, "s:L:Nm:c:i:Pf:o:qhV", opts,
				NULL)) != -1) {
		switch (c) {
		case 's':
			free(server);
			server = strdup(optarg);
			break;
		case 'L':
			free(pkglibdir);
			pkglibdir = strdup(optarg);
			break;
		case 'N':
			no_modules = 1;
			break;
		case 'm':
			if (so.nextra >= MAX_EXTRA) {
				fprintf(stderr, "pgsc-scan: at most %d --module\n",
					MAX_EXTRA);
				return 2;
			}
			extra[so.nextra++] = optarg;
			break;
		case 'c':
			pgc = optarg;
			break;
		case 'i':
			if (strcmp(optarg, "address-taken") == 0)
				so.indirect = 1;
			else if (strcmp(optarg, "none") == 0)
				so.indirect = 0;
			else {
				bad_value("unknown --indirect", optarg);
				return 2;
			}
			break;
		case 'P':
			so.no_phases = 1;
			break;
		case 'f':
			if (strcmp(optarg, "json") == 0)
				format = PGSC_SCAN_JSON;
			else if (strcmp(optarg, "text") == 0)
				format = PGSC_SCAN_TEXT;
			else {
				bad_value("unknown format", optarg);
				return 2;
			}
			break;
		case 'o':
			output = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("pgsc-scan %s\n", PGSC_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		bad_value("unexpected argument", argv[optind]);
		return 2;
	}
	if ((server == NULL || (pkglibdir == NULL && !no_modules)) &&
	    find_server(pgc, quiet, &server, no_modules ? NULL : &pkglibdir) < 0)
		goto out;
	so.server = server;
	so.pkglibdir = no_modules ? NULL : pkglibdir;
	so.extra = extra;
	so.progress = quiet ? NULL : stderr;
	if (output != NULL) {
		out = fopen(output, "w");
		if (out == NULL) {
			fprintf(stderr, "pgsc-scan: ");
			pgsc_text_escape(stderr, output);
			fprintf(stderr, ": %s\n", strerror(errno));
			goto out;
		}
	}
	rc = pgsc_scan(&so, format, out, &cause);
	if (rc < 0) {
		fputs("pgsc-scan: ", stderr);
		pgsc_text_escape(stderr, cause ? cause : strerror(-rc));
		fputc('\n', stderr);
		goto out;
	}
	status = 0;
out:
	if (out != stdout && out != NULL && fclose(out) != 0 && status == 0) {
		fprintf(stderr, "pgsc-scan: write failed: %s\n", strerror(errno));
		status = 1;
	}
	free(cause);
	free(server);
	free(pkglibdir);
	return status;
}
