/* SPDX-License-Identifier: PostgreSQL */
/* serials.c - serial gaps: the kernel serials of a stream should leave
 * no holes; count the ones it leaves, in a sliding window of bits. */
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "live.h"

static uint64_t
serials_zeros(const struct serials *s, uint64_t from, uint64_t to)
{
	uint64_t z = 0;

	for (uint64_t v = from; v < to; v++) {
		uint64_t i = v - s->base;

		if (!(s->bits[i / 8] & (1u << (i % 8))))
			z++;
	}
	return z;
}

void
serials_mark(struct serials *s, uint64_t serial)
{
	uint64_t i;

	if (s->bits == NULL)
		return;
	if (!s->started) {
		s->base = serial > SERIAL_WINDOW / 4 ? serial - SERIAL_WINDOW / 4 : 0;
		s->min = s->max = serial;
		s->started = 1;
	}
	if (serial < s->base)
		return; /* far too late to place: ignore */
	if (serial >= s->base + SERIAL_WINDOW) {
		/* slide: count the holes we leave behind, shift the rest */
		uint64_t nb = serial - SERIAL_WINDOW / 2, keep;

		if (nb > s->max)
			nb = s->max + 1;
		if (s->min < nb)
			s->gaps += serials_zeros(s, s->min, nb);
		if (nb - s->base < SERIAL_WINDOW) {
			uint64_t shift = nb - s->base;
			uint8_t *nbits = calloc(SERIAL_WINDOW / 8, 1);

			if (nbits == NULL)
				return;
			keep = SERIAL_WINDOW - shift;
			for (uint64_t k = 0; k < keep; k++) {
				uint64_t src = k + shift;

				if (s->bits[src / 8] & (1u << (src % 8)))
					nbits[k / 8] |= (uint8_t)(1u << (k % 8));
			}
			free(s->bits);
			s->bits = nbits;
		} else {
			memset(s->bits, 0, SERIAL_WINDOW / 8);
		}
		s->base = nb;
		if (s->min < nb)
			s->min = nb;
		if (serial >= s->base + SERIAL_WINDOW)
			return;
	}
	i = serial - s->base;
	s->bits[i / 8] |= (uint8_t)(1u << (i % 8));
	if (serial < s->min)
		s->min = serial;
	if (serial > s->max)
		s->max = serial;
}

uint64_t
serials_total(const struct serials *s)
{
	if (s->bits == NULL || !s->started)
		return s->gaps;
	return s->gaps + serials_zeros(s, s->min, s->max + 1);
}
