/* SPDX-License-Identifier: PostgreSQL */
/* store_args.c - the arg_values table (schemas/010_arg_values.sql): the
 * argument values of a round written with its commit, and read by
 * pgsc-report --args (report_args.c). */
#include <string.h>

#include "store-int.h"

/*
 * Write the role tables' values of round @round.  A live round commits
 * the same cumulative table again and again, so a row keeps the largest
 * count; a continued round (another run) keeps the values its earlier
 * runs wrote (docs/args.md).  0 or a negative errno.
 */
int
store_args_write(pgsc_store *st, int64_t round, const struct args_tab *tab,
		 char **cause)
{
	sqlite3_stmt *s;
	int rc;

	if (tab == NULL || tab->n == 0)
		return 0;
	rc = store_prep(st, "INSERT INTO arg_values (round_id, role, arch, nr, "
			"args, vals, count) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
			"ON CONFLICT (round_id, role, arch, nr, args, vals) "
			"DO UPDATE SET count = max(count, ?7)", &s, cause);
	if (rc < 0)
		return rc;
	for (size_t i = 0; rc == 0 && i < tab->n; i++) {
		const struct args_obs *o = &tab->e[i];
		const char *key = args_key(pgsc_syscall_name(o->arch, o->nr));
		char vals[ARGS_VALS_MAX];

		if (key == NULL || o->role == NULL)
			continue;
		args_vals_text(o, vals);
		sqlite3_bind_int64(s, 1, round);
		sqlite3_bind_text(s, 2, o->role, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 3, (int64_t)o->arch);
		sqlite3_bind_int64(s, 4, o->nr);
		sqlite3_bind_text(s, 5, key, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s, 6, vals, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 7, (int64_t)o->count);
		rc = store_step_done(st, s, cause);
	}
	sqlite3_finalize(s);
	return rc;
}

/*
 * The values of rounds @from..@to, summed over the rounds, to @cb: role,
 * arch, number, key and values as stored (untrusted: the caller checks
 * them), count.  0 or a negative errno (also @cb's).
 */
int
store_args_each(pgsc_store *st, int64_t from, int64_t to,
		int (*cb)(void *arg, const char *role, uint32_t arch,
			  int32_t nr, const char *key, const char *vals,
			  uint64_t count),
		void *arg, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	rc = store_prep(st, "SELECT role, arch, nr, args, vals, sum(count) "
			"FROM arg_values WHERE round_id BETWEEN ?1 AND ?2 "
			"GROUP BY role, arch, nr, args, vals "
			"ORDER BY arch, nr, args, vals, role", &s, cause);
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(s, 1, from);
	sqlite3_bind_int64(s, 2, to);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *role = (const char *)sqlite3_column_text(s, 0);
		const char *key = (const char *)sqlite3_column_text(s, 3);
		const char *vals = (const char *)sqlite3_column_text(s, 4);
		int64_t arch = sqlite3_column_int64(s, 1);
		int64_t nr = sqlite3_column_int64(s, 2);
		int64_t n = sqlite3_column_int64(s, 5);

		if (role == NULL || key == NULL || vals == NULL || arch < 0 ||
		    arch > UINT32_MAX || nr < INT32_MIN || nr > INT32_MAX)
			continue;
		rc = cb(arg, role, (uint32_t)arch, (int32_t)nr, key, vals,
			n < 0 ? 0 : (uint64_t)n);
		if (rc < 0)
			break;
	}
	return store_rows_end(st, s, rc, cause);
}
