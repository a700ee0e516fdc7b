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
#include <stdio.h>
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

/* A sorted copy of @x (n > 0), or NULL without memory. */
static double *sorted_copy(const double *x, size_t n)
{
	double *s = malloc(n * sizeof(*s));

	if (!s)
		return NULL;
	memcpy(s, x, n * sizeof(*s));
	gsl_sort(s, 1, n);
	return s;
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
	s = sorted_copy(x, n);
	if (!s)
		return NAN;
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
	return iop_mde_t(vb + vn, iop_welch_df(vb, nb, vn, nn), alpha, power);
}

double iop_mde_t(double se2, double df, double alpha, double power)
{
	if (!(df > 0) || !(se2 >= 0) || !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1))
		return NAN;
	return (gsl_cdf_tdist_Pinv(1 - alpha / 2, df) + gsl_cdf_tdist_Pinv(power, df)) * sqrt(se2);
}

size_t iop_trim_count(size_t n)
{
	return (size_t)floor(IOP_TRIM * (double)n);
}

size_t iop_trimmed(const double *x, size_t n, bool reciprocal, double *tmean, double *se2)
{
	size_t g = iop_trim_count(n), h = n - 2 * g, i;
	double *y;

	*tmean = *se2 = NAN;
	y = malloc((n ? n : 1) * sizeof(*y));
	if (!n || !y) {
		free(y);
		return 0;
	}
	for (i = 0; i < n; i++)
		y[i] = reciprocal ? 1 / x[i] : x[i];
	gsl_sort(y, 1, n);
	*tmean = gsl_stats_mean(y + g, 1, h);
	/* winsorize: each trimmed value becomes the nearest kept one */
	for (i = 0; i < g; i++) {
		y[i] = y[g];
		y[n - 1 - i] = y[n - 1 - g];
	}
	if (h >= 2)
		*se2 = gsl_stats_variance(y, 1, n) * (double)(n - 1) / (double)(h * (h - 1));
	free(y);
	return h;
}

double iop_ci_rel_halfwidth(const double *x, size_t n, double alpha, bool reciprocal)
{
	double tmean, se2;
	size_t h;

	if (n < 2 || !(alpha > 0 && alpha < 1))
		return NAN;
	h = iop_trimmed(x, n, reciprocal, &tmean, &se2);
	if (h < 2 || tmean == 0 || !isfinite(tmean))
		return NAN;
	return gsl_cdf_tdist_Pinv(1 - alpha / 2, (double)(h - 1)) * sqrt(se2) / fabs(tmean);
}

const char *iop_precision_stop(double ci_pct, double target_pct, int done, int min_reps,
			       double elapsed_s, double budget_s, int max_reps)
{
	if (done < min_reps || done < 2)
		return NULL;
	if (ci_pct <= target_pct)
		return "target";
	if (elapsed_s >= budget_s)
		return "time_budget";
	if (done >= max_reps)
		return "max_reps";
	return NULL;
}

size_t iop_group_means(const double *x, const char *const *key, size_t n, bool reciprocal,
		       double *means)
{
	size_t ng = 0, i, j, cnt;
	double *member, tmean, se2;

	member = malloc((n ? n : 1) * sizeof(*member));
	if (!member)
		return 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && strcmp(key[j], key[i]); j++)
			;
		if (j < i)	/* group seen already */
			continue;
		cnt = 0;
		for (j = i; j < n; j++)
			if (!strcmp(key[j], key[i]))
				member[cnt++] = x[j];
		iop_trimmed(member, cnt, reciprocal, &tmean, &se2);
		means[ng++] = reciprocal ? 1 / tmean : tmean;
	}
	free(member);
	return ng;
}

double iop_yuen_p(const double *xb, size_t nb, const double *xn, size_t nn, bool reciprocal,
		  double *rel)
{
	double mb, vb, mn, vn, df, t;
	size_t hb, hn;

	*rel = NAN;
	if (nb < 2 || nn < 2)
		return NAN;
	hb = iop_trimmed(xb, nb, reciprocal, &mb, &vb);
	hn = iop_trimmed(xn, nn, reciprocal, &mn, &vn);
	if (mb != 0)
		*rel = (mn - mb) / fabs(mb);
	if (vb + vn == 0)
		return mn == mb ? 1 : 0;
	df = iop_welch_df(vb, hb, vn, hn);
	t = (mn - mb) / sqrt(vb + vn);
	return 2 * gsl_cdf_tdist_Q(fabs(t), df);
}

size_t iop_paired(const double *xb, const double *xn, size_t n, bool reciprocal, double *d,
		  double *se2, double *base)
{
	double *diff, se2b;
	size_t h;

	*d = *se2 = *base = NAN;
	if (n < 2)
		return 0;
	diff = malloc(n * sizeof(*diff));
	if (!diff)
		return 0;
	for (size_t i = 0; i < n; i++)
		diff[i] = reciprocal ? 1 / xn[i] - 1 / xb[i] : xn[i] - xb[i];
	h = iop_trimmed(diff, n, false, d, se2);
	iop_trimmed(xb, n, reciprocal, base, &se2b);
	free(diff);
	return h;
}

size_t iop_round_units(const double *x, size_t n, size_t k, bool reciprocal, double *units)
{
	if (!k)
		return 0;
	for (size_t j = 0; j < n / k; j++) {
		double sum = 0;

		for (size_t i = 0; i < k; i++)
			sum += reciprocal ? 1 / x[k * j + i] : x[k * j + i];
		units[j] = reciprocal ? k / sum : sum / k;
	}
	return n / k;
}

size_t iop_paired_rounds(const double *xb, const double *xn, size_t n, size_t k, bool reciprocal,
			 double *d, double *se2, double *base)
{
	size_t nu = k ? n / k : 0, h;
	double *ub = malloc((nu ? 2 * nu : 1) * sizeof(*ub)), *un = ub + nu;

	*d = *se2 = *base = NAN;
	if (!ub)
		return 0;
	iop_round_units(xb, n, k, reciprocal, ub);
	h = iop_paired(ub, un, iop_round_units(xn, n, k, reciprocal, un), reciprocal, d, se2, base);
	free(ub);
	return h;
}

double iop_paired_t_p(double d, double se2, size_t h)
{
	if (h < 2)
		return NAN;
	if (se2 == 0)
		return d == 0 ? 1 : 0;
	return 2 * gsl_cdf_tdist_Q(fabs(d) / sqrt(se2), (double)(h - 1));
}

const char *iop_fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, len, "n/a");
	else if (a >= 1e8)
		snprintf(buf, len, "%.4g", v);
	else if (a >= 1000)
		snprintf(buf, len, "%.0f", v);
	else if (a != 0 && a < 0.01)
		snprintf(buf, len, "%.3g", v);
	else
		snprintf(buf, len, "%.2f", v);
	return buf;
}

void iop_binomial_ci(unsigned int k, unsigned int n, double alpha, double *lo, double *hi)
{
	if (!n || k > n) {
		*lo = *hi = NAN;
		return;
	}
	*lo = k ? gsl_cdf_beta_Pinv(alpha / 2, k, n - k + 1) : 0;
	*hi = k < n ? gsl_cdf_beta_Pinv(1 - alpha / 2, k + 1, n - k) : 1;
}
