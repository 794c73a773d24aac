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
#include "candidates.h"
#include "json.h"
#include "proctree.h"
#include "store.h"

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
/* The reader: pgsc-scan's document through json.c, strict and bounded */
/* ------------------------------------------------------------------ */

static int
name_ok(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= CAND_MAX_NAME && pgsc_guc_name_ok(s);
}

/* The string of member @key, at most CAND_MAX_STR bytes, into *@out:
 * a member given once. */
static int
cand_string(struct json *j, const char *key, char **out)
{
	if (*out != NULL)
		return json_fail(j, "\"%s\" given twice", key);
	return json_strdup(j, CAND_MAX_STR, out);
}

/* An integer from @lo to @hi in *@v, or @what as the error. */
static int
cand_int(struct json *j, long long *v, long long lo, long long hi,
	 const char *what)
{
	int rc = json_int(j, v);

	if (rc == 0 && (*v < lo || *v > hi))
		rc = json_fail(j, "%s", what);
	return rc;
}

static int
chain_elem(struct json *j, void *arg)
{
	struct cand *c = arg;
	char *s = NULL, **nv;
	int rc;

	if (c->nchain >= CAND_MAX_CHAIN)
		return json_fail(j, "reason chain too long");
	if ((rc = json_strdup(j, CAND_MAX_STR, &s)) < 0)
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

static int
cand_member(struct json *j, const char *key, void *arg)
{
	struct cand *c = arg;
	long long v;
	int rc;

	if (strcmp(key, "name") == 0) {
		if ((rc = cand_string(j, key, &c->name)) < 0)
			return rc;
		if (!name_ok(c->name))
			return json_fail(j, "a candidate's name must be "
					 "[a-z0-9_]{1,64}");
		return 0;
	}
	if (strcmp(key, "nr") == 0) {
		if ((rc = cand_int(j, &v, 0, 4095, "\"nr\" out of range")) < 0)
			return rc;
		c->nr = (int)v;
		return 0;
	}
	if (strcmp(key, "phase") == 0) {
		if ((rc = cand_string(j, key, &c->phase)) < 0)
			return rc;
		if (!name_ok(c->phase))
			return json_fail(j, "bad \"phase\"");
		return 0;
	}
	if (strcmp(key, "chain") == 0) {
		if (c->chain != NULL)
			return json_fail(j, "\"chain\" given twice");
		return json_each_element(j, chain_elem, c);
	}
	return json_skip(j);
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
cand_elem(struct json *j, void *arg)
{
	struct cand_list *l = arg;
	struct cand c = { .nr = -1 };
	int rc;

	if (l->n >= CAND_MAX_CANDS)
		return json_fail(j, "too many candidates");
	if (!json_at(j, '{'))
		return json_fail(j, "a candidate must be an object");
	rc = json_each_member(j, cand_member, &c);
	if (rc == 0 && c.name == NULL)
		rc = json_fail(j, "a candidate without \"name\"");
	for (size_t i = 0; rc == 0 && i < l->n; i++)
		if (strcmp(l->v[i].name, c.name) == 0)
			rc = json_fail(j, "a candidate listed twice");
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
top_member(struct json *j, const char *key, void *arg)
{
	struct top *t = arg;
	long long v;

	if (strcmp(key, "pgsc_scan") == 0) {
		t->version = 1;
		return cand_int(j, &v, 1, 1, "unknown \"pgsc_scan\" version "
				"(this pgsc reads 1)");
	}
	if (strcmp(key, "server") == 0 && t->l->server == NULL)
		return cand_string(j, key, &t->l->server);
	if (strcmp(key, "indirect") == 0 && t->l->indirect == NULL)
		return cand_string(j, key, &t->l->indirect);
	if (strcmp(key, "candidates") == 0 && !t->has_cands) {
		t->has_cands = 1;
		return json_each_element(j, cand_elem, t->l);
	}
	return json_skip(j);
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
	struct top t = { 0 };
	struct json j;
	int rc;

	*out = NULL;
	t.l = calloc(1, sizeof(*t.l));
	if (t.l == NULL)
		return -ENOMEM;
	rc = json_read_object(&j, text, len, CAND_MAX_DEPTH, top_member, &t);
	if (rc == 0 && (t.version != 1 || !t.has_cands))
		rc = json_fail(&j, "not a pgsc-scan document (no \"pgsc_scan\": "
			       "1 or no \"candidates\")");
	if (rc < 0) {
		if (cause != NULL && *cause == NULL && j.failed)
			util_cause(cause, "%s:%zu: %s", name,
				   json_fail_line(&j), j.why);
		else if (cause != NULL && *cause == NULL)
			util_cause(cause, "%s: out of memory", name);
		candidates_free(t.l);
		return rc;
	}
	if (t.l->v != NULL)
		qsort(t.l->v, t.l->n, sizeof(*t.l->v), cand_cmp);
	*out = t.l;
	return 0;
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

/* The entry of syscall @name, added when new; NULL on OOM.  Names are
 * interned, so one name is one pointer. */
static struct obs *
obs_get(struct observed *o, const char *name)
{
	struct obs ob = { .name = strset_intern(&o->names, name) };

	if (ob.name == NULL)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (o->v[i].name == ob.name)
			return &o->v[i];
	if (util_append(&o->v, &o->cap, &o->n, &ob, sizeof(ob), 128) < 0)
		return NULL;
	return &o->v[o->n - 1];
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

/* The format version of the --candidates document, its first member
 * "pgsc_candidates" (schemas/pgsc-candidates.schema.json). */
#define CANDIDATES_JSON_VERSION 1

static void
view_json(FILE *out, const struct cand_list *l, const struct observed *o,
	  size_t hit)
{
	int first = 1;

	fprintf(out, "{\n  \"pgsc_candidates\": %d,\n  \"candidates\": %zu,\n"
		"  \"observed\": %zu,\n  \"observed_candidates\": %zu,\n"
		"  \"recall\": %.4f,\n  \"syscalls\": [\n",
		CANDIDATES_JSON_VERSION, l->n, o->n, hit,
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
