// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Descriptive statistics over benchmark samples (see stats.h).
 *
 * Sample counts are small (repetitions, per-second samples), so clarity
 * wins over single-pass tricks: the variance is the two-pass sum of squared
 * deviations, which does not lose precision the way sum(x^2) - n*mean^2 does
 * when the spread is tiny compared with the values (IOPS around 1e6 with a
 * cv of 0.5%).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

double iop_mean(const double *x, size_t n)
{
	double sum = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++)
		sum += x[i];
	return sum / n;
}

double iop_hmean(const double *x, size_t n)
{
	double sum = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++) {
		/* A zero rate means some repetition did no work at all. */
		if (x[i] == 0)
			return 0;
		sum += 1 / x[i];
	}
	return n / sum;
}

double iop_stddev(const double *x, size_t n)
{
	double mean, ss = 0;
	size_t i;

	if (!n)
		return NAN;
	if (n == 1)
		return 0;
	mean = iop_mean(x, n);
	for (i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	return sqrt(ss / (n - 1));
}

double iop_cv(const double *x, size_t n)
{
	double mean = iop_mean(x, n);

	if (!n || mean == 0)
		return NAN;
	return iop_stddev(x, n) / fabs(mean);
}

double iop_min(const double *x, size_t n)
{
	double m;
	size_t i;

	if (!n)
		return NAN;
	m = x[0];
	for (i = 1; i < n; i++)
		if (x[i] < m)
			m = x[i];
	return m;
}

double iop_max(const double *x, size_t n)
{
	double m;
	size_t i;

	if (!n)
		return NAN;
	m = x[0];
	for (i = 1; i < n; i++)
		if (x[i] > m)
			m = x[i];
	return m;
}

static int cmp_double(const void *a, const void *b)
{
	double da = *(const double *)a, db = *(const double *)b;

	return (da > db) - (da < db);
}

/*
 * Linear interpolation between closest ranks, the "R-7" definition that
 * numpy.percentile, Excel's PERCENTILE.INC and gnuplot's stats use: rank
 * h = (n - 1) * p / 100 over the sorted samples, then interpolate between
 * floor(h) and floor(h) + 1. p = 50 is the median.
 */
double iop_percentile(const double *x, size_t n, double p)
{
	double *s, h, frac, v;
	size_t lo;

	if (!n || isnan(p) || p < 0 || p > 100)
		return NAN;
	s = malloc(n * sizeof(*s));
	if (!s)
		return NAN;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);

	h = (n - 1) * p / 100;
	lo = (size_t)h;
	frac = h - lo;
	if (lo + 1 >= n)
		v = s[n - 1];
	else
		v = s[lo] + frac * (s[lo + 1] - s[lo]);
	free(s);
	return v;
}

double iop_median(const double *x, size_t n)
{
	return iop_percentile(x, n, 50);
}
