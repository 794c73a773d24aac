/* SPDX-License-Identifier: PostgreSQL */
/* pgsc-exec - load a seccomp filter and exec a command under it. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "filter.h"
#include "syscalls.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: pgsc-exec [--default log|error|kill|allow]\n"
		"                 [--allow LIST | --allow-file GUCFILE [--list global|session]]\n"
		"                 [--unknown-syscall-action enosys|default]\n"
		"                 [--known-max ARCH:N[,ARCH:N]]\n"
		"                 -- COMMAND [ARGS...]\n"
		"       pgsc-exec --print-known-max\n");
}

extern char **environ;

/*
 * The file execvp(3) would run for @name: @name itself when it holds a
 * slash, else the first executable regular file in PATH.  Done before
 * the filter is loaded, so a command that is not there is reported
 * (exit 127) while every call is still allowed.  Returns 0, or a
 * negative errno (-ENOENT, -EACCES).
 */
static int
find_command(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH"), *p, *end;
	struct stat sb;
	int rc = -ENOENT;

	if (*name == '\0')
		return -ENOENT;
	if (strchr(name, '/') != NULL) {
		if (strlen(name) >= size)
			return -ENAMETOOLONG;
		strcpy(out, name);
		if (stat(out, &sb) < 0)
			return -errno;
		if (!S_ISREG(sb.st_mode) || access(out, X_OK) < 0)
			return -EACCES;
		return 0;
	}
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = end + 1) {
		size_t dl;

		end = strchr(p, ':');
		if (end == NULL)
			end = p + strlen(p);
		dl = (size_t)(end - p);
		/* an empty element is the current directory */
		if (dl + strlen(name) + 2 <= size) {
			if (dl == 0)
				snprintf(out, size, "%s", name);
			else
				snprintf(out, size, "%.*s/%s", (int)dl, p, name);
			if (stat(out, &sb) == 0 && S_ISREG(sb.st_mode)) {
				if (access(out, X_OK) == 0)
					return 0;
				rc = -EACCES;
			}
		}
		if (*end == '\0')
			break;
	}
	return rc;
}

/*
 * The highest number the list's arch tables knew, native and compat, in
 * *u: from @spec (--known-max), else this libseccomp's.  Returns 0, or
 * -1 after saying why.
 */
static int
known_max_get(const char *spec, struct filter_unknown *u)
{
	uint32_t native = pgsc_native_arch();
	uint32_t compat = pgsc_compat_arch(native);
	char *cause = NULL;
	int rc;

	u->max_native = u->max_compat = -1;
	rc = syscall_known_max_spec(spec, native, &u->max_native, &cause);
	if (rc == 0 && compat != 0)
		rc = syscall_known_max_spec(spec, compat, &u->max_compat,
					      &cause);
	if (rc == 0)
		return 0;
	fprintf(stderr, "pgsc-exec: --known-max: %s\n",
		cause ? cause : strerror(-rc));
	free(cause);
	return -1;
}

/* --print-known-max */
static int
print_known_max(void)
{
	char buf[128];

	syscall_known_max_text(buf, sizeof(buf));
	printf("%s\n", buf);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "default", required_argument, NULL, 'd' },
		{ "allow", required_argument, NULL, 'a' },
		{ "allow-file", required_argument, NULL, 'f' },
		{ "list", required_argument, NULL, 'l' },
		{ "unknown-syscall-action", required_argument, NULL, 'u' },
		{ "known-max", required_argument, NULL, 'k' },
		{ "print-known-max", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	/* The session list by default: one filter for the whole tree, and
	 * with the global list every syscall a session needs that the
	 * global list already has would never be logged again. */
	const char *allow = NULL, *allow_file = NULL, *which = "session";
	const char *known_max = NULL;
	struct filter_unknown unknown, *u = &unknown;
	char *file_list = NULL, *cause = NULL;
	char path[PATH_MAX], msg[PATH_MAX + 64];
	struct pgsc_exec_plan plan;
	int def = PGSC_ACT_LOG, c, rc, err;

	pgsc_set_progname("pgsc-exec");
	while ((c = getopt_long(argc, argv, "+d:a:f:l:u:k:hV", opts, NULL)) != -1) {
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
		case 'u':
			if (strcmp(optarg, "enosys") == 0)
				u = &unknown;
			else if (strcmp(optarg, "default") == 0)
				u = NULL;
			else {
				fprintf(stderr, "pgsc-exec: --unknown-syscall-"
					"action is enosys or default\n");
				return 2;
			}
			break;
		case 'k':
			known_max = optarg;
			break;
		case 'K':
			return print_known_max();
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
	if (known_max_get(known_max, &unknown) < 0)
		return 2;
	if (allow_file != NULL) {
		rc = pgsc_guc_file_list(allow_file, which, &file_list, &cause);
		if (rc < 0) {
			fprintf(stderr, "pgsc-exec: %s\n", cause ? cause : strerror(-rc));
			free(cause);
			return 2;
		}
		allow = file_list;
	}
	rc = find_command(argv[optind], path, sizeof(path));
	if (rc < 0) {
		fprintf(stderr, "pgsc-exec: %s: %s\n", argv[optind],
			rc == -ENOENT && strchr(argv[optind], '/') == NULL
			? "command not found in PATH" : strerror(-rc));
		free(file_list);
		return 127;
	}
	rc = pgsc_filter_exec_check(def, allow, &plan, &cause);
	if (rc < 0) {
		fprintf(stderr, "pgsc-exec: %s\n", cause ? cause : strerror(-rc));
		free(cause);
		free(file_list);
		return 2;
	}
	/*
	 * From seccomp_load on, pgsc-exec makes no call but execve (the
	 * filter may refuse everything else): the message of a failed exec
	 * is written before, and free() must not give memory back to the
	 * kernel (brk, munmap) when libseccomp frees its copy of the filter.
	 */
	snprintf(msg, sizeof(msg), "pgsc-exec: %s: cannot execute: ", path);
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
	mallopt(M_MMAP_THRESHOLD, INT_MAX);
	rc = filter_load_unknown(def, allow, u, &cause);
	if (rc < 0) {
		fprintf(stderr, "pgsc-exec: %s\n", cause ? cause : strerror(-rc));
		free(cause);
		free(file_list);
		return 2;
	}
	if (plan.use_execveat)
		syscall(SYS_execveat, AT_FDCWD, path, argv + optind, environ, 0);
	else
		execve(path, argv + optind, environ);
	/* The filter may refuse write: the exit status says it all.  No
	 * stdio, no atexit handlers. */
	err = errno;
	if (plan.can_write && write(STDERR_FILENO, msg, strlen(msg)) > 0 &&
	    write(STDERR_FILENO, strerror(err), strlen(strerror(err))) > 0 &&
	    write(STDERR_FILENO, "\n", 1) > 0) {
		/* the message is out */
	}
	/* The raw call, not _exit(): a sanitizer's _exit makes calls of its
	 * own (sigaltstack, mmap) that the filter may refuse.  The process
	 * has one thread: exit ends it too. */
	syscall(plan.use_exit ? SYS_exit : SYS_exit_group, 127);
	_exit(127);
}
