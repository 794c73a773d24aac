/* SPDX-License-Identifier: PostgreSQL */
/* pgsc-report - print allow lists from a pgsc store; check GUC lines. */
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
		"usage: pgsc-report --db FILE [--format FORMAT]\n"
		"                   [--round N | --round FROM-TO]\n"
		"                   [--guc-prefix PREFIX] [--session-roles SPEC]\n"
		"                   [--arch ARCH] [--portable]\n"
		"                   [--default log|error|kill]\n"
		"       pgsc-report --db FILE --status [--format json]\n"
		"       pgsc-report --db FILE --check-complete [--round N|FROM-TO]\n"
		"       pgsc-report --check-guc FILE [--arch ARCH] [--strict]\n"
		"       pgsc-report --db FILE --candidates SCAN.json [--format json]\n"
		"                   [--round N | --round FROM-TO]\n"
		"FORMAT is guc (default), json, table, systemd, oci, effective or html.\n"
		"SPEC is client (default), pgseccomp, rfc, or a comma list of roles.\n"
		"ARCH is x86_64, i386, aarch64, arm, ppc64le, s390x, ... or native.\n");
}

/* A GUC prefix is empty or "word." or "word.word.": PostgreSQL takes a
 * custom setting as "class.name", so "pgsc" would make the setting
 * "pgscglobal_syscall_allow", which no module reads. */
static int
prefix_ok(const char *p)
{
	int start = 1;

	for (; *p; p++) {
		if (*p == '.') {
			if (start)
				return 0;
			start = 1;
			continue;
		}
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9' && !start) || *p == '_'))
			return 0;
		start = 0;
	}
	return start;
}

/* Flush standard output: a report that did not reach its reader (a full
 * disk, a closed pipe) is an I/O error, never a verdict.  Returns 0, or
 * 2 after saying so. */
static int
stdout_done(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	fprintf(stderr, "pgsc-report: writing to standard output: %s\n",
		errno ? strerror(errno) : "I/O error");
	return 2;
}

/* "pgsc-report: " and an option value or a word from the command line,
 * escaped: it may hold anything. */
static void
bad_value(const char *what, const char *value)
{
	fprintf(stderr, "pgsc-report: %s \"", what);
	pgsc_text_escape(stderr, value);
	fputs("\"\n", stderr);
}

/*
 * A cause from the library, on stderr.  It can quote a file name given
 * on the command line and SQLite's messages, which can quote a hostile
 * store's schema: @path, when the cause starts with it, is escaped like
 * any untrusted text; the rest keeps printable ASCII (quotes too) and
 * shows every other byte and the backslash as \xNN.
 */
static void
print_cause(const char *path, const char *cause)
{
	size_t plen = path != NULL ? strlen(path) : 0;
	const unsigned char *p = (const unsigned char *)cause;

	fputs("pgsc-report: ", stderr);
	if (plen > 0 && strncmp(cause, path, plen) == 0 && cause[plen] == ':') {
		pgsc_text_escape(stderr, path);
		p += plen;
	}
	for (; *p; p++) {
		if (*p < 0x20 || *p >= 0x7f || *p == '\\')
			fprintf(stderr, "\\x%02x", *p);
		else
			fputc(*p, stderr);
	}
	fputc('\n', stderr);
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
		{ "arch", required_argument, NULL, 'a' },
		{ "portable", no_argument, NULL, 'P' },
		{ "default", required_argument, NULL, 'D' },
		{ "check-guc", required_argument, NULL, 'G' },
		{ "strict", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		/* issue 16: the coverage view (src/candidates.c) */
		{ "candidates", required_argument, NULL, 'K' },
		{ NULL, 0, NULL, 0 },
	};
	struct pgsc_report_opts ro;
	struct pgsc_guc_check_opts go = { 0, 0 };
	const char *db = NULL, *guc = NULL, *cands = NULL;
	pgsc_store *st = NULL;
	char *cause = NULL;
	int c, rc, status = 1, want_status = 0, check = 0, strict = 0;
	int format_given = 0, list_opts = 0;

	memset(&ro, 0, sizeof(ro));
	ro.guc_prefix = "";
	while ((c = getopt_long(argc, argv, "d:f:r:p:s:SCa:PD:G:ThVK:", opts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'f':
			format_given = 1;
			if (strcmp(optarg, "guc") == 0)
				ro.format = PGSC_FMT_GUC;
			else if (strcmp(optarg, "json") == 0)
				ro.format = PGSC_FMT_JSON;
			else if (strcmp(optarg, "table") == 0)
				ro.format = PGSC_FMT_TABLE;
			else if (strcmp(optarg, "systemd") == 0)
				ro.format = PGSC_FMT_SYSTEMD;
			else if (strcmp(optarg, "oci") == 0)
				ro.format = PGSC_FMT_OCI;
			else if (strcmp(optarg, "effective") == 0)
				ro.format = PGSC_FMT_EFFECTIVE;
			else if (strcmp(optarg, "html") == 0)
				ro.format = PGSC_FMT_HTML;
			else {
				bad_value("unknown format", optarg);
				return 2;
			}
			break;
		case 'r':
			list_opts = 1;
			if (pgsc_round_range_parse(optarg, &ro.round_from, &ro.round_to) < 0) {
				bad_value("bad --round", optarg);
				return 2;
			}
			break;
		case 'p':
			list_opts = 1;
			if (!prefix_ok(optarg)) {
				bad_value("--guc-prefix must be empty or end "
					  "with a dot, as in pgsc. or "
					  "pgseccomp. (letters, digits and '_' "
					  "before it), not", optarg);
				return 2;
			}
			ro.guc_prefix = optarg;
			break;
		case 's':
			list_opts = 1;
			ro.session_roles = optarg;
			if (pgsc_session_roles_check(optarg, &cause) < 0) {
				print_cause(NULL, cause ? cause : "bad --session-roles");
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
		case 'a':
			ro.arch = go.arch = pgsc_arch_parse(optarg);
			if (ro.arch == 0) {
				bad_value("unknown --arch", optarg);
				return 2;
			}
			break;
		case 'P':
			list_opts = 1;
			ro.portable = 1;
			break;
		case 'D':
			list_opts = 1;
			rc = pgsc_action_parse(optarg);
			if (rc != PGSC_ACT_LOG && rc != PGSC_ACT_ERROR &&
			    rc != PGSC_ACT_KILL) {
				bad_value("--default must be log, error or kill, "
					  "not", optarg);
				return 2;
			}
			ro.has_default = 1;
			ro.def = rc;
			break;
		case 'G':
			guc = optarg;
			break;
		case 'T':
			strict = 1;
			break;
		case 'K':
			cands = optarg;
			break;
		case 'h':
			usage(stdout);
			return stdout_done();
		case 'V':
			printf("pgsc-report %s\n", PGSC_VERSION);
			return stdout_done();
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (guc != NULL) {
		struct pgsc_guc_check_result res;

		if (db != NULL || want_status || check || format_given ||
		    list_opts) {
			fprintf(stderr, "pgsc-report: --check-guc takes only "
				"--arch and --strict\n");
			return 2;
		}
		go.strict = strict;
		rc = pgsc_guc_check(guc, &go, stdout, &res, &cause);
		if (rc < 0) {
			print_cause(guc, cause ? cause : strerror(-rc));
			free(cause);
			return 2;
		}
		if (stdout_done() != 0)
			return 2;
		return res.errors > 0 || (strict && res.warnings > 0) ? 1 : 0;
	}
	if (db == NULL || strict) {
		usage(stderr);
		return 2;
	}
	if ((want_status || check) && (ro.arch || ro.portable ||
				       ro.has_default ||
				       (format_given && (check ||
					ro.format != PGSC_FMT_JSON)))) {
		fprintf(stderr, "pgsc-report: --status takes only "
			"--format=json, --check-complete no --format; neither "
			"takes --arch, --portable or --default\n");
		return 2;
	}
	if (ro.has_default && ro.format != PGSC_FMT_SYSTEMD &&
	    ro.format != PGSC_FMT_OCI && ro.format != PGSC_FMT_EFFECTIVE) {
		fprintf(stderr, "pgsc-report: --default applies to the systemd, "
			"oci and effective formats\n");
		return 2;
	}
	rc = pgsc_store_open(db, PGSC_STORE_READONLY, &st, &cause);
	if (rc == 0 && cands != NULL) {
		/* issue 16: candidates against the observed (docs/static.md) */
		rc = pgsc_candidates_report(st, cands, &ro, stdout, &cause);
		if (rc == 0)
			status = 0;
	} else if (rc == 0 && want_status) {
		int converged = 0;

		rc = pgsc_status(st, &ro, stdout, &converged, &cause);
		if (rc == 0)
			status = converged ? 0 : 1;
	} else if (rc == 0 && check) {
		rc = pgsc_check_complete(st, &ro, stdout, &cause);
		if (rc >= 0)
			status = rc;
	} else if (rc == 0) {
		ro.diag = stderr;
		rc = pgsc_report(st, &ro, stdout, &cause);
		if (rc >= 0)
			status = rc;
		if (rc > 0) {
			/* printed, but not worth pasting: say why */
			print_cause(NULL, cause ? cause : "the lists are not "
				    "usable");
		}
	}
	if (rc < 0) {
		print_cause(db, cause ? cause : strerror(-rc));
		status = 2;
	} else if (stdout_done() != 0) {
		status = 2;
	}
	free(cause);
	pgsc_store_free(st);
	return status;
}
