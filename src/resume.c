/* SPDX-License-Identifier: PostgreSQL */
/* resume.c - continuing a crashed live round: what its runs committed
 * becomes the base of this run, and the processes its last commit left
 * open get their open counts back (docs/robustness.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "proctree.h"
#include "store.h"
#include "live.h"

/* The store's strings live only as long as its callback: a row kept from
 * it gets its key (@role, @node: NULL the local host) interned in
 * lv->rd.base_roles.  Returns 0 or -ENOMEM (the key is then as it was). */
static int
keep_key(struct live *lv, const char **role, const char **node)
{
	const char *r = strset_intern(&lv->rd.base_roles, *role);
	const char *n = *node ? strset_intern(&lv->rd.base_roles, *node) : NULL;

	if (r == NULL || (*node != NULL && n == NULL))
		return -ENOMEM;
	*role = r;
	*node = n;
	return 0;
}

static int
base_add(void *arg, const struct role_agg *a)
{
	struct live *lv = arg;
	struct role_agg n = *a;
	char *exe = NULL;

	/* the exe is the row's own copy (freed with the base) */
	if (a->example_exe != NULL && (exe = strdup(a->example_exe)) == NULL)
		return -ENOMEM;
	n.example_exe = exe;
	if (keep_key(lv, &n.role, &n.node) == 0 &&
	    util_append(&lv->rd.base, &lv->rd.capbase, &lv->rd.nbase, &n,
			sizeof(n), 256) == 0)
		return 0;
	free(exe);
	return -ENOMEM;
}

static int
open_add(void *arg, const struct proc_count *c)
{
	struct live *lv = arg;
	struct proc_count n = *c;

	if (keep_key(lv, &n.role, &n.node) < 0)
		return -ENOMEM;
	return util_append(&lv->open, &lv->capopen, &lv->nopen, &n,
			   sizeof(n), 256);
}

/* Take counts given back to a process out of the committed base: the
 * next commit writes them again, under the role the process has then. */
static void
base_sub(struct live *lv, const struct proc_count *c)
{
	for (size_t i = 0; i < lv->rd.nbase; i++) {
		struct role_agg *a = &lv->rd.base[i];

		if (a->role != c->role || a->arch != c->arch || a->nr != c->nr ||
		    a->node != c->node)
			continue;
		a->count = a->count > c->count ? a->count - c->count : 0;
		return;
	}
}

/* As store_open_state() orders them: by pid, birth and node (two
 * nodes' processes can have the same pid and birth). */
static int
open_cmp(const struct proc_info *p, const struct proc_count *c)
{
	if (p->pid != c->pid)
		return p->pid < c->pid ? -1 : 1;
	if (p->birth != c->birth)
		return p->birth < c->birth ? -1 : 1;
	return strcmp(p->node ? p->node : "", c->node ? c->node : "");
}

/*
 * A continued round: seed a process the last commit left open and give
 * it back its open counts (sorted by pid, birth), so that its role is
 * computed again (docs/robustness.md).
 */
static int
seed_cb(void *arg, const struct proc_info *p)
{
	struct live *lv = arg;
	size_t lo = 0, hi = lv->nopen;
	int rc = proctree_seed_open(lv->rd.tree, p);

	if (rc < 0)
		return rc;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (open_cmp(p, &lv->open[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < lv->nopen && open_cmp(p, &lv->open[lo]) == 0; lo++) {
		rc = proctree_seed_count(lv->rd.tree, &lv->open[lo]);
		if (rc < 0)
			return rc;
		if (rc == 1)
			base_sub(lv, &lv->open[lo]);
	}
	return 0;
}

/* Drop the base aggregates whose counts all went back to processes. */
static void
base_compact(struct live *lv)
{
	size_t k = 0;

	for (size_t i = 0; i < lv->rd.nbase; i++) {
		if (lv->rd.base[i].count > 0) {
			lv->rd.base[k++] = lv->rd.base[i];
			continue;
		}
		free((char *)(uintptr_t)lv->rd.base[i].example_exe);
	}
	lv->rd.nbase = k;
}

/* A node's loss figures that earlier runs committed, as its base. */
static int
loss_base(void *arg, const char *node, uint64_t gaps, uint64_t untracked)
{
	struct live *lv = arg;

	return serials_base(&lv->rd.ser, node, strlen(node), gaps, untracked);
}

/* Continue round lv->rd.id, which an earlier run left unfinished. */
int
resume_round(struct live *lv)
{
	char **cause = lv->cause;
	int rc;

	rc = store_round_get(lv->st, lv->rd.id, &lv->rd.r, cause);
	if (rc == 0)
		rc = store_round_aggs(lv->st, lv->rd.id, base_add, lv, cause);
	if (rc == 0)
		rc = store_open_state(lv->st, lv->rd.id, open_add, seed_cb, lv,
				      cause);
	if (rc == 0)
		rc = store_node_loss_round(lv->st, lv->rd.id, loss_base, lv,
					   cause);
	if (rc < 0)
		return rc;
	/* what went back to the processes is no longer base */
	base_compact(lv);
	free(lv->open);
	lv->open = NULL;
	lv->nopen = lv->capopen = 0;
	lv->rd.base_records = lv->rd.r.records;
	lv->rd.base_rejected = lv->rd.r.rejected;
	lv->rd.base_lines = lv->rd.r.lines;
	/* the serial sequences start afresh in this run: the gaps earlier
	 * runs committed stay counted (round_commit()) */
	lv->rd.base_gaps = lv->rd.r.serial_gaps;
	if (!lv->o->quiet)
		util_diag(lv->diag, "continuing round %lld (%llu "
			"records committed before)\n",
			(long long)lv->rd.id,
			(unsigned long long)lv->rd.base_records);
	return 0;
}
