/* SPDX-License-Identifier: PostgreSQL */
/* report_spo.c - the global list as a SeccompProfile of the Kubernetes
 * Security Profiles Operator (security-profiles-operator.x-k8s.io/v1beta1),
 * in YAML; with --base runtime-default, as a delta stacked on containerd's
 * default profile (src/containerd_default.def). */
/*
 * The CRD's spec is the OCI profile's (report_oci()) less one field:
 * it has no defaultErrnoRet.  Pasting pgsc's OCI JSON into spec: would
 * lose the ENOSYS default without a word, so this writer says so and
 * chooses the refusing action explicitly: defaultAction SCMP_ACT_ERRNO,
 * which the runtime answers with EPERM.  A call newer than the lists
 * (one a newer glibc in the image makes, such as clone3 before glibc
 * 2.34's fallback to clone) then gets EPERM, and glibc does not fall
 * back as it would on ENOSYS: record the lists with the image's glibc.
 * No rule names errnoRet either: its type changed from a number to a
 * string between releases of the CRD, and a profile with neither loads
 * on both.  Only names of [a-z0-9_]+ are written (the lists' names come
 * from libseccomp), so none needs YAML quoting.  pgsc-report(1), "spo"; docs/kubernetes.md.
 *
 * --base runtime-default.  The operator's baseProfileName names another
 * SeccompProfile of the same namespace (or an oci:// artifact), whose
 * syscalls it unites with this profile's, keeping this profile's
 * defaultAction and architectures (security-profiles-operator,
 * internal/pkg/daemon/seccompprofile: resolveSyscallsForProfile()).  No
 * name stands for "the runtime's default", so the base is written too, as
 * a first document: containerd's default as data, the names it allows
 * whatever the arguments.  The names it allows for some arguments only
 * (clone without CLONE_NEW*, personality) are left out of it, so that
 * the union never allows more than containerd's default and the list
 * together; the list names them itself when it needs them.
 */

#include <errno.h>
#include <seccomp.h>

#include "report-int.h"
#include "syscalls.h"

/* containerd's release and the data's source */
static const char *const cd_about[] = {
#define CONTAINERD_DEFAULT(version, source) version, source,
#define CONTAINERD_ALLOW(name)
#define CONTAINERD_ALLOW_IF(name)
#include "containerd_default.def"
#undef CONTAINERD_ALLOW_IF
#undef CONTAINERD_ALLOW
#undef CONTAINERD_DEFAULT
};

static const struct cd_name {
	const char *name;
	int plain;              /* allowed whatever the arguments */
} cd_names[] = {
#define CONTAINERD_DEFAULT(version, source)
#define CONTAINERD_ALLOW(name) { name, 1 },
#define CONTAINERD_ALLOW_IF(name) { name, 0 },
#include "containerd_default.def"
#undef CONTAINERD_ALLOW_IF
#undef CONTAINERD_ALLOW
#undef CONTAINERD_DEFAULT
};

/*
 * --base with the rest of the options: the spo format only, and names
 * of x86_64, the arch the default is kept for.  0 or -EINVAL.
 */
int
report_spo_options(const struct pgsc_report_opts *o, char **cause)
{
	if (o->base != PGSC_BASE_RUNTIME_DEFAULT) {
		util_cause(cause, "unknown base %d", o->base);
		return -EINVAL;
	}
	if (o->format != PGSC_FMT_SPO) {
		util_cause(cause, "--base applies to the spo format: only the "
			   "operator's SeccompProfile stacks on a base");
		return -EINVAL;
	}
	if (o->arch != 0 && o->arch != SCMP_ARCH_X86_64) {
		util_cause(cause, "--base runtime-default: containerd %s's "
			   "default is kept as x86_64 names "
			   "(src/containerd_default.def), not %s ones",
			   cd_about[0], pgsc_arch_name(o->arch) ?
			   pgsc_arch_name(o->arch) : "other");
		return -EINVAL;
	}
	return 0;
}

/* One SeccompProfile document: @base its baseProfileName or NULL, the
 * @na arches, one allow rule of @names (none when it is empty). */
static void
spo_doc(FILE *out, const char *name, const char *base, const char *action,
	const uint32_t *arches, int na, const struct strset *names)
{
	fprintf(out, "apiVersion: security-profiles-operator.x-k8s.io/v1beta1\n"
		"kind: SeccompProfile\n"
		"metadata:\n"
		"  name: %s\n"
		"spec:\n", name);
	if (base != NULL)
		fprintf(out, "  baseProfileName: %s\n", base);
	fprintf(out, "  defaultAction: %s\n  architectures:\n", action);
	for (int i = 0; i < na; i++) {
		const char *n = syscall_portable_oci_arch(arches[i]);

		if (n != NULL)
			fprintf(out, "  - %s\n", n);
	}
	/* the CRD wants one name at least in a rule */
	if (names->n == 0)
		return;
	fputs("  syscalls:\n  - action: SCMP_ACT_ALLOW\n    names:\n", out);
	for (size_t i = 0; i < names->n; i++)
		if (pgsc_guc_name_ok(names->v[i]))
			fprintf(out, "    - %s\n", names->v[i]);
}

/*
 * containerd's default as a profile of its own, then the global list less
 * it, stacked on it.  @list is the global list, @action the default.
 */
static int
spo_base(FILE *out, const struct strset *list, const char *action,
	 const uint32_t *arches, int na)
{
	struct strset base = { 0 }, delta = { 0 };
	uint32_t x86_64 = SCMP_ARCH_X86_64;
	size_t extra = 0;
	char name[64];
	int rc = 0;

	for (size_t i = 0; i < ARRAY_SIZE(cd_names) && rc >= 0; i++)
		if (cd_names[i].plain) {
			rc = strset_add(&base, cd_names[i].name);
			extra += rc >= 0 && !strset_has(list, cd_names[i].name);
		}
	for (size_t i = 0; i < list->n && rc >= 0; i++)
		if (!strset_has(&base, list->v[i]))
			rc = strset_add(&delta, list->v[i]);
	if (rc < 0) {
		rc = -ENOMEM;
		goto out;
	}
	snprintf(name, sizeof(name), "containerd-default-%s", cd_about[0]);
	fprintf(out, "# --base runtime-default: two profiles; apply both in "
		"the same namespace.\n"
		"# %s: containerd %s's default profile (a pod's "
		"RuntimeDefault) as the %zu\n"
		"# x86_64 names it allows whatever the arguments, from "
		"src/containerd_default.def:\n"
		"#   %s\n"
		"# Left out of it, as containerd allows them for some "
		"arguments only:", name, cd_about[0], base.n, cd_about[1]);
	for (size_t i = 0; i < ARRAY_SIZE(cd_names); i++)
		if (!cd_names[i].plain)
			fprintf(out, " %s", cd_names[i].name);
	fprintf(out, ".\n"
		"# pgsc-postgresql: baseProfileName %s, and the %zu names of "
		"the global list (%zu)\n"
		"# that the base lacks.  The operator installs their union, "
		"which is wider than the\n"
		"# global list alone: the base adds %zu names the list does "
		"not need (the union is\n"
		"# never more than containerd's default and the list "
		"together: pgsc-report(1)).\n",
		name, delta.n, list->n, extra);
	spo_doc(out, name, NULL, "SCMP_ACT_ERRNO", &x86_64, 1, &base);
	fputs("---\n", out);
	spo_doc(out, "pgsc-postgresql", name, action, arches, na, &delta);
out:
	strset_free(&base);
	strset_free(&delta);
	return rc;
}

int
report_spo(const struct rep_out *w)
{
	FILE *out = w->out;
	struct lists *L = w->L;
	enum pgsc_action def = w->def;
	const char *action = def == PGSC_ACT_LOG ? "SCMP_ACT_LOG" :
		def == PGSC_ACT_KILL ? "SCMP_ACT_KILL_PROCESS" :
		"SCMP_ACT_ERRNO";
	uint32_t arches[FILTER_ARCH_MAX];
	int na = report_filter_begin(w, arches, 1);

	if (na < 0)
		return na;
	fputs("# A SeccompProfile of the Security Profiles Operator: kubectl "
	      "apply -n NAMESPACE -f FILE,\n"
	      "# then the pod's securityContext.seccompProfile: type: "
	      "Localhost, localhostProfile:\n"
	      "# operator/NAMESPACE/pgsc-postgresql.json "
	      "(docs/kubernetes.md).  It holds the global list:\n"
	      "# the runtime loads one filter for the whole container.\n", out);
	if (def != PGSC_ACT_LOG)
		fputs("# The CRD has no defaultErrnoRet: every call not listed, "
		      "newer ones included, gets\n"
		      "# EPERM (the ENOSYS of pgsc's oci format cannot be "
		      "said here), so glibc's fallbacks\n"
		      "# on ENOSYS do not run: record the lists with the "
		      "image's glibc (pgsc-report(1)).\n", out);
	if (w->o->base == PGSC_BASE_RUNTIME_DEFAULT)
		return spo_base(out, &L->l[0], action, arches, na);
	spo_doc(out, "pgsc-postgresql", NULL, action, arches, na, &L->l[0]);
	return 0;
}
