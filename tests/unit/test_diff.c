/* SPDX-License-Identifier: PostgreSQL */
/* test_diff.c - unit tests for pgsc-diff: the families data (families.def,
 * syscall_families.c), the equivalence logic, the GUC and JSON readers with
 * hostile inputs, and the three output formats (diff.c). */
#include "unit.h"

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "diff.h"
#include "syscalls.h"

/* The arches a member must exist on (one of), and those every family
 * must cover. */
static const char *const some_arches[] = {
	"x86_64", "i386", "aarch64", "arm", "ppc64le", "s390x",
};

/* ---------------------------------------------------------------- */
/* Families data                                                     */

static void
test_families_members(void **state)
{
	(void)state;
	assert_true(syscall_families_count() >= 30);
	for (size_t i = 0; i < syscall_families_count(); i++) {
		const struct family *f = syscall_families_at(i);
		size_t n = 0;

		assert_non_null(f);
		assert_true(pgsc_guc_name_ok(f->name));
		assert_true(strlen(f->reason) > 10);
		assert_null(strchr(f->reason, '\n'));
		for (size_t k = 0; k < i; k++)
			assert_string_not_equal(syscall_families_at(k)->name, f->name);
		for (const char *const *m = f->members; *m != NULL; m++, n++) {
			int found = 0;

			assert_true(pgsc_guc_name_ok(*m));
			assert_true(strlen(*m) <= DIFF_NAME_MAX);
			for (const char *const *o = f->members; o < m; o++)
				assert_string_not_equal(*o, *m);
			for (size_t a = 0; a < ARRAY_SIZE(some_arches); a++) {
				int rc = syscall_families_exists(*m,
					pgsc_arch_token(some_arches[a]));

				if (rc == -ENOENT)
					print_error("libseccomp does not know "
						    "%s (family %s)\n", *m,
						    f->name);
				assert_int_not_equal(rc, -ENOENT);
				assert_int_not_equal(rc, -EINVAL);
				found |= rc == 1;
			}
			if (!found)
				print_error("%s (family %s) exists on none of "
					    "the arches\n", *m, f->name);
			assert_true(found);
		}
		assert_true(n >= 2);
	}
	assert_null(syscall_families_at(syscall_families_count()));
}

static void
test_families_cover(void **state)
{
	static const char *const must[] = { "x86_64", "aarch64" };

	(void)state;
	for (size_t i = 0; i < syscall_families_count(); i++) {
		const struct family *f = syscall_families_at(i);

		for (size_t a = 0; a < ARRAY_SIZE(must); a++) {
			uint32_t arch = pgsc_arch_token(must[a]);
			int found = 0;

			for (const char *const *m = f->members; *m; m++)
				found |= syscall_families_exists(*m, arch) == 1;
			if (!found)
				print_error("family %s has no member on %s\n",
					    f->name, must[a]);
			assert_true(found);
		}
	}
}

static void
test_families_lookup(void **state)
{
	const struct family *f;

	(void)state;
	f = syscall_families_find("open");
	assert_non_null(f);
	assert_true(syscall_families_has(f, "openat"));
	assert_true(syscall_families_has(f, "openat2"));
	assert_false(syscall_families_has(f, "read"));
	assert_null(syscall_families_find("read"));
	assert_null(syscall_families_find(""));
	/* unlinkat does what unlink and rmdir do */
	assert_string_equal(syscall_families_of("unlinkat", 0)->name, "unlink");
	assert_string_equal(syscall_families_of("unlinkat", 1)->name, "rmdir");
	assert_null(syscall_families_of("unlinkat", 2));
	assert_null(syscall_families_of("read", 0));
	assert_null(syscall_families_of("", 0));
	assert_string_equal(syscall_families_of("_newselect", 0)->name, "select");
	assert_string_equal(syscall_families_of("arm_sync_file_range", 0)->name,
			    "sync_file_range");
	/* the brief's example "newfstat" is not a libseccomp name */
	assert_null(syscall_families_of("newfstat", 0));
}

static void
test_families_exists(void **state)
{
	static const struct unit_exists direct[] = {
		{ "open", "x86_64", 1 },
		{ "open", "aarch64", 0 },
		{ "openat", "aarch64", 1 },
		{ "mmap", "arm", 0 },
		{ "mmap2", "arm", 1 },
		{ "mmap2", "x86_64", 0 },
	}, multiplexed[] = {
		{ "accept", "i386", 1 },
		{ "shmget", "i386", 1 },
		{ "no_such_syscall", "x86_64", -ENOENT },
		{ "", "x86_64", -ENOENT },
	};

	(void)state;
	unit_expect_exists(direct, ARRAY_SIZE(direct));
	/* through socketcall() and ipc(): libseccomp's -1xx and -2xx */
	assert_true(seccomp_syscall_resolve_name_arch(pgsc_arch_token("i386"),
						      "accept") < 0);
	unit_expect_exists(multiplexed, ARRAY_SIZE(multiplexed));
	assert_int_equal(syscall_families_exists("open", 0x12345678), -EINVAL);
	assert_int_equal(syscall_families_exists("open", 0), -EINVAL);
}

static void
test_families_print(void **state)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	(void)state;
	assert_non_null(f);
	pgsc_families_print(f);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "\nrmdir: rmdir unlinkat\n    "));
	assert_int_equal(strncmp(buf, "open: open openat openat2\n", 26), 0);
	free(buf);
}

/* ---------------------------------------------------------------- */
/* Equivalence                                                       */

static pgsc_lists *
guc(const char *global, const char *session)
{
	char *text = NULL, *cause = NULL;
	pgsc_lists *ls = NULL;
	int rc;

	assert_true(asprintf(&text, "global_syscall_allow = '%s'\n"
			     "session_syscall_allow = '%s'\n", global,
			     session) > 0);
	rc = diff_load_buffer(text, strlen(text), "t.conf", &ls, &cause);
	if (rc < 0)
		print_error("%s\n", cause ? cause : "?");
	assert_int_equal(rc, 0);
	assert_int_equal(pgsc_lists_kind(ls), PGSC_LISTS_GUC);
	free(text);
	free(cause);
	return ls;
}

/* The diff of two GUC files' lists, with a buffer to write it into. */
struct diff_run {
	pgsc_lists *a, *b;
	pgsc_diff *d;
	char *buf;
	size_t sz;
	FILE *f;
};

/* @r: the diff of (@ga, @sa) against (@gb, @sb), r->f open on r->buf. */
static void
diff_open(struct diff_run *r, const char *ga, const char *sa,
	  const char *gb, const char *sb, int equivalent)
{
	r->a = guc(ga, sa);
	r->b = guc(gb, sb);
	r->d = NULL;
	r->buf = NULL;
	r->sz = 0;
	r->f = open_memstream(&r->buf, &r->sz);
	assert_non_null(r->f);
	assert_int_equal(pgsc_diff_new(r->a, r->b, equivalent, &r->d), 0);
}

/* Close r->f, set *@equal, free the rest of @r; returns r->buf. */
static char *
diff_close(struct diff_run *r, int *equal)
{
	assert_int_equal(fclose(r->f), 0);
	*equal = pgsc_diff_equal(r->d);
	pgsc_diff_free(r->d);
	pgsc_lists_free(r->a);
	pgsc_lists_free(r->b);
	return r->buf;
}

/* "list: +a -b ~-c=d,e ..." of a diff, for compact comparisons. */
static char *
summary(const char *ga, const char *sa, const char *gb, const char *sb,
	int equivalent, int *equal)
{
	struct diff_run r;
	pgsc_diff *d;
	FILE *f;

	diff_open(&r, ga, sa, gb, sb, equivalent);
	d = r.d;
	f = r.f;
	for (int l = 0; l < 2; l++) {
		const struct pgsc_diff_entry *e;
		size_t n = pgsc_diff_entries(d, l, &e);

		fprintf(f, "%s%s:", l ? " | " : "", l ? "session" : "global");
		for (size_t i = 0; i < n; i++) {
			fprintf(f, " %s%c%s", e[i].equivalent ? "~" : "",
				e[i].sign, e[i].name);
			for (size_t k = 0; k < e[i].n_with; k++)
				fprintf(f, "%c%s", k ? ',' : '=', e[i].with[k]);
			for (size_t k = 0; k < e[i].n_families; k++)
				fprintf(f, "%c%s", k ? ',' : '/',
					e[i].families[k]);
			assert_int_equal(e[i].equivalent, e[i].n_with > 0);
			assert_int_equal(e[i].n_with > 0, e[i].n_families > 0);
		}
	}
	return diff_close(&r, equal);
}

/* Two pairs of lists, exact (eq 0) or up to families (eq 1): whether
 * pgsc_diff_equal() says they are equal, and the summary() of the diff. */
static const struct diff_case {
	const char *ga, *sa, *gb, *sb;
	int eq, want_equal;
	const char *want;
} diff_cases[] = {
	/* the same lists, in any order and spacing */
	{ "read,write", "read", " write , read", "read", 0, 1, "global: | session:" },
	{ "", "", "", "", 1, 1, "global: | session:" },
	/* exact: open and openat are two names */
	{ "open,read", "read", "openat,read", "read", 0, 0, "global: -open +openat | session:" },
	/* equivalent: a family member on the other side */
	{ "open,read", "read", "openat,read", "read", 1, 1, "global: ~-open=openat/open ~+openat=open/open | session:" },
	/* the other side's member need not be new: A {open, openat} and
	 * B {openat} are the same up to families */
	{ "open,openat", "", "openat", "", 1, 1, "global: ~-open=openat/open | session:" },
	{ "openat", "", "open,openat,openat2", "", 1, 1, "global: ~+open=openat/open ~+openat2=openat/open | session:" },
	/* no member on the other side: still a difference */
	{ "open,read", "", "read", "", 1, 0, "global: -open | session:" },
	{ "read", "", "read,openat2", "", 1, 0, "global: +openat2 | session:" },
	/* not transitive: unlink ~ unlinkat ~ rmdir, but unlink !~ rmdir */
	{ "unlink", "", "rmdir", "", 1, 0, "global: +rmdir -unlink | session:" },
	{ "unlinkat", "", "rmdir,unlink", "", 1, 1, "global: ~+rmdir=unlinkat/rmdir ~+unlink=unlinkat/unlink " "~-unlinkat=rmdir,unlink/rmdir,unlink | session:" },
	/* several families at once: newfstatat is in stat and fstat */
	{ "fstat,stat", "", "newfstatat", "", 1, 1, "global: ~-fstat=newfstatat/fstat " "~+newfstatat=fstat,stat/fstat,stat " "~-stat=newfstatat/stat | session:" },
	/* differences first, then equivalents, each sorted */
	{ "mmap,open,zzz", "", "aaa,openat,mmap2", "", 1, 0, "global: +aaa -zzz ~-mmap=mmap2/mmap ~+mmap2=mmap/mmap " "~-open=openat/open ~+openat=open/open | session:" },
	/* the lists are compared separately: a global member does not
	 * excuse a session name */
	{ "open,openat", "open", "open,openat", "openat", 1, 1, "global: | session: ~-open=openat/open ~+openat=open/open" },
	{ "openat", "open", "openat", "read", 1, 0, "global: | session: -open +read" },
	/* unknown to the families: plain differences */
	{ "foo_bar", "", "foo_baz", "", 1, 0, "global: -foo_bar +foo_baz | session:" },
};

static void
test_equivalence(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(diff_cases); i++) {
		const struct diff_case *c = &diff_cases[i];
		int equal;
		char *got = summary(c->ga, c->sa, c->gb, c->sb, c->eq, &equal);

		assert_string_equal(got, c->want);
		assert_int_equal(equal, c->want_equal);
		free(got);
	}
}

/* ---------------------------------------------------------------- */
/* JSON                                                              */

/* What diff_parse_json() gives: the two lists, or a cause. */
struct json_out {
	struct strset g, s;
	char *cause;
};

static void
json_free(struct json_out *j)
{
	strset_free(&j->g);
	strset_free(&j->s);
	free(j->cause);
	j->cause = NULL;
}

/* Parse @len bytes of @text as "r.json" into @j (emptied first). */
static int
json(struct json_out *j, const char *text, size_t len)
{
	json_free(j);
	return diff_parse_json(text, len, "r.json", &j->g, &j->s, &j->cause);
}

static void
test_json_valid(void **state)
{
	/* the shape pgsc-report --format json writes */
	static const char report[] =
		"{\n  \"pgsc_version\": \"0.1.0\",\n"
		"  \"rounds\": {\"from\": 1, \"to\": 1},\n"
		"  \"records\": 5412,\n  \"loss\": {\"complete\": true},\n"
		"  \"rejected\": {},\n  \"arch\": [\"x86_64\"],\n"
		"  \"session_roles\": [\"backend\", \"client backend\"],\n"
		"  \"global\": [\"accept\", \"read\", \"write\"],\n"
		"  \"session\": [\"read\", \"write\"],\n"
		"  \"syscalls\": [\n    {\"name\": \"read\", \"arch\": \"x86_64\", "
		"\"nr\": 0, \"count\": 12, \"global\": true, \"session\": true, "
		"\"roles\": {\"client backend\": 12}, \"first_round\": 1, "
		"\"example_pid\": 42, \"example_exe\": \"/usr/bin/\\u001b[31mx\"}\n"
		"  ]\n}\n";
	struct json_out j = { 0 };

	(void)state;
	assert_int_equal(json(&j, report, strlen(report)), 0);
	assert_int_equal(j.g.n, 3);
	assert_string_equal(j.g.v[0], "accept");
	assert_string_equal(j.g.v[2], "write");
	assert_int_equal(j.s.n, 2);

	/* escapes in keys and names, every kind of value elsewhere,
	 * duplicates in an array, empty arrays */
#define J(lit) json(&j, lit, sizeof(lit) - 1)
	assert_int_equal(J("{\"glob\\u0061l\":[\"r\\u0065ad\",\"read\"],"
			   "\"x\":[1,-0,0.5,-1.25e+10,2E-3,true,false,null,"
			   "{\"a\":{\"b\":[]}},\"caf\xc3\xa9 \\ud83d\\ude00\"],"
			   "\"session\":[]}"), 0);
	assert_int_equal(j.g.n, 1);
	assert_string_equal(j.g.v[0], "read");
	assert_int_equal(j.s.n, 0);
	assert_int_equal(J(" \t\r\n{ \"session\" : [ \"a\" ] , \"global\" : "
			   "[ \"b\" , \"c_1\" ] } \n"), 0);
	assert_int_equal(j.g.n, 2);
	assert_int_equal(j.s.n, 1);
	/* a key that is longer than any we look for */
	assert_int_equal(J("{\"global_syscall_allow_and_more\":1,"
			   "\"global\":[],\"session\":[]}"), 0);
	json_free(&j);
}

static void
test_json_hostile(void **state)
{
	static const char *const bad[] = {
		"", " ", "{", "}", "[]", "null", "\"global\"",
		"{\"global\":[],\"session\":[]", /* unterminated */
		"{\"global\":[],\"session\":[]}x",
		"{\"global\":[],\"session\":[]}{}",
		"{\"global\":[]}",
		"{\"session\":[]}",
		"{\"global\":[],\"session\":[],\"global\":[]}",
		"{\"global\":{},\"session\":[]}",
		"{\"global\":\"read\",\"session\":[]}",
		"{\"global\":[1],\"session\":[]}",
		"{\"global\":[null],\"session\":[]}",
		"{\"global\":[[\"read\"]],\"session\":[]}",
		"{\"global\":[\"read\",],\"session\":[]}",
		"{\"global\":[,\"read\"],\"session\":[]}",
		"{\"global\":[\"read\" \"write\"],\"session\":[]}",
		"{\"global\":[],\"session\":[],}",
		"{,\"global\":[],\"session\":[]}",
		"{\"global\" [],\"session\":[]}",
		"{global:[],\"session\":[]}",
		"{'global':[],\"session\":[]}",
		/* names that are not [a-z0-9_]+ */
		"{\"global\":[\"Read\"],\"session\":[]}",
		"{\"global\":[\"\"],\"session\":[]}",
		"{\"global\":[\"re ad\"],\"session\":[]}",
		"{\"global\":[\"read,write\"],\"session\":[]}",
		"{\"global\":[\"read'\"],\"session\":[]}",
		"{\"global\":[\"r\\u00e9ad\"],\"session\":[]}",
		"{\"global\":[\"read\\u0000\"],\"session\":[]}",
		"{\"global\":[\"read\\u0000write\"],\"session\":[]}",
		"{\"global\":[\"\\u0000\"],\"session\":[]}",
		"{\"global\":[\"read\\n\"],\"session\":[]}",
		"{\"global\":[\"\x1b[31m\"],\"session\":[]}",
		/* bad strings anywhere */
		"{\"x\":\"a\x01\",\"global\":[],\"session\":[]}",
		"{\"x\":\"tab\there\",\"global\":[],\"session\":[]}",
		"{\"x\":\"\\x41\",\"global\":[],\"session\":[]}",
		"{\"x\":\"\\u12\",\"global\":[],\"session\":[]}",
		"{\"x\":\"\\u12g4\",\"global\":[],\"session\":[]}",
		"{\"x\":\"\\ud800\",\"global\":[],\"session\":[]}",
		"{\"x\":\"\\udc00\",\"global\":[],\"session\":[]}",
		"{\"x\":\"\\ud800\\u0041\",\"global\":[],\"session\":[]}",
		"{\"x\":\"\\",
		"{\"x\":\"\xff\",\"global\":[],\"session\":[]}",
		"{\"x\":\"\xc0\xaf\",\"global\":[],\"session\":[]}",
		"{\"x\":\"\xed\xa0\x80\",\"global\":[],\"session\":[]}",
		"{\"x\":\"\xf4\x90\x80\x80\",\"global\":[],\"session\":[]}",
		"{\"x\":\"\xe2\x82\",\"global\":[],\"session\":[]}",
		/* bad numbers and literals */
		"{\"x\":01,\"global\":[],\"session\":[]}",
		"{\"x\":1.,\"global\":[],\"session\":[]}",
		"{\"x\":.5,\"global\":[],\"session\":[]}",
		"{\"x\":-,\"global\":[],\"session\":[]}",
		"{\"x\":1e,\"global\":[],\"session\":[]}",
		"{\"x\":+1,\"global\":[],\"session\":[]}",
		"{\"x\":0x10,\"global\":[],\"session\":[]}",
		"{\"x\":NaN,\"global\":[],\"session\":[]}",
		"{\"x\":tru,\"global\":[],\"session\":[]}",
		"{\"x\":nul",
		"{\"x\":True,\"global\":[],\"session\":[]}",
		"\xef\xbb\xbf{\"global\":[],\"session\":[]}",
	};
	struct json_out j = { 0 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int rc = json(&j, bad[i], strlen(bad[i]));

		if (rc != -EINVAL)
			print_error("accepted: %s\n", bad[i]);
		assert_int_equal(rc, -EINVAL);
		assert_non_null(j.cause);
		assert_int_equal(strncmp(j.cause, "r.json: ", 8), 0);
		/* causes quote input escaped: no control byte gets out */
		for (const char *p = j.cause; *p; p++)
			assert_true((unsigned char)*p >= 0x20 && *p != 0x7f);
	}
	/* a NUL byte inside the text is not the end of it */
	assert_int_equal(json(&j, "{\"global\":[],\"session\":[]}\0x", 28),
			 -EINVAL);
	assert_int_equal(json(&j, "{\"global\":[\"re\0ad\"],\"session\":[]}",
			      33), -EINVAL);
	json_free(&j);
}

/* Every cut of a valid document is refused, and nothing reads past it
 * (run under ASan or valgrind to see that). */
static void
test_json_truncated(void **state)
{
	static const char doc[] =
		"{\"a\":[1,-2.5e3,true,false,null,\"x\\u00e9\\\"\"],"
		"\"global\":[\"read\",\"write\"],\"b\":{\"c\":{}},"
		"\"session\":[\"read\"]}";
	struct json_out j = { 0 };

	(void)state;
	for (size_t n = 0; n < sizeof(doc) - 1; n++) {
		char *cut = malloc(n ? n : 1);

		assert_non_null(cut);
		memcpy(cut, doc, n);
		assert_int_equal(json(&j, cut, n), -EINVAL);
		free(cut);
	}
	assert_int_equal(json(&j, doc, sizeof(doc) - 1), 0);
	assert_int_equal(j.g.n, 2);
	json_free(&j);
}

static char *
nested(size_t levels)
{
	static const char head[] = "{\"x\":", tail[] =
		",\"global\":[],\"session\":[]}";
	char *t = malloc(sizeof(head) + 2 * levels + sizeof(tail));
	char *p = t;

	assert_non_null(t);
	p = stpcpy(p, head);
	memset(p, '[', levels);
	p += levels;
	memset(p, ']', levels);
	p += levels;
	strcpy(p, tail);
	return t;
}

static void
test_json_depth(void **state)
{
	struct json_out j = { 0 };
	char *t;

	(void)state;
	/* the top object is level 1 */
	t = nested(DIFF_JSON_DEPTH - 1);
	assert_int_equal(json(&j, t, strlen(t)), 0);
	free(t);
	t = nested(DIFF_JSON_DEPTH);
	assert_int_equal(json(&j, t, strlen(t)), -EINVAL);
	assert_non_null(strstr(j.cause, "nested deeper"));
	free(t);
	t = nested(1000000);
	assert_int_equal(json(&j, t, strlen(t)), -EINVAL);
	free(t);
	json_free(&j);
}

static void
test_json_bounds(void **state)
{
	struct json_out j = { 0 };
	struct strbuf sb = { 0 };
	char name[DIFF_NAME_MAX + 2];

	(void)state;
	/* a name of DIFF_NAME_MAX bytes is kept, one more is refused */
	memset(name, 'a', DIFF_NAME_MAX);
	name[DIFF_NAME_MAX] = '\0';
	strbuf_addf(&sb, "{\"global\":[\"%s\"],\"session\":[]}", name);
	assert_false(sb.oom);
	assert_int_equal(json(&j, sb.buf, sb.len), 0);
	strbuf_free(&sb);
	strcat(name, "b");
	strbuf_addf(&sb, "{\"global\":[\"%s\"],\"session\":[]}", name);
	assert_int_equal(json(&j, sb.buf, sb.len), -EINVAL);
	assert_non_null(strstr(j.cause, "...\" is not a syscall name"));
	strbuf_free(&sb);
	/* longer than the decode buffer */
	strbuf_addf(&sb, "{\"global\":[\"%s%s\"],\"session\":[]}", name,
		    name);
	assert_int_equal(json(&j, sb.buf, sb.len), -EINVAL);
	assert_non_null(strstr(j.cause, "(longer than 64 bytes)"));
	strbuf_free(&sb);

	/* DIFF_NAMES_MAX names, then one more */
	strbuf_addstr(&sb, "{\"session\":[],\"global\":[\"n0\"");
	for (int i = 1; i < DIFF_NAMES_MAX; i++)
		strbuf_addf(&sb, ",\"n%d\"", i);
	strbuf_addstr(&sb, ",\"n0\"]}");
	assert_false(sb.oom);
	assert_int_equal(json(&j, sb.buf, sb.len), 0);
	assert_int_equal(j.g.n, DIFF_NAMES_MAX);
	sb.len -= 2;
	strbuf_addstr(&sb, ",\"one_more\"]}");
	assert_int_equal(json(&j, sb.buf, sb.len), -E2BIG);
	assert_non_null(strstr(j.cause, "more than"));
	strbuf_free(&sb);
	json_free(&j);
}

/* ---------------------------------------------------------------- */
/* GUC files                                                         */

static int
load(const char *text, size_t len, const char *name, pgsc_lists **ls,
     char **cause)
{
	free(*cause);
	*cause = NULL;
	pgsc_lists_free(*ls);
	*ls = NULL;
	return diff_load_buffer(text, len, name, ls, cause);
}

static void
assert_names(const pgsc_lists *ls, int which, const char *want)
{
	const char *const *v;
	size_t n = pgsc_lists_names(ls, which, &v);
	struct strbuf sb = { 0 };

	strbuf_addstr(&sb, "");
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%s", i ? "," : "", v[i]);
	assert_string_equal(sb.buf, want);
	strbuf_free(&sb);
}

static void
test_guc_valid(void **state)
{
#define L(lit) load(lit, sizeof(lit) - 1, "p.conf", &ls, &cause)
	pgsc_lists *ls = NULL;
	char *cause = NULL;

	(void)state;
	assert_int_equal(L("# pgsc: 1 records\n"
			   "global_syscall_allow = 'write,read'\n"
			   "session_syscall_allow = 'read'\n"), 0);
	assert_names(ls, PGSC_LIST_GLOBAL, "read,write");
	assert_names(ls, PGSC_LIST_SESSION, "read");
	/* any prefix; blanks; the last line wins, as in postgresql.conf;
	 * comments and other settings are ignored */
	assert_int_equal(L("shared_buffers = 128MB\n"
			   "#pgseccomp.global_syscall_allow = 'bad name'\n"
			   "pgseccomp.global_syscall_allow = 'x'\n"
			   "  pgseccomp.global_syscall_allow='read, write\t,"
			   "close'  # comment\n"
			   "pgseccomp.session_syscall_allow = ''\n"), 0);
	assert_names(ls, PGSC_LIST_GLOBAL, "close,read,write");
	assert_names(ls, PGSC_LIST_SESSION, "");
	/* unquoted: one word, as PostgreSQL takes it (a list with commas
	 * must be quoted: see test_guc_hostile) */
	assert_int_equal(L("global_syscall_allow read\n"
			   "session_syscall_allow = read # x\n"), 0);
	assert_names(ls, PGSC_LIST_GLOBAL, "read");
	assert_names(ls, PGSC_LIST_SESSION, "read");
	/* JSON is told by its first byte, after blanks */
	assert_int_equal(L("\n  {\"global\":[\"a\"],\"session\":[]}"), 0);
	assert_int_equal(pgsc_lists_kind(ls), PGSC_LISTS_JSON);
	pgsc_lists_free(ls);
	free(cause);
}

static void
test_guc_hostile(void **state)
{
	static const struct {
		const char *text;
		int rc;
		const char *cause;
	} bad[] = {
		{ "", -ENOENT, "p\\x0a.conf: no global_syscall_allow line" },
		{ "global_syscall_allow = 'read'\n", -ENOENT,
		  "p\\x0a.conf: no session_syscall_allow line" },
		{ "xglobal_syscall_allow = 'read'\nsession_syscall_allow = ''\n",
		  -ENOENT, "p\\x0a.conf: no global_syscall_allow line" },
		{ "global_syscall_allow = 'read\nsession_syscall_allow = ''\n",
		  -EINVAL, "p\\x0a.conf:1: syntax error: unterminated quoted "
		  "string (PostgreSQL would not start)" },
		{ "global_syscall_allow = ''\nsession_syscall_allow = 'read\n",
		  -EINVAL, "p\\x0a.conf:2: syntax error: unterminated quoted "
		  "string (PostgreSQL would not start)" },
		{ "global_syscall_allow = read,write\nsession_syscall_allow = ''\n",
		  -EINVAL, "p\\x0a.conf:1: syntax error: extra text after the "
		  "value (PostgreSQL would not start)" },
		{ "global_syscall_allow = 'Read'\nsession_syscall_allow = ''\n",
		  -EINVAL, "p\\x0a.conf: global list: \"Read\" is not a "
		  "syscall name ([a-z0-9_]+, at most 64 bytes)" },
		{ "global_syscall_allow = ''\nsession_syscall_allow = 'a;b'\n",
		  -EINVAL, "p\\x0a.conf: session list: \"a;b\" is not a "
		  "syscall name ([a-z0-9_]+, at most 64 bytes)" },
		{ "global_syscall_allow = 'read\x1b[2J'\nsession_syscall_allow = ''\n",
		  -EINVAL, "p\\x0a.conf: global list: \"read\\x1b[2J\" is not "
		  "a syscall name ([a-z0-9_]+, at most 64 bytes)" },
		{ "global_syscall_allow = 'a\"b'\nsession_syscall_allow = ''\n",
		  -EINVAL, "p\\x0a.conf: global list: \"a\\x22b\" is not "
		  "a syscall name ([a-z0-9_]+, at most 64 bytes)" },
		{ "global_syscall_allow = 'read\rwrite'\nsession_syscall_allow = ''\n",
		  -EINVAL, NULL },
		{ "global_syscall_allow = 'r\xc3\xa9\x61\x64'\nsession_syscall_allow = ''\n",
		  -EINVAL, NULL },
		{ "global_syscall_allow = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'\n"
		  "session_syscall_allow = ''\n", -EINVAL,
		  "p\\x0a.conf: global list: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\" is not a syscall name "
		  "([a-z0-9_]+, at most 64 bytes)" },
		{ "[global]\nallow = read\n", -EINVAL, NULL },
	};
	pgsc_lists *ls = NULL;
	char *cause = NULL;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int rc = load(bad[i].text, strlen(bad[i].text), "p\n.conf", &ls,
			      &cause);

		if (rc != bad[i].rc)
			print_error("case %zu: %d (%s)\n", i, rc,
				    cause ? cause : "");
		assert_int_equal(rc, bad[i].rc);
		assert_null(ls);
		assert_non_null(cause);
		if (bad[i].cause != NULL)
			assert_string_equal(cause, bad[i].cause);
		for (const char *p = cause; *p; p++)
			assert_true((unsigned char)*p >= 0x20 && *p != 0x7f);
	}
	/* binary */
	assert_int_equal(load("global_syscall_allow = ''\0\n", 27, "p", &ls,
			      &cause), -EINVAL);
	assert_string_equal(cause, "p: not a text file (a NUL byte at offset 25)");
	free(cause);
}

static void
test_guc_bounds(void **state)
{
	struct strbuf sb = { 0 };
	pgsc_lists *ls = NULL;
	char *cause = NULL, *big;

	(void)state;
	strbuf_addstr(&sb, "session_syscall_allow = ''\nglobal_syscall_allow = 'n0");
	for (int i = 1; i < DIFF_NAMES_MAX; i++)
		strbuf_addf(&sb, ",n%d", i);
	strbuf_addstr(&sb, ",n1'\n");
	assert_false(sb.oom);
	assert_int_equal(load(sb.buf, sb.len, "p", &ls, &cause), 0);
	sb.len -= 2;
	strbuf_addstr(&sb, ",more'\n");
	assert_int_equal(load(sb.buf, sb.len, "p", &ls, &cause), -E2BIG);
	assert_string_equal(cause, "p: global list: more than 4096 names");
	strbuf_free(&sb);

	big = malloc(DIFF_TEXT_MAX + 1);
	assert_non_null(big);
	memset(big, '#', DIFF_TEXT_MAX + 1);
	assert_int_equal(load(big, DIFF_TEXT_MAX + 1, "p", &ls, &cause), -EFBIG);
	free(big);
	free(cause);
}

static void
test_parse_names(void **state)
{
	struct strset s = { 0 };
	char *cause = NULL;

	(void)state;
	assert_int_equal(diff_parse_names(" a,,b ,\tc\n,", "f", "global", &s,
					  &cause), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(diff_parse_names("", "f", "global", &s, &cause), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(diff_parse_names("a,b-c", "f", "session", &s, &cause),
			 -EINVAL);
	assert_string_equal(cause, "f: session list: \"b-c\" is not a syscall "
			    "name ([a-z0-9_]+, at most 64 bytes)");
	strset_free(&s);
	free(cause);
}

/* ---------------------------------------------------------------- */
/* Files                                                             */

static void
test_load_files(void **state)
{
	char dir[] = "/tmp/pgsc-test-diff.XXXXXX", path[256];
	pgsc_lists *ls = NULL;
	char *cause = NULL;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/no\x1b[31mne", dir);
	assert_int_equal(pgsc_lists_load(path, NULL, &ls, &cause), -ENOENT);
	assert_null(ls);
	assert_non_null(strstr(cause, "/no\\x1b[31mne: No such file"));
	free(cause);
	cause = NULL;

	assert_int_equal(pgsc_lists_load(dir, NULL, &ls, &cause), -EISDIR);
	free(cause);
	cause = NULL;

	/* an SQLite header and nothing of a store */
	snprintf(path, sizeof(path), "%s/fake.db", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite("SQLite format 3\0garbage", 1, 23, f);
	assert_int_equal(fclose(f), 0);
	assert_true(pgsc_lists_load(path, NULL, &ls, &cause) < 0);
	assert_null(ls);
	assert_non_null(cause);
	free(cause);
	cause = NULL;
	unlink(path);

	snprintf(path, sizeof(path), "%s/l.conf", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("global_syscall_allow = 'b,a'\nsession_syscall_allow = 'a'\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(pgsc_lists_load(path, NULL, &ls, &cause), 0);
	assert_int_equal(pgsc_lists_kind(ls), PGSC_LISTS_GUC);
	assert_names(ls, PGSC_LIST_GLOBAL, "a,b");
	pgsc_lists_free(ls);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
	pgsc_lists_free(NULL);
	pgsc_diff_free(NULL);
}

/* ---------------------------------------------------------------- */
/* Output                                                            */

static char *
render(enum pgsc_diff_format fmt, int equivalent, const char *na,
       const char *nb, int *equal)
{
	struct diff_run r;

	diff_open(&r, "mmap,open,read", "open", "openat,pread64,read", "open",
		  equivalent);
	assert_int_equal(pgsc_diff_print(r.d, fmt, na, nb, r.f), 0);
	return diff_close(&r, equal);
}

static void
test_output(void **state)
{
	int equal;
	char *out;

	(void)state;
	out = render(PGSC_DIFF_TEXT, 1, "a.conf", "b.conf", &equal);
	assert_false(equal);
	assert_string_equal(out,
		"--- a.conf\n+++ b.conf\nglobal:\n-mmap\n+pread64\n"
		"~-open: openat (family open)\n~+openat: open (family open)\n");
	free(out);
	out = render(PGSC_DIFF_JSON, 0, "a.conf", "b.conf", &equal);
	assert_string_equal(out,
		"{\n  \"pgsc_diff\": 1,\n  \"equal\": false,\n"
		"  \"a\": \"a.conf\",\n"
		"  \"b\": \"b.conf\",\n"
		"  \"global\": {\"added\": [\"openat\", \"pread64\"], "
		"\"removed\": [\"mmap\", \"open\"], \"equivalent\": []},\n"
		"  \"session\": {\"added\": [], \"removed\": [], "
		"\"equivalent\": []}\n}\n");
	free(out);
	out = render(PGSC_DIFF_MARKDOWN, 1, "a.conf", "b.conf", &equal);
	assert_string_equal(out,
		"### pgsc-diff: a\\.conf \xe2\x86\x92 b\\.conf\n\n"
		"**The allow lists differ.** global: 1 added, 1 removed, "
		"2 equivalent; session: 0 added, 0 removed.\n\n"
		"| list | change | syscall | equivalent to |\n"
		"|---|---|---|---|\n"
		"| global | removed | `mmap` |  |\n"
		"| global | added | `pread64` |  |\n"
		"| global | removed, equivalent | `open` | `openat` (family "
		"`open`) |\n"
		"| global | added, equivalent | `openat` | `open` (family "
		"`open`) |\n");
	free(out);
}

static void
assert_prefix(const char *s, const char *prefix)
{
	if (strncmp(s, prefix, strlen(prefix)) != 0)
		print_error("got: %s\n", s);
	assert_int_equal(strncmp(s, prefix, strlen(prefix)), 0);
}

/* File names are the only free text in an output: each format escapes
 * them its own way. */
static void
test_output_hostile_names(void **state)
{
	static const char na[] = "a\n+++ evil\x1b]0;t\x07|`*_<b>\"\\'\xff.conf";
	int equal;
	char *out;

	(void)state;
	out = render(PGSC_DIFF_TEXT, 0, na, "-", &equal);
	assert_prefix(out, "--- a\\x0a+++ evil\\x1b]0;t\\x07|`*_<b>"
		      "\\x22\\x5c\\x27\\xff.conf\n+++ -\nglobal:\n");
	free(out);
	out = render(PGSC_DIFF_JSON, 0, na, "-", &equal);
	assert_non_null(strstr(out, "\"a\": \"a\\u000a+++ evil\\u001b]0;t\\u0007|`*_"
				    "<b>\\\"\\\\'\\u00ff.conf\",\n"));
	free(out);
	out = render(PGSC_DIFF_MARKDOWN, 0, na, "-", &equal);
	assert_prefix(out, "### pgsc-diff: a\\\\x0a\\+\\+\\+ evil"
		      "\\\\x1b\\]0\\;t\\\\x07\\|\\`\\*\\_\\<b\\>"
		      "\\\\x22\\\\x5c\\\\x27\\\\xff\\.conf \xe2\x86\x92"
		      " \\-\n\n**The");
	free(out);
	/* no control byte in any of them */
	for (int fmt = 0; fmt < 3; fmt++) {
		out = render((enum pgsc_diff_format)fmt, 1, na, na, &equal);
		for (const char *p = out; *p; p++)
			assert_true(*p == '\n' ||
				    ((unsigned char)*p >= 0x20 && *p != 0x7f));
		free(out);
	}
}

static void
test_output_equal(void **state)
{
	pgsc_lists *a = guc("read", ""), *b = guc("read", "");
	pgsc_diff *d = NULL;
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	(void)state;
	assert_int_equal(pgsc_diff_new(a, b, 0, &d), 0);
	assert_true(pgsc_diff_equal(d));
	assert_int_equal(pgsc_diff_print(d, PGSC_DIFF_TEXT, "a", "b", f), 0);
	assert_int_equal(pgsc_diff_print(d, PGSC_DIFF_MARKDOWN, "a", "b", f), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "### pgsc-diff: a \xe2\x86\x92 b\n\n"
			    "The allow lists are the same.\n");
	free(buf);
	/* a full stream is an error */
	f = fopen("/dev/full", "w");
	if (f != NULL) {
		assert_true(pgsc_diff_print(d, PGSC_DIFF_JSON, "a", "b", f) < 0);
		fclose(f);
	}
	pgsc_diff_free(d);
	pgsc_lists_free(a);
	pgsc_lists_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_families_members),
		cmocka_unit_test(test_families_cover),
		cmocka_unit_test(test_families_lookup),
		cmocka_unit_test(test_families_exists),
		cmocka_unit_test(test_families_print),
		cmocka_unit_test(test_equivalence),
		cmocka_unit_test(test_json_valid),
		cmocka_unit_test(test_json_hostile),
		cmocka_unit_test(test_json_truncated),
		cmocka_unit_test(test_json_depth),
		cmocka_unit_test(test_json_bounds),
		cmocka_unit_test(test_guc_valid),
		cmocka_unit_test(test_guc_hostile),
		cmocka_unit_test(test_guc_bounds),
		cmocka_unit_test(test_parse_names),
		cmocka_unit_test(test_load_files),
		cmocka_unit_test(test_output),
		cmocka_unit_test(test_output_hostile_names),
		cmocka_unit_test(test_output_equal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
