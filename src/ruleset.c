/* SPDX-License-Identifier: PostgreSQL */
/* ruleset.c - the one seccomp filter builder: a default, rules, loaded
 * (or exported as BPF for a process to load later). */
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
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgsc-int.h"

/*
 * Build the filter of default action @def and rules @r into a new *@ctx.
 * A rule already present (-EEXIST) is not an error; a negative
 * placeholder number is placed by libseccomp on the arches that have
 * the call.  Returns 0 or libseccomp's negative errno (*ctx released).
 */
static int
ruleset_build(uint32_t def, const struct ruleset_rule *r, size_t n,
	      scmp_filter_ctx *ctx, enum ruleset_step *step, size_t *bad)
{
	uint32_t compat = pgsc_compat_arch(seccomp_arch_native());
	int rc = 0;

	*step = RULESET_INIT;
	*ctx = seccomp_init(def);
	if (*ctx == NULL)
		return -ENOMEM;
	*step = RULESET_COMPAT;
	if (compat != 0) {
		rc = seccomp_arch_add(*ctx, compat);
		if (rc < 0 && rc != -EEXIST)
			goto fail;
	}
	*step = RULESET_LOG;
	rc = seccomp_attr_set(*ctx, SCMP_FLTATR_CTL_LOG, 1);
	if (rc < 0)
		goto fail;
	*step = RULESET_RULE;
	for (size_t i = 0; i < n; i++) {
		rc = seccomp_rule_add(*ctx, r[i].action, r[i].nr, 0);
		if (rc < 0 && rc != -EEXIST) {
			*bad = i;
			goto fail;
		}
	}
	return 0;
fail:
	seccomp_release(*ctx);
	*ctx = NULL;
	return rc;
}

/**
 * Build the filter of default action @def and rules @r, and load it into
 * the calling thread.
 * @param step the step that failed (RULESET_*)
 * @param bad the index of the rule that failed, at RULESET_RULE
 * Returns 0 or libseccomp's negative errno.
 */
int
ruleset_load(uint32_t def, const struct ruleset_rule *r, size_t n,
	     enum ruleset_step *step, size_t *bad)
{
	scmp_filter_ctx ctx;
	int rc;

	rc = ruleset_build(def, r, n, &ctx, step, bad);
	if (rc < 0)
		return rc;
	*step = RULESET_LOAD;
	rc = seccomp_load(ctx);
	seccomp_release(ctx);
	return rc < 0 ? rc : 0;
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
	       void **bpf, size_t *len, enum ruleset_step *step, size_t *bad)
{
	scmp_filter_ctx ctx;
	struct stat sb;
	char *buf = NULL;
	ssize_t got;
	int rc, fd;

	*bpf = NULL;
	*len = 0;
	rc = ruleset_build(def, r, n, &ctx, step, bad);
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
	if (fstat(fd, &sb) < 0 || lseek(fd, 0, SEEK_SET) < 0) {
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
