/* SPDX-License-Identifier: PostgreSQL */
/* scanjson.c - pgsc-scan's output: the JSON document (schema in
 * docs/static.md) and the text summary; pgsc_scan(). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "scan.h"

static const char *
kind_name(enum scan_kind k)
{
	switch (k) {
	case SCAN_EXE: return "server";
	case SCAN_MODULE: return "module";
	case SCAN_LIB: return "library";
	case SCAN_INTERP: return "loader";
	}
	return "?";
}

static void
jstr(FILE *out, const char *s)
{
	fputc('"', out);
	pgsc_json_escape(out, s);
	fputc('"', out);
}

static const char *
phase_name(const struct scan_cand *c)
{
	if (c->postmaster < 0)
		return "unknown";
	if (c->postmaster && c->children)
		return "both";
	if (c->postmaster)
		return "postmaster";
	if (c->children)
		return "children";
	return "neither";
}

int
scanjson_write(const struct scan *s, FILE *out)
{
	const struct scan_obj *const *objs;
	const struct scan_cand *c;
	struct scan_stats st;
	size_t n, nobj;

	scangraph_get_stats(s, &st);
	nobj = scangraph_objects(s, &objs);
	n = scangraph_candidates(s, &c);
	fputs("{\n  \"pgsc_scan\": 1,\n  \"arch\": \"x86_64\",\n  \"server\": ",
	      out);
	jstr(out, objs[0]->path);
	fprintf(out, ",\n  \"indirect\": \"%s\",\n",
		scangraph_indirect(s) ? "address-taken" : "none");
	fprintf(out, "  \"phases\": %s,\n", st.phases ? "true" : "false");
	fprintf(out, "  \"stats\": {\"objects\": %zu, \"modules\": %zu, "
		"\"libraries\": %zu, \"functions\": %zu, \"reached\": %zu, "
		"\"instructions\": %llu, \"syscall_sites\": %llu, "
		"\"unresolved_sites\": %llu, \"unresolved_reached\": %llu, "
		"\"indirect_sites\": %llu, \"undecoded_bytes\": %llu, "
		"\"unresolved_syscall_calls\": %llu, \"candidates\": %zu},\n",
		st.objects, st.modules, st.libs, st.funcs, st.reached,
		(unsigned long long)st.insns, (unsigned long long)st.sites,
		(unsigned long long)st.unresolved_sites,
		(unsigned long long)st.unresolved_reached,
		(unsigned long long)st.indirect_sites,
		(unsigned long long)st.bad_bytes,
		(unsigned long long)st.unresolved_calls, n);
	fputs("  \"objects\": [\n", out);
	for (size_t i = 0; i < nobj; i++) {
		const struct scan_obj *o = objs[i];
		uint64_t unres = 0;

		for (size_t k = 0; k < o->nfuncs; k++)
			unres += o->funcs[k].unresolved;
		fputs("    {\"path\": ", out);
		jstr(out, o->path);
		fprintf(out, ", \"kind\": \"%s\", \"functions\": %zu, "
			"\"syscall_sites\": %llu, \"unresolved_sites\": %llu}%s\n",
			kind_name(o->kind), o->nfuncs,
			(unsigned long long)o->sites,
			(unsigned long long)unres, i + 1 < nobj ? "," : "");
	}
	fputs("  ],\n  \"skipped\": [", out);
	{
		const char *const *sk;
		size_t nsk = scangraph_skipped(s, &sk);

		for (size_t i = 0; i < nsk; i++) {
			fputs(i ? ", " : "", out);
			jstr(out, sk[i]);
		}
	}
	fputs("],\n  \"candidates\": [\n", out);
	for (size_t i = 0; i < n; i++) {
		fputs("    {\"name\": ", out);
		jstr(out, c[i].name);
		fprintf(out, ", \"nr\": %d, \"phase\": \"%s\", \"chain\": [",
			c[i].nr, phase_name(&c[i]));
		for (size_t k = 0; k < c[i].nchain; k++) {
			if (k)
				fputs(", ", out);
			jstr(out, c[i].chain[k]);
		}
		fprintf(out, "]}%s\n", i + 1 < n ? "," : "");
	}
	/* where the number is not known: a syscall the scan cannot name */
	fputs("  ],\n  \"unresolved\": [", out);
	n = 0;
	for (size_t i = 0; i < nobj; i++) {
		const struct scan_obj *o = objs[i];

		for (size_t k = 0; k < o->nfuncs; k++) {
			const struct scan_func *f = &o->funcs[k];
			unsigned calls = scangraph_func_unknown_calls(s, i, k);
			char addr[32];

			if (f->unresolved == 0 && calls == 0)
				continue;
			snprintf(addr, sizeof(addr), "0x%llx",
				 (unsigned long long)f->addr);
			fputs(n++ ? ",\n    {\"function\": \"" : "\n    {\"function\": \"",
			      out);
			pgsc_json_escape(out, o->base);
			fputc(':', out);
			pgsc_json_escape(out, f->name ? f->name : addr);
			fprintf(out, "\", \"sites\": %u, \"syscall_calls\": %u, "
				"\"reached\": %s}", f->unresolved, calls,
				scangraph_func_reached(s, i, k) ? "true" : "false");
		}
	}
	fputs(n ? "\n  ]\n}\n" : "]\n}\n", out);
	return ferror(out) ? -EIO : 0;
}

int
scanjson_text_write(const struct scan *s, FILE *out)
{
	const struct scan_obj *const *objs;
	const struct scan_cand *c;
	struct scan_stats st;
	size_t n, pm_only = 0, ch_only = 0;

	scangraph_get_stats(s, &st);
	scangraph_objects(s, &objs);
	n = scangraph_candidates(s, &c);
	fputs("# pgsc-scan of ", out);
	pgsc_text_escape(out, objs[0]->path);
	fprintf(out, " (x86_64, indirect calls: %s)\n",
		scangraph_indirect(s) ? "address-taken" : "none");
	fprintf(out, "# %zu objects (%zu modules, %zu libraries and the "
		"loader), %zu functions, %zu reached, %llu instructions\n",
		st.objects, st.modules, st.libs, st.funcs, st.reached,
		(unsigned long long)st.insns);
	fprintf(out, "# syscall sites: %llu, number unknown: %llu (%llu in "
		"reached functions); reached syscall(2) calls with an unknown "
		"number: %llu; indirect calls/jumps: %llu\n",
		(unsigned long long)st.sites,
		(unsigned long long)st.unresolved_sites,
		(unsigned long long)st.unresolved_reached,
		(unsigned long long)st.unresolved_calls,
		(unsigned long long)st.indirect_sites);
	for (size_t i = 0; i < n; i++) {
		if (c[i].postmaster == 1 && c[i].children == 0)
			pm_only++;
		if (c[i].postmaster == 0 && c[i].children == 1)
			ch_only++;
	}
	{
		const char *const *sk;
		size_t nsk = scangraph_skipped(s, &sk);

		for (size_t i = 0; i < nsk; i++) {
			fputs("# skipped: ", out);
			pgsc_text_escape(out, sk[i]);
			fputc('\n', out);
		}
	}
	fprintf(out, "# candidates: %zu", n);
	if (st.phases)
		fprintf(out, " (postmaster only: %zu, children only: %zu)",
			pm_only, ch_only);
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%-24s %-10s ", c[i].name, phase_name(&c[i]));
		for (size_t k = 0; k < c[i].nchain; k++) {
			if (k)
				fputs(" <- ", out);
			pgsc_text_escape(out, c[i].chain[k]);
		}
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

int
pgsc_scan(const struct pgsc_scan_opts *opts, enum pgsc_scan_format format,
	  FILE *out, char **cause)
{
	struct scan *s;
	int rc;

	rc = scangraph_run(opts, &s, cause);
	if (rc < 0)
		return rc;
	rc = format == PGSC_SCAN_JSON ? scanjson_write(s, out)
				      : scanjson_text_write(s, out);
	if (rc < 0)
		util_cause(cause, "write: %s", strerror(-rc));
	scangraph_free(s);
	return rc;
}
