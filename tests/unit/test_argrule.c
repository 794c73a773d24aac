/* SPDX-License-Identifier: PostgreSQL */
/* test_argrule.c - unit tests for argrule.c (the argument rules of list
 * entries) and for how the effective filter, the builder and the
 * tokenizer take them: good entries and their canonical text, every
 * error with its byte, the cap, the round trip, the unions, the BPF. */
#include "unit.h"

#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc.h"
#include "filter.h"
#include "syscalls.h"

/* Parse @entry, expecting a rule whose canonical text is @canon. */
static void
good(const char *entry, const char *canon)
{
	struct argrule r, r2;
	char buf[ARGRULE_TEXT_MAX], buf2[ARGRULE_TEXT_MAX];
	char again[ARGRULE_TEXT_MAX + 64];
	char *cause = NULL;
	size_t n, name;
	int rc = argrule_parse(entry, strlen(entry), &r, &cause);

	if (rc != 1)
		fail_msg("%s: %d %s", entry, rc, cause ? cause : "");
	assert_null(cause);
	n = argrule_format(&r, buf, sizeof(buf));
	assert_int_equal(n, strlen(buf));
	assert_string_equal(buf, canon);
	/* round trip: name(canonical) parses to the same rule and text */
	name = syscall_lists_name(entry, strlen(entry));
	snprintf(again, sizeof(again), "%.*s(%s)", (int)name, entry, buf);
	assert_int_equal(argrule_parse(again, strlen(again), &r2, NULL), 1);
	assert_int_equal(argrule_same_args(&r, &r2), 1);
	assert_int_equal(r.nalts, r2.nalts);
	argrule_format(&r2, buf2, sizeof(buf2));
	assert_string_equal(buf, buf2);
}

/* Parse @entry, expecting -EINVAL and the cause @want. */
static void
bad(const char *entry, const char *want)
{
	struct argrule r;
	char *cause = NULL;

	assert_int_equal(argrule_parse(entry, strlen(entry), &r, &cause),
			 -EINVAL);
	assert_non_null(cause);
	if (strcmp(cause, want) != 0)
		fail_msg("%s:\n got  %s\n want %s", entry, cause, want);
	free(cause);
}

static void
test_good(void **state)
{
	struct argrule r;

	(void)state;
	good("socket(a0:a1&0xf=1:1|2:1|10:2)", "a0:a1&0xf=1:1|2:1|10:2");
	good("setsockopt(a1:a2=1:9|6:1|41:26)", "a1:a2=1:9|6:1|41:26");
	good("clone(a0&0x7e020000=0)", "a0&0x7e020000=0");
	good("mprotect(a2&0x4=0)", "a2&0x4=0");
	good("ioctl(a1=0x5401|0x541b)", "a1=21505|21531");
	good("socket(a0=1|2|10)", "a0=1|2|10");
	/* sorted, duplicates dropped, hex in any case */
	good("socket(a0=10|2|0xA|1|2)", "a0=1|2|10");
	good("x(a5&0XFF=0xfF)", "a5&0xff=255");
	good("x(a2:a0=3:1|1:3)", "a2:a0=1:3|3:1");
	good("x(a0=18446744073709551615)", "a0=18446744073709551615");
	good("x(a0=0xffffffffffffffff|0)", "a0=0|18446744073709551615");
	good("x(a0&0x0=0)", "a0&0x0=0");
	/* a bare name: no rule, and the name is all of it */
	assert_int_equal(argrule_parse("socket", 6, &r, NULL), 0);
	assert_int_equal(syscall_lists_name("socket", 6), 6);
	assert_int_equal(syscall_lists_name("socket(a0=1)", 12), 6);
	/* only @len bytes are read */
	assert_int_equal(argrule_parse("read(a0=1)", 4, &r, NULL), 0);
}

static void
test_errors(void **state)
{
	(void)state;
	bad("(a0=1)", "entry \"(a0=1)\": at byte 1: no syscall name before \"(\"");
	bad("socket)", "entry \"socket)\": at byte 7: \")\" without \"(\"");
	bad("socket()", "entry \"socket()\": at byte 8: expected an argument a0 to a5");
	bad("socket(b0=1)", "entry \"socket(b0=1)\": at byte 8: expected an argument a0 to a5");
	bad("socket(a6=1)", "entry \"socket(a6=1)\": at byte 9: expected an argument number 0 to 5");
	bad("socket(a=1)", "entry \"socket(a=1)\": at byte 9: expected an argument number 0 to 5");
	bad("socket(a0:a0=1:1)", "entry \"socket(a0:a0=1:1)\": at byte 12: argument listed twice");
	bad("socket(a0:a1:a2:a3=1:1:1:1)", "entry \"socket(a0:a1:a2:a3=1:1:1:1)\": at byte 17: too many arguments (at most 3)");
	bad("socket(a0)", "entry \"socket(a0)\": at byte 10: expected \":\" or \"=\"");
	bad("socket(a0", "entry \"socket(a0\": at byte 10: expected \":\" or \"=\"");
	bad("socket(a0&=1)", "entry \"socket(a0&=1)\": at byte 11: expected a number");
	bad("socket(a0&0x=1)", "entry \"socket(a0&0x=1)\": at byte 13: expected hex digits after 0x");
	bad("socket(a0=)", "entry \"socket(a0=)\": at byte 11: expected a number");
	bad("socket(a0=-1)", "entry \"socket(a0=-1)\": at byte 11: expected a number");
	bad("socket(a0=1|)", "entry \"socket(a0=1|)\": at byte 13: expected a number");
	bad("socket(a0=18446744073709551616)", "entry \"socket(a0=18446744073709551616)\": at byte 30: number overflows 64 bits");
	bad("socket(a0=0x10000000000000000)", "entry \"socket(a0=0x10000000000000000)\": at byte 29: number overflows 64 bits");
	bad("socket(a0:a1=1)", "entry \"socket(a0:a1=1)\": at byte 15: fewer numbers than arguments");
	bad("socket(a0=1:2)", "entry \"socket(a0=1:2)\": at byte 12: more numbers than arguments");
	bad("socket(a0=1", "entry \"socket(a0=1\": at byte 12: expected \")\" at the end");
	bad("socket(a0=1,2)", "entry \"socket(a0=1,2)\": at byte 12: expected \"|\" or \")\"");
	bad("socket(a0=1 )", "entry \"socket(a0=1 )\": at byte 12: expected \"|\" or \")\"");
	bad("socket(a0=1)x", "entry \"socket(a0=1)x\": at byte 13: bytes after \")\"");
	bad("socket(a0=1)(a0=2)", "entry \"socket(a0=1)(a0=2)\": at byte 13: bytes after \")\"");
	bad("socket(a1&0xf=16)", "entry \"socket(a1&0xf=16)\": at byte 15: value has bits outside the mask: it can never match");
	/* untrusted bytes are escaped in the cause */
	bad("s\"\x01(a0=z)", "entry \"s\\x22\\x01(a0=z)\": at byte 8: expected a number");
}

/* ARGRULE_ALTS_MAX alternatives parse, one more is an error */
static void
test_cap(void **state)
{
	char entry[512], want[600];
	struct argrule r;
	size_t n = 0;

	(void)state;
	n += (size_t)snprintf(entry + n, sizeof(entry) - n, "ioctl(a1=");
	for (int i = 0; i < ARGRULE_ALTS_MAX; i++)
		n += (size_t)snprintf(entry + n, sizeof(entry) - n, "%s%d",
				      i > 0 ? "|" : "", 1000 + i);
	snprintf(entry + n, sizeof(entry) - n, ")");
	assert_int_equal(argrule_parse(entry, strlen(entry), &r, NULL), 1);
	assert_int_equal(r.nalts, ARGRULE_ALTS_MAX);
	snprintf(entry + n, sizeof(entry) - n, "|99)");
	snprintf(want, sizeof(want), "entry \"%.64s...\": at byte %zu: too "
		 "many alternatives (at most 16)", entry, n + 2);
	assert_true(strlen(entry) > 64);
	bad(entry, want);
}

static pgsc_effective *
effective(const char *allow, const char *error)
{
	struct pgsc_filter_spec spec = { .def = PGSC_ACT_LOG };
	pgsc_effective *e = NULL;
	char *cause = NULL;
	int rc;

	spec.list[PGSC_ACT_ALLOW] = allow;
	spec.list[PGSC_ACT_ERROR] = error;
	rc = pgsc_effective_new(&spec, 0, &e, &cause);
	if (rc != 0)
		fail_msg("%s: %d %s", allow, rc, cause ? cause : "");
	return e;
}

/* The rule text of @name in @e ("" for none). */
static const char *
rule_of(const pgsc_effective *e, const char *name)
{
	const struct pgsc_effective_entry *v;
	size_t n = pgsc_effective_entries(e, &v);

	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0) {
			assert_true((v[i].rule == NULL) == (v[i].args == NULL));
			return v[i].rule != NULL ? v[i].rule : "";
		}
	fail_msg("no %s", name);
	return NULL;
}

static void
test_effective_union(void **state)
{
	pgsc_effective *e;
	char big[256], *cause = NULL;
	struct pgsc_filter_spec spec = { .def = PGSC_ACT_ERROR };
	size_t n = 0;

	(void)state;
	e = effective("read, socket(a0=2|1), ioctl(a1=0x5401)", NULL);
	assert_string_equal(rule_of(e, "read"), "");
	assert_string_equal(rule_of(e, "socket"), "a0=1|2");
	assert_string_equal(rule_of(e, "ioctl"), "a1=21505");
	pgsc_effective_free(e);
	/* plain wins, in either order */
	e = effective("socket(a0=1), socket, ioctl, ioctl(a1=1)", NULL);
	assert_string_equal(rule_of(e, "socket"), "");
	assert_string_equal(rule_of(e, "ioctl"), "");
	pgsc_effective_free(e);
	/* same args: the alternatives unite; different args (a mask
	 * counts): plain */
	e = effective("socket(a0=1|2),socket(a0=10|2),clone(a0&0x1=0),"
		      "clone(a0&0x3=0),prctl(a0=1),prctl(a0:a1=1:1)", NULL);
	assert_string_equal(rule_of(e, "socket"), "a0=1|2|10");
	assert_string_equal(rule_of(e, "clone"), "");
	assert_string_equal(rule_of(e, "prctl"), "");
	pgsc_effective_free(e);
	/* the strictest action's entry wins, rule and all */
	e = effective("socket, ioctl(a1=1)", "socket(a0=17), ioctl");
	assert_string_equal(rule_of(e, "socket"), "a0=17");
	assert_string_equal(rule_of(e, "ioctl"), "");
	pgsc_effective_free(e);
	/* a union over the cap widens to the plain name */
	n += (size_t)snprintf(big + n, sizeof(big) - n, "ioctl(a1=");
	for (int i = 0; i < ARGRULE_ALTS_MAX; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "%s%d",
				      i > 0 ? "|" : "", i);
	snprintf(big + n, sizeof(big) - n, "),ioctl(a1=99)");
	e = effective(big, NULL);
	assert_string_equal(rule_of(e, "ioctl"), "");
	pgsc_effective_free(e);
	/* a bad rule names its entry alone; an unknown name still says so */
	spec.list[PGSC_ACT_ALLOW] = "read, socket(a0=x)";
	assert_int_equal(pgsc_effective_new(&spec, 0, &e, &cause), -EINVAL);
	assert_string_equal(cause, "entry \"socket(a0=x)\": at byte 11: "
			    "expected a number");
	free(cause);
	cause = NULL;
	spec.list[PGSC_ACT_ALLOW] = "nosuch(a0=1)";
	assert_int_equal(pgsc_effective_new(&spec, 0, &e, &cause), -EINVAL);
	assert_non_null(strstr(cause, "unknown syscall name \"nosuch\""));
	free(cause);
}

/* The BPF of a list of ~100 names with 10 realistic rules, on both
 * arches, under FILTER_BPF_MAX; printed for docs/module.md. */
static void
test_bpf_size(void **state)
{
	static const char *const plain = "read,write,close,fstat,lseek,mmap,"
		"munmap,brk,rt_sigaction,rt_sigprocmask,rt_sigreturn,pread64,"
		"pwrite64,readv,writev,access,pipe,select,sched_yield,mremap,"
		"msync,mincore,dup,dup2,nanosleep,getpid,sendfile,connect,"
		"accept,sendto,recvfrom,sendmsg,recvmsg,shutdown,bind,listen,"
		"getsockname,getpeername,socketpair,getsockopt,exit,wait4,"
		"kill,uname,semget,semop,semctl,fsync,fdatasync,truncate,"
		"ftruncate,getdents64,getcwd,chdir,rename,mkdir,rmdir,link,"
		"unlink,symlink,readlink,chmod,fchmod,umask,gettimeofday,"
		"getrlimit,getrusage,sysinfo,getuid,getgid,geteuid,getegid,"
		"getppid,setsid,statfs,fstatfs,gettid,futex,epoll_create1,"
		"epoll_ctl,epoll_wait,set_tid_address,clock_gettime,"
		"exit_group,openat,newfstatat,pselect6,ppoll,set_robust_list,"
		"fallocate,accept4,pipe2,prlimit64,getrandom,statx,rseq,"
		"execve,vfork,sync_file_range,fadvise64";
	static const char *const rules = ",socket(a0:a1&0xf=1:1|1:2|2:1|2:2|"
		"10:1|10:2),setsockopt(a1:a2=1:9|6:1|6:4|6:5|6:6|6:18|41:26),"
		"clone(a0&0x7e020000=0),mprotect(a2&0x4=0),"
		"ioctl(a1=0x5401|0x541b|0x5413),prctl(a0=1|15|16|38),"
		"fcntl(a1=0|1|2|3|4|1030|1031|1032),madvise(a2=0|3|4|8),"
		"mmap(a2&0x4=0),personality(a0=0|0xffffffff)";
	struct pgsc_filter_spec spec = { .def = PGSC_ACT_ERROR };
	const struct pgsc_effective_entry *v;
	struct filter_rule r[160];
	enum filter_step step;
	size_t n, len[2], bad;
	char *list, *cause = NULL;
	void *bpf;
	int rc;

	(void)state;
	assert_non_null(list = malloc(strlen(plain) + strlen(rules) + 1));
	for (int with = 0; with < 2; with++) {
		pgsc_effective *e;

		strcpy(list, plain);
		if (with)
			strcat(list, rules);
		spec.list[PGSC_ACT_ALLOW] = list;
		rc = pgsc_effective_new(&spec, 0, &e, &cause);
		if (rc != 0)
			fail_msg("%d %s", rc, cause ? cause : "");
		n = pgsc_effective_entries(e, &v);
		assert_true(n <= 160);
		for (size_t i = 0; i < n; i++) {
			r[i].name = v[i].name;
			r[i].nr = v[i].nr;
			r[i].action = SCMP_ACT_ALLOW;
			r[i].args = v[i].args;
		}
		rc = filter_build_export(SCMP_ACT_ERRNO(EPERM), r, n, NULL,
					 &bpf, &len[with], &step, &bad);
		if (rc != 0)
			fail_msg("export: %d at step %d, rule %s", rc,
				 (int)step, step == FILTER_STEP_RULE
				 ? r[bad].name : "-");
		free(bpf);
		pgsc_effective_free(e);
	}
	print_message("BPF of %s: %zu bytes (%zu instructions) without the "
		      "10 rules, %zu (%zu) with them; FILTER_BPF_MAX %d\n",
		      "a 100-name list", len[0], len[0] / 8, len[1],
		      len[1] / 8, FILTER_BPF_MAX);
	assert_true(len[1] > len[0]);
	assert_true(len[1] <= FILTER_BPF_MAX);
	free(list);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_effective_union),
		cmocka_unit_test(test_bpf_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
