/* SPDX-License-Identifier: PostgreSQL */
/* report_needs.c - calls every list needs that a store may not hold: the
 * pgsc module's own, and the postmaster's start-up for outside loaders. */
/*
 * A backend whose lists differ from the postmaster's builds and loads
 * its session filter under the global filter, and every other loads the
 * postmaster's program (filter_needs[] in filter_build.c says with which
 * calls).  A store
 * collected under an older module, or with the server's own calls only,
 * may lack one of them, and the module then refuses to start with the
 * list (a module that needed memfd_create once refused every connection
 * under the shipped list instead).  So the global list always carries
 * them, and the output says which ones the records did not bring.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>

#include "report-int.h"
#include "filter.h"

/**
 * Add to @global each of the module's needs it lacks that exists on
 * @arch (0: the native arch; --arch arm has mmap2, not mmap), and to
 * @added (NULL: not kept) for the comment.  An empty global list stays
 * empty: no records, no list.
 * Returns 0 or -ENOMEM.
 */
int
report_needs_add(struct strset *global, struct strset *added, uint32_t arch)
{
	if (global->n == 0)
		return 0;
	if (arch == 0)
		arch = pgsc_native_arch();
	for (const char *const *n = filter_needs; *n != NULL; n++) {
		if (strset_has(global, *n) ||
		    seccomp_syscall_resolve_name_arch(arch, *n) < 0)
			continue;
		if (strset_add(global, *n) < 0 ||
		    (added != NULL && strset_add(added, *n) < 0))
			return -ENOMEM;
	}
	return 0;
}

/* The GUC format's comment on what report_needs_add() added. */
void
report_needs_guc(FILE *out, const struct lists *L)
{
	if (L->needs.n == 0)
		return;
	fputs("# added to the global list, not seen in the records: ", out);
	report_print_joined(out, &L->needs, ",");
	fputs(" (every backend makes these calls to load its session filter "
	      "under the global filter: the pgsc module refuses to start "
	      "without them; docs/module.md)\n", out);
}

/* The same as a JSON member: ,"module_needs_added": [...]. */
void
report_needs_json(FILE *out, const struct lists *L)
{
	fputs(",\n  \"module_needs_added\": ", out);
	report_json_list(out, &L->needs);
}

/*
 * The postmaster's start-up before shared_preload_libraries is loaded
 * (ChangeToDataDir(), the data directory's checks): filtered by the
 * loaders that impose the list from outside (pgsc-exec, systemd's
 * SystemCallFilter=, an OCI profile), never by the module, so a store
 * collected under the module never holds them.  Measured on PostgreSQL
 * 15 with glibc 2.36: every server started under pgsc-exec --default log
 * (the outside rounds of docs/check-world.md, and ten recorded
 * workloads) made exactly these before any filter the module loads.
 */
static const char *const startup_calls[] = { "chdir", "fstatfs", NULL };

/* Add @name to the global list of @L and to @added, if it exists on
 * @arch and the list lacks it.  Returns 0 or -ENOMEM. */
static int
needs_one(struct lists *L, struct strset *added, const char *name,
	  uint32_t arch)
{
	if (strset_has(&L->l[0], name) ||
	    seccomp_syscall_resolve_name_arch(arch, name) < 0)
		return 0;
	if (strset_add(&L->l[0], name) < 0 || strset_add(added, name) < 0)
		return -ENOMEM;
	return 0;
}

/**
 * For the outside loaders' formats: add to the global list of @L the
 * start-up calls it lacks (on its target arch), remembered in
 * L->startup, and with @resume restart_syscall, remembered in L->resume:
 * the module's and pgsc-exec's filters allow it whatever the list
 * (filter_build.c), and a profile must say so itself (systemd's
 * SystemCallFilter= does: it adds @default).  An empty list stays empty.
 * Returns 0 or -ENOMEM.
 */
int
report_needs_startup(struct lists *L, int resume)
{
	uint32_t arch = L->target ? L->target : pgsc_native_arch();

	if (L->l[0].n == 0)
		return 0;
	for (const char *const *n = startup_calls; *n != NULL; n++)
		if (needs_one(L, &L->startup, *n, arch) < 0)
			return -ENOMEM;
	return resume ? needs_one(L, &L->resume, filter_resume_call, arch) : 0;
}

/* What report_needs_startup() added, after @lead: "# " in the systemd
 * drop-in, "pgsc-report: " on the diagnostics (a JSON profile has no
 * comments). */
void
report_needs_startup_note(FILE *out, const struct lists *L, const char *lead)
{
	if (L->startup.n > 0) {
		fprintf(out, "%sadded to the global list, not seen in the "
			"records: ", lead);
		report_print_joined(out, &L->startup, ",");
		fputs(" (the postmaster's start-up before "
		      "shared_preload_libraries, which an outside loader "
		      "filters and the module does not: collect a round under "
		      "pgsc-exec --default log to see your server's own; "
		      "docs/check-world.md)\n", out);
	}
	if (L->resume.n > 0)
		fprintf(out, "%sadded to the global list: %s (the kernel's "
			"resumption of a sleep a signal interrupted: timing, "
			"not the workload; the module's filters allow it "
			"whatever the list; docs/module.md)\n", lead,
			filter_resume_call);
}
