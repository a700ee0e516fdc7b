// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Descriptive statistics over benchmark samples (see stats.h): GSL's
 * implementations (numerically careful: the variance does not lose its
 * digits when the spread is tiny next to the values, IOPS around 1e6 with
 * a cv of 0.5%), behind the NAN-for-empty conventions the callers rely on.
 * GSL has no harmonic mean; that one is here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "stats.h"

double iop_mean(const double *x, size_t n)
{
	return n ? gsl_stats_mean(x, 1, n) : NAN;
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
	if (!n)
		return NAN;
	return n == 1 ? 0 : gsl_stats_sd(x, 1, n);
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
	return n ? gsl_stats_min(x, 1, n) : NAN;
}

double iop_max(const double *x, size_t n)
{
	return n ? gsl_stats_max(x, 1, n) : NAN;
}

/*
 * Linear interpolation between closest ranks, the "R-7" definition that
 * numpy.percentile, Excel's PERCENTILE.INC, gnuplot's stats and GSL's
 * quantile use: rank h = (n - 1) * p / 100 over the sorted samples. p = 50
 * is the median. The input stays as it is: a private copy is sorted.
 */
double iop_percentile(const double *x, size_t n, double p)
{
	double *s, v;

	if (!n || isnan(p) || p < 0 || p > 100)
		return NAN;
	s = malloc(n * sizeof(*s));
	if (!s)
		return NAN;
	memcpy(s, x, n * sizeof(*s));
	gsl_sort(s, 1, n);
	v = gsl_stats_quantile_from_sorted_data(s, 1, n, p / 100);
	free(s);
	return v;
}

double iop_median(const double *x, size_t n)
{
	return iop_percentile(x, n, 50);
}
