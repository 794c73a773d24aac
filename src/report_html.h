/* SPDX-License-Identifier: PostgreSQL */
/* report_html.h - the HTML page of pgsc-report --format=html
 * (report_html.c). */
#ifndef PGSC_REPORT_HTML_H
#define PGSC_REPORT_HTML_H

#include "pgsc-int.h"
#include "store.h"

/* report_html.c - the HTML page of pgsc-report --format=html */
struct html_syscall {
	const char *name, *arch;
	uint64_t all;                   /* records in every role */
	int global, session;
	int64_t first_round, example_pid;
	const char *example_exe;        /* untrusted */
	const uint64_t *role_counts;    /* per html_page.roles */
	int sensitive;                  /* in src/sensitive.def */
	uint32_t nr;
};
struct html_round {
	int64_t id, records, nnew, nnew_sess, loss;
	const char *label;              /* untrusted */
};
struct html_node {
	const char *name;               /* untrusted; "" the local host */
	uint64_t records;
};
/* A row of the attack-surface table (report_surface.c's rows). */
struct html_surface {
	const char *label;              /* untrusted: a type's name */
	const char *source;             /* a baseline's, or NULL */
	size_t names, reachable;
	int baseline;
	int rules;                      /* after set (pgsc-report --args) */
	size_t after;                   /* reachable after argument rules */
	const struct strset *closed;    /* the CVEs the rules close, or NULL */
};
struct html_page {
	int64_t from, to;
	const char *node;               /* --node, untrusted; NULL: all */
	const struct html_node *nodes;  /* a central log's nodes, or none */
	size_t nnodes;
	const struct store_totals *t;   /* the records and the loss */
	const char *const *arches;
	size_t narches;
	const char *const *roles;       /* untrusted; the matrix's columns */
	size_t nroles;
	const struct html_syscall *sc;
	size_t nsc;
	const struct html_round *rounds;
	size_t nrounds;
	const char *const *list[2];     /* the global and session lists */
	size_t nlist[2], nglobal, nsession;
	const char *const *needs;       /* the module's, added to the global */
	size_t nneeds;                  /* list (report_needs.c) */
	const char *warning;            /* why the lists are not usable */
	const char *iouring;            /* the io_uring warning, or NULL */
	int sort;                       /* enum pgsc_sort: the matrix's rows */
	const struct html_surface *surface; /* the lists', the baselines' */
	size_t nsurface, ncves;         /* ncves: the CVE map's entries */
	int rules;                      /* the lists carry argument rules */
	/* The section of --explain's justifications (report_explain.c),
	 * drawn after the matrix; NULL none.  0 or -ENOMEM. */
	int (*explain)(FILE *out, const void *arg);
	const void *explain_arg;
};
int report_html_write(FILE *out, const struct html_page *p);
/* @s as HTML text, terminal escapes made visible first. */
void report_html_text(FILE *out, const char *s);
/* The matrix's rows in the order of @sort (enum pgsc_sort). */
void report_html_sort(struct html_syscall *sc, size_t n, int sort);

#endif
