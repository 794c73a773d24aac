/* SPDX-License-Identifier: PostgreSQL */
/* arch.c - the one table of arches: names, systemd and OCI names, compat. */
/*
 * An arch is known by its audit arch token, which is also libseccomp's
 * SCMP_ARCH_* value (DESIGN §4).  This table gives its short name (as
 * auparse prints arch=, "x86_64", "i386"), its names in systemd's
 * SystemCallArchitectures= (systemd.unit(5)) and in an OCI profile
 * (runtime-spec config-linux.md, seccomp), and the 32-bit arch that runs
 * on it, for which a filter needs a rule set of its own.  libc and
 * libseccomp only: the module compiles it in.
 */
#include <seccomp.h>
#include <stddef.h>
#include <string.h>

#include "pgsc-int.h"

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
arch_find(uint32_t token)
{
	for (size_t i = 0; i < ARRAY_SIZE(arches); i++)
		if (arches[i].token == token)
			return &arches[i];
	return NULL;
}

const char *
pgsc_arch_name(uint32_t arch)
{
	const struct arch_info *a = arch_find(arch);

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
	const struct arch_info *a = arch_find(native);

	return a != NULL ? a->compat : 0;
}
