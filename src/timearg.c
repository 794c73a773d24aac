/* SPDX-License-Identifier: PostgreSQL */
/* timearg.c - pgsc_time_parse(): the times of --since and --until. */
/*
 * ausearch's -ts/-te read dates in the locale's format (01/31/2026 in one,
 * 31/01/2026 in another); a script cannot rely on that, so pgsc takes ISO
 * 8601 and epoch seconds, and the keywords of ausearch that name a fixed
 * point (now, recent, today, yesterday, week-ago).  Record times are whole
 * seconds here: a record at 14:00:00.999 is within "--until 14:00:00".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pgsc-int.h"

static int
digits(const char **s, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		char c = (*s)[i];

		if (c < '0' || c > '9')
			return -1;
		v = v * 10 + (c - '0');
	}
	*s += n;
	*out = v;
	return 0;
}

static int64_t
local_midnight(int64_t now, int days_back)
{
	time_t t = (time_t)now;
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL)
		return now;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_mday -= days_back;
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm);
}

int
pgsc_time_parse(const char *s, int end, int64_t now, int64_t *out)
{
	struct tm tm;
	int y, mo, d, h = 0, mi = 0, sec = 0, has_time = 0, zone = 0;
	int zsign = 0, zh = 0, zm = 0;
	const char *p = s;
	time_t t;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	if (strcmp(s, "now") == 0) {
		*out = now;
		return 0;
	}
	if (strcmp(s, "recent") == 0) {
		*out = now - 600;
		return 0;
	}
	if (strcmp(s, "today") == 0) {
		*out = local_midnight(now, 0);
		return 0;
	}
	if (strcmp(s, "yesterday") == 0) {
		*out = local_midnight(now, 1);
		return 0;
	}
	if (strcmp(s, "week-ago") == 0) {
		*out = local_midnight(now, 7);
		return 0;
	}
	/* epoch seconds, with or without GNU date's "@" */
	if (*p == '@')
		p++;
	if (*p >= '0' && *p <= '9' && strspn(p, "0123456789") == strlen(p)) {
		char *e;
		long long v;

		if (strlen(p) > 12)
			return -EINVAL;
		errno = 0;
		v = strtoll(p, &e, 10);
		if (errno || *e)
			return -EINVAL;
		*out = v;
		return 0;
	}
	if (p != s)
		return -EINVAL;
	/* YYYY-MM-DD[( |T)HH:MM[:SS]][Z|(+|-)HH[:]MM] */
	if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) ||
	    *p++ != '-' || digits(&p, 2, &d))
		return -EINVAL;
	if (*p == ' ' || *p == 'T') {
		p++;
		if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi))
			return -EINVAL;
		if (*p == ':') {
			p++;
			if (digits(&p, 2, &sec))
				return -EINVAL;
		}
		has_time = 1;
	}
	if (*p == 'Z' && p[1] == '\0') {
		zone = 1;
		p++;
	} else if ((*p == '+' || *p == '-') && has_time) {
		zsign = *p == '-' ? -1 : 1;
		p++;
		if (digits(&p, 2, &zh))
			return -EINVAL;
		if (*p == ':')
			p++;
		if (digits(&p, 2, &zm) || zh > 14 || zm > 59)
			return -EINVAL;
		zone = 1;
	}
	if (*p != '\0' || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
	    h > 23 || mi > 59 || sec > 60)
		return -EINVAL;
	if (!has_time && end) {
		h = 23;
		mi = 59;
		sec = 59;
	}
	t = util_make_time(&tm, y, mo, d, h, mi, sec, zone);
	if (t == (time_t)-1)
		return -EINVAL;
	/* a day that does not exist (02-31) was normalised: refuse it */
	if (tm.tm_mday != d || tm.tm_mon != mo - 1)
		return -EINVAL;
	*out = (int64_t)t - zsign * (zh * 3600 + zm * 60);
	return 0;
}
