/* SPDX-License-Identifier: PostgreSQL */
/* filter.h - the seccomp filter: the one builder (filter_build.c) and the
 * checks and loading of pgsc-exec (filter_exec.c). */
#ifndef PGSC_FILTER_H
#define PGSC_FILTER_H

#include "pgsc-int.h"

/* filter_exec.c */
/* The allow list @which ("global", "session") of GUC text in memory. */
int filter_guc_list(const char *buf, size_t len, const char *path,
		    const char *which, char **out, char **cause);
struct filter_unknown;
/* pgsc_filter_load() with an unknown part (filter_build.c; NULL: none) */
int filter_load_unknown(enum pgsc_action def, const char *allow,
			const struct filter_unknown *u, char **cause);

/* filter_build.c - the one seccomp filter builder */
struct argrule;
struct filter_rule {
	const char *name;       /* for messages */
	int nr;                 /* a negative placeholder is allowed */
	uint32_t action;        /* SCMP_ACT_* */
	const struct argrule *args;     /* NULL: unconditional; else the
					 * action when an alternative
					 * matches (argrule.c) */
};
enum filter_step {
	FILTER_STEP_INIT, FILTER_STEP_COMPAT, FILTER_STEP_LOG, FILTER_STEP_RULE, FILTER_STEP_LOAD,
	FILTER_STEP_UNKNOWN, FILTER_STEP_MERGE,
};
struct filter_unknown {        /* ENOSYS above the known max */
	int max_native;         /* -1: none on that arch */
	int max_compat;
};
int filter_build_load(uint32_t def, const struct filter_rule *r, size_t n,
		 const struct filter_unknown *u, enum filter_step *step,
		 size_t *bad);
/* The calls a backend makes to build and load its session (or client
 * type) filter under the global filter: filter_build_export() and
 * filter_build_load() (malloc, the pipe, no_new_privs, seccomp(2)).  The
 * module refuses to start with a global filter that refuses one of
 * them, and pgsc-report adds them to every global list it prints.
 * NULL-terminated. */
extern const char *const filter_needs[];
/* allowed by every filter built here unless a rule names it */
extern const char filter_resume_call[];
/* The same filter as BPF (struct sock_filter), malloc'd, at most
 * FILTER_BPF_MAX bytes (BPF_MAXINSNS instructions of 8 bytes). */
#define FILTER_BPF_MAX (4096 * 8)
/* Load a program filter_build_export() made (no_new_privs, seccomp(2)
 * with SECCOMP_FILTER_FLAG_LOG); allocates nothing.  0 or -errno. */
int filter_load_bpf(const void *bpf, size_t len);
int filter_build_export(uint32_t def, const struct filter_rule *r, size_t n,
		   const struct filter_unknown *u, void **bpf, size_t *len,
		   enum filter_step *step, size_t *bad);

#endif
