/* SPDX-License-Identifier: PostgreSQL */
/* probe.c - a tiny program the golden recordings run below the server.
 * Run with an
 * argument it renames itself (comm) to that hostile string first. */
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct utsname u;

	if (argc > 1)
		prctl(PR_SET_NAME, argv[1], 0, 0, 0);
	uname(&u);
	printf("%d %d\n", (int)getpid(), (int)getppid());
	return 0;
}
