/* SPDX-License-Identifier: PostgreSQL */
/* fuzz_decode.c - libFuzzer harness for pgsc_record_decode(), and for the
 * SECCOMP fast reader, with and without its cache, against the general
 * loop (same record, same reject). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pgsc-int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Two records of one line are the same. */
static void
same_rec(const struct pgsc_record *a, const struct pgsc_record *b)
{
	if (a->type != b->type || a->sec != b->sec || a->msec != b->msec ||
	    a->serial != b->serial || a->pid != b->pid || a->uid != b->uid ||
	    a->arch != b->arch || a->has_arch != b->has_arch ||
	    a->syscall != b->syscall || a->compat != b->compat ||
	    a->code != b->code || a->ppid != b->ppid || a->exit != b->exit ||
	    strcmp(a->comm, b->comm) != 0 || strcmp(a->exe, b->exe) != 0 ||
	    strcmp(a->title, b->title) != 0 || strcmp(a->node, b->node) != 0)
		__builtin_trap();
}

/* decode_line(), decode_line_general() and decode_line_cache() with the
 * cache the inputs before have filled agree on @line. */
static void
both_ways(const char *line, size_t len)
{
	static struct pgsc_record a, b, c;
	static struct decode_cache dc;
	int ra, rb, rc;

	if (len > PGSC_LINE_MAX || memchr(line, '\0', len) != NULL)
		return;
	ra = decode_line(line, len, &a);
	rb = decode_line_general(line, len, &b);
	if (ra != rb)
		__builtin_trap();
	if (ra == 0)
		same_rec(&a, &b);
	/* twice without the type's offset, twice with it as the feed
	 * gives it (decode_is_seccomp()) */
	for (int i = 0; i < 4; i++) {
		size_t msg = i < 2 ? 0 : decode_is_seccomp(line, len);
		rc = decode_line_cache(line, len, msg, &c, &dc);
		if (rc != rb)
			__builtin_trap();
		if (rc == 0)
			same_rec(&c, &b);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pgsc_record rec;
	int rc = pgsc_record_decode((const char *)data, size, &rec);

	if (rc == 0) {
		/* decoded strings are bounded and terminated */
		if (strlen(rec.comm) > PGSC_COMM_MAX ||
		    strlen(rec.exe) > PGSC_EXE_MAX ||
		    strlen(rec.title) > PGSC_TITLE_MAX)
			__builtin_trap();
		if (rec.type == PGSC_REC_SECCOMP &&
		    pgsc_syscall_name(rec.arch, (int)rec.syscall) == NULL)
			__builtin_trap();
	} else if (rc < 0 || rc >= PGSC_REJ__COUNT) {
		__builtin_trap();
	}
	both_ways((const char *)data,
		  size > 0 && data[size - 1] == '\n' ? size - 1 : size);
	return 0;
}
