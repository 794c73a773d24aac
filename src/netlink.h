/* SPDX-License-Identifier: PostgreSQL */
/* netlink.h - the kernel's audit stream over netlink, audit status
 * (netlink.c). */
#ifndef PGSC_NETLINK_H
#define PGSC_NETLINK_H

#include "pgsc-int.h"

/* netlink.c - the kernel's audit stream over netlink, audit status. */
struct netlink_figures {
	uint32_t enabled, pid, lost, backlog, backlog_limit;
	uint32_t backlog_wait_time;
	uint32_t backlog_wait_time_actual;
	int has_wait_actual;     /* the kernel reports backlog_wait_time_actual */
};
/* Read the kernel's audit status.  Returns 0 or a negative errno. */
int netlink_figures_get(struct netlink_figures *f, char **cause);
struct netlink;
/* Register as the kernel's audit daemon (refused with -EEXIST and a cause
 * naming the pid when another live daemon is registered), enable audit if
 * it is off, set the backlog limit and wait time (0 = leave as is), and
 * use a receive buffer of at least 8 MiB. */
int netlink_open(uint32_t backlog_limit, uint32_t backlog_wait_ms,
	       struct netlink **out, char **cause);
int netlink_fd(const struct netlink *s);
/* Append the records waiting on the socket to @buf as audit.log-style
 * text lines ("type=NAME msg=audit(...): ...\n"), without blocking.
 * Returns the bytes written (0: nothing waiting), or a negative errno. */
long netlink_read(struct netlink *s, char *buf, size_t cap);
/* Unregister (audit stays enabled) and close; NULL is a no-op. */
void netlink_close(struct netlink *s);
/* Send a user message through the kernel, so that it appears in the
 * audit stream (type=USER ... msg='@text'): the drain marker. */
int netlink_send_marker(const char *text, char **cause);

#endif
