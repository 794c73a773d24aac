/* SPDX-License-Identifier: PostgreSQL */
/* fuzz_scan.c - libFuzzer harness for pgsc-scan's ELF reader and
 * disassembler (scanelf.c, scandis.c): any bytes loaded as an object,
 * then its functions, edges and syscall sites; and the ld.so.cache
 * parser.  A function's range must lie in an executable section, and
 * every edge must name a function of the object or an import. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
count_cb(void *arg, const char *name, const char *path)
{
	size_t *n = arg;

	if (name == NULL || path == NULL)
		__builtin_trap();
	(*n)++;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scan_obj *o = NULL;
	char *cause = NULL;
	size_t n = 0;

	scanelf_ldcache_parse(data, size, count_cb, &n);
	if (scanelf_load_mem("fuzz.so", data, size, SCAN_LIB, &o, &cause) == 0) {
		if (scandis_object(o, &cause) == 0) {
			for (size_t i = 0; i < o->nfuncs; i++) {
				const struct scan_func *f = &o->funcs[i];

				if (scanelf_sec(o, f->addr) == NULL ||
				    f->end <= f->addr)
					__builtin_trap();
				for (size_t e = 0; e < f->nedges; e++)
					if (f->edges[e].import == NULL &&
					    f->edges[e].local >= o->nfuncs)
						__builtin_trap();
			}
		}
		scanelf_free(o);
	}
	free(cause);
	return 0;
}
