/* SPDX-License-Identifier: PostgreSQL */
/* report_spo.c - the global list as a SeccompProfile of the Kubernetes
 * Security Profiles Operator (security-profiles-operator.x-k8s.io/v1beta1),
 * in YAML. */
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
 */

#include "report-int.h"
#include "syscalls.h"

int
report_spo(const struct rep_out *w)
{
	FILE *out = w->out;
	struct lists *L = w->L;
	enum pgsc_action def = w->def;
	uint32_t arches[FILTER_ARCH_MAX];
	int na = report_filter_begin(w, arches);

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
	fprintf(out, "apiVersion: security-profiles-operator.x-k8s.io/v1beta1\n"
		"kind: SeccompProfile\n"
		"metadata:\n"
		"  name: pgsc-postgresql\n"
		"spec:\n"
		"  defaultAction: %s\n"
		"  architectures:\n",
		def == PGSC_ACT_LOG ? "SCMP_ACT_LOG" :
		def == PGSC_ACT_KILL ? "SCMP_ACT_KILL_PROCESS" :
		"SCMP_ACT_ERRNO");
	for (int i = 0; i < na; i++) {
		const char *n = syscall_portable_oci_arch(arches[i]);

		if (n != NULL)
			fprintf(out, "  - %s\n", n);
	}
	fputs("  syscalls:\n  - action: SCMP_ACT_ALLOW\n    names:\n", out);
	for (size_t i = 0; i < L->l[0].n; i++)
		if (pgsc_guc_name_ok(L->l[0].v[i]))
			fprintf(out, "    - %s\n", L->l[0].v[i]);
	return 0;
}
