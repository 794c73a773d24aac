/* SPDX-License-Identifier: PostgreSQL */
/* ruleset.c - the one seccomp filter builder: a default, rules, loaded. */
/*
 * pgsc-exec (filter.c) and the module (pgmodule/pgsc_module.c) load the
 * same kind of filter: a default action, one rule per syscall number,
 * the 32-bit compat arch beside the native one (a filter for the native
 * arch alone kills every i386 call through the bad-arch action, DESIGN
 * §4) and SCMP_FLTATR_CTL_LOG, so that error and kill leave a SECCOMP
 * record too.  Each caller words its own messages from the step that
 * failed.  libc and libseccomp only: the module compiles it in.
 */
#include <errno.h>
#include <seccomp.h>
#include <stddef.h>

#include "pgsc-int.h"

/**
 * Build the filter of default action @def and rules @r, and load it into
 * the calling thread.  A rule already present (-EEXIST) is not an error;
 * a negative placeholder number is placed by libseccomp on the arches
 * that have the call.
 * @param step the step that failed (RULESET_*)
 * @param bad the index of the rule that failed, at RULESET_RULE
 * Returns 0 or libseccomp's negative errno.
 */
int
ruleset_load(uint32_t def, const struct ruleset_rule *r, size_t n,
	     enum ruleset_step *step, size_t *bad)
{
	uint32_t compat = pgsc_compat_arch(seccomp_arch_native());
	scmp_filter_ctx ctx;
	int rc = 0;

	*step = RULESET_INIT;
	ctx = seccomp_init(def);
	if (ctx == NULL)
		return -ENOMEM;
	*step = RULESET_COMPAT;
	if (compat != 0) {
		rc = seccomp_arch_add(ctx, compat);
		if (rc < 0 && rc != -EEXIST)
			goto out;
	}
	*step = RULESET_LOG;
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_LOG, 1);
	if (rc < 0)
		goto out;
	*step = RULESET_RULE;
	for (size_t i = 0; i < n; i++) {
		rc = seccomp_rule_add(ctx, r[i].action, r[i].nr, 0);
		if (rc < 0 && rc != -EEXIST) {
			*bad = i;
			goto out;
		}
	}
	*step = RULESET_LOAD;
	rc = seccomp_load(ctx);
out:
	seccomp_release(ctx);
	return rc < 0 ? rc : 0;
}
