/* SPDX-License-Identifier: PostgreSQL */
/* test_args.c - unit tests for args.c (docs/args.md): the values kept of
 * each call with their masks, the decoder's a0..a3 of SYSCALL records,
 * a table that turns to "any value" rather than drop one, and the stored
 * text read back (untrusted). */
#include "unit.h"

#include <errno.h>

/* x86_64 numbers */
#define NR_MMAP 9
#define NR_IOCTL 16
#define NR_SOCKET 41
#define NR_SETSOCKOPT 54
#define NR_CLONE 56
#define NR_GETPID 39

static void
test_extract(void **state)
{
	uint64_t a[4] = { 10, 0x80801, 0, 0 };
	struct args_obs o;

	(void)state;
	/* socket(AF_INET6, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK): 10:1 */
	assert_int_equal(args_extract(X86_64, NR_SOCKET, a, &o), 1);
	assert_int_equal(o.nv, 2);
	assert_int_equal(o.v[0], 10);
	assert_int_equal(o.v[1], 1);
	/* setsockopt(fd, SOL_TCP, TCP_NODELAY): a1:a2 */
	a[0] = 5, a[1] = 6, a[2] = 1;
	assert_int_equal(args_extract(X86_64, NR_SETSOCKOPT, a, &o), 1);
	assert_int_equal(o.v[0], 6);
	assert_int_equal(o.v[1], 1);
	/* clone: only the CLONE_NEW* bits; CLONE_THREAD etc. masked off */
	a[0] = 0x3d0f00 | 0x40000000; /* pthread flags | CLONE_NEWNET */
	assert_int_equal(args_extract(X86_64, NR_CLONE, a, &o), 1);
	assert_int_equal(o.nv, 1);
	assert_int_equal(o.v[0], 0x40000000);
	/* mmap: PROT_EXEC only */
	a[2] = 0x7;
	assert_int_equal(args_extract(X86_64, NR_MMAP, a, &o), 1);
	assert_int_equal(o.v[0], 4);
	a[1] = 0x5401;
	assert_int_equal(args_extract(X86_64, NR_IOCTL, a, &o), 1);
	assert_int_equal(o.v[0], 0x5401);
	/* not in the set, and not on a 32-bit arch */
	assert_int_equal(args_extract(X86_64, NR_GETPID, a, &o), 0);
	assert_int_equal(args_extract(I386, 359, a, &o), 0);
	assert_int_equal(args_extract(X86_64, -1, a, &o), 0);
	assert_string_equal(args_key("socket"), "a0:a1&0xf");
	assert_null(args_key("getpid"));
	assert_true(args_hex("ioctl"));
	assert_false(args_hex("prctl"));
}

static void
test_decode(void **state)
{
	static const char ok[] = "type=SYSCALL msg=audit(1796278851.535:7): "
		"arch=c000003e syscall=41 success=yes exit=5 a0=2 a1=80001 "
		"a2=0 a3=ffffffffffffffff items=0 ppid=1 pid=700 uid=101";
	static const char *const bad[] = {
		"type=SYSCALL msg=audit(1.1:7): arch=c000003e syscall=41 pid=7 a0=1 a1=zz",
		"type=SYSCALL msg=audit(1.1:7): arch=c000003e syscall=41 pid=7 a0=1 a2=1 a2=1",
		"type=SYSCALL msg=audit(1.1:7): arch=c000003e syscall=41 pid=7 a3=1ffffffffffffffff",
		"type=SYSCALL msg=audit(1.1:7): arch=c000003e syscall=41 pid=7 a1=",
	};
	static const int why[] = { PGSC_REJ_BAD_FIELD, PGSC_REJ_DUP_FIELD,
				   PGSC_REJ_BAD_FIELD, PGSC_REJ_BAD_FIELD };
	struct pgsc_record r;

	(void)state;
	assert_int_equal(pgsc_record_decode(ok, strlen(ok), &r), 0);
	assert_int_equal(r.a0, 2);
	assert_int_equal(r.a1, 0x80001);
	assert_int_equal(r.a2, 0);
	assert_true(r.a3 == UINT64_MAX);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(pgsc_record_decode(bad[i], strlen(bad[i]), &r),
				 why[i]);
	/* a1= of another record type is not an argument */
	{
		static const char other[] = "type=SECCOMP msg=audit(1.1:7): "
			"pid=7 arch=c000003e syscall=39 compat=0 a1=zz "
			"code=0x7ffc0000";

		assert_int_equal(pgsc_record_decode(other, strlen(other), &r),
				 0);
	}
}

static void
test_table(void **state)
{
	struct args_tab t = { 0 };
	struct args_obs o = { .arch = X86_64, .nr = NR_IOCTL, .nv = 1,
			      .count = 1 };

	(void)state;
	o.v[0] = 1;
	assert_int_equal(args_tab_add(&t, &o), 0);
	assert_int_equal(args_tab_add(&t, &o), 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.e[0].count, 2);
	/* past ARGS_VALUES_MAX distinct values: one "any" entry, all counted */
	for (uint64_t v = 2; v <= ARGS_VALUES_MAX + 1; v++) {
		o.v[0] = v;
		assert_int_equal(args_tab_add(&t, &o), 0);
	}
	assert_int_equal(t.n, 1);
	assert_int_equal(t.e[0].nv, 0);
	assert_int_equal(t.e[0].count, ARGS_VALUES_MAX + 2);
	args_tab_free(&t);
}

static void
test_text(void **state)
{
	struct args_obs o = { .nv = 2, .v = { 10, 2 } }, back;
	char buf[ARGS_VALS_MAX];

	(void)state;
	args_vals_text(&o, buf);
	assert_string_equal(buf, "10:2");
	memset(&back, 0, sizeof(back));
	assert_int_equal(args_vals_parse(buf, 2, &back), 0);
	assert_int_equal(back.v[0], 10);
	assert_int_equal(back.v[1], 2);
	o.v[0] = UINT64_MAX;
	args_vals_text(&o, buf);
	assert_int_equal(args_vals_parse(buf, 2, &back), 0);
	assert_true(back.v[0] == UINT64_MAX);
	assert_int_equal(args_vals_parse("*", 2, &back), 0);
	assert_int_equal(back.nv, 0);
	assert_int_equal(args_vals_parse("1", 2, &back), -EINVAL);
	assert_int_equal(args_vals_parse("1:2:3", 2, &back), -EINVAL);
	assert_int_equal(args_vals_parse("-1:2", 2, &back), -EINVAL);
	assert_int_equal(args_vals_parse("99999999999999999999:1", 2, &back),
			 -EINVAL);
	assert_int_equal(args_vals_parse("", 1, &back), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extract),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
