/* SPDX-License-Identifier: PostgreSQL */
/* syscall_portable.c - lists for another arch: existence, family mapping,
 * GUC checks. */
/*
 * A list is collected on one arch and loaded on another.  A name that
 * the target arch lacks gives no permission there: libseccomp resolves
 * it to a negative placeholder and seccomp_rule_add() drops the rule
 * without a word.  So pgsc-report --arch maps each name
 * through the alias families (families.def) to what the target has,
 * and pgsc-report --check-guc finds what a check hook on the target
 * would refuse, and what it would accept although it does nothing.
 * docs/portability.md states the rules; the existence rule itself is
 * syscall_families_exists() in syscall_families.c.
 */
#include <ctype.h>
#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "gucfile.h"
#include "syscalls.h"

/* ---------------------------------------------------------------- */
/* Arches                                                            */

uint32_t
pgsc_arch_parse(const char *name)
{
	uint32_t t;

	if (name == NULL || *name == '\0')
		return 0;
	if (strcmp(name, "native") == 0)
		return pgsc_native_arch();
	t = pgsc_arch_token(name);
	if (t == 0)
		t = seccomp_arch_resolve_name(name);   /* "x86", libseccomp's */
	return pgsc_arch_name(t) != NULL ? t : 0;
}

const char *
syscall_portable_systemd_arch(uint32_t arch)
{
	const struct arch_info *a = syscall_arch_find(arch);

	return a != NULL ? a->systemd : NULL;
}

const char *
syscall_portable_oci_arch(uint32_t arch)
{
	const struct arch_info *a = syscall_arch_find(arch);

	return a != NULL ? a->oci : NULL;
}

int
pgsc_syscall_exists(const char *name, uint32_t arch)
{
	if (name == NULL || !pgsc_guc_name_ok(name))
		return -ENOENT;
	return syscall_families_exists(name, arch ? arch : pgsc_native_arch());
}

/* ---------------------------------------------------------------- */
/* Mapping through the families                                      */

/*
 * Without @all: the member of @f nearest after @name (families.def lists
 * the older call first, the newer and the 64-bit variants after it) that
 * exists on @arch, else the nearest before it.  With @all: every member
 * that exists on @arch.
 */
static int
map_family(const struct family *f, const char *name, uint32_t arch, int all,
	   struct strset *out, int *n)
{
	const char *const *self = NULL, *const *after = NULL;
	const char *const *before = NULL;

	for (const char *const *p = f->members; *p != NULL; p++)
		if (strcmp(*p, name) == 0)
			self = p;
	for (const char *const *p = f->members; *p != NULL; p++) {
		if (syscall_families_exists(*p, arch) != 1)
			continue;
		if (all) {
			if (strset_add(out, *p) < 0)
				return -ENOMEM;
			(*n)++;
		} else if (self == NULL || p > self) {
			if (after == NULL)
				after = p;
		} else {
			before = p;     /* the last one before: the nearest */
		}
	}
	if (!all && (after != NULL || before != NULL)) {
		if (strset_add(out, after != NULL ? *after : *before) < 0)
			return -ENOMEM;
		(*n)++;
	}
	return 0;
}

int
syscall_portable_map(const char *name, uint32_t arch, int all,
		     struct strset *out)
{
	const struct family *f;
	size_t before = out->n;
	int n = 0, rc;

	if (syscall_families_exists(name, arch) == 1) {
		if (strset_add(out, name) < 0)
			return -ENOMEM;
		if (!all)
			return (int)(out->n - before);
	}
	for (size_t i = 0; (f = syscall_families_of(name, i)) != NULL; i++) {
		rc = map_family(f, name, arch, all, out, &n);
		if (rc < 0)
			return rc;
	}
	return (int)(out->n - before);
}

/* ---------------------------------------------------------------- */
/* Checking GUC lines (pgsc-report --check-guc)                      */

#define CHK_NAME_MAX 64

/* Settings of one context: [0] the default, [1 + action] the lists. */
#define SET_DEFAULT 0
#define SET_LISTS 1
#define SET_COUNT 5

static const char *const set_suffix[SET_COUNT] = {
	"default", "allow", "log", "error", "kill",
};
static const char *const ctx_name[2] = { "global", "session" };

struct setting {
	unsigned line;          /* 0 = not set */
	char *value;
};

struct prefix {
	char *prefix;           /* "", "pgsc.", "pgseccomp.", ... */
	struct setting s[2][SET_COUNT];
};

/* One finding, held back so that all are printed in line order. */
struct finding {
	unsigned line;
	size_t seq;
	char *text;
};

/* A setting the file sets that is not a global or session one. */
struct seen {
	char *name;             /* lower case: PostgreSQL folds it */
	unsigned line;
};

struct chk {
	const char *path;
	uint32_t arch;
	int strict;
	size_t errors, warnings;
	struct prefix *p;
	size_t np;
	struct finding *f;
	size_t nf;
	int oom;
	int ours;               /* lines that set one of our settings */
	struct seen *seen;      /* the other settings, for duplicates */
	size_t nseen;
};

static void
chk_free(struct chk *c)
{
	for (size_t i = 0; i < c->nseen; i++)
		free(c->seen[i].name);
	free(c->seen);
	for (size_t i = 0; i < c->np; i++) {
		free(c->p[i].prefix);
		for (int k = 0; k < 2; k++)
			for (int j = 0; j < SET_COUNT; j++)
				free(c->p[i].s[k][j].value);
	}
	free(c->p);
	for (size_t i = 0; i < c->nf; i++)
		free(c->f[i].text);
	free(c->f);
}

static int
finding_cmp(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* "FILE:LINE: error: " or "warning: ", then the message; @what is one
 * untrusted text quoted (escaped) where the format has %s. */
static void PGSC_PRINTF(5, 6)
msg(struct chk *c, unsigned line, int error, const char *what,
    const char *fmt, ...)
{
	va_list ap;
	char *m = NULL, *buf = NULL;
	size_t sz = 0;
	const char *at;
	struct finding *nf;
	FILE *out;

	if (error)
		c->errors++;
	else
		c->warnings++;
	va_start(ap, fmt);
	if (vasprintf(&m, fmt, ap) < 0)
		m = NULL;
	va_end(ap);
	out = m != NULL ? open_memstream(&buf, &sz) : NULL;
	if (out == NULL) {
		free(m);
		c->oom = 1;
		return;
	}
	pgsc_text_escape(out, c->path);
	if (line > 0)
		fprintf(out, ":%u", line);
	fprintf(out, ": %s: ", error ? "error" : "warning");
	/* The message is ours; "@" marks where the escaped @what goes. */
	at = what != NULL ? strchr(m, '@') : NULL;
	if (at != NULL) {
		size_t wl = strnlen(what, CHK_NAME_MAX + 1);
		char *cut = util_strndup(what, wl > CHK_NAME_MAX ? CHK_NAME_MAX
								  : wl);

		fwrite(m, 1, (size_t)(at - m), out);
		pgsc_text_escape(out, cut != NULL ? cut : "?");
		if (wl > CHK_NAME_MAX)
			fputs("...", out);
		free(cut);
		fputs(at + 1, out);
	} else {
		fputs(m, out);
	}
	free(m);
	if (fclose(out) != 0) {
		free(buf);
		c->oom = 1;
		return;
	}
	nf = realloc(c->f, (c->nf + 1) * sizeof(*nf));
	if (nf == NULL) {
		free(buf);
		c->oom = 1;
		return;
	}
	c->f = nf;
	nf[c->nf].line = line;
	nf[c->nf].seq = c->nf;
	nf[c->nf].text = buf;
	c->nf++;
}

/*
 * Which of our settings @name is: *prefix_len, *ctx (0 global, 1
 * session) and *set (SET_*).  Returns 1 for one of ours, 0 for any other
 * setting, -1 for a name that looks like ours but is not (a typo).
 */
static int
our_setting(const char *name, size_t *prefix_len, int *ctx, int *set)
{
	const char *dot = strrchr(name, '.');
	const char *base = dot != NULL ? dot + 1 : name;
	const char *suf;

	*prefix_len = (size_t)(base - name);
	/* a prefix pgsc-report could have written (pgsc_guc_prefix_ok(),
	 * high-bit bytes too, as PostgreSQL's grammar), or none: what it
	 * writes, it checks */
	if (*prefix_len > 0) {
		char pre[256];

		if (*prefix_len >= sizeof(pre))
			return 0;
		memcpy(pre, name, *prefix_len);
		pre[*prefix_len] = '\0';
		if (!pgsc_guc_prefix_ok(pre))
			return 0;
	}
	if (strncmp(base, "global_syscall_", 15) == 0)
		*ctx = 0;
	else if (strncmp(base, "session_syscall_", 16) == 0)
		*ctx = 1;
	else
		return 0;
	suf = base + (*ctx ? 16 : 15);
	for (int i = 0; i < SET_COUNT; i++)
		if (strcmp(suf, set_suffix[i]) == 0) {
			*set = i;
			return 1;
		}
	return -1;
}

static struct prefix *
prefix_get(struct chk *c, const char *name, size_t len)
{
	struct prefix *np;

	for (size_t i = 0; i < c->np; i++)
		if (strlen(c->p[i].prefix) == len &&
		    memcmp(c->p[i].prefix, name, len) == 0)
			return &c->p[i];
	np = realloc(c->p, (c->np + 1) * sizeof(*np));
	if (np == NULL)
		return NULL;
	c->p = np;
	memset(&c->p[c->np], 0, sizeof(c->p[0]));
	c->p[c->np].prefix = util_strndup(name, len);
	if (c->p[c->np].prefix == NULL)
		return NULL;
	return &c->p[c->np++];
}

/*
 * Any other setting set twice: PostgreSQL takes the later
 * line without a word.  A per-type list of pgsc ("..._syscall_allow" and
 * the like: two backend types whose names differ in blanks and
 * underscores make one) is an error, anything else a warning.
 */
static int
other_setting(struct chk *c, const struct gucfile_entry *e)
{
	struct seen *ns;
	char *low = strdup(e->name);
	const char *b;

	if (low == NULL)
		return -ENOMEM;
	for (char *q = low; *q; q++)
		if (*q >= 'A' && *q <= 'Z')
			*q = (char)(*q - 'A' + 'a');
	for (size_t i = 0; i < c->nseen; i++) {
		if (strcmp(c->seen[i].name, low) != 0)
			continue;
		b = strstr(low, "_syscall_");
		msg(c, e->line, b != NULL, e->name, "\"@\" is set again: this "
		    "line overrides line %u%s", c->seen[i].line, b != NULL ?
		    " (two backend types' lists under one name: one of them "
		    "is lost)" : "");
		c->seen[i].line = e->line;
		free(low);
		return 0;
	}
	ns = realloc(c->seen, (c->nseen + 1) * sizeof(*ns));
	if (ns == NULL) {
		free(low);
		return -ENOMEM;
	}
	c->seen = ns;
	c->seen[c->nseen].name = low;
	c->seen[c->nseen++].line = e->line;
	return 0;
}

/* One entry of the file (gucfile.c reads it as PostgreSQL does). */
static int
settings_entry(void *arg, const struct gucfile_entry *e)
{
	struct chk *c = arg;
	size_t plen;
	int ctx, set, m;
	struct prefix *p;
	struct setting *st;

	if (e->kind == GUCFILE_ERROR) {
		msg(c, e->line, 1, NULL, "syntax error: %s (PostgreSQL would "
		    "not start)", e->why);
		return 0;
	}
	if (e->kind == GUCFILE_INCLUDE) {
		msg(c, e->line, 0, e->value, "%s \"@\" is not followed: "
		    "settings in it are not checked", e->name);
		return 0;
	}
	m = our_setting(e->name, &plen, &ctx, &set);
	if (m == 0)
		return other_setting(c, e);
	c->ours++;
	if (m < 0) {
		msg(c, e->line, 1, e->name, "unknown setting \"@\" (the "
		    "settings are [PREFIX.]{global,session}_syscall_"
		    "{default,allow,log,error,kill})");
		return 0;
	}
	if (e->cut)
		msg(c, e->line, 1, e->name, "a \\0 escape in \"@\" ends the "
		    "value there: PostgreSQL reads only what precedes it");
	p = prefix_get(c, e->name, plen);
	if (p == NULL)
		return -ENOMEM;
	st = &p->s[ctx][set];
	if (st->line != 0)
		msg(c, e->line, 0, e->name, "\"@\" is set again: this line "
		    "overrides line %u", st->line);
	free(st->value);
	st->value = strdup(e->value);
	if (st->value == NULL)
		return -ENOMEM;
	st->line = e->line;
	return 0;
}

static int
read_settings(struct chk *c, char **cause)
{
	int rc = gucfile_read(c->path, settings_entry, c, cause);

	if (rc == 0 && c->ours == 0)
		msg(c, 0, 1, NULL, "no [PREFIX.]{global,session}_syscall_* "
		    "setting found");
	return rc;
}

/* One name of a list: where and under which setting. */
struct listed {
	char *name;
	int set;
	unsigned line;
};

static int
listed_cmp(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;
	int d = strcmp(x->name, y->name);

	return d != 0 ? d : x->set - y->set;
}

static int
listed_add(struct listed **all, size_t *nall, const char *name, int set,
	   unsigned line)
{
	struct listed *nl = realloc(*all, (*nall + 1) * sizeof(*nl));

	if (nl == NULL)
		return -ENOMEM;
	*all = nl;
	nl[*nall].name = strdup(name);
	if (nl[*nall].name == NULL)
		return -ENOMEM;
	nl[*nall].set = set;
	nl[*nall].line = line;
	(*nall)++;
	return 0;
}

static void
hint_family(struct chk *c, const char *name, struct strbuf *sb)
{
	struct strset alt = { 0 };

	/* the replacements --arch would pick, to say what to list instead */
	if (syscall_portable_map(name, c->arch, 1, &alt) > 0) {
		strbuf_addstr(sb, "; on ");
		strbuf_addstr(sb, pgsc_arch_name(c->arch));
		strbuf_addstr(sb, " its family has ");
		for (size_t i = 0; i < alt.n; i++) {
			if (i)
				strbuf_addstr(sb, ", ");
			strbuf_addstr(sb, alt.v[i]);
		}
	} else {
		strbuf_addstr(sb, "; no family member exists there either");
	}
	strset_free(&alt);
}

/*
 * Which loader reads a prefix's settings, and so which check hook: the
 * pgsc module (pgsc.) accepts a negative placeholder and adds no rule for
 * it (src/pgmodule/pgsc_module.c); pgseccomp refuses every name that resolves
 * to a negative number and every empty list element (SplitIdentifierString
 * fails); it folds unquoted names to lower case and takes '*' only as the
 * whole value.  Settings without a prefix (the RFC patch) and any other
 * prefix are held to pgseccomp's rules, the stricter of the two, from
 * which the RFC patch came.
 */
static int
is_pgsc(const struct prefix *p)
{
	return strcmp(p->prefix, "pgsc.") == 0;
}

static const char *
loader_name(const struct prefix *p)
{
	if (is_pgsc(p))
		return "the pgsc module";
	return strcmp(p->prefix, "pgseccomp.") == 0 ? "pgseccomp"
						    : "a pgseccomp-style hook";
}

/*
 * Entry @a (@len bytes; @tok, its copy) of a pgsc list: an argument rule
 * (argrule.c) is checked, an error message given for a bad one, and
 * @tok cut to the name, which is checked as any other.
 * Returns 0, or -EINVAL after the message.
 */
static int
check_rule(struct chk *c, unsigned line, const char *setting, const char *a,
	   size_t len, char *tok)
{
	size_t name = syscall_lists_name(a, len);
	struct argrule r;
	char *why = NULL;

	if (name == len)
		return 0;
	if (argrule_parse(a, len, &r, &why) < 0) {
		/* the cause is escaped: printable ASCII only */
		msg(c, line, 1, NULL, "%s: %s", setting,
		    why != NULL ? why : "bad argument rule");
		free(why);
		return -EINVAL;
	}
	tok[name] = '\0';
	return 0;
}

/* The names of one list: syntax, '*', resolution on the arch, repeats. */
static int
check_list(struct chk *c, const struct prefix *p, int ctx, int set,
	   struct listed **all, size_t *nall)
{
	const struct setting *s = &p->s[ctx][set];
	char *tok = NULL, *setting = NULL;
	struct strset seen = { 0 };
	int rc = 0, star = 0, names = 0, blank, empty_warned = 0;
	size_t len;

	if (asprintf(&setting, "%s%s_syscall_%s", p->prefix, ctx_name[ctx],
		     set_suffix[set]) < 0)
		return -ENOMEM;
	blank = strspn(s->value, " \t") == strlen(s->value);
	for (const char *q = s->value, *a;
	     (a = syscall_lists_next(&q, " \t", LISTS_KEEP_EMPTY, &len)) != NULL;) {
		int ex;

		free(tok);
		tok = util_strndup(a, len);
		if (tok == NULL) {
			rc = -ENOMEM;
			goto out;
		}
		if (q == NULL && blank)
			break;          /* '' or '  ': an empty list */
		if (is_pgsc(p) && check_rule(c, s->line, setting, a, len,
					     tok) < 0) {
			names++;
			continue;
		}
		if (!is_pgsc(p) && *tok != '\0' && strcmp(tok, "*") != 0 &&
		    strlen(tok) <= CHK_NAME_MAX) {
			/* PostgreSQL folds an unquoted identifier; a name
			 * that is bad anyway is reported as written */
			char *fold = strdup(tok);
			int upper = 0;

			if (fold == NULL) {
				rc = -ENOMEM;
				goto out;
			}
			for (char *k = fold; *k; k++)
				if (*k >= 'A' && *k <= 'Z') {
					*k = (char)(*k - 'A' + 'a');
					upper = 1;
				}
			if (upper && pgsc_guc_name_ok(fold)) {
				msg(c, s->line, 0, fold, "%s: upper case letters "
				    "are folded: \"@\" is meant", setting);
				free(tok);
				tok = fold;
			} else {
				free(fold);
			}
		}
		if (*tok == '\0') {
			/* the pgsc module and pgsc's readers skip it;
			 * pgseccomp's SplitIdentifierString() fails */
			if (!empty_warned)
				msg(c, s->line, !is_pgsc(p), NULL, "%s: an empty "
				    "element (a doubled, leading or trailing "
				    "comma) %s", setting, is_pgsc(p)
				    ? "is ignored" : "makes the list invalid for "
				    "pgseccomp (SplitIdentifierString)");
			empty_warned = 1;
		} else if (strcmp(tok, "*") == 0) {
			star = 1;
		} else if (names++, strlen(tok) > CHK_NAME_MAX ||
			   !pgsc_guc_name_ok(tok)) {
			msg(c, s->line, 1, tok, "%s: \"@\" is not a syscall name "
			    "([a-z0-9_]+, at most %d bytes)", setting,
			    CHK_NAME_MAX);
		} else if (strset_has(&seen, tok)) {
			msg(c, s->line, 0, tok, "%s: \"@\" is listed twice",
			    setting);
		} else {
			if (strset_add(&seen, tok) < 0) {
				rc = -ENOMEM;
				goto out;
			}
			ex = syscall_families_exists(tok, c->arch);
			if (ex == -ENOENT) {
				msg(c, s->line, 1, tok, "%s: \"@\" is not a "
				    "syscall libseccomp %u.%u.%u knows on any "
				    "arch (a check hook refuses it)", setting,
				    seccomp_version()->major,
				    seccomp_version()->minor,
				    seccomp_version()->micro);
			} else if (ex == 0) {
				struct strbuf sb = { 0 };

				hint_family(c, tok, &sb);
				msg(c, s->line, c->strict || !is_pgsc(p), tok,
				    "%s: \"@\" does not exist on %s: libseccomp "
				    "resolves it to placeholder %d, %s%s", setting,
				    pgsc_arch_name(c->arch),
				    seccomp_syscall_resolve_name_arch(c->arch,
								      tok),
				    is_pgsc(p) ? "which the pgsc module's check "
				    "hook accepts and its filter skips, so it "
				    "allows nothing" : "which pgseccomp's check "
				    "hook refuses (the server does not start)",
				    sb.oom || sb.buf == NULL ? "" : sb.buf);
				strbuf_free(&sb);
			} else if (seccomp_syscall_resolve_name_arch(c->arch,
								     tok) < 0) {
				/* a socket or IPC call through socketcall()
				 * or ipc(): libseccomp could filter it, the
				 * GUC loaders take numbers only */
				msg(c, s->line, c->strict || !is_pgsc(p), tok,
				    "%s: \"@\" has no number of its own on %s "
				    "(placeholder %d, a call made through %s): "
				    "%s; only %s itself can be listed", setting,
				    pgsc_arch_name(c->arch),
				    seccomp_syscall_resolve_name_arch(c->arch,
								      tok),
				    seccomp_syscall_resolve_name_arch(c->arch,
								      tok) <= -201
				    ? "ipc" : "socketcall",
				    is_pgsc(p) ? "the pgsc module adds no rule "
				    "for a negative number, so it allows nothing"
				    : "pgseccomp's check hook refuses it",
				    seccomp_syscall_resolve_name_arch(c->arch,
								      tok) <= -201
				    ? "ipc" : "socketcall");
			}
			rc = listed_add(all, nall, tok, set, s->line);
			if (rc < 0)
				goto out;
		}
	}
	if (star && ctx == 0)
		msg(c, s->line, 1, NULL, "%s: '*' (\"the global list\") is only "
		    "meaningful in a session list", setting);
	else if (star && names > 0)
		msg(c, s->line, 1, NULL, "%s: '*' must be the whole list, not "
		    "mixed with names", setting);
	else if (star && !is_pgsc(p) && strcmp(s->value, "*") != 0)
		msg(c, s->line, 1, NULL, "%s: %s takes '*' only as the whole "
		    "value, without blanks", setting, loader_name(p));
out:
	strset_free(&seen);
	free(tok);
	free(setting);
	return rc;
}

static int
action_of(const char *v)
{
	char buf[16];
	size_t i;

	for (i = 0; v[i] != '\0' && i + 1 < sizeof(buf); i++)
		buf[i] = (char)tolower((unsigned char)v[i]);
	buf[i] = '\0';
	if (v[i] != '\0')
		return -EINVAL;
	/* surrounding blanks are not accepted by PostgreSQL's enum GUCs */
	return pgsc_action_parse(buf);
}

static int
check_context(struct chk *c, const struct prefix *p, int ctx)
{
	const struct setting *d = &p->s[ctx][SET_DEFAULT];
	struct listed *all = NULL;
	size_t nall = 0;
	int def = -1, rc = 0;

	if (d->line != 0) {
		if (*d->value == '\0')
			msg(c, d->line, 1, NULL, "%s%s_syscall_default is "
			    "empty: it must be allow, log, error or kill",
			    p->prefix, ctx_name[ctx]);
		else if ((def = action_of(d->value)) < 0)
			msg(c, d->line, 1, d->value, "%s%s_syscall_default: "
			    "\"@\" is not allow, log, error or kill",
			    p->prefix, ctx_name[ctx]);
	}
	for (int set = SET_LISTS; set < SET_COUNT; set++) {
		if (p->s[ctx][set].line == 0)
			continue;
		rc = check_list(c, p, ctx, set, &all, &nall);
		if (rc < 0)
			goto out;
		if (def >= 0 && def == set - SET_LISTS &&
		    strspn(p->s[ctx][set].value, " \t,") !=
		    strlen(p->s[ctx][set].value))
			msg(c, p->s[ctx][set].line, 0, NULL, "%s%s_syscall_%s "
			    "has no effect: the default is %s already "
			    "(libseccomp refuses such rules with EACCES, so "
			    "a loader must skip them)", p->prefix,
			    ctx_name[ctx], set_suffix[set], set_suffix[set]);
	}
	/* systemd's rule: one name, one action.  Precedence would settle
	 * it (kill > error > log > allow), but a name in two lists is a
	 * list pasted twice or an edit gone wrong, never what was meant. */
	if (nall > 1)
		qsort(all, nall, sizeof(*all), listed_cmp);
	for (size_t i = 1; i < nall; i++)
		if (strcmp(all[i].name, all[i - 1].name) == 0 &&
		    all[i].set != all[i - 1].set)
			msg(c, all[i].line, 1, all[i].name, "\"@\" is in both "
			    "%s%s_syscall_%s (line %u) and %s%s_syscall_%s of "
			    "the %s context: one name, one action",
			    p->prefix, ctx_name[ctx], set_suffix[all[i - 1].set],
			    all[i - 1].line, p->prefix, ctx_name[ctx],
			    set_suffix[all[i].set], ctx_name[ctx]);
out:
	for (size_t i = 0; i < nall; i++)
		free(all[i].name);
	free(all);
	return rc;
}

int
pgsc_guc_check(const char *path, const struct pgsc_guc_check_opts *opts,
	       FILE *out, struct pgsc_guc_check_result *res, char **cause)
{
	struct chk c;
	int rc;

	memset(&c, 0, sizeof(c));
	memset(res, 0, sizeof(*res));
	c.path = path;
	c.arch = opts->arch ? opts->arch : pgsc_native_arch();
	c.strict = opts->strict;
	if (pgsc_arch_name(c.arch) == NULL) {
		util_cause(cause, "unknown arch token 0x%08x", c.arch);
		return -EINVAL;
	}
	rc = read_settings(&c, cause);
	for (size_t i = 0; rc == 0 && i < c.np; i++)
		for (int ctx = 0; rc == 0 && ctx < 2; ctx++)
			rc = check_context(&c, &c.p[i], ctx);
	if (rc == 0 && c.oom)
		rc = -ENOMEM;
	if (rc == -ENOMEM)
		util_cause(cause, "out of memory");
	if (rc == 0) {
		if (c.nf > 1)
			qsort(c.f, c.nf, sizeof(c.f[0]), finding_cmp);
		for (size_t i = 0; i < c.nf; i++)
			fprintf(out, "%s\n", c.f[i].text);
		res->errors = c.errors;
		res->warnings = c.warnings;
		pgsc_text_escape(out, path);
		fprintf(out, ": %zu error%s, %zu warning%s (arch %s%s)\n",
			c.errors, c.errors == 1 ? "" : "s", c.warnings,
			c.warnings == 1 ? "" : "s", pgsc_arch_name(c.arch),
			c.strict ? ", strict" : "");
		if (fflush(out) != 0)
			rc = -errno;
	}
	chk_free(&c);
	return rc;
}
