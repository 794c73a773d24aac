/* SPDX-License-Identifier: PostgreSQL */
/* logsrc_dir.c - import operands expanded: a directory is its rotated set. */
/*
 * pgsc_import_expand() turns each directory operand into the audit logs
 * of its rotated sets, oldest first (BASE.N highest first, then dated
 * ones, then BASE itself), and keeps other operands as they are.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pgsc-int.h"

/*
 * Is @name one of a rotated set: BASE, BASE.N or BASE-DATE, where BASE
 * ends in ".log", each possibly with ".gz", ".xz" or ".zst"?  Sets the
 * length of BASE, the class (0 numbered, 1 dated, 2 the current file)
 * and N.  Returns 1 or 0.
 */
UNITTEST int
logsrc_log_name(const char *name, size_t *base_len, int *cls,
		unsigned long long *num)
{
	static const char *const sfx[] = { ".gz", ".xz", ".zst" };
	size_t len = strlen(name);
	int found = 0;

	for (size_t i = 0; i < ARRAY_SIZE(sfx); i++) {
		size_t k = strlen(sfx[i]);

		if (len > k && strcmp(name + len - k, sfx[i]) == 0) {
			len -= k;
			break;
		}
	}
	for (size_t i = 0; i + 4 <= len; i++) {
		const char *r = name + i + 4;
		size_t rl = len - i - 4, d = 0;

		if (memcmp(name + i, ".log", 4) != 0 || i == 0)
			continue;
		if (rl == 0) {
			*cls = 2;
			*num = 0;
		} else if (r[0] == '.' && rl > 1) {
			unsigned long long v = 0;

			for (d = 1; d < rl && r[d] >= '0' && r[d] <= '9'; d++)
				v = v < 1000000000ULL ? v * 10 + (unsigned)(r[d] - '0') : v;
			if (d != rl || rl > 10)
				continue;
			*cls = 0;
			*num = v;
		} else if (r[0] == '-' && rl > 1) {
			int digits = 0;

			for (d = 1; d < rl; d++) {
				if (r[d] >= '0' && r[d] <= '9')
					digits++;
				else if (r[d] != '-' && r[d] != '_')
					break;
			}
			if (d != rl || digits == 0)
				continue;
			*cls = 1;
			*num = 0;
		} else {
			continue;
		}
		*base_len = i + 4;
		found = 1;
	}
	return found;
}

struct member {
	char *path;
	const char *name;
	size_t base_len;
	int cls;
	unsigned long long num;
};

/* Oldest first: per base, BASE.N by N downwards, then BASE-DATE by date,
 * then BASE itself. */
static int
member_cmp(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	size_t bl = x->base_len < y->base_len ? x->base_len : y->base_len;
	int c = memcmp(x->name, y->name, bl);

	if (c != 0)
		return c;
	if (x->base_len != y->base_len)
		return x->base_len < y->base_len ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->cls == 0 && x->num != y->num)
		return x->num > y->num ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int
push(char ***v, size_t *n, size_t *cap, char *s)
{
	if (s == NULL)
		return -ENOMEM;
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		char **nv = realloc(*v, nc * sizeof(**v));

		if (nv == NULL) {
			free(s);
			return -ENOMEM;
		}
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = s;
	return 0;
}

static int
expand_dir(const char *dir, FILE *diag, int quiet, char ***v, size_t *n,
	   size_t *cap, size_t *refused)
{
	DIR *d = opendir(dir);
	struct member *m = NULL;
	size_t nm = 0, cm = 0;
	struct dirent *de;
	int rc = 0, rerr = 0, se;
	const char *sep = dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/";

	if (d == NULL) {
		util_diag(diag, "%s: %s; not imported\n", dir,
			strerror(errno));
		(*refused)++;
		return 0;
	}
	for (;;) {
		struct member e = { 0 };
		struct stat sb;
		char *p;

		/* readdir()'s own errno only: a skipped entry's stat()
		 * failure (a dangling audit.log.1) is that entry's, not the
		 * directory's (it once refused the whole directory) */
		errno = 0;
		de = readdir(d);
		if (de == NULL) {
			rerr = errno;
			break;
		}

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (asprintf(&p, "%s%s%s", dir, sep, de->d_name) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		se = stat(p, &sb) < 0 ? errno : 0;
		if (se != 0 || !S_ISREG(sb.st_mode)) {
			if (!quiet)
				util_diag(diag, "%s: skipped (%s)\n", p,
					se != 0 ? strerror(se) :
					"not a regular file");
			free(p);
			continue;
		}
		if (!logsrc_log_name(de->d_name, &e.base_len, &e.cls, &e.num)) {
			if (!quiet)
				util_diag(diag, "%s: skipped (not named "
					"like an audit log: NAME.log, "
					"NAME.log.N or NAME.log-DATE, maybe "
					".gz, .xz or .zst)\n", p);
			free(p);
			continue;
		}
		if (nm == cm) {
			size_t nc = cm ? cm * 2 : 16;
			struct member *nmv = realloc(m, nc * sizeof(*m));

			if (nmv == NULL) {
				free(p);
				rc = -ENOMEM;
				goto out;
			}
			m = nmv;
			cm = nc;
		}
		e.path = p;
		e.name = p + strlen(dir) + strlen(sep);
		m[nm++] = e;
	}
	if (rerr != 0) {
		util_diag(diag, "%s: %s; not imported\n", dir,
			strerror(rerr));
		(*refused)++;
		goto out;
	}
	if (nm == 0) {
		util_diag(diag, "%s: a directory without audit logs "
			"(NAME.log, NAME.log.N, NAME.log-DATE, maybe .gz, .xz "
			"or .zst); nothing imported from it\n", dir);
		(*refused)++;
		goto out;
	}
	qsort(m, nm, sizeof(*m), member_cmp);
	for (size_t i = 0; i < nm; i++) {
		rc = push(v, n, cap, m[i].path);
		m[i].path = NULL;
		if (rc < 0)
			goto out;
	}
out:
	for (size_t i = 0; i < nm; i++)
		free(m[i].path);
	free(m);
	closedir(d);
	return rc;
}

int
pgsc_import_expand(const char *const *paths, size_t n, FILE *diag, int quiet,
		   char ***out, size_t *n_out, size_t *refused)
{
	char **v = NULL;
	size_t nv = 0, cap = 0;
	int rc = 0;

	if (diag == NULL)
		diag = stderr;
	*out = NULL;
	*n_out = 0;
	*refused = 0;
	for (size_t i = 0; i < n; i++) {
		struct stat sb;

		if (strcmp(paths[i], "-") != 0 && stat(paths[i], &sb) == 0 &&
		    S_ISDIR(sb.st_mode))
			rc = expand_dir(paths[i], diag, quiet, &v, &nv, &cap,
					refused);
		else
			rc = push(&v, &nv, &cap, strdup(paths[i]));
		if (rc < 0)
			break;
	}
	if (rc < 0) {
		pgsc_import_expand_free(v, nv);
		return rc;
	}
	*out = v;
	*n_out = nv;
	return 0;
}

void
pgsc_import_expand_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
