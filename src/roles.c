/* SPDX-License-Identifier: PostgreSQL */
/* roles.c - the roles a process can have, in one place (docs/roles.md):
 * their names, which of them are the server's, the descendant rule, the
 * session presets, PostgreSQL 15 to 18's backend types and the order
 * roles are shown in.  The process tree gives roles, the store keeps
 * them, the report sorts them into lists; all three ask here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "roles.h"

#define DESC_PREFIX PGSC_ROLE_DESCENDANT "/"
#define DESC_LEN (sizeof(DESC_PREFIX) - 1)

/* Session presets, see docs/roles.md.  Each role brings its descendants.
 * PostgreSQL 18's dead-end client backend is in none: it never runs a
 * session (docs/roles.md §5). */
static const char *const preset_client[] = {
	"client backend", "walsender", PGSC_ROLE_BACKEND_UNKNOWN, NULL,
};
static const char *const preset_pgseccomp[] = {
	"client backend", "walsender", NULL,
};
static const char *const preset_rfc[] = {
	"client backend", "walsender", PGSC_ROLE_BACKEND_UNKNOWN,
	"slotsync worker", "autovacuum launcher", "background worker",
	"logical replication launcher", "logical replication worker",
	"logical replication apply worker",
	"logical replication tablesync worker",
	"logical replication parallel worker", "parallel worker", NULL,
};

/*
 * The roles pgsc can name without a store: PostgreSQL 15 to 18's backend
 * types (GetBackendTypeDesc() and the bgw_type of its own background
 * workers) as pgsc_title_role() and the --pg-log hint give them, and
 * "backend".
 * A background worker of an extension logs its own bgw_type: such a name
 * is known once the store holds it (report_roles_known()).
 */
static const char *const known_roles[] = {
	"client backend", "walsender", PGSC_ROLE_BACKEND_UNKNOWN,
	"autovacuum launcher", "autovacuum worker", "background worker",
	"background writer", "checkpointer", "walwriter", "walreceiver",
	"archiver", "startup", "logger", "stats collector",
	"logical replication launcher", "logical replication worker",
	"logical replication apply worker",
	"logical replication tablesync worker",
	"logical replication parallel worker", "parallel worker",
	"walsummarizer", "slotsync worker", "io worker",
	"dead-end client backend", NULL,
};

int
pgsc_role_in_server(const char *role)
{
	if (role == NULL)
		return 0;
	return strcmp(role, PGSC_ROLE_STANDALONE) != 0 &&
	       strcmp(role, PGSC_ROLE_UNRELATED) != 0 &&
	       strcmp(role, PGSC_ROLE_UNATTRIBUTED) != 0 &&
	       strcmp(role, PGSC_ROLE_FOREIGN) != 0;
}

int
roles_is_descendant(const char *role)
{
	return strncmp(role, DESC_PREFIX, DESC_LEN) == 0;
}

const char *
roles_ancestor(const char *role)
{
	return roles_is_descendant(role) ? role + DESC_LEN : role;
}

int
roles_descendant(char *buf, size_t size, const char *role)
{
	int n = snprintf(buf, size, "%s%s", DESC_PREFIX, role);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* A role the stream may still change: a parent's fork record, an exec or
 * a title can come later (docs/roles.md). */
int
roles_provisional(const char *role)
{
	role = roles_ancestor(role);
	return strcmp(role, PGSC_ROLE_UNATTRIBUTED) == 0 ||
	       strcmp(role, PGSC_ROLE_FOREIGN) == 0 ||
	       strcmp(role, PGSC_ROLE_BACKEND_UNKNOWN) == 0 ||
	       strcmp(role, PGSC_ROLE_UNRELATED) == 0;
}

int
roles_known(const char *role)
{
	role = roles_ancestor(role);
	for (size_t i = 0; known_roles[i] != NULL; i++)
		if (strcmp(role, known_roles[i]) == 0)
			return 1;
	return 0;
}

int
roles_session_parse(const char *spec, struct strset *roles, char **cause)
{
	const char *const *preset = NULL;
	char *copy, *tok, *save = NULL;
	int rc = 0;

	if (spec == NULL || strcmp(spec, "client") == 0)
		preset = preset_client;
	else if (strcmp(spec, "pgseccomp") == 0)
		preset = preset_pgseccomp;
	else if (strcmp(spec, "rfc") == 0)
		preset = preset_rfc;
	if (preset != NULL) {
		for (; *preset != NULL; preset++)
			if (strset_add(roles, *preset) < 0)
				return -ENOMEM;
		return 0;
	}
	copy = strdup(spec);
	if (copy == NULL)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		if (*tok == '\0')
			continue;
		if (!pgsc_role_in_server(tok) ||
		    strcmp(tok, PGSC_ROLE_POSTMASTER) == 0) {
			util_cause(cause, "role \"%s\" cannot be in the session "
				   "list (the postmaster and processes outside "
				   "the server never run a session)", tok);
			rc = -EINVAL;
			break;
		}
		if (strset_add(roles, tok) < 0) {
			rc = -ENOMEM;
			break;
		}
	}
	free(copy);
	if (rc == 0 && roles->n == 0) {
		util_cause(cause, "empty --session-roles");
		rc = -EINVAL;
	}
	return rc;
}

int
pgsc_session_roles_check(const char *spec, char **cause)
{
	struct strset s = { 0 };
	int rc = roles_session_parse(spec, &s, cause);

	strset_free(&s);
	return rc;
}

int
roles_in_session(const struct strset *session, const char *role)
{
	if (strset_has(session, role))
		return 1;
	if (roles_is_descendant(role))
		return strset_has(session, roles_ancestor(role));
	return 0;
}

/* The order of a table's columns: the postmaster, client backends and
 * their descendants, the other server roles, their descendants, then the
 * processes outside the server. */
int
roles_rank(const char *role)
{
	if (strcmp(role, PGSC_ROLE_POSTMASTER) == 0)
		return 0;
	if (strcmp(role, "client backend") == 0)
		return 1;
	if (roles_is_descendant(role) &&
	    strcmp(roles_ancestor(role), "client backend") == 0)
		return 2;
	if (!pgsc_role_in_server(role))
		return 9;
	return roles_is_descendant(role) ? 4 : 3;
}

int
roles_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int rx = roles_rank(x), ry = roles_rank(y);

	return rx != ry ? rx - ry : strcmp(x, y);
}
