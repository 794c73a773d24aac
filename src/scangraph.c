/* SPDX-License-Identifier: PostgreSQL */
/* scangraph.c - pgsc-scan's whole-server call graph: the objects the
 * server loads, imports resolved across them, reachability from the
 * server's own code, the shortest reason chain of each syscall, and the
 * postmaster/children split. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "scan.h"

#define NONE UINT32_MAX
/* Exported functions where a child process of the postmaster starts (or
 * forks and runs its main loop): PostgreSQL 15's src/backend. */
static const char *const child_entries[] = {
	"PostgresMain", "AuxiliaryProcessMain", "StartBackgroundWorker",
	"StartAutoVacLauncher", "StartAutoVacWorker", "SysLogger_Start",
};

struct adj {
	uint32_t to;
	int32_t arg0;
};

struct scan {
	struct scan_obj **objs;
	size_t nobjs, capobjs;
	size_t nglobal;           /* objs[0..nglobal) are the global scope */
	size_t *base;             /* first node of each object */
	size_t nfuncs;            /* nodes that are functions */
	size_t nnodes;            /* + one "address taken" node per object */
	uint32_t *node_obj;       /* object of each function node */
	size_t *adj_off;          /* CSR: edges of node u at adj[off[u]..] */
	struct adj *adj;
	uint32_t *parent;
	uint32_t *dist;
	uint8_t *reached;         /* by the server's reachability */
	struct scan_cand *cands;
	size_t ncands;
	char **chain_store;       /* node names handed out in chains */
	size_t nchain_store, capchain_store;
	int indirect, phases;
	struct scan_stats stats;
	const char *server;
	/* objects left out, "PATH: reason" (a module that is not x86-64
	 * ELF, a module's library that cannot be found) */
	char **skipped;
	size_t nskipped, capskipped;
	/* name → node, for imports */
	const char **hkeys;
	uint32_t *hvals;
	size_t hcap;
};

static int
grow(void *v, size_t *cap, size_t n, size_t size)
{
	return util_grow_array(v, cap, n, size, 32);
}

size_t
scangraph_objects(const struct scan *s, const struct scan_obj *const **out)
{
	*out = (const struct scan_obj *const *)s->objs;
	return s->nobjs;
}

static const struct scan_func *node_func(const struct scan *s, uint32_t u,
					 const struct scan_obj **po);

unsigned
scangraph_func_unknown_calls(const struct scan *s, size_t obj, size_t func)
{
	uint32_t u = (uint32_t)(s->base[obj] + func);
	unsigned n = 0;

	if (!s->reached[u])
		return 0;
	for (size_t e = s->adj_off[u]; e < s->adj_off[u + 1]; e++) {
		uint32_t v = s->adj[e].to;

		if (v < s->nfuncs && node_func(s, v, NULL)->sysarg > 0 &&
		    s->adj[e].arg0 < 0)
			n++;
	}
	return n;
}

int
scangraph_func_reached(const struct scan *s, size_t obj, size_t func)
{
	return s->reached[s->base[obj] + func];
}

int
scangraph_indirect(const struct scan *s)
{
	return s->indirect;
}

void
scangraph_get_stats(const struct scan *s, struct scan_stats *st)
{
	*st = s->stats;
}

size_t
scangraph_candidates(const struct scan *s, const struct scan_cand **out)
{
	*out = s->cands;
	return s->ncands;
}

void
scangraph_free(struct scan *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->nobjs; i++)
		scanelf_free(s->objs[i]);
	for (size_t i = 0; i < s->ncands; i++)
		free(s->cands[i].chain);
	for (size_t i = 0; i < s->nchain_store; i++)
		free(s->chain_store[i]);
	for (size_t i = 0; i < s->nskipped; i++)
		free(s->skipped[i]);
	void *owned[] = { s->chain_store, s->skipped, s->cands, s->objs,
			  s->base, s->node_obj, s->adj_off, s->adj, s->parent,
			  s->dist, s->reached, s->hkeys, s->hvals, s };

	for (size_t i = 0; i < ARRAY_SIZE(owned); i++)
		free(owned[i]);
}

size_t
scangraph_skipped(const struct scan *s, const char *const **out)
{
	*out = (const char *const *)s->skipped;
	return s->nskipped;
}

/* Leave an object out, with the cause as the reason. */
static int
skip(struct scan *s, char **cause)
{
	if (grow(&s->skipped, &s->capskipped, s->nskipped,
		 sizeof(*s->skipped)) < 0)
		return -ENOMEM;
	s->skipped[s->nskipped++] = *cause;
	*cause = NULL;
	return 0;
}

static int
have_path(const struct scan *s, const char *path)
{
	for (size_t i = 0; i < s->nobjs; i++)
		if (strcmp(s->objs[i]->path, path) == 0)
			return 1;
	return 0;
}

static int
add_obj(struct scan *s, const char *path, enum scan_kind kind,
	char **cause)
{
	struct scan_obj *o;
	char *real = realpath(path, NULL);
	int rc;

	/* one object per file: /lib64/ld-linux-x86-64.so.2 (PT_INTERP) and
	 * libc's DT_NEEDED ld-linux-x86-64.so.2 are the same loader */
	if (real != NULL && have_path(s, real)) {
		free(real);
		return 0;
	}
	rc = scanelf_load(real ? real : path, kind, &o, cause);
	free(real);
	if (rc < 0)
		return rc;
	if (grow(&s->objs, &s->capobjs, s->nobjs, sizeof(*s->objs)) < 0) {
		scanelf_free(o);
		return -ENOMEM;
	}
	s->objs[s->nobjs++] = o;
	return 1;
}

/* Breadth-first DT_NEEDED from objs[first..], as the loader orders its
 * search scope. */
static int
add_needed(struct scan *s, size_t first, int modules, char **cause)
{
	for (size_t i = first; i < s->nobjs; i++) {
		struct scan_obj *o = s->objs[i];

		for (size_t k = 0; k < o->nneeded; k++) {
			char *path;
			int rc;

			if (scanelf_find_needed(o, o->needed[k], "", &path) < 0) {
				free(path);
				util_cause(cause, "%s: needed library %s not "
					   "found (RUNPATH, ld.so.cache, "
					   "default directories)", o->path,
					   o->needed[k]);
				/* the server cannot start without it; a
				 * module only cannot be loaded */
				if (!modules)
					return -ENOENT;
				if (skip(s, cause) < 0)
					return -ENOMEM;
				continue;
			}
			rc = add_obj(s, path, SCAN_LIB, cause);
			free(path);
			if (rc == -EINVAL && modules) {
				if (skip(s, cause) < 0)
					return -ENOMEM;
				continue;
			}
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The server's modules: every *.so in @dir, in name order. */
static int
add_modules(struct scan *s, const char *dir, char **cause)
{
	DIR *dh = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (dh == NULL) {
		util_cause(cause, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	while ((de = readdir(dh)) != NULL) {
		size_t l = strlen(de->d_name);

		if (l < 4 || strcmp(de->d_name + l - 3, ".so") != 0)
			continue;
		if (grow(&names, &cap, n, sizeof(*names)) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		if (asprintf(&names[n], "%s/%s", dir, de->d_name) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		n++;
	}
	if (names != NULL)
		qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n; i++) {
		rc = add_obj(s, names[i], SCAN_MODULE, cause);
		/* a file in pkglibdir that is no x86-64 object: left out and
		 * listed, the other modules are still scanned */
		if (rc == -EINVAL) {
			rc = skip(s, cause);
			if (rc < 0)
				goto out;
			continue;
		}
		if (rc < 0)
			goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(dh);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Imports: the first definition in the search scope                   */
/* ------------------------------------------------------------------ */

static uint32_t
lookup_uncached(const struct scan *s, const char *name)
{
	/* the global scope first (the server, its libraries, the loader),
	 * then what modules brought in (their local scopes) */
	for (size_t i = 0; i < s->nobjs; i++) {
		const struct scan_obj *o = s->objs[i];
		const struct scan_dsym *ds = scanelf_dsym(o, name);
		long fi;

		if (ds == NULL || !ds->func || o->kind == SCAN_MODULE)
			continue;
		fi = scandis_func_at(o, ds->addr);
		if (fi >= 0 && o->funcs[fi].addr == ds->addr)
			return (uint32_t)(s->base[i] + (size_t)fi);
	}
	return NONE;
}

static uint32_t
lookup(struct scan *s, const char *name)
{
	size_t h = (size_t)util_hash(name, strlen(name), 0) & (s->hcap - 1);

	while (s->hkeys[h] != NULL) {
		if (strcmp(s->hkeys[h], name) == 0)
			return s->hvals[h];
		h = (h + 1) & (s->hcap - 1);
	}
	s->hkeys[h] = name;
	s->hvals[h] = lookup_uncached(s, name);
	return s->hvals[h];
}

/* ------------------------------------------------------------------ */
/* The graph                                                           */
/* ------------------------------------------------------------------ */

static const struct scan_func *
node_func(const struct scan *s, uint32_t u, const struct scan_obj **po)
{
	const struct scan_obj *o = s->objs[s->node_obj[u]];

	if (po)
		*po = o;
	return &o->funcs[u - s->base[s->node_obj[u]]];
}

/* Edges of every node, in two passes (count, fill). */
static int
build(struct scan *s)
{
	size_t nimports = 0, total = 0;

	for (size_t i = 0; i < s->nobjs; i++)
		for (size_t k = 0; k < s->objs[i]->nfuncs; k++)
			nimports += s->objs[i]->funcs[k].nedges;
	for (s->hcap = 1024; s->hcap < nimports * 2; s->hcap *= 2)
		;
	s->hkeys = calloc(s->hcap, sizeof(*s->hkeys));
	s->hvals = calloc(s->hcap, sizeof(*s->hvals));
	s->adj_off = calloc(s->nnodes + 1, sizeof(*s->adj_off));
	if (s->hkeys == NULL || s->hvals == NULL || s->adj_off == NULL)
		return -ENOMEM;
	for (int pass = 0; pass < 2; pass++) {
		size_t pos = 0;

		for (size_t i = 0; i < s->nobjs; i++) {
			struct scan_obj *o = s->objs[i];
			uint32_t at = (uint32_t)(s->nfuncs + i);

			for (size_t k = 0; k < o->nfuncs; k++) {
				const struct scan_func *f = &o->funcs[k];
				uint32_t u = (uint32_t)(s->base[i] + k);

				if (pass == 1)
					s->adj_off[u] = pos;
				for (size_t e = 0; e < f->nedges; e++) {
					uint32_t v;

					if (f->edges[e].import != NULL)
						v = lookup(s, f->edges[e].import);
					else
						v = (uint32_t)(s->base[i] +
							       f->edges[e].local);
					if (v == NONE)
						continue;
					if (pass == 1) {
						s->adj[pos].to = v;
						s->adj[pos].arg0 =
							f->edges[e].arg0;
					}
					pos++;
				}
				if (f->indirect && s->indirect) {
					if (pass == 1) {
						s->adj[pos].to = at;
						s->adj[pos].arg0 = -1;
					}
					pos++;
				}
			}
		}
		/* the address-taken nodes */
		for (size_t i = 0; i < s->nobjs; i++) {
			struct scan_obj *o = s->objs[i];

			if (pass == 1)
				s->adj_off[s->nfuncs + i] = pos;
			for (size_t k = 0; k < o->nfuncs; k++) {
				if (!o->funcs[k].taken)
					continue;
				if (pass == 1) {
					s->adj[pos].to = (uint32_t)(s->base[i] + k);
					s->adj[pos].arg0 = -1;
				}
				pos++;
			}
			for (size_t k = 0; k < o->ntaken_imports; k++) {
				uint32_t v = lookup(s, o->taken_imports[k]);

				if (v == NONE)
					continue;
				if (pass == 1) {
					s->adj[pos].to = v;
					s->adj[pos].arg0 = -1;
				}
				pos++;
			}
		}
		if (pass == 0) {
			total = pos;
			s->adj = calloc(total ? total : 1, sizeof(*s->adj));
			if (s->adj == NULL)
				return -ENOMEM;
		} else {
			s->adj_off[s->nnodes] = pos;
		}
	}
	return 0;
}

/* Breadth first from @roots; @blocked nodes are not entered; with
 * @no_exe_indirect the server's own indirect calls are not followed.
 * Fills s->parent and s->dist (NONE when not reached). */
static int
reach(struct scan *s, const uint32_t *roots, size_t nroots,
      const uint8_t *blocked, int no_exe_indirect)
{
	uint32_t *queue = malloc((s->nnodes + 1) * sizeof(*queue));
	size_t qh = 0, qt = 0;

	if (queue == NULL)
		return -ENOMEM;
	for (size_t u = 0; u < s->nnodes; u++) {
		s->parent[u] = NONE;
		s->dist[u] = NONE;
	}
	for (size_t i = 0; i < nroots; i++) {
		uint32_t r = roots[i];

		if (s->dist[r] != NONE || (blocked && blocked[r]))
			continue;
		s->dist[r] = 0;
		queue[qt++] = r;
	}
	while (qh < qt) {
		uint32_t u = queue[qh++];

		for (size_t e = s->adj_off[u]; e < s->adj_off[u + 1]; e++) {
			uint32_t v = s->adj[e].to;

			if (s->dist[v] != NONE || (blocked && blocked[v]))
				continue;
			if (no_exe_indirect && v >= s->nfuncs &&
			    s->objs[v - s->nfuncs]->kind == SCAN_EXE)
				continue;
			s->dist[v] = s->dist[u] + 1;
			s->parent[v] = u;
			queue[qt++] = v;
		}
	}
	free(queue);
	return 0;
}

/* The syscalls a reached node makes: its own sites and syscall(NR, ...)
 * calls to a function that takes the number as its first argument. */
typedef int (*sys_fn)(struct scan *s, uint32_t u, int32_t nr, void *arg);

static int
each_sys(struct scan *s, uint32_t u, sys_fn fn, void *arg)
{
	const struct scan_func *f;
	int rc;

	if (u >= s->nfuncs)
		return 0;
	f = node_func(s, u, NULL);
	for (size_t i = 0; i < f->nsys; i++) {
		rc = fn(s, u, f->sys[i], arg);
		if (rc < 0)
			return rc;
	}
	for (size_t e = s->adj_off[u]; e < s->adj_off[u + 1]; e++) {
		uint32_t v = s->adj[e].to;

		if (v >= s->nfuncs || node_func(s, v, NULL)->sysarg == 0 ||
		    s->adj[e].arg0 < 0)
			continue;
		rc = fn(s, u, s->adj[e].arg0, arg);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Per syscall number: the nearest reached node that makes it. */
struct best {
	uint32_t node[4096];
	uint32_t dist[4096];
};

static int
note_best(struct scan *s, uint32_t u, int32_t nr, void *arg)
{
	struct best *b = arg;

	if (nr < 0 || nr >= 4096)
		return 0;
	if (b->node[nr] == NONE || s->dist[u] < b->dist[nr]) {
		b->node[nr] = u;
		b->dist[nr] = s->dist[u];
	}
	return 0;
}

static int
collect(struct scan *s, struct best *b)
{
	for (size_t i = 0; i < 4096; i++) {
		b->node[i] = NONE;
		b->dist[i] = NONE;
	}
	for (uint32_t u = 0; u < s->nfuncs; u++) {
		if (s->dist[u] == NONE)
			continue;
		if (each_sys(s, u, note_best, b) < 0)
			return -ENOMEM;
	}
	return 0;
}

static char *
node_name(const struct scan *s, uint32_t u)
{
	const struct scan_obj *o;
	const struct scan_func *f;
	char *out = NULL;
	int n;

	if (u >= s->nfuncs)
		n = asprintf(&out, "%s:(indirect call)",
			     s->objs[u - s->nfuncs]->base);
	else if ((f = node_func(s, u, &o))->name != NULL)
		n = asprintf(&out, "%s:%s%s", o->base, f->name,
			     scanelf_sec(o, f->addr)->plt ? "@plt" : "");
	else
		n = asprintf(&out, "%s:0x%llx", o->base,
			     (unsigned long long)f->addr);
	return n < 0 ? NULL : out;
}

static int
cand_cmp(const void *a, const void *b)
{
	const struct scan_cand *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static int
make_candidates(struct scan *s, const struct best *b)
{
	uint32_t arch = pgsc_arch_token("x86_64");

	s->cands = calloc(4096, sizeof(*s->cands));
	if (s->cands == NULL)
		return -ENOMEM;
	for (int nr = 0; nr < 4096; nr++) {
		struct scan_cand *c;
		const char *name;
		size_t len = 0;

		if (b->node[nr] == NONE)
			continue;
		name = pgsc_syscall_name(arch, nr);
		if (name == NULL)
			continue;  /* a constant that is no syscall here */
		c = &s->cands[s->ncands++];
		c->name = name;
		c->nr = nr;
		c->postmaster = c->children = -1;
		for (uint32_t u = b->node[nr]; u != NONE; u = s->parent[u])
			len++;
		c->chain = calloc(len ? len : 1, sizeof(*c->chain));
		if (c->chain == NULL)
			return -ENOMEM;
		for (uint32_t u = b->node[nr]; u != NONE; u = s->parent[u]) {
			char *nm = node_name(s, u);

			if (nm == NULL ||
			    grow(&s->chain_store, &s->capchain_store,
				 s->nchain_store, sizeof(char *)) < 0) {
				free(nm);
				return -ENOMEM;
			}
			s->chain_store[s->nchain_store++] = nm;
			c->chain[c->nchain++] = nm;
		}
	}
	qsort(s->cands, s->ncands, sizeof(*s->cands), cand_cmp);
	return 0;
}

/* The roots every phase shares: the loader's entry, each object's
 * initialisers and finalisers, the server's entry point. */
static int
common_roots(struct scan *s, uint32_t **roots, size_t *n, size_t *cap,
	     int all_server)
{
	/* for a phase, only what the server's start runs: the global
	 * scope's initialisers, not those of libraries modules bring in */
	size_t nobj = all_server ? s->nobjs : s->nglobal;

	for (size_t i = 0; i < nobj; i++) {
		const struct scan_obj *o = s->objs[i];

		for (size_t k = 0; k < o->nfuncs; k++) {
			/* PLT stubs are reached through their callers */
			int root = all_server && (o->kind == SCAN_EXE ||
						  o->kind == SCAN_MODULE) &&
				   !scanelf_sec(o, o->funcs[k].addr)->plt;

			for (size_t r = 0; !root && r < o->nroots; r++)
				root = o->roots[r] == o->funcs[k].addr;
			if (!root)
				continue;
			if (grow(roots, cap, *n, sizeof(**roots)) < 0)
				return -ENOMEM;
			(*roots)[(*n)++] = (uint32_t)(s->base[i] + k);
		}
	}
	return 0;
}

static uint32_t
exe_func(const struct scan *s, const char *name)
{
	const struct scan_obj *o = s->objs[0];
	const struct scan_dsym *ds = scanelf_dsym(o, name);
	long fi;

	if (ds == NULL || !ds->func)
		return NONE;
	fi = scandis_func_at(o, ds->addr);
	if (fi < 0 || o->funcs[fi].addr != ds->addr)
		return NONE;
	return (uint32_t)(s->base[0] + (size_t)fi);
}

struct mark {
	uint8_t *has;
};

static int
mark_sys(struct scan *s, uint32_t u, int32_t nr, void *arg)
{
	struct mark *m = arg;

	(void)s;
	(void)u;
	if (nr >= 0 && nr < 4096)
		m->has[nr] = 1;
	return 0;
}

/* Reach from @roots (not through @blocked), and mark in @has the
 * syscalls of every function reached. */
static int
reach_mark(struct scan *s, const uint32_t *roots, size_t n,
	   const uint8_t *blocked, uint8_t *has)
{
	struct mark m = { has };
	int rc = reach(s, roots, n, blocked, 1);

	if (rc < 0)
		return rc;
	for (uint32_t u = 0; u < s->nfuncs; u++)
		if (s->dist[u] != NONE)
			each_sys(s, u, mark_sys, &m);
	return rc;
}

/* Postmaster (from main, child entries cut off) and children (from the
 * child entries); the server's own indirect calls are not followed here
 * (its address-taken set holds every SQL-callable function). */
static int
phases(struct scan *s)
{
	uint32_t *roots = NULL, entries[ARRAY_SIZE(child_entries)];
	size_t n = 0, cap = 0, nent = 0;
	uint8_t *blocked = calloc(s->nnodes, 1);
	uint8_t pm[4096] = { 0 }, ch[4096] = { 0 };
	uint32_t mainf = exe_func(s, "main");
	int rc = -ENOMEM;

	if (blocked == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(child_entries); i++) {
		uint32_t u = exe_func(s, child_entries[i]);

		if (u != NONE) {
			blocked[u] = 1;
			entries[nent++] = u;
		}
	}
	if (mainf == NONE || nent == 0) {
		rc = 0;    /* not a PostgreSQL server: no split */
		goto out;
	}
	if (common_roots(s, &roots, &n, &cap, 0) < 0 ||
	    grow(&roots, &cap, n, sizeof(*roots)) < 0)
		goto out;
	roots[n++] = mainf;
	rc = reach_mark(s, roots, n, blocked, pm);
	if (rc < 0)
		goto out;
	/* children: the child entries, and the modules (loaded by
	 * backends) with the initialisers of what they bring in */
	n = 0;
	for (size_t i = 0; i < nent; i++) {
		if (grow(&roots, &cap, n, sizeof(*roots)) < 0)
			goto out;
		roots[n++] = entries[i];
	}
	for (size_t i = s->nglobal; i < s->nobjs; i++) {
		const struct scan_obj *o = s->objs[i];

		for (size_t k = 0; k < o->nfuncs; k++) {
			int root = o->kind == SCAN_MODULE &&
				   !scanelf_sec(o, o->funcs[k].addr)->plt;

			for (size_t r = 0; !root && r < o->nroots; r++)
				root = o->roots[r] == o->funcs[k].addr;
			if (!root)
				continue;
			if (grow(&roots, &cap, n, sizeof(*roots)) < 0)
				goto out;
			roots[n++] = (uint32_t)(s->base[i] + k);
		}
	}
	rc = reach_mark(s, roots, n, NULL, ch);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < s->ncands; i++) {
		s->cands[i].postmaster = pm[s->cands[i].nr];
		s->cands[i].children = ch[s->cands[i].nr];
	}
	s->phases = 1;
	rc = 0;
out:
	free(roots);
	free(blocked);
	return rc;
}

/* One line of progress on @opts->progress (pgsc-scan's stderr), if any:
 * a whole scan takes tens of seconds, most of them disassembling. */
static void
progress(const struct pgsc_scan_opts *opts, const char *fmt, ...)
	PGSC_PRINTF(2, 3);
static void
progress(const struct pgsc_scan_opts *opts, const char *fmt, ...)
{
	va_list ap;

	if (opts->progress == NULL)
		return;
	fprintf(opts->progress, "%s: ", pgsc_progname());
	va_start(ap, fmt);
	vfprintf(opts->progress, fmt, ap);
	va_end(ap);
	fputc('\n', opts->progress);
	fflush(opts->progress);
}

int
scangraph_run(const struct pgsc_scan_opts *opts, struct scan **out, char **cause)
{
	struct scan *s = calloc(1, sizeof(*s));
	struct best *b = NULL;
	uint32_t *roots = NULL;
	size_t nroots = 0, caproots = 0, nmod0;
	int rc = -ENOMEM;

	*out = NULL;
	if (s == NULL)
		return -ENOMEM;
	s->indirect = opts->indirect;
	s->server = opts->server;
	/* the global scope: the server, its libraries, the loader */
	progress(opts, "reading %s and the libraries it needs", opts->server);
	rc = add_obj(s, opts->server, SCAN_EXE, cause);
	if (rc < 0)
		goto out;
	rc = add_needed(s, 0, 0, cause);
	if (rc < 0)
		goto out;
	if (s->objs[0]->interp != NULL) {
		rc = add_obj(s, s->objs[0]->interp, SCAN_INTERP, cause);
		if (rc < 0)
			goto out;
	}
	s->nglobal = s->nobjs;
	nmod0 = s->nobjs;
	if (opts->pkglibdir != NULL) {
		progress(opts, "reading the modules of %s", opts->pkglibdir);
		rc = add_modules(s, opts->pkglibdir, cause);
		if (rc < 0)
			goto out;
	}
	for (size_t i = 0; i < opts->nextra; i++) {
		rc = add_obj(s, opts->extra[i], SCAN_MODULE, cause);
		if (rc < 0)
			goto out;
	}
	rc = add_needed(s, nmod0, 1, cause);
	if (rc < 0)
		goto out;
	rc = -ENOMEM;
	s->base = calloc(s->nobjs, sizeof(*s->base));
	if (s->base == NULL)
		goto out;
	for (size_t i = 0; i < s->nobjs; i++) {
		struct scan_obj *o = s->objs[i];

		progress(opts, "disassembling %zu/%zu: %s", i + 1, s->nobjs,
			 o->path);
		rc = scandis_object(o, cause);
		if (rc < 0)
			goto out;
		s->base[i] = s->nfuncs;
		s->nfuncs += o->nfuncs;
		s->stats.insns += o->insns;
		s->stats.sites += o->sites;
		s->stats.bad_bytes += o->bad_bytes;
		s->stats.objects++;
		if (o->kind == SCAN_MODULE)
			s->stats.modules++;
		else if (o->kind != SCAN_EXE)
			s->stats.libs++;
	}
	rc = -ENOMEM;
	s->nnodes = s->nfuncs + s->nobjs;
	s->node_obj = malloc(s->nfuncs * sizeof(*s->node_obj) + 1);
	s->parent = malloc(s->nnodes * sizeof(*s->parent));
	s->dist = malloc(s->nnodes * sizeof(*s->dist));
	b = malloc(sizeof(*b));
	if (s->node_obj == NULL || s->parent == NULL || s->dist == NULL ||
	    b == NULL)
		goto out;
	for (size_t i = 0; i < s->nobjs; i++)
		for (size_t k = 0; k < s->objs[i]->nfuncs; k++)
			s->node_obj[s->base[i] + k] = (uint32_t)i;
	progress(opts, "building the call graph of %zu functions in %zu "
		 "objects", s->nfuncs, s->nobjs);
	rc = build(s);
	if (rc < 0)
		goto out;
	/* the server's own code is all reachable: fmgr's tables, hooks and
	 * module entry points are function pointers (docs/static.md) */
	rc = common_roots(s, &roots, &nroots, &caproots, 1);
	if (rc < 0)
		goto out;
	progress(opts, "reaching the syscalls from the server's code");
	rc = reach(s, roots, nroots, NULL, 0);
	if (rc < 0)
		goto out;
	s->stats.funcs = s->nfuncs;
	s->reached = calloc(s->nfuncs + 1, 1);
	if (s->reached == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t u = 0; u < s->nfuncs; u++) {
		const struct scan_func *f = node_func(s, u, NULL);

		s->stats.unresolved_sites += f->unresolved;
		s->stats.indirect_sites += f->indirect;
		if (s->dist[u] == NONE)
			continue;
		s->reached[u] = 1;
		s->stats.reached++;
		for (size_t e = s->adj_off[u]; e < s->adj_off[u + 1]; e++) {
			uint32_t v = s->adj[e].to;

			if (v < s->nfuncs && node_func(s, v, NULL)->sysarg > 0 &&
			    s->adj[e].arg0 < 0)
				s->stats.unresolved_calls++;
		}
		s->stats.unresolved_reached += f->unresolved;
	}
	rc = collect(s, b);
	if (rc < 0)
		goto out;
	rc = make_candidates(s, b);
	if (rc < 0)
		goto out;
	if (!opts->no_phases) {
		progress(opts, "splitting the postmaster from its children");
		rc = phases(s);
		if (rc < 0)
			goto out;
	}
	s->stats.phases = s->phases;
	*out = s;
	s = NULL;
	rc = 0;
out:
	if (rc == -ENOMEM && cause != NULL && *cause == NULL)
		util_cause(cause, "pgsc-scan: out of memory");
	free(roots);
	free(b);
	scangraph_free(s);
	return rc;
}
