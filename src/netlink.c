/* SPDX-License-Identifier: PostgreSQL */
/* netlink.c - the kernel's audit stream over netlink, and audit status. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <libaudit.h>

#include "pgsc-int.h"
#include "netlink.h"

/* The multicast reader lost 252 of 3,000 records with the
 * default buffer and none at 8 MiB.  The daemon socket gets more: with
 * 8 MiB it overran once in a benchmark on a machine at load 8 (2 CPUs),
 * and it costs memory only while we fall behind. */
#define NL_RCVBUF (32 * 1024 * 1024)
/* A datagram carries one record (or a few control replies).  Records stay
 * below MAX_AUDIT_MESSAGE_LENGTH (8970); 64 KiB leaves room to spare. */
#define NL_DGRAM_MAX (64 * 1024)
/* How long to wait for the kernel's answer to a status request. */
#define NL_REPLY_MS 5000

struct netlink {
	int fd;
	pid_t pid;              /* the pid we registered with the kernel */
	int overrun;            /* ENOBUFS seen and not yet reported */
	size_t dlen;            /* bytes of the datagram held in dg, 0: none */
	union {                 /* aligned for the nlmsghdr casts */
		struct nlmsghdr h;
		char b[NL_DGRAM_MAX];
	} dg;
};

/* A hint for the usual reasons the kernel says no. */
static const char *
errno_hint(int err)
{
	switch (err) {
	case EPERM:
	case EACCES:
		return " (needs root, or CAP_AUDIT_CONTROL and "
		       "CAP_AUDIT_WRITE)";
	case ECONNREFUSED:
		/* audit_netlink_ok() in kernel/audit.c only serves the
		 * initial user and pid namespaces. */
		return " (the kernel accepts audit control only from the "
		       "initial user and pid namespaces: not in a container)";
	case EPROTONOSUPPORT:
	case EAFNOSUPPORT:
		return " (the kernel has no audit support, CONFIG_AUDIT)";
	default:
		return "";
	}
}

/*
 * Read the kernel's status on @fd, a socket of ours that is not the
 * daemon's (nothing else arrives on it).  The kernel may send its
 * AUDIT_GET reply before or after the ack of the request (the reply goes
 * out from a kernel thread), so skip acks until the reply comes.
 * Returns 0 or a negative errno.
 */
static int
status_get(int fd, struct netlink_figures *f)
{
	struct audit_status st;
	struct audit_reply rep;
	double deadline = util_now() + NL_REPLY_MS / 1000.0;
	size_t got;
	int rc;

	rc = audit_request_status(fd);
	if (rc < 0)
		return rc;
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		double left = deadline - util_now();

		if (left <= 0)
			return -ETIMEDOUT;
		rc = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (rc < 0 && errno != EINTR)
			return -errno;
		if (rc <= 0)
			continue;
		rc = audit_get_reply(fd, &rep, GET_REPLY_NONBLOCKING, 0);
		if (rc == -EAGAIN || rc == -EINTR)
			continue;
		if (rc < 0)
			return rc;
		if (rc == 0)
			return -EPROTO;
		if (rep.type == NLMSG_ERROR) {
			if (rep.error->error != 0)
				return rep.error->error;
			continue;
		}
		if (rep.type == AUDIT_GET)
			break;
	}
	/* The kernel sends its own struct: older kernels (< 5.9) end before
	 * backlog_wait_time_actual, and no feature bit announces the field,
	 * so the reply's length is what tells. */
	got = NLMSG_PAYLOAD(rep.nlh, 0);
	memset(&st, 0, sizeof(st));
	memcpy(&st, NLMSG_DATA(rep.nlh), got < sizeof(st) ? got : sizeof(st));
	*f = (struct netlink_figures){
		.enabled = st.enabled, .pid = st.pid, .lost = st.lost,
		.backlog = st.backlog, .backlog_limit = st.backlog_limit,
		.backlog_wait_time = st.backlog_wait_time,
	};
#ifdef AUDIT_STATUS_BACKLOG_WAIT_TIME_ACTUAL
	if (got >= offsetof(struct audit_status, backlog_wait_time_actual) +
	    sizeof(st.backlog_wait_time_actual)) {
		f->backlog_wait_time_actual = st.backlog_wait_time_actual;
		f->has_wait_actual = 1;
	}
#endif
	return 0;
}

/* Open a control socket into *@fdp and read the kernel's status over it
 * (*@fdp is left for the caller to close, also on failure). */
static int
status_open(int *fdp, struct netlink_figures *f, char **cause)
{
	int rc;

	*fdp = audit_open();
	if (*fdp < 0) {
		rc = -errno;
		util_cause(cause, "cannot open the audit netlink socket: %s%s",
			   strerror(-rc), errno_hint(-rc));
		return rc;
	}
	rc = status_get(*fdp, f);
	if (rc < 0)
		util_cause(cause, "cannot read the kernel's audit status: "
			   "%s%s", strerror(-rc), errno_hint(-rc));
	return rc;
}

/**
 * Read the kernel's audit status.
 *
 * Like every request to the kernel, this sleeps up to backlog_wait_time
 * when the kernel's queue is over its limit (audit_receive() penalises
 * every sender, the registered daemon included): the daemon should call
 * it right after draining its socket.
 *
 * @param f     filled in
 * @param cause a sentence on failure (may be NULL)
 * Returns 0 or a negative errno.
 */
int
netlink_figures_get(struct netlink_figures *f, char **cause)
{
	int fd, rc;

	rc = status_open(&fd, f, cause);
	audit_close(fd);
	return rc;
}

/* Whether @pid is a live process (a zombie's sockets are already gone). */
static int
pid_alive(pid_t pid)
{
	char path[64], line[512], *p;
	FILE *fp;
	int alive = 1;

	if (kill(pid, 0) < 0 && errno != EPERM)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fp = fopen(path, "r");
	if (fp == NULL)
		return 1;
	if (fgets(line, sizeof(line), fp) != NULL &&
	    (p = strrchr(line, ')')) != NULL && p[1] == ' ' &&
	    (p[2] == 'Z' || p[2] == 'X'))
		alive = 0;
	fclose(fp);
	return alive;
}

/* The cause for a refusal: another process is the audit daemon. */
static void
owner_cause(char **cause, uint32_t pid)
{
	char path[64], comm[32] = "";
	FILE *fp;
	size_t i;

	if (pid == 0) {
		/* The kernel reports the pid in our namespace: 0 when the
		 * daemon is not visible from here. */
		util_cause(cause, "another process is the kernel's audit "
			   "daemon (not visible from this pid namespace); "
			   "stop it or use --source plugin or "
			   "--source file:PATH");
		return;
	}
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	fp = fopen(path, "r");
	if (fp != NULL) {
		if (fgets(comm, sizeof(comm), fp) == NULL)
			comm[0] = '\0';
		fclose(fp);
	}
	for (i = 0; comm[i] != '\0'; i++)
		if (comm[i] == '\n' || comm[i] < ' ' || comm[i] > '~')
			comm[i] = comm[i] == '\n' ? '\0' : '?';
	util_cause(cause, "pid %u (%s) is the kernel's audit daemon; stop it "
		   "or use --source plugin or --source file:PATH", pid,
		   comm[0] != '\0' ? comm : "?");
}

/* CONFIG_HZ from the installed kernel config, 0 if absent. */
static unsigned
hz_from_config(void)
{
	struct utsname u;
	char path[128 + sizeof(u.release)], line[128];
	unsigned hz = 0;
	FILE *fp;

	if (uname(&u) < 0)
		return 0;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	fp = fopen(path, "r");
	if (fp == NULL)
		return 0;
	while (hz == 0 && fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "CONFIG_HZ=%u", &hz) != 1)
			hz = 0;
	fclose(fp);
	return hz;
}

/*
 * HZ from /proc/timer_list (root only): jiffies start at INITIAL_JIFFIES,
 * 2^32 - 300 * HZ, and advance HZ per second of "now" (ktime since boot),
 * so only the true HZ predicts the jiffies shown.  0 if it cannot tell.
 */
static unsigned
hz_from_timer_list(void)
{
	static const unsigned cand[] = { 100, 250, 300, 1000 };
	unsigned long long now_ns = 0, jif = 0;
	char line[256];
	unsigned best = 0;
	double best_err = 0, now_s;
	size_t i;
	FILE *fp;

	fp = fopen("/proc/timer_list", "r");
	if (fp == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (now_ns == 0 && sscanf(line, "now at %llu", &now_ns) == 1)
			continue;
		if (sscanf(line, "jiffies: %llu", &jif) == 1)
			break;
	}
	fclose(fp);
	now_s = (double)now_ns / 1e9;
	/* Near 300 s after boot every candidate predicts 2^32. */
	if (jif == 0 || now_s < 330)
		return 0;
	for (i = 0; i < ARRAY_SIZE(cand); i++) {
		double want = 4294967296.0 + (now_s - 300) * cand[i];
		double err = (double)jif > want ? (double)jif - want :
			     want - (double)jif;

		if (best == 0 || err < best_err) {
			best = cand[i];
			best_err = err;
		}
	}
	/* within 2 % of the ticks since INITIAL_JIFFIES */
	return best_err < (now_s - 300) * best * 0.02 ? best : 0;
}

/*
 * Milliseconds to the kernel's unit for backlog_wait_time, jiffies
 * (kernel/audit.c sleeps with schedule_timeout()).  auditctl passes its
 * number through, so "60000" is 60 s only at HZ=1000 and 240 s on
 * Debian's HZ=250 kernels.  When HZ cannot be found the value is passed
 * through like auditctl does.
 */
static uint32_t
ms_to_jiffies(uint32_t ms)
{
	unsigned hz = hz_from_config();
	uint64_t j;

	if (hz == 0)
		hz = hz_from_timer_list();
	if (hz == 0)
		return ms;
	j = ((uint64_t)ms * hz + 999) / 1000;
	return j > UINT32_MAX ? UINT32_MAX : (uint32_t)j;
}

/* Unregister @pid if it is still the kernel's audit daemon. */
static void
unregister(pid_t pid)
{
	struct netlink_figures f;
	int fd = audit_open();

	if (fd < 0)
		return;
	/* Another process may have taken over since: leave it alone. */
	if (status_get(fd, &f) == 0 && f.pid == (uint32_t)pid)
		(void)audit_set_pid(fd, 0, WAIT_NO);
	audit_close(fd);
}

/* One AUDIT_SET on @ctl, with the cause on failure. */
static int
set_one(int ctl, int (*set)(int, uint32_t), uint32_t val, const char *what,
	const struct netlink_figures *f, char **cause)
{
	int rc = set(ctl, val);

	if (rc >= 0)
		return 0;
	if (f->enabled == 2)
		util_cause(cause, "cannot set the audit %s to %u: the audit "
			   "configuration is locked (auditctl -e 2) until "
			   "reboot", what, val);
	else
		util_cause(cause, "cannot set the audit %s to %u: %s%s", what,
			   val, strerror(-rc), errno_hint(-rc));
	return rc;
}

/**
 * Become the kernel's audit daemon and receive its records.
 *
 * @param backlog_limit   kernel queue length, 0: leave as is
 * @param backlog_wait_ms how long a process waits for room in the queue
 *                        before its record is lost, 0: leave as is
 * @param out             the source, NULL on failure
 * @param cause           a sentence on failure (may be NULL)
 * Returns 0, -EEXIST when another live daemon is registered, or another
 * negative errno.
 */
int
netlink_open(uint32_t backlog_limit, uint32_t backlog_wait_ms,
	   struct netlink **out, char **cause)
{
	struct netlink_figures f;
	struct netlink *s = NULL;
	uint32_t wait_j = 0;
	int ctl = -1, registered = 0, rc, sz = NL_RCVBUF;

	*out = NULL;
	if (backlog_wait_ms > 600000) {
		/* kernel/audit.c refuses more than 10 times the default */
		rc = -EINVAL;
		util_cause(cause, "the backlog wait time %u ms is over the "
			   "kernel's maximum of 600000 ms", backlog_wait_ms);
		goto out;
	}
	if (backlog_wait_ms != 0)
		wait_j = ms_to_jiffies(backlog_wait_ms);
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	s->fd = -1;
	/* Control requests go over a socket of their own: the daemon's
	 * socket receives records, and an ack would be lost among them. */
	rc = status_open(&ctl, &f, cause);
	if (rc < 0)
		goto out;
	/* One registered daemon at a time, and auditd refuses
	 * to start next to another.  A dead daemon's socket is gone, and
	 * the kernel lets us replace it (audit_replace() fails to reach
	 * it). */
	if (f.pid == (uint32_t)getpid()) {
		rc = -EEXIST;
		util_cause(cause, "this process is already the kernel's audit "
			   "daemon (a netlink source is open)");
		goto out;
	}
	if (f.pid != 0 && pid_alive((pid_t)f.pid)) {
		rc = -EEXIST;
		owner_cause(cause, f.pid);
		goto out;
	}

	s->fd = audit_open();
	if (s->fd < 0) {
		rc = -errno;
		util_cause(cause, "cannot open the audit netlink socket: %s%s",
			   strerror(-rc), errno_hint(-rc));
		goto out;
	}
	/* SO_RCVBUFFORCE passes rmem_max, but only for CAP_NET_ADMIN. */
	if (setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0 &&
	    setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz)) < 0) {
		rc = -errno;
		util_cause(cause, "cannot size the audit socket's receive "
			   "buffer: %s", strerror(-rc));
		goto out;
	}

	/*
	 * WAIT_NO: with WAIT_YES, libaudit 3.0.9 polls 100 ms and then
	 * swallows one message unread, which once we are registered is a
	 * record.  audit_send() has already read the kernel's ack, and with
	 * it a refusal (kernels >= 4.11 ack before the first record).
	 */
	s->pid = getpid();
	rc = audit_set_pid(s->fd, (uint32_t)s->pid, WAIT_NO);
	if (rc == -EEXIST) {
		/* registered between our look and our request */
		if (status_get(ctl, &f) < 0)
			f.pid = 0;
		owner_cause(cause, f.pid);
		goto out;
	}
	if (rc < 0) {
		util_cause(cause, "cannot register as the kernel's audit "
			   "daemon: %s%s", strerror(-rc), errno_hint(-rc));
		goto out;
	}
	registered = 1;

	/* Changes are skipped when the kernel already has the value: each
	 * is a CONFIG_CHANGE record, and a locked configuration refuses. */
	if (f.enabled == 0) {
		rc = set_one(ctl, audit_set_enabled, 1, "enabled flag", &f,
			     cause);
		if (rc < 0)
			goto out;
	}
	if (backlog_limit != 0 && f.backlog_limit != backlog_limit) {
		rc = set_one(ctl, audit_set_backlog_limit, backlog_limit,
			     "backlog limit", &f, cause);
		if (rc < 0)
			goto out;
	}
	if (wait_j != 0 && f.backlog_wait_time != wait_j) {
		rc = set_one(ctl, audit_set_backlog_wait_time, wait_j,
			     "backlog wait time (jiffies)", &f, cause);
		if (rc < 0)
			goto out;
	}
	*out = s;
	s = NULL;
	rc = 0;
out:
	if (s != NULL) {
		audit_close(s->fd);
		if (registered)
			unregister(s->pid);
		free(s);
	}
	if (ctl >= 0)
		audit_close(ctl);
	return rc;
}

int
netlink_fd(const struct netlink *s)
{
	return s->fd;
}

/*
 * Receive one datagram into s->dg.  Returns its length, or a negative
 * errno (-EAGAIN: nothing waiting).
 */
static ssize_t
dgram_recv(struct netlink *s)
{
	struct sockaddr_nl sa;
	socklen_t salen;
	ssize_t n;

	for (;;) {
		salen = sizeof(sa);
		n = recvfrom(s->fd, s->dg.b, sizeof(s->dg.b),
			     MSG_DONTWAIT | MSG_TRUNC, (struct sockaddr *)&sa,
			     &salen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		/* Only the kernel (port 0) speaks for audit; libaudit drops
		 * anything else as spoofed. */
		if (salen != sizeof(sa) || sa.nl_pid != 0)
			continue;
		/* MSG_TRUNC returns the full length of a longer datagram. */
		return n > (ssize_t)sizeof(s->dg.b) ? (ssize_t)sizeof(s->dg.b) :
		       n;
	}
}

/* Whether a message type is an audit record (what auditd logs). */
static int
is_record(int type)
{
	/* USER (sent by auditctl -m and our marker) and LOGIN are records
	 * from the old range below 1100; the rest of it are replies. */
	if (type == AUDIT_USER || type == AUDIT_LOGIN)
		return 1;
	if (type < AUDIT_FIRST_USER_MSG || type > AUDIT_LAST_USER_MSG2)
		return 0;
	/* auditd's own DAEMON_* range, and the kernel probing whether we
	 * are alive when someone else tries to register (auditd.c skips
	 * both as well) */
	if (type >= AUDIT_FIRST_DAEMON && type <= AUDIT_LAST_DAEMON)
		return 0;
	return type != AUDIT_REPLACE;
}

/*
 * Format the record held in s->dg into @buf like auditd's RAW log
 * (format_raw() in auditd-event.c, 3.0.9): "type=NAME msg=PAYLOAD\n",
 * the payload up to its first NUL, newlines turned into spaces and one
 * trailing space dropped.  EOE records stay: auditd leaves them out of
 * its log file but hands them to plugins, and auparse completes a
 * multi-record event at its EOE instead of by timeout.  Returns the bytes written, 0 when the datagram
 * holds no record, -ENOSPC when the line does not fit in @cap.
 */
static long
dgram_format(struct netlink *s, char *buf, size_t cap)
{
	const struct nlmsghdr *nlh = &s->dg.h;
	size_t off = 0, plen, nlen, need;
	const char *name, *payload, *nul;
	char unknown[32];
	char *p, *q;

	/* Replies may come several to a datagram; a record comes alone. */
	while (off + NLMSG_HDRLEN <= s->dlen) {
		nlh = (const struct nlmsghdr *)(s->dg.b + off);
		if (is_record(nlh->nlmsg_type))
			break;
		if (nlh->nlmsg_len < NLMSG_HDRLEN)
			return 0;
		off += NLMSG_ALIGN(nlh->nlmsg_len);
	}
	if (off + NLMSG_HDRLEN > s->dlen)
		return 0;
	/* The kernel sets a record's nlmsg_len to its payload length, not
	 * counting the header (audit_log_end(), kept for auditd); the
	 * datagram's end bounds it either way. */
	payload = s->dg.b + off + NLMSG_HDRLEN;
	plen = s->dlen - off - NLMSG_HDRLEN;
	if (nlh->nlmsg_len < plen)
		plen = nlh->nlmsg_len;
	nul = memchr(payload, '\0', plen);
	if (nul != NULL)
		plen = (size_t)(nul - payload);
	if (plen > 0 && (payload[plen - 1] == '\n' || payload[plen - 1] == ' '))
		plen--;

	name = audit_msg_type_to_name(nlh->nlmsg_type);
	if (name == NULL) {
		snprintf(unknown, sizeof(unknown), "UNKNOWN[%d]",
			 nlh->nlmsg_type);
		name = unknown;
	}
	nlen = strlen(name);
	need = 5 + nlen + 5 + plen + 1;
	if (need > cap)
		return -ENOSPC;
	memcpy(buf, "type=", 5);
	memcpy(buf + 5, name, nlen);
	memcpy(buf + 5 + nlen, " msg=", 5);
	p = buf + 10 + nlen;
	memcpy(p, payload, plen);
	for (q = p; (q = memchr(q, '\n', (size_t)(p + plen - q))) != NULL; q++)
		*q = ' ';
	p[plen] = '\n';
	return (long)need;
}

/**
 * Append the records waiting on the socket to @buf as audit.log lines,
 * without blocking.  A record that does not fit stays for the next call.
 *
 * Returns the bytes written (0: nothing waiting), -ENOBUFS once after the
 * socket overran (records were lost), -ENOSPC when @cap cannot hold even
 * the next line (give 64 KiB or more), or another negative errno.
 */
long
netlink_read(struct netlink *s, char *buf, size_t cap)
{
	size_t used = 0;
	long n;

	if (s->overrun) {
		s->overrun = 0;
		return -ENOBUFS;
	}
	for (;;) {
		if (s->dlen == 0) {
			ssize_t r = dgram_recv(s);

			if (r == -EAGAIN)
				break;
			if (r == -ENOBUFS && used > 0) {
				/* report it after what we have */
				s->overrun = 1;
				break;
			}
			if (r < 0)
				return used > 0 ? (long)used : (long)r;
			s->dlen = (size_t)r;
		}
		n = dgram_format(s, buf + used, cap - used);
		if (n == -ENOSPC) {
			if (used == 0)
				return -ENOSPC;
			break;
		}
		s->dlen = 0;
		used += (size_t)n;
	}
	return (long)used;
}

/**
 * Stop being the audit daemon and close.  Audit stays enabled, and the
 * backlog settings stay: auditd -s nochange behaves the same.
 */
void
netlink_close(struct netlink *s)
{
	if (s == NULL)
		return;
	/*
	 * Close first: a request to the kernel sleeps while its queue is
	 * over the limit, and with our socket full nothing would drain it.
	 * Once the socket is gone, kauditd's next send fails and the kernel
	 * drops the registration itself; otherwise we do.  A forked child
	 * holding a copy must not unregister its parent.
	 */
	audit_close(s->fd);
	if (getpid() == s->pid)
		unregister(s->pid);
	free(s);
}

/**
 * Send a user message (type USER) through the kernel so that it shows in
 * the audit stream after everything queued before it:
 * "msg='@text exe=... hostname=? addr=? terminal=? res=success'".
 *
 * @param text  1 to 1000 printable characters, no quotes or backslashes
 *              (the kernel copies the text into the record unescaped)
 * @param cause a sentence on failure (may be NULL)
 * Returns 0 or a negative errno (-ENODATA when audit is disabled: the
 * kernel drops user messages then, silently).
 */
int
netlink_send_marker(const char *text, char **cause)
{
	struct netlink_figures f;
	size_t i, len = strlen(text);
	int fd = -1, rc;

	for (i = 0; i < len; i++)
		if (text[i] < '!' || text[i] > '~' || text[i] == '\'' ||
		    text[i] == '"' || text[i] == '\\')
			break;
	if (len == 0 || len > 1000 || i < len) {
		rc = -EINVAL;
		util_cause(cause, "a marker must be 1 to 1000 printable "
			   "characters without quotes or spaces");
		goto out;
	}
	rc = status_open(&fd, &f, cause);
	if (rc < 0)
		goto out;
	if (f.enabled == 0) {
		rc = -ENODATA;
		util_cause(cause, "audit is disabled, and the kernel drops "
			   "user messages then");
		goto out;
	}
	/* tty "" keeps libaudit from looking up a terminal and a host. */
	rc = audit_log_user_message(fd, AUDIT_USER, text, NULL, NULL, "", 1);
	if (rc <= 0) {
		/* 0: libaudit hid EPERM or ECONNREFUSED */
		rc = rc < 0 ? rc : (errno != 0 ? -errno : -EPERM);
		util_cause(cause, "the kernel did not take the marker: %s%s",
			   strerror(-rc), errno_hint(-rc));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		audit_close(fd);
	return rc;
}
