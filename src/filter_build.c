/* SPDX-License-Identifier: PostgreSQL */
/* filter_build.c - the one seccomp filter builder: a default, rules, loaded
 * (or exported as BPF for a process to load later). */
/*
 * pgsc-exec (filter_exec.c) and the module (pgmodule/pgsc_module.c) load the
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
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "filter.h"
#include "syscalls.h"

/* Measured with strace on a backend of PostgreSQL 15 (docs/module.md):
 * between the commit of InitPostgres's transaction and the load, the
 * module calls brk (libseccomp's allocations; mmap and munmap for large
 * ones), pipe2, fcntl, write, read, close, prctl and seccomp. */
const char *const filter_needs[] = {
	"brk", "close", "fcntl", "mmap", "munmap", "pipe2", "prctl", "read",
	"seccomp", "write", NULL,
};

/*
 * Allowed by every filter built here whatever the list says, unless a
 * rule names it: the kernel itself makes a process call restart_syscall
 * to resume a sleep (nanosleep, poll, a futex wait with a timeout) that a
 * signal without a handler interrupted, such as a stop and a continue.
 * It resumes only the call the filter already let through, and when it
 * happens is timing, not the workload: a PostgreSQL 18 proof under error
 * had an autovacuum worker refused it (2 records) where the recording
 * rounds had seen none.  systemd's @default and container runtimes'
 * default profiles allow it too.
 */
const char filter_resume_call[] = "restart_syscall";

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
named(const struct filter_rule *r, size_t n, int nr, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (name != NULL ? strcmp(r[i].name, name) == 0
				 : r[i].nr == nr)
			return 1;
	return 0;
}

/*
 * Rule @r on @ctx: unconditional, or one rule per alternative of its
 * argument rule, each comparing every listed argument (after its mask)
 * with SCMP_CMP_EQ or SCMP_CMP_MASKED_EQ.  libseccomp 2.5.4 compares all
 * 64 bits on x86_64 and the low 32 bits alone on i386 (it drops the high
 * word there); on i386 it also puts the rule of a socket call on
 * socketcall(2), where the arguments are in memory: such calls get the
 * default action (docs/module.md, "Argument rules").
 */
static int
add_rule(scmp_filter_ctx ctx, const struct filter_rule *r)
{
	const struct argrule *a = r->args;
	struct scmp_arg_cmp cmp[ARGRULE_ARGS_MAX];
	int rc = 0;

	if (a == NULL)
		return seccomp_rule_add(ctx, r->action, r->nr, 0);
	for (unsigned i = 0; i < a->nalts && (rc == 0 || rc == -EEXIST);
	     i++) {
		for (unsigned k = 0; k < a->nargs; k++) {
			cmp[k].arg = a->arg[k];
			cmp[k].op = a->masked[k] ? SCMP_CMP_MASKED_EQ
						 : SCMP_CMP_EQ;
			cmp[k].datum_a = a->masked[k] ? a->mask[k]
						      : a->val[i][k];
			cmp[k].datum_b = a->masked[k] ? a->val[i][k] : 0;
		}
		rc = seccomp_rule_add_array(ctx, r->action, r->nr, a->nargs,
					    cmp);
	}
	return rc;
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
add_rules(scmp_filter_ctx ctx, uint32_t def, const struct filter_rule *r,
	  size_t n, uint32_t arch, int native, int max,
	  enum filter_step *step, size_t *bad)
{
	int rc;

	*step = FILTER_STEP_RULE;
	for (size_t i = 0; i < n; i++) {
		/* a placeholder: the native arch has no such call */
		if (r[i].action == def || (native && max >= 0 && r[i].nr < 0))
			continue;
		rc = add_rule(ctx, &r[i]);
		if (rc < 0 && rc != -EEXIST) {
			*bad = i;
			return rc;
		}
	}
	if (def != SCMP_ACT_ALLOW && !named(r, n, -1, filter_resume_call)) {
		int k = seccomp_syscall_resolve_name(filter_resume_call);

		rc = k == __NR_SCMP_ERROR ? 0
					  : seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
							     k, 0);
		if (rc < 0 && rc != -EEXIST) {
			/* said as a number the filter could not take */
			*step = FILTER_STEP_UNKNOWN;
			*bad = (size_t)k;
			return rc;
		}
	}
	*step = FILTER_STEP_UNKNOWN;
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
	enum filter_step *step)
{
	uint32_t native = seccomp_arch_native();
	scmp_filter_ctx ctx;
	int rc = 0;

	*step = FILTER_STEP_INIT;
	*out = ctx = seccomp_init(def);
	if (ctx == NULL)
		return -ENOMEM;
	if (arch != native) {
		*step = FILTER_STEP_COMPAT;
		rc = seccomp_arch_add(ctx, arch);
		if (rc == 0)
			rc = seccomp_arch_remove(ctx, native);
		if (rc < 0)
			return rc;
	}
	*step = FILTER_STEP_LOG;
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
 * @param step the step that failed (FILTER_STEP_*)
 * @param bad the index of the rule that failed, at FILTER_STEP_RULE; the
 *	number, at FILTER_STEP_UNKNOWN
 * Returns 0 or libseccomp's negative errno (nothing left in *@out).
 */
static int
build_ctx(uint32_t def, const struct filter_rule *r, size_t n,
	      const struct filter_unknown *u, scmp_filter_ctx *out,
	      enum filter_step *step, size_t *bad)
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
		*step = FILTER_STEP_COMPAT;
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
		*step = FILTER_STEP_MERGE;
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
 * Build the filter of default action @def and rules @r (build_ctx()),
 * and load it into the calling thread.  It is exported first and every
 * context freed, so that the load is the last thing done: after it the
 * process may no longer allocate (a sanitizer's allocator that cannot map
 * memory under the new filter loops on its refused exit_group), and the
 * one free() left is of the program itself.  As libseccomp's own load:
 * no_new_privs, then seccomp(2) with SECCOMP_FILTER_FLAG_LOG.
 * Returns 0 or a negative errno; FILTER_STEP_LOAD is the load.
 */
int
filter_build_load(uint32_t def, const struct filter_rule *r, size_t n,
	     const struct filter_unknown *u, enum filter_step *step,
	     size_t *bad)
{
	void *bpf;
	size_t len;
	int rc;

	rc = filter_build_export(def, r, n, u, &bpf, &len, step, bad);
	if (rc < 0)
		return rc;
	*step = FILTER_STEP_LOAD;
	rc = filter_load_bpf(bpf, len);
	free(bpf);
	return rc;
}

/**
 * Load the program @bpf of @len bytes (filter_build_export()'s) into the
 * calling thread, as libseccomp's own load does: no_new_privs, then
 * seccomp(2) with SECCOMP_FILTER_FLAG_LOG.  Allocates nothing.
 * Returns 0 or a negative errno.
 */
int
filter_load_bpf(const void *bpf, size_t len)
{
	struct sock_fprog prog;

	if (len == 0 || len > FILTER_BPF_MAX ||
	    len % sizeof(struct sock_filter) != 0)
		return -EINVAL;
	prog.len = (unsigned short)(len / sizeof(struct sock_filter));
	prog.filter = (struct sock_filter *)(uintptr_t)bpf;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_LOG, &prog) != 0)
		return -errno;
	return 0;
}

/*
 * Read the whole program from the read end @rfd of a pipe whose write
 * end has been closed, into *@bpf (malloc'd, *@len bytes).  @cap is the
 * pipe's capacity: a program that filled it may have been cut short by
 * the non-blocking write (libseccomp 2.5 ignores a short write), so it
 * is refused, as one over FILTER_BPF_MAX is.
 */
static int
pipe_read_all(int rfd, size_t cap, void **bpf, size_t *len)
{
	size_t got = 0, max = FILTER_BPF_MAX + 1;
	char *buf = malloc(max);
	ssize_t r;

	if (buf == NULL)
		return -ENOMEM;
	while (got < max && (r = read(rfd, buf + got, max - got)) != 0) {
		if (r < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			free(buf);
			return -err;
		}
		got += (size_t)r;
	}
	if (got == 0 || got > FILTER_BPF_MAX || got >= cap ||
	    got % sizeof(struct sock_filter) != 0) {
		free(buf);
		return got == 0 ? -EIO : -E2BIG;
	}
	*bpf = buf;
	*len = got;
	return 0;
}

/*
 * The pipe the program is exported through: non-blocking (a program
 * larger than the pipe is a short write, never a hang), able to hold
 * any program the kernel takes.  Returns 0 with @p, or a negative errno.
 */
static int
export_pipe(int p[2], size_t *cap)
{
	int sz;

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	sz = fcntl(p[1], F_GETPIPE_SZ);
	/* A user over fs.pipe-user-pages-soft gets one-page pipes. */
	if (sz >= 0 && sz <= FILTER_BPF_MAX)
		sz = fcntl(p[1], F_SETPIPE_SZ, 2 * FILTER_BPF_MAX);
	if (sz < 0 || sz <= FILTER_BPF_MAX) {
		int err = sz < 0 ? errno : E2BIG;

		close(p[0]);
		close(p[1]);
		return -err;
	}
	*cap = (size_t)sz;
	return 0;
}

/**
 * Build the same filter as filter_build_load() would load, as the BPF program
 * the kernel takes (struct sock_filter instructions), in *@bpf (malloc'd,
 * *@len bytes), for a process that loads it later by itself with
 * seccomp(2) and SECCOMP_FILTER_FLAG_LOG (what SCMP_FLTATR_CTL_LOG
 * becomes at load time).  libseccomp 2.5 exports to a file descriptor
 * only: the program goes through a pipe, so that a backend building its
 * session filter under the global filter makes only calls every
 * PostgreSQL list already has (pipe2, fcntl, write, read, close; the
 * module's own table, FILTER_NEEDS).  A memfd did this before, and a
 * global list without memfd_create then refused every connection.
 * Returns 0 or a negative errno; FILTER_STEP_LOAD is the export step.
 */
int
filter_build_export(uint32_t def, const struct filter_rule *r, size_t n,
	       const struct filter_unknown *u, void **bpf, size_t *len,
	       enum filter_step *step, size_t *bad)
{
	scmp_filter_ctx ctx;
	size_t cap = 0;
	int rc, p[2] = { -1, -1 };

	*bpf = NULL;
	*len = 0;
	rc = build_ctx(def, r, n, u, &ctx, step, bad);
	if (rc < 0)
		return rc;
	*step = FILTER_STEP_LOAD;
	rc = export_pipe(p, &cap);
	if (rc < 0)
		goto out;
	rc = seccomp_export_bpf(ctx, p[1]);
	close(p[1]);
	if (rc == 0)
		rc = pipe_read_all(p[0], cap, bpf, len);
	close(p[0]);
out:
	seccomp_release(ctx);
	return rc;
}
