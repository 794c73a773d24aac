/* SPDX-License-Identifier: PostgreSQL */
/* surface.c - the attack-surface score (issue 28, part 4): the kernel CVEs
 * of a CVE map (src/cves.def) a list of syscall names reaches, and the
 * lists it is set beside (src/baselines.def). */
/*
 * A CVE is reachable when any syscall of its entry is allowed: the count
 * before argument rules, where an allowed name is allowed with every
 * argument.  What a list's argument rules close is surface_args.c's
 * (src/cve_conds.def).  The map and the baselines are data with their
 * sources named in their headers; tests/unit/test_surface.c checks that
 * every name is an x86_64 syscall for libseccomp.
 */
#include <errno.h>
#include <string.h>

#include "pgsc-int.h"

static const struct surface_cve cves[] = {
#define CVE(id, syscalls, condition, refs) { id, syscalls, condition, refs },
#include "cves.def"
#undef CVE
};

static const struct surface_baseline baselines[] = {
#define BASELINE(id, title, source) { #id, title, source },
#define BASELINE_NAME(id, name)
#define BASELINE_ARGS(id, name, args)
#include "baselines.def"
#undef BASELINE_ARGS
#undef BASELINE_NAME
#undef BASELINE
};

static const struct {
	const char *id, *name;
} baseline_names[] = {
#define BASELINE(id, title, source)
#define BASELINE_NAME(id, name) { #id, name },
#define BASELINE_ARGS(id, name, args)
#include "baselines.def"
#undef BASELINE_ARGS
#undef BASELINE_NAME
#undef BASELINE
};

size_t
surface_cves(const struct surface_cve **v)
{
	if (v != NULL)
		*v = cves;
	return ARRAY_SIZE(cves);
}

size_t
surface_baselines(const struct surface_baseline **v)
{
	if (v != NULL)
		*v = baselines;
	return ARRAY_SIZE(baselines);
}

/*
 * Calls @fn with each syscall name of @syscalls (names apart by blanks)
 * until it returns non-zero; returns that, or 0.
 */
static int
each_name(const char *syscalls, int (*fn)(const char *name, const void *arg),
	  const void *arg)
{
	const char *p = syscalls;

	while (*p != '\0') {
		char name[64];
		size_t n = strcspn(p, " ");
		int rc;

		if (n > 0 && n < sizeof(name)) {
			memcpy(name, p, n);
			name[n] = '\0';
			if ((rc = fn(name, arg)) != 0)
				return rc;
		}
		p += n;
		p += strspn(p, " ");
	}
	return 0;
}

static int
in_set(const char *name, const void *arg)
{
	return strset_has(arg, name);
}

static int
is_name(const char *name, const void *arg)
{
	return strcmp(name, arg) == 0;
}

int
surface_cve_reached(const struct surface_cve *c, const struct strset *names)
{
	return each_name(c->syscalls, in_set, names);
}

size_t
surface_reachable(const struct strset *names)
{
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(cves); i++)
		if (surface_cve_reached(&cves[i], names))
			n++;
	return n;
}

int
surface_cves_of(const char *name, struct strset *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(cves); i++)
		if (each_name(cves[i].syscalls, is_name, name) &&
		    strset_add(out, cves[i].id) < 0)
			return -ENOMEM;
	return 0;
}

int
surface_baseline_names(const char *id, struct strset *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(baseline_names); i++)
		if (strcmp(baseline_names[i].id, id) == 0 &&
		    strset_add(out, baseline_names[i].name) < 0)
			return -ENOMEM;
	return 0;
}
