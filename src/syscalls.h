/* SPDX-License-Identifier: PostgreSQL */
/* syscalls.h - syscall names across arches: the arch table
 * (syscall_arch.c), the name cache (syscall_names.c), families
 * (syscall_families.c), the portable names (syscall_portable.c) and the
 * one tokenizer of lists (syscall_lists.c). */
#ifndef PGSC_SYSCALLS_H
#define PGSC_SYSCALLS_H

#include "pgsc-int.h"

/* syscall_names.c */
void syscall_names_reset_cache(void);
size_t syscall_names_cache_size(size_t *misses);

/* syscall_portable.c */
/* Add to @out the names that stand for @name on @arch: @name itself when
 * it exists there, else the nearest member of each of its families that
 * does; with @all, @name (if it exists) and every member that does.
 * Returns how many names were new in @out (with an empty @out, 0 means
 * no equivalent), or -ENOMEM. */
int syscall_portable_map(const char *name, uint32_t arch, int all,
		 struct strset *out);
/* systemd's SystemCallArchitectures= and the OCI profile's name of an
 * arch, or NULL. */
const char *syscall_portable_systemd_arch(uint32_t arch);
const char *syscall_portable_oci_arch(uint32_t arch);

/* syscall_families.c */
struct family {
	const char *name;               /* the family's id in families.def */
	const char *reason;             /* one line: why they are one job */
	const char *const *members;     /* NULL-terminated */
};
size_t syscall_families_count(void);
const struct family *syscall_families_at(size_t i);
/* The family called @name, or NULL. */
const struct family *syscall_families_find(const char *name);
/* The @i-th family (from 0) that has @member, or NULL past the last. */
const struct family *syscall_families_of(const char *member, size_t i);
/* Returns 1 when @member is in @f, else 0. */
int syscall_families_has(const struct family *f, const char *member);
/* Returns 1 when syscall @member exists on audit arch @arch, 0 when
 * libseccomp knows the name but the arch lacks it, -ENOENT when
 * libseccomp does not know the name, -EINVAL for an unknown arch. */
int syscall_families_exists(const char *member, uint32_t arch);

/* syscall_arch.c - the one table of arches */
struct arch_info {
	uint32_t token;         /* audit arch token, SCMP_ARCH_* */
	const char *name;       /* as auparse prints arch= */
	const char *systemd;    /* SystemCallArchitectures= */
	const char *oci;        /* an OCI profile's architectures */
	uint32_t compat;        /* the 32-bit arch that runs on it, or 0 */
};
const struct arch_info *syscall_arch_find(uint32_t token);
int syscall_known_max(uint32_t arch);
int syscall_known_max_spec(const char *spec, uint32_t arch, int *max,
			     char **cause);
int syscall_known_max_text(char *buf, size_t size);
#define ARCH_LIST_MAX 16        /* arches syscall_known_max_list() takes */
int syscall_known_max_list(char *buf, size_t size, const uint32_t *arch,
			     size_t n, int json);

/* syscall_lists.c - the one tokenizer of syscall lists */
#define LISTS_SEP_BLANKS " \t\n"      /* what pgsc-exec splits on */
enum {
	LISTS_SPLIT_BLANKS = 1,         /* "read write": two names */
	LISTS_KEEP_EMPTY = 2,           /* "a,,b": an empty name too */
};
const char *syscall_lists_next(const char **p, const char *blanks, int flags,
		       size_t *len);
size_t syscall_lists_name(const char *entry, size_t len);

/* argrule.c - the argument rule of one entry: "socket(a0=1|2)" */
#define ARGRULE_ARGS_MAX 3
/* Alternatives per name: 16 keep a list of ~10 rules well under
 * FILTER_BPF_MAX on both arches (docs/module.md has the figures). */
#define ARGRULE_ALTS_MAX 16
/* Longest canonical text: 3 args with masks, 16 x 3 numbers. */
#define ARGRULE_TEXT_MAX 1280
struct argrule {
	unsigned nargs;                 /* 1 to ARGRULE_ARGS_MAX */
	unsigned char arg[ARGRULE_ARGS_MAX];    /* argument index 0-5 */
	unsigned char masked[ARGRULE_ARGS_MAX]; /* compare (arg & mask) */
	uint64_t mask[ARGRULE_ARGS_MAX];
	unsigned nalts;                 /* 1 to ARGRULE_ALTS_MAX, sorted */
	uint64_t val[ARGRULE_ALTS_MAX][ARGRULE_ARGS_MAX];
};
int argrule_parse(const char *entry, size_t len, struct argrule *r,
		  char **cause);
int argrule_same_args(const struct argrule *a, const struct argrule *b);
int argrule_unite(struct argrule *into, const struct argrule *from);
int argrule_fold(struct argrule *into, const struct argrule *from);
size_t argrule_format(const struct argrule *r, char *buf, size_t size);

#endif
