/* SPDX-License-Identifier: PostgreSQL */
/* filter_exec.c - the filter of pgsc-exec: build and load it, check that
 * the command can run under it, read its lists from GUC files. */
#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "filter.h"
#include "gucfile.h"
#include "syscalls.h"

int
pgsc_action_parse(const char *s)
{
	if (s == NULL)
		return -EINVAL;
	if (strcmp(s, "allow") == 0)
		return PGSC_ACT_ALLOW;
	if (strcmp(s, "log") == 0)
		return PGSC_ACT_LOG;
	if (strcmp(s, "error") == 0)
		return PGSC_ACT_ERROR;
	if (strcmp(s, "kill") == 0)
		return PGSC_ACT_KILL;
	return -EINVAL;
}

/* Does @allow (names separated by commas and blanks) name @name? */
static int
list_has(const char *allow, const char *name)
{
	size_t n = strlen(name), len;
	const char *p = allow, *t;

	if (p == NULL)
		return 0;
	while ((t = syscall_lists_next(&p, LISTS_SEP_BLANKS, LISTS_SPLIT_BLANKS,
			       &len)) != NULL)
		if (syscall_lists_name(t, len) == n && strncmp(t, name, n) == 0)
			return 1;
	return 0;
}

int
pgsc_filter_exec_check(enum pgsc_action def, const char *allow,
		       struct pgsc_exec_plan *plan, char **cause)
{
	int has_exec, has_exit;

	memset(plan, 0, sizeof(*plan));
	plan->can_write = 1;
	/* log and allow let every call through */
	if (def != PGSC_ACT_ERROR && def != PGSC_ACT_KILL)
		return 0;
	/* under kill a refused write(2) of the failed exec's message would
	 * kill pgsc-exec: it writes nothing then */
	plan->can_write = def != PGSC_ACT_KILL || list_has(allow, "write");
	has_exec = list_has(allow, "execve");
	if (!has_exec && list_has(allow, "execveat")) {
		has_exec = 1;
		plan->use_execveat = 1;
	}
	/* exit_group, or under error exit alone: pgsc-exec calls it itself
	 * (glibc's _exit tries exit_group first, which kill would punish,
	 * and a sanitizer's _exit loops on a refused exit_group) */
	has_exit = list_has(allow, "exit_group");
	if (!has_exit && def == PGSC_ACT_ERROR && list_has(allow, "exit")) {
		has_exit = 1;
		plan->use_exit = 1;
	}
	if (has_exec && has_exit)
		return 0;
	util_cause(cause, "under --default %s the allow list must let "
		   "pgsc-exec start the command and exit if it cannot: it "
		   "lacks %s%s%s; add %s to the list",
		   pgsc_action_name(def),
		   has_exec ? "" : "execve (or execveat)",
		   !has_exec && !has_exit ? " and " : "",
		   has_exit ? "" : def == PGSC_ACT_KILL ? "exit_group"
		   : "exit_group (or exit)",
		   !has_exec && !has_exit ? "execve,exit_group"
		   : !has_exec ? "execve" : "exit_group");
	return -EPERM;
}

/* Fold rule @i of @r into an earlier rule of the same number, as the
 * effective filter does (argrule_fold()): @i then gets the default
 * action @def, which filter_build_load() leaves out. */
static void
fold_rule(struct filter_rule *r, size_t i, struct argrule *args, uint32_t def)
{
	for (size_t j = 0; j < i; j++) {
		if (r[j].nr != r[i].nr || r[j].action == def)
			continue;
		if (r[j].args != NULL && !argrule_fold(&args[j], r[i].args))
			r[j].args = NULL;
		r[i].action = def;
		return;
	}
}

/* The rules of allow list @list (entries separated by commas and blanks,
 * cut in place), in *out, their argument rules in *@args; an entry
 * repeated with other rules is folded into its first (fold_rule()). */
static int
allow_rules(char *list, uint32_t def, struct filter_rule **out,
	    struct argrule **args, size_t *n, char **cause)
{
	const char *p, *t;
	size_t len, cap = 0;

	*out = NULL;
	*args = NULL;
	*n = 0;
	for (p = list; syscall_lists_next(&p, LISTS_SEP_BLANKS, LISTS_SPLIT_BLANKS,
				  &len) != NULL;)
		cap++;
	if (cap == 0)
		return 0;
	*out = calloc(cap, sizeof(**out));
	*args = calloc(cap, sizeof(**args));
	if (*out == NULL || *args == NULL)
		return -ENOMEM;
	for (p = list; (t = syscall_lists_next(&p, LISTS_SEP_BLANKS,
				     LISTS_SPLIT_BLANKS, &len)) != NULL;) {
		struct filter_rule *r = &(*out)[*n];
		int has = argrule_parse(t, len, &(*args)[*n], cause);

		if (has < 0)
			return has;
		list[t - list + (ptrdiff_t)syscall_lists_name(t, len)] = '\0';
		r->name = t;
		r->action = SCMP_ACT_ALLOW;
		r->args = has ? &(*args)[*n] : NULL;
		r->nr = seccomp_syscall_resolve_name(t);
		if (r->nr == __NR_SCMP_ERROR) {
			util_cause(cause, "unknown syscall name \"%s\"", t);
			return -EINVAL;
		}
		fold_rule(*out, (*n)++, *args, def);
	}
	return 0;
}

int
pgsc_filter_load(enum pgsc_action def, const char *allow, char **cause)
{
	return filter_load_unknown(def, allow, NULL, cause);
}

/**
 * pgsc_filter_load() with the unknown part @u (filter_build_load()): numbers
 * above the known max fail with ENOSYS under error and kill.
 */
int
filter_load_unknown(enum pgsc_action def, const char *allow,
		    const struct filter_unknown *u, char **cause)
{
	struct filter_rule *rules = NULL;
	struct argrule *args = NULL;
	enum filter_step step;
	char *list = NULL;
	size_t n = 0, bad = 0;
	int rc = 0;

	if (allow != NULL && def != PGSC_ACT_ALLOW) {
		list = strdup(allow);
		rc = list == NULL ? -ENOMEM
				  : allow_rules(list, pgsc_action_scmp(def),
						&rules, &args, &n, cause);
		if (rc < 0)
			goto out;
	}
	rc = filter_build_load(pgsc_action_scmp(def), rules, n, u, &step, &bad);
	if (rc == 0)
		goto out;
	if (step == FILTER_STEP_INIT)
		util_cause(cause, "seccomp_init failed");
	else if (step == FILTER_STEP_COMPAT)
		util_cause(cause, "cannot add the compat arch: %s",
			   strerror(-rc));
	else if (step == FILTER_STEP_LOG)
		util_cause(cause, "cannot enable filter logging: %s",
			   strerror(-rc));
	else if (step == FILTER_STEP_RULE)
		util_cause(cause, "cannot allow %s: %s", rules[bad].name,
			   strerror(-rc));
	else if (step == FILTER_STEP_UNKNOWN)
		util_cause(cause, "cannot make syscall %zu fail with ENOSYS: "
			   "%s", bad, strerror(-rc));
	else if (step == FILTER_STEP_MERGE)
		util_cause(cause, "cannot merge the compat arch's filter: %s",
			   strerror(-rc));
	else
		util_cause(cause, "seccomp_load failed: %s", strerror(-rc));
out:
	free(rules);
	free(args);
	free(list);
	return rc;
}

/* What pgsc_guc_file_list() looks for and what it found. */
struct file_list {
	const char *path;
	const char *suffix;     /* "global_syscall_allow", ... */
	char *value;            /* the last match */
	char **cause;
};

static int
file_list_entry(void *arg, const struct gucfile_entry *e)
{
	struct file_list *fl = arg;
	size_t nlen, slen = strlen(fl->suffix);

	if (e->kind == GUCFILE_ERROR) {
		util_cause(fl->cause, "%s:%u: syntax error: %s (PostgreSQL "
			   "would not start)", fl->path, e->line, e->why);
		return -EINVAL;
	}
	if (e->kind != GUCFILE_SETTING)
		return 0;
	/* the name, or a prefix ending in '.' and the name:
	 * "xglobal_syscall_allow" is another setting */
	nlen = strlen(e->name);
	if (nlen < slen || strcmp(e->name + nlen - slen, fl->suffix) != 0 ||
	    (nlen > slen && e->name[nlen - slen - 1] != '.'))
		return 0;
	free(fl->value);
	fl->value = strdup(e->value);
	return fl->value == NULL ? -ENOMEM : 0;
}

/**
 * The allow list @which ("global" or "session") of GUC text in memory,
 * read as pgsc_guc_file_list() reads a file.
 * @param path names the text in causes
 * Returns 0 with *out (the caller frees it), or a negative errno.
 */
int
filter_guc_list(const char *buf, size_t len, const char *path,
		const char *which, char **out, char **cause)
{
	struct file_list fl;
	int rc;

	*out = NULL;
	fl.path = path;
	fl.suffix = strcmp(which, "global") == 0 ? "global_syscall_allow"
						  : "session_syscall_allow";
	fl.value = NULL;
	fl.cause = cause;
	rc = gucfile_parse(buf, len, file_list_entry, &fl);
	if (rc == 0 && fl.value == NULL) {
		util_cause(cause, "%s: no %s line", path, fl.suffix);
		rc = -ENOENT;
	}
	if (rc == -ENOMEM)
		util_cause(cause, "out of memory");
	if (rc < 0) {
		free(fl.value);
		return rc;
	}
	*out = fl.value;
	return 0;
}

int
pgsc_guc_file_list(const char *path, const char *which, char **out,
		   char **cause)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	rc = gucfile_load(path, &buf, &len, cause);
	if (rc == 0)
		rc = filter_guc_list(buf, len, path, which, out, cause);
	free(buf);
	return rc;
}
