/* SPDX-License-Identifier: PostgreSQL */
/* report_nodes.c - the nodes of a central log in the report
 * (docs/fleet.md): the nodes of a range of rounds with their records,
 * --node checked against them, and the header line that names them.
 * Node names come from node= prefixes: untrusted, escaped everywhere. */
#include <errno.h>
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

/* The nodes of @r's rounds, and --node checked against them. */
int
report_nodes_load(struct rep *r)
{
	int rc = store_sums(r->st, STORE_SUM_NODES, r->from, r->to, load_node,
			    r, r->cause);

	if (rc == 0 && r->node != NULL)
		rc = node_known(r);
	return rc;
}

/* The header's node lines: the one --node chose, and the nodes with their
 * records when the store holds another host's (report_fleet()). */
void
report_nodes_header(FILE *out, const struct rep *r)
{
	if (r->node != NULL) {
		fputs("# node: ", out);
		report_node_name(out, r->node);
		fputs(" (--node: its lists; the loss figures are the whole "
		      "log's)\n", out);
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
