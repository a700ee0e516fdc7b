/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one parser of the numbers iopath takes from a command line, a
 * profile or the environment (options, benchmark parameters, sizes,
 * sequence numbers). strtoull() reads "-1" as 2^64 - 1 and skips leading
 * blanks; strtod() reads "0x10", "inf" and "nan": each of those is refused
 * here, as is anything outside the caller's range.
 */
#ifndef IOPATH_NUMBER_H
#define IOPATH_NUMBER_H

#include <stdint.h>

/* Decimal digits only, in @min..@max. 0 or -EINVAL (-ERANGE outside it). */
int iop_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/*
 * A decimal number: digits with an optional fraction and exponent ("0.5",
 * "2e-3"), a leading '-' only when @min is negative, in @min..@max.
 * 0 or -EINVAL (-ERANGE outside the range).
 */
int iop_parse_real(const char *s, double min, double max, double *out);

/*
 * A percentage above 0 and at most 100 (the half-width of an interval:
 * compare and ab --target-ci). 0 or -EINVAL (-ERANGE outside it).
 */
int iop_parse_percent(const char *s, double *out);

#endif
