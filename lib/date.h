/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one parser of the dates iopath takes: export --start-time and a
 * record's "time" (KCIDB's start_time, RFC 3339 in UTC), vm --rtc-base
 * (QEMU's -rtc base=, which adjusts a field out of range instead of
 * refusing it, so 9999-99-99T99:99:99 became a date in 10007 and the
 * guest's clock garbage). A date is read once, here, for every option
 * and file that has one; the scripts ask `iopath value`.
 */
#ifndef IOPATH_DATE_H
#define IOPATH_DATE_H

#include <stdint.h>

/*
 * The dates taken: 1970-01-01T00:00:00 to 2099-12-31T23:59:59 UTC. The
 * guest's clock is the PC's CMOS RTC, whose two-digit year a Linux guest
 * reads as 1970 to 2069 or, with the century register QEMU sets, up to
 * 2099; before the epoch there is no time_t for a record.
 */
#define IOP_DATE_MIN 0LL		/* 1970-01-01T00:00:00Z */
#define IOP_DATE_MAX 4102444799LL	/* 2099-12-31T23:59:59Z */

enum iop_date_form {
	IOP_DATE_PLAIN,		/* YYYY-MM-DDTHH:MM:SS (QEMU's -rtc base=) */
	IOP_DATE_UTC,		/* the same, an optional .fraction, then Z */
};

/*
 * @s in @form, every field in its range (a month 01-12, a day the month
 * has, 29 February in a leap year only, hours 00-23, minutes and seconds
 * 00-59), the date from IOP_DATE_MIN to IOP_DATE_MAX. 0 with the seconds
 * since the epoch in *@out (may be NULL), -EINVAL (not that form), or
 * -ERANGE (a field, or the date, out of range).
 */
int iop_parse_date(const char *s, enum iop_date_form form, int64_t *out);

#endif
