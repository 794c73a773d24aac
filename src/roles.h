/* SPDX-License-Identifier: PostgreSQL */
/* roles.h - role names, the descendant rule, session presets, rank
 * (roles.c). */
#ifndef PGSC_ROLES_H
#define PGSC_ROLES_H

#include "pgsc-int.h"

/* roles.c - role names, the descendant rule, session presets, rank. */
int roles_is_descendant(const char *role);
/* The role a descendant's role names ("descendant/walsender" -> walsender). */
const char *roles_ancestor(const char *role);
/* "descendant/@role" into @buf, or -ENAMETOOLONG. */
int roles_descendant(char *buf, size_t size, const char *role);
int roles_provisional(const char *role);
/* A PostgreSQL 15 backend type pgsc can name without a store. */
int roles_known(const char *role);
int roles_in_session(const struct strset *session, const char *role);
int roles_rank(const char *role);
int roles_cmp(const void *a, const void *b);   /* qsort of const char * */

/* The roles of a --session-roles spec (a preset or a list) into @roles. */
int roles_session_parse(const char *spec, struct strset *roles,
			 char **cause);

#endif
