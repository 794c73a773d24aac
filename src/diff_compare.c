/* SPDX-License-Identifier: PostgreSQL */
/* diff_compare.c - the differences of two list pairs, and their output. */
/*
 * pgsc_diff_new() merges each list of two pairs (loaded by diff.c) and
 * notes, for every name in one pair only, the members of its families
 * (syscall_families.c) that the other pair has: such a name is equivalent, not
 * different, when asked.  pgsc_diff_print() writes the result as text,
 * Markdown (a CI comment) or JSON; every name that reaches the output is
 * escaped for it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "diff.h"
#include "syscalls.h"

static const char *const list_names[2] = { "global", "session" };

/* ---------------------------------------------------------------- */
/* Differences                                                       */

struct dentry {
	char *name;
	int sign, equivalent;
	struct strset with, fams;
};

struct pgsc_diff {
	int differs;
	struct dentry *e[2];
	size_t n[2], cap[2];
	struct pgsc_diff_entry *view[2];   /* differences, then equivalents */
};

/* Note that @nm is only in one pair; @other is the other pair's list. */
static int
add_entry(struct pgsc_diff *d, int l, const char *nm, int sign,
	  const struct strset *other, int equivalent)
{
	const struct family *f;
	struct dentry *e;

	if (d->n[l] == d->cap[l]) {
		size_t cap = d->cap[l] ? d->cap[l] * 2 : 32;
		struct dentry *ne = realloc(d->e[l], cap * sizeof(*ne));

		if (ne == NULL)
			return -ENOMEM;
		d->e[l] = ne;
		d->cap[l] = cap;
	}
	e = &d->e[l][d->n[l]];
	memset(e, 0, sizeof(*e));
	e->sign = sign;
	e->name = strdup(nm);
	if (e->name == NULL)
		return -ENOMEM;
	d->n[l]++;
	for (size_t i = 0; equivalent && (f = syscall_families_of(nm, i)) != NULL; i++)
		for (const char *const *m = f->members; *m != NULL; m++) {
			if (strcmp(*m, nm) == 0 || !strset_has(other, *m))
				continue;
			if (strset_add(&e->with, *m) < 0 ||
			    strset_add(&e->fams, f->name) < 0)
				return -ENOMEM;
		}
	e->equivalent = e->with.n > 0;
	if (!e->equivalent)
		d->differs = 1;
	return 0;
}

/* Merge the two sorted lists @a and @b. */
static int
diff_list(struct pgsc_diff *d, int l, const struct strset *a,
	  const struct strset *b, int equivalent)
{
	size_t i = 0, k = 0;
	int rc = 0;

	while (rc == 0 && (i < a->n || k < b->n)) {
		int c = i >= a->n ? 1 : k >= b->n ? -1 :
			strcmp(a->v[i], b->v[k]);

		if (c == 0) {
			i++;
			k++;
		} else if (c < 0) {
			rc = add_entry(d, l, a->v[i++], '-', b, equivalent);
		} else {
			rc = add_entry(d, l, b->v[k++], '+', a, equivalent);
		}
	}
	if (rc < 0 || d->n[l] == 0)
		return rc;
	d->view[l] = calloc(d->n[l], sizeof(*d->view[l]));
	if (d->view[l] == NULL)
		return -ENOMEM;
	k = 0;
	for (int pass = 0; pass < 2; pass++)
		for (i = 0; i < d->n[l]; i++) {
			const struct dentry *e = &d->e[l][i];

			if (e->equivalent != pass)
				continue;
			d->view[l][k++] = (struct pgsc_diff_entry){
				e->name, e->sign, e->equivalent,
				(const char *const *)e->with.v, e->with.n,
				(const char *const *)e->fams.v, e->fams.n,
			};
		}
	return 0;
}

int
pgsc_diff_new(const pgsc_lists *a, const pgsc_lists *b, int equivalent,
	      pgsc_diff **out)
{
	struct pgsc_diff *d = calloc(1, sizeof(*d));
	int rc = 0;

	*out = NULL;
	if (d == NULL)
		return -ENOMEM;
	for (int l = 0; l < 2 && rc == 0; l++)
		rc = diff_list(d, l, diff_lists_set(a, l),
			       diff_lists_set(b, l), equivalent);
	if (rc < 0) {
		pgsc_diff_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void
pgsc_diff_free(pgsc_diff *d)
{
	if (d == NULL)
		return;
	for (int l = 0; l < 2; l++) {
		for (size_t i = 0; i < d->n[l]; i++) {
			free(d->e[l][i].name);
			strset_free(&d->e[l][i].with);
			strset_free(&d->e[l][i].fams);
		}
		free(d->e[l]);
		free(d->view[l]);
	}
	free(d);
}

int
pgsc_diff_equal(const pgsc_diff *d)
{
	return !d->differs;
}

size_t
pgsc_diff_entries(const pgsc_diff *d, int which,
		  const struct pgsc_diff_entry **entries)
{
	int l = which ? 1 : 0;

	*entries = d->view[l];
	return d->n[l];
}

/* ---------------------------------------------------------------- */
/* Output                                                            */

static void
count(const pgsc_diff *d, int l, size_t *added, size_t *removed,
      size_t *equiv)
{
	*added = *removed = *equiv = 0;
	for (size_t i = 0; i < d->n[l]; i++) {
		const struct pgsc_diff_entry *e = &d->view[l][i];

		if (e->equivalent)
			(*equiv)++;
		else if (e->sign == '+')
			(*added)++;
		else
			(*removed)++;
	}
}

/* @v joined with ", ", each name written by @put. */
static void
joined(FILE *out, const char *const *v, size_t n,
       void (*put)(FILE *, const char *))
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(", ", out);
		put(out, v[i]);
	}
}

/* The names an equivalent entry stands for, and their families, each
 * name written by @put. */
static void
equivalents(FILE *out, const struct pgsc_diff_entry *e,
	    void (*put)(FILE *, const char *))
{
	joined(out, e->with, e->n_with, put);
	fprintf(out, " (famil%s ", e->n_families > 1 ? "ies" : "y");
	joined(out, e->families, e->n_families, put);
	fputc(')', out);
}

/*
 * --- A
 * +++ B
 * global:
 * -removed
 * +added
 * ~-open: openat (family open)
 * Nothing at all when the pairs are the same.
 */
static void
print_text(FILE *out, const pgsc_diff *d, const char *na, const char *nb)
{
	if (d->n[0] + d->n[1] == 0)
		return;
	fputs("--- ", out);
	pgsc_text_escape(out, na);
	fputs("\n+++ ", out);
	pgsc_text_escape(out, nb);
	fputc('\n', out);
	for (int l = 0; l < 2; l++) {
		if (d->n[l] > 0)
			fprintf(out, "%s:\n", list_names[l]);
		for (size_t i = 0; i < d->n[l]; i++) {
			const struct pgsc_diff_entry *e = &d->view[l][i];

			fprintf(out, "%s%c", e->equivalent ? "~" : "", e->sign);
			pgsc_text_escape(out, e->name);
			if (e->equivalent) {
				fputs(": ", out);
				equivalents(out, e, pgsc_text_escape);
			}
			fputc('\n', out);
		}
	}
}

/*
 * Untrusted text for Markdown (GitHub, GitLab comments): terminal-escaped
 * first (control bytes, quotes, backslashes and invalid UTF-8 become
 * \xNN), then every ASCII punctuation byte backslash-escaped, which
 * CommonMark turns back into the byte itself: no emphasis, link, HTML,
 * table cell break or mention can start inside.
 */
static void
md_escape(FILE *out, const char *s)
{
	char *e = diff_escaped(s);

	if (e == NULL) {
		fputs("?", out);
		return;
	}
	for (const char *p = e; *p; p++) {
		if (strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", *p) != NULL)
			fputc('\\', out);
		fputc(*p, out);
	}
	free(e);
}

/* A name as a code span: names are [a-z0-9_]+, so no backtick or pipe can
 * end the span or the cell; anything else is shown escaped. */
static void
md_name(FILE *out, const char *s)
{
	if (pgsc_guc_name_ok(s))
		fprintf(out, "`%s`", s);
	else
		md_escape(out, s);
}

static void
print_markdown(FILE *out, const pgsc_diff *d, const char *na, const char *nb)
{
	fputs("### pgsc-diff: ", out);
	md_escape(out, na);
	fputs(" \xe2\x86\x92 ", out);   /* U+2192 RIGHTWARDS ARROW */
	md_escape(out, nb);
	fputs("\n\n", out);
	if (d->n[0] + d->n[1] == 0) {
		fputs("The allow lists are the same.\n", out);
		return;
	}
	fputs(d->differs ? "**The allow lists differ.**" :
	      "The allow lists are the same up to syscall families.", out);
	for (int l = 0; l < 2; l++) {
		size_t added, removed, equiv;

		count(d, l, &added, &removed, &equiv);
		fprintf(out, "%s%s: %zu added, %zu removed", l ? "; " : " ",
			list_names[l], added, removed);
		if (equiv)
			fprintf(out, ", %zu equivalent", equiv);
	}
	fputs(".\n\n| list | change | syscall | equivalent to |\n"
	      "|---|---|---|---|\n", out);
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < d->n[l]; i++) {
			const struct pgsc_diff_entry *e = &d->view[l][i];
			const char *what = e->sign == '+' ? "added" : "removed";

			fprintf(out, "| %s | %s%s | ", list_names[l], what,
				e->equivalent ? ", equivalent" : "");
			md_name(out, e->name);
			fputs(" | ", out);
			if (e->equivalent)
				equivalents(out, e, md_name);
			fputs(" |\n", out);
		}
}

static void
json_str(FILE *out, const char *s)
{
	fputc('"', out);
	pgsc_json_escape(out, s);
	fputc('"', out);
}

static void
json_strs(FILE *out, const char *const *v, size_t n)
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(", ", out);
		json_str(out, v[i]);
	}
	fputc(']', out);
}

/* The names of list @l with @sign that are (not) @equivalent. */
static void
json_names(FILE *out, const pgsc_diff *d, int l, int sign)
{
	int first = 1;

	fputc('[', out);
	for (size_t i = 0; i < d->n[l]; i++) {
		const struct pgsc_diff_entry *e = &d->view[l][i];

		if (e->equivalent || e->sign != sign)
			continue;
		fputs(first ? "" : ", ", out);
		json_str(out, e->name);
		first = 0;
	}
	fputc(']', out);
}

/* The format version of pgsc-diff's JSON document, its first member
 * "pgsc_diff" (schemas/pgsc-diff.schema.json). */
#define DIFF_JSON_VERSION 1

static void
print_json(FILE *out, const pgsc_diff *d, const char *na, const char *nb)
{
	fprintf(out, "{\n  \"pgsc_diff\": %d,\n  \"equal\": %s,\n  \"a\": ",
		DIFF_JSON_VERSION, d->differs ? "false" : "true");
	json_str(out, na);
	fputs(",\n  \"b\": ", out);
	json_str(out, nb);
	for (int l = 0; l < 2; l++) {
		int first = 1;

		fprintf(out, ",\n  \"%s\": {\"added\": ", list_names[l]);
		json_names(out, d, l, '+');
		fputs(", \"removed\": ", out);
		json_names(out, d, l, '-');
		fputs(", \"equivalent\": [", out);
		for (size_t i = 0; i < d->n[l]; i++) {
			const struct pgsc_diff_entry *e = &d->view[l][i];

			if (!e->equivalent)
				continue;
			fputs(first ? "\n    {\"name\": " : ",\n    {\"name\": ",
			      out);
			first = 0;
			json_str(out, e->name);
			fprintf(out, ", \"change\": \"%s\", \"with\": ",
				e->sign == '+' ? "added" : "removed");
			json_strs(out, e->with, e->n_with);
			fputs(", \"families\": ", out);
			json_strs(out, e->families, e->n_families);
			fputc('}', out);
		}
		fputs(first ? "]}" : "\n  ]}", out);
	}
	fputs("\n}\n", out);
}

int
pgsc_diff_print(const pgsc_diff *d, enum pgsc_diff_format format,
		const char *name_a, const char *name_b, FILE *out)
{
	switch (format) {
	case PGSC_DIFF_TEXT:
		print_text(out, d, name_a, name_b);
		break;
	case PGSC_DIFF_MARKDOWN:
		print_markdown(out, d, name_a, name_b);
		break;
	case PGSC_DIFF_JSON:
		print_json(out, d, name_a, name_b);
		break;
	}
	if (fflush(out) != 0)
		return -errno;
	return ferror(out) ? -EIO : 0;
}
