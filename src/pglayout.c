/* SPDX-License-Identifier: PostgreSQL */
/* pglayout.c - where the installed PostgreSQL server is: pg_config,
 * PATH, Debian's and PGDG's layouts, in one documented order. */
/*
 * The order (docs/live.md, "RHEL and PGDG"; tools/pg-layout.sh is the
 * same for the scripts, cmake/PgConfig.cmake for the build):
 *   1. the pg_config named by the caller (--pg-config), else $PG_CONFIG:
 *      taken as it is, an error when it does not answer;
 *   2. pg_config in PATH, when the bindir it names holds postgres (on
 *      RHEL, PATH's pg_config is often libpq's, with no server beside);
 *   3. /usr/lib/postgresql/NN/bin (Debian, Ubuntu), newest NN first;
 *   4. /usr/pgsql-NN/bin (PGDG's RPMs on RHEL, Rocky, Alma, Fedora),
 *      newest NN first.
 * In 3 and 4 a directory counts when it holds an executable postgres;
 * its own pg_config is asked when it has one (PGDG ships it in the
 * -devel package), else the layout says it: BINDIR and BINDIR/../lib.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pgsc-int.h"

#define ROOTS_MAX 64

/* One line of "PROG --OPTION", run without a shell: a malloc'd absolute
 * path, or NULL when it fails or prints no absolute path. */
static char *
ask(const char *prog, const char *option)
{
	int fds[2], status;
	char buf[4096];
	size_t got = 0;
	pid_t pid;
	ssize_t r;

	if (pipe(fds) < 0)
		return NULL;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execlp(prog, prog, option, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (got < sizeof(buf) - 1 &&
	       ((r = read(fds[0], buf + got, sizeof(buf) - 1 - got)) > 0 ||
		(r < 0 && errno == EINTR)))
		if (r > 0)
			got += (size_t)r;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got == 0)
		return NULL;
	buf[got] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] == '/' ? strdup(buf) : NULL;
}

static int
has_postgres(const char *bindir)
{
	char *p;
	int ok;

	if (asprintf(&p, "%s/postgres", bindir) < 0)
		return 0;
	ok = access(p, X_OK) == 0;
	free(p);
	return ok;
}

/* @l from the answers of @pg_config; -ENOENT when it does not answer or
 * (unless @any_bindir) names a bindir without postgres. */
static int
from_pg_config(const char *pg_config, int any_bindir,
	       struct pgsc_pg_layout *l)
{
	l->bindir = ask(pg_config, "--bindir");
	l->pkglibdir = ask(pg_config, "--pkglibdir");
	if (l->bindir == NULL || l->pkglibdir == NULL ||
	    (!any_bindir && !has_postgres(l->bindir)))
		goto fail;
	l->pg_config = strdup(pg_config);
	if (l->pg_config == NULL)
		goto fail;
	return 0;
fail:
	pgsc_pg_layout_clear(l);
	return -ENOENT;
}

/* pg_config in PATH, as execvp would find it: a malloc'd path or NULL. */
static char *
in_path(void)
{
	const char *path = getenv("PATH"), *p, *e;

	for (p = path; p != NULL && *p != '\0'; p = *e ? e + 1 : e) {
		char *cand;

		e = strchr(p, ':');
		if (e == NULL)
			e = p + strlen(p);
		if (e == p)     /* an empty entry: the current directory */
			continue;
		if (asprintf(&cand, "%.*s/pg_config", (int)(e - p), p) < 0)
			return NULL;
		if (access(cand, X_OK) == 0)
			return cand;
		free(cand);
	}
	return NULL;
}

static int
version_desc(const void *a, const void *b)
{
	double x = strtod(*(char *const *)a, NULL);
	double y = strtod(*(char *const *)b, NULL);

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The NN of every DIR/PREFIXNN holding bin/postgres, newest first:
 * "DIR/PREFIXNN/bin" paths in @out.  Returns their number or -ENOMEM. */
static int
layout_dirs(const char *dir, const char *prefix, char **out, size_t max)
{
	char *ver[ROOTS_MAX];
	size_t n = 0, pl = strlen(prefix);
	DIR *dh = opendir(dir);
	struct dirent *de;
	int rc = 0;

	if (dh == NULL)
		return 0;
	while ((de = readdir(dh)) != NULL && n < ROOTS_MAX && n < max) {
		const char *v = de->d_name + pl;

		if (strncmp(de->d_name, prefix, pl) != 0 || *v < '0' ||
		    *v > '9' || strspn(v, "0123456789.") != strlen(v))
			continue;
		ver[n] = strdup(v);
		if (ver[n] == NULL) {
			rc = -ENOMEM;
			goto out;
		}
		n++;
	}
	qsort(ver, n, sizeof(*ver), version_desc);
	for (size_t i = 0; i < n; i++) {
		char *bin;

		if (asprintf(&bin, "%s/%s%s/bin", dir, prefix, ver[i]) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		if (!has_postgres(bin)) {
			free(bin);
			continue;
		}
		out[rc++] = bin;
	}
out:
	for (size_t i = 0; i < n; i++)
		free(ver[i]);
	closedir(dh);
	return rc;
}

/* @bin (a layout's bindir, taken) as @l: its pg_config when it answers,
 * else BINDIR and BINDIR/../lib. */
static int
from_dir(char *bin, const char *how, struct pgsc_pg_layout *l)
{
	char *pgc, *slash;

	if (asprintf(&pgc, "%s/pg_config", bin) < 0) {
		free(bin);
		return -ENOMEM;
	}
	if (access(pgc, X_OK) == 0 && from_pg_config(pgc, 0, l) == 0) {
		free(pgc);
		free(bin);
		l->how = how;
		return 0;
	}
	free(pgc);
	slash = strrchr(bin, '/');
	*slash = '\0';
	if (asprintf(&l->pkglibdir, "%s/lib", bin) < 0) {
		free(bin);
		return -ENOMEM;
	}
	*slash = '/';
	l->bindir = bin;
	l->how = how;
	return 0;
}

void
pgsc_pg_layout_clear(struct pgsc_pg_layout *l)
{
	if (l == NULL)
		return;
	free(l->pg_config);
	free(l->bindir);
	free(l->pkglibdir);
	memset(l, 0, sizeof(*l));
}

int
pgsc_pg_layout_find(const char *pg_config, struct pgsc_pg_layout *out,
		    char **cause)
{
	static const struct {
		const char *dir, *prefix, *how;
	} layouts[] = {
		{ "/usr/lib/postgresql", "", "Debian" },
		{ "/usr", "pgsql-", "PGDG" },
	};
	const char *how = "--pg-config";
	char *found;

	memset(out, 0, sizeof(*out));
	if (pg_config == NULL || pg_config[0] == '\0') {
		pg_config = getenv("PG_CONFIG");
		how = "PG_CONFIG";
	}
	if (pg_config != NULL && pg_config[0] != '\0') {
		if (from_pg_config(pg_config, 1, out) < 0) {
			util_cause(cause, "%s %s: --bindir and --pkglibdir "
				   "did not both answer a path", how,
				   pg_config);
			return -ENOENT;
		}
		out->how = how;
		return 0;
	}
	found = in_path();
	if (found != NULL) {
		int rc = from_pg_config(found, 0, out);

		free(found);
		if (rc == 0) {
			out->how = "PATH";
			return 0;
		}
	}
	for (size_t k = 0; k < sizeof(layouts) / sizeof(layouts[0]); k++) {
		char *bins[ROOTS_MAX];
		int n = layout_dirs(layouts[k].dir, layouts[k].prefix, bins,
				    ROOTS_MAX);

		if (n < 0)
			return n;
		if (n == 0)
			continue;
		for (int i = 1; i < n; i++)
			free(bins[i]);
		return from_dir(bins[0], layouts[k].how, out);
	}
	util_cause(cause, "no PostgreSQL server found: no --pg-config or "
		   "PG_CONFIG, no pg_config in PATH whose bindir holds "
		   "postgres, no /usr/lib/postgresql/NN/bin/postgres "
		   "(Debian), no /usr/pgsql-NN/bin/postgres (PGDG)");
	return -ENOENT;
}
