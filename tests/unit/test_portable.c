/* SPDX-License-Identifier: PostgreSQL */
/* test_portable.c - unit tests for syscall_portable.c and the existence rule of
 * syscall_families.c: "exists on an arch" checked against the filters libseccomp
 * itself builds, the family mapping of --arch/--portable, arch names and
 * pgsc_guc_check(). */
#include "unit.h"

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "syscalls.h"

static const char *const arches[] = {
	"x86_64", "i386", "aarch64", "arm", "ppc64le", "s390x",
};

/*
 * The oracle: the size of the BPF program libseccomp builds for a filter
 * on @arch alone (default allow) with one errno rule for @name, or with
 * no rule when @name is NULL.  A rule libseccomp drops (a placeholder
 * the arch cannot express) leaves the program as it was.
 */
static long
bpf_size(uint32_t arch, const char *name)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	FILE *f = tmpfile();
	long size = -1;

	assert_non_null(ctx);
	assert_non_null(f);
	if (arch != seccomp_arch_native()) {
		/* native first: one filter holds arches of one byte order */
		assert_int_equal(seccomp_arch_remove(ctx, seccomp_arch_native()),
				 0);
		assert_int_equal(seccomp_arch_add(ctx, arch), 0);
	}
	if (name != NULL) {
		/* rule numbers are the native arch's (or the placeholder,
		 * the same on every arch); libseccomp translates by name */
		int nr = seccomp_syscall_resolve_name(name);

		assert_int_not_equal(nr, __NR_SCMP_ERROR);
		assert_int_equal(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(1), nr, 0),
				 0);
	}
	assert_int_equal(seccomp_export_bpf(ctx, fileno(f)), 0);
	size = lseek(fileno(f), 0, SEEK_END);
	fclose(f);
	seccomp_release(ctx);
	return size;
}

/* Every family member on every arch: syscall_families_exists() says 1 exactly
 * when a rule for the name changes the filter libseccomp builds. */
static void
test_exists_matches_libseccomp(void **state)
{
	size_t checked = 0, missing = 0;

	(void)state;
	for (size_t a = 0; a < sizeof(arches) / sizeof(arches[0]); a++) {
		uint32_t arch = pgsc_arch_token(arches[a]);
		long empty = bpf_size(arch, NULL);

		for (size_t i = 0; i < syscall_families_count(); i++) {
			const struct family *f = syscall_families_at(i);

			for (const char *const *m = f->members; *m; m++) {
				int ex = syscall_families_exists(*m, arch);
				long sz;

				if (ex == -ENOENT)
					continue;  /* test_diff.c: fchmodat2 */
				sz = bpf_size(arch, *m);
				if ((sz > empty) != (ex == 1))
					print_error("%s on %s: syscall_families_exists "
						    "%d, filter %ld vs %ld bytes\n",
						    *m, arches[a], ex, sz, empty);
				assert_int_equal(sz > empty, ex == 1);
				checked++;
				missing += ex == 0;
			}
		}
	}
	print_message("%zu name/arch pairs, %zu absent\n", checked, missing);
	/* both outcomes were exercised */
	assert_true(checked > 400);
	assert_true(missing > 50);
}

/* The multiplexed calls: send and recv resolve to placeholders on
 * x86_64 and aarch64, which have no socketcall, so they do not exist
 * there; on i386 they do, through socketcall. */
static void
test_exists_multiplexers(void **state)
{
	static const struct unit_exists sends[] = {
		{ "send", "aarch64", 0 },
		{ "send", "x86_64", 0 },
		{ "send", "i386", 1 },
		{ "semop", "s390x", 1 },
		{ "semop", "aarch64", 1 },
	};
	uint32_t i386 = pgsc_arch_token("i386");
	uint32_t aarch64 = pgsc_arch_token("aarch64");

	(void)state;
	assert_true(seccomp_syscall_resolve_name_arch(aarch64, "send") < 0);
	assert_true(seccomp_syscall_resolve_name_arch(aarch64, "send") > -200);
	unit_expect_exists(sends, ARRAY_SIZE(sends));
	assert_int_equal(bpf_size(aarch64, "send") > bpf_size(aarch64, NULL), 0);
	assert_int_equal(bpf_size(i386, "send") > bpf_size(i386, NULL), 1);
	assert_int_equal(pgsc_syscall_exists("send", aarch64), 0);
	assert_int_equal(pgsc_syscall_exists("Send", aarch64), -ENOENT);
	assert_int_equal(pgsc_syscall_exists("read", 0), 1);
}

static void
test_arch_parse(void **state)
{
	(void)state;
	assert_int_equal(pgsc_arch_parse("x86_64"), SCMP_ARCH_X86_64);
	assert_int_equal(pgsc_arch_parse("i386"), SCMP_ARCH_X86);
	assert_int_equal(pgsc_arch_parse("x86"), SCMP_ARCH_X86);
	assert_int_equal(pgsc_arch_parse("aarch64"), SCMP_ARCH_AARCH64);
	assert_int_equal(pgsc_arch_parse("arm"), SCMP_ARCH_ARM);
	assert_int_equal(pgsc_arch_parse("ppc64le"), SCMP_ARCH_PPC64LE);
	assert_int_equal(pgsc_arch_parse("s390x"), SCMP_ARCH_S390X);
	assert_int_equal(pgsc_arch_parse("native"), seccomp_arch_native());
	assert_int_equal(pgsc_arch_parse("x32"), 0);   /* not an audit arch of ours */
	assert_int_equal(pgsc_arch_parse("vax"), 0);
	assert_int_equal(pgsc_arch_parse(""), 0);
	assert_int_equal(pgsc_arch_parse(NULL), 0);
	for (size_t a = 0; a < sizeof(arches) / sizeof(arches[0]); a++) {
		uint32_t t = pgsc_arch_parse(arches[a]);

		assert_non_null(syscall_portable_systemd_arch(t));
		assert_non_null(syscall_portable_oci_arch(t));
	}
	assert_string_equal(syscall_portable_systemd_arch(SCMP_ARCH_X86_64), "x86-64");
	assert_string_equal(syscall_portable_systemd_arch(SCMP_ARCH_AARCH64), "arm64");
	assert_string_equal(syscall_portable_oci_arch(SCMP_ARCH_X86), "SCMP_ARCH_X86");
}

static char *
mapped(const char *name, const char *arch, int all)
{
	struct strset out = { 0 };
	struct strbuf sb = { 0 };
	int n = syscall_portable_map(name, pgsc_arch_token(arch), all, &out);

	assert_true(n >= 0);
	assert_int_equal((size_t)n, out.n);
	for (size_t i = 0; i < out.n; i++) {
		if (i)
			strbuf_addstr(&sb, ",");
		strbuf_addstr(&sb, out.v[i]);
	}
	strset_free(&out);
	if (sb.buf == NULL)
		return strdup("");
	return sb.buf;
}

#define assert_mapped(name, arch, all, want) do { \
	char *got_ = mapped(name, arch, all); \
	assert_string_equal(got_, want); \
	free(got_); \
} while (0)

static void
test_map(void **state)
{
	(void)state;
	/* present: itself */
	assert_mapped("read", "aarch64", 0, "read");
	assert_mapped("open", "x86_64", 0, "open");
	/* absent: the nearest member after it that exists */
	assert_mapped("open", "aarch64", 0, "openat");
	assert_mapped("stat", "aarch64", 0, "newfstatat");
	assert_mapped("newfstatat", "i386", 0, "fstatat64");
	assert_mapped("epoll_wait", "aarch64", 0, "epoll_pwait");
	assert_mapped("mmap", "arm", 0, "mmap2");
	assert_mapped("sync_file_range", "ppc64le", 0, "sync_file_range2");
	assert_mapped("unlink", "aarch64", 0, "unlinkat");
	assert_mapped("rmdir", "aarch64", 0, "unlinkat");
	assert_mapped("send", "aarch64", 0, "sendto");
	/* ... else the nearest before it */
	assert_mapped("mmap2", "x86_64", 0, "mmap");
	assert_mapped("_llseek", "x86_64", 0, "lseek");
	assert_mapped("futex_time64", "aarch64", 0, "futex");
	/* through socketcall on i386 */
	assert_mapped("accept", "i386", 0, "accept");
	/* nothing */
	assert_mapped("arch_prctl", "aarch64", 0, "");
	assert_mapped("socketcall", "x86_64", 0, "");
	/* --portable: every member that exists */
	assert_mapped("open", "x86_64", 1, "open,openat,openat2");
	assert_mapped("open", "aarch64", 1, "openat,openat2");
	assert_mapped("unlinkat", "x86_64", 1, "rmdir,unlink,unlinkat");
	assert_mapped("read", "x86_64", 1, "read");
	assert_mapped("arch_prctl", "aarch64", 1, "");
}

/* Whatever comes out exists on the target and is the name or one of its
 * family members, for every member on every arch. */
static void
test_map_property(void **state)
{
	(void)state;
	for (size_t a = 0; a < sizeof(arches) / sizeof(arches[0]); a++) {
		uint32_t arch = pgsc_arch_token(arches[a]);

		for (size_t i = 0; i < syscall_families_count(); i++) {
			for (const char *const *m = syscall_families_at(i)->members;
			     *m; m++) {
				for (int all = 0; all < 2; all++) {
					struct strset out = { 0 };

					assert_true(syscall_portable_map(*m, arch, all,
								 &out) >= 0);
					if (!all && syscall_families_exists(*m, arch) == 1)
						assert_int_equal(out.n, 1);
					for (size_t k = 0; k < out.n; k++) {
						const struct family *f;
						int in = strcmp(out.v[k], *m) == 0;

						assert_int_equal(syscall_families_exists(
							out.v[k], arch), 1);
						for (size_t j = 0; (f = syscall_families_of(
						     *m, j)) != NULL; j++)
							in |= syscall_families_has(f,
								out.v[k]);
						assert_true(in);
					}
					strset_free(&out);
				}
			}
		}
	}
}

/* pgsc_guc_check() on a file: counts and the first finding. */
static void
check_text(const char *text, const char *arch, int strict, size_t errors,
	   size_t warnings, const char *needle)
{
	char path[] = "/tmp/pgsc-test-guc.XXXXXX";
	int fd = mkstemp(path);
	struct pgsc_guc_check_opts o = { pgsc_arch_token(arch), strict };
	struct pgsc_guc_check_result res;
	char *buf = NULL, *cause = NULL;
	size_t sz = 0;
	FILE *out;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	out = open_memstream(&buf, &sz);
	assert_non_null(out);
	assert_int_equal(pgsc_guc_check(path, &o, out, &res, &cause), 0);
	fclose(out);
	unlink(path);
	if (res.errors != errors || res.warnings != warnings ||
	    (needle != NULL && strstr(buf, needle) == NULL))
		print_error("%s", buf);
	assert_int_equal(res.errors, errors);
	assert_int_equal(res.warnings, warnings);
	if (needle != NULL)
		assert_non_null(strstr(buf, needle));
	free(buf);
	free(cause);
}

/* A GUC file checked by check_text() for an arch, strict or not: its
 * errors, its warnings and a text the output must hold ("": any). */
static const struct guc_case {
	const char *text, *arch;
	int strict;
	size_t errors, warnings;
	const char *needle;
} guc_cases[] = {
	{ "global_syscall_allow = 'read,write'\n",
	  "x86_64", 0, 0, 0, ": 0 errors, 0 warnings (arch x86_64)" },
	{ "pgsc.global_syscall_allow = 'read,nosuch'\n",
	  "x86_64", 0, 1, 0, ":1: error: pgsc.global_syscall_allow: \"nosuch\"" },
	/* the pgsc module accepts a placeholder (and skips it); pgseccomp
	 * and the RFC refuse it */
	{ "pgsc.global_syscall_allow = 'open'\n",
	  "aarch64", 0, 0, 1, "its family has openat, openat2" },
	{ "pgsc.global_syscall_allow = 'open'\n",
	  "aarch64", 1, 1, 0, ":1: error:" },
	{ "global_syscall_allow = 'open'\n",
	  "aarch64", 0, 1, 0, "pgseccomp's check hook refuses" },
	{ "pgseccomp.global_syscall_allow = 'open'\n",
	  "aarch64", 0, 1, 0, "pgseccomp's check hook refuses" },
	{ "\n\nglobal_syscall_allow = 'read'\nglobal_syscall_kill = 'read'\n",
	  "x86_64", 0, 1, 0, ":4: error: \"read\" is in both global_syscall_allow (line 3) and global_syscall_kill" },
	/* different contexts or prefixes do not overlap */
	{ "global_syscall_allow = 'read'\nsession_syscall_kill = 'read'\npgsc.global_syscall_kill = 'read'\n",
	  "x86_64", 0, 0, 0, "" },
	{ "global_syscall_allow = '*'\n",
	  "x86_64", 0, 1, 0, "only meaningful in a session list" },
	{ "session_syscall_allow = '*'\n",
	  "x86_64", 0, 0, 0, "" },
	{ "session_syscall_allow = '*, read'\n",
	  "x86_64", 0, 1, 0, "must be the whole list" },
	{ "session_syscall_default = ''\n",
	  "x86_64", 0, 1, 0, "is empty" },
	{ "session_syscall_default = 'ERROR'\n",
	  "x86_64", 0, 0, 0, "" },
	{ "session_syscall_default = 'deny'\n",
	  "x86_64", 0, 1, 0, "\"deny\" is not allow" },
	{ "global_syscall_allow = 'read,read'\n",
	  "x86_64", 0, 0, 1, "listed twice" },
	{ "pgsc.global_syscall_allow = 'read,,write'\n",
	  "x86_64", 0, 0, 1, "empty element" },
	{ "global_syscall_allow = 'read,,write'\n",
	  "x86_64", 0, 1, 0, "SplitIdentifierString" },
	/* pgseccomp folds case; the pgsc module does not */
	{ "global_syscall_allow = 'Read'\n",
	  "x86_64", 0, 0, 1, "\"read\" is meant" },
	{ "pgsc.global_syscall_allow = 'Read'\n",
	  "x86_64", 0, 1, 0, "is not a syscall name" },
	{ "session_syscall_allow = ' * '\n",
	  "x86_64", 0, 1, 0, "without blanks" },
	{ "pgsc.session_syscall_allow = ' * '\n",
	  "x86_64", 0, 0, 0, "" },
	{ "global_syscall_allow = ''\n",
	  "x86_64", 0, 0, 0, "" },
	{ "global_syscall_allow = 'read'\nglobal_syscall_allow = 'write'\n",
	  "x86_64", 0, 0, 1, ":2: warning: \"global_syscall_allow\" is set again" },
	{ "shared_buffers = 128MB\n# comment\n",
	  "x86_64", 0, 1, 0, "no [PREFIX.]{global,session}_syscall_* setting found" },
	{ "global_syscall_alow = 'read'\n",
	  "x86_64", 0, 1, 0, "unknown setting" },
	{ "global_syscall_allow = 'read\n",
	  "x86_64", 0, 2, 0, "unterminated quoted string" },
	/* the name is escaped: no raw control byte reaches the output */
	{ "global_syscall_allow = 'a\x1b[31mb'\n",
	  "x86_64", 0, 1, 0, "\"a\\x1b[31mb\" is not a syscall name" },
	{ "global_syscall_allow = 'a\\033b'\n",
	  "x86_64", 0, 1, 0, "\"a\\x1bb\" is not a syscall name" },
	/* the default is the list's own action */
	{ "global_syscall_default = log\nglobal_syscall_log = 'read'\n",
	  "x86_64", 0, 0, 1, "has no effect" },
	/* through socketcall and ipc on i386: libseccomp could filter them,
	 * the GUC loaders take numbers only */
	{ "global_syscall_allow = 'accept,shmget,socketcall'\n",
	  "i386", 0, 2, 0, "only socketcall itself can be listed" },
	{ "pgsc.global_syscall_allow = 'accept,shmget'\n",
	  "i386", 0, 0, 2, "only ipc itself can be listed" },
};

static void
test_guc_check(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(guc_cases); i++) {
		const struct guc_case *c = &guc_cases[i];

		check_text(c->text, c->arch, c->strict, c->errors, c->warnings,
			   c->needle[0] != '\0' ? c->needle : NULL);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exists_matches_libseccomp),
		cmocka_unit_test(test_exists_multiplexers),
		cmocka_unit_test(test_arch_parse),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_map_property),
		cmocka_unit_test(test_guc_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
