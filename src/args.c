/* SPDX-License-Identifier: PostgreSQL */
/* args.c - the argument values of the calls pgsc-collect --args audits:
 * which argument of which call is kept (the "args key" of a rule), the
 * value a SYSCALL record's a0..a3 give it, and the tables of values that
 * the process tree keeps per process and per role (docs/args.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"

/*
 * A SYSCALL record's a0..a3 are the raw registers.  Each call keeps one or
 * two of them, masked where the loaders compare a masked word:
 * socket's type without SOCK_CLOEXEC/SOCK_NONBLOCK (& 0xf, the kernel's
 * SOCK_TYPE_MASK), clone's CLONE_NEW* bits and CLONE_NEWCGROUP
 * (0x7e020000), mmap/mprotect's PROT_EXEC (0x4).  The key is the rule's
 * left side in the grammar of pgsc-report(1).
 */
static const struct args_def {
	const char *name;
	const char *key;
	unsigned nv;
	unsigned idx[ARGS_NV];
	uint64_t mask[ARGS_NV];
	unsigned hex;           /* the values print in hex */
} defs[] = {
	{ "socket", "a0:a1&0xf", 2, { 0, 1 }, { ~0ULL, 0xf }, 0 },
	{ "setsockopt", "a1:a2", 2, { 1, 2 }, { ~0ULL, ~0ULL }, 0 },
	{ "getsockopt", "a1:a2", 2, { 1, 2 }, { ~0ULL, ~0ULL }, 0 },
	{ "ioctl", "a1", 1, { 1, 0 }, { ~0ULL, 0 }, 1 },
	{ "prctl", "a0", 1, { 0, 0 }, { ~0ULL, 0 }, 0 },
	{ "clone", "a0&0x7e020000", 1, { 0, 0 }, { 0x7e020000, 0 }, 1 },
	{ "fcntl", "a1", 1, { 1, 0 }, { ~0ULL, 0 }, 0 },
	{ "mmap", "a2&0x4", 1, { 2, 0 }, { 0x4, 0 }, 1 },
	{ "mprotect", "a2&0x4", 1, { 2, 0 }, { 0x4, 0 }, 1 },
	{ "madvise", "a2", 1, { 2, 0 }, { ~0ULL, 0 }, 0 },
	{ "personality", "a0", 1, { 0, 0 }, { ~0ULL, 0 }, 0 },
};

static const struct args_def *
def_of(const char *name)
{
	if (name == NULL)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(defs); i++)
		if (strcmp(defs[i].name, name) == 0)
			return &defs[i];
	return NULL;
}

const char *
args_key(const char *name)
{
	const struct args_def *d = def_of(name);

	return d != NULL ? d->key : NULL;
}

int
args_hex(const char *name)
{
	const struct args_def *d = def_of(name);

	return d != NULL && d->hex;
}

const char *
args_call(size_t i)
{
	return i < ARRAY_SIZE(defs) ? defs[i].name : NULL;
}

/*
 * Only 64-bit arches: on i386 mmap is old_mmap (its a2 is not prot) and
 * the socket calls mostly go through socketcall, so a compat record
 * would give a rule about other words (docs/args.md).
 */
int
args_extract(uint32_t arch, int64_t nr, const uint64_t a[4],
	     struct args_obs *o)
{
	const struct args_def *d;

	if (!(arch & 0x80000000u) || nr < 0 || nr > INT32_MAX)
		return 0;
	d = def_of(pgsc_syscall_name(arch, (int)nr));
	if (d == NULL)
		return 0;
	memset(o, 0, sizeof(*o));
	o->arch = arch;
	o->nr = (int32_t)nr;
	o->nv = d->nv;
	for (unsigned i = 0; i < d->nv; i++)
		o->v[i] = a[d->idx[i]] & d->mask[i];
	o->count = 1;
	return 1;
}

static int
same_call(const struct args_obs *x, const struct args_obs *y)
{
	return x->nr == y->nr && x->arch == y->arch && x->role == y->role;
}

static int
same_vals(const struct args_obs *x, const struct args_obs *y)
{
	return x->nv == y->nv && memcmp(x->v, y->v, sizeof(x->v)) == 0;
}

/*
 * Add @o (its role, call and values) with its count to @t.  More than
 * ARGS_VALUES_MAX distinct values of one call and role become one entry
 * with nv 0, "any value": a table never drops a value silently, which
 * would make a printed rule narrower than what ran.
 * Returns 0 or -ENOMEM.
 */
int
args_tab_add(struct args_tab *t, const struct args_obs *o)
{
	size_t same = 0;

	for (size_t i = 0; i < t->n; i++) {
		struct args_obs *e = &t->e[i];

		if (!same_call(e, o))
			continue;
		if (e->nv == 0 || same_vals(e, o)) {
			e->count += o->count;
			return 0;
		}
		same++;
	}
	if (o->nv != 0 && same >= ARGS_VALUES_MAX) {
		struct args_obs any = *o;
		size_t k = 0;

		any.nv = 0;
		memset(any.v, 0, sizeof(any.v));
		for (size_t i = 0; i < t->n; i++) {
			if (same_call(&t->e[i], o))
				any.count += t->e[i].count;
			else
				t->e[k++] = t->e[i];
		}
		t->n = k;
		return args_tab_add(t, &any);
	}
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 4;
		struct args_obs *ne = realloc(t->e, ncap * sizeof(*ne));

		if (ne == NULL)
			return -ENOMEM;
		t->e = ne;
		t->cap = ncap;
	}
	t->e[t->n++] = *o;
	return 0;
}

void
args_tab_free(struct args_tab *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}

/*
 * The values of @o as stored: decimal numbers joined by ':', "*" for any
 * value.  @buf holds at least ARGS_VALS_MAX bytes.
 */
void
args_vals_text(const struct args_obs *o, char *buf)
{
	size_t off = 0;

	if (o->nv == 0) {
		strcpy(buf, "*");
		return;
	}
	buf[0] = '\0';
	for (unsigned i = 0; i < o->nv && i < ARGS_NV; i++)
		off += (size_t)snprintf(buf + off, ARGS_VALS_MAX - off, "%s%llu",
					i ? ":" : "",
					(unsigned long long)o->v[i]);
}

/*
 * Parse stored values back ("*" is any); untrusted (a store is a file).
 * Returns 0, or -EINVAL for text that is not @nv numbers.
 */
int
args_vals_parse(const char *s, unsigned nv, struct args_obs *o)
{
	if (strcmp(s, "*") == 0) {
		o->nv = 0;
		return 0;
	}
	if (nv == 0 || nv > ARGS_NV)
		return -EINVAL;
	for (unsigned i = 0; i < nv; i++) {
		char *end;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		errno = 0;
		o->v[i] = strtoull(s, &end, 10);
		if (errno != 0 || end == s)
			return -EINVAL;
		s = end;
		if (i + 1 < nv) {
			if (*s != ':')
				return -EINVAL;
			s++;
		}
	}
	if (*s != '\0')
		return -EINVAL;
	o->nv = nv;
	return 0;
}

/* How many values the key of @name takes (0 for a call not collected). */
unsigned
args_nv(const char *name)
{
	const struct args_def *d = def_of(name);

	return d != NULL ? d->nv : 0;
}

/*
 * The argument index and mask of each value of @name's key, for a loader
 * that compares them itself (the OCI profile); a mask of all ones is a
 * plain comparison.  Returns the count (0 for a call not collected).
 */
unsigned
args_layout(const char *name, unsigned idx[ARGS_NV], uint64_t mask[ARGS_NV])
{
	const struct args_def *d = def_of(name);

	if (d == NULL)
		return 0;
	for (unsigned i = 0; i < ARGS_NV; i++) {
		idx[i] = d->idx[i];
		mask[i] = d->mask[i];
	}
	return d->nv;
}
