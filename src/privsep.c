/* SPDX-License-Identifier: PostgreSQL */
/* privsep.c - least privilege for pgsc-collect: drop root, the self-filter. */
/*
 * pgsc-collect reads text that unprivileged processes choose (comm, exe,
 * process titles: docs/security.md).  In the daemon modes it needs root
 * only to open its source and its store; afterwards it can run as a
 * dedicated user with at most three capabilities, and confined by its own
 * seccomp filter, whose allow list pgsc derived from pgsc
 * (tools/pgsc-selflist).
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <cap-ng.h>
#include <linux/capability.h>

#include "pgsc-int.h"

static const struct {
	unsigned flag;
	unsigned cap;
	const char *name;
} priv_caps[] = {
	{ PGSC_CAP_AUDIT_CONTROL, CAP_AUDIT_CONTROL, "cap_audit_control" },
	{ PGSC_CAP_AUDIT_WRITE, CAP_AUDIT_WRITE, "cap_audit_write" },
	{ PGSC_CAP_DAC_READ_SEARCH, CAP_DAC_READ_SEARCH, "cap_dac_read_search" },
};

void
pgsc_caps_print(FILE *out, unsigned caps)
{
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(priv_caps); i++) {
		if (!(caps & priv_caps[i].flag))
			continue;
		fprintf(out, "%s%s", n++ ? "," : "", priv_caps[i].name);
	}
	if (n == 0)
		fputs("none", out);
}

/* Can the real uid read @path and search its directory, by permissions
 * alone?  access() checks with the real ids and, for a uid other than 0,
 * with no capabilities: exactly the question after setresuid(). */
static int
readable_without_caps(const char *path)
{
	char *dir, *slash;
	int ok;

	if (access(path, R_OK) < 0)
		return 0;
	dir = strdup(path);
	if (dir == NULL)
		return 0;
	slash = strrchr(dir, '/');
	if (slash == NULL) {
		free(dir);
		return 1; /* the working directory: already inside it */
	}
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	ok = access(dir, X_OK) == 0;
	free(dir);
	return ok;
}

static int
apply_caps(unsigned keep, char **cause)
{
	capng_clear(CAPNG_SELECT_CAPS);
	for (size_t i = 0; i < ARRAY_SIZE(priv_caps); i++) {
		if (!(keep & priv_caps[i].flag))
			continue;
		if (capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED,
				 priv_caps[i].cap) < 0) {
			util_cause(cause, "cannot keep %s", priv_caps[i].name);
			return -EPERM;
		}
	}
	return 0;
}

int
pgsc_priv_drop(const char *user, unsigned keep, const char *readable,
	       unsigned *kept, char **cause)
{
	struct passwd *pw;
	uid_t ruid, euid, suid;
	gid_t rgid, egid, sgid;
	int rc;

	*kept = 0;
	errno = 0;
	pw = getpwnam(user);
	if (pw == NULL) {
		util_cause(cause, "--user: no user \"%s\"%s%s", user,
			   errno ? ": " : "", errno ? strerror(errno) : "");
		return errno ? -errno : -ENOENT;
	}
	if (pw->pw_uid == 0) {
		util_cause(cause, "--user %s is root: nothing to drop", user);
		return -EINVAL;
	}
	if (geteuid() != 0) {
		util_cause(cause, "--user needs root (we are uid %u)",
			   (unsigned)geteuid());
		return -EPERM;
	}
	/* The file source reopens its log by name at every rotation: keep
	 * the right to read it until we know the user has it anyway. */
	if (readable != NULL)
		keep |= PGSC_CAP_DAC_READ_SEARCH;
	rc = apply_caps(keep, cause);
	if (rc < 0)
		return rc;
	/* uid, gid and the user's groups (auditd's log_group may be one of
	 * them); an empty bounding set and no ambient capabilities, so no
	 * program we could ever execute gets anything back. */
	rc = capng_change_id((int)pw->pw_uid, (int)pw->pw_gid,
			     CAPNG_INIT_SUPP_GRP | CAPNG_CLEAR_BOUNDING |
				     CAPNG_CLEAR_AMBIENT);
	if (rc < 0) {
		util_cause(cause, "cannot become %s (libcap-ng error %d)", user,
			   rc);
		return -EPERM;
	}
	if (getresuid(&ruid, &euid, &suid) < 0 ||
	    getresgid(&rgid, &egid, &sgid) < 0 || ruid != pw->pw_uid ||
	    euid != pw->pw_uid || suid != pw->pw_uid || rgid != pw->pw_gid ||
	    egid != pw->pw_gid || sgid != pw->pw_gid) {
		util_cause(cause, "the switch to %s did not take", user);
		return -EPERM;
	}
	if (readable != NULL && readable_without_caps(readable)) {
		keep &= ~(unsigned)PGSC_CAP_DAC_READ_SEARCH;
		rc = apply_caps(keep, cause);
		if (rc == 0 && capng_apply(CAPNG_SELECT_CAPS) < 0) {
			util_cause(cause, "cannot drop cap_dac_read_search");
			rc = -EPERM;
		}
		if (rc < 0)
			return rc;
	}
	/* What the kernel says we have now must be what we asked for. */
	if (capng_get_caps_process() < 0) {
		util_cause(cause, "cannot read our capabilities back");
		return -EPERM;
	}
	for (int c = 0; c <= CAP_LAST_CAP; c++) {
		int want = 0;

		for (size_t i = 0; i < ARRAY_SIZE(priv_caps); i++)
			if ((keep & priv_caps[i].flag) &&
			    priv_caps[i].cap == (unsigned)c)
				want = 1;
		if (capng_have_capability(CAPNG_PERMITTED, (unsigned)c) != want ||
		    capng_have_capability(CAPNG_EFFECTIVE, (unsigned)c) != want) {
			util_cause(cause, "capability %d is %s after the drop",
				   c, want ? "missing" : "still there");
			return -EPERM;
		}
	}
	*kept = keep;
	return 0;
}

int
pgsc_self_filter_load(const char *path, enum pgsc_action def, char **cause)
{
	char *list = NULL;
	int rc;

	rc = pgsc_guc_file_list(path, "global", &list, cause);
	if (rc < 0)
		return rc;
	rc = pgsc_filter_load(def, list, cause);
	free(list);
	return rc;
}
