/* SPDX-License-Identifier: PostgreSQL */
/* diff.c - allow-list pairs (store, GUC, JSON) and their differences. */
/*
 * Every input is untrusted: a GUC file or a JSON report may come from a
 * pull request or a CI artifact.  Text input is bounded (DIFF_TEXT_MAX
 * bytes, DIFF_NAMES_MAX names a list, DIFF_NAME_MAX bytes a name,
 * DIFF_JSON_DEPTH levels of JSON), every name must match [a-z0-9_]+
 * before it is kept, and every file name that reaches a cause or an
 * output is escaped for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "diff.h"
#include "filter.h"
#include "json.h"
#include "syscalls.h"

static const char *const list_names[2] = { "global", "session" };

/* An argument rule of a list read from a GUC file or a JSON report. */
struct diff_rule {
	char *name;
	struct argrule r;
};

struct pgsc_lists {
	enum pgsc_lists_kind kind;
	struct strset l[2];
	struct diff_rule *rules[2];     /* the names with a rule, per list */
	size_t nrules[2];
};

/* ---------------------------------------------------------------- */
/* Causes                                                            */

/*
 * @s escaped in a new string (NULL on OOM): with pgsc_text_escape(), or
 * for @message, one of ours or SQLite's, which can quote a hostile
 * store's schema: printable ASCII is kept (quotes too), every other byte
 * and the backslash become \xNN.
 */
static char *
escaped_as(const char *s, int message)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	if (f == NULL)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s;
	     message && *p; p++) {
		if (*p < 0x20 || *p >= 0x7f || *p == '\\')
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
	if (!message)
		pgsc_text_escape(f, s);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *
diff_escaped(const char *s)
{
	return escaped_as(s, 0);
}

static char *
escaped_message(const char *s)
{
	return escaped_as(s, 1);
}

/* At most the first DIFF_NAME_MAX bytes of @s, escaped ("..." when cut),
 * for quoting a refused name. */
static char *
escaped_excerpt(const char *s)
{
	size_t n = strnlen(s, DIFF_NAME_MAX + 1);
	char *cut = util_strndup(s, n > DIFF_NAME_MAX ? DIFF_NAME_MAX : n);
	char *e = cut ? diff_escaped(cut) : NULL;
	char *r = NULL;

	if (e != NULL && asprintf(&r, "%s%s", e,
				  n > DIFF_NAME_MAX ? "..." : "") < 0)
		r = NULL;
	free(cut);
	free(e);
	return r;
}

/* *cause = "NAME: message", NAME escaped. */
static void PGSC_PRINTF(3, 4)
fail(char **cause, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL, *e;

	if (cause == NULL)
		return;
	e = diff_escaped(name);
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	util_cause(cause, "%s: %s", e ? e : "?", msg ? msg : "out of memory");
	free(e);
	free(msg);
}

/*
 * A cause from another part of the library, about @path, restated about
 * @name: its "PATH" prefix becomes the escaped @name and the rest is
 * escaped too.
 */
static void
restate(char **cause, const char *name, const char *path, const char *lib,
	int rc)
{
	const char *rest = lib ? lib : strerror(-rc);
	size_t plen = strlen(path);
	char *en, *er;

	if (strncmp(rest, path, plen) == 0 && rest[plen] == ':') {
		rest += plen;           /* ": message" or ":LINE: message" */
		if (rest[1] == ' ')
			rest += 2;
	}
	en = diff_escaped(name);
	er = escaped_message(rest);
	util_cause(cause, "%s%s%s", en ? en : "?", *rest == ':' ? "" : ": ",
		   er ? er : "?");
	free(en);
	free(er);
}

/* ---------------------------------------------------------------- */
/* Names                                                             */

/* Keep @nm in @set, under the list bounds. */
static int
keep_name(struct strset *set, const char *nm, const char *name,
	  const char *which, char **cause)
{
	if (strlen(nm) > DIFF_NAME_MAX || !pgsc_guc_name_ok(nm)) {
		char *e = escaped_excerpt(nm);

		fail(cause, name, "%s list: \"%s\" is not a syscall name "
		     "([a-z0-9_]+, at most %d bytes)", which, e ? e : "?",
		     DIFF_NAME_MAX);
		free(e);
		return -EINVAL;
	}
	if (set->n >= DIFF_NAMES_MAX && !strset_has(set, nm)) {
		fail(cause, name, "%s list: more than %d names", which,
		     DIFF_NAMES_MAX);
		return -E2BIG;
	}
	return strset_add(set, nm) < 0 ? -ENOMEM : 0;
}

/* The rule of @name in list @which of @ls, or NULL. */
static struct diff_rule *
rule_find(const struct pgsc_lists *ls, int which, const char *name)
{
	for (size_t i = 0; i < ls->nrules[which]; i++)
		if (strcmp(ls->rules[which][i].name, name) == 0)
			return &ls->rules[which][i];
	return NULL;
}

/* Forget the rule of @name in list @which: the name is allowed plain. */
static void
rule_drop(struct pgsc_lists *ls, int which, const char *name)
{
	struct diff_rule *d = rule_find(ls, which, name);

	if (d == NULL)
		return;
	free(d->name);
	*d = ls->rules[which][--ls->nrules[which]];
}

/*
 * Keep rule @r of @name in list @which, as pgsc-exec and the module
 * read two entries of one name (argrule_fold()): the union of their
 * alternatives, or the plain name when they do not unite.  @plain: the
 * name appeared alone, which wins.  0 or -ENOMEM.
 */
static int
rule_keep(struct pgsc_lists *ls, int which, const char *name,
	  const struct argrule *r, int plain)
{
	struct diff_rule *d = rule_find(ls, which, name), *v;

	if (plain || (d != NULL && !argrule_fold(&d->r, r))) {
		rule_drop(ls, which, name);
		return 0;
	}
	if (d != NULL)
		return 0;
	v = realloc(ls->rules[which], (ls->nrules[which] + 1) * sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	ls->rules[which] = v;
	v[ls->nrules[which]].name = strdup(name);
	if (v[ls->nrules[which]].name == NULL)
		return -ENOMEM;
	v[ls->nrules[which]++].r = *r;
	return 0;
}

/* diff_parse_names() keeping the rules in list @which of @ls (NULL:
 * checked and dropped). */
static int
parse_entries(const char *value, const char *name, const char *which,
	      struct strset *out, struct pgsc_lists *ls, int list,
	      char **cause)
{
	char *copy = strdup(value);
	const char *p = copy, *t;
	struct strset plain = { 0 };
	size_t len;
	int rc = 0;

	if (copy == NULL)
		return -ENOMEM;
	while (rc == 0 && (t = syscall_lists_next(&p, LISTS_SEP_BLANKS,
					  LISTS_SPLIT_BLANKS, &len)) != NULL) {
		size_t nlen = syscall_lists_name(t, len);
		struct argrule r;

		memset(&r, 0, sizeof(r));
		/* an argument rule is checked, and kept for the score */
		if (nlen < len) {
			char *why = NULL;

			if (argrule_parse(t, len, &r, &why) < 0) {
				fail(cause, name, "%s list: %s", which,
				     why != NULL ? why : "bad rule");
				free(why);
				rc = -EINVAL;
				break;
			}
		}
		copy[t - copy + (ptrdiff_t)nlen] = '\0';
		rc = keep_name(out, t, name, which, cause);
		if (rc == 0 && ls != NULL && nlen == len)
			rc = strset_add(&plain, t) < 0 ? -ENOMEM : 0;
		if (rc == 0 && ls != NULL)
			rc = rule_keep(ls, list, t, &r, strset_has(&plain, t));
	}
	strset_free(&plain);
	free(copy);
	return rc;
}

/**
 * Add the names of a GUC list value to @out.  Names are separated by
 * commas and blanks, as pgsc-exec reads them (filter_exec.c); an entry
 * with an argument rule ("socket(a0=1)") gives its name.
 * @param name the file, for causes
 * @param which "global" or "session", for causes
 * Returns 0, -EINVAL for a name that is not [a-z0-9_]+ or a rule that
 * does not parse, -E2BIG past DIFF_NAMES_MAX names, or -ENOMEM.
 */
int
diff_parse_names(const char *value, const char *name, const char *which,
		 struct strset *out, char **cause)
{
	return parse_entries(value, name, which, out, NULL, 0, cause);
}

/* ---------------------------------------------------------------- */
/* JSON: only the top-level "global" and "session" arrays are kept;   */
/* everything else is checked against RFC 8259 and skipped.          */

/* What the JSON reader's callbacks share. */
struct json_lists {
	struct strset *sets[2];
	struct pgsc_lists *ls;  /* "args" kept here; NULL: skipped */
	int seen[2], seen_args;
	int which;              /* the list being read */
	const char *name;       /* the file, for causes */
	char **cause;
};

/* A name of the list jl->which, kept in its set. */
static int
read_name(struct json *j, void *arg)
{
	struct json_lists *jl = arg;
	const char *which = list_names[jl->which];
	char nm[DIFF_NAME_MAX + 2];
	struct json_str st;
	char *e;
	int rc;

	if (!json_at(j, '"'))
		return json_fail(j, "\"%s\" holds something other than a "
				 "string", which);
	rc = json_string(j, nm, sizeof(nm), &st);
	if (rc < 0)
		return rc;
	if (!st.over && !st.nul)
		return keep_name(jl->sets[jl->which], nm, jl->name, which,
				 jl->cause);
	/* longer than a name, or with a NUL that would cut it short: never
	 * keep a prefix */
	e = escaped_excerpt(nm);
	if (strlen(nm) <= DIFF_NAME_MAX)
		fail(jl->cause, jl->name, "%s list: \"%s\\u0000...\" is not a "
		     "syscall name (a NUL)", which, e ? e : "?");
	else
		fail(jl->cause, jl->name, "%s list: \"%s\" is not a syscall "
		     "name (longer than %d bytes)", which, e ? e : "?",
		     DIFF_NAME_MAX);
	free(e);
	return -EINVAL;
}

/* A member of "args"."global" or "args"."session": "name": "name(rule)"
 * (pgsc-report --format json --args), the rule kept for the score. */
static int
read_rule(struct json *j, const char *key, void *arg)
{
	struct json_lists *jl = arg;
	const char *which = list_names[jl->which];
	struct argrule r;
	char *text = NULL, *why = NULL;
	int rc;

	if (!json_at(j, '"'))
		return json_fail(j, "\"args\".\"%s\" holds something other "
				 "than a string", which);
	rc = json_strdup(j, ARGRULE_TEXT_MAX, &text);
	if (rc < 0)
		return rc;
	if (argrule_parse(text, strlen(text), &r, &why) != 1 ||
	    syscall_lists_name(text, strlen(text)) != strlen(key) ||
	    strncmp(text, key, strlen(key)) != 0) {
		char *e = escaped_excerpt(key);

		fail(jl->cause, jl->name, "args of the %s list: \"%s\": %s",
		     which, e ? e : "?", why != NULL ? why :
		     "not a rule of that name");
		free(e);
		free(why);
		free(text);
		return -EINVAL;
	}
	free(text);
	if (!pgsc_guc_name_ok(key))
		return json_fail(j, "\"args\": a key is not a syscall name");
	return rule_keep(jl->ls, jl->which, key, &r, 0);
}

/* A member of "args": "global" and "session" objects of rules. */
static int
read_args_list(struct json *j, const char *key, void *arg)
{
	struct json_lists *jl = arg;

	jl->which = -1;
	for (int i = 0; i < 2; i++)
		if (strcmp(key, list_names[i]) == 0)
			jl->which = i;
	if (jl->which < 0)
		return json_skip(j);
	if (!json_at(j, '{'))
		return json_fail(j, "\"args\".\"%s\" is not an object", key);
	return json_each_member(j, read_rule, jl);
}

/* A member of the top-level object: "global" and "session" are read,
 * each at most once; anything else is checked and skipped. */
static int
read_list(struct json *j, const char *key, void *arg)
{
	struct json_lists *jl = arg;
	int which = -1;

	for (int i = 0; i < 2; i++)
		if (strcmp(key, list_names[i]) == 0)
			which = i;
	if (which < 0 && strcmp(key, "args") == 0 && jl->ls != NULL) {
		if (jl->seen_args)
			return json_fail(j, "\"args\" appears twice");
		jl->seen_args = 1;
		if (!json_at(j, '{'))
			return json_fail(j, "\"args\" is not an object");
		return json_each_member(j, read_args_list, jl);
	}
	if (which < 0)
		return json_skip(j);
	if (jl->seen[which])
		return json_fail(j, "\"%s\" appears twice",
				 list_names[which]);
	jl->seen[which] = 1;
	if (!json_at(j, '['))
		return json_fail(j, "\"%s\" is not an array",
				 list_names[which]);
	jl->which = which;
	return json_each_element(j, read_name, jl);
}

/**
 * Read the top-level "global" and "session" arrays of the JSON text
 * @buf (pgsc-report --format json).  The whole text must be one valid
 * JSON object, each key at most once, each array only names.
 * @param name the file, for causes
 * Returns 0, -EINVAL for invalid input (*cause says where), -E2BIG past
 * DIFF_NAMES_MAX names, or -ENOMEM.
 */
static int
parse_json(const char *buf, size_t len, const char *name,
	   struct pgsc_lists *ls, struct strset *global, struct strset *session,
	   char **cause)
{
	struct json_lists jl = { .sets = { global, session }, .name = name,
				 .ls = ls, .cause = cause };
	struct json j;
	int rc;

	rc = json_read_object(&j, buf, len, DIFF_JSON_DEPTH, read_list, &jl);
	if (rc < 0) {
		if (j.failed)
			fail(cause, name, "invalid JSON at byte %zu%s: %s",
			     j.fail_at, j.fail_end ? " (the end)" : "",
			     j.why);
		return rc;
	}
	for (int i = 0; i < 2; i++)
		if (!jl.seen[i]) {
			fail(cause, name, "no \"%s\" array", list_names[i]);
			return -EINVAL;
		}
	return 0;
}

int
diff_parse_json(const char *buf, size_t len, const char *name,
		struct strset *global, struct strset *session, char **cause)
{
	return parse_json(buf, len, name, NULL, global, session, cause);
}

/* ---------------------------------------------------------------- */
/* Loading                                                           */

/* The lists of a GUC file, through filter_guc_list(): pgsc-diff reads
 * the lines exactly as pgsc-exec --allow-file does. */
static int
load_guc(const char *buf, size_t len, const char *name,
	 struct pgsc_lists *ls, char **cause)
{
	char *val = NULL, *lcause = NULL;
	int rc = 0;

	for (int i = 0; i < 2 && rc == 0; i++) {
		rc = filter_guc_list(buf, len, name, list_names[i], &val,
				     &lcause);
		if (rc < 0) {
			restate(cause, name, name, lcause, rc);
			break;
		}
		rc = parse_entries(val, name, list_names[i], &ls->l[i], ls, i,
				   cause);
		free(val);
		val = NULL;
	}
	free(lcause);
	return rc;
}

/**
 * A list pair from text in memory: a JSON report when the first byte
 * after blanks is '{', else a GUC file.
 * Returns 0 and sets *out, or a negative errno with *cause set.
 */
int
diff_load_buffer(const char *buf, size_t len, const char *name,
		 pgsc_lists **out, char **cause)
{
	struct pgsc_lists *ls;
	const char *nul = len ? memchr(buf, '\0', len) : NULL;
	size_t i = 0;
	int rc;

	*out = NULL;
	if (len > DIFF_TEXT_MAX) {
		fail(cause, name, "larger than %d bytes: not a list file",
		     DIFF_TEXT_MAX);
		return -EFBIG;
	}
	if (nul != NULL) {
		fail(cause, name, "not a text file (a NUL byte at offset %zu)",
		     (size_t)(nul - buf));
		return -EINVAL;
	}
	ls = calloc(1, sizeof(*ls));
	if (ls == NULL)
		return -ENOMEM;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' ||
			   buf[i] == '\n' || buf[i] == '\r'))
		i++;
	if (i < len && buf[i] == '{') {
		ls->kind = PGSC_LISTS_JSON;
		rc = parse_json(buf, len, name, ls, &ls->l[0], &ls->l[1],
				cause);
	} else {
		ls->kind = PGSC_LISTS_GUC;
		rc = load_guc(buf, len, name, ls, cause);
	}
	if (rc < 0) {
		pgsc_lists_free(ls);
		return rc;
	}
	*out = ls;
	return 0;
}

/* The lists of a store: the same lists, by the same code, as pgsc-report
 * prints (report_lists()). */
static int
load_store(const char *path, const struct pgsc_lists_opts *opts,
	   pgsc_lists **out, char **cause)
{
	struct pgsc_lists *ls = NULL;
	pgsc_store *st = NULL;
	char *lcause = NULL;
	int rc;

	ls = calloc(1, sizeof(*ls));
	if (ls == NULL)
		return -ENOMEM;
	ls->kind = PGSC_LISTS_STORE;
	rc = pgsc_store_open(path, PGSC_STORE_READONLY | PGSC_STORE_UNTRUSTED,
			     &st, &lcause);
	if (rc == 0)
		rc = report_lists(st, opts->round_from, opts->round_to,
				  opts->session_roles, opts->node, &ls->l[0],
				  &ls->l[1], &lcause);
	if (rc < 0)
		restate(cause, path, path, lcause, rc);
	free(lcause);
	pgsc_store_free(st);
	if (rc < 0) {
		pgsc_lists_free(ls);
		ls = NULL;
	}
	*out = ls;
	return rc;
}

/* Read from @fd to its end, after the @nhead bytes already in @head. */
static int
read_rest(int fd, const char *head, size_t nhead, const char *name,
	  char **buf, size_t *len, char **cause)
{
	size_t cap = 65536, n = nhead;
	char *b = malloc(cap);

	if (b == NULL)
		return -ENOMEM;
	memcpy(b, head, nhead);
	for (;;) {
		ssize_t r;

		if (n == cap) {
			size_t ncap = cap * 2 > DIFF_TEXT_MAX + 1 ?
				      DIFF_TEXT_MAX + 1 : cap * 2;
			char *nb;

			if (n > DIFF_TEXT_MAX) {
				free(b);
				fail(cause, name, "larger than %d bytes: not a "
				     "list file", DIFF_TEXT_MAX);
				return -EFBIG;
			}
			nb = realloc(b, ncap);
			if (nb == NULL) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
			cap = ncap;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(b);
			fail(cause, name, "%s", strerror(e));
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*buf = b;
	*len = n;
	return 0;
}

int
pgsc_lists_load(const char *path, const struct pgsc_lists_opts *opts,
		pgsc_lists **out, char **cause)
{
	static const char sqlite_magic[16] = "SQLite format 3";
	static const struct pgsc_lists_opts defaults = { 0, 0, NULL, NULL };
	int is_stdin = strcmp(path, "-") == 0;
	char head[sizeof(sqlite_magic)], *buf = NULL;
	size_t nhead = 0, len = 0;
	struct stat sb;
	int fd, rc;

	*out = NULL;
	if (opts == NULL)
		opts = &defaults;
	if (is_stdin) {
		fd = STDIN_FILENO;
	} else {
		/* a file or a pipe ("pgsc-diff <(...) FILE"), never a
		 * device, never an open() that waits */
		int fifo;
		char *why = NULL;

		if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			fail(cause, path, "%s", strerror(EISDIR));
			return -EISDIR;
		}
		fd = util_open_input(path, &fifo, &why);
		if (fd < 0) {
			fail(cause, path, "%s", fd == -EINVAL ?
			     "not a regular file or a pipe" : strerror(-fd));
			free(why);
			return fd;
		}
	}
	if (fstat(fd, &sb) < 0) {
		rc = -errno;
		fail(cause, path, "%s", strerror(errno));
		goto out;
	}
	if (S_ISDIR(sb.st_mode)) {
		rc = -EISDIR;
		fail(cause, path, "%s", strerror(EISDIR));
		goto out;
	}
	while (nhead < sizeof(head)) {
		ssize_t r = read(fd, head + nhead, sizeof(head) - nhead);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			fail(cause, path, "%s", strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		nhead += (size_t)r;
	}
	if (nhead == sizeof(head) &&
	    memcmp(head, sqlite_magic, sizeof(head)) == 0) {
		/* SQLite opens the store by its name (and its -wal file
		 * beside it), so it must be a file with a name. */
		if (is_stdin || !S_ISREG(sb.st_mode)) {
			fail(cause, path, "a store must be a regular file, "
			     "not a pipe or standard input");
			rc = -EINVAL;
			goto out;
		}
		rc = load_store(path, opts, out, cause);
		goto out;
	}
	rc = read_rest(fd, head, nhead, path, &buf, &len, cause);
	if (rc == 0)
		rc = diff_load_buffer(buf, len, path, out, cause);
out:
	free(buf);
	if (!is_stdin)
		close(fd);
	return rc;
}

void
pgsc_lists_free(pgsc_lists *ls)
{
	if (ls == NULL)
		return;
	for (int k = 0; k < 2; k++) {
		strset_free(&ls->l[k]);
		for (size_t i = 0; i < ls->nrules[k]; i++)
			free(ls->rules[k][i].name);
		free(ls->rules[k]);
	}
	free(ls);
}

enum pgsc_lists_kind
pgsc_lists_kind(const pgsc_lists *ls)
{
	return ls->kind;
}

size_t
pgsc_lists_names(const pgsc_lists *ls, int which, const char *const **names)
{
	const struct strset *s = &ls->l[which ? 1 : 0];

	*names = (const char *const *)s->v;
	return s->n;
}

size_t
pgsc_lists_reachable(const pgsc_lists *ls, int which)
{
	return surface_reachable(&ls->l[which ? 1 : 0]);
}

int
pgsc_lists_rules(const pgsc_lists *ls)
{
	return ls->nrules[0] + ls->nrules[1] > 0;
}

/* The score's view of a rule of list @arg (struct lists_which). */
struct lists_which {
	const struct pgsc_lists *ls;
	int which;
};

static int
rule_cb(void *arg, const char *name, struct surface_rule *sr)
{
	const struct lists_which *lw = arg;
	const struct diff_rule *d = rule_find(lw->ls, lw->which, name);

	if (d == NULL)
		return 0;
	memset(sr, 0, sizeof(*sr));
	sr->nargs = d->r.nargs;
	for (unsigned k = 0; k < d->r.nargs; k++) {
		sr->arg[k] = d->r.arg[k];
		sr->mask[k] = d->r.masked[k] ? d->r.mask[k] : ~(uint64_t)0;
	}
	sr->nalts = d->r.nalts;
	sr->stride = ARGRULE_ARGS_MAX;
	sr->val = d->r.val[0];
	return 1;
}

size_t
pgsc_lists_reachable_after(const pgsc_lists *ls, int which)
{
	struct lists_which lw = { ls, which ? 1 : 0 };
	size_t n = 0;

	/* no set of closed CVEs is kept: nothing to allocate, no error */
	if (surface_reachable_rules(&ls->l[lw.which], rule_cb, &lw, &n,
				    NULL) < 0)
		return pgsc_lists_reachable(ls, which);
	return n;
}

size_t
pgsc_cve_map_size(void)
{
	return surface_cves(NULL);
}

/* The list @which (0 global, 1 session) of @ls, for diff_compare.c. */
const struct strset *
diff_lists_set(const pgsc_lists *ls, int which)
{
	return &ls->l[which ? 1 : 0];
}
