/* SPDX-License-Identifier: PostgreSQL */
/* strbuf.c - a growing string that remembers running out of memory. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"

void
strbuf_add(struct strbuf *sb, const char *s, size_t n)
{
	if (sb->oom)
		return;
	if (util_grow(&sb->buf, &sb->cap, sb->len + n + 1, 64) < 0) {
		sb->oom = 1;
		return;
	}
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void
strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void
strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		sb->oom = 1;
		return;
	}
	strbuf_add(sb, s, (size_t)n);
	free(s);
}

void
strbuf_free(struct strbuf *sb)
{
	free(sb->buf);
	memset(sb, 0, sizeof(*sb));
}
