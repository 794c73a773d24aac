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
		"                   [--default log|error|kill] [--node NAME]\n"
		"                   [--per-type[=observed|routine]]\n"
		"                   [--unknown-syscall-action enosys|default]\n"
		"                   [--sort risk|rare|count|name|number] (html)\n"
		"                   [--explain] (table, json) [--no-programs]\n"
		"                   [--surface] (table) [--args]\n"
		"                   [--base runtime-default] (spo)\n"
		"       pgsc-report --db FILE --status [--format json]\n"
		"       pgsc-report --db FILE --check-complete [--round N|FROM-TO]\n"
		"                   [--node NAME]\n"
		"       pgsc-report --check-guc FILE [--arch ARCH] [--strict]\n"
		"       pgsc-report --db FILE --candidates SCAN.json [--format json]\n"
		"                   [--round N | --round FROM-TO]\n"
		"FORMAT is guc (default), json, table, systemd, oci, spo, effective or html.\n"
		"SPEC is client (default), pgseccomp, rfc, or a comma list of roles.\n"
		"ARCH is x86_64, i386, aarch64, arm, ppc64le, s390x, ... or native.\n"
		"NAME is a node= name of a central log; '' is the local host.\n"
		"--unknown-syscall-action (oci): enosys (default) answers ENOSYS to the\n"
		"calls newer than the lists, EPERM to the known ones not listed; default\n"
		"gives every call not listed the --default action.\n"
		"--explain: why each name is in the lists (roles, first round, an\n"
		"example process, systemd groups, sensitive first).  --no-programs:\n"
		"the session and per-type lists without what only programs run by\n"
		"backends need, and without execve, execveat, vfork.  --surface:\n"
		"the kernel CVEs each list reaches (src/cves.def) beside Docker's\n"
		"default and systemd's @system-service (json, html: always).\n"
		"--args: argument rules from the values pgsc-collect --args\n"
		"collected (guc, json, oci, systemd): socket(a0:a1&0xf=1:1|2:1).\n"
		"--base runtime-default (spo): containerd's default profile as a\n"
		"second SeccompProfile, and the list as baseProfileName plus the\n"
		"names the default lacks (src/containerd_default.def).\n");
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

/* What the command line asked for. */
struct args {
	struct pgsc_report_opts ro;
	struct pgsc_guc_check_opts go;
	const char *db, *guc, *cands;
	int want_status, check, strict, format_given, list_opts;
	int unknown_given;
};

static int
parse_format(const char *v, enum pgsc_format *f)
{
	static const struct {
		const char *name;
		enum pgsc_format f;
	} fmts[] = {
		{ "guc", PGSC_FMT_GUC }, { "json", PGSC_FMT_JSON },
		{ "table", PGSC_FMT_TABLE }, { "systemd", PGSC_FMT_SYSTEMD },
		{ "oci", PGSC_FMT_OCI }, { "spo", PGSC_FMT_SPO },
		{ "effective", PGSC_FMT_EFFECTIVE },
		{ "html", PGSC_FMT_HTML },
	};

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
		if (strcmp(v, fmts[i].name) == 0) {
			*f = fmts[i].f;
			return 0;
		}
	bad_value("unknown format", v);
	return -1;
}

/* One option of the list family; 0, or the exit status (2). */
static int
parse_list_opt(struct args *A, int c)
{
	char *cause = NULL;
	int rc;

	A->list_opts = 1;
	switch (c) {
	case 'r':
		if (pgsc_round_range_parse(optarg, &A->ro.round_from,
					   &A->ro.round_to) < 0) {
			bad_value("bad --round", optarg);
			return 2;
		}
		break;
	case 'p':
		if (!pgsc_guc_prefix_ok(optarg)) {
			bad_value("--guc-prefix must be empty or one "
				  "name and a dot, as in pgsc. or "
				  "pgseccomp. (a letter or '_', then "
				  "letters, digits and '_': "
				  "PostgreSQL's configuration file "
				  "allows one dot in a setting's name), "
				  "not", optarg);
			return 2;
		}
		A->ro.guc_prefix = optarg;
		break;
	case 's':
		A->ro.session_roles = optarg;
		if (pgsc_session_roles_check(optarg, &cause) < 0) {
			print_cause(NULL, cause ? cause : "bad --session-roles");
			free(cause);
			return 2;
		}
		break;
	case 'P':
		A->ro.portable = 1;
		break;
	case 'N':
		/* checked against the store's nodes (report.c) */
		A->ro.node = optarg;
		break;
	case 'D':
		rc = pgsc_action_parse(optarg);
		if (rc != PGSC_ACT_LOG && rc != PGSC_ACT_ERROR &&
		    rc != PGSC_ACT_KILL) {
			bad_value("--default must be log, error or kill, "
				  "not", optarg);
			return 2;
		}
		A->ro.has_default = 1;
		A->ro.def = rc;
		break;
	}
	return 0;
}

/* --sort KEY: the HTML page's rows (enum pgsc_sort). */
static int
parse_sort(const char *arg, int *sort)
{
	static const char *const keys[] = {
		[PGSC_SORT_RISK] = "risk", [PGSC_SORT_RARE] = "rare",
		[PGSC_SORT_COUNT] = "count", [PGSC_SORT_NAME] = "name",
		[PGSC_SORT_NUMBER] = "number",
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strcmp(arg, keys[i]) == 0) {
			*sort = (int)i;
			return 0;
		}
	}
	bad_value("--sort takes risk, rare, count, name or number, not", arg);
	return -1;
}

/* The options; -1 to go on, else the exit status. */
static int
parse_args(int argc, char **argv, struct args *A)
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
		/* the coverage view (src/candidates.c) */
		{ "candidates", required_argument, NULL, 'K' },
		/* one node of a central log (docs/fleet.md) */
		{ "node", required_argument, NULL, 'N' },
		/* a list per backend type (src/report_types.c) */
		{ "per-type", optional_argument, NULL, 'Y' },
		/* ENOSYS for the calls newer than the lists */
		{ "unknown-syscall-action", required_argument, NULL, 'U' },
		/* the HTML page's row order */
		{ "sort", required_argument, NULL, 'O' },
		/* why each name is there (src/report_explain.c) */
		{ "explain", no_argument, NULL, 'E' },
		/* no program below a backend (src/report_programs.c) */
		{ "no-programs", no_argument, NULL, 'R' },
		/* the attack-surface score (src/report_surface.c) */
		{ "surface", no_argument, NULL, 'W' },
		/* argument rules (src/report_args.c) */
		{ "args", no_argument, NULL, 'A' },
		/* a delta over containerd's default (src/report_spo.c) */
		{ "base", required_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	memset(A, 0, sizeof(*A));
	A->ro.guc_prefix = "";
	while ((c = getopt_long(argc, argv, "d:f:r:p:s:SCa:PD:G:ThVK:N:YU:O:ERWAB:", opts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			A->db = optarg;
			break;
		case 'f':
			A->format_given = 1;
			if (parse_format(optarg, &A->ro.format) < 0)
				return 2;
			break;
		case 'r': case 'p': case 's': case 'P': case 'D': case 'N':
			if ((rc = parse_list_opt(A, c)) != 0)
				return rc;
			break;
		case 'S':
			A->want_status = 1;
			break;
		case 'E':
			A->list_opts = A->ro.explain = 1;
			break;
		case 'R':
			A->list_opts = A->ro.no_programs = 1;
			break;
		case 'W':
			A->list_opts = A->ro.surface = 1;
			break;
		case 'A':
			A->list_opts = A->ro.args = 1;
			break;
		case 'B':
			if (strcmp(optarg, "runtime-default") != 0) {
				bad_value("--base takes runtime-default "
					  "(containerd's default profile), "
					  "not", optarg);
				return 2;
			}
			A->list_opts = 1;
			A->ro.base = PGSC_BASE_RUNTIME_DEFAULT;
			break;
		case 'O':
			if (parse_sort(optarg, &A->ro.sort) < 0)
				return 2;
			break;
		case 'Y':
			if (optarg == NULL || strcmp(optarg, "observed") == 0) {
				A->ro.per_type = PGSC_PER_TYPE_OBSERVED;
			} else if (strcmp(optarg, "routine") == 0) {
				A->ro.per_type = PGSC_PER_TYPE_ROUTINE;
			} else {
				fprintf(stderr, "pgsc-report: --per-type takes "
					"observed or routine, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'U':
			A->unknown_given = 1;
			if (strcmp(optarg, "enosys") != 0 &&
			    strcmp(optarg, "default") != 0) {
				bad_value("--unknown-syscall-action must be "
					  "enosys or default, not", optarg);
				return 2;
			}
			A->ro.unknown_default = strcmp(optarg, "default") == 0;
			break;
		case 'C':
			A->check = 1;
			break;
		case 'a':
			A->ro.arch = A->go.arch = pgsc_arch_parse(optarg);
			if (A->ro.arch == 0) {
				bad_value("unknown --arch", optarg);
				return 2;
			}
			break;
		case 'G':
			A->guc = optarg;
			break;
		case 'T':
			A->strict = 1;
			break;
		case 'K':
			A->cands = optarg;
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
	return -1;
}

/* --check-guc FILE: no store. */
static int
check_guc(struct args *A)
{
	struct pgsc_guc_check_result res;
	char *cause = NULL;
	int rc;

	if (A->db != NULL || A->want_status || A->check || A->format_given ||
	    A->list_opts) {
		fprintf(stderr, "pgsc-report: --check-guc takes only "
			"--arch and --strict\n");
		return 2;
	}
	A->go.strict = A->strict;
	rc = pgsc_guc_check(A->guc, &A->go, stdout, &res, &cause);
	if (rc < 0) {
		print_cause(A->guc, cause ? cause : strerror(-rc));
		free(cause);
		return 2;
	}
	if (stdout_done() != 0)
		return 2;
	return res.errors > 0 || (A->strict && res.warnings > 0) ? 1 : 0;
}

/* The options that go together, for a store; 0 or 2. */
static int
check_combination(const struct args *A)
{
	const struct pgsc_report_opts *ro = &A->ro;

	if (A->db == NULL || A->strict) {
		usage(stderr);
		return 2;
	}
	if ((A->want_status || A->check) &&
	    (ro->arch || ro->portable || ro->has_default ||
	     (A->format_given && (A->check || ro->format != PGSC_FMT_JSON)))) {
		fprintf(stderr, "pgsc-report: --status takes only "
			"--format=json, --check-complete no --format; neither "
			"takes --arch, --portable or --default\n");
		return 2;
	}
	if ((ro->explain || ro->no_programs) &&
	    (A->want_status || A->check || A->cands != NULL)) {
		fprintf(stderr, "pgsc-report: --explain and --no-programs "
			"apply to the lists, not to --status, --check-complete "
			"or --candidates\n");
		return 2;
	}
	if (ro->surface && (A->want_status || A->check || A->cands != NULL)) {
		fprintf(stderr, "pgsc-report: --surface applies to the lists, "
			"not to --status, --check-complete or --candidates\n");
		return 2;
	}
	if (ro->node != NULL && (A->want_status || A->cands != NULL)) {
		fprintf(stderr, "pgsc-report: --node applies to the lists and "
			"to --check-complete, not to --status or --candidates\n");
		return 2;
	}
	if (ro->has_default && ro->format != PGSC_FMT_SYSTEMD &&
	    ro->format != PGSC_FMT_OCI && ro->format != PGSC_FMT_SPO &&
	    ro->format != PGSC_FMT_EFFECTIVE) {
		fprintf(stderr, "pgsc-report: --default applies to the systemd, "
			"oci, spo and effective formats\n");
		return 2;
	}
	if (ro->base && (ro->format != PGSC_FMT_SPO || A->want_status ||
			 A->check || A->cands != NULL)) {
		fprintf(stderr, "pgsc-report: --base applies to the spo "
			"format: only the operator's SeccompProfile stacks on "
			"a base (baseProfileName); an oci profile or a systemd "
			"drop-in is loaded as it is\n");
		return 2;
	}
	if (A->unknown_given && (ro->format != PGSC_FMT_OCI ||
				 A->want_status || A->check)) {
		fprintf(stderr, "pgsc-report: --unknown-syscall-action applies "
			"to the oci format (the module's setting is "
			"pgsc.unknown_syscall_action)\n");
		return 2;
	}
	return 0;
}

/* What the store is asked; sets *@status (0, 1) when it answered. */
static int
run_store(struct args *A, pgsc_store *st, int *status, char **cause)
{
	int rc;

	if (A->cands != NULL) {
		/* candidates against the observed (docs/static.md) */
		rc = pgsc_candidates_report(st, A->cands, &A->ro, stdout, cause);
		if (rc == 0)
			*status = 0;
	} else if (A->want_status) {
		int converged = 0;

		rc = pgsc_status(st, &A->ro, stdout, &converged, cause);
		if (rc == 0)
			*status = converged ? 0 : 1;
	} else if (A->check) {
		rc = pgsc_check_complete(st, &A->ro, stdout, cause);
		if (rc >= 0)
			*status = rc;
	} else {
		A->ro.diag = stderr;
		rc = pgsc_report(st, &A->ro, stdout, cause);
		if (rc >= 0)
			*status = rc;
		if (rc > 0) {
			/* printed, but not worth pasting: say why */
			print_cause(NULL, *cause ? *cause : "the lists are not "
				    "usable");
		}
	}
	return rc;
}

int
main(int argc, char **argv)
{
	struct args A;
	pgsc_store *st = NULL;
	char *cause = NULL;
	int rc, status = 1;

	pgsc_set_progname("pgsc-report");
	rc = parse_args(argc, argv, &A);
	if (rc >= 0)
		return rc;
	if (A.guc != NULL)
		return check_guc(&A);
	if (check_combination(&A) != 0)
		return 2;
	rc = pgsc_store_open(A.db, PGSC_STORE_READONLY, &st, &cause);
	if (rc == 0)
		rc = run_store(&A, st, &status, &cause);
	if (rc < 0) {
		print_cause(A.db, cause ? cause : strerror(-rc));
		status = 2;
	} else if (stdout_done() != 0) {
		status = 2;
	}
	free(cause);
	pgsc_store_free(st);
	return status;
}
