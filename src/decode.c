/* SPDX-License-Identifier: PostgreSQL */
/* decode.c - decode one audit record line into a struct pgsc_record. */
/*
 * We decode arch, syscall, code, pid, exe and comm ourselves rather than
 * through auparse's interpretation: auparse_get_field_int() is strtol base
 * 10, so "arch=c000003e" comes back as 0, and its SECCOMP interpretation is
 * wrong without a subj= field (docs/design.md §4.2).  The ENRICHED tail after \x1d
 * (ARCH=... SYSCALL=unknown-syscall(-1)) is never trusted and never read.
 *
 * Record text is untrusted: comm and exe are chosen by the process.  Every
 * copy is bounded and NUL bytes end a decoded value.
 */
#include <endian.h>
#include <string.h>

#include "pgsc-int.h"

#define ENRICH_SEP '\x1d'
#define HDR_BAD_TIME (-2)

struct type_name {
	const char *name;
	size_t len;
	int num;
	enum pgsc_rec_type type;
};

static const struct type_name type_names[] = {
	{ "SECCOMP", 7, 1326, PGSC_REC_SECCOMP },
	{ "SYSCALL", 7, 1300, PGSC_REC_SYSCALL },
	{ "EXECVE", 6, 1309, PGSC_REC_EXECVE },
	{ "PROCTITLE", 9, 1327, PGSC_REC_PROCTITLE },
	{ "EOE", 3, 1320, PGSC_REC_EOE },
};

static const char *const reject_names[PGSC_REJ__COUNT] = {
	[PGSC_REJ_NONE] = "none",
	[PGSC_REJ_NO_HEADER] = "no-header",
	[PGSC_REJ_BINARY] = "binary",
	[PGSC_REJ_TOO_LONG] = "too-long",
	[PGSC_REJ_TRUNCATED] = "truncated",
	[PGSC_REJ_BAD_FIELD] = "bad-field",
	[PGSC_REJ_DUP_FIELD] = "duplicate-field",
	[PGSC_REJ_UNKNOWN_ARCH] = "unknown-arch",
	[PGSC_REJ_BAD_SYSCALL] = "bad-syscall",
	[PGSC_REJ_BAD_TIME] = "bad-time",
	[PGSC_REJ_DAMAGED] = "damaged",
};

const char *
pgsc_reject_name(int reason)
{
	if (reason < 0 || reason >= PGSC_REJ__COUNT)
		return "unknown";
	return reject_names[reason];
}

static int
parse_u64(const char *p, size_t n, int base, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0 || n > 20)
		return -1;
	/*
	 * Up to 19 decimal or 16 hex digits cannot overflow: no check per
	 * digit there.  parse_u64() was an eighth of an import's time with a
	 * division per digit (docs/internals.md, "Where an import's time
	 * goes").
	 */
	if (n <= (base == 16 ? 16u : 19u)) {
		for (size_t i = 0; i < n; i++) {
			unsigned d = (unsigned)(unsigned char)p[i] - '0';

			if (d > 9) {
				/* 'A'-'F' | 0x20 is 'a'-'f'; nothing else
				 * maps there */
				d = ((unsigned)(unsigned char)p[i] | 0x20u) - 'a';
				if (base != 16 || d > 5)
					return -1;
				d += 10;
			}
			v = v * (uint64_t)base + d;
		}
		*out = v;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned d;
		char c = p[i];

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		if (__builtin_mul_overflow(v, (uint64_t)base, &v) ||
		    __builtin_add_overflow(v, (uint64_t)d, &v))
			return -1;
	}
	*out = v;
	return 0;
}

static int
parse_i64(const char *p, size_t n, int64_t *out)
{
	uint64_t v;
	int neg = 0;

	if (n > 0 && p[0] == '-') {
		neg = 1;
		p++;
		n--;
	}
	if (parse_u64(p, n, 10, &v) < 0 || v > (uint64_t)INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* "0x7ffc0000" or "7ffc0000" */
static int
parse_hex(const char *p, size_t n, uint64_t *out)
{
	if (n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		n -= 2;
	}
	return parse_u64(p, n, 16, out);
}

/**
 * Parse the record header "[node=X ]type=T msg=audit(S.M:N): ".
 * Returns the offset of the first field, -1 for a malformed header, or
 * HDR_BAD_TIME for a well-formed one whose time is past PGSC_SEC_MAX: both
 * parse paths reject it the same way (libauparse would drop it silently).
 */
/*
 * The "node=NAME " prefix of @line: the offset of what follows it (0
 * without one), NAME in *@node (NULL without one) and *@nlen; -1 when
 * "node=" has no end.  The one reader of the prefix: the header, the
 * SECCOMP fast path and the serial accounting (serials.c) ask here.
 */
long
decode_node(const char *line, size_t len, const char **node, size_t *nlen)
{
	const char *q;

	*node = NULL;
	*nlen = 0;
	if (len < 5 || memcmp(line, "node=", 5) != 0)
		return 0;
	q = memchr(line + 5, ' ', len - 5);
	if (q == NULL)
		return -1;
	*node = line + 5;
	*nlen = (size_t)(q - *node);
	return q + 1 - line;
}

/* How many of the eight bytes of @w, from the lowest, are ASCII digits
 * before the first that is not (8: all).  A byte is a digit when its high
 * nibble is 3, and still is with 6 added; a carry out of a byte only
 * reaches the bytes after it. */
static inline unsigned
lead_digits(uint64_t w)
{
	uint64_t bad = ((w & 0xF0F0F0F0F0F0F0F0ULL) ^ 0x3030303030303030ULL) |
		       (((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) ^
			0x3030303030303030ULL);

	return bad == 0 ? 8 : (unsigned)__builtin_ctzll(bad) / 8;
}

/* The value of the first @k (1 to 8) ASCII digits of @w, the first in the
 * lowest byte: the bytes after them shifted out, zeros (leading ones)
 * shifted in.  A borrow of the bytes after them never reaches them. */
static inline uint64_t
lead_value(uint64_t w, unsigned k)
{
	w -= 0x3030303030303030ULL;
	w <<= 8 * (8 - k);
	w = (w * 10 + (w >> 8)) & 0x00FF00FF00FF00FFULL;
	w = (w * 100 + (w >> 16)) & 0x0000FFFF0000FFFFULL;
	return (w * 10000 + (w >> 32)) & 0xFFFFFFFFULL;
}

/*
 * 1 to 19 decimal digits at *@pp, then @stop: *@pp moved past @stop.
 * -1 otherwise (no digit, another byte, more digits), and the caller
 * parses the way it did before: on what this accepts both agree.
 * Inlined in stamp_fast(): three calls a header were 1.5% of an import's
 * instructions.  Where eight bytes are left they are read at once, and
 * the digits among them counted (lead_digits()): a digit at a time was a
 * twelfth of an import's instructions, and still 4% where only whole
 * blocks of eight were read so (tests/unit/test_decode.c holds both ways
 * to the general parser).
 */
static inline __attribute__((always_inline)) int
digits_to(const char **pp, const char *end, char stop, uint64_t *out)
{
	static const uint64_t pow10[9] = { 1, 10, 100, 1000, 10000, 100000,
					   1000000, 10000000, 100000000 };
	const char *p = *pp, *s = p, *lim;
	uint64_t v = 0, w;
	unsigned d, k;

	while (end - p >= 8) {
		memcpy(&w, p, sizeof(w));
		w = le64toh(w);
		k = lead_digits(w);
		if ((size_t)(p - s) + k > 19)
			return -1;
		if (k > 0)
			v = v * pow10[k] + lead_value(w, k);
		p += k;
		if (k < 8)
			goto done;
	}
	lim = end - s > 19 ? s + 19 : end;
	while (p < lim && (d = (unsigned)((unsigned char)*p - '0')) <= 9) {
		v = v * 10 + d;
		p++;
	}
done:
	if (p == s || p >= end || *p != stop)
		return -1;
	*out = v;
	*pp = p + 1;
	return 0;
}

/*
 * "S.M:N)" of the header in one pass, each number parsed where it is
 * scanned (three memchr() and three parse_u64() calls were a seventh of
 * an import's instructions).  -1, with *@pp unmoved, for anything else.
 */
static int
stamp_fast(const char **pp, const char *end, int64_t *sec, int *msec,
	   uint64_t *serial)
{
	const char *p = *pp;
	uint64_t s, m, n, w, t;

	/* the kernel's "%llu.%03lu:" with ten digits of seconds (2001 to
	 * 2286), from two words: a third of the instructions of three
	 * digits_to() */
	if (end - p >= 16) {
		memcpy(&w, p, sizeof(w));
		memcpy(&t, p + 8, sizeof(t));
		w = le64toh(w);
		t = le64toh(t);
		if (((t >> 16) & 0xFF) == '.' && ((t >> 48) & 0xFF) == ':' &&
		    lead_digits(w) == 8 &&
		    lead_digits((t & ~0x00FF000000FF0000ULL) |
				0x0030000000300000ULL) >= 7) {
			t -= 0x0000303030003030ULL; /* the digits only */
			s = lead_value(w, 8) * 100 + (t & 0xFF) * 10 +
			    ((t >> 8) & 0xFF);
			m = ((t >> 24) & 0xFF) * 100 + ((t >> 32) & 0xFF) * 10 +
			    ((t >> 40) & 0xFF);
			p += 15;
			if (digits_to(&p, end, ')', &n) < 0)
				return -1;
			goto done;
		}
	}
	if (digits_to(&p, end, '.', &s) < 0 || s > (uint64_t)INT64_MAX ||
	    digits_to(&p, end, ':', &m) < 0 || m > 999 ||
	    digits_to(&p, end, ')', &n) < 0)
		return -1;
done:
	*sec = (int64_t)s;
	*msec = (int)m;
	*serial = n;
	*pp = p;
	return 0;
}

static long header_stamp(const char *line, const char *p, const char *end,
			 int64_t *sec, int *msec, uint64_t *serial);

static long
header(const char *line, size_t len, int *type_num, enum pgsc_rec_type *type,
       const char **tname, size_t *tname_len, int64_t *sec, int *msec,
       uint64_t *serial, int *has_node)
{
	const char *p = line, *end = line + len, *q, *node;
	size_t nlen;
	long off = decode_node(line, len, &node, &nlen);
	uint64_t v;

	if (off < 0)
		return -1;
	p += off;
	*has_node = node != NULL;
	if (end - p < 5 || memcmp(p, "type=", 5) != 0)
		return -1;
	p += 5;
	q = memchr(p, ' ', (size_t)(end - p));
	if (q == NULL || q == p)
		return -1;
	*tname = p;
	*tname_len = (size_t)(q - p);
	*type = PGSC_REC_OTHER;
	*type_num = 0;
	for (size_t i = 0; i < ARRAY_SIZE(type_names); i++) {
		if (type_names[i].len == *tname_len &&
		    memcmp(type_names[i].name, p, *tname_len) == 0) {
			*type = type_names[i].type;
			*type_num = type_names[i].num;
			break;
		}
	}
	/* Logs written without the type table say "UNKNOWN[1326]". */
	if (*type == PGSC_REC_OTHER && *tname_len > 9 &&
	    memcmp(p, "UNKNOWN[", 8) == 0 && q[-1] == ']') {
		if (parse_u64(p + 8, *tname_len - 9, 10, &v) == 0 && v < 100000) {
			*type_num = (int)v;
			for (size_t i = 0; i < ARRAY_SIZE(type_names); i++)
				if (type_names[i].num == *type_num)
					*type = type_names[i].type;
		}
	}
	return header_stamp(line, q + 1, end, sec, msec, serial);
}

/*
 * The header from its "msg=audit(" token at @p on: the time and serial.
 * The offset of what follows the header, HDR_BAD_TIME or -1.
 */
static long
header_stamp(const char *line, const char *p, const char *end, int64_t *sec,
	     int *msec, uint64_t *serial)
{
	const char *q;
	uint64_t v;
	int bad_time;

	if (end - p < 11 || memcmp(p, "msg=audit(", 10) != 0)
		return -1;
	p += 10;
	if (stamp_fast(&p, end, sec, msec, serial) < 0) {
		q = memchr(p, '.', (size_t)(end - p));
		if (q == NULL || parse_u64(p, (size_t)(q - p), 10, &v) < 0 ||
		    v > (uint64_t)INT64_MAX)
			return -1;
		*sec = (int64_t)v;
		p = q + 1;
		q = memchr(p, ':', (size_t)(end - p));
		if (q == NULL || parse_u64(p, (size_t)(q - p), 10, &v) < 0 ||
		    v > 999)
			return -1;
		*msec = (int)v;
		p = q + 1;
		q = memchr(p, ')', (size_t)(end - p));
		if (q == NULL || parse_u64(p, (size_t)(q - p), 10, serial) < 0)
			return -1;
		p = q + 1;
	}
	bad_time = (uint64_t)*sec > (uint64_t)PGSC_SEC_MAX;
	if (p >= end || *p != ':')
		return -1;
	p++;
	if (p < end && *p == ' ')
		p++;
	return bad_time ? HDR_BAD_TIME : p - line;
}

int
decode_header(const char *line, size_t len, int *type_num,
	      const char **type_name, size_t *type_name_len, int64_t *sec,
	      int *msec, uint64_t *serial)
{
	enum pgsc_rec_type t;
	int node;

	long off = header(line, len, type_num, &t, type_name, type_name_len,
			  sec, msec, serial, &node);

	if (off == HDR_BAD_TIME)
		return -PGSC_REJ_BAD_TIME;
	if (off < 0)
		return -PGSC_REJ_NO_HEADER;
	return (int)t;
}

/* Cheap test used on the hot path: is this a SECCOMP record line?  The
 * offset of what follows its type (> 0), or 0. */
size_t
decode_is_seccomp(const char *line, size_t len)
{
	const char *p, *node;
	size_t nlen;
	long off = decode_node(line, len, &node, &nlen);

	if (off < 0)
		return 0;
	p = line + off;
	len -= (size_t)off;
	if (len >= 13 && memcmp(p, "type=SECCOMP ", 13) == 0)
		return (size_t)off + 13;
	if (len >= 19 && memcmp(p, "type=UNKNOWN[1326] ", 19) == 0)
		return (size_t)off + 19;
	return 0;
}

/*
 * Would libauparse read the header of @line, whose msg=audit(...) token
 * starts at @msg?  Its extract_timestamp() (3.0.9) looks only at the
 * first 80 bytes of a line (340 of one starting with 'n'), and drops the
 * line without a word when the token it sees there is shorter than 19
 * bytes, or when node= has no name; nor would it read a header that its
 * cut at \x1d falls in.  The feed refuses such a header on
 * both paths (no-header, counted): the default path no longer hands any
 * line to auparse, and the two must count alike (fuzz_paths).  Real
 * headers are 28 bytes and more ("msg=audit(1796252190.770:3):").
 * @line's header is valid (decode_header()).
 */
int
decode_auparse_reads(const char *line, size_t len, size_t msg)
{
	size_t win = line[0] == 'n' ? 340 : 80;
	const char *sep, *tname;
	size_t tlen;
	int type_num, msec;
	int64_t sec;
	uint64_t serial;

	/* auparse cuts a record at \x1d (its parse_up_record(): where an
	 * enriched tail starts); a cut inside the header ("node=\x1d type=")
	 * leaves a record with none, which libauparse 3.0.9 also leaks.  A
	 * cut after the header's "):" leaves it whole: only the header is
	 * searched, and only before its token, since a valid header's token
	 * is "msg=audit(", digits, '.', ':' and "):".  Searching the whole
	 * line, and reading the header again, was a tenth of an import's
	 * time; finding the token's end first, 1.3% of its instructions. */
	sep = memchr(line, ENRICH_SEP, msg < len ? msg : len);
	if (sep != NULL && decode_header(line, (size_t)(sep - line), &type_num,
					 &tname, &tlen, &sec, &msec, &serial) < 0)
		return 0;

	if (len >= 6 && memcmp(line, "node= ", 6) == 0)
		return 0;
	if (win > len)
		win = len;
	if (msg + 19 > win)
		return 0;
	/* a valid header's token has no space before "):", so at or after
	 * its 15th byte ("msg=audit(0.0:0):" is 17) */
	for (size_t i = 14; i < 19; i++)
		if (line[msg + i] == ' ')
			return 0;
	return 1;
}

enum field_bit {
	F_PID = 1 << 0, F_PPID = 1 << 1, F_ARCH = 1 << 2, F_SYSCALL = 1 << 3,
	F_COMPAT = 1 << 4, F_CODE = 1 << 5, F_SUCCESS = 1 << 6, F_EXIT = 1 << 7,
	F_A0 = 1 << 8, F_COMM = 1 << 9, F_EXE = 1 << 10, F_ARGC = 1 << 11,
	F_TITLE = 1 << 12, F_UID = 1 << 13, F_A1 = 1 << 14, F_A2 = 1 << 15,
	F_A3 = 1 << 16,
};

struct field {
	const char *k, *v;
	size_t klen, vlen;
	int quoted;
};

/*
 * The bit of a field we read, by its key; a0 only outside EXECVE, where a0
 * is argv[0]; a1..a3 only in SYSCALL records (the arguments pgsc-collect
 * --args collects, docs/args.md).  A switch on the length and comparisons of constant size:
 * the compiler inlines them, and this runs for every field of every line.
 */
static unsigned
field_bit(const struct field *f, enum pgsc_rec_type type)
{
#define IS(s) (memcmp(f->k, s, sizeof(s) - 1) == 0)
	switch (f->klen) {
	case 2:
		if (f->k[0] != 'a')
			return 0;
		if (f->k[1] == '0')
			return type != PGSC_REC_EXECVE ? F_A0 : 0;
		if (type != PGSC_REC_SYSCALL)
			return 0;
		return f->k[1] == '1' ? F_A1 : f->k[1] == '2' ? F_A2 :
		       f->k[1] == '3' ? F_A3 : 0;
	case 3:
		return IS("pid") ? F_PID : IS("uid") ? F_UID :
		       IS("exe") ? F_EXE : 0;
	case 4:
		return IS("ppid") ? F_PPID : IS("arch") ? F_ARCH :
		       IS("code") ? F_CODE : IS("exit") ? F_EXIT :
		       IS("comm") ? F_COMM : IS("argc") ? F_ARGC : 0;
	case 6:
		return IS("compat") ? F_COMPAT : 0;
	case 7:
		return IS("syscall") ? F_SYSCALL : IS("success") ? F_SUCCESS : 0;
	case 9:
		return IS("proctitle") ? F_TITLE : 0;
	default:
		return 0;
	}
#undef IS
}

/* The values every record starts with: none of its fields seen. */
static void
rec_reset(struct pgsc_record *rec)
{
	rec->pid = rec->ppid = rec->uid = -1;
	rec->has_arch = 0;
	rec->arch = 0;
	rec->syscall = -1;
	rec->compat = -1;
	rec->code = 0;
	rec->success = -1;
	rec->exit = 0;
	rec->has_exit = 0;
	rec->a0 = rec->a1 = rec->a2 = rec->a3 = 0;
	rec->argc = -1;
	rec->comm[0] = rec->exe[0] = rec->title[0] = '\0';
}

/*
 * The next key=value of [*@pp, @end) into @f, *@pp moved past it.
 * Returns 0, -1 at the end (trailing junk without a value is ignored), or
 * PGSC_REJ_TRUNCATED for a quote never closed.
 */
static int
next_field(const char **pp, const char *end, struct field *f)
{
	const char *p = *pp, *v, *q;

	/*
	 * Byte loops, not memchr(): keys and unquoted values are a few bytes
	 * long, and two memchr() calls per field cost more than the scan
	 * (docs/internals.md, "Where an import's time goes").
	 */
	for (;;) {
		while (p < end && *p == ' ')
			p++;
		if (p >= end)
			return -1;
		f->k = p;
		while (p < end && *p != '=' && *p != ' ')
			p++;
		if (p >= end)
			return -1;
		if (*p == '=')
			break;
		/* "word word=..." : skip the stray word */
	}
	f->klen = (size_t)(p - f->k);
	v = p + 1;
	f->quoted = 0;
	if (v < end && (*v == '"' || *v == '\'')) {
		/* msg='...' of user records may contain spaces; only "..."
		 * is a quoted value (decode_copy_value()) */
		q = memchr(v + 1, *v, (size_t)(end - v - 1));
		if (q == NULL)
			return PGSC_REJ_TRUNCATED;
		f->quoted = *v == '"';
		f->vlen = (size_t)(q - v - 1);
		f->v = v + 1;
		*pp = q + 1;
		return 0;
	}
	for (q = v; q < end && *q != ' '; q++)
		;
	f->v = v;
	f->vlen = (size_t)(q - v);
	*pp = q;
	return 0;
}

/* Is @f an argument of an EXECVE record (a1=, a1[0]=; not a1_len=)? */
static int
execve_arg(const struct pgsc_record *rec, const struct field *f)
{
	return rec->type == PGSC_REC_EXECVE && f->klen >= 2 &&
	       f->k[0] == 'a' && f->k[1] >= '0' && f->k[1] <= '9' &&
	       !(f->klen > 4 && memcmp(f->k + f->klen - 4, "_len", 4) == 0);
}

/*
 * EXECVE a0="..." a1=hex ...: join into the title.  A long argument is
 * logged as a1[0]= a1[1]= pieces (announced by a1_len=N, which is not
 * part of argv); a1[1]= continues a1[0]=, everything else starts a new
 * argument.
 */
static void
execve_join(struct pgsc_record *rec, size_t *title_len, const struct field *f)
{
	char tmp[PGSC_TITLE_MAX + 1];
	const char *br = memchr(f->k, '[', f->klen);
	size_t tl, n = *title_len;

	decode_copy_value(tmp, sizeof(tmp), f->v, f->vlen, f->quoted, 1);
	tl = strlen(tmp);
	if (n > 0 && n < PGSC_TITLE_MAX &&
	    (br == NULL || (f->klen - (size_t)(br - f->k) >= 3 &&
			    br[1] == '0' && br[2] == ']')))
		rec->title[n++] = ' ';
	if (tl > PGSC_TITLE_MAX - n)
		tl = PGSC_TITLE_MAX - n;
	memcpy(rec->title + n, tmp, tl);
	n += tl;
	rec->title[n] = '\0';
	*title_len = n;
}

/* Store the value of field @bit; 0, or PGSC_REJ_BAD_FIELD. */
static int
field_set(struct pgsc_record *rec, unsigned bit, const struct field *f)
{
	const char *v = f->v;
	size_t vlen = f->vlen;
	uint64_t u;
	int64_t a, *pid;

	switch (bit) {
	case F_PID:
	case F_PPID:
		pid = bit == F_PID ? &rec->pid : &rec->ppid;
		if (parse_i64(v, vlen, pid) < 0 || *pid < 0)
			return PGSC_REJ_BAD_FIELD;
		break;
	case F_UID:
		if (parse_u64(v, vlen, 10, &u) < 0 || u > UINT32_MAX)
			return PGSC_REJ_BAD_FIELD;
		rec->uid = (int64_t)u;
		break;
	case F_ARCH:
	case F_CODE:
		if (parse_hex(v, vlen, &u) < 0 || u > UINT32_MAX)
			return PGSC_REJ_BAD_FIELD;
		if (bit == F_CODE) {
			rec->code = (uint32_t)u;
			break;
		}
		rec->arch = (uint32_t)u;
		rec->has_arch = 1;
		break;
	case F_SYSCALL:
	case F_EXIT:
		if (parse_i64(v, vlen,
			      bit == F_EXIT ? &rec->exit : &rec->syscall) < 0)
			return PGSC_REJ_BAD_FIELD;
		if (bit == F_EXIT)
			rec->has_exit = 1;
		break;
	case F_COMPAT:
		if (parse_u64(v, vlen, 10, &u) < 0 || u > 1)
			return PGSC_REJ_BAD_FIELD;
		rec->compat = (int)u;
		break;
	case F_SUCCESS:
		if (vlen == 3 && memcmp(v, "yes", 3) == 0)
			rec->success = 1;
		else if (vlen == 2 && memcmp(v, "no", 2) == 0)
			rec->success = 0;
		else
			return PGSC_REJ_BAD_FIELD;
		break;
	case F_A0:
	case F_A1:
	case F_A2:
	case F_A3:
		if (parse_hex(v, vlen, bit == F_A0 ? &rec->a0 :
			      bit == F_A1 ? &rec->a1 :
			      bit == F_A2 ? &rec->a2 : &rec->a3) < 0)
			return PGSC_REJ_BAD_FIELD;
		break;
	case F_COMM:
		decode_copy_value(rec->comm, sizeof(rec->comm), v, vlen,
				  f->quoted, 0);
		break;
	case F_EXE:
		decode_copy_value(rec->exe, sizeof(rec->exe), v, vlen,
				  f->quoted, 0);
		break;
	case F_ARGC:
		if (parse_i64(v, vlen, &a) < 0 || a < 0)
			return PGSC_REJ_BAD_FIELD;
		rec->argc = a > 65536 ? 65536 : (int)a;
		break;
	case F_TITLE:
		decode_copy_value(rec->title, sizeof(rec->title), v, vlen,
				  f->quoted, 1);
		break;
	}
	return 0;
}

/* Does a record have the fields its type needs?  0, or a rejection. */
static int
rec_check(const struct pgsc_record *rec, unsigned seen)
{
	const unsigned need = F_PID | F_ARCH | F_SYSCALL;

	switch (rec->type) {
	case PGSC_REC_SECCOMP:
	case PGSC_REC_SYSCALL:
		if ((seen & need) != need)
			return PGSC_REJ_TRUNCATED;
		if (pgsc_arch_name(rec->arch) == NULL)
			return PGSC_REJ_UNKNOWN_ARCH;
		if (rec->type == PGSC_REC_SECCOMP &&
		    (rec->syscall < 0 || rec->syscall > INT32_MAX ||
		     pgsc_syscall_name(rec->arch, (int)rec->syscall) == NULL))
			return PGSC_REJ_BAD_SYSCALL;
		break;
	case PGSC_REC_PROCTITLE:
		if (!(seen & F_TITLE))
			return PGSC_REJ_TRUNCATED;
		break;
	default:
		break;
	}
	return 0;
}

int
pgsc_record_decode(const char *line, size_t len, struct pgsc_record *rec)
{
	if (len > 0 && line[len - 1] == '\n')
		len--;
	if (len > PGSC_LINE_MAX)
		return PGSC_REJ_TOO_LONG;
	if (memchr(line, '\0', len) != NULL)
		return PGSC_REJ_BINARY;
	return decode_line(line, len, rec);
}

/* decode_line(), with decode_seccomp_fast() (@fast, its cache @dc) or
 * the general loop only. */
static int
decode_with(const char *line, size_t len, struct pgsc_record *rec, int fast,
	    struct decode_cache *dc, size_t msg)
{
	const char *p, *end, *tname;
	size_t tname_len, title_len = 0;
	unsigned seen = 0;
	long off;
	struct field f;
	int rc;

	rec_reset(rec);
	if (msg > 0) {
		/* decode_is_seccomp() has read up to the token: what
		 * header() would find before it */
		rec->type = PGSC_REC_SECCOMP;
		rec->type_num = 1326;
		rec->has_node = memcmp(line, "node=", 5) == 0;
		off = header_stamp(line, line + msg, line + len, &rec->sec,
				   &rec->msec, &rec->serial);
	} else {
		off = header(line, len, &rec->type_num, &rec->type, &tname,
			     &tname_len, &rec->sec, &rec->msec, &rec->serial,
			     &rec->has_node);
	}
	if (off == HDR_BAD_TIME)
		return PGSC_REJ_BAD_TIME;
	if (off < 0)
		return PGSC_REJ_NO_HEADER;
	rec->node[0] = '\0';
	if (rec->has_node) {
		/* "node=NAME type=": the process tree keys processes by it */
		const char *sp = memchr(line, ' ', len); /* header() found it */
		size_t n = sp != NULL ? (size_t)(sp - (line + 5)) : 0;

		if (n > PGSC_NODE_MAX)
			n = PGSC_NODE_MAX;
		memcpy(rec->node, line + 5, n);
		rec->node[n] = '\0';
	}
	if (rec->type == PGSC_REC_OTHER || rec->type == PGSC_REC_EOE)
		return 0;

	p = line + off;
	end = dc != NULL && dc->plain
		      ? NULL
		      : memchr(p, ENRICH_SEP, (size_t)(line + len - p));
	if (end == NULL)
		end = line + len;

	if (fast && rec->type == PGSC_REC_SECCOMP) {
		if (decode_seccomp_fast(p, end, rec, dc) == 0)
			return rec_check(rec, F_PID | F_ARCH | F_SYSCALL);
		rec_reset(rec);
	}
	while ((rc = next_field(&p, end, &f)) == 0) {
		unsigned bit;

		if (execve_arg(rec, &f)) {
			execve_join(rec, &title_len, &f);
			continue;
		}
		bit = field_bit(&f, rec->type);
		if (bit == 0)
			continue;
		if (seen & bit)
			return PGSC_REJ_DUP_FIELD;
		seen |= bit;
		rc = field_set(rec, bit, &f);
		if (rc != 0)
			return rc;
	}
	if (rc > 0)
		return rc;
	return rec_check(rec, seen);
}

/* The feed's do_line() has made pgsc_record_decode()'s checks already:
 * the SECCOMP fast path does not scan each line for NUL bytes twice. */
int
decode_line(const char *line, size_t len, struct pgsc_record *rec)
{
	return decode_with(line, len, rec, 1, NULL, 0);
}

int
decode_line_cache(const char *line, size_t len, size_t msg,
		  struct pgsc_record *rec, struct decode_cache *dc)
{
	return decode_with(line, len, rec, 1, dc, msg);
}

#ifdef PGSC_UNITTEST
/* The general loop alone: the tests hold decode_seccomp_fast() to it. */
int
decode_line_general(const char *line, size_t len, struct pgsc_record *rec)
{
	return decode_with(line, len, rec, 0, NULL, 0);
}
#endif
