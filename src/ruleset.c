/* SPDX-License-Identifier: PostgreSQL */
/* ruleset.c - the one seccomp filter builder: a default, rules, loaded. */
/*
 * pgsc-exec (filter.c) and the module (pgmodule/pgsc_module.c) load the
 * same kind of filter: a default action, one rule per syscall number,
 * the 32-bit compat arch beside the native one (a filter for the native
 * arch alone kills every i386 call through the bad-arch action, DESIGN
 * §4) and SCMP_FLTATR_CTL_LOG, so that error and kill leave a SECCOMP
 * record too.  With an "unknown" part, every number above the highest
 * one the list's arch table knew fails with ENOSYS instead of a refusing
 * default, so that libc falls back from a call newer than the list
 * (clone3 to clone).  Each caller words its own messages from the step
 * that failed.  libc and libseccomp only: the module compiles it in.
 */
#include <errno.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"

/* The end of the unknown part above @max: the last number of the block
 * of 1024 that holds it (1023 on x86_64 and i386, 5119 on MIPS o32,
 * whose numbers start at 4000).  Every kernel's table ends well inside
 * the block of its highest call, and a rule per number costs about one
 * BPF instruction each (docs/module.md has the figures); past the end
 * the default action stays. */
#define UNKNOWN_END(max) ((max) | 1023)

/* Does one of the @n rules @r name number @nr of the native arch, or
 * (@name not NULL) call @name? */
static int
named(const struct ruleset_rule *r, size_t n, int nr, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (name != NULL ? strcmp(r[i].name, name) == 0
				 : r[i].nr == nr)
			return 1;
	return 0;
}

/*
 * The rules @r (those whose action is not the default @def: libseccomp
 * refuses them) on @ctx, then with @max >= 0 ERRNO(ENOSYS) for every
 * number of @arch from @max + 1 to UNKNOWN_END(@max) that no rule
 * names.  On the compat arch a number is given to libseccomp as the
 * native number of the same name; a number the native table lacks
 * cannot be given (libseccomp 2.5 translates by name and fails with
 * -EFAULT), and keeps the default (docs/module.md).
 */
static int
add_rules(scmp_filter_ctx ctx, uint32_t def, const struct ruleset_rule *r,
	  size_t n, uint32_t arch, int native, int max,
	  enum ruleset_step *step, size_t *bad)
{
	int rc;

	*step = RULESET_RULE;
	for (size_t i = 0; i < n; i++) {
		/* a placeholder: the native arch has no such call */
		if (r[i].action == def || (native && max >= 0 && r[i].nr < 0))
			continue;
		rc = seccomp_rule_add(ctx, r[i].action, r[i].nr, 0);
		if (rc < 0 && rc != -EEXIST) {
			*bad = i;
			return rc;
		}
	}
	*step = RULESET_UNKNOWN;
	for (int nr = max + 1; max >= 0 && nr <= UNKNOWN_END(max); nr++) {
		char *name = NULL;      /* a malloc'd copy (libseccomp 2.5) */
		int k = nr, skip = 0;

		if (!native) {
			name = seccomp_syscall_resolve_num_arch(arch, nr);
			k = name != NULL ? seccomp_syscall_resolve_name(name)
					 : __NR_SCMP_ERROR;
			skip = k == __NR_SCMP_ERROR;
		}
		skip = skip || named(r, n, nr, name);
		free(name);
		if (skip)
			continue;
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), k, 0);
		if (rc < 0 && rc != -EEXIST) {
			*bad = (size_t)nr;
			return rc;
		}
	}
	return 0;
}

/* A filter of default @def holding arch @arch alone, logging. */
static int
ctx_new(uint32_t def, uint32_t arch, scmp_filter_ctx *out,
	enum ruleset_step *step)
{
	uint32_t native = seccomp_arch_native();
	scmp_filter_ctx ctx;
	int rc = 0;

	*step = RULESET_INIT;
	*out = ctx = seccomp_init(def);
	if (ctx == NULL)
		return -ENOMEM;
	if (arch != native) {
		*step = RULESET_COMPAT;
		rc = seccomp_arch_add(ctx, arch);
		if (rc == 0)
			rc = seccomp_arch_remove(ctx, native);
		if (rc < 0)
			return rc;
	}
	*step = RULESET_LOG;
	return seccomp_attr_set(ctx, SCMP_FLTATR_CTL_LOG, 1);
}

/**
 * Build the filter of default action @def and rules @r, and load it into
 * the calling thread.  A rule already present (-EEXIST) is not an error;
 * a negative placeholder number is placed by libseccomp on the arches
 * that have the call.  A rule whose action is @def is left out, and
 * still keeps its number from the unknown part.
 * @param u NULL, or the unknown part: the highest known number of the
 *	native and the compat arch (-1: none for that arch)
 * @param step the step that failed (RULESET_*)
 * @param bad the index of the rule that failed, at RULESET_RULE; the
 *	number, at RULESET_UNKNOWN
 * Returns 0 or libseccomp's negative errno.
 */
int
ruleset_load(uint32_t def, const struct ruleset_rule *r, size_t n,
	     const struct ruleset_unknown *u, enum ruleset_step *step,
	     size_t *bad)
{
	uint32_t native = seccomp_arch_native();
	uint32_t compat = pgsc_compat_arch(native);
	scmp_filter_ctx ctx = NULL, cctx = NULL;
	int rc;

	/* Under allow and log the default lets the call through already:
	 * no ENOSYS there, the filter does not change what a program sees. */
	if (def == SCMP_ACT_ALLOW || def == SCMP_ACT_LOG)
		u = NULL;
	/* Without an unknown part: one context for both arches, as the
	 * rules name the native numbers and libseccomp translates them. */
	rc = ctx_new(def, native, &ctx, step);
	if (rc == 0 && compat != 0 && u == NULL) {
		*step = RULESET_COMPAT;
		rc = seccomp_arch_add(ctx, compat);
		if (rc == -EEXIST)
			rc = 0;
	}
	if (rc < 0)
		goto out;
	/* With one: numbers no table names cannot be translated, so each
	 * arch gets a context of its own, merged before the load. */
	rc = add_rules(ctx, def, r, n, native, 1, u != NULL ? u->max_native
							     : -1,
		       step, bad);
	if (rc < 0)
		goto out;
	if (compat != 0 && u != NULL) {
		rc = ctx_new(def, compat, &cctx, step);
		if (rc == 0)
			rc = add_rules(cctx, def, r, n, compat, 0,
				       u->max_compat, step, bad);
		if (rc < 0)
			goto out;
		*step = RULESET_MERGE;
		rc = seccomp_merge(ctx, cctx);
		if (rc < 0)
			goto out;
		cctx = NULL;    /* now part of ctx */
	}
	*step = RULESET_LOAD;
	rc = seccomp_load(ctx);
out:
	if (cctx != NULL)
		seccomp_release(cctx);
	if (ctx != NULL)
		seccomp_release(ctx);
	return rc < 0 ? rc : 0;
}
