/* SPDX-License-Identifier: PostgreSQL */
/* auditrules.c - pgsc's audit rules: printed for auditd, loaded and removed
 * with auditctl for the duration of a wrapped command. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pgsc-int.h"

/* The rules of examples/pgsc.rules (tests/golden checks they agree). */
static const char *const pgsc_rules[] = {
	"-a always,exit -F arch=b64 -S clone,fork,vfork,clone3 -F success=1 -k pgsc",
	"-a always,exit -F arch=b32 -S clone,fork,vfork,clone3 -F success=1 -k pgsc",
	"-a always,exit -F arch=b64 -S execve,execveat -k pgsc",
	"-a always,exit -F arch=b32 -S execve,execveat -k pgsc",
	"-a always,exit -F arch=b64 -S exit_group -k pgsc",
	"-a always,exit -F arch=b32 -S exit_group -k pgsc",
	NULL,
};

void
pgsc_print_rules(FILE *out)
{
	for (const char *const *r = pgsc_rules; *r != NULL; r++)
		fprintf(out, "%s\n", *r);
}

/*
 * The narrow rules of --args (docs/args.md): a SYSCALL record with a0..a3
 * for every call of args.c's set, made by the server's uid only (a record
 * costs the caller; mmap alone is thousands a second under pgbench).
 * clone3 is left out: its flags are in memory, no rule can filter them.
 */
void
pgsc_print_args_rules(FILE *out, uint32_t uid)
{
	static const char *const arches[] = { "b64", "b32" };
	const char *name;

	for (size_t a = 0; a < ARRAY_SIZE(arches); a++) {
		fprintf(out, "-a always,exit -F arch=%s", arches[a]);
		for (size_t i = 0; (name = args_call(i)) != NULL; i++)
			fprintf(out, " -S %s", name);
		fprintf(out, " -F uid=%u -k pgsc-args\n", (unsigned)uid);
	}
}

/* writable copies for execvp()'s argv */
static char s_auditctl[] = "auditctl", s_D[] = "-D", s_k[] = "-k",
	    s_pgsc[] = "pgsc", s_pgsc_args[] = "pgsc-args", s_R[] = "-R";

static int
run_auditctl(char *const argv[], int keep_fd)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		/* the rules file (a memfd) stays open across the exec */
		if (keep_fd >= 0)
			fcntl(keep_fd, F_SETFD, 0);
		if (devnull >= 0)
			dup2(devnull, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

/**
 * Remove pgsc's rules (also stale ones left by a crash).
 * Returns 0 or a negative errno.
 */
int
auditrules_remove(void)
{
	char *const argv[] = { s_auditctl, s_D, s_k, s_pgsc, NULL };
	char *const argv_args[] = { s_auditctl, s_D, s_k, s_pgsc_args, NULL };
	int rc = run_auditctl(argv, -1);

	/* -D -k fails when no rule has the key: not an error here */
	run_auditctl(argv_args, -1);
	return rc;
}

int
auditrules_load(int args, uint32_t uid, char **cause)
{
	/*
	 * auditctl -R wants a regular file owned by root and writable by
	 * nobody else, not a pipe.  A memfd is one (after fchmod), and it
	 * leaves nothing in /tmp, even after a kill -9.
	 */
	char path[64];
	char *argv[] = { s_auditctl, s_R, path, NULL };
	int fd, rc = 0;
	FILE *f;

	auditrules_remove();
	fd = memfd_create("pgsc-rules", MFD_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0600) < 0) {
		rc = -errno;
		util_cause(cause, "cannot write the audit rules: %s",
			   strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	f = fdopen(dup(fd), "w");
	if (f == NULL) {
		close(fd);
		return -ENOMEM;
	}
	pgsc_print_rules(f);
	if (args)
		pgsc_print_args_rules(f, uid);
	if (fclose(f) != 0)
		rc = -EIO;
	if (rc == 0)
		rc = run_auditctl(argv, fd);
	close(fd);
	if (rc < 0)
		util_cause(cause, "auditctl could not load pgsc's audit rules "
			   "(is auditd installed, and are we root?)");
	return rc;
}
