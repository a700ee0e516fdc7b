// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Numbers from the command line, profiles and the environment (see
 * number.h): the grammar is checked before strtoull()/strtod() see the
 * text, because both accept more than a user means (a sign that wraps,
 * hexadecimal, infinities, leading blanks).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "number.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int iop_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !is_digit(*s))
		return -EINVAL;
	for (const char *p = s; *p; p++)
		if (!is_digit(*p))
			return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || *end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int iop_parse_real(const char *s, double min, double max, double *out)
{
	const char *p = s;
	bool digits = false;
	char *end;
	double v;

	if (!s)
		return -EINVAL;
	if (*p == '-' && min < 0)
		p++;
	/* digits [. digits] [e [+-] digits]: no hex, no inf or nan, no blanks */
	while (is_digit(*p)) {
		p++;
		digits = true;
	}
	if (*p == '.') {
		p++;
		while (is_digit(*p)) {
			p++;
			digits = true;
		}
	}
	if (!digits)
		return -EINVAL;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!is_digit(*p))
			return -EINVAL;
		while (is_digit(*p))
			p++;
	}
	if (*p)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end || !isfinite(v))
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int iop_parse_percent(const char *s, double *out)
{
	double v;
	int err = iop_parse_real(s, 0, 100, &v);

	if (err)
		return err;
	if (!(v > 0))
		return -ERANGE;
	*out = v;
	return 0;
}
