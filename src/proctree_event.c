/* SPDX-License-Identifier: PostgreSQL */
/* proctree_event.c - the audit events that make, exec and end processes. */
/*
 * SECCOMP records carry pid, comm and exe but no ppid, so the tree comes
 * from the SYSCALL records of pgsc.rules (docs/design.md §3):
 *   fork/vfork/clone/clone3  pid= is the parent, exit= the child;
 *   execve/execveat          exe= is the new program, EXECVE its argv;
 *   exit_group (postgres)    PROCTITLE is the title that gives the type.
 *
 * A process is its pid plus its birth (the fork record), never the pid
 * alone: pids are reused (132 backends in 5 s under pgbench -C).
 *
 * A child's records often arrive before its parent's fork record (always
 * with vfork-style spawns, up to 262 records), because the parent's record
 * is written when its syscall returns.  Records of a pid we have no live
 * process for therefore start a provisional process whose records are
 * kept one by one, with their times.  When the fork record arrives, the
 * records at or after the fork time (timestamps are taken at syscall
 * entry and never put a child first) move to the child.  A provisional
 * process that no fork record claims within SETTLE_SECS of stream time,
 * or that grows past PEND_MAX records, is settled: a process that existed
 * before collection started (or a log recorded without the rules).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "proctree.h"
#include "proctree-int.h"

static double
rec_time(const struct pgsc_record *r)
{
	return (double)r->sec + r->msec / 1000.0;
}

static const char *
rec_node(struct proctree *t, const struct pgsc_record *r)
{
	return r->has_node ? pt_node_intern(t, r->node) : NULL;
}

static void
seccomp_record(struct proctree *t, const struct pgsc_record *r)
{
	double when = rec_time(r);
	struct proc *p = pt_current(t, rec_node(t, r), r->pid, when);

	if (p == NULL)
		return;
	if (when < p->first_t)
		p->first_t = when;
	if (when > p->last_t)
		p->last_t = when;
	p->records++;
	pt_note_exe(t, p, r->exe, r->comm, when);
	pt_note_uid(t, p, r->uid);
	if (p->provisional) {
		if (p->npend == p->cappend) {
			size_t ncap = p->cappend ? p->cappend * 2 : 8;
			struct pend *np;

			if (p->npend >= PEND_MAX) {
				pt_settle(t, p);
				goto counted;
			}
			np = realloc(p->pend, ncap * sizeof(*np));
			if (np == NULL) {
				t->oom = 1;
				return;
			}
			p->pend = np;
			p->cappend = ncap;
		}
		p->pend[p->npend++] = (struct pend){ r->arch, (int32_t)r->syscall,
						     when };
		return;
	}
counted:
	pt_sys_add(t, p, r->arch, (int32_t)r->syscall, 1, when, when);
}

/* ---------------------------------------------------------------- */
/* Events                                                             */

/* The live process an event's SYSCALL record is of, told what the
 * record says of it. */
static struct proc *
event_proc(struct proctree *t, const struct event *e)
{
	struct proc *p = pt_current(t, e->node, e->pid, e->t);

	if (p == NULL)
		return NULL;
	pt_note_ppid(p, e->ppid);
	pt_note_exe(t, p, e->exe, e->comm, e->t);
	pt_note_uid(t, p, e->uid);
	return p;
}

static void
do_fork(struct proctree *t, struct event *e)
{
	struct proc *parent, *child, *cur;
	const char *name = pgsc_syscall_name(e->arch, (int)e->syscall);

	if (e->success != 1 || !e->has_exit || e->exit <= 0)
		return;
	/* clone(CLONE_THREAD) makes a thread, not a process; clone3 hides
	 * its flags, but a thread's id never appears as a record's pid=
	 * (always a tgid), so such a child just stays empty. */
	if (name != NULL && strcmp(name, "clone") == 0 &&
	    (e->a0 & CLONE_THREAD_FLAG))
		return;
	parent = event_proc(t, e);
	if (parent == NULL)
		return;

	cur = pt_map_get(t, e->node, e->exit);
	if (cur != NULL && !cur->forked && cur->first_t + 0.0005 >= e->t &&
	    (cur->parent == NULL)) {
		/* the child's records came first: adopt them */
		child = cur;
	} else {
		child = pt_proc_new(t, e->node, e->exit, e->t);
		if (child == NULL)
			return;
		if (cur != NULL && cur->provisional && !cur->forked) {
			/* an older process of the same pid: records at or
			 * after the fork time belong to the new child */
			size_t k = 0;

			for (size_t i = 0; i < cur->npend; i++) {
				struct pend *pe = &cur->pend[i];

				if (pe->t + 0.0005 >= e->t) {
					pt_sys_add(t, child, pe->arch, pe->nr, 1,
						pe->t, pe->t);
					child->records++;
					cur->records--;
				} else {
					cur->pend[k++] = *pe;
				}
			}
			cur->npend = k;
			if (child->records > 0) {
				child->exe = cur->exe ? strdup(cur->exe) : NULL;
				child->comm = cur->comm ? strdup(cur->comm) : NULL;
				child->exe_t = cur->exe_t;
			}
			cur->exited = 1;
		} else if (cur != NULL && cur != child) {
			/* the kernel gave its pid to a new process: the
			 * old holder is gone, whether its exit was seen
			 * or not (killed by a signal: no exit_group) */
			cur->exited = 1;
		}
	}
	child->parent = parent;
	parent->nkids++;
	child->forked = 1;
	child->clone3 = name != NULL && strcmp(name, "clone3") == 0;
	/* a fork keeps the uid; a record of the child's own may say more */
	if (child->records == 0) {
		child->uid = parent->uid;
		child->foreign = parent->foreign;
	}
	child->birth_serial = e->serial;
	child->birth_t = e->t;
	if (e->t < child->first_t)
		child->first_t = e->t;
	if (child->provisional)
		pt_settle(t, child);
	/* Until it execs, a child runs its parent's program. */
	if (child->exe == NULL)
		pt_note_exe(t, child, parent->exe, parent->comm, e->t - 1e-6);
	pt_try_rollup(t, child);
}

static void
apply_event(struct proctree *t, struct event *e)
{
	const char *name = pgsc_syscall_name(e->arch, (int)e->syscall);
	struct proc *p;

	if (name == NULL)
		return;
	if (strcmp(name, "clone") == 0 || strcmp(name, "clone3") == 0 ||
	    strcmp(name, "fork") == 0 || strcmp(name, "vfork") == 0) {
		do_fork(t, e);
		pt_args_note(t, e, 1);
		return;
	}
	pt_args_note(t, e, 0);
	if (strcmp(name, "execve") == 0 || strcmp(name, "execveat") == 0) {
		if (e->success != 1)
			return;
		p = pt_current(t, e->node, e->pid, e->t);
		if (p == NULL)
			return;
		pt_note_ppid(p, e->ppid);
		/* exe= of the execve record is the new program */
		p->execd = 1;
		pt_set_str(t, &p->exe, e->exe);
		pt_set_str(t, &p->comm, e->comm);
		p->exe_t = e->t;
		/* the uid after the exec is the new program's (a setuid
		 * one's is not a server's uid) */
		pt_note_uid(t, p, e->uid);
		if (e->argv != NULL)
			pt_set_str(t, &p->argv, e->argv);
		return;
	}
	/* exit (a thread's) does not end the process: only exit_group */
	if (strcmp(name, "exit_group") == 0) {
		p = event_proc(t, e);
		if (p == NULL)
			return;
		if (e->title != NULL)
			pt_title_set(t, p, e->title);
		if (e->t > p->last_t)
			p->last_t = e->t;
		p->exited = 1;
		if (e->title == NULL) {
			t->exit_p = p;
			t->exit_serial = e->serial;
			t->exit_node = e->node;
		}
		pt_try_rollup(t, p);
		return;
	}
	/* any other audited syscall still tells us who the caller is */
	p = pt_map_get(t, e->node, e->pid);
	if (p != NULL && !p->exited)
		pt_note_ppid(p, e->ppid);
}

/*
 * A PROCTITLE record after its event was applied: a live collector whose
 * commit was due hands over an event auparse still held (src/feed.c) when
 * the rest of it has not come for a commit interval (a writer that paused
 * mid-event: crash-live under load), and the title of an exit_group comes
 * alone.  It is the title of the last exit_group applied without one when
 * the serial is the same; after a restart (the hand-over, the commit, the
 * kill), of the one seeded process that exited at its time without a
 * title.  Without it a backend stayed "backend" (157 records in one
 * crash-live run).
 */
static void
late_title(struct proctree *t, const struct pgsc_record *r)
{
	const char *node = rec_node(t, r);
	struct proc *p = NULL;
	double when = rec_time(r);

	if (r->title[0] == '\0')
		return;
	if (t->exit_p != NULL && t->exit_serial == r->serial &&
	    t->exit_node == node) {
		p = t->exit_p;
	} else if (t->exit_p == NULL && t->nseeded > 0) {
		for (size_t i = 0; i < t->nall; i++) {
			struct proc *q = t->all[i];

			if (!q->seeded || !q->exited || q->title != NULL ||
			    q->node != node || q->last_t != when)
				continue;
			if (p != NULL)
				return; /* two candidates: none */
			p = q;
		}
	}
	if (p == NULL || p->title != NULL)
		return;
	pt_title_set(t, p, r->title);
	t->exit_p = NULL;
	pt_try_rollup(t, p);
}

void
proctree_record(struct proctree *t, const struct pgsc_record *r)
{
	double when = rec_time(r);

	if (t->finished)
		return;
	if (when > t->now) {
		t->now = when;
		pt_settle_old(t);
	}
	switch (r->type) {
	case PGSC_REC_SECCOMP:
		seccomp_record(t, r);
		break;
	case PGSC_REC_SYSCALL:
		if (t->ev.has_syscall) {
			/* two SYSCALL records in one event: apply the first */
			apply_event(t, &t->ev);
			pt_ev_clear(&t->ev);
		}
		t->ev.has_syscall = 1;
		t->ev.node = rec_node(t, r);
		t->ev.arch = r->arch;
		t->ev.syscall = r->syscall;
		t->ev.pid = r->pid;
		t->ev.ppid = r->ppid;
		t->ev.uid = r->uid;
		t->ev.exit = r->exit;
		t->ev.has_exit = r->has_exit;
		t->ev.success = r->success;
		t->ev.a0 = r->a0;
		t->ev.a[0] = r->a0;
		t->ev.a[1] = r->a1;
		t->ev.a[2] = r->a2;
		t->ev.a[3] = r->a3;
		t->ev.serial = r->serial;
		t->ev.t = when;
		pt_set_str(t, &t->ev.exe, r->exe);
		pt_set_str(t, &t->ev.comm, r->comm);
		break;
	case PGSC_REC_EXECVE:
		pt_set_str(t, &t->ev.argv, r->title);
		break;
	case PGSC_REC_PROCTITLE:
		if (!t->ev.has_syscall) {
			late_title(t, r);
			break;
		}
		pt_set_str(t, &t->ev.title, r->title);
		break;
	default:
		break;
	}
}

void
proctree_event_end(struct proctree *t)
{
	if (t->ev.has_syscall)
		apply_event(t, &t->ev);
	pt_ev_clear(&t->ev);
}

/* Read at most @size - 1 bytes of /proc/@pid/@name; -1 when it cannot. */
static ssize_t
proc_read(int64_t pid, const char *name, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%lld/%s", (long long)pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	return n;
}

/*
 * A live collector asks the running processes for what the stream has not
 * told yet: a postgres process that has not exited has no PROCTITLE, but
 * its ps title is its /proc/PID/cmdline.  The pid may have been reused
 * since our last record of it, so the title is taken only when the live
 * process runs the same program and started no later than our first
 * record of it.
 */
void
proctree_proc_titles(struct proctree *t)
{
	long hz = sysconf(_SC_CLK_TCK);
	double boot = 0;
	FILE *f = fopen("/proc/stat", "re");
	char line[256];

	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (strncmp(line, "btime ", 6) == 0)
				boot = strtod(line + 6, NULL);
		fclose(f);
	}
	if (hz <= 0 || boot <= 0)
		return;
	for (size_t i = 0; i < t->nall; i++) {
		struct proc *p = t->all[i];
		char path[64], buf[PGSC_TITLE_MAX + 1], exe[PGSC_EXE_MAX + 1];
		char stat[1024], *rp;
		ssize_t n;
		double start;

		if (p->exited || p->title != NULL || !pt_is_pg(p) ||
		    p->node != NULL)
			continue;
		snprintf(path, sizeof(path), "/proc/%lld/exe", (long long)p->pid);
		n = readlink(path, exe, sizeof(exe) - 1);
		if (n <= 0)
			continue;
		exe[n] = '\0';
		if (strcmp(exe, p->exe) != 0)
			continue;
		n = proc_read(p->pid, "stat", stat, sizeof(stat));
		if (n <= 0)
			continue;
		stat[n] = '\0';
		/* field 22 (starttime) counts from the ")" that ends comm */
		rp = strrchr(stat, ')');
		if (rp == NULL)
			continue;
		{
			unsigned long long st = 0;
			int field = 2;

			for (char *q = rp + 1; *q != '\0' && field < 22; q++)
				if (*q == ' ' && ++field == 22)
					st = strtoull(q + 1, NULL, 10);
			start = boot + (double)st / (double)hz;
		}
		if (start > p->first_t + 1.0)
			continue; /* a later process with the same pid */
		n = proc_read(p->pid, "cmdline", buf, sizeof(buf));
		if (n <= 0)
			continue;
		for (ssize_t k = 0; k < n; k++)
			if (buf[k] == '\0' || (unsigned char)buf[k] < 0x20)
				buf[k] = ' ';
		while (n > 0 && buf[n - 1] == ' ')
			n--;
		buf[n] = '\0';
		if (pgsc_title_role(buf) != NULL)
			pt_title_set(t, p, buf);
	}
}
