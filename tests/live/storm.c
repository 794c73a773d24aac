/* SPDX-License-Identifier: PostgreSQL */
/* storm.c - make an exactly known number of SECCOMP records.
 *   storm CALLS [PROCS [DELAY_MS [GATES]]]
 * Forks PROCS processes (default 1); each loads a filter that allows
 * everything but logs getppid, waits DELAY_MS (default 0: a window in
 * which the child exists but has no record yet), calls getppid() CALLS
 * times and exits.
 * Prints "storm: N records" (the calls all children made) when every
 * child succeeded.
 *
 * GATES > 0 makes a storm that lasts as long as the caller needs, so that
 * a test acts while records flow without guessing how long a storm takes
 * on the machine at hand.  The calls come in GATES + 1 parts of
 * CALLS / (GATES + 1); after part g (g < GATES) each child goes on calling
 * until gate g opens.  The parent prints "storm: running" once every
 * child has loaded its filter and made its first call, then opens one
 * gate for each line it reads on stdin.  N is then more than
 * CALLS * PROCS, and exact: each child counts its calls. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <errno.h>
#include <seccomp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Shared between the parent and its children (MAP_SHARED). */
struct shared {
	atomic_int gate;	/* gates opened so far */
	atomic_int ready;	/* children that made their first call */
	atomic_long calls[];	/* per child */
};

static void
nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int
child(struct shared *sh, long me, long calls, long delay_ms, long gates)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	long part = calls / (gates + 1), n = 0;
	int rc;

	if (ctx == NULL) {
		atomic_fetch_add(&sh->ready, 1);
		return 1;
	}
	rc = seccomp_rule_add(ctx, SCMP_ACT_LOG, SCMP_SYS(getppid), 0);
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc < 0) {
		fprintf(stderr, "storm: seccomp: %d\n", rc);
		atomic_fetch_add(&sh->ready, 1); /* the parent waits no more */
		return 1;
	}
	if (delay_ms > 0)
		nap_ms(delay_ms);
	for (long g = 0; g <= gates; g++) {
		long want = g == gates ? calls - part * gates : part;

		for (long i = 0; i < want; i++) {
			(void)getppid();
			if (++n == 1)
				atomic_fetch_add(&sh->ready, 1);
		}
		while (g < gates && atomic_load(&sh->gate) <= g) {
			(void)getppid();
			if (++n == 1)
				atomic_fetch_add(&sh->ready, 1);
		}
	}
	atomic_store(&sh->calls[me], n);
	return 0;
}

/* Open the gates, one for each line on stdin; at EOF, all that are left. */
static void
open_gates(struct shared *sh, long procs, long gates)
{
	char line[256];

	while (atomic_load(&sh->ready) < procs)
		nap_ms(1);
	printf("storm: running\n");
	fflush(stdout);
	for (long g = 0; g < gates; g++) {
		if (fgets(line, sizeof(line), stdin) == NULL) {
			atomic_store(&sh->gate, (int)gates);
			return;
		}
		atomic_fetch_add(&sh->gate, 1);
	}
}

int
main(int argc, char **argv)
{
	long calls, procs = 1, delay_ms = 0, gates = 0, ok = 0, total = 0;
	struct shared *sh;
	size_t size;

	if (argc < 2 || (calls = atol(argv[1])) <= 0 ||
	    (argc > 2 && (procs = atol(argv[2])) <= 0) ||
	    (argc > 3 && (delay_ms = atol(argv[3])) < 0) ||
	    (argc > 4 && ((gates = atol(argv[4])) < 0 || gates > 1000)) ||
	    procs > 4096) {
		fprintf(stderr,
			"usage: storm CALLS [PROCS [DELAY_MS [GATES]]]\n");
		return 2;
	}
	size = sizeof(*sh) + (size_t)procs * sizeof(sh->calls[0]);
	sh = mmap(NULL, size, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("storm: mmap");
		return 1;
	}
	memset(sh, 0, size);
	for (long p = 0; p < procs; p++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("storm: fork");
			atomic_store(&sh->gate, (int)gates);
			return 1;
		}
		if (pid == 0)
			_exit(child(sh, p, calls, delay_ms, gates));
	}
	if (gates > 0)
		open_gates(sh, procs, gates);
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
	for (long p = 0; p < procs; p++)
		total += atomic_load(&sh->calls[p]);
	printf("storm: %ld records\n", total);
	return 0;
}
