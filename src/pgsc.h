/* SPDX-License-Identifier: PostgreSQL */
/* pgsc.h - public interface of the pgsc core library. */
/*
 * pgsc turns the kernel's SECCOMP audit records into seccomp allow lists
 * for PostgreSQL.  Everything the programs in tools/ do goes through the
 * functions declared here; nothing else in src/ is part of the interface.
 *
 * Conventions:
 *   - functions return 0 (or a count) on success and a negative errno on
 *     failure;
 *   - when a function takes a "char **cause", a human sentence explaining a
 *     failure is stored there; the caller frees it with free();
 *   - objects are opaque, created by pgsc_*_new()/open() and released by
 *     the matching *_free(); *_free(NULL) is a no-op.
 */
#ifndef PGSC_H
#define PGSC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PGSC_VERSION "0.1.0"

/* ------------------------------------------------------------------ */
/* Decoded audit records                                               */
/* ------------------------------------------------------------------ */

/* Bounds for untrusted text taken from a record (see docs/design.md, "Untrusted text"). */
#define PGSC_COMM_MAX 64
#define PGSC_EXE_MAX 4096
#define PGSC_TITLE_MAX 1024
#define PGSC_NODE_MAX 255     /* longer node= names are cut */
#define PGSC_LINE_MAX (64 * 1024)
/* The latest record time accepted: 9999-12-31 23:59:59 UTC.  Beyond it
 * libauparse loses records silently (near 2^63), and times stop being
 * exact in a double with milliseconds. */
#define PGSC_SEC_MAX INT64_C(253402300799)

enum pgsc_rec_type {
	PGSC_REC_OTHER = 0,   /* any record pgsc does not interpret */
	PGSC_REC_SECCOMP,     /* type=SECCOMP (1326) */
	PGSC_REC_SYSCALL,     /* type=SYSCALL (1300) */
	PGSC_REC_EXECVE,      /* type=EXECVE (1309) */
	PGSC_REC_PROCTITLE,   /* type=PROCTITLE (1327) */
	PGSC_REC_EOE,         /* type=EOE (1320) */
};

/* Why a record was rejected.  Stored by name in the rejects table. */
enum pgsc_reject {
	PGSC_REJ_NONE = 0,
	PGSC_REJ_NO_HEADER,     /* no "type=... msg=audit(t:s):" header */
	PGSC_REJ_BINARY,        /* NUL or other control bytes in the line */
	PGSC_REJ_TOO_LONG,      /* line longer than PGSC_LINE_MAX */
	PGSC_REJ_TRUNCATED,     /* a required field is missing or cut */
	PGSC_REJ_BAD_FIELD,     /* a numeric field does not parse */
	PGSC_REJ_DUP_FIELD,     /* a field that must be unique appears twice */
	PGSC_REJ_UNKNOWN_ARCH,  /* arch= that libseccomp does not know */
	PGSC_REJ_BAD_SYSCALL,   /* syscall= that has no name on its arch */
	PGSC_REJ_BAD_TIME,      /* timestamp past PGSC_SEC_MAX (year 9999) */
	PGSC_REJ_DAMAGED,       /* compressed input damaged: the rest of a file */
	PGSC_REJ__COUNT
};

/* One decoded record.  String members point into storage owned by the
 * record and are already un-hexed; they may contain any byte but NUL. */
struct pgsc_record {
	enum pgsc_rec_type type;
	int type_num;           /* numeric audit type, 0 if given by name only */
	int64_t sec;            /* timestamp seconds */
	int msec;               /* timestamp milliseconds */
	uint64_t serial;        /* event serial */
	int has_node;           /* a node= prefix was present */
	char node[PGSC_NODE_MAX + 1]; /* its name, "" without node= */

	int64_t pid, ppid;      /* -1 when absent */
	int64_t uid;            /* uid= (the kernel's, real uid), -1 when absent */
	uint32_t arch;          /* audit arch token, e.g. 0xc000003e */
	int has_arch;
	int64_t syscall;        /* -1 when absent */
	int compat;             /* SECCOMP compat=, -1 when absent */
	uint32_t code;          /* SECCOMP code= (the filter's return value) */
	int success;            /* SYSCALL success=: 1 yes, 0 no, -1 absent */
	int64_t exit;           /* SYSCALL exit= */
	int has_exit;
	uint64_t a0;            /* SYSCALL a0= */
	uint64_t a1, a2, a3;    /* SYSCALL a1= a2= a3= (0 when absent) */
	char comm[PGSC_COMM_MAX + 1];
	char exe[PGSC_EXE_MAX + 1];
	char title[PGSC_TITLE_MAX + 1]; /* PROCTITLE / EXECVE argv, NULs as ' ' */
	int argc;               /* EXECVE argc=, -1 when absent */
};

/**
 * Decode one audit record line (with or without its trailing newline).
 * @param line the text, which need not be NUL-terminated
 * @param len its length in bytes
 * @param rec filled in on success
 * Returns 0, or a positive enum pgsc_reject value saying why the line was
 * refused (never a negative errno: decoding needs no resources).
 */
int pgsc_record_decode(const char *line, size_t len, struct pgsc_record *rec);

/** Returns the stable short name of a reject reason ("truncated", ...). */
const char *pgsc_reject_name(int reason);

/* ------------------------------------------------------------------ */
/* Syscall names                                                       */
/* ------------------------------------------------------------------ */

/**
 * Name of syscall @nr on audit arch token @arch, through libseccomp.
 * Returns a static string owned by the library, or NULL when libseccomp
 * does not know the arch or has no name for the number.
 */
const char *pgsc_syscall_name(uint32_t arch, int nr);

/** Short arch name for an audit arch token ("x86_64", "i386"), or NULL. */
const char *pgsc_arch_name(uint32_t arch);

/** Audit arch token for a short name, or 0 if unknown. */
uint32_t pgsc_arch_token(const char *name);

/** Audit arch token of the machine this library was built for. */
uint32_t pgsc_native_arch(void);

/* ------------------------------------------------------------------ */
/* Roles                                                               */
/* ------------------------------------------------------------------ */

/* Role names stored in the aggregates.  Backend types use PostgreSQL's
 * own spelling ("client backend", "checkpointer", ...).  Descendants are
 * "descendant/<role of the nearest postgres ancestor>". */
#define PGSC_ROLE_POSTMASTER "postmaster"
#define PGSC_ROLE_BACKEND_UNKNOWN "backend"
#define PGSC_ROLE_DESCENDANT "descendant"
#define PGSC_ROLE_STANDALONE "standalone"
#define PGSC_ROLE_UNRELATED "unrelated"
#define PGSC_ROLE_UNATTRIBUTED "unattributed"
/* another program, another uid, no parent: no server's (docs/roles.md) */
#define PGSC_ROLE_FOREIGN "foreign"

/**
 * Backend type named by a PostgreSQL process title ("postgres: checkpointer",
 * "postgres: alice db [local] idle", "postgres: main: walwriter").
 * Returns a static string, or NULL when @title is not a postgres child title.
 */
const char *pgsc_title_role(const char *title);

/**
 * Is @role in the server tree (counted in the global list)?
 * Returns 1 or 0.
 */
int pgsc_role_in_server(const char *role);

/* ------------------------------------------------------------------ */
/* The store                                                           */
/* ------------------------------------------------------------------ */

typedef struct pgsc_store pgsc_store;

#define PGSC_STORE_READONLY 0x1
/* an operand not trusted (pgsc-diff): every statement stops after
 * PGSC_STORE_UNTRUSTED_SECONDS (src/store_check.c) */
#define PGSC_STORE_UNTRUSTED 0x2
#define PGSC_STORE_UNTRUSTED_SECONDS 120

/**
 * Open (creating if needed, with mode 0600) the SQLite store at @path and
 * apply pending schema migrations.  A read-write open is the store's one
 * writer until pgsc_store_free() (an flock() on the file); a read-only
 * open sees one snapshot of the store until pgsc_store_free().
 * Returns 0 and sets *out, or a negative errno and sets *cause: -EBUSY
 * when another process has the store open read-write, -ENOSPC when the
 * disk is full (docs/robustness.md).
 */
int pgsc_store_open(const char *path, int flags, pgsc_store **out,
		    char **cause);

/** Close a store; NULL is a no-op. */
void pgsc_store_free(pgsc_store *st);

/** Schema version of an open store. */
int pgsc_store_schema_version(pgsc_store *st);

/* ------------------------------------------------------------------ */
/* Importing                                                           */
/* ------------------------------------------------------------------ */

struct pgsc_import_opts {
	const char *label;           /* round label, may be NULL */
	const int64_t *postmaster_pids; /* hints, --postmaster-pid */
	size_t n_postmaster_pids;
	int has_server_uid;          /* --server-user: only this uid's */
	uint32_t server_uid;         /*   postgres processes are servers */
	const char *const *pg_logs;  /* hints, --pg-log */
	size_t n_pg_logs;
	const char *pg_log_prefix;   /* log_line_prefix of stderr logs */
	int no_fast_path;            /* feed SECCOMP lines through auparse too */
	int quiet;                   /* no per-line diagnostics */
	size_t max_diagnostics;      /* per file, 0 = default */
	FILE *diag;                  /* where diagnostics go, NULL = stderr */
	int has_since, has_until;    /* --since, --until: SECCOMP records */
	int64_t since, until;        /*   outside [since, until] (seconds)
				      *   are not counted; reading stops at
				      *   the first record after until */
};

struct pgsc_import_stats {
	int64_t round;               /* round created, 0 if none */
	uint64_t lines;
	uint64_t bytes;
	uint64_t seccomp;            /* SECCOMP records counted */
	uint64_t attributed;         /* of those, in a server tree */
	uint64_t unrelated;          /* of those, outside any server tree */
	uint64_t unattributed;       /* of those, not placed (foreign
				      * included) */
	uint64_t foreign;            /* of those, no server's: another
				      * program, another uid, no parent */
	uint64_t standalone;
	uint64_t rejected;           /* lines rejected */
	uint64_t skipped_files;      /* files already fully imported */
	uint64_t processes;
	uint64_t refused_files;      /* inputs not imported: not an audit
				      * log, unreadable, damaged (then what
				      * came before the damage is) */
	uint64_t outside;            /* SECCOMP records outside --since/
				      * --until, not counted */
	uint64_t serial_gaps;        /* serials missing across the files */
	uint64_t serials_untracked;  /* lines of nodes past the bound of
				      * serial sequences: their gaps unknown */
	double seen_first, seen_last; /* the times of every SECCOMP record
				      * read, inside the window or not */
	int store_has_data;          /* earlier rounds hold records */
	uint64_t empty_files;        /* inputs with no complete line */
	uint64_t fifo_no_writer;     /* named FIFOs that gave nothing:
				      * refused (pgsc-collect exits 2) */
	uint64_t until_cut;          /* inputs whose first record is after
				      * --until (seen_first: the earliest) */
};

/**
 * Import audit logs into a new round.  Files may be given in any order;
 * they are read oldest first.  Data already imported is skipped.
 * Returns 0 (stats->round is 0 when nothing new was found), or a negative
 * errno with *cause set.
 */
int pgsc_import(pgsc_store *st, const struct pgsc_import_opts *opts,
		const char *const *files, size_t n_files,
		struct pgsc_import_stats *stats, char **cause);

/**
 * The operands of an import as files: "-" (standard input) and files as
 * they are, a directory replaced by its audit logs (NAME.log,
 * NAME.log.N, NAME.log-DATE, each maybe .gz, .xz or .zst) oldest first;
 * its other entries are skipped with a message on @diag (unless @quiet).
 * pgsc_import() does this itself; pgsc-collect calls it first so that
 * directories are read before its self-filter is loaded.  A directory
 * that cannot be read or holds no log is reported and counted in
 * *refused.  Returns 0 or -ENOMEM; free the list with
 * pgsc_import_expand_free().
 */
int pgsc_import_expand(const char *const *paths, size_t n, FILE *diag,
		       int quiet, char ***out, size_t *n_out, size_t *refused);
void pgsc_import_expand_free(char **v, size_t n);

/**
 * A time for --since/--until: "now", "recent" (10 minutes ago), "today",
 * "yesterday" (their midnight), "week-ago", seconds since the epoch
 * ("1700000000" or "@1700000000"), or ISO 8601 "YYYY-MM-DD",
 * "YYYY-MM-DD HH:MM[:SS]" (or with "T"), local time unless it ends in
 * "Z" or "+HH:MM"/"-HH:MM".  A date alone is its first second, or with
 * @end (--until) its last.  @now is the current time.
 * Returns 0 or -EINVAL.
 */
int pgsc_time_parse(const char *s, int end, int64_t now, int64_t *out);

/* ------------------------------------------------------------------ */
/* Live collection                                                     */

struct pgsc_live_opts {
	const char *source;          /* "plugin", "file:PATH", "netlink";
				      * NULL: netlink when no audit daemon
				      * runs, else file:/var/log/audit/audit.log */
	const char *label;           /* round label, may be NULL */
	char *const *command;        /* wrap mode: argv, NULL-terminated */
	int trace;                   /* run the command under pgsc-exec */
	const char *exec_path;       /* pgsc-exec to use for @trace */
	int load_rules;              /* pgsc's audit rules for the duration */
	int args_rules;              /* with load_rules: the --args rules too */
	uint32_t args_uid;           /*   for this server uid */
	double commit_interval;      /* seconds between commits, 0 = 2 */
	int from_start;              /* file: first run reads what is there */
	const int64_t *postmaster_pids;
	size_t n_postmaster_pids;
	int has_server_uid;          /* as in struct pgsc_import_opts */
	uint32_t server_uid;
	int quiet;
	FILE *diag;                  /* NULL = stderr */
	/* Called once the source and the store are open and (wrap mode)
	 * the command runs, before the first record is read: pgsc-collect
	 * drops privileges and loads its self-filter here (privsep.c).  A
	 * negative return, with *cause set, ends the collection. */
	int (*ready)(void *arg, char **cause);
	void *ready_arg;
};

struct pgsc_live_stats {
	int64_t round;
	uint64_t records;
	uint64_t lost;               /* kernel lost counter delta */
	uint64_t serial_gaps;
	uint64_t serials_untracked;  /* lines of nodes past the bound */
	double longest_wait;         /* s between two commits when more
				      * than the interval (commits that
				      * took long), else 0 */
	int has_exit_status;
	int exit_status;             /* wrap mode: the command's */
	int store_has_data;          /* no records: earlier rounds hold
				      * some (a proof round) */
};

/**
 * Collect from a live source into a round until SIGTERM/SIGINT, the end of
 * the stream (plugin), or, in wrap mode, the end of the command; then read
 * up to an end marker, commit and return.  A round left unfinished by a
 * crashed collector of the same source is continued.
 * Returns 0, or a negative errno with *cause set.
 */
int pgsc_live(pgsc_store *st, const struct pgsc_live_opts *opts,
	      struct pgsc_live_stats *stats, char **cause);

/** Print pgsc's audit rules, as auditctl -R reads them. */
void pgsc_print_rules(FILE *out);

/** Print the narrow rules of --args (key pgsc-args) for server uid @uid:
 * SYSCALL records with the arguments of a fixed set of calls
 * (docs/args.md). */
void pgsc_print_args_rules(FILE *out, uint32_t uid);

/* ------------------------------------------------------------------ */
/* Reports                                                             */
/* ------------------------------------------------------------------ */

enum pgsc_format {
	PGSC_FMT_GUC = 0,
	PGSC_FMT_JSON,
	PGSC_FMT_TABLE,
	PGSC_FMT_SYSTEMD,       /* a unit drop-in: SystemCallFilter= (global) */
	PGSC_FMT_OCI,           /* an OCI runtime seccomp profile (global) */
	PGSC_FMT_SPO,           /* a Security Profiles Operator SeccompProfile */
	PGSC_FMT_EFFECTIVE,     /* rows (syscall, nr, action, context) */
	PGSC_FMT_HTML,          /* one self-contained page (report_html.c) */
};

/* pgsc_report_opts.per_type: each type's calls, or with the global list's
 * calls that are not security-relevant (docs/per-type.md) */
#define PGSC_PER_TYPE_OBSERVED 1
#define PGSC_PER_TYPE_ROUTINE 2
/* --base (spo): the profile as a delta over a runtime's default */
#define PGSC_BASE_NONE 0
#define PGSC_BASE_RUNTIME_DEFAULT 1     /* containerd's (report_spo.c) */

struct pgsc_report_opts {
	enum pgsc_format format;
	int64_t round_from, round_to;   /* 0,0 = all rounds */
	const char *guc_prefix;         /* "" or e.g. "pgseccomp." */
	const char *session_roles;      /* preset or comma list, NULL = default */
	/* report.c, syscall_portable.c (docs/portability.md) */
	uint32_t arch;                  /* --arch: map every name to this arch
					 * token; 0 = names as recorded */
	int portable;                   /* --portable: every family member
					 * that exists (on @arch, else on the
					 * native arch and the recorded ones) */
	int has_default;                /* --default given */
	int def;                        /* enum pgsc_action, for systemd, oci
					 * and effective: the action for what
					 * is not listed (error) */
	FILE *diag;                     /* names with no equivalent on @arch;
					 * NULL = stderr */
	int per_type;                   /* --per-type: a list per backend
					 * type (guc, json, table): 0 none, or
					 * PGSC_PER_TYPE_* */
	const char *node;               /* --node: one node's lists ("" the
					 * local host); NULL = every node's */
	int unknown_default;            /* --unknown-syscall-action default:
					 * the oci profile without ENOSYS */
	int sort;                       /* --sort (html): enum pgsc_sort */
	int explain;                    /* --explain (table, json): why each
					 * name is in the lists
					 * (report_explain.c) */
	int no_programs;                /* --no-programs: the session and
					 * per-type lists without what only
					 * programs below backends need
					 * (report_programs.c) */
	int args;                       /* --args (guc, json, oci, systemd):
					 * argument rules from the stored
					 * values (report_args.c) */
	int surface;                    /* --surface (table): the attack-
					 * surface score instead of the table
					 * (report_surface.c); json and html
					 * always carry it */
	int base;                       /* --base (spo): PGSC_BASE_*, the
					 * global list less a runtime's
					 * default, stacked on it */
};

/* The order of the HTML page's syscall rows (--sort). */
enum pgsc_sort {
	PGSC_SORT_RISK = 0,     /* sensitive.def's calls first, then the
				 * rarest first (the default) */
	PGSC_SORT_RARE,         /* the fewest records first */
	PGSC_SORT_COUNT,        /* the most records first */
	PGSC_SORT_NAME,
	PGSC_SORT_NUMBER,       /* arch, then syscall number */
};

/**
 * Parse a --round value, "N" or "FROM-TO" (rounds count from 1).
 * Returns 0, or -EINVAL.
 */
int pgsc_round_range_parse(const char *s, int64_t *from, int64_t *to);

/**
 * Parse a --session-roles value (a preset "client", "rfc", "pgseccomp",
 * or a comma-separated list of roles).
 * Returns 0, or -EINVAL with *cause set.
 */
int pgsc_session_roles_check(const char *spec, char **cause);

/**
 * Write a report of the store to @out.  Unknown --session-roles names
 * (neither a PostgreSQL backend type nor a role in the store) are -EINVAL.
 * Returns 0; 1 when the report was written but its lists are not worth
 * using (no record attributed to a server, or more than half of them
 * unattributed), with *cause saying what to do; or a negative errno with
 * *cause set.
 */
int pgsc_report(pgsc_store *st, const struct pgsc_report_opts *opts,
		FILE *out, char **cause);

/**
 * Print the loss figures of the selected rounds.
 * Returns 0 when nothing may be missing, 1 when something may be (records
 * lost, or more than half of them unattributed), or a negative errno with
 * *cause set.
 */
int pgsc_check_complete(pgsc_store *st, const struct pgsc_report_opts *opts,
			FILE *out, char **cause);

/**
 * Print every round: records, records/s, syscalls new in it to the server
 * tree (the global list) and to the session roles (the session list, per
 * @opts->session_roles; @opts may be NULL), last event, lag, loss and
 * label; JSON when @opts->format is PGSC_FMT_JSON.  *converged is 1 when
 * the last round is finished and added nothing to either, and the rounds'
 * lists are usable (see pgsc_report()).
 * Returns 0, or a negative errno with *cause set.
 */
int pgsc_status(pgsc_store *st, const struct pgsc_report_opts *opts,
		FILE *out, int *converged, char **cause);

/* ------------------------------------------------------------------ */
/* Escaping of untrusted text                                          */
/* ------------------------------------------------------------------ */

/**
 * The name the library's diagnostics start with ("NAME: ..."): a
 * program's main() sets its own, so that every line of one run has one
 * prefix.  NULL or "" is "pgsc", the default.
 */
void pgsc_set_progname(const char *name);
const char *pgsc_progname(void);

/** Write @s as the body of a JSON string (without the quotes). */
void pgsc_json_escape(FILE *out, const char *s);

/** Write @s with control bytes, quotes, backslashes and invalid UTF-8
 * shown as \xNN, safe for a terminal or a '#' comment line. */
void pgsc_text_escape(FILE *out, const char *s);

/** Is @name safe inside a GUC list (lower-case letters, digits, '_')?
 * Returns 1 or 0. */
int pgsc_guc_name_ok(const char *name);
/* --guc-prefix: "" or one configuration-file identifier and a dot */
int pgsc_guc_prefix_ok(const char *prefix);

/* ------------------------------------------------------------------ */
/* Filters (pgsc-exec)                                                 */
/* ------------------------------------------------------------------ */

enum pgsc_action {
	PGSC_ACT_ALLOW = 0,
	PGSC_ACT_LOG,
	PGSC_ACT_ERROR,
	PGSC_ACT_KILL,
};

/** Parse "allow", "log", "error", "kill". Returns the action or -EINVAL. */
int pgsc_action_parse(const char *s);

/**
 * Build and load a seccomp filter in the calling process: @def for every
 * syscall not in @allow (a comma-separated list of names, may be NULL),
 * on the native arch plus its 32-bit compat arch, with logging of
 * non-allow actions enabled.
 * Returns 0, or a negative errno with *cause set.
 */
int pgsc_filter_load(enum pgsc_action def, const char *allow, char **cause);

/* How pgsc-exec goes on after loading its filter (pgsc_filter_exec_check). */
struct pgsc_exec_plan {
	int use_execveat;       /* execve is refused, execveat allowed */
	int use_exit;           /* exit_group is refused, exit allowed */
	int can_write;          /* 0: a write(2) would kill (kill, no write) */
};

/**
 * Can a process that loads the filter (@def, @allow) still start its
 * command and exit?  Under error and kill the list must allow execve (or
 * execveat) and exit_group (under error, exit will do): after
 * seccomp_load pgsc-exec makes no other call on its way to the command,
 * and a failed exec must still exit (glibc's _exit loops on a refused
 * exit_group and exit, then crashes).  *plan says which calls to use.
 * Returns 0, or -EPERM with *cause naming the missing calls.
 */
int pgsc_filter_exec_check(enum pgsc_action def, const char *allow,
			   struct pgsc_exec_plan *plan, char **cause);

/**
 * Read the allow list for @which ("global" or "session") from a file of
 * GUC lines as written by pgsc-report (any prefix).
 * Returns 0 and a malloc'd comma list in *out, or a negative errno.
 */
int pgsc_guc_file_list(const char *path, const char *which, char **out,
		       char **cause);

/* ------------------------------------------------------------------ */
/* List pairs and their differences (diff.c)                           */
/* ------------------------------------------------------------------ */

/* The two lists of a pair, as indices. */
#define PGSC_LIST_GLOBAL 0
#define PGSC_LIST_SESSION 1

/* What a list pair was read from (found by content, never by name). */
enum pgsc_lists_kind {
	PGSC_LISTS_STORE = 0,   /* a pgsc store: "SQLite format 3\0" */
	PGSC_LISTS_JSON,        /* pgsc-report --format json: starts with '{' */
	PGSC_LISTS_GUC,         /* lines [prefix.]global_syscall_allow = '...' */
};

/* A global and a session list, each a sorted set of syscall names. */
typedef struct pgsc_lists pgsc_lists;

struct pgsc_lists_opts {
	int64_t round_from, round_to;   /* stores only; 0,0 = all rounds */
	const char *session_roles;      /* stores only; NULL = default */
	const char *node;               /* stores only; NULL = every node */
};

/**
 * Read a list pair from @path ("-" is standard input): a pgsc store, a
 * JSON report or a GUC file, told apart by content.  Text input is
 * bounded (16 MiB, 4096 names a list, 64 bytes a name) and every name
 * must match [a-z0-9_]+.
 * @param opts NULL for the defaults
 * Returns 0 and sets *out, or a negative errno with *cause set (file
 * names in it are escaped for a terminal).
 */
int pgsc_lists_load(const char *path, const struct pgsc_lists_opts *opts,
		    pgsc_lists **out, char **cause);

/** Free a list pair; NULL is a no-op. */
void pgsc_lists_free(pgsc_lists *ls);

/** What @ls was read from. */
enum pgsc_lists_kind pgsc_lists_kind(const pgsc_lists *ls);

/** The sorted names of list @which (PGSC_LIST_*); returns their number. */
size_t pgsc_lists_names(const pgsc_lists *ls, int which,
			const char *const **names);

/**
 * The kernel CVEs of pgsc's CVE map (src/cves.def) that list @which
 * (PGSC_LIST_*) of @ls reaches: those with a syscall it allows (the
 * attack-surface score, docs/hardening.md; pgsc-diff's gate).
 */
size_t pgsc_lists_reachable(const pgsc_lists *ls, int which);
/* Does a list of @ls carry argument rules ("socket(a0=1)" in a GUC file,
 * the "args" member of a JSON report)?  A store's lists never do. */
int pgsc_lists_rules(const pgsc_lists *ls);
/* The CVEs list @which reaches after its argument rules
 * (docs/hardening.md, "Attack surface"). */
size_t pgsc_lists_reachable_after(const pgsc_lists *ls, int which);

/** The number of CVEs in pgsc's CVE map. */
size_t pgsc_cve_map_size(void);

/* The differences between two pairs A and B. */
typedef struct pgsc_diff pgsc_diff;

/* One name in one list of A or B but not both. */
struct pgsc_diff_entry {
	const char *name;
	int sign;                       /* '+' only in B, '-' only in A */
	int equivalent;                 /* a family member is on the other
					 * side: not a difference */
	const char *const *with;        /* those members, sorted */
	size_t n_with;
	const char *const *families;    /* the families joining them, sorted */
	size_t n_families;
};

/**
 * Compare @a with @b.  With @equivalent, a name whose family has a
 * member in the other pair's same list is equivalent, not different.
 * Returns 0 and sets *out, or -ENOMEM.
 */
int pgsc_diff_new(const pgsc_lists *a, const pgsc_lists *b, int equivalent,
		  pgsc_diff **out);

/** Free a diff; NULL is a no-op. */
void pgsc_diff_free(pgsc_diff *d);

/** Returns 1 when the pairs have no difference (equivalents allowed). */
int pgsc_diff_equal(const pgsc_diff *d);

/**
 * The entries of list @which: the differences sorted by name, then the
 * equivalents sorted by name.  Returns their number.
 */
size_t pgsc_diff_entries(const pgsc_diff *d, int which,
			 const struct pgsc_diff_entry **entries);

enum pgsc_diff_format {
	PGSC_DIFF_TEXT = 0,
	PGSC_DIFF_MARKDOWN,
	PGSC_DIFF_JSON,
};

/**
 * Write @d in @format; @name_a and @name_b (file names, untrusted) are
 * escaped for the format.
 * Returns 0, or a negative errno when @out cannot be written.
 */
int pgsc_diff_print(const pgsc_diff *d, enum pgsc_diff_format format,
		    const char *name_a, const char *name_b, FILE *out);

/** Print every syscall family with its members and its reason. */
void pgsc_families_print(FILE *out);

/* ------------------------------------------------------------------ */
/* Other arches (syscall_portable.c)                                  */
/* ------------------------------------------------------------------ */

/**
 * Arch token for an --arch value: pgsc's names (x86_64, i386, aarch64,
 * arm, ppc64le, s390x, ...), libseccomp's (x86, ...) or "native".
 * Returns the token, or 0 when the name is unknown.
 */
uint32_t pgsc_arch_parse(const char *name);

/**
 * Does syscall @name exist on @arch (0 = native)?  It does when
 * libseccomp resolves it to a number there, or to the placeholder of a
 * socket or IPC call on an arch that multiplexes those through
 * socketcall() or ipc() (i386, ppc, s390), where a rule for it works.
 * Returns 1; 0 when libseccomp knows the name but @arch lacks it (a
 * rule for it is dropped); -ENOENT for a name libseccomp does not know;
 * -EINVAL for an unknown arch.
 */
int pgsc_syscall_exists(const char *name, uint32_t arch);

struct pgsc_guc_check_opts {
	uint32_t arch;                  /* 0 = native */
	int strict;                     /* names the arch lacks are errors */
};

struct pgsc_guc_check_result {
	size_t errors, warnings;
};

/**
 * Check the [PREFIX.]{global,session}_syscall_* lines of a GUC file
 * (postgresql.conf syntax; "-" is standard input) the way a check hook
 * on @opts->arch would, plus the overlap rules of docs/portability.md.
 * Writes one "FILE:LINE: error|warning: ..." line per finding and a
 * summary to @out, untrusted text escaped.
 * Returns 0 and fills @res, or a negative errno with *cause set when the
 * file cannot be read.
 */
int pgsc_guc_check(const char *path, const struct pgsc_guc_check_opts *opts,
		   FILE *out, struct pgsc_guc_check_result *res,
		   char **cause);

/* ------------------------------------------------------------------ */
/* Effective filters (filter_effective.c)                                     */
/* ------------------------------------------------------------------ */

/* filter_effective.c depends only on libc and libseccomp: the PostgreSQL module
 * (src/pgmodule/) compiles it in.  See docs/module.md. */

/* The four lists and default action of one filter context. */
struct pgsc_filter_spec {
	enum pgsc_action def;           /* default action */
	const char *list[4];            /* indexed by enum pgsc_action
					 * (ALLOW, LOG, ERROR, KILL): comma-
					 * separated names; NULL or "" = empty */
};

/* One syscall's action in a context. */
struct argrule;
struct pgsc_effective_entry {
	const char *name;               /* as listed, without an argument rule */
	int nr;                         /* libseccomp number on the arch; may be a
					 * negative placeholder (libseccomp) */
	enum pgsc_action action;        /* after precedence kill > error > log > allow */
	const struct argrule *args;     /* NULL: unconditional; else the action
					 * applies when the rule matches, the
					 * default otherwise (docs/module.md) */
	const char *rule;               /* args' canonical text "a0=1|2", or NULL */
};

typedef struct pgsc_effective pgsc_effective;

/**
 * Resolve '*' in a session spec: a session list that is exactly "*"
 * (blanks allowed) means "the global context's list of the same action".
 * Writes the resolved spec to *out (pointers into the inputs, no
 * allocation); the default action is copied unchanged.
 * Returns 0, or -EINVAL with *cause set when '*' is mixed with names.
 */
int pgsc_session_spec_resolve(const struct pgsc_filter_spec *global,
			      const struct pgsc_filter_spec *session,
			      struct pgsc_filter_spec *out, char **cause);

/**
 * Compute the effective filter of @spec on @arch (audit/libseccomp arch
 * token, 0 = native): every listed name once, with the strictest action
 * of the lists naming it.  Blanks around names and empty elements are
 * ignored.  A name libseccomp knows but @arch lacks is kept with its
 * negative placeholder number.
 * Returns 0 and sets *out, or -EINVAL with *cause naming (escaped) every
 * unknown name, a '*' or an unknown arch, or -ENOMEM.
 */
int pgsc_effective_new(const struct pgsc_filter_spec *spec, uint32_t arch,
		       pgsc_effective **out, char **cause);

/** The entries of @e, sorted by name; returns their number. */
size_t pgsc_effective_entries(const pgsc_effective *e,
			      const struct pgsc_effective_entry **entries);

/** The default action of @e. */
enum pgsc_action pgsc_effective_default(const pgsc_effective *e);

/** Free @e; NULL is a no-op. */
void pgsc_effective_free(pgsc_effective *e);

/** "allow", "log", "error", "kill" ("?" for anything else). */
const char *pgsc_action_name(enum pgsc_action a);

/** The libseccomp action of @a: ERRNO(EPERM) for error, KILL_PROCESS for
 * kill (pgsc-exec and the module load the same filters). */
uint32_t pgsc_action_scmp(enum pgsc_action a);

/** The 32-bit arch that runs on @native (SCMP_ARCH_*), 0 if none: a
 * filter for the native arch alone kills every compat syscall. */
uint32_t pgsc_compat_arch(uint32_t native);

/* ------------------------------------------------------------------ */
/* Least privilege (privsep.c)                                         */
/* ------------------------------------------------------------------ */

/* Capabilities pgsc-collect may keep after pgsc_priv_drop(). */
#define PGSC_CAP_AUDIT_CONTROL 0x1   /* audit status, registration */
#define PGSC_CAP_AUDIT_WRITE 0x2     /* the drain marker */
#define PGSC_CAP_DAC_READ_SEARCH 0x4 /* a log the user may not read */

/**
 * Become @user (its uid, gid and groups) with only the capabilities in
 * @keep (PGSC_CAP_*), an empty bounding set and no ambient capabilities.
 * @param readable NULL, or a file that must stay readable (the file:
 *        source): CAP_DAC_READ_SEARCH is kept only when @user cannot read
 *        it, or search its directory, by permissions alone
 * @param kept set to the capabilities kept
 * Returns 0, or a negative errno with *cause set.  Needs root.
 */
int pgsc_priv_drop(const char *user, unsigned keep, const char *readable,
		   unsigned *kept, char **cause);

/** Print PGSC_CAP_* flags as "cap_audit_control,..." or "none". */
void pgsc_caps_print(FILE *out, unsigned caps);

/**
 * Load pgsc's own seccomp filter: the global list of the GUC file @path
 * (as tools/pgsc-selflist writes it) allowed, @def for the rest.
 * Returns 0, or a negative errno with *cause set.
 */
int pgsc_self_filter_load(const char *path, enum pgsc_action def,
			  char **cause);

#ifdef __cplusplus
}
#endif

/* ------------------------------------------------------------------ */
/* The installed server (pglayout.c)                                   */
/* ------------------------------------------------------------------ */

struct pgsc_pg_layout {
	char *pg_config;          /* the pg_config that answered, or NULL
				   * (a layout directory without one) */
	char *bindir;             /* holds postgres (unless named by
				   * --pg-config or PG_CONFIG) */
	char *pkglibdir;          /* the server's modules */
	const char *how;          /* "--pg-config", "PG_CONFIG", "PATH",
				   * "Debian", "PGDG" */
};

/**
 * Find the installed server, in one order (docs/live.md, "RHEL and
 * PGDG"): @pg_config (--pg-config) when not NULL, else $PG_CONFIG, each
 * taken as it is; else pg_config in PATH when its bindir holds postgres;
 * else /usr/lib/postgresql/NN/bin (Debian), then /usr/pgsql-NN/bin
 * (PGDG), newest NN first, through their own pg_config or, without one,
 * BINDIR and BINDIR/../lib.  Returns 0, or -ENOENT with *cause set;
 * free with pgsc_pg_layout_clear().
 */
int pgsc_pg_layout_find(const char *pg_config, struct pgsc_pg_layout *out,
			char **cause);
void pgsc_pg_layout_clear(struct pgsc_pg_layout *l);

/* ------------------------------------------------------------------ */
/* Static candidates (pgsc-scan, docs/static.md)                       */
/* ------------------------------------------------------------------ */

struct pgsc_scan_opts {
	const char *server;       /* the postgres binary */
	const char *pkglibdir;    /* its modules (every *.so), or NULL */
	const char *const *extra; /* more objects, taken as modules */
	size_t nextra;
	int indirect;             /* 1: an indirect call reaches every
				   * address-taken function of its object
				   * (default); 0: indirect calls reach
				   * nothing */
	int no_phases;            /* skip the postmaster/children split */
	FILE *progress;           /* a line per step and object, or NULL */
};

enum pgsc_scan_format {
	PGSC_SCAN_TEXT = 0,
	PGSC_SCAN_JSON,
};

/**
 * Scan the server binary, its modules and every library they need, and
 * write the candidate syscalls in @format to @out.
 * Returns 0, or a negative errno with *cause set.
 */
int pgsc_scan(const struct pgsc_scan_opts *opts, enum pgsc_scan_format format,
	      FILE *out, char **cause);

/**
 * The coverage view: each candidate of the pgsc-scan JSON file @path,
 * observed (in which roles) or not, with its reason chain, and the
 * observed syscalls that are not candidates (the scan's misses).
 * Returns 0, or a negative errno with *cause set.
 */
int pgsc_candidates_report(pgsc_store *st, const char *path,
			   const struct pgsc_report_opts *opts, FILE *out,
			   char **cause);

#endif /* PGSC_H */
