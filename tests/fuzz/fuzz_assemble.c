/* SPDX-License-Identifier: PostgreSQL */
/* fuzz_assemble.c - libFuzzer harness for the event assembler
 * (src/assemble.c): the lines of the input with a valid header handed to
 * it as feed.c does, the input repeated (first byte) with the serials
 * moved so that its bounds are reached.  Every SYSCALL, EXECVE and
 * PROCTITLE record comes out once, whole, in the order it came, with only
 * records of its own event (time, serial, node); nothing is held after
 * the flush. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pgsc-int.h"
#include "feed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct tally {
	uint64_t kept, sum;             /* records handed in */
	uint64_t out, outsum;           /* records handed over */
};

static void
on_event(void *arg, const char *buf, const struct asm_rec *r, size_t n)
{
	struct tally *t = arg;
	int64_t sec0 = 0;
	int msec0 = 0, have = 0;

	if (n == 0)
		__builtin_trap();
	for (size_t i = 0; i < n; i++) {
		const char *text = buf + r[i].off, *node;
		int type_num, ty, msec;
		const char *tn;
		size_t tl, nlen;
		int64_t sec;
		uint64_t serial;

		if (memchr(text, '\x1d', r[i].len) != NULL)
			__builtin_trap();
		t->out++;
		t->outsum += util_hash(text, r[i].len, r[i].serial);
		if (r[i].serial != r[0].serial ||
		    (i > 0 && r[i].loc.line <= r[i - 1].loc.line))
			__builtin_trap();
		/* a text is cut at \x1d, as auparse hands it over: one cut
		 * inside its header is no header any more (and is rejected
		 * when decoded, on both paths) */
		ty = decode_header(text, r[i].len, &type_num, &tn, &tl, &sec,
				   &msec, &serial);
		if (ty < 0)
			continue;
		if (ty != PGSC_REC_SYSCALL && ty != PGSC_REC_EXECVE &&
		    ty != PGSC_REC_PROCTITLE)
			__builtin_trap();
		(void)decode_node(text, r[i].len, &node, &nlen);
		if (!have) {
			sec0 = sec;
			msec0 = msec;
			have = 1;
		} else if (sec != sec0 || msec != msec0) {
			__builtin_trap();
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct assemble *a = NULL;
	struct tally t;
	unsigned copies;
	uint64_t no = 0;

	if (size < 1)
		return 0;
	copies = data[0] % 64 + 1;
	data++;
	size--;
	memset(&t, 0, sizeof(t));
	if (assemble_new(on_event, &t, &a) < 0)
		return 0;
	for (unsigned c = 0; c < copies; c++) {
		const char *p = (const char *)data, *end = p + size;

		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
			struct feed_loc loc = { "fuzz", ++no, 0 };
			struct assemble_key k;
			int type_num, ty;
			const char *tn, *sep;
			size_t tl, cut;

			ty = decode_header(p, len, &type_num, &tn, &tl, &k.sec,
					   &k.msec, &k.serial);
			if (ty >= 0 && memchr(p, '\0', len) == NULL) {
				k.serial += (uint64_t)c << 32;
				(void)decode_node(p, len, &k.node, &k.nlen);
				if (ty == PGSC_REC_SECCOMP) {
					assemble_tick(a, k.sec);
				} else {
					if (assemble_line(a, &k, ty, type_num,
							  tn, tl, p, len,
							  &loc) < 0)
						__builtin_trap();
					if (ty == PGSC_REC_SYSCALL ||
					    ty == PGSC_REC_EXECVE ||
					    ty == PGSC_REC_PROCTITLE) {
						sep = memchr(p, '\x1d', len);
						cut = sep ? (size_t)(sep - p)
							  : len;
						t.kept++;
						t.sum += util_hash(p, cut,
								   k.serial);
					}
				}
			}
			p += len + 1;
		}
	}
	assemble_flush(a);
	if (assemble_busy(a) || t.out != t.kept || t.outsum != t.sum)
		__builtin_trap();
	assemble_free(a);
	return 0;
}
