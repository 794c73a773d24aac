/* SPDX-License-Identifier: PostgreSQL */
/* fuzz_pglog.c - libFuzzer harness for the PostgreSQL log hint parser. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "pglog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const prefixes[] = {
		NULL, "%m [%p] %q%u@%d ", "%t %p %b: ", "%n|%p|%b|%%|",
	};
	struct pglog *l = NULL;
	char path[64], *cause = NULL;
	int fd;

	if (size < 1)
		return 0;
	fd = memfd_create("pglog", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data + 1, size - 1) != (ssize_t)(size - 1))
		goto out;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (pglog_new(&l) < 0)
		goto out;
	pglog_load(l, path, prefixes[data[0] % 4], &cause);
	for (int64_t pid = 0; pid < 64; pid++)
		pglog_lookup(l, pid, 0);
out:
	free(cause);
	pglog_free(l);
	close(fd);
	return 0;
}
