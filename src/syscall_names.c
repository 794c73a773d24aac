/* SPDX-License-Identifier: PostgreSQL */
/* syscall_names.c - syscall numbers to names per audit arch, through
 * libseccomp. */
/*
 * Names always come from the record's own arch= (docs/design.md §6): i386 122 is
 * uname, x86_64 122 is setfsuid.  libseccomp's SCMP_ARCH_* values are the
 * audit arch tokens, so a token is passed straight through.  libaudit's
 * tables are not used: they disagree with libseccomp (pread vs pread64),
 * and the server-side check hooks use libseccomp.
 *
 * The cache is each thread's own: an import decodes SECCOMP lines on a
 * second thread (ahead.c), which calls syscall_names_reset_cache() before
 * it ends.  A name stays valid in the thread that looked it up.
 */
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "syscalls.h"

/*
 * Open-addressing cache of (arch, nr) -> name.  Names are few (libseccomp's
 * tables for the arches of syscall_arch.c, a few thousand at most) and always
 * cached: callers keep the pointers.  A miss is cached too, but only the first
 * MISS_MAX of them: syscall= is untrusted, and a log of 2M distinct
 * invalid numbers took 103 MB here.  Past the cap a miss asks
 * libseccomp again, which is slower but bounded.
 */
#define MISS_MAX 4096
struct name_slot {
	uint64_t key;   /* arch << 32 | nr, 0 = empty (arch 0 is invalid) */
	char *name;     /* NULL: libseccomp has no name */
};

static _Thread_local struct name_slot *cache;
static _Thread_local size_t cache_cap, cache_n, cache_misses;
static const char no_name[] = "";

static uint64_t
slot_hash(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return key;
}

static int
cache_grow(void)
{
	size_t ncap = cache_cap ? cache_cap * 2 : 1024;
	struct name_slot *n = calloc(ncap, sizeof(*n));

	if (n == NULL)
		return -1;
	for (size_t i = 0; i < cache_cap; i++) {
		size_t j;

		if (cache[i].key == 0)
			continue;
		j = slot_hash(cache[i].key) & (ncap - 1);
		while (n[j].key != 0)
			j = (j + 1) & (ncap - 1);
		n[j] = cache[i];
	}
	free(cache);
	cache = n;
	cache_cap = ncap;
	return 0;
}

const char *
pgsc_syscall_name(uint32_t arch, int nr)
{
	uint64_t key = (uint64_t)arch << 32 | (uint32_t)nr;
	size_t j;
	char *name;

	if (arch == 0 || nr < 0 || pgsc_arch_name(arch) == NULL)
		return NULL;
	if (cache_cap > 0) {
		j = slot_hash(key) & (cache_cap - 1);
		while (cache[j].key != 0) {
			if (cache[j].key == key)
				return cache[j].name == no_name ? NULL
								: cache[j].name;
			j = (j + 1) & (cache_cap - 1);
		}
	}
	name = seccomp_syscall_resolve_num_arch(arch, nr);
	if (name == NULL && cache_misses >= MISS_MAX)
		return NULL;
	if ((cache_n + 1) * 2 > cache_cap && cache_grow() < 0) {
		free(name);
		return NULL;
	}
	if (name == NULL)
		cache_misses++;
	j = slot_hash(key) & (cache_cap - 1);
	while (cache[j].key != 0)
		j = (j + 1) & (cache_cap - 1);
	cache[j].key = key;
	cache[j].name = name ? name : (char *)(uintptr_t)no_name;
	cache_n++;
	return name;
}

/* Entries in the cache, and of those the misses (tests). */
size_t
syscall_names_cache_size(size_t *misses)
{
	if (misses != NULL)
		*misses = cache_misses;
	return cache_n;
}

void
syscall_names_reset_cache(void)
{
	for (size_t i = 0; i < cache_cap; i++)
		if (cache[i].key != 0 && cache[i].name != no_name)
			free(cache[i].name);
	free(cache);
	cache = NULL;
	cache_cap = cache_n = cache_misses = 0;
}
