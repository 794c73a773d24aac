/* SPDX-License-Identifier: PostgreSQL */
/* pgsc-diff - compare two pairs of allow lists. */
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
		"usage: pgsc-diff [--format text|markdown|json] [--equivalent]\n"
		"                 [--round N | --round FROM-TO] [--session-roles SPEC]\n"
		"                 [--node NAME [--node NAME]]\n"
		"                 [--accept-surface REASON] A B\n"
		"       pgsc-diff [options] --node NAME --node NAME STORE\n"
		"       pgsc-diff --families\n"
		"A and B are pgsc stores, GUC files (pgsc-report output, postgresql.conf)\n"
		"or pgsc-report --format json output; - is standard input.\n"
		"--node: the lists of one node= of a central log ('' the local host),\n"
		"the first for A, the second for B (one --node: for both); with one\n"
		"STORE, its two nodes are compared.\n"
		"--accept-surface: let B reach more CVEs of pgsc's CVE map than A,\n"
		"for REASON (printed).\n"
		"Exit status: 0 the lists are the same, 1 they differ, 2 an error,\n"
		"3 B's global or session list reaches more CVEs than A's (the\n"
		"attack-surface gate; --accept-surface makes it 1).\n");
}

/*
 * A and B from the @n operands and the @nnodes --node values: A B, or
 * one store whose two nodes are compared; one --node is both operands'.
 * A node's lists are named after their store and node, in @name (the
 * printer escapes names: both are untrusted).  Returns 0, or -1 after
 * saying why.
 */
static int
operands(int n, char **argv, int nnodes, const char *node[2],
	 const char *path[2], char *name[2])
{
	if (n == 1 && nnodes == 2) {
		path[0] = path[1] = argv[0];
	} else if (n == 2) {
		path[0] = argv[0];
		path[1] = argv[1];
	} else {
		usage(stderr);
		return -1;
	}
	if (strcmp(path[0], "-") == 0 && strcmp(path[1], "-") == 0) {
		usage(stderr);
		return -1;
	}
	if (nnodes == 1)
		node[1] = node[0];
	for (int k = 0; k < 2; k++) {
		if (node[k] == NULL)
			continue;
		if (asprintf(&name[k], "%s (node %s)", path[k],
			     node[k][0] ? node[k] : "'', the local host") < 0) {
			name[k] = NULL;
			fputs("pgsc-diff: out of memory\n", stderr);
			return -1;
		}
	}
	return 0;
}

/*
 * The attack-surface gate (docs/hardening.md, "Attack surface"): does a
 * list of @b reach more CVEs of the map than @a's?  Says so on stderr,
 * with the reason when @accept (--accept-surface) lets it pass.  Returns
 * 1 when it rises and is not accepted, else 0.
 */
static int
surface_gate(const pgsc_lists *a, const pgsc_lists *b, const char *accept)
{
	static const char *const list[2] = { "global", "session" };
	/* both pairs carry argument rules: the counts after them; one
	 * count after rules beside one before would compare nothing */
	int rules = pgsc_lists_rules(a) && pgsc_lists_rules(b);
	int rises = 0;

	for (int k = 0; k < 2; k++) {
		size_t ra = rules ? pgsc_lists_reachable_after(a, k) :
			pgsc_lists_reachable(a, k);
		size_t rb = rules ? pgsc_lists_reachable_after(b, k) :
			pgsc_lists_reachable(b, k);

		if (rb <= ra)
			continue;
		fprintf(stderr, "pgsc-diff: attack surface rises: B's %s list "
			"reaches %zu of the %zu CVEs of pgsc's CVE map%s, A's "
			"%zu\n", list[k], rb, pgsc_cve_map_size(),
			rules ? " after argument rules" : "", ra);
		rises = 1;
	}
	if (rises && accept != NULL) {
		fputs("pgsc-diff: accepted (--accept-surface): ", stderr);
		pgsc_text_escape(stderr, accept);
		fputc('\n', stderr);
		return 0;
	}
	return rises;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "equivalent", no_argument, NULL, 'e' },
		{ "round", required_argument, NULL, 'r' },
		{ "session-roles", required_argument, NULL, 's' },
		{ "families", no_argument, NULL, 'F' },
		/* nodes of a central log (docs/fleet.md) */
		{ "node", required_argument, NULL, 'N' },
		/* the attack-surface gate passes, for a reason */
		{ "accept-surface", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	enum pgsc_diff_format format = PGSC_DIFF_TEXT;
	struct pgsc_lists_opts lo = { 0, 0, NULL, NULL };
	pgsc_lists *a = NULL, *b = NULL;
	pgsc_diff *d = NULL;
	char *cause = NULL, *name[2] = { NULL, NULL };
	const char *node[2] = { NULL, NULL }, *path[2], *accept = NULL;
	int c, rc, status = 2, equivalent = 0, families = 0, nnodes = 0;

	pgsc_set_progname("pgsc-diff");
	while ((c = getopt_long(argc, argv, "f:er:s:hVN:A:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "text") == 0)
				format = PGSC_DIFF_TEXT;
			else if (strcmp(optarg, "markdown") == 0)
				format = PGSC_DIFF_MARKDOWN;
			else if (strcmp(optarg, "json") == 0)
				format = PGSC_DIFF_JSON;
			else {
				fputs("pgsc-diff: unknown format \"", stderr);
				pgsc_text_escape(stderr, optarg);
				fputs("\"\n", stderr);
				return 2;
			}
			break;
		case 'e':
			equivalent = 1;
			break;
		case 'r':
			if (pgsc_round_range_parse(optarg, &lo.round_from,
					 &lo.round_to) < 0) {
				fputs("pgsc-diff: bad --round \"", stderr);
				pgsc_text_escape(stderr, optarg);
				fputs("\"\n", stderr);
				return 2;
			}
			break;
		case 's':
			lo.session_roles = optarg;
			if (pgsc_session_roles_check(optarg, &cause) < 0) {
				fputs("pgsc-diff: ", stderr);
				pgsc_text_escape(stderr, cause ? cause : "");
				fputc('\n', stderr);
				free(cause);
				return 2;
			}
			break;
		case 'F':
			families = 1;
			break;
		case 'N':
			if (nnodes == 2) {
				fputs("pgsc-diff: --node is given at most twice: "
				      "for A and for B\n", stderr);
				return 2;
			}
			node[nnodes++] = optarg;
			break;
		case 'A':
			if (optarg[0] == '\0') {
				fputs("pgsc-diff: --accept-surface needs a "
				      "reason\n", stderr);
				return 2;
			}
			accept = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("pgsc-diff %s\n", PGSC_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (families && optind == argc) {
		pgsc_families_print(stdout);
		return fflush(stdout) == 0 ? 0 : 2;
	}
	if (families) {
		usage(stderr);
		goto out;
	}
	if (operands(argc - optind, argv + optind, nnodes, node, path,
		     name) < 0)
		goto out;
	lo.node = node[0];
	rc = pgsc_lists_load(path[0], &lo, &a, &cause);
	lo.node = node[1];
	if (rc == 0)
		rc = pgsc_lists_load(path[1], &lo, &b, &cause);
	if (rc == 0 && ((node[0] && pgsc_lists_kind(a) != PGSC_LISTS_STORE) ||
			(node[1] && pgsc_lists_kind(b) != PGSC_LISTS_STORE))) {
		fprintf(stderr, "pgsc-diff: --node applies to stores\n");
		goto out;
	}
	if (rc == 0 && (lo.round_from || lo.session_roles) &&
	    pgsc_lists_kind(a) != PGSC_LISTS_STORE &&
	    pgsc_lists_kind(b) != PGSC_LISTS_STORE) {
		fprintf(stderr, "pgsc-diff: --round and --session-roles apply "
			"to stores, and neither operand is one\n");
		goto out;
	}
	if (rc == 0)
		rc = pgsc_diff_new(a, b, equivalent, &d);
	if (rc == 0)
		rc = pgsc_diff_print(d, format, name[0] ? name[0] : path[0],
				     name[1] ? name[1] : path[1], stdout);
	if (rc < 0) {
		/* causes from pgsc_lists_load() already escape file names */
		fprintf(stderr, "pgsc-diff: %s\n", cause ? cause : strerror(-rc));
		goto out;
	}
	status = pgsc_diff_equal(d) ? 0 : 1;
	if (surface_gate(a, b, accept))
		status = 3;
out:
	free(name[0]);
	free(name[1]);
	free(cause);
	pgsc_diff_free(d);
	pgsc_lists_free(a);
	pgsc_lists_free(b);
	return status;
}
