/* SPDX-License-Identifier: PostgreSQL */
/* test_decode.c - unit tests for decode.c: pgsc_record_decode() and
 * pgsc_reject_name(). */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Real lines recorded on this machine (/tmp/rec/audit/audit.log). */
#define SECCOMP_RAW                                                        \
	"type=SECCOMP msg=audit(1796277282.415:61): auid=4294967295 uid=101 " \
	"gid=104 ses=4294967295 pid=5511 comm=\"pg_ctl\" "                  \
	"exe=\"/usr/lib/postgresql/15/bin/pg_ctl\" sig=0 arch=c000003e "    \
	"syscall=12 compat=0 ip=0x7fd618601c47 code=0x7ffc0000"
#define ENRICH_TAIL                                                        \
	GS "AUID=\"unset\" UID=\"postgres\" GID=\"postgres\" ARCH=x86_64 "   \
	   "SYSCALL=unknown-syscall(-1)"

#define SYSCALL_CLONE                                                      \
	"type=SYSCALL msg=audit(1796277282.523:3668): arch=c000003e "        \
	"syscall=56 success=yes exit=5515 a0=1200011 a1=0 a2=0 "            \
	"a3=7f9be6021d50 items=0 ppid=5511 pid=5514 auid=4294967295 uid=101 " \
	"gid=104 euid=101 suid=101 fsuid=101 egid=104 sgid=104 fsgid=104 "  \
	"tty=(none) ses=4294967295 comm=\"postgres\" "                      \
	"exe=\"/usr/lib/postgresql/15/bin/postgres\" key=\"pgsc\"" GS         \
	"ARCH=x86_64 SYSCALL=clone AUID=\"unset\" UID=\"postgres\" "          \
	"GID=\"postgres\""

#define SYSCALL_EXIT_GROUP                                                 \
	"type=SYSCALL msg=audit(1796277283.019:9977): arch=c000003e "        \
	"syscall=231 a0=0 a1=e7 a2=3c a3=dbec1d2670bb2fea items=0 ppid=5514 " \
	"pid=5523 auid=4294967295 uid=101 gid=104 euid=101 suid=101 "        \
	"fsuid=101 egid=104 sgid=104 fsgid=104 tty=(none) ses=4294967295 "  \
	"comm=\"postgres\" exe=\"/usr/lib/postgresql/15/bin/postgres\" "    \
	"key=\"pgsc\"" GS "ARCH=x86_64 SYSCALL=exit_group AUID=\"unset\""

static struct pgsc_record rec;

static int
dec(const char *line)
{
	memset(&rec, 0xa5, sizeof(rec)); /* no stale values can pass */
	return pgsc_record_decode(line, strlen(line), &rec);
}

static void
check_seccomp_5511(void)
{
	assert_int_equal(rec.type, PGSC_REC_SECCOMP);
	assert_int_equal(rec.type_num, 1326);
	assert_int_equal(rec.sec, 1796277282);
	assert_int_equal(rec.msec, 415);
	assert_int_equal(rec.serial, 61);
	assert_int_equal(rec.has_node, 0);
	assert_int_equal(rec.pid, 5511);
	assert_int_equal(rec.ppid, -1);
	assert_string_equal(rec.comm, "pg_ctl");
	assert_string_equal(rec.exe, "/usr/lib/postgresql/15/bin/pg_ctl");
	assert_int_equal(rec.has_arch, 1);
	assert_int_equal(rec.arch, X86_64);
	assert_int_equal(rec.syscall, 12);
	assert_int_equal(rec.compat, 0);
	assert_int_equal(rec.code, 0x7ffc0000U);
	assert_int_equal(rec.success, -1);
	assert_int_equal(rec.has_exit, 0);
	assert_int_equal(rec.argc, -1);
	assert_string_equal(rec.title, "");
}

static void
test_seccomp_raw(void **state)
{
	(void)state;
	assert_int_equal(dec(SECCOMP_RAW), 0);
	check_seccomp_5511();
	/* uid=, not auid= */
	assert_int_equal(rec.uid, 101);
	/* a trailing newline is accepted */
	assert_int_equal(dec(SECCOMP_RAW "\n"), 0);
	check_seccomp_5511();
	assert_string_equal(pgsc_syscall_name(rec.arch, (int)rec.syscall),
			    "brk");
}

static void
test_seccomp_enriched(void **state)
{
	(void)state;
	assert_int_equal(dec(SECCOMP_RAW ENRICH_TAIL), 0);
	check_seccomp_5511();
	assert_int_equal(dec(SECCOMP_RAW ENRICH_TAIL "\n"), 0);
	check_seccomp_5511();
	/* Whatever follows \x1d is never read: lower-case look-alikes of
	 * our fields there must neither override nor count as duplicates. */
	assert_int_equal(dec(SECCOMP_RAW GS "pid=1 syscall=59 arch=40000003 "
			     "comm=\"evil\" code=0x0"), 0);
	check_seccomp_5511();
}

static void
test_node_prefix(void **state)
{
	(void)state;
	assert_int_equal(dec("node=host1 " SECCOMP_RAW ENRICH_TAIL), 0);
	assert_int_equal(rec.has_node, 1);
	assert_int_equal(rec.type, PGSC_REC_SECCOMP);
	assert_int_equal(rec.pid, 5511);
	assert_int_equal(rec.syscall, 12);
	assert_int_equal(rec.serial, 61);
	assert_int_equal(rec.arch, X86_64);
	/* node= with nothing after it is not a header */
	assert_int_equal(dec("node=host1"), PGSC_REJ_NO_HEADER);
}

static void
test_subj_field(void **state)
{
	(void)state;
	assert_int_equal(dec("type=SECCOMP msg=audit(1796277282.415:61): "
			     "auid=4294967295 uid=101 gid=104 ses=4294967295 "
			     "subj=unconfined pid=5511 comm=\"pg_ctl\" "
			     "exe=\"/usr/lib/postgresql/15/bin/pg_ctl\" sig=0 "
			     "arch=c000003e syscall=12 compat=0 "
			     "ip=0x7fd618601c47 code=0x7ffc0000" ENRICH_TAIL),
			 0);
	check_seccomp_5511();
	/* an AppArmor label with a space: "(enforce)" is a stray word */
	assert_int_equal(dec("type=SECCOMP msg=audit(1796277282.415:61): "
			     "auid=4294967295 uid=101 gid=104 ses=4294967295 "
			     "subj=snap.x.y (enforce) pid=5511 comm=\"pg_ctl\" "
			     "exe=\"/usr/lib/postgresql/15/bin/pg_ctl\" sig=0 "
			     "arch=c000003e syscall=12 compat=0 "
			     "ip=0x7fd618601c47 code=0x7ffc0000"), 0);
	check_seccomp_5511();
}

static void
test_hex_comm_exe(void **state)
{
	(void)state;
	/* comm 'evil "x"', exe '/tmp/my prog' are hex encoded by the kernel */
	assert_int_equal(dec("type=SECCOMP msg=audit(1796277282.415:61): "
			     "auid=4294967295 uid=101 gid=104 ses=4294967295 "
			     "pid=5511 comm=6576696C2022782220 "
			     "exe=2F746D702F6D792070726F67 sig=0 arch=c000003e "
			     "syscall=12 compat=0 ip=0x7fd618601c47 "
			     "code=0x7ffc0000" ENRICH_TAIL), 0);
	assert_string_equal(rec.comm, "evil \"x\" ");
	assert_string_equal(rec.exe, "/tmp/my prog");
	/* lower-case hex, and a NUL in hex ends the value */
	assert_int_equal(dec("type=SECCOMP msg=audit(1.5:6): pid=7 "
			     "comm=61620063 exe=2f62696e2f7368 arch=c000003e "
			     "syscall=0"), 0);
	assert_string_equal(rec.comm, "ab");
	assert_string_equal(rec.exe, "/bin/sh");
	assert_int_equal(rec.msec, 5);
}

static void
test_null_comm(void **state)
{
	(void)state;
	assert_int_equal(dec("type=SECCOMP msg=audit(1796277282.415:61): "
			     "auid=4294967295 uid=101 gid=104 ses=4294967295 "
			     "pid=5511 comm=(null) exe=(null) sig=0 "
			     "arch=c000003e syscall=12 compat=0 "
			     "ip=0x7fd618601c47 code=0x7ffc0000"), 0);
	assert_string_equal(rec.comm, "");
	assert_string_equal(rec.exe, "");
	assert_int_equal(rec.pid, 5511);
	/* a quoted "(null)" is a real name */
	assert_int_equal(dec("type=SECCOMP msg=audit(1796277282.415:61): "
			     "pid=5511 comm=\"(null)\" arch=c000003e "
			     "syscall=12"), 0);
	assert_string_equal(rec.comm, "(null)");
}

static void
test_i386_compat(void **state)
{
	(void)state;
	assert_int_equal(dec("type=SECCOMP msg=audit(1796277290.100:700): "
			     "auid=4294967295 uid=101 gid=104 ses=4294967295 "
			     "pid=6000 comm=\"uname32\" exe=\"/tmp/uname32\" "
			     "sig=0 arch=40000003 syscall=122 compat=1 "
			     "ip=0xf7f0b549 code=0x7ffc0000" ENRICH_TAIL), 0);
	assert_int_equal(rec.arch, I386);
	assert_int_equal(rec.syscall, 122);
	assert_int_equal(rec.compat, 1);
	assert_string_equal(pgsc_syscall_name(rec.arch, (int)rec.syscall),
			    "uname");
	assert_string_equal(pgsc_syscall_name(X86_64, 122), "setfsuid");
	/* compat is 0 or 1 */
	assert_int_equal(dec("type=SECCOMP msg=audit(1.0:1): pid=1 "
			     "arch=40000003 syscall=122 compat=2"),
			 PGSC_REJ_BAD_FIELD);
}

static void
test_codes(void **state)
{
	static const struct {
		const char *code;
		uint32_t v;
	} codes[] = {
		{ "0x50001", 0x50001U },       /* SECCOMP_RET_ERRNO | EPERM */
		{ "0x80000000", 0x80000000U }, /* kill process */
		{ "0x0", 0x0U },               /* kill thread */
		{ "0x7ffc0000", 0x7ffc0000U }, /* log */
		{ "7ff00000", 0x7ff00000U },   /* trace, no 0x */
	};
	char line[512];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(codes); i++) {
		snprintf(line, sizeof(line),
			 "type=SECCOMP msg=audit(1796277282.415:61): "
			 "auid=4294967295 uid=101 gid=104 ses=4294967295 "
			 "pid=5511 comm=\"pg_ctl\" exe=\"/x\" sig=31 "
			 "arch=c000003e syscall=12 compat=0 "
			 "ip=0x7fd618601c47 code=%s" ENRICH_TAIL, codes[i].code);
		assert_int_equal(dec(line), 0);
		assert_int_equal(rec.code, codes[i].v);
		assert_int_equal(rec.syscall, 12);
	}
	assert_int_equal(dec("type=SECCOMP msg=audit(1.0:1): pid=1 "
			     "arch=c000003e syscall=1 code=0x1ffffffff"),
			 PGSC_REJ_BAD_FIELD);
	assert_int_equal(dec("type=SECCOMP msg=audit(1.0:1): pid=1 "
			     "arch=c000003e syscall=1 code=0xzz"),
			 PGSC_REJ_BAD_FIELD);
}

static void
test_unknown_type_header(void **state)
{
	(void)state;
	assert_int_equal(dec("type=UNKNOWN[1326] msg=audit(1796277282.415:61): "
			     "auid=4294967295 uid=101 gid=104 ses=4294967295 "
			     "pid=5511 comm=\"pg_ctl\" "
			     "exe=\"/usr/lib/postgresql/15/bin/pg_ctl\" sig=0 "
			     "arch=c000003e syscall=12 compat=0 "
			     "ip=0x7fd618601c47 code=0x7ffc0000"), 0);
	check_seccomp_5511();
	assert_true(decode_is_seccomp(SECCOMP_RAW, strlen(SECCOMP_RAW)));
	assert_true(decode_is_seccomp("type=UNKNOWN[1326] msg=audit(1.0:1): ",
				      strlen("type=UNKNOWN[1326] msg=audit(1.0:1): ")));
	assert_true(decode_is_seccomp("node=a " SECCOMP_RAW,
				      strlen("node=a " SECCOMP_RAW)));
	assert_false(decode_is_seccomp(SYSCALL_CLONE, strlen(SYSCALL_CLONE)));
	/* other UNKNOWN numbers and other types are PGSC_REC_OTHER */
	assert_int_equal(dec("type=UNKNOWN[1400] msg=audit(1.0:1): x=1"), 0);
	assert_int_equal(rec.type, PGSC_REC_OTHER);
	assert_int_equal(rec.type_num, 1400);
	assert_int_equal(dec("type=CWD msg=audit(1796277285.175:31965): "
			     "cwd=\"/tmp/rec/data\""), 0);
	assert_int_equal(rec.type, PGSC_REC_OTHER);
	assert_int_equal(dec("type=EOE msg=audit(1796277285.175:31965): "), 0);
	assert_int_equal(rec.type, PGSC_REC_EOE);
	assert_int_equal(rec.serial, 31965);
}

static void
test_rejects(void **state)
{
	(void)state;
	/* missing syscall= */
	assert_int_equal(dec("type=SECCOMP msg=audit(1796277282.415:61): "
			     "auid=4294967295 uid=101 gid=104 ses=4294967295 "
			     "pid=5511 comm=\"pg_ctl\" exe=\"/x\" sig=0 "
			     "arch=c000003e compat=0 ip=0x7fd618601c47 "
			     "code=0x7ffc0000"), PGSC_REJ_TRUNCATED);
	/* missing pid=, missing arch= */
	assert_int_equal(dec("type=SECCOMP msg=audit(1.0:1): arch=c000003e "
			     "syscall=1"), PGSC_REJ_TRUNCATED);
	assert_int_equal(dec("type=SECCOMP msg=audit(1.0:1): pid=1 "
			     "syscall=1"), PGSC_REJ_TRUNCATED);
	/* unknown arch */
	assert_int_equal(dec("type=SECCOMP msg=audit(1796277282.415:61): "
			     "pid=5511 comm=\"pg_ctl\" arch=deadbeef "
			     "syscall=12 compat=0 code=0x7ffc0000"),
			 PGSC_REJ_UNKNOWN_ARCH);
	/* syscall numbers with no name */
	assert_int_equal(dec("type=SECCOMP msg=audit(1796277282.415:61): "
			     "pid=5511 comm=\"pg_ctl\" arch=c000003e "
			     "syscall=99999 compat=0 code=0x7ffc0000"),
			 PGSC_REJ_BAD_SYSCALL);
	assert_int_equal(dec("type=SECCOMP msg=audit(1.0:1): pid=1 "
			     "arch=c000003e syscall=-1"), PGSC_REJ_BAD_SYSCALL);
	assert_int_equal(dec("type=SECCOMP msg=audit(1.0:1): pid=1 "
			     "arch=c000003e syscall=4294967308"),
			 PGSC_REJ_BAD_SYSCALL);
	/* duplicated fields */
	assert_int_equal(dec("type=SECCOMP msg=audit(1796277282.415:61): "
			     "pid=5511 pid=5512 comm=\"pg_ctl\" arch=c000003e "
			     "syscall=12 compat=0 code=0x7ffc0000"),
			 PGSC_REJ_DUP_FIELD);
	assert_int_equal(dec("type=SECCOMP msg=audit(1.0:1): pid=1 "
			     "arch=c000003e syscall=1 syscall=2"),
			 PGSC_REJ_DUP_FIELD);
	assert_int_equal(dec("type=SECCOMP msg=audit(1.0:1): uid=0 pid=1 "
			     "arch=c000003e syscall=1 uid=101"),
			 PGSC_REJ_DUP_FIELD);
	/* uid=: absent, out of range, not a number */
	assert_int_equal(dec("type=SECCOMP msg=audit(1.0:1): pid=1 "
			     "arch=c000003e syscall=1"), 0);
	assert_int_equal(rec.uid, -1);
	assert_int_equal(dec("type=SECCOMP msg=audit(1.0:1): uid=4294967296 "
			     "pid=1 arch=c000003e syscall=1"),
			 PGSC_REJ_BAD_FIELD);
	assert_int_equal(dec("type=SECCOMP msg=audit(1.0:1): uid=-1 pid=1 "
			     "arch=c000003e syscall=1"), PGSC_REJ_BAD_FIELD);
	/* non-numeric and negative pid */
	assert_int_equal(dec("type=SECCOMP msg=audit(1796277282.415:61): "
			     "pid=55x1 comm=\"pg_ctl\" arch=c000003e "
			     "syscall=12 compat=0 code=0x7ffc0000"),
			 PGSC_REJ_BAD_FIELD);
	assert_int_equal(dec("type=SECCOMP msg=audit(1.0:1): pid=-5 "
			     "arch=c000003e syscall=1"), PGSC_REJ_BAD_FIELD);
	assert_int_equal(dec("type=SECCOMP msg=audit(1.0:1): pid= "
			     "arch=c000003e syscall=1"), PGSC_REJ_BAD_FIELD);
	assert_int_equal(dec("type=SECCOMP msg=audit(1.0:1): pid=1 "
			     "arch=c000003e syscall=abc"), PGSC_REJ_BAD_FIELD);
	assert_int_equal(dec("type=SECCOMP msg=audit(1.0:1): pid=1 "
			     "arch=c000003e syscall=99999999999999999999999"),
			 PGSC_REJ_BAD_FIELD);
	/* no header / garbage */
	assert_int_equal(dec(""), PGSC_REJ_NO_HEADER);
	assert_int_equal(dec("garbage"), PGSC_REJ_NO_HEADER);
	assert_int_equal(dec("hello world this is not audit"),
			 PGSC_REJ_NO_HEADER);
	assert_int_equal(dec("type=SECCOMP pid=1 arch=c000003e syscall=1"),
			 PGSC_REJ_NO_HEADER);
	assert_int_equal(dec("type=SECCOMP msg=audit(x.1:2): pid=1"),
			 PGSC_REJ_NO_HEADER);
	assert_int_equal(dec("type=SECCOMP msg=audit(1.1000:2): pid=1"),
			 PGSC_REJ_NO_HEADER);
	assert_int_equal(dec("type=SECCOMP msg=audit(1.1:2) pid=1"),
			 PGSC_REJ_NO_HEADER);
	assert_int_equal(dec("type=SECCOMP msg=audit(1.1:2"),
			 PGSC_REJ_NO_HEADER);
	/* unterminated quote */
	assert_int_equal(dec("type=SECCOMP msg=audit(1796277282.415:61): "
			     "pid=5511 arch=c000003e syscall=12 comm=\"abc"),
			 PGSC_REJ_TRUNCATED);
	assert_int_equal(dec("type=SECCOMP msg=audit(1796277282.415:61): "
			     "pid=5511 arch=c000003e syscall=12 comm=\"abc"
			     ENRICH_TAIL), PGSC_REJ_TRUNCATED);
}

static void
test_reject_binary(void **state)
{
	static const char line[] = "type=SECCOMP msg=audit(1796277282.415:61): "
				   "pid=5511 comm=\"pg\0ctl\" arch=c000003e "
				   "syscall=12 code=0x7ffc0000";

	(void)state;
	assert_int_equal(pgsc_record_decode(line, sizeof(line) - 1, &rec),
			 PGSC_REJ_BINARY);
	/* NUL as the very first and last byte */
	assert_int_equal(pgsc_record_decode("\0type=", 6, &rec),
			 PGSC_REJ_BINARY);
	assert_int_equal(pgsc_record_decode(SECCOMP_RAW "\0",
					    sizeof(SECCOMP_RAW), &rec),
			 PGSC_REJ_BINARY);
}

static void
test_reject_too_long(void **state)
{
	size_t n = 1024 * 1024;
	char *line = malloc(n + 1);
	size_t hl;

	(void)state;
	assert_non_null(line);
	hl = strlen(SECCOMP_RAW);
	memcpy(line, SECCOMP_RAW, hl);
	memcpy(line + hl, " pad=", 5);
	memset(line + hl + 5, 'x', n - hl - 5);
	line[n] = '\0';
	assert_int_equal(pgsc_record_decode(line, n, &rec), PGSC_REJ_TOO_LONG);
	/* exactly PGSC_LINE_MAX bytes (plus a newline) is accepted */
	line[PGSC_LINE_MAX] = '\n';
	assert_int_equal(pgsc_record_decode(line, PGSC_LINE_MAX + 1, &rec), 0);
	assert_int_equal(rec.syscall, 12);
	assert_int_equal(pgsc_record_decode(line, PGSC_LINE_MAX + 2, &rec),
			 PGSC_REJ_TOO_LONG);
	free(line);
}

static void
test_long_exe_truncated(void **state)
{
	char *line = malloc(8192);
	char *exe = malloc(5001);
	int n;

	(void)state;
	assert_non_null(line);
	assert_non_null(exe);
	exe[0] = '/';
	memset(exe + 1, 'e', 4999);
	exe[5000] = '\0';
	n = snprintf(line, 8192, "type=SECCOMP msg=audit(1796277282.415:61): "
		     "auid=4294967295 uid=101 gid=104 ses=4294967295 "
		     "pid=5511 comm=\"%s\" exe=\"%s\" sig=0 arch=c000003e "
		     "syscall=12 compat=0 ip=0x7fd618601c47 code=0x7ffc0000"
		     ENRICH_TAIL, "0123456789012345678901234567890123456789"
		     "0123456789012345678901234567890123456789", exe);
	assert_true(n > 5000 && n < 8192);
	assert_int_equal(pgsc_record_decode(line, (size_t)n, &rec), 0);
	assert_int_equal(strlen(rec.exe), PGSC_EXE_MAX);
	assert_memory_equal(rec.exe, exe, PGSC_EXE_MAX);
	assert_int_equal(strlen(rec.comm), PGSC_COMM_MAX);
	assert_int_equal(rec.syscall, 12);
	assert_int_equal(rec.code, 0x7ffc0000U);
	free(line);
	free(exe);
}

static void
test_syscall_record(void **state)
{
	(void)state;
	assert_int_equal(dec(SYSCALL_CLONE), 0);
	{
		const struct unit_field clone[] = {
			{ "type", rec.type, PGSC_REC_SYSCALL },
			{ "type_num", rec.type_num, 1300 },
			{ "sec", rec.sec, 1796277282 },
			{ "msec", rec.msec, 523 },
			{ "serial", rec.serial, 3668 },
			{ "arch", rec.arch, X86_64 },
			{ "syscall", rec.syscall, 56 },
			{ "success", rec.success, 1 },
			{ "has_exit", rec.has_exit, 1 },
			{ "exit", rec.exit, 5515 },
			{ "a0", rec.a0, 0x1200011U },
			{ "ppid", rec.ppid, 5511 },
			{ "pid", rec.pid, 5514 },
			/* uid=, not auid=, euid=, suid= or fsuid= */
			{ "uid", rec.uid, 101 },
		};

		unit_expect_fields(clone, ARRAY_SIZE(clone));
	}
	assert_string_equal(rec.comm, "postgres");
	assert_string_equal(rec.exe, "/usr/lib/postgresql/15/bin/postgres");

	/* exit_group: no success= and no exit= */
	assert_int_equal(dec(SYSCALL_EXIT_GROUP), 0);
	{
		const struct unit_field exit_group[] = {
			{ "type", rec.type, PGSC_REC_SYSCALL },
			{ "syscall", rec.syscall, 231 },
			{ "success", rec.success, -1 },
			{ "has_exit", rec.has_exit, 0 },
			{ "pid", rec.pid, 5523 },
			{ "ppid", rec.ppid, 5514 },
		};

		unit_expect_fields(exit_group, ARRAY_SIZE(exit_group));
	}
	assert_string_equal(pgsc_syscall_name(rec.arch, (int)rec.syscall),
			    "exit_group");

	/* a failed syscall */
	assert_int_equal(dec("type=SYSCALL msg=audit(1.0:2): arch=c000003e "
			     "syscall=59 success=no exit=-2 a0=55e8c0535d20 "
			     "ppid=1 pid=2 comm=\"x\" exe=\"/x\""), 0);
	assert_int_equal(rec.success, 0);
	assert_int_equal(rec.exit, -2);
	assert_int_equal(rec.a0, 0x55e8c0535d20ULL);

	assert_int_equal(dec("type=SYSCALL msg=audit(1.0:2): arch=c000003e "
			     "syscall=59 success=maybe pid=2"),
			 PGSC_REJ_BAD_FIELD);
	assert_int_equal(dec("type=SYSCALL msg=audit(1.0:2): arch=c000003e "
			     "syscall=59 success=yes exit=1 exit=2 pid=2"),
			 PGSC_REJ_DUP_FIELD);
	assert_int_equal(dec("type=SYSCALL msg=audit(1.0:2): arch=c000003e "
			     "syscall=59 ppid=x pid=2"), PGSC_REJ_BAD_FIELD);
	assert_int_equal(dec("type=SYSCALL msg=audit(1.0:2): arch=c000003e "
			     "success=yes pid=2"), PGSC_REJ_TRUNCATED);
	assert_int_equal(dec("type=SYSCALL msg=audit(1.0:2): arch=12345678 "
			     "syscall=59 pid=2"), PGSC_REJ_UNKNOWN_ARCH);
}

static void
test_proctitle(void **state)
{
	(void)state;
	/* "postgres: checkpointer " (the kernel's copy of the title) */
	assert_int_equal(dec("type=PROCTITLE msg=audit(1796277285.335:34508): "
			     "proctitle=706F7374677265733A20636865636B706F696E"
			     "74657220"), 0);
	assert_int_equal(rec.type, PGSC_REC_PROCTITLE);
	assert_int_equal(rec.type_num, 1327);
	assert_int_equal(rec.serial, 34508);
	/* trailing blanks (a NUL-padded title) are trimmed */
	assert_string_equal(rec.title, "postgres: checkpointer");
	assert_string_equal(pgsc_title_role(rec.title), "checkpointer");

	/* argv with NULs between the words */
	assert_int_equal(dec("type=PROCTITLE msg=audit(1796277281.671:24): "
			     "proctitle=2F7573722F6C69622F706F737467726573716C"
			     "2F31352F62696E2F706F737467726573002D56"), 0);
	assert_string_equal(rec.title, "/usr/lib/postgresql/15/bin/postgres -V");

	assert_int_equal(dec("type=PROCTITLE msg=audit(1796277283.019:9977): "
			     "proctitle=706F7374677265733A20706F73746772657320"
			     "706F737467726573205B6C6F63616C5D2069646C65"), 0);
	assert_string_equal(rec.title, "postgres: postgres postgres [local] idle");

	/* a quoted title is taken as is */
	assert_int_equal(dec("type=PROCTITLE msg=audit(1796277285.179:32037): "
			     "proctitle=\"cat\""), 0);
	assert_string_equal(rec.title, "cat");

	/* a PROCTITLE without proctitle= */
	assert_int_equal(dec("type=PROCTITLE msg=audit(1796277285.179:32037): "),
			 PGSC_REJ_TRUNCATED);
}

static void
test_proctitle_long(void **state)
{
	/* a title longer than PGSC_TITLE_MAX is cut, never overflows */
	size_t hexlen = 2 * (PGSC_TITLE_MAX + 500);
	char *line = malloc(hexlen + 100);
	int n;

	(void)state;
	assert_non_null(line);
	n = snprintf(line, 100, "type=PROCTITLE msg=audit(1.0:1): proctitle=");
	for (size_t i = 0; i < hexlen; i += 2)
		memcpy(line + n + i, "41", 2);
	line[n + hexlen] = '\0';
	assert_int_equal(pgsc_record_decode(line, (size_t)n + hexlen, &rec), 0);
	assert_int_equal(strlen(rec.title), PGSC_TITLE_MAX);
	assert_int_equal(rec.title[0], 'A');
	assert_int_equal(rec.title[PGSC_TITLE_MAX - 1], 'A');
	free(line);
}

static void
test_execve(void **state)
{
	(void)state;
	/* real: sh -c 'cat >/dev/null' under COPY ... TO PROGRAM */
	assert_int_equal(dec("type=EXECVE msg=audit(1796277285.175:31965): "
			     "argc=3 a0=\"sh\" a1=\"-c\" "
			     "a2=636174203E2F6465762F6E756C6C"), 0);
	{
		const struct unit_field sh[] = {
			{ "type", rec.type, PGSC_REC_EXECVE },
			{ "type_num", rec.type_num, 1309 },
			{ "argc", rec.argc, 3 },
			/* a0 of an EXECVE record is an argument, not the
			 * syscall's a0 */
			{ "a0", rec.a0, 0 },
		};

		unit_expect_fields(sh, ARRAY_SIZE(sh));
	}
	assert_string_equal(rec.title, "sh -c cat >/dev/null");

	assert_int_equal(dec("type=EXECVE msg=audit(1796277282.455:943): "
			     "argc=11 a0=\"/usr/lib/postgresql/15/bin/postgres\" "
			     "a1=\"-D\" a2=\"/tmp/rec/data\" a3=\"-k\" "
			     "a4=\"/tmp/rec/sock\" a5=\"-c\" "
			     "a6=\"listen_addresses=\" a7=\"-c\" "
			     "a8=6C6F675F6C696E655F7072656669783D256D205B25705D"
			     "20256220 a9=\"-c\" a10=\"log_min_messages=debug1\""),
			 0);
	assert_int_equal(rec.argc, 11);
	assert_string_equal(rec.title,
			    "/usr/lib/postgresql/15/bin/postgres -D "
			    "/tmp/rec/data -k /tmp/rec/sock -c "
			    "listen_addresses= -c log_line_prefix=%m [%p] %b -c "
			    "log_min_messages=debug1");

	assert_int_equal(dec("type=EXECVE msg=audit(1.0:1): argc=x a0=\"a\""),
			 PGSC_REJ_BAD_FIELD);
}

/*
 * An argument longer than the kernel's per-record budget is logged in
 * pieces:  "a1_len=<bytes> a1[0]=<hex> a1[1]=<hex> ..."  (kernel
 * audit_log_single_execve_arg()).  The pieces must join into the argument;
 * the a1_len= count is not part of argv.
 */
static void
test_execve_split_arg(void **state)
{
	(void)state;
	/* a1 = "abcdefghijklmnop", in two hex pieces */
	assert_int_equal(dec("type=EXECVE msg=audit(1.0:1): argc=3 a0=\"sh\" "
			     "a1_len=16 a1[0]=6162636465666768 "
			     "a1[1]=696A6B6C6D6E6F70 a2=\"end\""), 0);
	assert_int_equal(rec.argc, 3);
	/* "a1_len" announces the pieces; it is not an argument (its value
	 * "16" once became the control byte 0x16 in the title). */
	assert_string_equal(rec.title, "sh abcdefghijklmnop end");
}

/* Two records of one line are the same. */
static void
same_rec(const struct pgsc_record *a, const struct pgsc_record *b)
{
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->type_num, b->type_num);
	assert_int_equal(a->sec, b->sec);
	assert_int_equal(a->msec, b->msec);
	assert_int_equal(a->serial, b->serial);
	assert_int_equal(a->has_node, b->has_node);
	assert_string_equal(a->node, b->node);
	assert_int_equal(a->pid, b->pid);
	assert_int_equal(a->ppid, b->ppid);
	assert_int_equal(a->uid, b->uid);
	assert_int_equal(a->arch, b->arch);
	assert_int_equal(a->has_arch, b->has_arch);
	assert_int_equal(a->syscall, b->syscall);
	assert_int_equal(a->compat, b->compat);
	assert_int_equal(a->code, b->code);
	assert_int_equal(a->success, b->success);
	assert_int_equal(a->exit, b->exit);
	assert_int_equal(a->has_exit, b->has_exit);
	assert_int_equal(a->a0, b->a0);
	assert_int_equal(a->a1, b->a1);
	assert_int_equal(a->a2, b->a2);
	assert_int_equal(a->a3, b->a3);
	assert_int_equal(a->argc, b->argc);
	assert_string_equal(a->comm, b->comm);
	assert_string_equal(a->exe, b->exe);
	assert_string_equal(a->title, b->title);
}

/*
 * Decodes of @line agree: decode_seccomp_fast()'s, the general loop's,
 * and decode_seccomp_fast()'s with a cache that holds the lines before
 * (twice: the second a hit when the first was kept).
 */
static void
same_both_ways(const char *line)
{
	static struct pgsc_record a, b, c;
	static struct decode_cache dc;
	size_t len = strlen(line);
	int ra, rb, rc;

	memset(&a, 0xa5, sizeof(a));
	memset(&b, 0x5a, sizeof(b));
	ra = decode_line(line, len, &a);
	rb = decode_line_general(line, len, &b);
	if (ra != rb)
		fail_msg("%s: fast %s, general %s", line, pgsc_reject_name(ra),
			 pgsc_reject_name(rb));
	if (ra == 0)
		same_rec(&a, &b);
	/* twice without the type's offset, twice with it as the feed
	 * gives it (decode_is_seccomp()) */
	for (int i = 0; i < 4; i++) {
		size_t msg = i < 2 ? 0 : decode_is_seccomp(line, len);
		memset(&c, 0x3c, sizeof(c));
		rc = decode_line_cache(line, len, msg, &c, &dc);
		if (rc != rb)
			fail_msg("%s: cached %s, general %s", line,
				 pgsc_reject_name(rc), pgsc_reject_name(rb));
		if (rc == 0)
			same_rec(&c, &b);
	}
}

#define SC_HEAD "type=SECCOMP msg=audit(1796277282.415:61): "
#define SC_AUID "auid=4294967295 uid=101 gid=104 ses=4294967295 "
#define SC_TAIL "sig=0 arch=c000003e syscall=12 compat=0 " \
	"ip=0x7fd618601c47 code=0x7ffc0000"

/* The SECCOMP fast reader (the kernel's field order) and the general
 * loop give the same record or the same reject, on the kernel's layout
 * and on every way a line can leave it. */
static void
test_seccomp_fast_same(void **state)
{
	static const char *const lines[] = {
		SECCOMP_RAW,
		SECCOMP_RAW ENRICH_TAIL,
		"node=host1 " SECCOMP_RAW ENRICH_TAIL,
		SC_HEAD SC_AUID "subj=unconfined pid=5 comm=\"a\" exe=\"/b\" "
		SC_TAIL,
		SC_HEAD SC_AUID "pid=5 comm=6120620A exe=2F62 " SC_TAIL,
		SC_HEAD SC_AUID "pid=5 comm=(null) exe=(null) " SC_TAIL,
		SC_HEAD SC_AUID "pid=5 comm=abc exe=\"/b c\" " SC_TAIL,
		SC_HEAD SC_AUID "pid=5 comm=\"a\" exe=\"/b\" sig=0 "
		"arch=40000003 syscall=122 compat=1 ip=0x1 code=0x7ffc0000",
		/* numbers at and past their bounds */
		SC_HEAD "auid=1 uid=4294967295 gid=1 ses=1 pid=5 comm=\"a\" "
		"exe=\"/b\" " SC_TAIL,
		SC_HEAD "auid=1 uid=4294967296 gid=1 ses=1 pid=5 comm=\"a\" "
		"exe=\"/b\" " SC_TAIL,
		SC_HEAD SC_AUID "pid=-5 comm=\"a\" exe=\"/b\" " SC_TAIL,
		SC_HEAD SC_AUID "pid=99999999999999999999 comm=\"a\" exe=\"/b\" "
		SC_TAIL,
		SC_HEAD SC_AUID "pid=5 comm=\"a\" exe=\"/b\" sig=0 "
		"arch=0xc000003e syscall=12 compat=0 ip=0x1 code=0x7ffc0000",
		SC_HEAD SC_AUID "pid=5 comm=\"a\" exe=\"/b\" sig=0 "
		"arch=1c000003e syscall=12 compat=0 ip=0x1 code=0x7ffc0000",
		SC_HEAD SC_AUID "pid=5 comm=\"a\" exe=\"/b\" sig=0 "
		"arch=c000003e syscall=12 compat=2 ip=0x1 code=0x7ffc0000",
		SC_HEAD SC_AUID "pid=5 comm=\"a\" exe=\"/b\" sig=0 "
		"arch=c000003e syscall=12 compat=0 ip=0x1 code=0X7ffc0000",
		SC_HEAD SC_AUID "pid=5 comm=\"a\" exe=\"/b\" sig=0 "
		"arch=c000003e syscall=12 compat=0 ip=0x1 code=0x",
		SC_HEAD SC_AUID "pid=5 comm=\"a\" exe=\"/b\" sig=0 "
		"arch=c000003e syscall=12 compat=0 ip=0x1 code=0x1ffffffff",
		SC_HEAD SC_AUID "pid=5 comm=\"a\" exe=\"/b\" sig=0 "
		"arch=c000003e syscall=99999 compat=0 ip=0x1 code=0x7ffc0000",
		/* layouts the kernel does not write */
		SECCOMP_RAW " ",
		SECCOMP_RAW " uid=5",
		SECCOMP_RAW " x",
		SC_HEAD SC_AUID "pid=5  comm=\"a\" exe=\"/b\" " SC_TAIL,
		SC_HEAD SC_AUID "pid=5 comm=\"a\"exe=\"/b\" " SC_TAIL,
		SC_HEAD SC_AUID "pid=5 comm='a b' exe=\"/b\" " SC_TAIL,
		SC_HEAD SC_AUID "pid=5 comm=\"a exe=/b " SC_TAIL,
		SC_HEAD SC_AUID "pid=5 comm=\"a" GS "b\" exe=\"/b\" " SC_TAIL,
		SC_HEAD "auid=\"x y\" uid=101 gid=104 ses=1 pid=5 comm=\"a\" "
		"exe=\"/b\" " SC_TAIL,
		SC_HEAD SC_AUID "comm=\"a\" pid=5 exe=\"/b\" " SC_TAIL,
		SC_HEAD SC_AUID "pid=5 comm=\"a\" exe=\"/b\" sig=0 "
		"arch=c000003e syscall=12 compat=0 ip=0x1",
		SC_HEAD SC_AUID "pid=5 comm=\"a\" exe=\"/b\" sig=0 "
		"arch=c000003e syscall=12 compat=0 code=0x7ffc0000 "
		"ip=0x1",
		SC_HEAD SC_AUID "pid=5 pid=6 comm=\"a\" exe=\"/b\" " SC_TAIL,
		SC_HEAD SC_AUID "pid= comm=\"a\" exe=\"/b\" " SC_TAIL,
		SC_HEAD SC_AUID "pid=5 comm= exe= " SC_TAIL,
		SC_HEAD SC_AUID "pid=5 comm=\"a\" exe=\"/b\" sig=0 "
		"arch=c000003e syscall=12 compat=0 ip=0x1 code=0x7ffc0000"
		" code=0x0",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		same_both_ways(lines[i]);
	/* every prefix of the kernel's line, cut anywhere */
	for (size_t n = 0; n <= strlen(SECCOMP_RAW); n++) {
		char buf[sizeof(SECCOMP_RAW)];

		memcpy(buf, SECCOMP_RAW, n);
		buf[n] = '\0';
		same_both_ways(buf);
	}
	/* more processes than the cache holds, in turns: hits in every
	 * slot, evictions, the same bytes before another tail */
	for (int k = 0; k < 40; k++) {
		char buf[512];

		snprintf(buf, sizeof(buf), SC_HEAD SC_AUID "pid=%d "
			 "comm=\"c%d\" exe=\"/e %d\" sig=0 arch=%s "
			 "syscall=%d compat=0 ip=0x1 code=0x7ffc0000%s",
			 (k * 7) % 6, k % 3, (k * 7) % 6,
			 k % 5 ? "c000003e" : "40000003", k % 4 ? 12 : 99999,
			 k % 9 ? "" : " x");
		same_both_ways(buf);
	}
}

/* The header's "S.M:N)" read in one pass (stamp_fast()) or, past 19
 * digits, the way it was before: the same numbers and refusals. */
static void
test_header_stamp(void **state)
{
	static const struct {
		const char *stamp;
		int ok;
		int64_t sec;
		int msec;
		uint64_t serial;
	} c[] = {
		{ "1796277282.415:61", 1, 1796277282, 415, 61 },
		{ "0001796277282.0415:0061", 1, 1796277282, 415, 61 },
		{ "1796277282.415:18446744073709551615", 1, 1796277282, 415,
		  UINT64_MAX },
		{ "1796277282.415:18446744073709551616", 0, 0, 0, 0 },
		{ "9223372036854775807.0:1", 1, INT64_MAX, 0, 1 },
		{ "9223372036854775808.0:1", 0, 0, 0, 0 },
		{ "1796277282.1000:61", 0, 0, 0, 0 },
		{ "1796277282.415:61 ", 0, 0, 0, 0 },
		{ ".415:61", 0, 0, 0, 0 },
		{ "1796277282.:61", 0, 0, 0, 0 },
		{ "1796277282.415:", 0, 0, 0, 0 },
		{ "1796277282:415.61", 0, 0, 0, 0 },
		{ "17962x7282.415:61", 0, 0, 0, 0 },
		/* eight digits at a time (digits_to()): blocks whole, cut
		 * short, and refused by one byte at either side of the
		 * digits, or one past 0xF9 whose +6 carries */
		{ "1796623092.624:37004943", 1, 1796623092, 624, 37004943 },
		{ "12345678.0:87654321", 1, 12345678, 0, 87654321 },
		{ "1796277282.415:3700494312345678", 1, 1796277282, 415,
		  3700494312345678ULL },
		{ "1234567890123456789.1:1", 1, 1234567890123456789LL, 1, 1 },
		{ "17962772/2.415:61", 0, 0, 0, 0 },
		{ "1796277:82.415:61", 0, 0, 0, 0 },
		{ "1796277\xfa" "82.415:61", 0, 0, 0, 0 },
		{ "1796277282.415:3700\xff" "943", 0, 0, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		char line[160];
		int type_num, rc;
		const char *tn;
		size_t tl;
		int64_t sec = -1;
		int msec = -1;
		uint64_t serial = 0;

		snprintf(line, sizeof(line), "type=SYSCALL msg=audit(%s): "
			 "pid=1", c[i].stamp);
		rc = decode_header(line, strlen(line), &type_num, &tn, &tl,
				   &sec, &msec, &serial);
		if (!c[i].ok) {
			if (rc >= 0)
				fail_msg("%s: accepted", c[i].stamp);
			continue;
		}
		if (rc == -PGSC_REJ_BAD_TIME)
			continue; /* past PGSC_SEC_MAX: read, then refused */
		if (rc != PGSC_REC_SYSCALL || sec != c[i].sec ||
		    msec != c[i].msec || serial != c[i].serial)
			fail_msg("%s: %d %lld.%d:%llu", c[i].stamp, rc,
				 (long long)sec, msec,
				 (unsigned long long)serial);
	}
}

/* Every count of digits, 1 to 20, in each of the header's three numbers,
 * with each byte after them: the values strtoull() gives, and a refusal
 * past 19 digits (lead_digits() counts the digits of eight bytes at a
 * time, wherever the number ends among them). */
static void
test_header_digits(void **state)
{
	static const char digits[] = "98765432109876543210";
	static const char after[] = { ')', ':', '.', '/', 'x', ' ' };

	(void)state;
	for (int which = 0; which < 3; which++)
		for (size_t n = 1; n <= 20; n++)
			for (size_t a = 0; a < sizeof(after); a++) {
				char num[24], stamp[64], line[160];
				const char *tn;
				size_t tl;
				int type_num, rc, ok;
				int64_t sec = -1;
				int msec = -1;
				uint64_t serial = 0, want;

				memcpy(num, digits + 20 - n, n);
				num[n] = '\0';
				want = strtoull(num, NULL, 10);
				snprintf(stamp, sizeof(stamp), "%s%c%s%c%s%c",
					 which == 0 ? num : "1796277282",
					 which == 0 ? after[a] : '.',
					 which == 1 ? num : "415",
					 which == 1 ? after[a] : ':',
					 which == 2 ? num : "61",
					 which == 2 ? after[a] : ')');
				snprintf(line, sizeof(line),
					 "type=SYSCALL msg=audit(%s: pid=1",
					 stamp);
				rc = decode_header(line, strlen(line), &type_num,
						   &tn, &tl, &sec, &msec,
						   &serial);
				ok = n <= 19 && after[a] == ".:)"[which];
				if (which == 0)
					ok = ok && want <= (uint64_t)INT64_MAX;
				if (which == 1)
					ok = ok && want <= 999;
				if (!ok) {
					if (rc >= 0)
						fail_msg("%s: accepted", line);
					continue;
				}
				if (rc == -PGSC_REJ_BAD_TIME && which == 0)
					continue;
				if (rc != PGSC_REC_SYSCALL ||
				    (which == 0 && (uint64_t)sec != want) ||
				    (which == 1 && (uint64_t)msec != want) ||
				    (which == 2 && serial != want))
					fail_msg("%s: %d %lld.%d:%llu", line, rc,
						 (long long)sec, msec,
						 (unsigned long long)serial);
			}
}

static void
test_reject_names(void **state)
{
	const char *names[PGSC_REJ__COUNT];

	(void)state;
	for (int i = 0; i < PGSC_REJ__COUNT; i++) {
		names[i] = pgsc_reject_name(i);
		assert_non_null(names[i]);
		assert_true(names[i][0] != '\0');
		for (const char *p = names[i]; *p; p++)
			assert_true((*p >= 'a' && *p <= 'z') || *p == '-');
		for (int j = 0; j < i; j++)
			assert_string_not_equal(names[i], names[j]);
	}
	assert_string_equal(pgsc_reject_name(PGSC_REJ_TRUNCATED), "truncated");
	/* out of range is a fixed word, never NULL */
	assert_non_null(pgsc_reject_name(-1));
	assert_non_null(pgsc_reject_name(PGSC_REJ__COUNT));
	assert_non_null(pgsc_reject_name(1000));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seccomp_raw),
		cmocka_unit_test(test_seccomp_enriched),
		cmocka_unit_test(test_node_prefix),
		cmocka_unit_test(test_subj_field),
		cmocka_unit_test(test_hex_comm_exe),
		cmocka_unit_test(test_null_comm),
		cmocka_unit_test(test_i386_compat),
		cmocka_unit_test(test_codes),
		cmocka_unit_test(test_unknown_type_header),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_reject_binary),
		cmocka_unit_test(test_reject_too_long),
		cmocka_unit_test(test_long_exe_truncated),
		cmocka_unit_test(test_syscall_record),
		cmocka_unit_test(test_proctitle),
		cmocka_unit_test(test_proctitle_long),
		cmocka_unit_test(test_execve),
		cmocka_unit_test(test_execve_split_arg),
		cmocka_unit_test(test_reject_names),
		cmocka_unit_test(test_seccomp_fast_same),
		cmocka_unit_test(test_header_stamp),
		cmocka_unit_test(test_header_digits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
