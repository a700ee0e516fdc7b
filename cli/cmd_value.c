// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath value OPTION KIND VALUE: an option's value checked by the C
 * parsers (lib/number.c, lib/date.c) for the scripts (ab, vm, mutate,
 * mutate-tool), so that a range is checked where the C commands check
 * theirs and no script keeps a pattern of its own (a pattern took
 * --target-ci 150, and --rtc-base 9999-99-99T99:99:99). Exit 0, or 2
 * with one line: "iopath: value: OPTION 'VALUE': expected ...".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "date.h"
#include "number.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: iopath value OPTION KIND VALUE\n"
		   "Check VALUE, given to OPTION, as KIND:\n"
		   "  count:MIN:MAX[:UNIT]  a decimal integer from MIN to MAX (of UNIT, for the\n"
		   "                        message)\n"
		   "  percent               a percentage above 0 and at most 100 (0.05, 5)\n"
		   "  date                  YYYY-MM-DDTHH:MM:SS (UTC), each field in its range,\n"
		   "                        from 1970-01-01T00:00:00 to 2099-12-31T23:59:59\n"
		   "  utc-time              the same with an optional .fraction and a Z\n"
		   "Exit 0, or 2 with one line naming OPTION, VALUE and what is expected.\n");
}

static int count(const char *opt, const char *kind, const char *v)
{
	uint64_t min, max, x;
	char lo[24], hi[24], unit[64] = "";
	int n = 0;

	if (sscanf(kind, "count:%23[0-9]:%23[0-9]%n", lo, hi, &n) != 2 ||
	    (kind[n] && sscanf(kind + n, ":%63[^\n]", unit) != 1) ||
	    iop_parse_u64(lo, 0, UINT64_MAX, &min) || iop_parse_u64(hi, min, UINT64_MAX, &max))
		return iop_usage_error("value", "'%s': not a KIND (iopath value --help)", kind);
	if (iop_parse_u64(v, min, max, &x))
		return iop_usage_error("value", "%s '%s': expected %s%s%" PRIu64 " to %" PRIu64, opt, v,
				       unit, *unit ? ", " : "", min, max);
	return 0;
}

static int cmd_value(int argc, char **argv)
{
	const char *opt, *kind, *v;
	double p;
	int err;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc != 4)
		return iop_usage_error("value", "expected OPTION KIND VALUE (iopath value --help)");
	opt = argv[1];
	kind = argv[2];
	v = argv[3];
	if (!strncmp(kind, "count:", 6))
		return count(opt, kind, v);
	if (!strcmp(kind, "percent")) {
		if (iop_parse_percent(v, &p))
			return iop_usage_error("value", "%s '%s': expected a percentage above 0 and at most 100, such as 0.05",
					       opt, v);
		return 0;
	}
	if (!strcmp(kind, "date") || !strcmp(kind, "utc-time")) {
		err = iop_parse_date(v, kind[0] == 'd' ? IOP_DATE_PLAIN : IOP_DATE_UTC, NULL);
		if (err)
			return iop_usage_error("value", "%s '%s': expected %s (UTC), a date from 1970-01-01 to 2099-12-31%s",
					       opt, v, kind[0] == 'd' ? "YYYY-MM-DDTHH:MM:SS" : "YYYY-MM-DDTHH:MM:SSZ",
					       err == -ERANGE ? ", each field in its range" : "");
		return 0;
	}
	return iop_usage_error("value", "'%s': not a KIND (iopath value --help)", kind);
}

IOP_COMMAND("value", "check an option's value (a count, a percentage, a date) for the scripts", cmd_value)
