/* SPDX-License-Identifier: PostgreSQL */
/* bench_names.c - memory under hostile syscall numbers (docs/live.md):
 * feeds 2M SECCOMP lines, each with a distinct invalid syscall= number,
 * through the feed and the decoder (the path of pgsc-collect --import), and
 * prints the peak RSS before and after and the name cache's size.  A
 * benchmark: it prints figures and asserts nothing about time.
 *   build/tests/bench_names [COUNT]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "pgsc-int.h"
#include "feed.h"
#include "syscalls.h"

static unsigned long long rejected, counted;

static void
on_record(void *arg, const struct pgsc_record *rec)
{
	(void)arg, (void)rec;
	counted++;
}

static void
on_reject(void *arg, int reason, const struct feed_loc *loc, uint64_t serial,
	  const char *text, size_t len)
{
	(void)arg, (void)loc, (void)serial, (void)text, (void)len;
	if (reason == PGSC_REJ_BAD_SYSCALL)
		rejected++;
}

static long
peak_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

int
main(int argc, char **argv)
{
	static const struct feed_ops ops = { on_record, on_reject, NULL };
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000000;
	struct feed *f;
	char *buf;
	size_t cap = 1 << 20, len = 0, misses = 0, entries;
	long before;

	if (feed_new(&ops, NULL, 0, &f, NULL) < 0 || (buf = malloc(cap)) == NULL)
		return 1;
	before = peak_kb();
	for (unsigned long i = 0; i < n; i++) {
		if (cap - len < 256) {
			feed_bytes(f, buf, len);
			len = 0;
		}
		len += (size_t)snprintf(buf + len, cap - len,
			"type=SECCOMP msg=audit(1796252190.770:%lu): pid=%lu "
			"comm=\"x\" exe=\"/x\" arch=c000003e syscall=%lu "
			"compat=0 code=0x7ffc0000\n", i + 1, 1000 + i % 30000,
			100000 + i);
	}
	feed_bytes(f, buf, len);
	feed_flush(f);
	entries = syscall_names_cache_size(&misses);
	printf("bench_names: %lu lines with distinct invalid syscall numbers: "
	       "%llu rejected as bad-syscall, %llu counted\n", n, rejected,
	       counted);
	printf("bench_names: name cache %zu entries (%zu misses)\n", entries,
	       misses);
	printf("bench_names: peak RSS %ld KiB before, %ld KiB after (+%ld KiB)\n",
	       before, peak_kb(), peak_kb() - before);
	feed_free(f);
	free(buf);
	syscall_names_reset_cache();
	return rejected == n ? 0 : 1;
}
