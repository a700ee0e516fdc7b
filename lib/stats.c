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

#include <gsl/gsl_cdf.h>
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

double iop_welch_df(double vb, size_t nb, double vn, size_t nn)
{
	double den;

	if (nb < 2 || nn < 2 || !(vb >= 0) || !(vn >= 0) || vb + vn == 0)
		return NAN;
	den = vb * vb / (double)(nb - 1) + vn * vn / (double)(nn - 1);
	return (vb + vn) * (vb + vn) / den;
}

double iop_mde(double vb, size_t nb, double vn, size_t nn, double alpha, double power)
{
	double df = iop_welch_df(vb, nb, vn, nn);

	if (isnan(df) || !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1))
		return NAN;
	return (gsl_cdf_tdist_Pinv(1 - alpha / 2, df) + gsl_cdf_tdist_Pinv(power, df)) *
	       sqrt(vb + vn);
}

double iop_ci_rel_halfwidth(const double *x, size_t n, double alpha, bool reciprocal)
{
	double sum = 0, sq = 0, mean, sd, y;
	size_t i;

	if (n < 2 || !(alpha > 0 && alpha < 1))
		return NAN;
	for (i = 0; i < n; i++)
		sum += reciprocal ? 1 / x[i] : x[i];
	mean = sum / (double)n;
	for (i = 0; i < n; i++) {
		y = (reciprocal ? 1 / x[i] : x[i]) - mean;
		sq += y * y;
	}
	if (mean == 0 || !isfinite(mean))
		return NAN;
	sd = sqrt(sq / (double)(n - 1));
	return gsl_cdf_tdist_Pinv(1 - alpha / 2, (double)(n - 1)) * sd / sqrt((double)n) /
	       fabs(mean);
}

size_t iop_group_means(const double *x, const char *const *key, size_t n, bool reciprocal,
		       double *means)
{
	size_t ng = 0, i, j, cnt;
	double sum;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && strcmp(key[j], key[i]); j++)
			;
		if (j < i)	/* group seen already */
			continue;
		sum = 0;
		cnt = 0;
		for (j = i; j < n; j++) {
			if (strcmp(key[j], key[i]))
				continue;
			sum += reciprocal ? 1 / x[j] : x[j];
			cnt++;
		}
		means[ng++] = reciprocal ? (double)cnt / sum : sum / (double)cnt;
	}
	return ng;
}

static void mean_var(const double *x, size_t n, bool reciprocal, double *mean, double *var)
{
	double sum = 0, sq = 0, y;
	size_t i;

	for (i = 0; i < n; i++)
		sum += reciprocal ? 1 / x[i] : x[i];
	*mean = sum / (double)n;
	for (i = 0; i < n; i++) {
		y = (reciprocal ? 1 / x[i] : x[i]) - *mean;
		sq += y * y;
	}
	*var = n > 1 ? sq / (double)(n - 1) : NAN;
}

double iop_welch_p(const double *xb, size_t nb, const double *xn, size_t nn, bool reciprocal,
		   double *rel)
{
	double mb, vb, mn, vn, df, t;

	*rel = NAN;
	if (nb < 2 || nn < 2)
		return NAN;
	mean_var(xb, nb, reciprocal, &mb, &vb);
	mean_var(xn, nn, reciprocal, &mn, &vn);
	if (mb != 0)
		*rel = (mn - mb) / fabs(mb);
	vb /= (double)nb;
	vn /= (double)nn;
	if (vb + vn == 0)
		return mn == mb ? 1 : 0;
	df = iop_welch_df(vb, nb, vn, nn);
	t = (mn - mb) / sqrt(vb + vn);
	return 2 * gsl_cdf_tdist_Q(fabs(t), df);
}
