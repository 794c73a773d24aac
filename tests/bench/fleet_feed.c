/* SPDX-License-Identifier: PostgreSQL */
/* fleet_feed.c - N simulated hosts' audit records at a chosen total rate,
 * written as one central log (the fleet benchmark, bench-fleet.sh).
 *
 *   fleet_feed -n NODES -r RATE -s SECONDS -o OUT [-p PREFIX] [-t wall|recorded]
 *              LOG...
 *
 * Every node replays the same recorded log(s) (so the nodes' pids overlap,
 * as real hosts' do), each line as "node=PREFIXnn type=... msg=audit(T:S):
 * ...", the nodes' lines interleaved one by one like a central auditd
 * writes its clients' records.  Each node loops over the recording; its
 * serials are shifted by the recording's serial span on each loop, so that
 * every node has its own increasing serial sequence.  Times: with -t wall
 * (the default) each node's stream clock runs at the speed of the wall
 * clock, as a real host's does: a loop of the recording takes as long in
 * stream time as it takes to write at the given rate, and the recording's
 * times are stretched or squeezed to fit (the collector forgets exited
 * processes after 60 s of stream time, so this decides how many processes
 * it holds).  With -t recorded a loop keeps the recording's own span.
 * Node i's clock is i x 13 ms ahead of node 0's, so that two nodes' forks
 * of the same pid do not happen in the same millisecond (a real fleet's
 * would not; pgsc's processes table is keyed by (pid, birth) without the
 * node today, and identical births would collide there).
 * OUT is appended to with write(2) in batches of at most 1 ms of records
 * ("-" is stdout: a plugin stream).  On stderr at the end: per node the
 * lines and SECCOMP lines written, the totals, the achieved rate and how
 * far behind schedule the feeder itself ever was (a feeder that cannot
 * keep up makes the benchmark's figure meaningless).
 * A benchmark tool: it prints figures and asserts nothing.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct line {
	char *mem;		/* the allocation */
	char *head;		/* "type=T " */
	char *tail;		/* "): ..." up to and without the newline */
	int64_t ms;		/* event time in milliseconds */
	uint64_t serial;
	int seccomp;
};

struct node {
	size_t next;		/* index of its next line */
	uint64_t loop;
	uint64_t lines, seccomp;
};

static struct line *lines;
static size_t nlines, cap;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* parse_line: split "[node=X ]type=T msg=audit(SEC.MSEC:SERIAL)REST";
 * returns 0, or -1 for a line that has no such header (skipped). */
static int
parse_line(char *s, struct line *l)
{
	char *p, *q, *end;
	unsigned long long sec, msec, serial;

	if (strncmp(s, "node=", 5) == 0) {
		p = strchr(s, ' ');
		if (p == NULL)
			return -1;
		s = p + 1;
	}
	if (strncmp(s, "type=", 5) != 0)
		return -1;
	p = strstr(s, " msg=audit(");
	if (p == NULL)
		return -1;
	q = p + strlen(" msg=audit(");
	errno = 0;
	sec = strtoull(q, &end, 10);
	if (errno != 0 || *end != '.')
		return -1;
	msec = strtoull(end + 1, &end, 10);
	if (errno != 0 || *end != ':')
		return -1;
	serial = strtoull(end + 1, &end, 10);
	if (errno != 0 || *end != ')')
		return -1;
	p[1] = '\0';		/* head keeps "type=T " */
	l->head = s;
	l->tail = end;
	l->ms = (int64_t)(sec * 1000 + msec);
	l->serial = serial;
	l->seccomp = strncmp(s, "type=SECCOMP ", 13) == 0;
	return 0;
}

static int
load(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t bsz = 0;
	ssize_t n;

	if (f == NULL) {
		fprintf(stderr, "fleet_feed: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((n = getline(&buf, &bsz, f)) > 0) {
		char *copy;

		if (buf[n - 1] == '\n')
			buf[--n] = '\0';
		if (nlines == cap) {
			struct line *nl;

			cap = cap ? cap * 2 : 4096;
			nl = realloc(lines, cap * sizeof(*lines));
			if (nl == NULL)
				goto oom;
			lines = nl;
		}
		copy = strdup(buf);
		if (copy == NULL)
			goto oom;
		if (parse_line(copy, &lines[nlines]) < 0) {
			free(copy);
			continue;
		}
		lines[nlines].mem = copy;
		nlines++;
	}
	free(buf);
	fclose(f);
	return 0;
oom:
	fprintf(stderr, "fleet_feed: out of memory\n");
	free(buf);
	fclose(f);
	return -1;
}

static int
write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: fleet_feed -n NODES -r RATE -s SECONDS -o OUT|- "
		"[-p PREFIX] [-t wall|recorded] LOG...\n");
}

int
main(int argc, char **argv)
{
	const char *out = NULL, *prefix = "node";
	long nodes = 0;
	double rate = 0, seconds = 0, t0, worst = 0, elapsed;
	struct node *nd = NULL;
	char *buf = NULL;
	size_t blen = 0, bcap = 1 << 20;
	uint64_t total, done = 0, seccomp = 0, smin = UINT64_MAX, smax = 0;
	int64_t tmin = INT64_MAX, tmax = 0, tspan;
	double loop_ms, scale;
	int c, fd = -1, status = 1, wall = 1;

	while ((c = getopt(argc, argv, "n:r:s:o:p:t:")) != -1) {
		switch (c) {
		case 'n':
			nodes = strtol(optarg, NULL, 10);
			break;
		case 'r':
			rate = strtod(optarg, NULL);
			break;
		case 's':
			seconds = strtod(optarg, NULL);
			break;
		case 'o':
			out = optarg;
			break;
		case 'p':
			prefix = optarg;
			break;
		case 't':
			if (strcmp(optarg, "wall") == 0)
				wall = 1;
			else if (strcmp(optarg, "recorded") == 0)
				wall = 0;
			else {
				usage();
				return 2;
			}
			break;
		default:
			usage();
			return 2;
		}
	}
	if (nodes < 1 || nodes > 9999 || rate <= 0 || seconds <= 0 ||
	    out == NULL || optind >= argc) {
		usage();
		return 2;
	}
	for (; optind < argc; optind++)
		if (load(argv[optind]) < 0)
			goto out;
	if (nlines == 0) {
		fprintf(stderr, "fleet_feed: no audit records in the input\n");
		goto out;
	}
	for (size_t i = 0; i < nlines; i++) {
		if (lines[i].serial < smin)
			smin = lines[i].serial;
		if (lines[i].serial > smax)
			smax = lines[i].serial;
		if (lines[i].ms < tmin)
			tmin = lines[i].ms;
		if (lines[i].ms > tmax)
			tmax = lines[i].ms;
	}
	tspan = tmax - tmin + 1000;
	/* one loop of one node: nlines of its lines among every node's */
	loop_ms = wall ? (double)nlines * (double)nodes * 1000.0 / rate : (double)tspan;
	scale = loop_ms / (double)tspan;
	nd = calloc((size_t)nodes, sizeof(*nd));
	buf = malloc(bcap);
	if (nd == NULL || buf == NULL) {
		fprintf(stderr, "fleet_feed: out of memory\n");
		goto out;
	}
	if (strcmp(out, "-") == 0)
		fd = STDOUT_FILENO;
	else
		fd = open(out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "fleet_feed: %s: %s\n", out, strerror(errno));
		goto out;
	}

	total = (uint64_t)(rate * seconds);
	t0 = now_s();
	while (done < total) {
		double t = now_s() - t0;
		uint64_t due = (uint64_t)(t * rate);
		/* at most 1 ms of records a batch, so that the log grows
		 * smoothly and the schedule is checked often */
		uint64_t batch = (uint64_t)(rate / 1000) + 1;

		if (due > total)
			due = total;
		if (due > done && (double)(due - done) / rate > worst)
			worst = (double)(due - done) / rate;
		if (due <= done) {
			struct timespec ts = { 0, 200 * 1000 };

			nanosleep(&ts, NULL);
			continue;
		}
		if (due - done > batch)
			due = done + batch;
		for (; done < due; done++) {
			long i = (long)(done % (uint64_t)nodes);
			struct node *n = &nd[i];
			const struct line *l = &lines[n->next];
			/* + 13 ms per node: hosts do not fork the same pid in
			 * the same millisecond (their clocks and loads differ) */
			int64_t ms = tmin + 13 * (int64_t)i +
				     (int64_t)((double)n->loop * loop_ms +
					       (double)(l->ms - tmin) * scale);
			uint64_t serial = l->serial - smin + 1 + n->loop * (smax - smin + 1);
			int w;

			if (bcap - blen < 16384) {
				if (write_all(fd, buf, blen) < 0)
					goto werr;
				blen = 0;
			}
			w = snprintf(buf + blen, bcap - blen,
				     "node=%s%02ld %smsg=audit(%" PRId64 ".%03d:%" PRIu64 "%s\n",
				     prefix, i + 1, l->head, ms / 1000, (int)(ms % 1000),
				     serial, l->tail);
			if (w < 0 || (size_t)w >= bcap - blen) {
				fprintf(stderr, "fleet_feed: a record over 16 KiB\n");
				goto out;
			}
			blen += (size_t)w;
			n->lines++;
			if (l->seccomp) {
				n->seccomp++;
				seccomp++;
			}
			if (++n->next == nlines) {
				n->next = 0;
				n->loop++;
			}
		}
		if (write_all(fd, buf, blen) < 0)
			goto werr;
		blen = 0;
	}
	elapsed = now_s() - t0;
	for (long i = 0; i < nodes; i++)
		fprintf(stderr, "node %s%02ld lines %" PRIu64 " seccomp %" PRIu64 "\n",
			prefix, i + 1, nd[i].lines, nd[i].seccomp);
	fprintf(stderr, "total nodes %ld lines %" PRIu64 " seccomp %" PRIu64
		" seconds %.2f rate %.0f behind_max_s %.3f\n",
		nodes, done, seccomp, elapsed, (double)done / elapsed, worst);
	status = 0;
	goto out;
werr:
	fprintf(stderr, "fleet_feed: write %s: %s\n", out, strerror(errno));
out:
	if (fd > STDOUT_FILENO)
		close(fd);
	for (size_t i = 0; i < nlines; i++)
		free(lines[i].mem);
	free(lines);
	free(nd);
	free(buf);
	return status;
}
