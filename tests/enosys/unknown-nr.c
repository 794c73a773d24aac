/* SPDX-License-Identifier: PostgreSQL */
/* unknown-nr.c - call one syscall number and print the errno it got. */
/*
 * tests/enosys/enosys.sh runs it under pgsc-exec: "unknown-nr N" calls
 * syscall(N) with no arguments and prints "errno=NAME" (ENOSYS, EPERM,
 * ...) or "ok" when the call returned without an error.  It makes no
 * other call before it but what the C runtime's start needs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	long nr, rc;
	int err;

	if (argc != 2)
		return 2;
	nr = strtol(argv[1], NULL, 10);
	errno = 0;
	rc = syscall(nr);
	err = errno;
	if (rc != -1)
		printf("ok\n");
	else if (err == ENOSYS || err == EPERM)
		printf("errno=%s\n", err == ENOSYS ? "ENOSYS" : "EPERM");
	else
		printf("errno=%d\n", err);
	return 0;
}
