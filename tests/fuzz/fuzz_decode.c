/* SPDX-License-Identifier: PostgreSQL */
/* fuzz_decode.c - libFuzzer harness for pgsc_record_decode(). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pgsc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	return 0;
}
