/* SPDX-License-Identifier: PostgreSQL */
/* test_effective.c - unit tests for filter_effective.c: precedence, '*', names. */
#include "unit.h"

#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc.h"

/* The entry for @name in @e, or NULL. */
static const struct pgsc_effective_entry *
find(const pgsc_effective *e, const char *name)
{
	const struct pgsc_effective_entry *v;
	size_t n = pgsc_effective_entries(e, &v);

	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

static pgsc_effective *
make(const struct pgsc_filter_spec *spec, uint32_t arch)
{
	pgsc_effective *e = NULL;
	char *cause = NULL;
	int rc = pgsc_effective_new(spec, arch, &e, &cause);

	if (rc != 0)
		fail_msg("pgsc_effective_new: %d %s", rc, cause ? cause : "");
	assert_null(cause);
	assert_non_null(e);
	return e;
}

/* Expect -EINVAL; returns the cause (caller frees). */
static char *
make_bad(const struct pgsc_filter_spec *spec, uint32_t arch)
{
	pgsc_effective *e = (pgsc_effective *)1;
	char *cause = NULL;

	assert_int_equal(pgsc_effective_new(spec, arch, &e, &cause), -EINVAL);
	assert_null(e);
	assert_non_null(cause);
	return cause;
}

static void
test_action_names(void **state)
{
	(void)state;
	assert_string_equal(pgsc_action_name(PGSC_ACT_ALLOW), "allow");
	assert_string_equal(pgsc_action_name(PGSC_ACT_LOG), "log");
	assert_string_equal(pgsc_action_name(PGSC_ACT_ERROR), "error");
	assert_string_equal(pgsc_action_name(PGSC_ACT_KILL), "kill");
	/* the names parse back */
	for (int a = PGSC_ACT_ALLOW; a <= PGSC_ACT_KILL; a++)
		assert_int_equal(pgsc_action_parse(
			pgsc_action_name((enum pgsc_action)a)), a);
}

/* One name on every subset of the four lists: the strictest wins. */
static void
test_precedence_all_subsets(void **state)
{
	(void)state;
	for (unsigned mask = 1; mask < 16; mask++) {
		struct pgsc_filter_spec spec = { .def = PGSC_ACT_LOG };
		pgsc_effective *e;
		const struct pgsc_effective_entry *v;
		int want = -1;

		for (int a = 0; a < 4; a++) {
			if (mask & (1U << a)) {
				spec.list[a] = "read";
				want = a;       /* largest = strictest */
			}
		}
		e = make(&spec, 0);
		assert_int_equal(pgsc_effective_entries(e, &v), 1);
		assert_string_equal(v[0].name, "read");
		assert_int_equal((int)v[0].action, want);
		assert_int_equal(v[0].nr, seccomp_syscall_resolve_name("read"));
		pgsc_effective_free(e);
	}
}

static void
test_precedence_mixed(void **state)
{
	struct pgsc_filter_spec spec = {
		.def = PGSC_ACT_ERROR,
		.list = {
			[PGSC_ACT_ALLOW] = "read,write, openat ,close,getpid",
			[PGSC_ACT_LOG] = "write,openat,getppid",
			[PGSC_ACT_ERROR] = "openat,mkdir",
			[PGSC_ACT_KILL] = "close,ptrace",
		},
	};
	static const struct {
		const char *name;
		enum pgsc_action a;
	} want[] = {
		{ "close", PGSC_ACT_KILL },     /* kill > allow */
		{ "getpid", PGSC_ACT_ALLOW },
		{ "getppid", PGSC_ACT_LOG },
		{ "mkdir", PGSC_ACT_ERROR },
		{ "openat", PGSC_ACT_ERROR },   /* error > log > allow */
		{ "ptrace", PGSC_ACT_KILL },
		{ "read", PGSC_ACT_ALLOW },
		{ "write", PGSC_ACT_LOG },      /* log > allow */
	};
	const struct pgsc_effective_entry *v;
	pgsc_effective *e;
	size_t n;

	(void)state;
	e = make(&spec, 0);
	assert_int_equal(pgsc_effective_default(e), PGSC_ACT_ERROR);
	n = pgsc_effective_entries(e, &v);
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	/* sorted by name, each once */
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(v[i].name, want[i].name);
		assert_int_equal(v[i].action, want[i].a);
		assert_int_equal(v[i].nr,
				 seccomp_syscall_resolve_name(want[i].name));
	}
	pgsc_effective_free(e);
}

/* A name twice in the same list, blanks, empty elements. */
static void
test_duplicates_and_blanks(void **state)
{
	struct pgsc_filter_spec spec = {
		.def = PGSC_ACT_KILL,
		.list = { [PGSC_ACT_ALLOW] = " read,,read ,\twrite,\n,",
			  [PGSC_ACT_LOG] = "", [PGSC_ACT_ERROR] = NULL,
			  [PGSC_ACT_KILL] = " , " },
	};
	const struct pgsc_effective_entry *v;
	pgsc_effective *e;

	(void)state;
	e = make(&spec, 0);
	assert_int_equal(pgsc_effective_entries(e, &v), 2);
	assert_string_equal(v[0].name, "read");
	assert_string_equal(v[1].name, "write");
	assert_int_equal(pgsc_effective_default(e), PGSC_ACT_KILL);
	pgsc_effective_free(e);
}

static void
test_empty(void **state)
{
	struct pgsc_filter_spec spec = { .def = PGSC_ACT_ALLOW };
	const struct pgsc_effective_entry *v;
	pgsc_effective *e;

	(void)state;
	e = make(&spec, 0);
	assert_int_equal(pgsc_effective_entries(e, &v), 0);
	assert_int_equal(pgsc_effective_default(e), PGSC_ACT_ALLOW);
	pgsc_effective_free(e);
	pgsc_effective_free(NULL);
}

static void
test_unknown_names(void **state)
{
	struct pgsc_filter_spec spec = {
		.def = PGSC_ACT_LOG,
		.list = { [PGSC_ACT_ALLOW] = "read,bogus_call,write",
			  [PGSC_ACT_KILL] = "Read,nosuch" },
	};
	char *cause;

	(void)state;
	cause = make_bad(&spec, 0);
	/* every unknown name is named, a known one is not */
	assert_non_null(strstr(cause, "\"bogus_call\""));
	assert_non_null(strstr(cause, "\"nosuch\""));
	assert_non_null(strstr(cause, "\"Read\""));     /* names are case-sensitive */
	assert_null(strstr(cause, "\"write\""));
	assert_non_null(strstr(cause, "unknown syscall names"));
	free(cause);
}

/* Untrusted bytes in a name come back escaped and bounded. */
static void
test_unknown_name_escaped(void **state)
{
	char long_name[300];
	struct pgsc_filter_spec spec = {
		.def = PGSC_ACT_LOG,
		.list = { [PGSC_ACT_LOG] = "re\"ad\x1b[31m,caf\xc3\xa9" },
	};
	char *cause;

	(void)state;
	cause = make_bad(&spec, 0);
	assert_non_null(strstr(cause, "\"re\\x22ad\\x1b[31m\""));
	assert_non_null(strstr(cause, "\"caf\\xc3\\xa9\""));
	assert_null(strchr(cause, '\x1b'));
	free(cause);

	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	spec.list[PGSC_ACT_LOG] = long_name;
	cause = make_bad(&spec, 0);
	assert_non_null(strstr(cause, "...\""));
	assert_true(strlen(cause) < 200);
	free(cause);
}

/* Many unknown names: a few are quoted, the rest counted. */
static void
test_unknown_many(void **state)
{
	struct pgsc_filter_spec spec = {
		.def = PGSC_ACT_LOG,
		.list = { [PGSC_ACT_ALLOW] =
			  "x1,x2,x3,x4,x5,x6,x7,x8,x9,x10,x11,x12" },
	};
	char *cause;

	(void)state;
	cause = make_bad(&spec, 0);
	assert_non_null(strstr(cause, "\"x1\""));
	assert_null(strstr(cause, "\"x12\""));
	assert_non_null(strstr(cause, "and 4 more"));
	free(cause);
}

/* A '*' that was not resolved is not a name. */
static void
test_star_in_effective(void **state)
{
	struct pgsc_filter_spec spec = {
		.def = PGSC_ACT_LOG,
		.list = { [PGSC_ACT_ALLOW] = "*" },
	};
	char *cause;

	(void)state;
	cause = make_bad(&spec, 0);
	assert_non_null(strstr(cause, "\"*\""));
	free(cause);
}

static void
test_session_star(void **state)
{
	struct pgsc_filter_spec global = {
		.def = PGSC_ACT_ERROR,
		.list = { [PGSC_ACT_ALLOW] = "read,write,accept",
			  [PGSC_ACT_LOG] = "getpid",
			  [PGSC_ACT_ERROR] = "mkdir",
			  [PGSC_ACT_KILL] = "ptrace" },
	};
	struct pgsc_filter_spec session = {
		.def = PGSC_ACT_LOG,
		.list = { [PGSC_ACT_ALLOW] = " * ",    /* = global allow */
			  [PGSC_ACT_LOG] = "getppid",  /* its own */
			  [PGSC_ACT_ERROR] = NULL,     /* empty, not global */
			  [PGSC_ACT_KILL] = "*" },
	};
	struct pgsc_filter_spec out;
	const struct pgsc_effective_entry *v;
	pgsc_effective *e;
	char *cause = NULL;

	(void)state;
	assert_int_equal(pgsc_session_spec_resolve(&global, &session, &out,
						   &cause), 0);
	assert_null(cause);
	assert_int_equal(out.def, PGSC_ACT_LOG);       /* default unchanged */
	assert_ptr_equal(out.list[PGSC_ACT_ALLOW], global.list[PGSC_ACT_ALLOW]);
	assert_ptr_equal(out.list[PGSC_ACT_LOG], session.list[PGSC_ACT_LOG]);
	assert_null(out.list[PGSC_ACT_ERROR]);
	assert_ptr_equal(out.list[PGSC_ACT_KILL], global.list[PGSC_ACT_KILL]);

	e = make(&out, 0);
	assert_int_equal(pgsc_effective_entries(e, &v), 5);
	assert_int_equal(find(e, "accept")->action, PGSC_ACT_ALLOW);
	assert_int_equal(find(e, "getppid")->action, PGSC_ACT_LOG);
	assert_int_equal(find(e, "ptrace")->action, PGSC_ACT_KILL);
	assert_null(find(e, "getpid"));
	assert_null(find(e, "mkdir"));
	pgsc_effective_free(e);

	/* '*' for a global list that is empty: empty */
	global.list[PGSC_ACT_KILL] = NULL;
	assert_int_equal(pgsc_session_spec_resolve(&global, &session, &out,
						   &cause), 0);
	assert_null(out.list[PGSC_ACT_KILL]);
}

static void
test_session_star_mixed(void **state)
{
	static const char *const bad[] = { "*,read", "read,*", "**", "read*" };
	struct pgsc_filter_spec global = { .def = PGSC_ACT_LOG };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pgsc_filter_spec session = {
			.def = PGSC_ACT_LOG,
			.list = { [PGSC_ACT_ERROR] = bad[i] },
		};
		struct pgsc_filter_spec out;
		char *cause = NULL;

		assert_int_equal(pgsc_session_spec_resolve(&global, &session,
							   &out, &cause),
				 -EINVAL);
		assert_non_null(cause);
		assert_non_null(strstr(cause, "session error list"));
		free(cause);
	}
}

/* Per-role session lists: each role's spec resolves against the same
 * global spec, independently of the others. */
static void
test_per_role_specs(void **state)
{
	struct pgsc_filter_spec global = {
		.def = PGSC_ACT_LOG,
		.list = { [PGSC_ACT_ALLOW] = "read,write,close",
			  [PGSC_ACT_KILL] = "ptrace" },
	};
	struct pgsc_filter_spec role_a = {       /* global lists + mkdir error */
		.def = PGSC_ACT_ERROR,
		.list = { [PGSC_ACT_ALLOW] = "*", [PGSC_ACT_ERROR] = "mkdir",
			  [PGSC_ACT_KILL] = "*" },
	};
	struct pgsc_filter_spec role_b = {       /* its own short list */
		.def = PGSC_ACT_KILL,
		.list = { [PGSC_ACT_ALLOW] = "read", [PGSC_ACT_LOG] = "write" },
	};
	struct pgsc_filter_spec ra, rb;
	pgsc_effective *ea, *eb;
	const struct pgsc_effective_entry *v;
	char *cause = NULL;

	(void)state;
	assert_int_equal(pgsc_session_spec_resolve(&global, &role_a, &ra,
						   &cause), 0);
	assert_int_equal(pgsc_session_spec_resolve(&global, &role_b, &rb,
						   &cause), 0);
	assert_null(cause);
	ea = make(&ra, 0);
	eb = make(&rb, 0);
	assert_int_equal(pgsc_effective_default(ea), PGSC_ACT_ERROR);
	assert_int_equal(pgsc_effective_default(eb), PGSC_ACT_KILL);
	assert_int_equal(pgsc_effective_entries(ea, &v), 5);
	assert_int_equal(find(ea, "close")->action, PGSC_ACT_ALLOW);
	assert_int_equal(find(ea, "mkdir")->action, PGSC_ACT_ERROR);
	assert_int_equal(find(ea, "ptrace")->action, PGSC_ACT_KILL);
	assert_int_equal(pgsc_effective_entries(eb, &v), 2);
	assert_int_equal(find(eb, "read")->action, PGSC_ACT_ALLOW);
	assert_int_equal(find(eb, "write")->action, PGSC_ACT_LOG);
	assert_null(find(eb, "close"));
	assert_null(find(eb, "ptrace"));
	pgsc_effective_free(ea);
	pgsc_effective_free(eb);
}

/* Names a foreign arch lacks keep libseccomp's negative placeholder. */
static void
test_foreign_arch_placeholder(void **state)
{
	struct pgsc_filter_spec spec = {
		.def = PGSC_ACT_ERROR,
		.list = { [PGSC_ACT_ALLOW] = "open,openat,read" },
	};
	pgsc_effective *e;
	int open_nr = seccomp_syscall_resolve_name_arch(AARCH64, "open");

	(void)state;
	/* the premise, from libseccomp itself (docs/portability.md) */
	assert_true(open_nr < 0);
	assert_int_not_equal(open_nr, __NR_SCMP_ERROR);

	e = make(&spec, AARCH64);
	assert_int_equal(find(e, "open")->nr, open_nr);
	assert_int_equal(find(e, "openat")->nr,
			 seccomp_syscall_resolve_name_arch(AARCH64, "openat"));
	assert_true(find(e, "openat")->nr >= 0);
	assert_int_equal(find(e, "read")->nr,
			 seccomp_syscall_resolve_name_arch(AARCH64, "read"));
	pgsc_effective_free(e);

	/* the same names on x86_64 all have real numbers */
	e = make(&spec, X86_64);
	assert_true(find(e, "open")->nr >= 0);
	assert_int_equal(find(e, "open")->nr,
			 seccomp_syscall_resolve_name_arch(X86_64, "open"));
	pgsc_effective_free(e);
}

static void
test_unknown_arch(void **state)
{
	struct pgsc_filter_spec spec = { .def = PGSC_ACT_LOG,
					 .list = { "read" } };
	char *cause;

	(void)state;
	cause = make_bad(&spec, 0x12345678U);
	assert_non_null(strstr(cause, "0x12345678"));
	free(cause);
}

static void
test_bad_default(void **state)
{
	struct pgsc_filter_spec spec = { .def = (enum pgsc_action)7 };
	char *cause;

	(void)state;
	cause = make_bad(&spec, 0);
	free(cause);
	assert_string_equal(pgsc_action_name((enum pgsc_action)7), "?");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_action_names),
		cmocka_unit_test(test_precedence_all_subsets),
		cmocka_unit_test(test_precedence_mixed),
		cmocka_unit_test(test_duplicates_and_blanks),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_unknown_names),
		cmocka_unit_test(test_unknown_name_escaped),
		cmocka_unit_test(test_unknown_many),
		cmocka_unit_test(test_star_in_effective),
		cmocka_unit_test(test_session_star),
		cmocka_unit_test(test_session_star_mixed),
		cmocka_unit_test(test_per_role_specs),
		cmocka_unit_test(test_foreign_arch_placeholder),
		cmocka_unit_test(test_unknown_arch),
		cmocka_unit_test(test_bad_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
