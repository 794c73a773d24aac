/* SPDX-License-Identifier: PostgreSQL */
/* utf8.c - the one UTF-8 decoder and encoder (RFC 3629). */
/*
 * Every reader of untrusted text that checks UTF-8 (the JSON reader, the
 * escaping of output) goes through utf8_decode(): overlong forms,
 * surrogates and values past U+10FFFF are refused in one place.  libc
 * only.
 */
#include <stddef.h>
#include <stdint.h>

#include "pgsc-int.h"

/**
 * The well-formed UTF-8 sequence of a non-ASCII lead byte.
 * @param p the lead byte (at least 0x80)
 * @param n bytes available at @p
 * @param cp where the code point goes, or NULL
 * Returns the length of the sequence (2 to 4), 0 when it is not one.
 */
size_t
utf8_decode(const unsigned char *p, size_t n, uint32_t *cp)
{
	uint32_t v;
	size_t len;

	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		v = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		v = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		v = p[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (p[i] & 0x3f);
	}
	if ((len == 3 && v < 0x800) || (len == 4 && v < 0x10000) ||
	    v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	if (cp != NULL)
		*cp = v;
	return len;
}

/**
 * Encode code point @cp (at most U+10FFFF) in @out.
 * Returns the number of bytes written (1 to 4).
 */
size_t
utf8_encode(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}
