/* SPDX-License-Identifier: PostgreSQL */
/* syscall_arch.c - the one table of arches: names, systemd and OCI names,
 * compat. */
/*
 * An arch is known by its audit arch token, which is also libseccomp's
 * SCMP_ARCH_* value (docs/design.md §6).  This table gives its short name (as
 * auparse prints arch=, "x86_64", "i386"), its names in systemd's
 * SystemCallArchitectures= (systemd.unit(5)) and in an OCI profile
 * (runtime-spec config-linux.md, seccomp), and the 32-bit arch that runs
 * on it, for which a filter needs a rule set of its own.  libc and
 * libseccomp only: the module compiles it in.
 */
#include <errno.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "syscalls.h"

static const struct arch_info arches[] = {
	{ SCMP_ARCH_X86_64, "x86_64", "x86-64", "SCMP_ARCH_X86_64",
	  SCMP_ARCH_X86 },
	{ SCMP_ARCH_X86, "i386", "x86", "SCMP_ARCH_X86", 0 },
	{ SCMP_ARCH_AARCH64, "aarch64", "arm64", "SCMP_ARCH_AARCH64",
	  SCMP_ARCH_ARM },
	{ SCMP_ARCH_ARM, "arm", "arm", "SCMP_ARCH_ARM", 0 },
	{ SCMP_ARCH_PPC64LE, "ppc64le", "ppc64-le", "SCMP_ARCH_PPC64LE", 0 },
	{ SCMP_ARCH_PPC64, "ppc64", "ppc64", "SCMP_ARCH_PPC64", 0 },
	{ SCMP_ARCH_PPC, "ppc", "ppc", "SCMP_ARCH_PPC", 0 },
	{ SCMP_ARCH_S390X, "s390x", "s390x", "SCMP_ARCH_S390X", 0 },
	{ SCMP_ARCH_S390, "s390", "s390", "SCMP_ARCH_S390", 0 },
	{ SCMP_ARCH_MIPS, "mips", "mips", "SCMP_ARCH_MIPS", 0 },
	{ SCMP_ARCH_MIPSEL, "mipsel", "mips-le", "SCMP_ARCH_MIPSEL", 0 },
	{ SCMP_ARCH_MIPS64, "mips64", "mips64", "SCMP_ARCH_MIPS64", 0 },
	{ SCMP_ARCH_MIPSEL64, "mipsel64", "mips64-le", "SCMP_ARCH_MIPSEL64",
	  0 },
	{ SCMP_ARCH_RISCV64, "riscv64", "riscv64", "SCMP_ARCH_RISCV64", 0 },
};

/* The row of audit arch token @token, or NULL. */
const struct arch_info *
syscall_arch_find(uint32_t token)
{
	for (size_t i = 0; i < ARRAY_SIZE(arches); i++)
		if (arches[i].token == token)
			return &arches[i];
	return NULL;
}

const char *
pgsc_arch_name(uint32_t arch)
{
	const struct arch_info *a = syscall_arch_find(arch);

	return a != NULL ? a->name : NULL;
}

uint32_t
pgsc_arch_token(const char *name)
{
	if (name == NULL)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(arches); i++)
		if (strcmp(arches[i].name, name) == 0)
			return arches[i].token;
	return 0;
}

uint32_t
pgsc_native_arch(void)
{
	return seccomp_arch_native();
}

uint32_t
pgsc_compat_arch(uint32_t native)
{
	const struct arch_info *a = syscall_arch_find(native);

	return a != NULL ? a->compat : 0;
}

/*
 * The highest syscall number libseccomp knows on @arch: the highest n
 * below ARCH_SCAN_END that seccomp_syscall_resolve_num_arch() names.
 * The scan is bounded: every arch's numbers lie below it (MIPS counts
 * from 4000, 5000 and 6000; x86_64 below 512, x32's 512 and up carry
 * bit 30 and are arch SCMP_ARCH_X32, which pgsc's filters do not hold;
 * ARM's private calls from 0x0f0000 are not table numbers).  It costs
 * a few milliseconds and makes no system call.
 * Returns the number, or -1 when libseccomp knows no call on @arch.
 */
#define ARCH_SCAN_END 8192

int
syscall_known_max(uint32_t arch)
{
	int max = -1;

	for (int n = 0; n < ARCH_SCAN_END; n++) {
		/* a malloc'd copy (libseccomp 2.5) */
		char *name = seccomp_syscall_resolve_num_arch(arch, n);

		if (name != NULL)
			max = n;
		free(name);
	}
	return max;
}

/* Set *cause to "@why in \"@s\"" (malloc'd; left as is on no memory). */
static void
arch_cause(char **cause, const char *why, const char *s, size_t len)
{
	char buf[160];

	if (cause == NULL)
		return;
	snprintf(buf, sizeof(buf), "%s in \"%.*s\"", why, (int)len, s);
	free(*cause);
	*cause = strdup(buf);
}

/*
 * The known max of @arch in @spec ("x86_64:450,i386:462"; an arch is
 * named as pgsc prints it or as libseccomp does, "x86"), in *max; with
 * @arch 0, only check @spec.  An arch @spec does not name, or an empty
 * or NULL @spec, gives this libseccomp's syscall_known_max().
 * Returns 0, or -EINVAL with *cause (malloc'd).
 */
int
syscall_known_max_spec(const char *spec, uint32_t arch, int *max,
			 char **cause)
{
	const char *p = spec, *t;
	size_t len;
	int found = 0;

	while (p != NULL && (t = syscall_lists_next(&p, " \t", 0, &len)) != NULL) {
		const char *colon = memchr(t, ':', len);
		char name[32], *end;
		uint32_t tok;
		long n;

		if (colon == NULL || (size_t)(colon - t) >= sizeof(name)) {
			arch_cause(cause, "not ARCH:NUMBER", t, len);
			return -EINVAL;
		}
		memcpy(name, t, (size_t)(colon - t));
		name[colon - t] = '\0';
		tok = pgsc_arch_token(name);
		if (tok == 0)
			tok = seccomp_arch_resolve_name(name);
		if (tok == 0 || syscall_arch_find(tok) == NULL) {
			arch_cause(cause, "unknown architecture", t, len);
			return -EINVAL;
		}
		errno = 0;
		n = strtol(colon + 1, &end, 10);
		if (errno != 0 || end == colon + 1 || end != t + len || n < 0 ||
		    n >= ARCH_SCAN_END) {
			arch_cause(cause, "not a number from 0 to 8191", t,
				   len);
			return -EINVAL;
		}
		if (tok == arch && !found) {
			*max = (int)n;
			found = 1;
		}
	}
	if (arch != 0 && !found)
		*max = syscall_known_max(arch);
	return 0;
}

/*
 * The known max of this libseccomp for each of the @n arches @arch and
 * the compat arch of each, once each, in that order, as
 * pgsc.syscall_known_max takes it: "x86_64:456,i386:456"; with @json, as
 * the members of a JSON object: "\"x86_64\": 456, \"i386\": 456" (the
 * names are syscall_arch.c's own).  An arch pgsc does not name, or on which
 * libseccomp knows no call, is left out.  Returns what snprintf returns
 * for the whole text.
 */
int
syscall_known_max_list(char *buf, size_t size, const uint32_t *arch,
			 size_t n, int json)
{
	uint32_t seen[2 * ARCH_LIST_MAX];
	size_t ns = 0;
	int len = 0;

	if (size > 0)
		buf[0] = '\0';
	for (size_t i = 0; i < n && i < ARCH_LIST_MAX; i++) {
		uint32_t a[2] = { arch[i], pgsc_compat_arch(arch[i]) };

		for (int j = 0; j < 2; j++) {
			const char *name = pgsc_arch_name(a[j]);
			size_t k, off = (size_t)len < size ? (size_t)len : size;
			int max, w;

			for (k = 0; k < ns && seen[k] != a[j]; k++)
				;
			if (a[j] == 0 || name == NULL || k < ns)
				continue;
			seen[ns++] = a[j];
			if ((max = syscall_known_max(a[j])) < 0)
				continue;
			w = snprintf(buf + off, size - off,
				     json ? "%s\"%s\": %d" : "%s%s:%d",
				     len ? (json ? ", " : ",") : "", name, max);
			if (w < 0)
				return w;
			len += w;
		}
	}
	return len;
}

/*
 * The known max of this libseccomp for the native arch and its compat
 * arch, as pgsc.syscall_known_max takes it: "x86_64:456,i386:456".
 * Returns what snprintf returns.
 */
int
syscall_known_max_text(char *buf, size_t size)
{
	uint32_t native = seccomp_arch_native();

	if (pgsc_arch_name(native) == NULL)
		return snprintf(buf, size, "%s", "");
	return syscall_known_max_list(buf, size, &native, 1, 0);
}
