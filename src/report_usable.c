/* SPDX-License-Identifier: PostgreSQL */
/* report_usable.c - the one rule for "usable": the lists of a
 * range of rounds are worth pasting only when the rounds hold a server's
 * records and neither list is empty; every report format, --per-type,
 * --node, --status, --check-complete, pgsc-diff and the HTML page ask it
 * here, and --check-complete is written here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "store.h"

/* Do rounds before @r->from hold records?  Then a range without any is
 * a proof round's: a run under error that nothing was denied in
 * (tools/pgsc-iterate), a success of the store, not a list. */
static int
earlier_data(const struct rep *r)
{
	struct store_totals t;
	char *why = NULL;
	int rc;

	if (r->from <= 1)
		return 0;
	rc = store_totals(r->st, 1, r->from - 1, &t, &why);
	free(why);
	return rc == 0 && t.records > 0;
}

/* " of node X" for the causes of --node, escaped; "" without. */
static char *
node_words(const struct rep *r)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *m;

	if (r->node == NULL)
		return strdup("");
	m = open_memstream(&buf, &sz);
	if (m == NULL)
		return NULL;
	fputs(" of node ", m);
	report_node_name(m, r->node);
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int
no_records(const struct rep *r, const char *nw, char **cause)
{
	if (earlier_data(r))
		util_cause(cause, "no data: rounds %lld-%lld%s hold no "
			   "SECCOMP record, so the lists are empty (a proof "
			   "round under error that logged nothing is a "
			   "success; its lists are those of the earlier "
			   "rounds: pgsc-report --rounds 1-%lld)",
			   (long long)r->from, (long long)r->to, nw,
			   (long long)r->from - 1);
	else
		util_cause(cause, "no data: rounds %lld-%lld%s hold no "
			   "SECCOMP record, so the lists are empty: collect "
			   "while the server runs under a filter whose "
			   "default action is log (pgsc-exec --default log, "
			   "or the pgsc module with pgsc.default = log)",
			   (long long)r->from, (long long)r->to, nw);
	return 0;
}

static int
no_server(const struct rep *r, const char *nw, char **cause)
{
	if (r->t.foreign == r->t.records) {
		util_cause(cause, "no data: all %llu records of rounds "
			   "%lld-%lld%s are foreign (programs that are not "
			   "the server, run by uids no server ran as, with "
			   "no parent in the stream), so the lists are "
			   "empty: the input holds no record of a PostgreSQL "
			   "server", (unsigned long long)r->t.records,
			   (long long)r->from, (long long)r->to, nw);
		return 0;
	}
	util_cause(cause, "none of the %llu records of rounds %lld-%lld%s "
		   "was attributed to a PostgreSQL server (%llu unattributed, "
		   "%llu foreign, %llu unrelated, %llu standalone), so the "
		   "lists are empty: load the rules examples/pgsc.rules "
		   "(auditctl -R) while collecting, or import the log into "
		   "a new store with the hints --postmaster-pid PID or "
		   "--pg-log FILE", (unsigned long long)r->t.records,
		   (long long)r->from, (long long)r->to, nw,
		   (unsigned long long)r->t.unattributed,
		   (unsigned long long)r->t.foreign,
		   (unsigned long long)r->t.unrelated,
		   (unsigned long long)r->t.standalone);
	return 0;
}

/*
 * Are the lists of @r worth pasting?  Not when the rounds hold no record,
 * or none of a server's: the lists are empty.  Not when a list is empty
 * (an empty session list under error stops every backend).  Not when more
 * than half of the records that could be a server's (foreign ones cannot)
 * were not attributed: the missing half is as likely to hold the server's
 * calls.  Returns 1, or 0 with *cause saying what to do.
 */
int
report_usable(const struct rep *r, char **cause)
{
	uint64_t could = r->t.records - r->t.foreign;
	int global = 0, session = 0, ok = 0;
	char *nw = node_words(r);

	if (nw == NULL) {
		util_cause(cause, "out of memory");
		return 0;
	}
	for (size_t i = 0; i < r->n; i++) {
		global |= r->e[i].name != NULL && r->e[i].global;
		session |= r->e[i].name != NULL && r->e[i].session;
	}
	if (r->t.records == 0)
		no_records(r, nw, cause);
	else if (r->t.attributed == 0 || !global)
		no_server(r, nw, cause);
	else if (!session)
		util_cause(cause, "the session list of rounds %lld-%lld%s is "
			   "empty: none of the %llu records attributed to the "
			   "server was made by a process of the session roles "
			   "(--session-roles); under error it would stop "
			   "every session: collect while clients connect",
			   (long long)r->from, (long long)r->to, nw,
			   (unsigned long long)r->t.attributed);
	else if (r->t.unattributed > could / 2)
		util_cause(cause, "%llu of the %llu records of rounds "
			   "%lld-%lld%s that could be a server's (more than "
			   "half; %llu foreign records not counted) could not "
			   "be attributed to a server, so the lists are "
			   "likely incomplete: load the rules "
			   "examples/pgsc.rules (auditctl -R) while "
			   "collecting, or import the log into a new store "
			   "with the hints --postmaster-pid PID or --pg-log "
			   "FILE", (unsigned long long)r->t.unattributed,
			   (unsigned long long)could, (long long)r->from,
			   (long long)r->to, nw,
			   (unsigned long long)r->t.foreign);
	else
		ok = 1;
	free(nw);
	return ok;
}

/* --per-type: usable only when some process had a type of its own. */
int
report_usable_types(const struct rep *r, const struct types *T,
		    char **cause)
{
	if (T->n > 0)
		return 1;
	util_cause(cause, "no data for --per-type: no process of rounds "
		   "%lld-%lld has a backend type (%llu records of backends "
		   "of unknown type), so there is no list per type: load the "
		   "rules examples/pgsc.rules while collecting, or give "
		   "--pg-log (rounds collected with pgsc-collect --args have "
		   "no types: docs/args.md, \"Backend types\")",
		   (long long)r->from, (long long)r->to,
		   (unsigned long long)T->untyped);
	return 0;
}

int
pgsc_check_complete(pgsc_store *st, const struct pgsc_report_opts *opts,
		    FILE *out, char **cause)
{
	struct rep_spec spec = {
		.node = opts->node,
		.range = REP_RANGE_FINISHED,
		.from = opts->round_from,
		.to = opts->round_to,
	};
	struct rep r;
	int rc;

	rc = report_open(st, &spec, &r, cause);
	if (rc == 1) {
		/* no rounds: no data, not an error */
		fprintf(out, "%s\n", *cause);
		report_close(&r);
		return 1;
	}
	if (rc == 0) {
		int missing = report_missing(&r);
		char *why = NULL;
		int usable = report_usable(&r, &why);

		fprintf(out, "rounds %lld-%lld: ", (long long)r.from,
			(long long)r.to);
		report_loss_write(out, &r, 0);
		fprintf(out, ", unattributed %llu of %llu",
			(unsigned long long)r.t.unattributed,
			(unsigned long long)r.t.records);
		if (r.t.foreign > 0)
			fprintf(out, ", foreign %llu",
				(unsigned long long)r.t.foreign);
		fprintf(out, ": %s\n", missing ? "records may be missing"
			: r.t.records == 0 ? "no data"
			: !usable ? "not usable"
			: "complete");
		if (!usable && why != NULL)
			fprintf(out, "%s\n", why);
		free(why);
		rc = missing || !usable;
	}
	report_close(&r);
	return rc;
}
