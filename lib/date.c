// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Dates (see date.h): the form checked digit by digit, then every field
 * against its range before any arithmetic. timegm() and QEMU's mktimegm()
 * normalise a month 13 or a 30 February into the next year or March:
 * what they return for such a field is a date nobody asked for.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "date.h"

static bool leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Days from 1970-01-01 to @y-@m-@d (proleptic Gregorian, y >= 1970). */
static int64_t days(int64_t y, int m, int d)
{
	static const int before[] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };
	int64_t n = 0;

	for (int64_t i = 1970; i < y; i++)
		n += leap(i) ? 366 : 365;
	return n + before[m - 1] + (m > 2 && leap(y)) + d - 1;
}

/* @n digits at @s as a number; -1 if one is not a digit. */
static int64_t digits(const char *s, int n)
{
	int64_t v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

int iop_parse_date(const char *s, enum iop_date_form form, int64_t *out)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int64_t y, mo, d, h, mi, se, t;
	const char *rest;

	if (!s || strlen(s) < 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
	    s[16] != ':')
		return -EINVAL;
	y = digits(s, 4);
	mo = digits(s + 5, 2);
	d = digits(s + 8, 2);
	h = digits(s + 11, 2);
	mi = digits(s + 14, 2);
	se = digits(s + 17, 2);
	if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || se < 0)
		return -EINVAL;
	rest = s + 19;
	if (form == IOP_DATE_UTC) {
		if (*rest == '.') {
			if (rest[1] < '0' || rest[1] > '9')
				return -EINVAL;
			rest += 1 + strspn(rest + 1, "0123456789");
		}
		if (*rest++ != 'Z')
			return -EINVAL;
	}
	if (*rest)
		return -EINVAL;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && leap(y)) || h > 23 ||
	    mi > 59 || se > 59 || y < 1970)
		return -ERANGE;
	t = days(y, (int)mo, (int)d) * 86400 + h * 3600 + mi * 60 + se;
	if (t < IOP_DATE_MIN || t > IOP_DATE_MAX)
		return -ERANGE;
	if (out)
		*out = t;
	return 0;
}
