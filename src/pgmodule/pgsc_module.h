/* SPDX-License-Identifier: PostgreSQL */
/* pgsc_module.h - what the module's files share: the settings' checks,
 * the global and session specs, the filter loader (pgsc_module.c), the
 * filters per backend type (pgsc_types.c) and the session programs the
 * postmaster builds once (pgsc_prebuilt.c). */
#ifndef PGSC_MODULE_H
#define PGSC_MODULE_H

#include "postgres.h"

#include "funcapi.h"
#include "utils/guc.h"

#include "pgsc-int.h"
#include "filter.h"

#define PGSC_GUC_PREFIX "pgsc"

/* The default-action GUCs: enum pgsc_action, and for the session and the
 * types "*" (the default of the filter they fall back to). */
#define DEF_STAR (-1)

extern const struct config_enum_entry pgsc_star_default_options[];
extern const char *const pgsc_action_suffix[4];

/* pgsc_module.c */
bool pgsc_is_star(const char *s);
int pgsc_session_spec_now(struct pgsc_filter_spec *out, char **cause);
char *pgsc_list_problem(const char *value, bool star_ok);
bool pgsc_check_star_list(char **newval, void **extra, GucSource source);
void pgsc_check_values(const char *which, bool star);
void pgsc_global_spec(struct pgsc_filter_spec *spec);
int pgsc_session_spec(int def, char *const *lists,
		      struct pgsc_filter_spec *out, char **cause);
/* A filter's rules, their names pointing into @e. */
struct filter_rules {
	pgsc_effective *e;
	struct filter_rule *r;
	size_t n;
	size_t nrules;          /* of them, those not of the default action */
};
int pgsc_filter_rules(const struct pgsc_filter_spec *spec, const char *what,
		      struct filter_rules *fr, char **cause);
void pgsc_filter_rules_free(struct filter_rules *fr);
void pgsc_filter_cause(enum filter_step step, int rc,
			const struct filter_rules *fr, size_t bad,
			char **cause);
/* PostgreSQL 18 spells "does not return" as a prefix, pg_noreturn
 * (C11 _Noreturn); 15-17 as the attribute pg_attribute_noreturn(). */
#ifdef pg_noreturn
pg_noreturn void pgsc_load_failed(const char *what, int rc, char *cause);
#else
void pgsc_load_failed(const char *what, int rc, char *cause)
	pg_attribute_noreturn();
#endif
const struct filter_unknown *pgsc_known_max_get(void);
const struct filter_unknown *pgsc_unknown_part(void);
void pgsc_put_rows(ReturnSetInfo *rsi, const struct pgsc_filter_spec *spec,
		   const char *context);

/* pgsc_types.c: a filter per backend type (docs/module.md) */
void pgsc_types_define_gucs(void);
bool pgsc_types_known_setting(const char *name);
void pgsc_types_check_values(void);
void pgsc_types_prepare(void);
int pgsc_types_client_spec(struct pgsc_filter_spec *spec, const char **what,
			   char **cause);
void pgsc_types_rows(ReturnSetInfo *rsi);
int pgsc_types_client_nth(size_t i, const struct pgsc_filter_spec *session,
			  struct pgsc_filter_spec *out, const char **what,
			  char **cause);

/* pgsc_prebuilt.c: the session programs built once, in the postmaster */
void pgsc_prebuilt_prepare(void);
int pgsc_prebuilt_load(const struct pgsc_filter_spec *spec, int *n_rules,
		       char **cause);

#endif /* PGSC_MODULE_H */
