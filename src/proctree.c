/* SPDX-License-Identifier: PostgreSQL */
/* proctree.c - the roles of processes, the titles that name them, seeding. */
/*
 * pt_role_of() gives a process of the tree (proctree_index.c) its role from
 * its program, its parents and its title (docs/roles.md); a postgres
 * child whose role can no longer change is folded early (pt_try_rollup()).
 * The ps titles are parsed here with the cluster name a server's
 * auxiliary processes teach.  A round that continues an earlier one seeds
 * the tree with the processes and open counts the last commit stored
 * (proctree_seed(), proctree_seed_open(), proctree_seed_count()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "pglog.h"
#include "proctree.h"
#include "roles.h"
#include "proctree-int.h"

static const char *title_rest(const char *title);
static const char *title_cluster(const char *rest, size_t *n);
static const char *title_role_in(const char *title, const char *cluster,
				 size_t clen);

/* ---------------------------------------------------------------- */
/* Roles                                                              */

static int
exe_is(const struct proc *p, const char *name)
{
	const char *b;

	if (p->exe == NULL)
		return 0;
	b = strrchr(p->exe, '/');
	b = b ? b + 1 : p->exe;
	return strcmp(b, name) == 0;
}

/*
 * Does an argv say this postgres runs without a postmaster?  PostgreSQL
 * takes these modes only as argv[1]; "-C name" may come anywhere.  Only
 * argv[1] is tested for the others, so that an option value holding one
 * of the words ("-c cluster_name='x -V'") cannot make a server vanish
 * from the lists.
 */
static int
standalone_argv(const char *argv)
{
	static const char *const first[] = {
		"--single", "--boot", "--describe-config", "-V", "--version",
		"--check", "-?", "--help", "-C",
	};
	const char *p, *w, *e;
	size_t n;

	if (argv == NULL || (p = strchr(argv, ' ')) == NULL)
		return 0;
	w = p + 1;
	e = strchr(w, ' ');
	n = e ? (size_t)(e - w) : strlen(w);
	for (size_t i = 0; i < ARRAY_SIZE(first); i++)
		if (strlen(first[i]) == n && memcmp(w, first[i], n) == 0)
			return 1;
	/* "-C" later, as a word of its own, followed by a GUC name */
	for (p = strstr(argv, " -C "); p != NULL; p = strstr(p + 1, " -C ")) {
		w = p + 4;
		if ((*w >= 'a' && *w <= 'z') || *w == '_')
			return 1;
	}
	return 0;
}

static int
has_tool_ancestor(const struct proc *p)
{
	for (int d = 0; p != NULL && d < MAX_DEPTH; d++, p = p->parent)
		if (exe_is(p, "initdb") || exe_is(p, "pg_upgrade"))
			return 1;
	return 0;
}

static int
hinted_pid(const struct proctree *t, int64_t pid)
{
	for (size_t i = 0; i < t->hints.n_postmaster_pids; i++)
		if (t->hints.postmaster_pids[i] == pid)
			return 1;
	return 0;
}

/* --postmaster-pid names pids of this host: not another node's. */
static int
hinted_postmaster(const struct proctree *t, const struct proc *p)
{
	if (p->node != NULL)
		return 0;
	for (size_t i = 0; i < t->hints.n_postmaster_pids; i++)
		if (t->hints.postmaster_pids[i] == p->pid)
			return 1;
	return 0;
}

static const char *
pglog_type(const struct proctree *t, const struct proc *p)
{
	if (t->hints.pglog == NULL)
		return NULL;
	return pglog_lookup(t->hints.pglog, p->pid, p->first_t);
}

static const char *
descendant_of(struct proctree *t, const char *ar)
{
	char buf[160];

	if (!pgsc_role_in_server(ar) || roles_is_descendant(ar))
		return ar;
	if (roles_descendant(buf, sizeof(buf), ar) < 0)
		return ar;
	return pt_intern(t, buf);
}

/*
 * A postgres child's title teaches its parent (if that is a postmaster:
 * the server) its cluster_name, when it is an auxiliary process's title
 * (title_cluster(): never a client's).  The first one counts.
 */
static void
learn_cluster(struct proctree *t, struct proc *p)
{
	const char *c;
	size_t n = 0;

	if (p->title == NULL || p->parent == NULL || p->parent->cluster != NULL ||
	    !pt_is_pg(p) || !pt_is_pg(p->parent))
		return;
	c = title_cluster(title_rest(p->title), &n);
	if (c == NULL)
		return;
	p->parent->cluster = strndup(c, n);
	if (p->parent->cluster == NULL)
		t->oom = 1;
}

/* The role a postmaster's postgres child's title names, parsed with the
 * server's cluster name; NULL without a server title. */
static const char *
child_title_role(struct proctree *t, struct proc *p)
{
	const char *c;

	if (p->title == NULL)
		return NULL;
	learn_cluster(t, p);
	c = p->parent != NULL ? p->parent->cluster : NULL;
	return title_role_in(p->title, c, c != NULL ? strlen(c) : 0);
}

/*
 * May a title (alone) place @p, a postgres process whose parent is not in
 * memory, in a server?  Only when no parent observed says otherwise:
 * every ppid= of its SYSCALL records (the first, and a later different
 * one) must be a postmaster we know, named by --postmaster-pid or in
 * memory with that role.  A process whose exit record shows ppid=1 is
 * nobody's checkpointer, whatever its title (docs/security.md).
 */
static int
title_parent_ok(struct proctree *t, struct proc *p, int depth)
{
	int64_t pp[2] = { p->ppid_hint, p->ppid_other };

	if (p->parent != NULL)
		return 0;
	for (int k = 0; k < 2; k++) {
		struct proc *q;

		if (pp[k] < 0)
			continue;
		if (p->node == NULL && hinted_pid(t, pp[k]))
			continue;
		q = pt_map_get(t, p->node, pp[k]);
		if (q == NULL || q == p || !pt_is_pg(q) ||
		    strcmp(pt_role_of(t, q, 0, depth + 1), PGSC_ROLE_POSTMASTER) != 0)
			return 0;
	}
	return 1;
}

/* The type of a postmaster's postgres child. */
static const char *
backend_type(struct proctree *t, struct proc *p)
{
	const char *r = NULL;

	if (p->title != NULL)
		r = child_title_role(t, p);
	if (r == NULL)
		r = pglog_type(t, p);
	if (r != NULL && strcmp(r, "standalone backend") == 0)
		r = PGSC_ROLE_STANDALONE;
	if (r == NULL || strcmp(r, "postmaster") == 0)
		r = PGSC_ROLE_BACKEND_UNKNOWN;
	return pt_intern(t, r);
}

/*
 * The role of a process (see docs/roles.md).  @memo caches results on the
 * process; without it the role is computed afresh, for early rollup.
 */
const char *
pt_role_of(struct proctree *t, struct proc *p, int memo, int depth)
{
	const char *r;
	struct proc *par = p->parent, *a;

	if (p->rolled != NULL)
		return p->rolled;
	if (p->fixed != NULL)
		return p->fixed;
	if (memo && p->role != NULL)
		return p->role;
	if (depth > MAX_DEPTH || p->role_busy)
		return PGSC_ROLE_UNATTRIBUTED;
	p->role_busy = 1;
	if (pt_is_pg(p)) {
		if (par != NULL && pt_is_pg(par)) {
			const char *pr = pt_role_of(t, par, memo, depth + 1);

			if (strcmp(pr, PGSC_ROLE_POSTMASTER) == 0)
				r = backend_type(t, p);
			else
				r = descendant_of(t, pr);
		} else if (standalone_argv(p->argv) || has_tool_ancestor(p)) {
			r = PGSC_ROLE_STANDALONE;
		} else if (hinted_postmaster(t, p) || p->has_pg_child ||
			   (p->argv != NULL && par != NULL)) {
			r = PGSC_ROLE_POSTMASTER;
		} else {
			const char *lt = pglog_type(t, p);

			if (lt != NULL && strcmp(lt, "standalone backend") == 0)
				r = PGSC_ROLE_STANDALONE;
			else if (lt != NULL)
				r = pt_intern(t, lt);
			else if (p->title != NULL && pgsc_title_role(p->title) &&
				 title_parent_ok(t, p, depth))
				r = pt_intern(t, pgsc_title_role(p->title));
			else
				r = PGSC_ROLE_UNATTRIBUTED;
		}
	} else {
		int d = 0;

		for (a = par; a != NULL && !pt_is_pg(a) && d < MAX_DEPTH; a = a->parent)
			d++;
		if (a != NULL && pt_is_pg(a))
			r = descendant_of(t, pt_role_of(t, a, memo, depth + 1));
		else if (par != NULL)
			r = PGSC_ROLE_UNRELATED;
		else if (p->uid >= 0 && !proctree_uid_is_server(t, p->uid))
			/* not the server's binary, not a server's uid, no
			 * parent: no server's (docs/roles.md §2, foreign) */
			r = PGSC_ROLE_FOREIGN;
		else
			r = PGSC_ROLE_UNATTRIBUTED;
	}
	p->role_busy = 0;
	if (memo)
		p->role = r;
	return r;
}

/* ---------------------------------------------------------------- */
/* Roles no later record can change (an import's early fold)         */

/* A bound on the chains pt_final_role() follows, well below MAX_DEPTH:
 * pt_role_of() at the end then meets no depth limit on them either. */
#define FINAL_DEPTH 64

/*
 * Is what pt_role_of() reads of @p final?  A process that exited after
 * its fork record was seen gets no record, no exec, no uid and no parent
 * any more: a later record of its pid makes a new process (pt_current(),
 * do_fork()), a late fork record adopts only a process whose fork was not
 * seen, and a late title goes only to the last exit without one
 * (late_title(): t->exit_p).  A seeded process, or one with a role
 * carried over, is left to the end.
 */
static int
settled(const struct proctree *t, const struct proc *p)
{
	return p != NULL && p->exited && p->forked && p->parent != NULL &&
	       !p->provisional && !p->seeded && p->fixed == NULL &&
	       !p->role_busy && (p != t->exit_p || p->title != NULL);
}

/* has_tool_ancestor() true for good: an initdb or pg_upgrade settled
 * above @p, through settled processes (whose parents are final). */
static int
final_tool_ancestor(const struct proctree *t, const struct proc *p)
{
	for (int d = 1; d < FINAL_DEPTH; d++) {
		p = p->parent;
		if (!settled(t, p))
			return 0;
		if (exe_is(p, "initdb") || exe_is(p, "pg_upgrade"))
			return 1;
	}
	return 0;
}

/*
 * The role pt_role_of() will give @p at the end of an import, when no
 * later record can change it; NULL when one may (or when it is not worth
 * finding out: the end computes it).  @p and what its role is read from
 * must be settled: its parents up to a process whose role is final, a
 * rolled-up one (pt_try_rollup()) or one of these.  A postmaster's child
 * is left to pt_try_rollup() (its title's role waits for the server's
 * cluster name), and so is every role read from a title, a --pg-log or a
 * process without a parent: those can change until the end.
 */
const char *
pt_final_role(struct proctree *t, struct proc *p, int depth)
{
	const char *r;
	struct proc *a;

	if (depth > FINAL_DEPTH || !settled(t, p))
		return NULL;
	if (p->rolled != NULL)
		return p->rolled;
	if (pt_is_pg(p)) {
		if (!settled(t, p->parent))
			return NULL;
		if (!pt_is_pg(p->parent))
			return standalone_argv(p->argv) ||
			       final_tool_ancestor(t, p) ?
				       PGSC_ROLE_STANDALONE : NULL;
		r = pt_final_role(t, p->parent, depth + 1);
		if (r == NULL || strcmp(r, PGSC_ROLE_POSTMASTER) == 0)
			return NULL;
		return descendant_of(t, r);
	}
	/* the nearest postgres ancestor's, as pt_role_of() walks to it */
	a = p->parent;
	for (int d = 0; d < FINAL_DEPTH; d++, a = a->parent) {
		if (!settled(t, a))
			return NULL;
		if (!pt_is_pg(a))
			continue;
		r = pt_final_role(t, a, depth + 1);
		return r != NULL ? descendant_of(t, r) : NULL;
	}
	return NULL;
}

/*
 * A postgres child of a postmaster that has exited with its title known
 * will not change role any more: fold its counts now, so memory stays
 * bounded by the live processes, not by every backend of a long run.
 */
void
pt_try_rollup(struct proctree *t, struct proc *p)
{
	const char *r;

	if (!p->exited || !p->forked || p->provisional || p->title == NULL ||
	    !pt_is_pg(p) || !pt_is_pg(p->parent))
		return;
	p->parent->has_pg_child = 1;
	if (strcmp(pt_role_of(t, p->parent, 0, 0), PGSC_ROLE_POSTMASTER) != 0)
		return;
	r = child_title_role(t, p);
	if (r == NULL)
		return;
	/* "X: ..." before the server's cluster name is known: X may be the
	 * cluster (a walsender's title then reads as a client's), so the
	 * role may still change; proctree_prune() folds it later */
	if (p->parent->cluster == NULL && title_rest(p->title) != NULL) {
		const char *w = title_rest(p->title), *sp = strchr(w, ' ');

		if (sp != NULL && sp > w && sp[-1] == ':')
			return;
	}
	pt_fold(t, p, pt_intern(t, r));
}

/* Set @p's title (when @title is not empty) and learn its server's
 * cluster name from it. */
void
pt_title_set(struct proctree *t, struct proc *p, const char *title)
{
	pt_set_str(t, &p->title, title);
	learn_cluster(t, p);
}

/* ---------------------------------------------------------------- */
/* Seeding: processes carried over from an earlier round              */

int
proctree_seed(struct proctree *t, const struct proc_info *pi)
{
	struct proc *p, *par = NULL;
	const char *node = pt_node_intern(t, pi->node);

	if (pi->parent_known && pi->ppid >= 0)
		par = pt_map_get(t, node, pi->ppid);
	p = pt_proc_new(t, node, pi->pid, pi->birth);
	if (p == NULL)
		return -ENOMEM;
	p->parent = par;
	if (par != NULL)
		par->nkids++;
	p->ppid_hint = pi->ppid;
	p->forked = par != NULL;
	p->fork_known = pi->parent_known ? 1 : 0;
	p->birth_serial = pi->birth_serial;
	p->birth_t = pi->birth;
	p->last_t = pi->last;
	p->seeded = 1;
	t->nseeded++;
	p->stored = 1;
	p->key_birth = pi->birth;
	pt_note_uid(t, p, pi->uid);
	pt_set_str(t, &p->exe, pi->exe);
	pt_set_str(t, &p->comm, pi->comm);
	pt_set_str(t, &p->title, pi->title);
	if (pi->role != NULL && strcmp(pi->role, PGSC_ROLE_UNATTRIBUTED) != 0 &&
	    strcmp(pi->role, PGSC_ROLE_FOREIGN) != 0)
		p->fixed = pt_intern(t, pi->role);
	return t->oom ? -ENOMEM : 0;
}

/*
 * A process's birth in the store (processes and open_counts are keyed by
 * pid and birth): the time of its fork record, or of its first record
 * when no fork record was seen, until a commit writes it; from then on
 * the birth it was written under, whatever comes later.  A child whose
 * records come before its parent's fork record (always for posix_spawn
 * and vfork children) used to be written under its first record's time
 * while provisional, then under the fork's once the fork record adopted
 * it, and its first row stayed behind as a live process with no parent.
 * A restart seeded that ghost once the real process had exited (or was
 * pruned); it took the pid, and the records of the pid's next process
 * that came before their fork record were counted to it, as
 * unattributed: the crash-live "unattributed|126" failure (pg_ctl's
 * spawn of 126 records in the recorded log; tests
 * test_restart_adopted_exited, test_restart_adopted_pruned).  An import
 * writes each process once, at the end: births there are fork times.
 */
double
pt_proc_birth(const struct proc *p)
{
	if (p->stored)
		return p->key_birth;
	return p->forked ? p->birth_t : p->first_t;
}

/*
 * Continue a crashed live round (src/live.c): seed a process the last
 * commit left open.  Unlike proctree_seed(), a provisional committed role
 * is not kept when the parent is in memory: the role is computed again
 * through it, as an uninterrupted run would.  The open counts follow with
 * proctree_seed_count().  Call oldest first, so that parents come first.
 */
int
proctree_seed_open(struct proctree *t, const struct proc_info *pi)
{
	struct proc *p, *q = pt_map_get(t, pt_node_intern(t, pi->node), pi->pid);
	int rc;

	/*
	 * A provisional process that a fork record adopted later has a new
	 * birth (the fork's): its row of the earlier commit stays behind,
	 * as not exited.  It must not hide the adopted process of its pid:
	 * while that one lives, records of the pid are its own, so no other
	 * process of the pid without a fork record can start after it.
	 * Its open counts (if any) then stay in the committed base.
	 */
	if (q != NULL && !q->exited && (q->forked || q->fork_known) &&
	    !pi->parent_known &&
	    pi->birth + 0.001 >= q->birth_t)
		return 0;
	rc = proctree_seed(t, pi);
	if (rc < 0)
		return rc;
	p = pt_map_get(t, pt_node_intern(t, pi->node), pi->pid);
	p->records = pi->records;
	p->exited = pi->exited ? 1 : 0;
	if (p->fixed != NULL && p->parent != NULL && roles_provisional(p->fixed))
		p->fixed = NULL;
	/* the processes table keeps the argv where no title is known */
	if (p->title != NULL && pgsc_title_role(p->title) == NULL &&
	    p->argv == NULL) {
		p->argv = p->title;
		p->title = NULL;
	}
	/* a role its title alone gave (no fork record seen) is computed
	 * again from the title and the ppid= kept in its row: a later
	 * ppid= may still revoke it (title_parent_ok()), as it does in an
	 * uninterrupted run */
	if (p->fixed != NULL && !pi->parent_known && p->title != NULL &&
	    pt_is_pg(p))
		p->fixed = NULL;
	if (p->parent != NULL && pt_is_pg(p) && pt_is_pg(p->parent))
		p->parent->has_pg_child = 1;
	learn_cluster(t, p);
	return t->oom ? -ENOMEM : 0;
}

int
proctree_seed_count(struct proctree *t, const struct proc_count *c)
{
	struct proc *p = pt_map_get(t, pt_node_intern(t, c->node), c->pid);

	if (p == NULL || !p->seeded || pt_proc_birth(p) != c->birth ||
	    c->count == 0)
		return 0;
	if (!c->pending) {
		pt_sys_add(t, p, c->arch, c->nr, c->count, c->first, c->last);
		return t->oom ? -ENOMEM : 1;
	}
	if (p->forked || p->rolled != NULL || p->npend + c->count > PEND_MAX)
		return 0;
	if (p->npend + c->count > p->cappend) {
		size_t ncap = p->cappend ? p->cappend : 32;
		struct pend *np;

		while (ncap < p->npend + c->count)
			ncap *= 2;
		np = realloc(p->pend, ncap * sizeof(*np));
		if (np == NULL)
			return -ENOMEM;
		p->pend = np;
		p->cappend = ncap;
	}
	for (uint64_t k = 0; k < c->count; k++)
		p->pend[p->npend++] = (struct pend){ c->arch, c->nr, c->first };
	if (!p->provisional) {
		p->provisional = 1;
		if (!p->in_fifo)
			pt_fifo_push(t, p);
	}
	return t->oom ? -ENOMEM : 1;
}

/* ---------------------------------------------------------------- */
/* Titles                                                             */

static int
word_eq(const char *s, const char *w)
{
	size_t n = strlen(w);

	return strncmp(s, w, n) == 0 && (s[n] == '\0' || s[n] == ' ');
}

/*
 * The titles of PostgreSQL 15 to 18's own processes (docs/roles.md §4):
 * an auxiliary process shows its backend type, a background worker of
 * the server its bgw_name.  The logical replication workers' titles
 * (split by type from PostgreSQL 16 on: apply, tablesync, parallel
 * apply) all give "logical replication worker", the one type the module
 * filters them as.  PostgreSQL 18's dead-end client backend has no title
 * of its own: it exits before it sets one, and reads as "backend" unless
 * --pg-log names it.
 */
static const struct { const char *prefix, *role; } aux_titles[] = {
	{ "autovacuum launcher", "autovacuum launcher" },
	{ "autovacuum worker", "autovacuum worker" },
	{ "background writer", "background writer" },
	{ "checkpointer", "checkpointer" },
	{ "walwriter", "walwriter" },
	{ "walreceiver", "walreceiver" },
	{ "archiver", "archiver" },
	{ "startup", "startup" },
	{ "logger", "logger" },
	{ "stats collector", "stats collector" },
	{ "logical replication launcher", "logical replication launcher" },
	{ "logical replication worker", "logical replication worker" },
	{ "logical replication apply worker", "logical replication worker" },
	{ "logical replication tablesync worker", "logical replication worker" },
	{ "logical replication parallel apply worker",
	  "logical replication worker" },
	{ "parallel worker", "parallel worker" },
	{ "walsummarizer", "walsummarizer" },
	{ "slotsync worker", "slotsync worker" },
	{ "io worker", "io worker" },
};

/* What follows "postgres: " (or "postmaster: "); NULL for another title. */
static const char *
title_rest(const char *title)
{
	if (title == NULL)
		return NULL;
	if (strncmp(title, "postgres: ", 10) == 0)
		return title + 10;
	if (strncmp(title, "postmaster: ", 12) == 0)
		return title + 12;
	return NULL;
}

static const char *
aux_role(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(aux_titles); i++)
		if (word_eq(s, aux_titles[i].prefix))
			return aux_titles[i].role;
	return NULL;
}

/*
 * Is there a client's host word ("[local]", or "addr(port)") at or after
 * the third word of @s?  A client backend's title is "user database host
 * activity" (PostgreSQL 15, BackendInitialize()), the host word always
 * there; the user and database names may hold spaces, so the host word
 * may come later, never earlier.  No auxiliary process has one.
 */
static int
has_host_word(const char *s)
{
	const char *w2 = s;

	for (int k = 0; k < 2 && w2 != NULL; k++) {
		w2 = strchr(w2, ' ');
		if (w2 != NULL)
			w2++;
	}
	if (w2 == NULL)
		return 0;
	for (const char *h = w2; h != NULL && *h != '\0'; ) {
		size_t hl = strcspn(h, " ");

		if ((hl == 7 && strncmp(h, "[local]", 7) == 0) ||
		    (hl > 2 && h[hl - 1] == ')' && memchr(h, '(', hl) != NULL))
			return 1;
		h = strchr(h, ' ');
		if (h != NULL)
			h++;
	}
	return 0;
}

/*
 * The cluster name a title of an auxiliary process shows: "C: AUX..."
 * with C one word and AUX an auxiliary process's name, and no client's
 * host word anywhere.  A client backend's title always has a host word,
 * so no client can teach a cluster name (a role "a:" on a database
 * "checkpointer" is "a: checkpointer [local] idle").  Returns C and its
 * length in *@n, or NULL.
 */
static const char *
title_cluster(const char *rest, size_t *n)
{
	const char *sp;

	if (rest == NULL || (sp = strchr(rest, ' ')) == NULL ||
	    sp - rest < 2 || sp[-1] != ':')
		return NULL;
	if (aux_role(sp + 1) == NULL || has_host_word(rest))
		return NULL;
	*n = (size_t)(sp - 1 - rest);
	return rest;
}

/*
 * The backend type a title names, with @cluster (@clen bytes; NULL when
 * none is known) the cluster_name of the server the process belongs to:
 * "postgres: " then "CLUSTER: " when that server has one, then
 *   "walsender user [database] host activity",
 *   "user database host activity" (a client backend),
 *   an auxiliary process's name ("checkpointer", "autovacuum worker db"),
 *   anything else: a background worker's type.
 * The user and database names are the client's: they are never read as
 * a cluster name or a backend type.  One ambiguity is PostgreSQL's own:
 * a client whose role is named "walsender" shows the title of a
 * walsender (docs/roles.md).
 */
static const char *
title_role_in(const char *title, const char *cluster, size_t clen)
{
	const char *s = title_rest(title), *r;

	if (s == NULL)
		return NULL;
	if (cluster != NULL && strncmp(s, cluster, clen) == 0 &&
	    s[clen] == ':' && s[clen + 1] == ' ')
		s += clen + 2;
	if (*s == '\0')
		return NULL;
	if (word_eq(s, "walsender") && has_host_word(s))
		return "walsender";
	if (has_host_word(s))
		return "client backend";
	r = aux_role(s);
	return r != NULL ? r : "background worker";
}

/*
 * Without knowing the server: the cluster name only from the title
 * itself, when it is an auxiliary process's ("postgres: main: walwriter").
 */
const char *
pgsc_title_role(const char *title)
{
	const char *c;
	size_t n = 0;

	c = title_cluster(title_rest(title), &n);
	return title_role_in(title, c, n);
}
