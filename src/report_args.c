/* SPDX-License-Identifier: PostgreSQL */
/* report_args.c - pgsc-report --args: the argument values of the store
 * (arg_values, store_args.c) as argument rules after the names of each
 * list, in the grammar of pgsc-report(1) that the module and pgsc-exec
 * read: socket(a0:a1&0xf=1:1|2:1), ioctl(a1=0x5401). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "roles.h"

/* A name's values in one list; nv 0 (any) prints the name alone. */
struct rargs_name {
	char *name;
	unsigned nv;            /* the key's count; 0: any value seen */
	uint64_t (*v)[ARGS_NV];
	size_t n, cap;
	struct strset roles;    /* the roles the values came from */
	int partial;            /* a role of the list made the call and left
				 * no value: the name alone */
};

struct rargs {
	struct rargs_name *l[2];        /* global, session */
	size_t n[2], cap[2];
	int any;                        /* a row was read */
};

static struct rargs_name *
name_get(struct rargs *A, int list, const char *name)
{
	struct rargs_name *e;

	for (size_t i = 0; i < A->n[list]; i++)
		if (strcmp(A->l[list][i].name, name) == 0)
			return &A->l[list][i];
	if (A->n[list] == A->cap[list]) {
		size_t ncap = A->cap[list] ? A->cap[list] * 2 : 16;

		e = realloc(A->l[list], ncap * sizeof(*e));
		if (e == NULL)
			return NULL;
		A->l[list] = e;
		A->cap[list] = ncap;
	}
	e = &A->l[list][A->n[list]];
	memset(e, 0, sizeof(*e));
	e->name = strdup(name);
	if (e->name == NULL)
		return NULL;
	e->nv = args_nv(name);
	A->n[list]++;
	return e;
}

/* Add the values of @o to @e (nv 0 makes it any). */
static int
name_add(struct rargs_name *e, const struct args_obs *o)
{
	if (e->nv == 0)
		return 0;
	if (o->nv == 0) {
		e->nv = 0;
		return 0;
	}
	for (size_t i = 0; i < e->n; i++)
		if (memcmp(e->v[i], o->v, sizeof(o->v)) == 0)
			return 0;
	if (e->n == e->cap) {
		size_t ncap = e->cap ? e->cap * 2 : 8;
		uint64_t (*nv)[ARGS_NV] = realloc(e->v, ncap * sizeof(*nv));

		if (nv == NULL)
			return -ENOMEM;
		e->v = nv;
		e->cap = ncap;
	}
	memcpy(e->v[e->n++], o->v, sizeof(o->v));
	return 0;
}

struct load_arg {
	struct rargs *A;
	const struct rep *r;
};

/*
 * A row of the store: its role decides the lists, as the names' roles do
 * (report_model.c).  A row whose key is not this pgsc's for the call, or
 * whose values do not read, makes the name any value: a rule is never
 * printed from less than every value the rounds hold.
 */
static int
load_row(void *arg, const char *role, uint32_t arch, int32_t nr,
	 const char *key, const char *vals, uint64_t count)
{
	struct load_arg *la = arg;
	const char *name = pgsc_syscall_name(arch, nr);
	const char *want = args_key(name);
	struct args_obs o;
	int in[2];

	(void)count;
	if (name == NULL)
		return 0;
	in[0] = pgsc_role_in_server(role);
	in[1] = roles_in_session(&la->r->session, role);
	memset(&o, 0, sizeof(o));
	if (want == NULL || strcmp(want, key) != 0 ||
	    args_vals_parse(vals, args_nv(name), &o) < 0)
		o.nv = 0;
	la->A->any = 1;
	for (int l = 0; l < 2; l++) {
		struct rargs_name *e;

		if (!in[l])
			continue;
		e = name_get(la->A, l, name);
		if (e == NULL || name_add(e, &o) < 0 ||
		    strset_add(&e->roles, role) < 0)
			return -ENOMEM;
	}
	return 0;
}

void
report_args_free(struct rargs *A)
{
	if (A == NULL)
		return;
	for (int l = 0; l < 2; l++) {
		for (size_t i = 0; i < A->n[l]; i++) {
			free(A->l[l][i].name);
			free(A->l[l][i].v);
			strset_free(&A->l[l][i].roles);
		}
		free(A->l[l]);
	}
	free(A);
}

/*
 * A rule holds every value only when every role that put the name in the
 * list left values: a role whose calls were recorded without the --args
 * rules (another round, another arch) would be refused by a rule made
 * from the others' values.  Such a name is printed alone.
 */
static void
mark_partial(struct rargs *A, const struct rep *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct entry *en = &r->e[i];

		for (int l = 0; l < 2; l++) {
			struct rargs_name *e = NULL;

			for (size_t k = 0; k < A->n[l] && e == NULL; k++)
				if (strcmp(A->l[l][k].name, en->name) == 0)
					e = &A->l[l][k];
			if (e == NULL)
				continue;
			for (size_t k = 0; k < en->nrc; k++) {
				const char *role = en->rc[k].role;
				int in = l == 0 ? pgsc_role_in_server(role) :
					roles_in_session(&r->session, role);

				if (in && !strset_has(&e->roles, role))
					e->partial = 1;
			}
		}
	}
}

/* The values of @r's rounds; *@out NULL when the rounds have none (every
 * output is then as without --args).  0 or a negative errno. */
int
report_args_load(const struct rep *r, struct rargs **out)
{
	struct load_arg la = { .r = r };
	int rc;

	*out = NULL;
	la.A = calloc(1, sizeof(*la.A));
	if (la.A == NULL)
		return -ENOMEM;
	rc = store_args_each(r->st, r->from, r->to, load_row, &la, r->cause);
	if (rc < 0 || !la.A->any) {
		report_args_free(la.A);
		return rc;
	}
	mark_partial(la.A, r);
	*out = la.A;
	return 0;
}

static int
cmp_vals(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	for (int i = 0; i < ARGS_NV; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* The rule of @name in list @l of @A, or NULL (the name alone); *@over
 * set when it has more than REPORT_ARGS_MAX alternatives. */
static const struct rargs_name *
rule_of(const struct rargs *A, int l, const char *name, int *over)
{
	const struct rargs_name *e = NULL;

	*over = 0;
	if (A == NULL)
		return NULL;
	for (size_t i = 0; i < A->n[l] && e == NULL; i++)
		if (strcmp(A->l[l][i].name, name) == 0)
			e = &A->l[l][i];
	if (e == NULL || e->nv == 0 || e->n == 0 || e->partial)
		return NULL;
	/* PROT_EXEC seen: a rule could only allow both values */
	if (strcmp(name, "mmap") == 0 || strcmp(name, "mprotect") == 0)
		for (size_t i = 0; i < e->n; i++)
			if (e->v[i][0] != 0)
				return NULL;
	if (e->n > REPORT_ARGS_MAX) {
		*over = 1;
		return NULL;
	}
	return e;
}

/* The rule of @name in list @l of @A as the score reads it (the rule
 * report_args_joined() prints): 1 with *@sr, 0 when the name is printed
 * alone.  @sr points into @A. */
int
report_args_rule(const struct rargs *A, int l, const char *name,
		 struct surface_rule *sr)
{
	const struct rargs_name *e;
	unsigned idx[ARGS_NV];
	uint64_t mask[ARGS_NV];
	int over;

	e = rule_of(A, l, name, &over);
	if (e == NULL || args_layout(name, idx, mask) != e->nv)
		return 0;
	memset(sr, 0, sizeof(*sr));
	sr->nargs = e->nv;
	for (unsigned k = 0; k < e->nv; k++) {
		sr->arg[k] = (unsigned char)idx[k];
		sr->mask[k] = mask[k];
	}
	sr->nalts = e->n;
	sr->stride = ARGS_NV;
	sr->val = e->v[0];
	return 1;
}

static void
print_num(FILE *out, uint64_t v, int hex)
{
	if (hex && v != 0)
		fprintf(out, "0x%llx", (unsigned long long)v);
	else
		fprintf(out, "%llu", (unsigned long long)v);
}

/* NAME(rule) of @e, values in numeric order (sorted in place). */
static void
print_rule(FILE *out, const char *name, const struct rargs_name *e)
{
	int hex = args_hex(name);

	qsort(e->v, e->n, sizeof(*e->v), cmp_vals);
	fprintf(out, "%s(%s=", name, args_key(name));
	for (size_t i = 0; i < e->n; i++) {
		fputs(i ? "|" : "", out);
		for (unsigned k = 0; k < e->nv; k++) {
			fputs(k ? ":" : "", out);
			print_num(out, e->v[i][k], hex);
		}
	}
	fputc(')', out);
}

/* List @l (0 global, 1 session) of names @s joined by @sep, each with its
 * rule when @A has one. */
void
report_args_joined(FILE *out, const struct rargs *A, int l,
		   const struct strset *s, const char *sep)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct rargs_name *e;
		int over;

		fputs(i ? sep : "", out);
		e = rule_of(A, l, s->v[i], &over);
		if (e != NULL)
			print_rule(out, s->v[i], e);
		else
			fputs(s->v[i], out);
	}
}

/* "# args: ..." lines: the names printed without a rule for having more
 * values than a rule takes. */
void
report_args_comment(FILE *out, const struct rargs *A, const struct lists *L)
{
	static const char *const what[] = { "global", "session" };

	if (A == NULL)
		return;
	for (int l = 0; l < 2; l++) {
		int first = 1;

		for (size_t i = 0; i < L->l[l].n; i++) {
			int over;

			rule_of(A, l, L->l[l].v[i], &over);
			if (!over)
				continue;
			if (first)
				fprintf(out, "# args: %s list, more than %d "
					"argument values, no rule: ", what[l],
					REPORT_ARGS_MAX);
			fprintf(out, "%s%s", first ? "" : ",", L->l[l].v[i]);
			first = 0;
		}
		if (!first)
			fputc('\n', out);
	}
}

/* The rules of list @l as a JSON object {"name": "rule", ...}: only the
 * names that have one. */
void
report_args_json(FILE *out, const struct rargs *A, int l,
		 const struct strset *s)
{
	int first = 1;

	fputc('{', out);
	for (size_t i = 0; i < s->n; i++) {
		const struct rargs_name *e;
		int over;

		e = rule_of(A, l, s->v[i], &over);
		if (e == NULL)
			continue;
		fprintf(out, "%s", first ? "" : ", ");
		report_json_str(out, s->v[i]);
		fputs(": \"", out);
		print_rule(out, s->v[i], e);
		fputc('"', out);
		first = 0;
	}
	fputc('}', out);
}

/* The names of @s that have no rule in list @l of @A, into @plain.
 * 0 or -ENOMEM. */
int
report_args_plain(const struct rargs *A, int l, const struct strset *s,
		  struct strset *plain)
{
	for (size_t i = 0; i < s->n; i++) {
		int over;

		if (rule_of(A, l, s->v[i], &over) == NULL &&
		    strset_add(plain, s->v[i]) < 0)
			return -ENOMEM;
	}
	return 0;
}

/*
 * The OCI profile's entries of the global list's rules (runtime-spec
 * config-linux.md, "Seccomp"): one entry per alternative, its arguments
 * ANDed; a masked argument is SCMP_CMP_MASKED_EQ with the mask in
 * "value" and the value in "valueTwo" (libseccomp's SCMP_CMP_MASKED_EQ,
 * as runc and crun pass them).  Each entry ends with ",\n" but the
 * very last when @last.
 */
void
report_args_oci(FILE *out, const struct rargs *A, const struct strset *s,
		int last)
{
	size_t left = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct rargs_name *e;
		int over;

		e = rule_of(A, 0, s->v[i], &over);
		left += e != NULL ? e->n : 0;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct rargs_name *e;
		unsigned idx[ARGS_NV];
		uint64_t mask[ARGS_NV];
		int over;

		e = rule_of(A, 0, s->v[i], &over);
		if (e == NULL)
			continue;
		args_layout(s->v[i], idx, mask);
		qsort(e->v, e->n, sizeof(*e->v), cmp_vals);
		for (size_t k = 0; k < e->n; k++) {
			fputs("    {\n      \"names\": [", out);
			report_json_str(out, s->v[i]);
			fputs("],\n      \"action\": \"SCMP_ACT_ALLOW\",\n"
			      "      \"args\": [", out);
			for (unsigned a = 0; a < e->nv; a++) {
				fprintf(out, "%s\n        {\"index\": %u, ",
					a ? "," : "", idx[a]);
				if (mask[a] == ~0ULL)
					fprintf(out, "\"value\": %llu, "
						"\"op\": \"SCMP_CMP_EQ\"}",
						(unsigned long long)e->v[k][a]);
				else
					fprintf(out, "\"value\": %llu, "
						"\"valueTwo\": %llu, \"op\": "
						"\"SCMP_CMP_MASKED_EQ\"}",
						(unsigned long long)mask[a],
						(unsigned long long)e->v[k][a]);
			}
			fprintf(out, "\n      ]\n    }%s\n",
				last && --left == 0 ? "" : ",");
		}
	}
}

/* The address families of report_args_systemd(), by number. */
static const char *
af_name(uint64_t af)
{
	static const char *const names[] = {
		[1] = "AF_UNIX", [2] = "AF_INET", [3] = "AF_AX25",
		[4] = "AF_IPX", [5] = "AF_APPLETALK", [9] = "AF_X25",
		[10] = "AF_INET6", [16] = "AF_NETLINK", [17] = "AF_PACKET",
		[29] = "AF_CAN", [31] = "AF_BLUETOOTH", [38] = "AF_ALG",
		[40] = "AF_VSOCK", [44] = "AF_XDP",
	};

	return af < ARRAY_SIZE(names) ? names[af] : NULL;
}

/*
 * What systemd can say of the global list's rules (systemd.exec(5)):
 * RestrictAddressFamilies= the socket domains seen, RestrictNamespaces=
 * yes when no clone had a CLONE_NEW* bit (else the kinds seen).  Nothing
 * for a call without values: no line is made up from no data.  Both
 * refuse, never log: with @comment (--default log) they are printed as
 * comments, to be enabled once a round under log is clean.
 */
void
report_args_systemd(FILE *out, const struct rargs *A, const struct strset *s,
		    int comment)
{
	const char *c = comment ? "# " : "";
	static const struct { uint64_t bit; const char *name; } ns[] = {
		{ 0x02000000, "cgroup" }, { 0x08000000, "ipc" },
		{ 0x40000000, "net" }, { 0x00020000, "mnt" },
		{ 0x20000000, "pid" }, { 0x10000000, "user" },
		{ 0x04000000, "uts" },
	};
	const struct rargs_name *e;
	uint64_t seen = 0;
	int over;

	e = strset_has(s, "socket") ? rule_of(A, 0, "socket", &over) : NULL;
	if (e != NULL) {
		size_t k;

		qsort(e->v, e->n, sizeof(*e->v), cmp_vals);
		for (k = 0; k < e->n && af_name(e->v[k][0]) != NULL; k++)
			;
		if (k < e->n) {
			fprintf(out, "# socket domain %llu has no AF_ name "
				"here: no RestrictAddressFamilies=\n",
				(unsigned long long)e->v[k][0]);
		} else {
			fprintf(out, "%sRestrictAddressFamilies=", c);
			for (k = 0; k < e->n; k++)
				if (k == 0 || e->v[k][0] != e->v[k - 1][0])
					fprintf(out, "%s%s", k ? " " : "",
						af_name(e->v[k][0]));
			fputc('\n', out);
		}
	}
	e = strset_has(s, "clone") ? rule_of(A, 0, "clone", &over) : NULL;
	if (e == NULL)
		return;
	for (size_t k = 0; k < e->n; k++)
		seen |= e->v[k][0];
	if (seen == 0) {
		fprintf(out, "%sRestrictNamespaces=yes\n", c);
		return;
	}
	fprintf(out, "%sRestrictNamespaces=", c);
	for (size_t i = 0, first = 1; i < ARRAY_SIZE(ns); i++) {
		if (!(seen & ns[i].bit))
			continue;
		fprintf(out, "%s%s", first ? "" : " ", ns[i].name);
		first = 0;
	}
	fputc('\n', out);
}
