/* SPDX-License-Identifier: PostgreSQL */
/* report-int.h - what the report's files share and nothing else
 * includes: a range of rounds loaded from the store (struct rep), the two
 * lists built from it (struct lists), what a writer is given (struct
 * rep_out), and the helpers every format uses.  The files call down
 * only: report.c (the format table) -> the writers (report_guc.c,
 * report_json.c, report_table.c, report_filter.c, report_status.c,
 * report_types.c, report_explain.c, report_surface.c) -> report_programs.c ->
 * report_usable.c -> report_model.c (report_open(), the lists) ->
 * report_needs.c -> report_print.c -> report_nodes.c and
 * report_iouring.c. */
#ifndef PGSC_REPORT_INT_H
#define PGSC_REPORT_INT_H

#include <stdint.h>
#include <stdio.h>

#include "pgsc-int.h"
#include "store.h"
#include "syscalls.h"

struct rolecount {
	const char *role;   /* interned in rep->roles */
	uint64_t count;
};

struct entry {
	uint32_t arch;
	int32_t nr;
	const char *name;
	uint64_t count;         /* in server roles */
	uint64_t all;           /* in every role */
	int64_t first_round;
	int64_t example_pid;
	char *example_exe;
	int global, session;
	struct rolecount *rc;
	size_t nrc;
};

/* A node of the rounds: its node= name ("" the local host), untrusted. */
struct rep_node {
	char *name;
	uint64_t records;
	uint64_t serial_gaps, untracked; /* its own (node_loss) */
};

struct rep {
	pgsc_store *st;
	int64_t from, to;
	const char *node;       /* --node: that node's rows; NULL every node's */
	struct rep_node *nodes; /* the nodes of the rounds, by name */
	size_t nnodes;
	uint64_t unsplit;       /* serial gaps of rounds without node_loss
				 * rows (before schema 11): every node's */
	struct store_round tally; /* the loaded rows by role (--node) */
	struct entry *e;
	size_t n, cap;
	struct strset roles;
	struct strset session;
	struct store_totals t;  /* the rounds' (--node: its records') */
	struct store_totals t_rounds; /* the rounds' as the store has them */
	struct strset dropped;  /* --no-programs: the names the session
				 * list lost (report_programs_apply()) */
	char **cause;
};

struct mapnote {
	const char *from;       /* interned in lists->noted */
	struct strset to;
};

struct lists {
	struct strset l[2];
	int mapping;                    /* --arch or --portable given */
	int portable;
	uint32_t target;                /* --arch, 0 = none */
	struct strset unmapped[2];      /* no equivalent on the target */
	struct strset noted[2];
	struct mapnote *notes[2];       /* sorted by from */
	size_t nnotes[2];
	struct strset needs;            /* the module's, added (report_needs.c) */
	struct strset startup;          /* the postmaster's start-up, added */
	struct strset resume;           /* restart_syscall, added */
};

/* What report_open() opens. */
enum rep_range {
	REP_RANGE_FINISHED,     /* from-to within the finished rounds, 0 the
				 * first or the last of them */
	REP_RANGE_GIVEN,        /* from-to as given, or as ready() sets them */
};

struct rep_spec {
	const char *session_roles;      /* --session-roles; NULL the preset */
	const char *node;               /* --node; NULL every node's rows */
	enum rep_range range;
	int64_t from, to;
	/* Called with the session roles known and the rounds set, before
	 * anything is loaded (NULL: none): 0 goes on, 1 stops with nothing
	 * loaded, -errno fails.  It may set r->from and r->to. */
	int (*ready)(struct rep *r, void *arg);
	void *arg;
};

struct types;

/* What a writer of report.c's format table is given; its cause is
 * r->cause. */
struct rargs;

struct rep_out {
	FILE *out;
	const struct rargs *A;          /* --args with values, or NULL */
	struct rep *r;
	struct lists *L;                /* empty if the format needs none */
	const struct types *T;          /* --per-type, or NULL */
	const struct pgsc_report_opts *o;
	enum pgsc_action def;           /* --default, else error */
};

/* report_model.c */
int report_open(pgsc_store *st, const struct rep_spec *spec, struct rep *r,
	     char **cause);
void report_close(struct rep *r);
int report_each_node(const struct rep *r,
		     int (*cb)(struct rep *n, void *arg), void *arg);
int report_list_names(const struct rep *r, int session, struct strset *out);
int report_lists_build(const struct rep *r, const struct pgsc_report_opts *o,
		    struct lists *L);
void report_lists_free(struct lists *L);
int report_map_entry(const struct entry *e, const struct pgsc_report_opts *o,
		  struct strset *to);

/* report_print.c */
void report_print_joined(FILE *out, const struct strset *s, const char *sep);
void report_json_str(FILE *out, const char *s);
void report_json_list(FILE *out, const struct strset *s);
void report_arch_list(const struct rep *r, struct strset *out);
/* Records may be missing from the rounds of @r (loss, gaps). */
int report_missing(const struct rep *r);
/* The loss figures, "kernel lost N, ..." as text or as JSON members. */
void report_loss_write(FILE *out, const struct rep *r, int json);
void report_header_line(FILE *out, const struct rep *r);
/* The "# ..." lines that say what --arch/--portable mapped or left out. */
void report_lists_comment(FILE *out, const struct lists *L);

/* report_programs.c: --no-programs (docs/hardening.md) */
int report_programs_apply(struct rep *r);
/* Is @name one of the calls that run a program (execve, execveat,
 * vfork), dropped whoever made them? */
int report_programs_call(const char *name);
void report_programs_strip(struct lists *L);
/* Did only descendants of server processes (programs) make @name? */
int report_programs_only(const struct rep *r, const char *name);
void report_programs_comment(FILE *out, const struct rep *r);
void report_programs_json(FILE *out, const struct rep *r);

/* report_needs.c */
int report_needs_add(struct strset *global, struct strset *added,
		     uint32_t arch);
void report_needs_guc(FILE *out, const struct lists *L);
void report_needs_json(FILE *out, const struct lists *L);
int report_needs_startup(struct lists *L, int resume);
void report_needs_startup_note(FILE *out, const struct lists *L,
			       const char *lead);

/* report_nodes.c */
int report_nodes_load(struct rep *r);
/* The loss figures of node @n (a report of one node) from @parent's
 * nodes: its serial gaps and untracked records, the rounds' rotation
 * gaps and drain timeouts, the kernel's figures only for the local host
 * (the kernel read is the collecting host's). */
void report_node_loss(struct rep *n, const struct rep *parent);
/* Does @r hold another host's records (node=)?  Only then do the header
 * and the JSON name the nodes: a single host's output stays as it was. */
int report_fleet(const struct rep *r);
/* A node's name for a text format: escaped, the local host spelled out. */
void report_node_name(FILE *out, const char *node);
void report_nodes_header(FILE *out, const struct rep *r);

/* report_iouring.c: io_uring in the rounds (docs/io_uring.md) */
#define IOURING_NCALLS 3
struct iouring {
	uint64_t calls[IOURING_NCALLS]; /* io_uring_setup, _enter, _register:
					 * the server's records */
	uint64_t setup_outside;         /* io_uring_setup not the postmaster's */
	int io_workers;                 /* an "io worker" process was seen */
};
void report_iouring_scan(const struct rep *r, struct iouring *io);
int report_iouring_seen(const struct iouring *io);
const char *report_iouring_method(const struct iouring *io);
void report_iouring_sentence(FILE *out, const struct iouring *io);
int report_iouring_text(const struct rep *r, char **text);
void report_iouring_warn(FILE *diag, const struct rep *r, const char *lead);
void report_iouring_json(FILE *out, const struct rep *r);
int report_iouring_postmaster_only(const char *name);

/* report_guc.c, report_json.c, report_table.c: the writers of those
 * formats */
int report_guc(const struct rep_out *w);
int report_json(const struct rep_out *w);
int report_table(const struct rep_out *w);

/* report_filter.c */
#define FILTER_ARCH_MAX 16
int report_filter_setup(const struct rep *r, const struct lists *L,
			uint32_t arches[FILTER_ARCH_MAX], char **cause);
int report_filter_begin(const struct rep_out *w,
			uint32_t arches[FILTER_ARCH_MAX], int resume);
int report_systemd(const struct rep_out *w);
int report_oci(const struct rep_out *w);
/* report_spo.c */
int report_spo(const struct rep_out *w);
int report_spo_options(const struct pgsc_report_opts *o, char **cause);
void report_known_max_guc(FILE *out, const struct rep *r,
			  const struct lists *L, const char *prefix);
void report_known_max_json(FILE *out, const struct rep *r,
			   const struct lists *L);
int report_effective(const struct rep_out *w);

/* report_explain.c: --explain, why each name is in the lists */
int report_explain_table(const struct rep_out *w);
int report_explain_json(const struct rep_out *w);
int report_explain_html(const struct rep_out *w, FILE *out);

/* report_types.c: a list per backend type (--per-type) */
struct typelist {
	char *type;             /* "checkpointer" */
	char *setting;          /* "checkpointer"; NULL: no valid name,
				 * or one another type also makes */
	const char *clash;      /* that other type, or NULL */
	struct strset calls;
	struct strset lacks;    /* security-relevant calls of the global
				 * list that it does not have */
	uint64_t records;
	size_t routine;         /* calls the routine floor added */
};

struct types {
	struct typelist *v;
	size_t n, cap;
	uint64_t untyped;       /* records of backends of unknown type */
	int routine;            /* --per-type=routine */
};

int report_types_build(const struct rep *r, const struct pgsc_report_opts *o,
		       const struct lists *L, struct types *T);
void report_types_free(struct types *T);
/* Is @name a security-relevant call (src/sensitive.def)? */
int report_types_sensitive(const char *name);
/* Its group in src/sensitive.def ("program", "network"...), or NULL. */
const char *report_types_sensitive_group(const char *name);
void report_types_guc(FILE *out, const struct types *T, const char *prefix);
void report_types_json(FILE *out, const struct types *T);
int report_types_table(FILE *out, const struct rep *r, const struct types *T);

/* report_usable.c */
int report_usable(const struct rep *r, char **cause);
int report_usable_types(const struct rep *r, const struct types *T,
			char **cause);

/* report_status.c: --status, and the writer of the HTML page's data */
int report_html(const struct rep_out *w);

/* report_surface.c: the attack-surface score (issue 28 part 4) */
enum surface_kind {
	SURFACE_LIST,           /* the global or the session list */
	SURFACE_TYPE,           /* a list of --per-type */
	SURFACE_BASELINE,       /* src/baselines.def */
};
struct surface_row {
	enum surface_kind kind;
	const char *id;         /* "global", a type (untrusted), "docker" */
	const char *title, *source; /* source: baselines only */
	size_t names, reachable;
	int rules;              /* a list of --args with values: after set */
	size_t after;           /* reachable after argument rules */
	struct strset closed;   /* the CVEs the rules close (lists only) */
};
struct surface_rows {
	struct surface_row *v;
	size_t n, cap;
};
/* The rows of @w's lists (its types with --per-type), then the
 * baselines'. */
int report_surface_rows(const struct rep_out *w, struct surface_rows *s);
void report_surface_rows_free(struct surface_rows *s);
int report_surface_json(const struct rep_out *w);
int report_surface_table(const struct rep_out *w);

/* report_args.c - --args: argument rules (pgsc-report(1), docs/args.md) */
/* Alternatives of one rule at most: the loaders' cap (argrule.c refuses
 * more), so that every printed rule loads in the module and pgsc-exec */
#define REPORT_ARGS_MAX ARGRULE_ALTS_MAX
int report_args_load(const struct rep *r, struct rargs **out);
void report_args_free(struct rargs *A);
void report_args_joined(FILE *out, const struct rargs *A, int l,
			const struct strset *s, const char *sep);
void report_args_comment(FILE *out, const struct rargs *A,
			 const struct lists *L);
void report_args_json(FILE *out, const struct rargs *A, int l,
		      const struct strset *s);
int report_args_plain(const struct rargs *A, int l, const struct strset *s,
		      struct strset *plain);
void report_args_oci(FILE *out, const struct rargs *A, const struct strset *s,
		     int last);
void report_args_systemd(FILE *out, const struct rargs *A,
			 const struct strset *s, int comment);
int report_args_rule(const struct rargs *A, int l, const char *name,
		     struct surface_rule *sr);

#endif /* PGSC_REPORT_INT_H */
