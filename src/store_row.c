/* SPDX-License-Identifier: PostgreSQL */
/* store_row.c - the store's rows, each described once: every column's C
 * type and place in its struct (struct store_col), to bind the struct to
 * a statement's parameters or to fill it from a result row.  A table says
 * once which column is which field and how a missing value is written
 * (NULL, '' for a key, -1 or 0 in C); the insert and the select of the
 * same row share it, so the two cannot drift apart.  The statements that
 * use a table list its columns in the table's order. */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "store-int.h"
#include "proctree.h"
#include "store.h"

/* How a column is held in C. */
enum store_col_class {
	COL_INT,		/* an integer of the field's size */
	COL_DBL,		/* double */
	COL_TEXT,		/* const char * */
	COL_BUF,		/* char[size], copied */
};

/* How a missing value is written; what a NULL reads as. */
#define COL_SIGNED	0x01	/* the integer is signed */
#define COL_NEG_NULL	0x02	/* negative is NULL, NULL is -1 */
#define COL_ZERO_NULL	0x04	/* 0 is NULL (and NULL 0) */
#define COL_KEY		0x08	/* text in a key: NULL is '', '' is NULL */

struct store_col {
	enum store_col_class cls;
	unsigned flags;
	size_t off, size;
};

#define COL(cls, flags, type, field) \
	{ (cls), (flags), offsetof(type, field), sizeof(((type *)0)->field) }
#define I64(type, field)	COL(COL_INT, COL_SIGNED, type, field)
#define I64_OPT(type, field) \
	COL(COL_INT, COL_SIGNED | COL_NEG_NULL, type, field)
#define U64(type, field)	COL(COL_INT, 0, type, field)
#define U64_OPT(type, field)	COL(COL_INT, COL_ZERO_NULL, type, field)
#define I32(type, field)	COL(COL_INT, COL_SIGNED, type, field)
#define U32(type, field)	COL(COL_INT, 0, type, field)
#define DBL(type, field)	COL(COL_DBL, 0, type, field)
#define TEXT(type, field)	COL(COL_TEXT, 0, type, field)
#define NODE(type, field)	COL(COL_TEXT, COL_KEY, type, field)
#define BUF(type, field)	COL(COL_BUF, 0, type, field)

/*
 * The tables, a line for a few columns as the statements list them.  An
 * aggregate: ?2.. of the insert (?1 the round), and the selects.
 */
#define R struct role_agg
static const struct store_col agg_cols[] = {
	TEXT(R, role), U32(R, arch), I32(R, nr), U64(R, count),
	DBL(R, first), DBL(R, last),		/* first_seen, last_seen */
	I64(R, example_pid), TEXT(R, example_exe), NODE(R, node),
};
#undef R

/* A process: its identity and parent, what it ran, its role and counts. */
#define R struct proc_info
static const struct store_col proc_cols[] = {
	I64(R, pid), DBL(R, birth), U64_OPT(R, birth_serial),
	I64_OPT(R, ppid), I32(R, parent_known), DBL(R, last),
	TEXT(R, exe), TEXT(R, comm), TEXT(R, title), TEXT(R, role),
	U64(R, records), I32(R, exited), I64_OPT(R, uid), NODE(R, node),
};
#undef R

/* An open count: a process's syscall not folded into the aggregates. */
#define R struct proc_count
static const struct store_col count_cols[] = {
	I64(R, pid), DBL(R, birth), TEXT(R, role),
	U32(R, arch), I32(R, nr), I32(R, pending), U64(R, count),
	DBL(R, first), DBL(R, last), NODE(R, node),
};
#undef R

/* A role's sums over a range of rounds (selected only). */
#define R struct store_role_row
static const struct store_col role_cols[] = {
	TEXT(R, role), U32(R, arch), I32(R, nr), U64(R, count),
	I64(R, first_round), I64(R, example_pid), TEXT(R, example_exe),
	TEXT(R, node),
};
#undef R

/* An aggregate as --explain reads it (selected only). */
#define R struct store_explain_row
static const struct store_col explain_cols[] = {
	TEXT(R, role), U32(R, arch), I32(R, nr), I64(R, round),
	TEXT(R, label), I64(R, example_pid), TEXT(R, example_exe),
	TEXT(R, comm), TEXT(R, title),
};
#undef R

/* A source: where an input was read to (its path and keys apart). */
#define R struct store_source
static const struct store_col source_cols[] = {
	U64(R, inode), U64(R, offset), U64(R, lines), BUF(R, prefix_hash),
	U64(R, last_serial), DBL(R, last_event), U64(R, head_len),
	BUF(R, head_hash),
};
#undef R

/* A round: the counters and tallies of every round, then what only a
 * live round counts. */
#define R struct store_round
static const struct store_col round_cols[] = {
	U64(R, records), U64(R, rejected), U64(R, lines),
	DBL(R, first_event), DBL(R, last_event),
	U64(R, attributed), U64(R, unrelated), U64(R, standalone),
	U64(R, unattributed),
};
static const struct store_col round_gap_cols[] = {
	U64(R, serial_gaps), U64(R, rotation_gaps), U64(R, drain_timeouts),
};
#undef R

static const struct {
	const struct store_col *c;
	size_t n, size;
} rows[] = {
#define ROW(kind, cols, type) [kind] = { cols, ARRAY_SIZE(cols), sizeof(type) }
	ROW(STORE_ROW_AGG, agg_cols, struct role_agg),
	ROW(STORE_ROW_PROC, proc_cols, struct proc_info),
	ROW(STORE_ROW_COUNT, count_cols, struct proc_count),
	ROW(STORE_ROW_ROLE, role_cols, struct store_role_row),
	ROW(STORE_ROW_EXPLAIN, explain_cols, struct store_explain_row),
	ROW(STORE_ROW_SOURCE, source_cols, struct store_source),
	ROW(STORE_ROW_ROUND, round_cols, struct store_round),
	ROW(STORE_ROW_ROUND_GAPS, round_gap_cols, struct store_round),
#undef ROW
};

/* Does the field of @c fit its class?  A table that says no is a bug. */
static int
col_ok(const struct store_col *c)
{
	switch (c->cls) {
	case COL_INT:
		return c->size == sizeof(int32_t) || c->size == sizeof(int64_t);
	case COL_DBL:
		return c->size == sizeof(double);
	case COL_TEXT:
		return c->size == sizeof(const char *);
	case COL_BUF:
		return c->size > 0;
	}
	return 0;
}

/* The columns of @kind, checked against the struct the caller passes. */
static const struct store_col *
row_cols(enum store_row kind, size_t size, size_t *n)
{
	assert((size_t)kind < ARRAY_SIZE(rows) && rows[kind].size == size);
	for (size_t k = 0; k < rows[kind].n; k++)
		assert(col_ok(&rows[kind].c[k]));
	(void)size;
	(void)col_ok;
	*n = rows[kind].n;
	return rows[kind].c;
}

/* The integer at @f, of @c's size and sign. */
static int64_t
int_load(const struct store_col *c, const void *f)
{
	if (c->size == sizeof(int32_t) && (c->flags & COL_SIGNED))
		return *(const int32_t *)f;
	if (c->size == sizeof(int32_t))
		return *(const uint32_t *)f;
	assert(c->size == sizeof(int64_t));
	return *(const int64_t *)f;	/* a uint64_t as SQLite keeps it */
}

static void
int_store(const struct store_col *c, void *f, int64_t v)
{
	if (c->size == sizeof(int32_t))
		*(int32_t *)f = (int32_t)v;
	else
		*(int64_t *)f = v;
}

static void
bind_cols(sqlite3_stmt *s, int first, const struct store_col *c, size_t n,
	  const char *row)
{
	for (size_t k = 0; k < n; k++) {
		const void *f = row + c[k].off;
		int i = first + (int)k;
		int64_t v;
		const char *t;

		switch (c[k].cls) {
		case COL_INT:
			v = int_load(&c[k], f);
			if (((c[k].flags & COL_NEG_NULL) && v < 0) ||
			    ((c[k].flags & COL_ZERO_NULL) && v == 0))
				sqlite3_bind_null(s, i);
			else
				sqlite3_bind_int64(s, i, v);
			break;
		case COL_DBL:
			sqlite3_bind_double(s, i, *(const double *)f);
			break;
		case COL_TEXT:
			t = *(const char *const *)f;
			store_bind_text_as(s, i, t == NULL &&
					   (c[k].flags & COL_KEY) ? "" : t,
					   SQLITE_STATIC);
			break;
		case COL_BUF:
			sqlite3_bind_text(s, i, f, (int)strnlen(f, c[k].size),
					  SQLITE_STATIC);
			break;
		}
	}
}

static void
read_cols(sqlite3_stmt *s, int first, const struct store_col *c, size_t n,
	  char *row)
{
	for (size_t k = 0; k < n; k++) {
		void *f = row + c[k].off;
		int i = first + (int)k;
		int null = sqlite3_column_type(s, i) == SQLITE_NULL;
		const char *t = NULL;

		if (c[k].cls == COL_TEXT || c[k].cls == COL_BUF)
			t = (const char *)sqlite3_column_text(s, i);
		switch (c[k].cls) {
		case COL_INT:
			int_store(&c[k], f, null && (c[k].flags & COL_NEG_NULL)
				  ? -1 : sqlite3_column_int64(s, i));
			break;
		case COL_DBL:
			*(double *)f = sqlite3_column_double(s, i);
			break;
		case COL_TEXT:
			if (t != NULL && *t == '\0' && (c[k].flags & COL_KEY))
				t = NULL;
			*(const char **)f = t;
			break;
		case COL_BUF:
			snprintf(f, c[k].size, "%s", t ? t : "");
			break;
		}
	}
}

/**
 * Bind the columns of @row, a row of @kind (@size its struct's size), to
 * the parameters @first, @first + 1, ... of @s.  Text is not copied
 * (SQLITE_STATIC: a live commit binds hundreds of thousands of rows, and
 * the copies were a tenth of each row's update): @row and the strings it
 * points to must stay as they are until @s is stepped, and every use of
 * @s binds them again.
 */
void
store_bind_row(sqlite3_stmt *s, int first, enum store_row kind,
	       const void *row, size_t size)
{
	size_t n;
	const struct store_col *c = row_cols(kind, size, &n);

	bind_cols(s, first, c, n, row);
}

/**
 * Fill @row, a row of @kind (@size its struct's size), from the result
 * columns @first, @first + 1, ... of @s.  Text points into @s and lives
 * until its next step (a buffer is copied, cut to its size).
 */
void
store_read_row(sqlite3_stmt *s, int first, enum store_row kind, void *row,
	       size_t size)
{
	size_t n;
	const struct store_col *c = row_cols(kind, size, &n);

	read_cols(s, first, c, n, row);
}

/**
 * Hand the rows of @s, rows of @kind from its column 0, to the callback
 * of @cb for @kind, one by one; a row without a role (aggregates, open
 * counts, role sums) is passed over.  Finalizes @s.  Returns 0, the
 * callback's nonzero result, or a negative errno with a cause.
 */
int
store_rows_each(pgsc_store *st, sqlite3_stmt *s, enum store_row kind,
		union store_row_cb cb, void *arg, char **cause)
{
	union {
		struct role_agg a;
		struct proc_info p;
		struct proc_count c;
		struct store_role_row w;
		struct store_explain_row x;
	} r;
	int rc;

	assert((size_t)kind < ARRAY_SIZE(rows) && rows[kind].size <= sizeof(r));
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		memset(&r, 0, sizeof(r));
		read_cols(s, 0, rows[kind].c, rows[kind].n, (char *)&r);
		switch (kind) {
		case STORE_ROW_AGG:
			rc = r.a.role ? cb.agg(arg, &r.a) : 0;
			break;
		case STORE_ROW_PROC:
			rc = cb.proc(arg, &r.p);
			break;
		case STORE_ROW_COUNT:
			rc = r.c.role ? cb.count(arg, &r.c) : 0;
			break;
		case STORE_ROW_ROLE:
			rc = r.w.role ? cb.role(arg, &r.w) : 0;
			break;
		case STORE_ROW_EXPLAIN:
			rc = r.x.role ? cb.explain(arg, &r.x) : 0;
			break;
		case STORE_ROW_SOURCE:
		case STORE_ROW_ROUND:
		case STORE_ROW_ROUND_GAPS:
			assert(!"a row kind without a callback");
			rc = -EINVAL;
			break;
		}
		if (rc != 0)
			break;
	}
	return store_rows_end(st, s, rc, cause);
}

/* store_rows_each() over @sql, whose ?1 is a round id, with @round bound. */
int
store_round_rows(pgsc_store *st, const char *sql, int64_t round,
		 enum store_row kind, union store_row_cb cb, void *arg,
		 char **cause)
{
	sqlite3_stmt *s;
	int rc = store_prep_round(st, sql, round, &s, cause);

	if (rc < 0)
		return rc;
	return store_rows_each(st, s, kind, cb, arg, cause);
}
