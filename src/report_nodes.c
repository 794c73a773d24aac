/* SPDX-License-Identifier: PostgreSQL */
/* report_nodes.c - the nodes of a central log in the report
 * (docs/fleet.md): the nodes of a range of rounds with their records,
 * --node checked against them, and the header line that names them.
 * Node names come from node= prefixes: untrusted, escaped everywhere. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "store.h"

static int
load_node(void *arg, const char *node, uint64_t records)
{
	struct rep *r = arg;
	struct rep_node *nn = realloc(r->nodes, (r->nnodes + 1) * sizeof(*nn));

	if (nn == NULL)
		return -ENOMEM;
	r->nodes = nn;
	memset(&nn[r->nnodes], 0, sizeof(nn[0]));
	nn[r->nnodes].records = records;
	if ((nn[r->nnodes].name = strdup(node)) == NULL)
		return -ENOMEM;
	r->nnodes++;
	return 0;
}

int
report_fleet(const struct rep *r)
{
	return r->nnodes > 1 || (r->nnodes == 1 && r->nodes[0].name[0] != '\0');
}

void
report_node_name(FILE *out, const char *node)
{
	/* a node= name has no space (decode.c ends it at one): this one
	 * is never a node's */
	if (node[0] == '\0')
		fputs("(local host)", out);
	else
		pgsc_text_escape(out, node);
}

/* --node @r->node is a node of the rounds, or -ENOENT with the nodes
 * there are in *cause. */
static int
node_known(const struct rep *r)
{
	char *names = NULL;
	size_t len = 0;
	FILE *f;

	for (size_t i = 0; i < r->nnodes; i++)
		if (strcmp(r->nodes[i].name, r->node) == 0)
			return 0;
	/* the names as they are: the programs escape every cause they
	 * print (pgsc-report's print_cause(), pgsc-diff's restate()) */
	f = open_memstream(&names, &len);
	if (f == NULL)
		return -ENOMEM;
	fprintf(f, "--node \"%s\": no such node in rounds %lld-%lld; its "
		"nodes: ", r->node, (long long)r->from, (long long)r->to);
	for (size_t i = 0; i < r->nnodes && i < 20; i++)
		fprintf(f, "%s%s", i ? ", " : "", r->nodes[i].name[0] ?
			r->nodes[i].name : "(local host)");
	if (r->nnodes > 20)
		fprintf(f, ", ... (%zu in all)", r->nnodes);
	fputs(" (--node '' is the local host: the records without node=)", f);
	if (fclose(f) != 0) {
		free(names);
		return -ENOMEM;
	}
	util_cause(r->cause, "%s", names);
	free(names);
	return -ENOENT;
}

static int
node_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rep_node *)a)->name,
		      ((const struct rep_node *)b)->name);
}

static struct rep_node *
node_find(const struct rep *r, const char *name)
{
	struct rep_node key = { .name = (char *)(uintptr_t)name };

	if (r->nnodes == 0)
		return NULL;
	return bsearch(&key, r->nodes, r->nnodes, sizeof(key), node_cmp);
}

/* One node's loss figures (store_node_loss(), by name): a node without
 * records (its lines had no SECCOMP record) is one of the nodes too. */
static int
load_loss(void *arg, const char *node, uint64_t gaps, uint64_t untracked)
{
	struct rep *r = arg;
	struct rep_node *n = node_find(r, node);

	if (n == NULL) {
		if (load_node(r, node, 0) < 0)
			return -ENOMEM;
		qsort(r->nodes, r->nnodes, sizeof(*r->nodes), node_cmp);
		n = node_find(r, node);
	}
	n->serial_gaps = gaps;
	n->untracked = untracked;
	return 0;
}

/* The nodes of @r's rounds with their loss figures, and --node checked
 * against them. */
int
report_nodes_load(struct rep *r)
{
	uint64_t split = 0;
	int rc = store_sums(r->st, STORE_SUM_NODES, r->from, r->to, load_node,
			    r, r->cause);

	if (rc == 0)
		rc = store_node_loss(r->st, r->from, r->to, load_loss, r,
				     r->cause);
	if (rc < 0)
		return rc;
	/* the gaps of rounds that did not split them by node (before
	 * schema 11) may be any node's: they count for each */
	for (size_t i = 0; i < r->nnodes; i++)
		split += r->nodes[i].serial_gaps;
	r->unsplit = r->t_rounds.serial_gaps > split ?
		     r->t_rounds.serial_gaps - split : 0;
	if (r->node != NULL) {
		rc = node_known(r);
		if (rc == 0)
			report_node_loss(r, r);
	}
	return rc;
}

void
report_node_loss(struct rep *n, const struct rep *parent)
{
	const struct rep_node *nd = node_find(parent, n->node);

	n->t.serial_gaps = parent->unsplit + (nd ? nd->serial_gaps : 0);
	n->t.untracked = nd ? nd->untracked : 0;
	if (n->node[0] != '\0') {
		n->t.lost = 0;
		n->t.kernel_unread = 1;
	}
}

/* The header's node lines: the one --node chose, and the nodes with their
 * records when the store holds another host's (report_fleet()). */
void
report_nodes_header(FILE *out, const struct rep *r)
{
	if (r->node != NULL) {
		fputs("# node: ", out);
		report_node_name(out, r->node);
		fputs(" (--node: its lists and loss figures; the kernel's "
		      "are the collecting host's)\n", out);
	}
	if (!report_fleet(r))
		return;
	fputs("# nodes:", out);
	for (size_t i = 0; i < r->nnodes; i++) {
		fputs(i ? ", " : " ", out);
		report_node_name(out, r->nodes[i].name);
		fprintf(out, ": %llu records",
			(unsigned long long)r->nodes[i].records);
	}
	fputc('\n', out);
}
