/* SPDX-License-Identifier: PostgreSQL */
/* fuzz_logsrc.c - libFuzzer harness for src/logsrc.c: format detection,
 * the gzip, xz and zstd decoders, the audit-log check, resume, --until,
 * and the prefix hash of a stream. */
/*
 * The first byte chooses: the low 2 bits the wrapping (0 the bytes as they
 * are, so damaged compressed data and lying magic bytes are fuzzed; 1
 * gzip, 2 xz, 3 zstd, compressed here), 0x04 a pipe instead of a file,
 * 0x08 a --until taken from the next 4 bytes, 0x10 a resume at an offset
 * from the next 2 bytes, 0x20 reads of a few bytes (1 to 40: a decoder
 * holding output when its input is used up).  When the harness compressed the data itself it
 * checks an oracle: what logsrc_read() returns is the data, and the prefix
 * hash at the end of its last line is util_prefix_hash() of a plain copy.
 */
#include <errno.h>
#include <lzma.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "pgsc-int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t
wrap(int how, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	switch (how) {
	case 1: {
		z_stream z;
		size_t got;

		memset(&z, 0, sizeof(z));
		if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK)
			return 0;
		z.next_in = (unsigned char *)(uintptr_t)in;
		z.avail_in = (uInt)n;
		z.next_out = out;
		z.avail_out = (uInt)cap;
		if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
			deflateEnd(&z);
			return 0;
		}
		got = cap - z.avail_out;
		deflateEnd(&z);
		return got;
	}
	case 2: {
		size_t pos = 0;

		if (lzma_easy_buffer_encode(0, LZMA_CHECK_CRC64, NULL, in, n,
					    out, &pos, cap) != LZMA_OK)
			return 0;
		return pos;
	}
	case 3: {
		size_t r = ZSTD_compress(out, cap, in, n, 1);

		return ZSTD_isError(r) ? 0 : r;
	}
	default:
		if (n > cap)
			return 0;
		memcpy(out, in, n);
		return n;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct logsrc *ls = NULL;
	char path[64], *cause = NULL, buf[4096], h1[24], h2[24];
	uint8_t *packed = NULL;
	char *got = NULL;
	size_t np, ngot = 0, last_nl = 0, total = 0;
	int fd = -1, pfd[2] = { -1, -1 }, plain = -1, how, oracle;
	int64_t until = 0;
	unsigned resume = 0;
	uint8_t mode;

	if (size < 1)
		return 0;
	mode = data[0];
	data++;
	size--;
	if ((mode & 0x08) && size >= 4) {
		until = 1796278850 + (int64_t)(data[0] | data[1] << 8 |
					       data[2] << 16) - (data[3] & 0x7f);
		data += 4;
		size -= 4;
	}
	if ((mode & 0x10) && size >= 2) {
		resume = data[0] | data[1] << 8;
		data += 2;
		size -= 2;
	}
	how = mode & 3;
	oracle = how != 0 && !(mode & 0x08);
	plain = memfd_create("plain", 0);
	if (plain < 0 || write(plain, data, size) != (ssize_t)size)
		goto out;
	if (resume > size)
		resume = (unsigned)size;
	packed = malloc(size + 1024);
	got = malloc(size + 1);
	if (packed == NULL || got == NULL)
		goto out;
	np = wrap(how, data, size, packed, size + 1024);
	if (np == 0 && size > 0)
		goto out;
	if (mode & 0x04) {
		/* a pipe that holds everything: the stream path */
		if (np > 60000 || pipe(pfd) < 0)
			goto out;
		if (write(pfd[1], packed, np) != (ssize_t)np)
			goto out;
		close(pfd[1]);
		pfd[1] = -1;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd[0]);
	} else {
		fd = memfd_create("logsrc", 0);
		if (fd < 0 || write(fd, packed, np) != (ssize_t)np)
			goto out;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (logsrc_open(path, &ls, &cause) < 0 || logsrc_empty(ls))
		goto out;
	{
		const char *l1;
		size_t n1;

		if (logsrc_first_line(ls, &l1, &n1) == 0 && n1 > PGSC_LINE_MAX)
			abort();
	}
	if (mode & 0x10) {
		/* the hash of the plain data: compressed, it must match */
		int rc;

		if (util_prefix_hash(plain, resume, h2) < 0)
			goto out;
		rc = logsrc_resume(ls, resume, h2, &cause);
		if (oracle && (rc == LOGSRC_DIFFERS ||
			       (rc == LOGSRC_DONE) != (resume == size)))
			abort();
		if (rc < 0 || rc == LOGSRC_DIFFERS || rc == LOGSRC_DONE)
			goto out;
	} else {
		resume = 0;
	}
	if (mode & 0x08)
		logsrc_set_until(ls, until);
	logsrc_suspend(ls);
	for (;;) {
		/* small reads over the first 64 KiB only: they are slow */
		size_t step = (mode & 0x20) && total < 65536 ?
			      1 + (size_t)(mode >> 6) * 13 : sizeof(buf);
		ssize_t n = logsrc_read(ls, buf, step, &cause);
		const char *nl;

		if (n <= 0)
			break;
		nl = memrchr(buf, '\n', (size_t)n);
		if (nl != NULL)
			last_nl = resume + total + (size_t)(nl - buf) + 1;
		if (total + (size_t)n <= size)
			memcpy(got + total, buf, (size_t)n);
		else if (oracle)
			abort(); /* more out than went in */
		total += (size_t)n;
		if (total > (size_t)1 << 20)
			goto out; /* a bomb: its first MiB is enough */
	}
	if (last_nl == 0)
		last_nl = resume;
	ngot = total;
	if (oracle) {
		/* the decoded bytes are the data, and the hash a stream
		 * computes is the hash of the plain file */
		if (resume + ngot != size ||
		    memcmp(got, data + resume, ngot) != 0)
			abort();
		if (logsrc_prefix_hash(ls, last_nl, h1) < 0 ||
		    (util_prefix_hash(plain, last_nl, h2) == 0 &&
		     strcmp(h1, h2) != 0))
			abort();
	} else if (logsrc_prefix_hash(ls, last_nl, h1) < 0) {
		abort(); /* import.c would have to give up the round */
	}
out:
	logsrc_free(ls);
	free(cause);
	free(packed);
	free(got);
	if (fd >= 0)
		close(fd);
	if (plain >= 0)
		close(plain);
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	return 0;
}
