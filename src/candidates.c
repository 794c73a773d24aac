/* SPDX-License-Identifier: PostgreSQL */
/* candidates.c - pgsc-report --candidates: a pgsc-scan JSON file against
 * the syscalls the store observed per role (docs/static.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgsc-int.h"

#define CAND_MAX_FILE (32u << 20)
#define CAND_MAX_STR 4096
#define CAND_MAX_NAME 64
#define CAND_MAX_CHAIN 256
#define CAND_MAX_DEPTH 32
#define CAND_MAX_CANDS 4096

struct cand {
	char *name;
	int nr;
	char *phase;
	char **chain;
	size_t nchain;
};

struct cand_list {
	struct cand *v;
	size_t n, cap;
	char *server;
	char *indirect;
};

/* ------------------------------------------------------------------ */
/* The reader: a bounded JSON parser for pgsc-scan's document          */
/* ------------------------------------------------------------------ */

struct jp {
	const char *name;         /* for messages */
	const char *p, *end;
	const char *start;
	int depth;
	char **cause;
};

static int
jp_line(const struct jp *j)
{
	int line = 1;

	for (const char *q = j->start; q < j->p; q++)
		if (*q == '\n')
			line++;
	return line;
}

static int
jp_err(struct jp *j, const char *what)
{
	if (j->cause != NULL && *j->cause == NULL)
		util_cause(j->cause, "%s:%d: %s", j->name, jp_line(j), what);
	return -EINVAL;
}

static void
jp_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int
jp_peek(struct jp *j)
{
	jp_ws(j);
	return j->p < j->end ? (unsigned char)*j->p : -1;
}

static int
jp_expect(struct jp *j, char c)
{
	if (jp_peek(j) != (unsigned char)c) {
		char msg[40];

		snprintf(msg, sizeof(msg), "expected '%c'", c);
		return jp_err(j, msg);
	}
	j->p++;
	return 0;
}

/* A string into a malloc'd *out (NULL: skip it).  Escapes other than
 * \uXXXX are decoded; \u00XX below 0x80 too, others kept as '?'. */
static int
jp_string(struct jp *j, char **out)
{
	struct strbuf sb = { 0 };
	int rc = 0;

	if (out)
		*out = NULL;
	if (jp_expect(j, '"') < 0)
		return -EINVAL;
	while (j->p < j->end && *j->p != '"') {
		char c = *j->p++;

		if ((unsigned char)c < 0x20) {
			rc = jp_err(j, "control byte in a string");
			goto out;
		}
		if (c == '\\') {
			if (j->p >= j->end) {
				rc = jp_err(j, "unterminated string");
				goto out;
			}
			c = *j->p++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case '"': case '\\': case '/': break;
			case 'u': {
				unsigned v = 0;

				for (int i = 0; i < 4; i++) {
					char h = j->p < j->end ? *j->p++ : 0;

					v <<= 4;
					if (h >= '0' && h <= '9')
						v |= (unsigned)(h - '0');
					else if (h >= 'a' && h <= 'f')
						v |= (unsigned)(h - 'a' + 10);
					else if (h >= 'A' && h <= 'F')
						v |= (unsigned)(h - 'A' + 10);
					else {
						rc = jp_err(j, "bad \\u escape");
						goto out;
					}
				}
				c = v > 0 && v < 0x80 ? (char)v : '?';
				break;
			}
			default:
				rc = jp_err(j, "bad escape in a string");
				goto out;
			}
		}
		if (sb.len >= CAND_MAX_STR) {
			rc = jp_err(j, "string too long");
			goto out;
		}
		if (out)
			strbuf_add(&sb, &c, 1);
	}
	if (j->p >= j->end) {
		rc = jp_err(j, "unterminated string");
		goto out;
	}
	j->p++;
	if (out) {
		if (sb.oom) {
			rc = -ENOMEM;
			goto out;
		}
		*out = sb.buf ? sb.buf : strdup("");
		sb.buf = NULL;
		if (*out == NULL)
			rc = -ENOMEM;
	}
out:
	strbuf_free(&sb);
	return rc;
}

static int
jp_number(struct jp *j, long long *out)
{
	const char *q = j->p;
	long long v = 0;
	int neg = 0, digits = 0;

	jp_ws(j);
	q = j->p;
	if (q < j->end && *q == '-') {
		neg = 1;
		q++;
	}
	while (q < j->end && *q >= '0' && *q <= '9') {
		if (v > (INT64_MAX - 9) / 10) {
			j->p = q;
			return jp_err(j, "number out of range");
		}
		v = v * 10 + (*q++ - '0');
		digits++;
	}
	/* fractions and exponents: accepted, not used */
	while (q < j->end && (*q == '.' || *q == 'e' || *q == 'E' ||
			      *q == '+' || *q == '-' ||
			      (*q >= '0' && *q <= '9')))
		q++;
	if (digits == 0)
		return jp_err(j, "bad number");
	j->p = q;
	if (out)
		*out = neg ? -v : v;
	return 0;
}

static int jp_skip(struct jp *j);

static int
jp_word(struct jp *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0)
		return jp_err(j, "bad value");
	j->p += n;
	return 0;
}

/* Skip any value. */
static int
jp_skip(struct jp *j)
{
	int c = jp_peek(j), rc;

	if (c == '"')
		return jp_string(j, NULL);
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';

		if (++j->depth > CAND_MAX_DEPTH)
			return jp_err(j, "nested too deep");
		j->p++;
		if (jp_peek(j) == close) {
			j->p++;
			j->depth--;
			return 0;
		}
		for (;;) {
			if (c == '{') {
				if ((rc = jp_string(j, NULL)) < 0 ||
				    (rc = jp_expect(j, ':')) < 0)
					return rc;
			}
			if ((rc = jp_skip(j)) < 0)
				return rc;
			if (jp_peek(j) == ',') {
				j->p++;
				continue;
			}
			if ((rc = jp_expect(j, close)) < 0)
				return rc;
			j->depth--;
			return 0;
		}
	}
	if (c == 't')
		return jp_word(j, "true");
	if (c == 'f')
		return jp_word(j, "false");
	if (c == 'n')
		return jp_word(j, "null");
	return jp_number(j, NULL);
}

/* Iterate the members of an object: @fn gets each key, and reads or
 * skips its value. */
typedef int (*member_fn)(struct jp *j, const char *key, void *arg);

static int
jp_object(struct jp *j, member_fn fn, void *arg)
{
	int rc;

	if ((rc = jp_expect(j, '{')) < 0)
		return rc;
	if (++j->depth > CAND_MAX_DEPTH)
		return jp_err(j, "nested too deep");
	if (jp_peek(j) == '}') {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		char *key;

		if ((rc = jp_string(j, &key)) < 0)
			return rc;
		rc = jp_expect(j, ':');
		if (rc == 0)
			rc = fn(j, key, arg);
		free(key);
		if (rc < 0)
			return rc;
		if (jp_peek(j) == ',') {
			j->p++;
			continue;
		}
		if ((rc = jp_expect(j, '}')) < 0)
			return rc;
		j->depth--;
		return 0;
	}
}

typedef int (*elem_fn)(struct jp *j, void *arg);

static int
jp_array(struct jp *j, elem_fn fn, void *arg)
{
	int rc;

	if ((rc = jp_expect(j, '[')) < 0)
		return rc;
	if (jp_peek(j) == ']') {
		j->p++;
		return 0;
	}
	for (;;) {
		if ((rc = fn(j, arg)) < 0)
			return rc;
		if (jp_peek(j) == ',') {
			j->p++;
			continue;
		}
		return jp_expect(j, ']');
	}
}

static int
name_ok(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= CAND_MAX_NAME && pgsc_guc_name_ok(s);
}

static int
chain_elem(struct jp *j, void *arg)
{
	struct cand *c = arg;
	char *s, **nv;
	int rc;

	if (c->nchain >= CAND_MAX_CHAIN)
		return jp_err(j, "reason chain too long");
	if ((rc = jp_string(j, &s)) < 0)
		return rc;
	nv = reallocarray(c->chain, c->nchain + 1, sizeof(*nv));
	if (nv == NULL) {
		free(s);
		return -ENOMEM;
	}
	c->chain = nv;
	c->chain[c->nchain++] = s;
	return 0;
}

/* A number from @lo to @hi in *@v, or @what as the error. */
static int
jp_bounded(struct jp *j, long long *v, long long lo, long long hi,
	   const char *what)
{
	int rc;

	if ((rc = jp_number(j, v)) < 0)
		return rc;
	if (*v < lo || *v > hi)
		return jp_err(j, what);
	return 0;
}

static int
cand_member(struct jp *j, const char *key, void *arg)
{
	struct cand *c = arg;
	long long v;
	int rc;

	if (strcmp(key, "name") == 0) {
		if (c->name != NULL)
			return jp_err(j, "\"name\" given twice");
		if ((rc = jp_string(j, &c->name)) < 0)
			return rc;
		if (!name_ok(c->name))
			return jp_err(j, "a candidate's name must be "
				      "[a-z0-9_]{1,64}");
		return 0;
	}
	if (strcmp(key, "nr") == 0) {
		if ((rc = jp_bounded(j, &v, 0, 4095,
				     "\"nr\" out of range")) < 0)
			return rc;
		c->nr = (int)v;
		return 0;
	}
	if (strcmp(key, "phase") == 0) {
		free(c->phase);
		c->phase = NULL;
		if ((rc = jp_string(j, &c->phase)) < 0)
			return rc;
		if (!name_ok(c->phase))
			return jp_err(j, "bad \"phase\"");
		return 0;
	}
	if (strcmp(key, "chain") == 0) {
		if (c->chain != NULL)
			return jp_err(j, "\"chain\" given twice");
		return jp_array(j, chain_elem, c);
	}
	return jp_skip(j);
}

static void
cand_clear(struct cand *c)
{
	free(c->name);
	free(c->phase);
	for (size_t i = 0; i < c->nchain; i++)
		free(c->chain[i]);
	free(c->chain);
}

static int
cand_elem(struct jp *j, void *arg)
{
	struct cand_list *l = arg;
	struct cand c = { .nr = -1 };
	int rc;

	if (l->n >= CAND_MAX_CANDS)
		return jp_err(j, "too many candidates");
	if (jp_peek(j) != '{')
		return jp_err(j, "a candidate must be an object");
	rc = jp_object(j, cand_member, &c);
	if (rc == 0 && c.name == NULL)
		rc = jp_err(j, "a candidate without \"name\"");
	for (size_t i = 0; rc == 0 && i < l->n; i++)
		if (strcmp(l->v[i].name, c.name) == 0)
			rc = jp_err(j, "a candidate listed twice");
	if (rc == 0 &&
	    util_grow_array(&l->v, &l->cap, l->n, sizeof(*l->v), 64) < 0)
		rc = -ENOMEM;
	if (rc < 0) {
		cand_clear(&c);
		return rc;
	}
	l->v[l->n++] = c;
	return 0;
}

struct top {
	struct cand_list *l;
	int version, has_cands;
};

static int
top_member(struct jp *j, const char *key, void *arg)
{
	struct top *t = arg;

	if (strcmp(key, "pgsc_scan") == 0) {
		long long v;
		int rc;

		if ((rc = jp_bounded(j, &v, 1, 1, "unknown \"pgsc_scan\" "
				     "version (this pgsc reads 1)")) < 0)
			return rc;
		t->version = 1;
		return 0;
	}
	if (strcmp(key, "server") == 0 && t->l->server == NULL)
		return jp_string(j, &t->l->server);
	if (strcmp(key, "indirect") == 0 && t->l->indirect == NULL)
		return jp_string(j, &t->l->indirect);
	if (strcmp(key, "candidates") == 0 && !t->has_cands) {
		t->has_cands = 1;
		return jp_array(j, cand_elem, t->l);
	}
	return jp_skip(j);
}

void
candidates_free(struct cand_list *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->n; i++)
		cand_clear(&c->v[i]);
	free(c->v);
	free(c->server);
	free(c->indirect);
	free(c);
}

size_t
candidates_count(const struct cand_list *c)
{
	return c->n;
}

static int
cand_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cand *)a)->name,
		      ((const struct cand *)b)->name);
}

int
candidates_parse(const char *name, const char *text, size_t len,
		 struct cand_list **out, char **cause)
{
	struct jp j = { .name = name, .p = text, .end = text + len,
			.start = text, .cause = cause };
	struct top t = { 0 };
	int rc;

	*out = NULL;
	t.l = calloc(1, sizeof(*t.l));
	if (t.l == NULL)
		return -ENOMEM;
	if (jp_peek(&j) != '{') {
		rc = jp_err(&j, "not a pgsc-scan JSON document");
		goto fail;
	}
	rc = jp_object(&j, top_member, &t);
	if (rc < 0)
		goto fail;
	if (jp_peek(&j) != -1) {
		rc = jp_err(&j, "text after the document");
		goto fail;
	}
	if (t.version != 1 || !t.has_cands) {
		rc = jp_err(&j, "not a pgsc-scan document (no \"pgsc_scan\": 1 "
			    "or no \"candidates\")");
		goto fail;
	}
	if (t.l->v != NULL)
		qsort(t.l->v, t.l->n, sizeof(*t.l->v), cand_cmp);
	*out = t.l;
	return 0;
fail:
	if (rc == -ENOMEM && cause != NULL && *cause == NULL)
		util_cause(cause, "%s: out of memory", name);
	candidates_free(t.l);
	return rc;
}

int
candidates_load(const char *path, struct cand_list **out, char **cause)
{
	char *buf;
	size_t len = 0;
	int rc;

	*out = NULL;
	rc = util_read_file(path, CAND_MAX_FILE, &buf, &len, cause);
	if (rc < 0)
		return rc;
	rc = candidates_parse(path, buf, len, out, cause);
	free(buf);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The coverage view                                                   */
/* ------------------------------------------------------------------ */

struct obs {
	const char *name;         /* interned in names */
	struct strset roles;
};

struct observed {
	struct strset names;
	struct obs *v;
	size_t n, cap;
	int err;
};

static struct obs *
obs_get(struct observed *o, const char *name)
{
	const char *in;

	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->v[i].name, name) == 0)
			return &o->v[i];
	in = strset_intern(&o->names, name);
	if (in == NULL)
		return NULL;
	if (util_grow_array(&o->v, &o->cap, o->n, sizeof(*o->v), 128) < 0)
		return NULL;
	memset(&o->v[o->n], 0, sizeof(o->v[o->n]));
	o->v[o->n].name = in;
	return &o->v[o->n++];
}

static int
agg_cb(void *arg, const struct role_agg *a)
{
	struct observed *o = arg;
	const char *name;
	struct obs *ob;

	if (!pgsc_role_in_server(a->role))
		return 0;
	name = pgsc_syscall_name(a->arch, a->nr);
	if (name == NULL)
		return 0;
	ob = obs_get(o, name);
	if (ob == NULL || strset_add(&ob->roles, a->role) < 0) {
		o->err = -ENOMEM;
		return -1;
	}
	return 0;
}

static int
obs_cmp(const void *a, const void *b)
{
	return strcmp(((const struct obs *)a)->name,
		      ((const struct obs *)b)->name);
}

/* The server's observed syscalls with their roles, over the rounds of
 * @opts (all when 0,0). */
static int
load_observed(pgsc_store *st, const struct pgsc_report_opts *opts,
	      struct observed *o, char **cause)
{
	int64_t from = opts->round_from > 0 ? opts->round_from : 1;
	int64_t to = opts->round_to > 0 ? opts->round_to : INT64_MAX;
	int rounds = 0;

	for (int64_t r = from; r <= to; r++) {
		struct store_round sr;
		char *c2 = NULL;
		int rc = store_round_get(st, r, &sr, &c2);

		free(c2);
		if (rc == -ENOENT)
			break;
		if (rc < 0) {
			util_cause(cause, "round %lld: cannot be read",
				   (long long)r);
			return rc;
		}
		rc = store_round_aggs(st, r, agg_cb, o, cause);
		if (o->err < 0)
			return o->err;
		if (rc < 0)
			return rc;
		rounds++;
	}
	if (rounds == 0) {
		util_cause(cause, "the store has no round in the range");
		return -ENOENT;
	}
	if (o->v != NULL)
		qsort(o->v, o->n, sizeof(*o->v), obs_cmp);
	return 0;
}

static const struct cand *
find_cand(const struct cand_list *l, const char *name)
{
	struct cand key = { .name = (char *)(uintptr_t)name };

	if (l->n == 0)
		return NULL;
	return bsearch(&key, l->v, l->n, sizeof(key), cand_cmp);
}

static const struct obs *
find_obs(const struct observed *o, const char *name)
{
	struct obs key = { .name = name };

	if (o->n == 0)
		return NULL;
	return bsearch(&key, o->v, o->n, sizeof(key), obs_cmp);
}

static void
roles_text(FILE *out, const struct strset *r)
{
	for (size_t i = 0; i < r->n; i++) {
		if (i)
			fputc(',', out);
		pgsc_text_escape(out, r->v[i]);
	}
}

/* The @n strings of @v as a JSON array. */
static void
strv_json(FILE *out, char *const *v, size_t n)
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", \"" : "\"", out);
		pgsc_json_escape(out, v[i]);
		fputc('"', out);
	}
	fputc(']', out);
}

static void
roles_json(FILE *out, const struct strset *r)
{
	strv_json(out, r->v, r->n);
}

static void
view_text(FILE *out, const struct cand_list *l, const struct observed *o,
	  size_t hit)
{
	size_t misses = o->n - hit;

	fputs("# candidates of ", out);
	pgsc_text_escape(out, l->server ? l->server : "?");
	fputs(" (pgsc-scan, indirect calls: ", out);
	pgsc_text_escape(out, l->indirect ? l->indirect : "?");
	fprintf(out, "): %zu\n", l->n);
	fprintf(out, "# observed by the server: %zu; candidates among them: "
		"%zu; recall %.1f%%\n", o->n, hit,
		o->n ? 100.0 * (double)hit / (double)o->n : 100.0);
	fprintf(out, "# candidates not observed yet: %zu; observed, not "
		"candidates (the scan's misses): %zu\n", l->n - hit, misses);
	fprintf(out, "%-24s %-13s %-10s %s\n", "# syscall", "status", "phase",
		"roles | reason chain");
	for (size_t i = 0; i < l->n; i++) {
		const struct cand *c = &l->v[i];
		const struct obs *ob = find_obs(o, c->name);

		fprintf(out, "%-24s %-13s %-10s ", c->name,
			ob ? "observed" : "not-observed",
			c->phase ? c->phase : "-");
		if (ob) {
			roles_text(out, &ob->roles);
		} else {
			for (size_t k = 0; k < c->nchain; k++) {
				if (k)
					fputs(" <- ", out);
				pgsc_text_escape(out, c->chain[k]);
			}
		}
		fputc('\n', out);
	}
	for (size_t i = 0; i < o->n; i++) {
		if (find_cand(l, o->v[i].name) != NULL)
			continue;
		fprintf(out, "%-24s %-13s %-10s ", o->v[i].name, "miss", "-");
		roles_text(out, &o->v[i].roles);
		fputc('\n', out);
	}
}

static void
view_json(FILE *out, const struct cand_list *l, const struct observed *o,
	  size_t hit)
{
	int first = 1;

	fprintf(out, "{\n  \"candidates\": %zu,\n  \"observed\": %zu,\n"
		"  \"observed_candidates\": %zu,\n  \"recall\": %.4f,\n"
		"  \"syscalls\": [\n", l->n, o->n, hit,
		o->n ? (double)hit / (double)o->n : 1.0);
	for (size_t i = 0; i < l->n; i++) {
		const struct cand *c = &l->v[i];
		const struct obs *ob = find_obs(o, c->name);

		fprintf(out, "%s    {\"name\": \"%s\", \"status\": \"%s\", "
			"\"phase\": \"%s\", \"roles\": ", first ? "" : ",\n",
			c->name, ob ? "observed" : "not-observed",
			c->phase ? c->phase : "unknown");
		first = 0;
		if (ob) {
			roles_json(out, &ob->roles);
		} else {
			fputs("[]", out);
		}
		fputs(", \"chain\": ", out);
		strv_json(out, c->chain, c->nchain);
		fputc('}', out);
	}
	for (size_t i = 0; i < o->n; i++) {
		if (find_cand(l, o->v[i].name) != NULL)
			continue;
		fprintf(out, "%s    {\"name\": \"%s\", \"status\": \"miss\", "
			"\"roles\": ", first ? "" : ",\n", o->v[i].name);
		first = 0;
		roles_json(out, &o->v[i].roles);
		fputs("}", out);
	}
	fputs("\n  ]\n}\n", out);
}

int
pgsc_candidates_report(pgsc_store *st, const char *path,
		       const struct pgsc_report_opts *opts, FILE *out,
		       char **cause)
{
	struct cand_list *l = NULL;
	struct observed o = { 0 };
	size_t hit = 0;
	int rc;

	rc = candidates_load(path, &l, cause);
	if (rc < 0)
		return rc;
	rc = load_observed(st, opts, &o, cause);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < o.n; i++)
		if (find_cand(l, o.v[i].name) != NULL)
			hit++;
	if (opts->format == PGSC_FMT_JSON)
		view_json(out, l, &o, hit);
	else
		view_text(out, l, &o, hit);
	rc = ferror(out) ? -EIO : 0;
	if (rc < 0)
		util_cause(cause, "write: %s", strerror(EIO));
out:
	for (size_t i = 0; i < o.n; i++)
		strset_free(&o.v[i].roles);
	free(o.v);
	strset_free(&o.names);
	candidates_free(l);
	return rc;
}
