/* SPDX-License-Identifier: PostgreSQL */
/* filter_effective.c - the effective action of every listed syscall in a
 * filter. */
/*
 * A filter context (global or session) has a default action and four
 * lists.  A name on several lists gets the strictest action, in the
 * order kill > error > log > allow (enum pgsc_action is ordered so that
 * the strictest is the largest).  The same code serves the PostgreSQL
 * module (src/pgmodule/pgsc_module.c: check hooks, the loaded filters and
 * pgsc_filter()) and pgsc-report --format=effective, so both always agree.
 *
 * This file depends only on libc and libseccomp: the module compiles it
 * into the backend, where sqlite, auparse and the rest of the library
 * have no place.  Hence its own small escaper and cause builder.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "syscalls.h"

/* Longest name accepted; the longest libseccomp 2.5.4 knows has 24. */
#define EFF_NAME_MAX 64
/* Unknown names quoted in a cause; the rest are counted. */
#define EFF_CAUSE_NAMES 8

struct pgsc_effective {
	enum pgsc_action def;
	struct pgsc_effective_entry *v;
	size_t n, cap;
};

static const char *const action_names[] = {
	[PGSC_ACT_ALLOW] = "allow",
	[PGSC_ACT_LOG] = "log",
	[PGSC_ACT_ERROR] = "error",
	[PGSC_ACT_KILL] = "kill",
};

const char *
pgsc_action_name(enum pgsc_action a)
{
	if ((unsigned)a >= sizeof(action_names) / sizeof(action_names[0]))
		return "?";
	return action_names[a];
}

uint32_t
pgsc_action_scmp(enum pgsc_action a)
{
	switch (a) {
	case PGSC_ACT_ALLOW:
		return SCMP_ACT_ALLOW;
	case PGSC_ACT_LOG:
		return SCMP_ACT_LOG;
	case PGSC_ACT_ERROR:
		/* EPERM (pgseccomp used EACCES): "Operation not permitted"
		 * is not mistaken for a file's mode, which is what EACCES
		 * says (docs/module.md). */
		return SCMP_ACT_ERRNO(EPERM);
	case PGSC_ACT_KILL:
		break;
	}
	return SCMP_ACT_KILL_PROCESS;
}

/* A growable message; on OOM it is dropped, the error code still says. */
struct msg {
	char *s;
	size_t len, cap;
	int oom;
};

static void
msg_add(struct msg *m, const char *s, size_t n)
{
	if (m->oom)
		return;
	if (m->len + n + 1 > m->cap) {
		size_t cap = m->cap ? m->cap : 128;
		char *p;

		while (m->len + n + 1 > cap)
			cap *= 2;
		p = realloc(m->s, cap);
		if (p == NULL) {
			m->oom = 1;
			return;
		}
		m->s = p;
		m->cap = cap;
	}
	memcpy(m->s + m->len, s, n);
	m->len += n;
	m->s[m->len] = '\0';
}

static void __attribute__((format(printf, 2, 3)))
msg_addf(struct msg *m, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	msg_add(m, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* Append @s (@n bytes, untrusted: a GUC value) quoted, with anything but
 * printable ASCII, quotes and backslashes shown as \xNN, cut at
 * EFF_NAME_MAX bytes. */
static void
msg_add_quoted(struct msg *m, const char *s, size_t n)
{
	msg_add(m, "\"", 1);
	for (size_t i = 0; i < n && i < EFF_NAME_MAX; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			msg_add(m, (const char *)&c, 1);
		else
			msg_addf(m, "\\x%02x", c);
	}
	if (n > EFF_NAME_MAX)
		msg_add(m, "...", 3);
	msg_add(m, "\"", 1);
}

/* Hand a message to *cause (or drop it). */
static void
msg_give(struct msg *m, char **cause)
{
	if (cause != NULL && !m->oom && m->s != NULL) {
		free(*cause);
		*cause = m->s;
	} else {
		free(m->s);
	}
	m->s = NULL;
}

/* The next comma-separated name of *p, trimmed; NULL at the end.  Empty
 * names ("a,,b", a trailing comma) are skipped, as pgsc-exec does. */
static const char *
next_token(const char **p, size_t *len)
{
	return syscall_lists_next(p, " \t\n\r", 0, len);
}

/* Is @s exactly "*", give or take blanks? */
static int
is_star(const char *s)
{
	const char *p = s;
	size_t len;
	const char *t = next_token(&p, &len);

	if (t == NULL || len != 1 || *t != '*')
		return 0;
	return next_token(&p, &len) == NULL;
}

int
pgsc_session_spec_resolve(const struct pgsc_filter_spec *global,
			  const struct pgsc_filter_spec *session,
			  struct pgsc_filter_spec *out, char **cause)
{
	struct msg m = { 0 };

	*out = *session;
	for (int a = PGSC_ACT_ALLOW; a <= PGSC_ACT_KILL; a++) {
		const char *s = session->list[a];

		if (s == NULL)
			continue;
		if (is_star(s)) {
			out->list[a] = global->list[a];
			continue;
		}
		if (strchr(s, '*') != NULL) {
			msg_addf(&m, "\"*\" must stand alone in the session "
				 "%s list (it means: the global %s list)",
				 pgsc_action_name((enum pgsc_action)a),
				 pgsc_action_name((enum pgsc_action)a));
			msg_give(&m, cause);
			*out = *session;
			return -EINVAL;
		}
	}
	return 0;
}

static int
name_chars_ok(const char *s, size_t n)
{
	if (n == 0 || n > EFF_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
}

static int
entry_cmp(const void *a, const void *b)
{
	const struct pgsc_effective_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	/* the strictest first, so the merge keeps it */
	return (int)y->action - (int)x->action;
}

/* Add name @name (@len bytes) with action @a and rule @args (NULL: none;
 * copied) to @e. */
static int
eff_push(pgsc_effective *e, const char *name, size_t len, int nr,
	 enum pgsc_action a, const struct argrule *args)
{
	struct pgsc_effective_entry *x;
	char *copy;

	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 64;
		struct pgsc_effective_entry *v;

		v = realloc(e->v, cap * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		e->v = v;
		e->cap = cap;
	}
	copy = malloc(len + 1);
	if (copy == NULL)
		return -ENOMEM;
	memcpy(copy, name, len);
	copy[len] = '\0';
	x = &e->v[e->n];
	memset(x, 0, sizeof(*x));
	x->name = copy;
	x->nr = nr;
	x->action = a;
	if (args != NULL) {
		struct argrule *r = malloc(sizeof(*r));

		if (r == NULL) {
			free(copy);
			return -ENOMEM;
		}
		*r = *args;
		x->args = r;
	}
	e->n++;
	return 0;
}

/* Free what entry @x owns. */
static void
entry_free(struct pgsc_effective_entry *x)
{
	free((void *)(uintptr_t)x->name);
	free((void *)(uintptr_t)x->args);
	free((void *)(uintptr_t)x->rule);
	x->name = NULL;
	x->args = NULL;
	x->rule = NULL;
}

/* Fold entry @x into @w, the kept entry of the same name and action
 * (argrule_fold()), and free @x. */
static void
entry_fold(struct pgsc_effective_entry *w, struct pgsc_effective_entry *x)
{
	struct argrule *into = (struct argrule *)(uintptr_t)w->args;

	if (into != NULL && !argrule_fold(into, x->args)) {
		free(into);
		w->args = NULL;
	}
	entry_free(x);
}

/* The canonical text of every entry's rule (pgsc_filter(), reports). */
static int
eff_texts(pgsc_effective *e)
{
	for (size_t i = 0; i < e->n; i++) {
		char *t;

		if (e->v[i].args == NULL)
			continue;
		t = malloc(ARGRULE_TEXT_MAX);
		if (t == NULL)
			return -ENOMEM;
		argrule_format(e->v[i].args, t, ARGRULE_TEXT_MAX);
		e->v[i].rule = t;
	}
	return 0;
}

void
pgsc_effective_free(pgsc_effective *e)
{
	if (e == NULL)
		return;
	for (size_t i = 0; i < e->n; i++)
		entry_free(&e->v[i]);
	free(e->v);
	free(e);
}

int
pgsc_effective_new(const struct pgsc_filter_spec *spec, uint32_t arch,
		   pgsc_effective **out, char **cause)
{
	pgsc_effective *e;
	struct msg bad = { 0 }, m = { 0 };
	size_t nbad = 0, w;
	int rc = 0, star = 0;

	*out = NULL;
	if ((unsigned)spec->def > PGSC_ACT_KILL) {
		msg_addf(&m, "invalid default action %d", (int)spec->def);
		msg_give(&m, cause);
		return -EINVAL;
	}
	/* libseccomp has no "is this arch token valid" call: every arch it
	 * supports has read(2). */
	if (arch != 0 && seccomp_syscall_resolve_name_arch(arch, "read") ==
			 __NR_SCMP_ERROR) {
		msg_addf(&m, "arch token 0x%08x is not known to libseccomp",
			 arch);
		msg_give(&m, cause);
		return -EINVAL;
	}
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return -ENOMEM;
	e->def = spec->def;

	for (int a = PGSC_ACT_ALLOW; a <= PGSC_ACT_KILL; a++) {
		const char *p = spec->list[a], *t;
		size_t len;

		if (p == NULL)
			continue;
		while ((t = next_token(&p, &len)) != NULL) {
			int nr = __NR_SCMP_ERROR, has;
			struct argrule rule;

			if (len == 1 && *t == '*') {
				star = 1;
				continue;
			}
			/* an entry with a bad rule is named alone, with the
			 * byte where it goes wrong */
			has = argrule_parse(t, len, &rule, cause);
			if (has < 0) {
				rc = has;
				goto out;
			}
			len = syscall_lists_name(t, len);
			/* libseccomp would also refuse these, but a name
			 * is bounded and checked before it gets there. */
			if (name_chars_ok(t, len)) {
				char name[EFF_NAME_MAX + 1];

				memcpy(name, t, len);
				name[len] = '\0';
				/* arch 0 is the native arch.  A name
				 * libseccomp knows but @arch lacks gives a
				 * negative placeholder, not
				 * __NR_SCMP_ERROR: it is kept,
				 * with that number. */
				nr = seccomp_syscall_resolve_name_arch(arch,
								       name);
			}
			if (nr == __NR_SCMP_ERROR) {
				if (nbad < EFF_CAUSE_NAMES) {
					if (nbad > 0)
						msg_add(&bad, ", ", 2);
					msg_add_quoted(&bad, t, len);
				}
				nbad++;
				continue;
			}
			rc = eff_push(e, t, len, nr, (enum pgsc_action)a,
				      has ? &rule : NULL);
			if (rc < 0)
				goto out;
		}
	}
	if (star) {
		msg_addf(&m, "\"*\" is not a syscall name: it may only stand "
			 "alone in a session list, meaning the global list");
		if (nbad > 0)
			msg_add(&m, "; ", 2);
	}
	if (nbad > 0) {
		msg_addf(&m, "unknown syscall name%s ", nbad > 1 ? "s" : "");
		if (bad.s != NULL)
			msg_add(&m, bad.s, bad.len);
		if (nbad > EFF_CAUSE_NAMES)
			msg_addf(&m, " and %zu more", nbad - EFF_CAUSE_NAMES);
		msg_addf(&m, " (libseccomp knows no syscall of that name on "
			 "any arch)");
		if (bad.oom)
			m.oom = 1;
	}
	if (star || nbad > 0) {
		msg_give(&m, cause);
		rc = -EINVAL;
		goto out;
	}

	/* Sort by name, strictest first, and keep the first of each name:
	 * kill > error > log > allow, with its rule (a name on a laxer
	 * list is dropped, rule or not); entries of the kept name and
	 * action fold into it (entry_fold()). */
	if (e->n > 1)
		qsort(e->v, e->n, sizeof(e->v[0]), entry_cmp);
	w = 0;
	for (size_t i = 0; i < e->n; i++) {
		if (w > 0 && strcmp(e->v[w - 1].name, e->v[i].name) == 0) {
			if (e->v[w - 1].action == e->v[i].action)
				entry_fold(&e->v[w - 1], &e->v[i]);
			else
				entry_free(&e->v[i]);
			continue;
		}
		e->v[w++] = e->v[i];
	}
	e->n = w;
	rc = eff_texts(e);
	if (rc < 0)
		goto out;
	*out = e;
	e = NULL;
out:
	free(bad.s);
	free(m.s);
	pgsc_effective_free(e);
	return rc;
}

size_t
pgsc_effective_entries(const pgsc_effective *e,
		       const struct pgsc_effective_entry **entries)
{
	*entries = e->v;
	return e->n;
}

enum pgsc_action
pgsc_effective_default(const pgsc_effective *e)
{
	return e->def;
}
