/* SPDX-License-Identifier: PostgreSQL */
/* report_filter.c - the lists as filters for other loaders: a systemd
 * drop-in (SystemCallFilter=), an OCI runtime's seccomp profile, and the
 * effective rows of the module's precedence (--format=effective). */
/*
 * Every name printed comes from libseccomp for the record's own arch and
 * is checked against [a-z0-9_]+ before it reaches a filter.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report-int.h"
#include "syscalls.h"

/*
 * The arches a filter must cover: the target of --arch; else the native
 * arch and every arch the global list was recorded on (a filter without
 * i386 kills a 32-bit descendant with SIGSYS).
 */
static int
filter_arches(const struct rep *r, const struct lists *L, uint32_t *v,
	      size_t cap)
{
	size_t n = 0;

	if (L->target != 0) {
		v[n++] = L->target;
		return (int)n;
	}
	v[n++] = pgsc_native_arch();
	for (size_t i = 0; i < r->n && n < cap; i++) {
		size_t k;

		if (!r->e[i].global || r->e[i].name == NULL)
			continue;
		for (k = 0; k < n && v[k] != r->e[i].arch; k++)
			;
		if (k == n)
			v[n++] = r->e[i].arch;
	}
	return (int)n;
}

/* The architectures of a filter of the global list, or -ENODATA. */
int
report_filter_setup(const struct rep *r, const struct lists *L,
		    uint32_t arches[FILTER_ARCH_MAX], char **cause)
{
	if (L->l[0].n > 0)
		return filter_arches(r, L, arches, FILTER_ARCH_MAX);
	util_cause(cause, "the global list is empty: a filter built from it "
		   "would allow nothing (collect a round first)");
	return -ENODATA;
}

/*
 * The known max that goes with the lists: the highest number
 * this libseccomp names on each arch of the filter (filter_arches()) and
 * on the compat arch of each, which the module's filters also hold, as
 * pgsc.syscall_known_max takes it: "x86_64:456,i386:456".  Calls above
 * it are newer than the lists and get ENOSYS, so libc falls back.
 */
static void
known_max_text(const struct rep *r, const struct lists *L, char *buf,
	       size_t size, int json)
{
	uint32_t arches[FILTER_ARCH_MAX];
	int na = filter_arches(r, L, arches, FILTER_ARCH_MAX);

	if (syscall_known_max_list(buf, size, arches, (size_t)na,
				     json) < 0 && size > 0)
		buf[0] = '\0';
}

/*
 * The known max as a GUC line after the lists: a setting with the
 * module's prefix "pgsc.", else a comment (the RFC patch and pgseccomp
 * have no such setting, and an unknown one in a custom class stops the
 * server: docs/module.md).
 */
void
report_known_max_guc(FILE *out, const struct rep *r, const struct lists *L,
		     const char *prefix)
{
	char buf[512];

	known_max_text(r, L, buf, sizeof(buf), 0);
	if (strcasecmp(prefix, "pgsc.") == 0)
		fprintf(out, "%ssyscall_known_max = '%s'\n", prefix, buf);
	else
		fprintf(out, "# pgsc.syscall_known_max = '%s' (the highest "
			"syscall numbers the lists knew; a setting of the pgsc "
			"module only)\n", buf);
}

/* The same as a JSON member: ,"known_max": {"x86_64": 456, ...}. */
void
report_known_max_json(FILE *out, const struct rep *r, const struct lists *L)
{
	char buf[512];

	known_max_text(r, L, buf, sizeof(buf), 1);
	fprintf(out, ",\n  \"known_max\": {%s}", buf);
}

/*
 * The start of a filter file of the global list (systemd, spo): its
 * arches into @arches, the start-up calls (and with @resume
 * restart_syscall) added to the list, then the
 * header, the --arch/--portable comment and the start-up note as "# "
 * lines.  Returns the number of arches, or a negative errno.
 */
int
report_filter_begin(const struct rep_out *w, uint32_t arches[FILTER_ARCH_MAX],
		    int resume)
{
	int na = report_filter_setup(w->r, w->L, arches, w->r->cause);

	if (na < 0)
		return na;
	if (report_needs_startup(w->L, resume) < 0)
		return -ENOMEM;
	report_header_line(w->out, w->r);
	report_lists_comment(w->out, w->L);
	report_needs_startup_note(w->out, w->L, "# ");
	return na;
}

/*
 * A systemd unit drop-in.  systemd loads one filter, before it execs the
 * service's main process, and every process of the service inherits it:
 * exactly the global filter (docs/design.md §1).  The session list has no
 * systemd counterpart (backends load it after authentication), so it is
 * not emitted.  The programs that start the server run under it too, and
 * pgsc counts their records as unrelated: Debian's pg_ctlcluster, run as
 * root, switches users with five @setuid calls no list holds, so the
 * comment asks for User= and Group= (measured in a booted Debian 12 root,
 * tests/report/systemd-boot.sh, docs/systemd.md §3).  systemd 252 (Debian 12): SystemCallErrorNumber= takes an
 * errno or "kill", not "log"; logging everything not listed is
 * SystemCallLog=~LIST, which filters nothing.
 *
 * Calls newer than the lists: systemd 252 answers
 * SystemCallErrorNumber= to every call not listed, unknown ones
 * included.  systemd 255 and later make ENOSYS their filter's default
 * and give SystemCallErrorNumber= only to the calls of their @known set
 * (systemd PR #30291, Dec 2023: seccomp_load_syscall_filter_set_raw()),
 * so the same drop-in falls back there.  It is not expressed for 252:
 * SystemCallErrorNumber=ENOSYS with "~NAME:EPERM" for every known call
 * not listed would also refuse systemd's own @default set (allowed
 * whether listed or not, and different in each systemd version), and
 * no systemd PID 1 here can test it.  docs/module.md.
 */
int
report_systemd(const struct rep_out *w)
{
	FILE *out = w->out;
	struct lists *L = w->L;
	enum pgsc_action def = w->def;
	uint32_t arches[FILTER_ARCH_MAX];
	/* no restart_syscall: systemd adds @default to every allow list */
	int na = report_filter_begin(w, arches, 0);

	if (na < 0)
		return na;
	fprintf(out, "# A drop-in for the server's unit, e.g.\n"
		"#   /etc/systemd/system/postgresql@15-main.service.d/"
		"pgsc.conf (Debian)\n"
		"#   /etc/systemd/system/postgresql-15.service.d/pgsc.conf "
		"(PGDG on RHEL)\n"
		"# It holds the global list: systemd loads one filter for "
		"the whole service.\n"
		"# pg_ctlcluster and pg_ctl run under it too: Debian's "
		"postgresql@.service\n"
		"# starts pg_ctlcluster as root, whose switch to the "
		"cluster's owner it\n"
		"# refuses (\"Could not change user id\"); add User=postgres "
		"and\n"
		"# Group=postgres in a second drop-in (docs/systemd.md).\n"
		"# systemd also allows execve, exit, exit_group, getrlimit, "
		"rt_sigreturn,\n"
		"# sigreturn and the calls that read the time or sleep, "
		"listed or not.\n"
		"# Calls newer than the lists: systemd 255 and later answer "
		"ENOSYS to those\n"
		"# outside their @known set; systemd 252 (Debian 12) answers "
		"them with\n"
		"# SystemCallErrorNumber= like any call not listed "
		"(pgsc-report(1)).\n"
		"[Service]\n");
	fputs("SystemCallArchitectures=", out);
	for (int i = 0; i < na; i++) {
		const char *n = arches[i] == pgsc_native_arch() ? "native"
				: syscall_portable_systemd_arch(arches[i]);

		fprintf(out, "%s%s", i ? " " : "", n ? n : "native");
	}
	fputc('\n', out);
	if (def == PGSC_ACT_LOG) {
		fputs("# default log: every call not listed is logged, none "
		      "is refused\nSystemCallLog=~", out);
		report_print_joined(out, &L->l[0], " ");
		fputc('\n', out);
	} else {
		fputs("SystemCallFilter=", out);
		report_print_joined(out, &L->l[0], " ");
		fprintf(out, "\nSystemCallErrorNumber=%s\n",
			def == PGSC_ACT_KILL ? "kill" : "EPERM");
	}
	if (w->A != NULL)
		report_args_systemd(out, w->A, &L->l[0], def == PGSC_ACT_LOG);
	return 0;
}

/*
 * The names of every call libseccomp knows on the @na arches @arches
 * that the global list does not allow, in @out: with ENOSYS as the
 * profile's default, these keep the refusing action.  A number above
 * the known max has no name, so it gets the default, ENOSYS.
 */
static int
known_not_allowed(const struct lists *L, const uint32_t *arches, int na,
		  struct strset *out)
{
	for (int i = 0; i < na; i++) {
		int max = syscall_known_max(arches[i]);

		if (syscall_portable_oci_arch(arches[i]) == NULL)
			continue;
		for (int nr = 0; nr <= max; nr++) {
			/* a malloc'd copy (libseccomp 2.5) */
			char *name = seccomp_syscall_resolve_num_arch(arches[i],
								      nr);
			int rc = 0;

			if (name != NULL && pgsc_guc_name_ok(name) &&
			    !strset_has(&L->l[0], name))
				rc = strset_add(out, name);
			free(name);
			if (rc < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* One rule of a profile: "names" (6 a line), "action", "errnoRet". */
static void
oci_rule(FILE *out, const struct strset *names, const char *action,
	 int errno_ret, int last)
{
	fputs("    {\n      \"names\": [", out);
	for (size_t i = 0; i < names->n; i++) {
		fputs(i == 0 ? "\n        " : (i % 6 == 0 ? ",\n        "
						  : ", "), out);
		report_json_str(out, names->v[i]);
	}
	fprintf(out, "\n      ],\n      \"action\": \"%s\"", action);
	if (errno_ret >= 0)
		fprintf(out, ",\n      \"errnoRet\": %d", errno_ret);
	fprintf(out, "\n    }%s\n", last ? "" : ",");
}

/*
 * An OCI runtime seccomp profile (opencontainers/runtime-spec,
 * config-linux.md "Seccomp"; runc, crun, podman and docker read it).
 * The whole container runs under it, so it holds the global list.
 * No "flags": runc 1.1.5 (Debian 12) refuses the whole profile when it
 * has any ("seccomp flags are not yet supported by runc"), so
 * SECCOMP_FILTER_FLAG_LOG cannot make the kernel audit the errors as
 * the module's filters do; a collection round uses --default=log.
 *
 * With @enosys (--unknown-syscall-action enosys, the default) and a
 * refusing default, the profile answers as the module does: a profile
 * names calls, never numbers, so the default becomes ERRNO(ENOSYS)
 * ("defaultErrnoRet": 38) for the calls newer than the lists, and one
 * rule gives every call libseccomp knows on the profile's arches that
 * is not allowed the refusing action (EPERM, or kill).  The runtime
 * resolves the names with its own libseccomp: a name it does not know
 * is skipped (runc logs it) and that call gets ENOSYS too.  moby's
 * default profile does the converse for clone3 alone (ERRNO(ENOSYS) by
 * name, EPERM by default).  runc 1.0 and later patch their filter to
 * answer ENOSYS above the highest call a profile names whatever its
 * default (libcontainer/seccomp/patchbpf), unless the default is
 * already ENOSYS.  pgsc-report(1), "oci".
 */
int
report_oci(const struct rep_out *w)
{
	FILE *out = w->out;
	struct lists *L = w->L;
	enum pgsc_action def = w->def;
	int enosys = !w->o->unknown_default;
	uint32_t arches[FILTER_ARCH_MAX];
	struct strset deny = { 0 };
	int na = report_filter_setup(w->r, L, arches, w->r->cause);

	if (na < 0)
		return na;
	if (report_needs_startup(L, 1) < 0)
		return -ENOMEM;
	enosys = enosys && def != PGSC_ACT_LOG;
	if (enosys && known_not_allowed(L, arches, na, &deny) < 0) {
		strset_free(&deny);
		return -ENOMEM;
	}
	fprintf(out, "{\n  \"defaultAction\": \"%s\",\n",
		def == PGSC_ACT_LOG ? "SCMP_ACT_LOG" :
		def == PGSC_ACT_KILL && !enosys ? "SCMP_ACT_KILL_PROCESS" :
		"SCMP_ACT_ERRNO");
	if (enosys)
		fprintf(out, "  \"defaultErrnoRet\": %d,\n", ENOSYS);
	else if (def == PGSC_ACT_ERROR)
		fprintf(out, "  \"defaultErrnoRet\": %d,\n", EPERM);
	fputs("  \"architectures\": [", out);
	for (int i = 0, first = 1; i < na; i++) {
		const char *n = syscall_portable_oci_arch(arches[i]);

		if (n == NULL)
			continue;
		fprintf(out, "%s\"%s\"", first ? "" : ", ", n);
		first = 0;
	}
	fputs("],\n  \"syscalls\": [\n", out);
	if (w->A == NULL) {
		oci_rule(out, &L->l[0], "SCMP_ACT_ALLOW", -1, deny.n == 0);
	} else {
		/* a call outside its rules gets the default (ENOSYS with
		 * enosys): not in the EPERM rule, whose names take no
		 * conditional rule beside it */
		struct strset plain = { 0 };

		if (report_args_plain(w->A, 0, &L->l[0], &plain) < 0) {
			strset_free(&plain);
			strset_free(&deny);
			return -ENOMEM;
		}
		oci_rule(out, &plain, "SCMP_ACT_ALLOW", -1,
			 deny.n == 0 && plain.n == L->l[0].n);
		report_args_oci(out, w->A, &L->l[0], deny.n == 0);
		strset_free(&plain);
	}
	if (deny.n > 0)
		oci_rule(out, &deny, def == PGSC_ACT_KILL ?
			 "SCMP_ACT_KILL_PROCESS" : "SCMP_ACT_ERRNO",
			 def == PGSC_ACT_KILL ? -1 : EPERM, 1);
	fputs("  ]\n}\n", out);
	strset_free(&deny);
	return 0;
}

/*
 * The effective filters, one row per (syscall, context), like the RFC's
 * pg_get_seccomp_filter() and the module's pgsc_filter(), with the
 * default first as "<default>": computed by filter_effective.c, the code the
 * module runs, so both agree.  The lists are allow lists; every other
 * call gets the default.  Each context is shown alone, as pgsc_filter()
 * shows it; a backend runs under both, the strictest action winning.
 */
int
report_effective(const struct rep_out *w)
{
	FILE *out = w->out;
	const struct lists *L = w->L;
	char **cause = w->r->cause;
	uint32_t arch = L->target ? L->target : pgsc_native_arch();
	pgsc_effective *eff[2] = { NULL, NULL };
	char *joined[2] = { NULL, NULL };
	int rc = 0;

	for (int k = 0; k < 2; k++) {
		struct pgsc_filter_spec spec;
		struct strbuf sb = { 0 };

		for (size_t i = 0; i < L->l[k].n; i++) {
			if (i)
				strbuf_addstr(&sb, ",");
			strbuf_addstr(&sb, L->l[k].v[i]);
		}
		if (sb.oom) {
			strbuf_free(&sb);
			rc = -ENOMEM;
			goto out;
		}
		joined[k] = sb.buf;
		memset(&spec, 0, sizeof(spec));
		spec.def = w->def;
		spec.list[PGSC_ACT_ALLOW] = joined[k] ? joined[k] : "";
		rc = pgsc_effective_new(&spec, arch, &eff[k], cause);
		if (rc < 0)
			goto out;
	}
	report_header_line(out, w->r);
	if (w->o->no_programs)
		report_programs_comment(out, w->r);
	report_lists_comment(out, L);
	for (int k = 0; k < 2; k++) {
		const struct pgsc_effective_entry *v;
		size_t n = pgsc_effective_entries(eff[k], &v);

		fprintf(out, "# %s: default %s on %s, %zu listed\n",
			k ? "session" : "global",
			pgsc_action_name(pgsc_effective_default(eff[k])),
			pgsc_arch_name(arch), n);
	}
	fprintf(out, "%-24s %7s  %-6s %s\n", "syscall", "nr", "action",
		"context");
	for (int k = 0; k < 2; k++) {
		const struct pgsc_effective_entry *v;
		size_t n = pgsc_effective_entries(eff[k], &v);

		/* as pgsc_filter() does: the default first */
		fprintf(out, "%-24s %7s  %-6s %s\n", "<default>", "-",
			pgsc_action_name(pgsc_effective_default(eff[k])),
			k ? "session" : "global");
		for (size_t i = 0; i < n; i++) {
			fprintf(out, "%-24s ", v[i].name);
			fprintf(out, "%7d  %-6s %s\n", v[i].nr,
				pgsc_action_name(v[i].action),
				k ? "session" : "global");
		}
	}
out:
	for (int k = 0; k < 2; k++) {
		pgsc_effective_free(eff[k]);
		free(joined[k]);
	}
	return rc;
}
