/* SPDX-License-Identifier: PostgreSQL */
/* filter.h - the seccomp filter: the one builder (ruleset.c) and the
 * checks and loading of pgsc-exec (filter.c). */
#ifndef PGSC_FILTER_H
#define PGSC_FILTER_H

#include "pgsc-int.h"

/* filter.c */
/* The allow list @which ("global", "session") of GUC text in memory. */
int filter_guc_list(const char *buf, size_t len, const char *path,
		    const char *which, char **out, char **cause);
struct ruleset_unknown;
/* pgsc_filter_load() with an unknown part (ruleset.c; NULL: none) */
int filter_load_unknown(enum pgsc_action def, const char *allow,
			const struct ruleset_unknown *u, char **cause);

/* ruleset.c - the one seccomp filter builder */
struct ruleset_rule {
	const char *name;       /* for messages */
	int nr;                 /* a negative placeholder is allowed */
	uint32_t action;        /* SCMP_ACT_* */
};
enum ruleset_step {
	RULESET_INIT, RULESET_COMPAT, RULESET_LOG, RULESET_RULE, RULESET_LOAD,
	RULESET_UNKNOWN, RULESET_MERGE,
};
struct ruleset_unknown {        /* ENOSYS above the known max */
	int max_native;         /* -1: none on that arch */
	int max_compat;
};
int ruleset_load(uint32_t def, const struct ruleset_rule *r, size_t n,
		 const struct ruleset_unknown *u, enum ruleset_step *step,
		 size_t *bad);
/* The calls a backend makes to build and load its session (or client
 * type) filter under the global filter: ruleset_export() and
 * ruleset_load() (malloc, the pipe, no_new_privs, seccomp(2)).  The
 * module refuses to start with a global filter that refuses one of
 * them, and pgsc-report adds them to every global list it prints.
 * NULL-terminated. */
extern const char *const ruleset_needs[];
/* The same filter as BPF (struct sock_filter), malloc'd, at most
 * RULESET_BPF_MAX bytes (BPF_MAXINSNS instructions of 8 bytes). */
#define RULESET_BPF_MAX (4096 * 8)
int ruleset_export(uint32_t def, const struct ruleset_rule *r, size_t n,
		   const struct ruleset_unknown *u, void **bpf, size_t *len,
		   enum ruleset_step *step, size_t *bad);

#endif
