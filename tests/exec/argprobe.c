/* SPDX-License-Identifier: PostgreSQL */
/* argprobe.c - the calls tests/exec/argrules.sh runs under argument
 * rules: each argument names one, and a line "NAME=ok" or "NAME=ERRNO"
 * says how it went.  Raw syscall(2) for clone, so that the flags are
 * exactly the ones named. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef AF_PACKET
#define AF_PACKET 17
#endif

/* clone(2) with @flags: the child exits at once. */
static long
probe_clone(unsigned long flags)
{
	long pid = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);

	if (pid == 0)
		syscall(SYS_exit_group, 0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return pid;
}

static long
probe(const char *name)
{
	if (strcmp(name, "inet-stream") == 0)
		return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (strcmp(name, "inet-dgram") == 0)
		return socket(AF_INET, SOCK_DGRAM, 0);
	if (strcmp(name, "unix-dgram") == 0)
		return socket(AF_UNIX, SOCK_DGRAM, 0);
	if (strcmp(name, "packet-raw") == 0)
		return socket(AF_PACKET, SOCK_RAW, 0);
	if (strcmp(name, "fork") == 0)
		return probe_clone(0);
	if (strcmp(name, "newuser") == 0)
		return probe_clone(CLONE_NEWUSER);
	errno = EINVAL;
	return -1;
}

int
main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		long rc = probe(argv[i]);

		if (rc < 0)
			printf("%s=%s\n", argv[i], strerrorname_np(errno));
		else
			printf("%s=ok\n", argv[i]);
	}
	return 0;
}
