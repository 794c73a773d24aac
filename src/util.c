/* SPDX-License-Identifier: PostgreSQL */
/* util.c - small helpers: causes, hashing, buffers, files, escaping. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pgsc-int.h"

/* The name diagnostics start with: the program's, set by its main()
 * (pgsc_set_progname()), so that one run speaks under one prefix. */
static const char *progname = "pgsc";

void
pgsc_set_progname(const char *name)
{
	progname = name != NULL && name[0] != '\0' ? name : "pgsc";
}

const char *
pgsc_progname(void)
{
	return progname;
}

/**
 * Write "PROGNAME: " and the formatted text to @out (stderr when NULL):
 * the library's diagnostics, under the program's name.
 */
void
util_diag(FILE *out, const char *fmt, ...)
{
	va_list ap;

	if (out == NULL)
		out = stderr;
	fprintf(out, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
}

/**
 * Store a formatted sentence in *cause (when cause is not NULL).  Any
 * previous sentence is freed.  Out of memory leaves *cause NULL.
 */
void
util_cause(char **cause, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	if (cause == NULL)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	free(*cause);
	*cause = s;
}

/**
 * 64-bit FNV-1a, 8 bytes per step for speed on long inputs.  Not a
 * cryptographic hash: it identifies files already imported.
 */
uint64_t
util_hash(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;
	uint64_t w;

	while (len >= 8) {
		memcpy(&w, p, 8);
		h ^= w;
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
		p += 8;
		len -= 8;
	}
	while (len-- > 0) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static double
clock_seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double
util_now(void)
{
	return clock_seconds(CLOCK_REALTIME);
}

/* The processor time of the calling thread, in seconds. */
double
util_cpu_now(void)
{
	return clock_seconds(CLOCK_THREAD_CPUTIME_ID);
}

/* The regular file @path of at most @max bytes, whole, in a new *@buf
 * with one spare byte at the end.  Returns 0, or a negative errno (with
 * *@cause, save for -ENOMEM) and *@buf NULL. */
int
util_read_file(const char *path, size_t max, char **buf, size_t *len,
	       char **cause)
{
	struct stat st;
	size_t got = 0;
	int fd, rc = 0;

	*buf = NULL;
	/* a FIFO or a device is refused before open() can block on it
	 * (pgsc-report --candidates hung on a FIFO) */
	fd = util_open_regular(path, cause);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		util_cause(cause, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > (off_t)max) {
		util_cause(cause, "%s: not a regular file of at most %u MiB",
			   path, (unsigned)(max >> 20));
		rc = -EINVAL;
		goto out;
	}
	*buf = malloc((size_t)st.st_size + 1);
	if (*buf == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, *buf + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = r < 0 ? -errno : -EIO;
			util_cause(cause, "%s: short read", path);
			goto out;
		}
		got += (size_t)r;
	}
	*len = got;
out:
	if (fd >= 0)
		close(fd);
	if (rc < 0) {
		free(*buf);
		*buf = NULL;
	}
	return rc;
}

time_t
util_make_time(struct tm *tm, int year, int mon, int mday, int hour, int min,
	       int sec, int utc)
{
	memset(tm, 0, sizeof(*tm));
	tm->tm_year = year - 1900;
	tm->tm_mon = mon - 1;
	tm->tm_mday = mday;
	tm->tm_hour = hour;
	tm->tm_min = min;
	tm->tm_sec = sec;
	tm->tm_isdst = -1;      /* local time: as the zone's rules say */
	return utc ? timegm(tm) : mktime(tm);
}

/* Rounded to the millisecond first, so that 59.9996 s is the next
 * minute's 00.000, not 59.1000. */
char *
util_iso_time(char *buf, size_t size, double t)
{
	long long ms = llround(t * 1000.0);
	long long s = ms / 1000 - (ms % 1000 < 0);
	time_t tt = (time_t)s;
	struct tm tm;
	char day[24];

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		snprintf(day, sizeof(day), "%lld", s);
	snprintf(buf, size, "%s.%03lldZ", day, ms - s * 1000);
	return buf;
}

char *
util_strndup(const char *s, size_t n)
{
	char *r = malloc(n + 1);

	if (r == NULL)
		return NULL;
	memcpy(r, s, n);
	r[n] = '\0';
	return r;
}

int
util_grow(char **buf, size_t *cap, size_t need, size_t first)
{
	size_t c = *cap ? *cap : first;
	char *nb;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	nb = realloc(*buf, c);
	if (nb == NULL)
		return -ENOMEM;
	*buf = nb;
	*cap = c;
	return 0;
}

/* qsort()/bsearch() order of uint64_t values. */
int
util_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Grow @*v (elements of @size) to hold @n + 1; the first allocation holds
 * @first.  Returns 0 or -ENOMEM. */
int
util_grow_array(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
	void **pv = v;
	size_t nc;
	void *nv;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : first;
	nv = reallocarray(*pv, nc, size);
	if (nv == NULL)
		return -ENOMEM;
	*pv = nv;
	*cap = nc;
	return 0;
}

/* Append a copy of @elem (@size bytes) to the array *@v of *@n elements,
 * grown as util_grow_array() grows it.  Returns 0 or -ENOMEM (the array
 * unchanged). */
int
util_append(void *v, size_t *cap, size_t *n, const void *elem, size_t size,
	    size_t first)
{
	void **pv = v;

	if (util_grow_array(v, cap, *n, size, first) < 0)
		return -ENOMEM;
	memcpy((char *)*pv + *n * size, elem, size);
	(*n)++;
	return 0;
}

/* Length of the valid UTF-8 sequence at @p (at most @n bytes), 0 if
 * invalid.  Overlong forms, surrogates and values past U+10FFFF are
 * invalid. */
static size_t
utf8_len(const unsigned char *p, size_t n)
{
	uint32_t cp = 0;
	size_t len;

	if (p[0] < 0x80)
		return 1;
	len = utf8_decode(p, n, &cp);
	/* U+2028/U+2029 break JavaScript string literals; C1 controls
	 * (U+0080-U+009F) are terminal escapes.  Both are escaped. */
	if (len == 0 || cp == 0x2028 || cp == 0x2029 ||
	    (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return len;
}

/* Write one byte that cannot go out as it is. */
static void
escape_byte(FILE *out, unsigned char c, int json)
{
	if (!json)
		fprintf(out, "\\x%02x", c);
	else if (c == '"' || c == '\\')
		fprintf(out, "\\%c", c);
	else
		fprintf(out, "\\u%04x", c);
}

/*
 * Write @s with controls, quotes and backslashes escaped, and every byte
 * of invalid UTF-8 too: JSON text cannot represent it, so it shows as
 * "\u00NN" (no U+FFFD) and the value stays reversible for a human
 * reader; in text as "\xNN", like the controls.
 */
static void
escape_utf8(FILE *out, const char *s, int json)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	while (n > 0) {
		unsigned char c = *p;
		size_t l = 0;

		if (c >= 0x20 && c != 0x7f && c != '\\' && c != '"' &&
		    (json || c != '\''))
			l = utf8_len(p, n);
		if (l == 0) {
			escape_byte(out, c, json);
			p++, n--;
			continue;
		}
		fwrite(p, 1, l, out);
		p += l;
		n -= l;
	}
}

void
pgsc_json_escape(FILE *out, const char *s)
{
	escape_utf8(out, s, 1);
}

void
pgsc_text_escape(FILE *out, const char *s)
{
	escape_utf8(out, s, 0);
}

/*
 * The first @max bytes at most of the @len at @p, escaped with
 * pgsc_text_escape() in a new string: a NUL byte ends the excerpt.
 * NULL on OOM.
 */
char *
util_excerpt(const char *p, size_t len, size_t max)
{
	char *tmp, *buf = NULL;
	size_t sz = 0;
	FILE *f;

	tmp = util_strndup(p, len > max ? max : len);
	if (tmp == NULL)
		return NULL;
	f = open_memstream(&buf, &sz);
	if (f != NULL) {
		pgsc_text_escape(f, tmp);
		fclose(f);
	}
	free(tmp);
	return buf;
}

int
pgsc_guc_name_ok(const char *name)
{
	if (name == NULL || *name == '\0')
		return 0;
	for (const char *p = name; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			return 0;
	}
	return 1;
}

/**
 * Is @p a prefix pgsc-report --guc-prefix may put before its settings'
 * names: empty, or exactly one identifier of PostgreSQL's configuration
 * file grammar followed by a dot (guc-file.l: QUALIFIED_ID is
 * {ID}"."{ID}, ID a LETTER then LETTER_OR_DIGITs, LETTER [A-Za-z_] or a
 * byte with the high bit set).  "a.b." makes a name with two dots, which
 * the server refuses to start with.
 */
int
pgsc_guc_prefix_ok(const char *p)
{
	size_t n = strlen(p);

	if (n == 0)
		return 1;
	if (n < 2 || p[n - 1] != '.')
		return 0;
	for (size_t i = 0; i + 1 < n; i++) {
		unsigned char c = (unsigned char)p[i];
		int letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     c == '_' || c >= 0x80;

		if (!letter && !(i > 0 && c >= '0' && c <= '9'))
			return 0;
	}
	return 1;
}

#define PREFIX_SPAN 4096

/**
 * Hash of the first and the last PREFIX_SPAN bytes before @off, as 16 hex
 * digits: proves, cheaply, that a file was only appended to since it was
 * read up to @off.
 * Returns 0 or -EIO.
 */
int
util_prefix_hash(int fd, uint64_t off, char out[24])
{
	char buf[PREFIX_SPAN];
	uint64_t h;
	size_t n = off < PREFIX_SPAN ? (size_t)off : PREFIX_SPAN;
	ssize_t r;

	r = pread(fd, buf, n, 0);
	if (r < 0 || (size_t)r != n)
		return -EIO;
	h = util_hash(buf, n, off);
	if (off > PREFIX_SPAN) {
		r = pread(fd, buf, PREFIX_SPAN, (off_t)(off - PREFIX_SPAN));
		if (r != PREFIX_SPAN)
			return -EIO;
		h ^= util_hash(buf, PREFIX_SPAN, h);
	}
	snprintf(out, 24, "%016llx", (unsigned long long)h);
	return 0;
}

int
pgsc_round_range_parse(const char *s, int64_t *from, int64_t *to)
{
	char *end;
	long long a, b;

	errno = 0;
	a = strtoll(s, &end, 10);
	if (errno || end == s || a <= 0)
		return -EINVAL;
	if (*end == '\0') {
		*from = *to = a;
		return 0;
	}
	if (*end != '-')
		return -EINVAL;
	s = end + 1;
	b = strtoll(s, &end, 10);
	if (errno || end == s || *end || b < a)
		return -EINVAL;
	*from = a;
	*to = b;
	return 0;
}

/**
 * Open @path for reading if it is a regular file, or refuse it with a
 * cause: a FIFO would block open() (and the import holding the store's
 * writer lock) for ever, a device or a directory is no log.  stat() first
 * so that nothing else is opened at all; then the open itself is
 * O_NONBLOCK (never blocks, even if the path was swapped for a FIFO since
 * the stat()) and fstat() on the descriptor decides, which no rename can
 * race.  Returns the descriptor, blocking again, or -errno.
 */
/*
 * An input that may also be a pipe (pgsc-diff <(...), --pg-log
 * <(zcat ...)): a regular file as util_open_regular() opens it, or a FIFO
 * opened without waiting for a writer (O_NONBLOCK, cleared after: with no
 * writer the first read() says end of file); devices, sockets and
 * directories refused by name before open() can block.
 * *@fifo says which.  Returns the descriptor, or a negative errno with
 * a cause.
 */
int
util_open_input(const char *path, int *fifo, char **cause)
{
	struct stat sb;
	int fd, fl;

	*fifo = 0;
	if (stat(path, &sb) == 0 && S_ISFIFO(sb.st_mode)) {
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd < 0) {
			int e = errno;

			util_cause(cause, "%s: %s", path, strerror(e));
			return -e;
		}
		if (fstat(fd, &sb) < 0 || !S_ISFIFO(sb.st_mode) ||
		    (fl = fcntl(fd, F_GETFL)) < 0 ||
		    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
			close(fd);
			util_cause(cause, "%s: changed while opened", path);
			return -EINVAL;
		}
		*fifo = 1;
		return fd;
	}
	return util_open_regular(path, cause);
}

int
util_open_regular(const char *path, char **cause)
{
	struct stat sb;
	int fd, fl;

	if (stat(path, &sb) < 0) {
		int e = errno;

		util_cause(cause, "%s: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISREG(sb.st_mode))
		goto notreg;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		int e = errno;

		util_cause(cause, "%s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		goto notreg;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		int e = errno;

		close(fd);
		util_cause(cause, "%s: %s", path, strerror(e));
		return -e;
	}
	return fd;
notreg:
	util_cause(cause, "%s: not a regular file (%s); refused", path,
		   S_ISFIFO(sb.st_mode) ? "a FIFO" : S_ISDIR(sb.st_mode) ?
		   "a directory" : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ?
		   "a device" : S_ISSOCK(sb.st_mode) ? "a socket" : "not a file");
	return -EINVAL;
}

/**
 * Is @exe (an audit exe= path) the program @name?  The base name is
 * compared, after what the kernel and package tools add to the name of a
 * running program's binary:
 *  - " (deleted)": the file was replaced or removed while the process ran
 *    (every package upgrade: dpkg writes the new file and renames it over
 *    the old one);
 *  - ".#prelink#.XXXXXX": prelink's temporary file, renamed over the
 *    binary when it is done.
 * A user who names a program "postgres (deleted)" gains nothing he could
 * not have by naming it "postgres": --server-user is the answer to both.
 */
int
util_exe_is(const char *exe, const char *name)
{
	static const char deleted[] = " (deleted)";
	static const char prelink[] = ".#prelink#.";
	const size_t dl = sizeof(deleted) - 1, pl = sizeof(prelink) - 1;
	const char *b;
	size_t n, want;

	if (exe == NULL || name == NULL)
		return 0;
	b = strrchr(exe, '/');
	b = b ? b + 1 : exe;
	n = strlen(b);
	if (n > dl && memcmp(b + n - dl, deleted, dl) == 0)
		n -= dl;
	if (n > pl + 6 && memcmp(b + n - 6 - pl, prelink, pl) == 0) {
		int ok = 1;

		for (size_t i = n - 6; i < n; i++)
			if (!((b[i] >= 'a' && b[i] <= 'z') ||
			      (b[i] >= 'A' && b[i] <= 'Z') ||
			      (b[i] >= '0' && b[i] <= '9')))
				ok = 0;
		if (ok)
			n -= 6 + pl;
	}
	want = strlen(name);
	return n == want && memcmp(b, name, n) == 0;
}
