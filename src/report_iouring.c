/* SPDX-License-Identifier: PostgreSQL */
/* report_iouring.c - io_uring in the report: the io_uring calls the
 * rounds saw, the io_method the store tells, and the warning that I/O
 * through a ring is invisible to seccomp (text, JSON member, HTML). */
/*
 * A read or a write submitted through an io_uring ring is not a syscall:
 * a seccomp filter neither sees nor stops it, and a list recorded under
 * io_uring lacks it (docs/io_uring.md).  PostgreSQL 18 with io_method =
 * io_uring makes its rings in the postmaster (pgaio_uring_shmem_init(),
 * method_io_uring.c) and its processes only enter them; with io_method =
 * worker (the default) the reads and writes are done by "io worker"
 * processes with ordinary syscalls.  Only the server's roles count: a
 * process outside the server is in no list.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "roles.h"

static const char *const calls[IOURING_NCALLS] = {
	"io_uring_setup", "io_uring_enter", "io_uring_register",
};

static int
call_index(const char *name)
{
	for (int i = 0; i < IOURING_NCALLS; i++)
		if (strcmp(name, calls[i]) == 0)
			return i;
	return -1;
}

/* What the rounds of @r saw of io_uring, into @io. */
void
report_iouring_scan(const struct rep *r, struct iouring *io)
{
	memset(io, 0, sizeof(*io));
	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];
		int c = e->name != NULL ? call_index(e->name) : -1;

		for (size_t k = 0; k < e->nrc; k++) {
			const char *role = e->rc[k].role;

			if (!pgsc_role_in_server(role) || e->rc[k].count == 0)
				continue;
			if (strcmp(roles_ancestor(role), "io worker") == 0)
				io->io_workers = 1;
			if (c < 0)
				continue;
			io->calls[c] += e->rc[k].count;
			if (c == 0 && strcmp(role, PGSC_ROLE_POSTMASTER) != 0)
				io->setup_outside += e->rc[k].count;
		}
	}
}

/* Did the rounds of @io see any io_uring call of the server's? */
int
report_iouring_seen(const struct iouring *io)
{
	return io->calls[0] || io->calls[1] || io->calls[2];
}

/*
 * The io_method the server ran, as far as the store tells, and in *@why
 * (when not NULL) the reason: a ring the postmaster made is PostgreSQL
 * 18's io_uring; io workers are its worker method (a ring then is an
 * extension's or a library's); rings without io workers are io_uring
 * too (the postmaster may have made them before the rounds began);
 * neither is sync, or a server before PostgreSQL 18.
 */
static const char *
method_of(const struct iouring *io, const char **why)
{
	static const struct { const char *method, *why; } m[] = {
		{ "io_uring", "the postmaster made a ring, as PostgreSQL 18 "
			      "does with io_method = io_uring" },
		{ "worker", "io worker processes were seen; the rings are "
			    "not PostgreSQL's own (an extension or a library)" },
		{ "io_uring", "rings were used and no io worker was seen" },
		{ "unknown", "no ring and no io worker seen: sync, or a "
			     "server before PostgreSQL 18" },
	};
	size_t k = io->calls[0] > io->setup_outside ? 0 :
		   io->io_workers ? 1 :
		   report_iouring_seen(io) ? 2 : 3;

	if (why != NULL)
		*why = m[k].why;
	return m[k].method;
}

const char *
report_iouring_method(const struct iouring *io)
{
	return method_of(io, NULL);
}

/*
 * The warning's sentence, without a lead, on @out; nothing when the
 * rounds saw no io_uring call.  The names and figures are pgsc's own:
 * nothing here needs escaping.
 */
void
report_iouring_sentence(FILE *out, const struct iouring *io)
{
	const char *why, *method = method_of(io, &why);
	int first = 1;

	if (!report_iouring_seen(io))
		return;
	fputs("the rounds saw ", out);
	for (int i = 0; i < IOURING_NCALLS; i++) {
		if (io->calls[i] == 0)
			continue;
		fprintf(out, "%s%s (%llu)", first ? "" : ", ", calls[i],
			(unsigned long long)io->calls[i]);
		first = 0;
	}
	fprintf(out, ": reads and writes submitted through an io_uring ring "
		"are not syscalls, seccomp neither sees nor stops them, and "
		"these lists do not hold them; io_method: %s (%s)",
		method, why);
	if (io->setup_outside > 0)
		fprintf(out, "; %llu io_uring_setup outside the postmaster, "
			"left out of the per-type lists",
			(unsigned long long)io->setup_outside);
	fputs("; docs/io_uring.md", out);
}

/* The sentence as a string in *@text (the caller frees it), NULL when
 * the rounds of @r saw no io_uring call.  Returns 0 or -ENOMEM. */
int
report_iouring_text(const struct rep *r, char **text)
{
	struct iouring io;
	size_t size;
	FILE *m;

	*text = NULL;
	report_iouring_scan(r, &io);
	if (!report_iouring_seen(&io))
		return 0;
	m = open_memstream(text, &size);
	if (m == NULL)
		return -ENOMEM;
	report_iouring_sentence(m, &io);
	if (fclose(m) != 0) {
		free(*text);
		*text = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The warning on @diag, each line led by @lead ("pgsc-report: "). */
void
report_iouring_warn(FILE *diag, const struct rep *r, const char *lead)
{
	struct iouring io;

	report_iouring_scan(r, &io);
	if (!report_iouring_seen(&io))
		return;
	fprintf(diag, "%swarning: ", lead);
	report_iouring_sentence(diag, &io);
	fputc('\n', diag);
}

/*
 * The JSON member "io_uring", when the rounds saw an io_uring call or an
 * io worker (a store of neither gets none: its report stays as it was).
 */
void
report_iouring_json(FILE *out, const struct rep *r)
{
	struct iouring io;
	int first = 1;

	report_iouring_scan(r, &io);
	if (!report_iouring_seen(&io) && !io.io_workers)
		return;
	fputs(",\n  \"io_uring\": {\"calls\": {", out);
	for (int i = 0; i < IOURING_NCALLS; i++) {
		if (io.calls[i] == 0)
			continue;
		fprintf(out, "%s\"%s\": %llu", first ? "" : ", ", calls[i],
			(unsigned long long)io.calls[i]);
		first = 0;
	}
	fprintf(out, "}, \"setup_outside_postmaster\": %llu, \"io_workers\": "
		"%s, \"io_method\": \"%s\", \"warning\": ",
		(unsigned long long)io.setup_outside,
		io.io_workers ? "true" : "false", report_iouring_method(&io));
	if (report_iouring_seen(&io)) {
		fputc('"', out);
		report_iouring_sentence(out, &io);
		fputc('"', out);
	} else {
		fputs("null", out);
	}
	fputc('}', out);
}

/*
 * Calls that belong in the postmaster's list only, never in a backend
 * type's (--per-type): io_uring_setup, as PostgreSQL 18 makes every ring
 * in the postmaster and its children only enter them.  A type that made
 * one anyway is an extension's ring: left out, the warning says so.
 */
int
report_iouring_postmaster_only(const char *name)
{
	return strcmp(name, "io_uring_setup") == 0;
}
