/* SPDX-License-Identifier: PostgreSQL */
/* ruleset.c - the one seccomp filter builder: a default, rules, loaded
 * (or exported as BPF for a process to load later). */
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
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/*
 * Build the filter of default action @def and rules @r in *@out.  A rule
 * already present (-EEXIST) is not an error; a negative placeholder
 * number is placed by libseccomp on the arches that have the call.  A
 * rule whose action is @def is left out, and still keeps its number from
 * the unknown part.
 * @param u NULL, or the unknown part: the highest known number of the
 *	native and the compat arch (-1: none for that arch)
 * @param step the step that failed (RULESET_*)
 * @param bad the index of the rule that failed, at RULESET_RULE; the
 *	number, at RULESET_UNKNOWN
 * Returns 0 or libseccomp's negative errno (nothing left in *@out).
 */
static int
ruleset_build(uint32_t def, const struct ruleset_rule *r, size_t n,
	      const struct ruleset_unknown *u, scmp_filter_ctx *out,
	      enum ruleset_step *step, size_t *bad)
{
	uint32_t native = seccomp_arch_native();
	uint32_t compat = pgsc_compat_arch(native);
	scmp_filter_ctx ctx = NULL, cctx = NULL;
	int rc;

	*out = NULL;
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
		goto fail;
	/* With one: numbers no table names cannot be translated, so each
	 * arch gets a context of its own, merged before the load. */
	rc = add_rules(ctx, def, r, n, native, 1, u != NULL ? u->max_native
							     : -1,
		       step, bad);
	if (rc < 0)
		goto fail;
	if (compat != 0 && u != NULL) {
		rc = ctx_new(def, compat, &cctx, step);
		if (rc == 0)
			rc = add_rules(cctx, def, r, n, compat, 0,
				       u->max_compat, step, bad);
		if (rc < 0)
			goto fail;
		*step = RULESET_MERGE;
		rc = seccomp_merge(ctx, cctx);
		if (rc < 0)
			goto fail;
		cctx = NULL;    /* now part of ctx */
	}
	*out = ctx;
	return 0;
fail:
	if (cctx != NULL)
		seccomp_release(cctx);
	if (ctx != NULL)
		seccomp_release(ctx);
	return rc;
}

/**
 * Build the filter of default action @def and rules @r (ruleset_build()),
 * and load it into the calling thread.  It is exported first and every
 * context freed, so that the load is the last thing done: after it the
 * process may no longer allocate (a sanitizer's allocator that cannot map
 * memory under the new filter loops on its refused exit_group), and the
 * one free() left is of the program itself.  As libseccomp's own load:
 * no_new_privs, then seccomp(2) with SECCOMP_FILTER_FLAG_LOG.
 * Returns 0 or a negative errno; RULESET_LOAD is the load.
 */
int
ruleset_load(uint32_t def, const struct ruleset_rule *r, size_t n,
	     const struct ruleset_unknown *u, enum ruleset_step *step,
	     size_t *bad)
{
	struct sock_fprog prog;
	void *bpf;
	size_t len;
	int rc;

	rc = ruleset_export(def, r, n, u, &bpf, &len, step, bad);
	if (rc < 0)
		return rc;
	prog.len = (unsigned short)(len / sizeof(struct sock_filter));
	prog.filter = bpf;
	*step = RULESET_LOAD;
	rc = 0;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_LOG, &prog) != 0)
		rc = -errno;
	free(bpf);
	return rc;
}

/**
 * Build the same filter as ruleset_load() would load, as the BPF program
 * the kernel takes (struct sock_filter instructions), in *@bpf (malloc'd,
 * *@len bytes), for a process that loads it later by itself with
 * seccomp(2) and SECCOMP_FILTER_FLAG_LOG (what SCMP_FLTATR_CTL_LOG
 * becomes at load time).  The program is written to a memfd
 * (libseccomp 2.5 exports to a file descriptor only) and read back.
 * Returns 0 or a negative errno; RULESET_LOAD is the export step.
 */
int
ruleset_export(uint32_t def, const struct ruleset_rule *r, size_t n,
	       const struct ruleset_unknown *u, void **bpf, size_t *len,
	       enum ruleset_step *step, size_t *bad)
{
	scmp_filter_ctx ctx;
	struct stat sb;
	char *buf = NULL;
	ssize_t got;
	int rc, fd;

	*bpf = NULL;
	*len = 0;
	rc = ruleset_build(def, r, n, u, &ctx, step, bad);
	if (rc < 0)
		return rc;
	*step = RULESET_LOAD;
	fd = memfd_create("pgsc-bpf", MFD_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	rc = seccomp_export_bpf(ctx, fd);
	if (rc < 0)
		goto out;
	if (fstat(fd, &sb) < 0) {
		rc = -errno;
		goto out;
	}
	if (sb.st_size <= 0 || sb.st_size > RULESET_BPF_MAX) {
		rc = -E2BIG;
		goto out;
	}
	buf = malloc((size_t)sb.st_size);
	if (buf == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	got = pread(fd, buf, (size_t)sb.st_size, 0);
	if (got != sb.st_size) {
		rc = got < 0 ? -errno : -EIO;
		goto out;
	}
	*bpf = buf;
	*len = (size_t)sb.st_size;
	buf = NULL;
	rc = 0;
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	seccomp_release(ctx);
	return rc;
}
