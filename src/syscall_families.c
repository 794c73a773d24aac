/* SPDX-License-Identifier: PostgreSQL */
/* syscall_families.c - syscalls that do one job under several names. */
#include <errno.h>
#include <seccomp.h>
#include <string.h>

#include "pgsc-int.h"
#include "syscalls.h"

#define FAMILY(id, reason, ...) \
	static const char *const members_##id[] = { __VA_ARGS__, NULL };
#include "families.def"
#undef FAMILY

static const struct family families[] = {
#define FAMILY(id, reason, ...) { #id, reason, members_##id },
#include "families.def"
#undef FAMILY
};

/*
 * libseccomp's placeholders (seccomp-syscalls.h, 2.5.4): -101..-120 are
 * the socket calls and -201..-224 the SysV IPC calls; -10001 and below
 * are single calls.  A placeholder means "not a syscall of its own on
 * this arch", which is still a working rule where the arch multiplexes
 * the call: libseccomp turns a rule for accept on i386, ppc64le or s390x
 * into one for socketcall(SYS_ACCEPT, ...), and one for shmget into
 * ipc(SHMGET, ...).  Everywhere else a placeholder rule is silently
 * dropped (seccomp_rule_add() returns 0 and adds nothing): send and recv
 * resolve to -109 and -110 on x86_64 and aarch64 too, which have neither
 * send nor recv nor socketcall.  So a multiplexed call exists exactly
 * where its multiplexer does; tests/unit/test_portable.c checks this rule
 * against the filters libseccomp builds, for every member on every arch.
 */
#define PNR_SOCKET_FIRST (-120)
#define PNR_SOCKET_LAST (-101)
#define PNR_IPC_FIRST (-224)
#define PNR_IPC_LAST (-201)

size_t
syscall_families_count(void)
{
	return ARRAY_SIZE(families);
}

const struct family *
syscall_families_at(size_t i)
{
	return i < ARRAY_SIZE(families) ? &families[i] : NULL;
}

const struct family *
syscall_families_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(families); i++)
		if (strcmp(families[i].name, name) == 0)
			return &families[i];
	return NULL;
}

int
syscall_families_has(const struct family *f, const char *member)
{
	for (const char *const *m = f->members; *m != NULL; m++)
		if (strcmp(*m, member) == 0)
			return 1;
	return 0;
}

const struct family *
syscall_families_of(const char *member, size_t i)
{
	for (size_t k = 0; k < ARRAY_SIZE(families); k++)
		if (syscall_families_has(&families[k], member) && i-- == 0)
			return &families[k];
	return NULL;
}

int
syscall_families_exists(const char *member, uint32_t arch)
{
	int nr;

	if (pgsc_arch_name(arch) == NULL)
		return -EINVAL;
	nr = seccomp_syscall_resolve_name_arch(arch, member);
	if (nr == __NR_SCMP_ERROR)
		return -ENOENT;
	if (nr >= 0)
		return 1;
	if (nr >= PNR_SOCKET_FIRST && nr <= PNR_SOCKET_LAST)
		return seccomp_syscall_resolve_name_arch(arch, "socketcall") >= 0;
	if (nr >= PNR_IPC_FIRST && nr <= PNR_IPC_LAST)
		return seccomp_syscall_resolve_name_arch(arch, "ipc") >= 0;
	return 0;
}

void
pgsc_families_print(FILE *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(families); i++) {
		const struct family *f = &families[i];

		fprintf(out, "%s:", f->name);
		for (const char *const *m = f->members; *m != NULL; m++)
			fprintf(out, " %s", *m);
		fprintf(out, "\n    %s\n", f->reason);
	}
}
