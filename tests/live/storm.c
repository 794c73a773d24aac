/* SPDX-License-Identifier: PostgreSQL */
/* storm.c - make an exactly known number of SECCOMP records.
 *   storm CALLS [PROCS [DELAY_MS]]
 * Forks PROCS processes (default 1); each loads a filter that allows
 * everything but logs getppid, waits DELAY_MS (default 0: a window in
 * which the child exists but has no record yet), calls getppid() CALLS
 * times and exits.
 * Prints "storm: N records" (CALLS * PROCS) when every child succeeded. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int
child(long calls, long delay_ms)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int rc;

	if (ctx == NULL)
		return 1;
	rc = seccomp_rule_add(ctx, SCMP_ACT_LOG, SCMP_SYS(getppid), 0);
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc < 0) {
		fprintf(stderr, "storm: seccomp: %d\n", rc);
		return 1;
	}
	if (delay_ms > 0) {
		struct timespec ts = { delay_ms / 1000,
				       (delay_ms % 1000) * 1000000L };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	for (long i = 0; i < calls; i++)
		(void)getppid();
	return 0;
}

int
main(int argc, char **argv)
{
	long calls, procs = 1, delay_ms = 0, ok = 0;

	if (argc < 2 || (calls = atol(argv[1])) <= 0 ||
	    (argc > 2 && (procs = atol(argv[2])) <= 0) ||
	    (argc > 3 && (delay_ms = atol(argv[3])) < 0)) {
		fprintf(stderr, "usage: storm CALLS [PROCS [DELAY_MS]]\n");
		return 2;
	}
	for (long p = 0; p < procs; p++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("storm: fork");
			return 1;
		}
		if (pid == 0)
			_exit(child(calls, delay_ms));
	}
	for (long p = 0; p < procs; p++) {
		int st;

		if (wait(&st) > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			ok++;
	}
	if (ok != procs) {
		fprintf(stderr, "storm: %ld of %ld children failed\n", procs - ok,
			procs);
		return 1;
	}
	printf("storm: %ld records\n", calls * procs);
	return 0;
}
