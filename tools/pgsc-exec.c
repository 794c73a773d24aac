/* pgsc-exec - load a seccomp filter and exec a command under it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgsc.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: pgsc-exec [--default log|error|kill|allow]\n"
		"                 [--allow LIST | --allow-file GUCFILE [--list global|session]]\n"
		"                 -- COMMAND [ARGS...]\n");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "default", required_argument, NULL, 'd' },
		{ "allow", required_argument, NULL, 'a' },
		{ "allow-file", required_argument, NULL, 'f' },
		{ "list", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	/* The session list by default: one filter for the whole tree, and
	 * with the global list every syscall a session needs that the
	 * global list already has would never be logged again. */
	const char *allow = NULL, *allow_file = NULL, *which = "session";
	char *file_list = NULL, *cause = NULL;
	int def = PGSC_ACT_LOG, c, rc;

	while ((c = getopt_long(argc, argv, "+d:a:f:l:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			def = pgsc_action_parse(optarg);
			if (def < 0) {
				fprintf(stderr, "pgsc-exec: bad --default \"%s\"\n",
					optarg);
				return 2;
			}
			break;
		case 'a':
			allow = optarg;
			break;
		case 'f':
			allow_file = optarg;
			break;
		case 'l':
			if (strcmp(optarg, "global") != 0 &&
			    strcmp(optarg, "session") != 0) {
				fprintf(stderr, "pgsc-exec: --list is global or session\n");
				return 2;
			}
			which = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("pgsc-exec %s\n", PGSC_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (allow != NULL && allow_file != NULL) {
		fprintf(stderr, "pgsc-exec: --allow and --allow-file exclude each other\n");
		return 2;
	}
	if (allow_file != NULL) {
		rc = pgsc_guc_file_list(allow_file, which, &file_list, &cause);
		if (rc < 0) {
			fprintf(stderr, "pgsc-exec: %s\n", cause ? cause : strerror(-rc));
			free(cause);
			return 2;
		}
		allow = file_list;
	}
	rc = pgsc_filter_load(def, allow, &cause);
	free(file_list);
	if (rc < 0) {
		fprintf(stderr, "pgsc-exec: %s\n", cause ? cause : strerror(-rc));
		free(cause);
		return 2;
	}
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "pgsc-exec: %s: %s\n", argv[optind], strerror(errno));
	return 127;
}
