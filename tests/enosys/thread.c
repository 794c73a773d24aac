/* SPDX-License-Identifier: PostgreSQL */
/* thread.c - create one thread and say whether it ran. */
/*
 * tests/enosys/enosys.sh runs it under pgsc-exec with a list that lacks
 * clone3: glibc 2.34 and later try clone3 first and fall back to clone
 * only on ENOSYS.  Prints "thread ran" and exits 0, or prints
 * "pthread_create: <error>" and exits 1.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int ran;

static void *
body(void *arg)
{
	(void)arg;
	ran = 1;
	return NULL;
}

int
main(void)
{
	pthread_t t;
	int rc;

	rc = pthread_create(&t, NULL, body, NULL);
	if (rc != 0) {
		printf("pthread_create: %s\n", strerror(rc));
		return 1;
	}
	pthread_join(t, NULL);
	printf(ran ? "thread ran\n" : "thread did not run\n");
	return ran ? 0 : 1;
}
