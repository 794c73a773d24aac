/* SPDX-License-Identifier: PostgreSQL */
/* scan.h - static candidate syscalls of an installed server: the
 * separately linked scan library (scan*.c). */
#ifndef PGSC_SCAN_H
#define PGSC_SCAN_H

#include "pgsc-int.h"

/* scan.c - static candidate syscalls of an installed server: scanelf.c
 * (ELF objects, DT_NEEDED), scandis.c (disassembly, syscall sites),
 * scangraph.c (call graph, reachability), scanjson.c (output),
 * candidates.c (the coverage view of pgsc-report); docs/static.md. */
enum scan_kind {
	SCAN_EXE = 0,             /* the server binary */
	SCAN_MODULE,              /* a pkglibdir module (dlopen'ed) */
	SCAN_LIB,                 /* a DT_NEEDED library */
	SCAN_INTERP,              /* the dynamic loader (PT_INTERP) */
};
/* An edge out of a function: a local function (index), or an imported
 * symbol by name (resolved across objects by scangraph.c). */
struct scan_edge {
	uint32_t local;           /* UINT32_MAX when @import is set */
	const char *import;       /* interned in the object's names */
	int32_t arg0;             /* edi constant before the call, -1 if not */
};
struct scan_func {
	uint64_t addr, end;       /* [addr, end) */
	const char *name;         /* a symbol, or NULL */
	struct scan_edge *edges;
	size_t nedges, capedges;
	int32_t *sys;             /* resolved syscall numbers at direct sites */
	size_t nsys, capsys;
	uint32_t unresolved;      /* syscall sites with an unknown number */
	uint32_t sysarg;          /* sites whose number is the first argument
				   * (glibc's syscall()) */
	uint32_t indirect;        /* indirect calls and jumps */
	unsigned taken : 1;       /* its address is taken */
	unsigned exported : 1;    /* a defined, visible dynamic symbol */
};
/* A relocated pointer slot (GOT): the symbol it is bound to. */
struct scan_slot {
	uint64_t addr;
	const char *name;         /* NULL: an IRELATIVE or RELATIVE slot */
	uint64_t target;          /* its addend for IRELATIVE/RELATIVE */
};
struct scan_dsym {
	const char *name;
	uint64_t addr;
	int func;                 /* STT_FUNC or STT_GNU_IFUNC */
	int is_default;           /* not a hidden (non-default) version */
};
struct scan_sec {
	uint64_t addr, size;
	const unsigned char *data;
	int plt;                  /* .plt, .plt.sec, .plt.got */
};
struct scan_obj {
	char *path;
	const char *base;         /* file name part of @path */
	enum scan_kind kind;
	unsigned char *image;     /* the whole file */
	size_t image_len;
	void *elf;                /* Elf * */
	struct scan_dsym *fsyms;  /* function symbols (dynsym, symtab), by
				   * address: starts and names */
	size_t nfsyms;
	const char **needed;
	size_t nneeded;
	const char *runpath, *rpath, *soname;
	char *interp;
	uint64_t entry;
	uint64_t *roots;          /* DT_INIT, DT_FINI, init/fini arrays */
	size_t nroots;
	struct scan_dsym *dsyms;  /* defined dynamic symbols, by name */
	size_t ndsyms;
	struct scan_slot *slots;  /* relocated slots, by address */
	size_t nslots;
	uint64_t *taken;          /* data-relocated code addresses */
	size_t ntaken;
	struct scan_sec *secs;    /* executable sections */
	size_t nsecs;
	struct scan_func *funcs;  /* sorted by address */
	size_t nfuncs;
	const char **taken_imports; /* imported functions whose address is
				     * read (not called) */
	size_t ntaken_imports;
	uint64_t insns, sites, bad_bytes;
};
/* scanelf.c */
/* Load an ELF object (a copy of @len bytes at @data, named @path).
 * Returns 0, or a negative errno with *cause naming @path. */
int scanelf_load_mem(const char *path, const void *data, size_t len,
		     enum scan_kind kind, struct scan_obj **out, char **cause);
int scanelf_load(const char *path, enum scan_kind kind,
		 struct scan_obj **out, char **cause);
void scanelf_free(struct scan_obj *o);
/* The path the loader would use for DT_NEEDED @name of @from: RPATH
 * (when no RUNPATH), LD_LIBRARY_PATH is ignored, RUNPATH, ld.so.cache,
 * the default directories.  @root prefixes every path (""), for tests.
 * Returns 0 and a malloc'd *out, or -ENOENT. */
int scanelf_find_needed(const struct scan_obj *from, const char *name,
			const char *root, char **out);
/* Parse /etc/ld.so.cache (new format) of @len bytes: call @cb for each
 * (name, path) entry of the x86-64 kind.  Returns the number of entries
 * or -EINVAL. */
int scanelf_ldcache_parse(const unsigned char *data, size_t len,
			  int (*cb)(void *arg, const char *name,
				    const char *path), void *arg);
const struct scan_dsym *scanelf_dsym(const struct scan_obj *o,
				     const char *name);
const struct scan_slot *scanelf_slot(const struct scan_obj *o, uint64_t a);
/* The executable section holding @a, or NULL. */
const struct scan_sec *scanelf_sec(const struct scan_obj *o, uint64_t a);

/* scandis.c */
/* Disassemble @o's executable sections: functions, their edges and
 * syscall sites.  Returns 0, or a negative errno. */
int scandis_object(struct scan_obj *o, char **cause);
/* Index of the function containing @addr, or -1. */
long scandis_func_at(const struct scan_obj *o, uint64_t addr);

/* scangraph.c */
struct scan;                 /* every object and the reachability */
int scangraph_run(const struct pgsc_scan_opts *opts, struct scan **out, char **cause);
void scangraph_free(struct scan *s);
/* Candidate syscalls, sorted by name. */
struct scan_cand {
	const char *name;
	int32_t nr;
	const char **chain;        /* function names from the site outwards */
	size_t nchain;
	int postmaster, children;  /* reachable from main with the child
				    * entries cut off / from the child
				    * entries (-1: no phase split) */
};
size_t scangraph_candidates(const struct scan *s, const struct scan_cand **out);
/* Figures for the summary. */
struct scan_stats {
	size_t objects, modules, libs, funcs, reached;
	uint64_t insns, sites, unresolved_sites;
	uint64_t unresolved_reached, indirect_sites, bad_bytes;
	uint64_t unresolved_calls;  /* reached calls of syscall(2) whose
				     * number is not a constant */
	int phases;               /* the phase split was computed */
};
void scangraph_get_stats(const struct scan *s, struct scan_stats *st);
size_t scangraph_objects(const struct scan *s, const struct scan_obj *const **out);
int scangraph_indirect(const struct scan *s);
/* Objects left out ("PATH: reason"): pkglibdir files that are not x86-64
 * ELF objects, libraries of modules that cannot be found or read. */
size_t scangraph_skipped(const struct scan *s, const char *const **out);
/* Did the server's reachability reach function @func of object @obj? */
int scangraph_func_reached(const struct scan *s, size_t obj, size_t func);
/* Reached calls of syscall(2) with an unknown number made by function
 * @func of object @obj. */
unsigned scangraph_func_unknown_calls(const struct scan *s, size_t obj,
				 size_t func);

/* scanjson.c */
int scanjson_write(const struct scan *s, FILE *out);
int scanjson_text_write(const struct scan *s, FILE *out);

#endif
