/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Descriptive statistics over samples. None of these modify their input;
 * functions that need order sort a private copy. An empty input gives NAN.
 */
#ifndef IOPATH_STATS_H
#define IOPATH_STATS_H

#include <stdbool.h>
#include <stddef.h>

double iop_mean(const double *x, size_t n);
/* Harmonic mean: the right mean for rates (ops/s) over equal amounts of work. */
double iop_hmean(const double *x, size_t n);
/* Sample standard deviation (n - 1 denominator); 0 for n == 1. */
double iop_stddev(const double *x, size_t n);
/* Coefficient of variation, stddev / mean, as a fraction (0.02 == 2%). */
double iop_cv(const double *x, size_t n);
double iop_median(const double *x, size_t n);
double iop_min(const double *x, size_t n);
double iop_max(const double *x, size_t n);
/* Percentile p in [0, 100], linear interpolation between closest ranks. */
double iop_percentile(const double *x, size_t n, double p);

/*
 * Resolution of a two-sided Welch t-test: what a comparison could have
 * detected. @vb and @vn are the variances of the two means (s^2 / n) on
 * the tested scale, @nb and @nn the numbers of observations.
 */
/* Welch-Satterthwaite degrees of freedom; NAN when undefined. */
double iop_welch_df(double vb, size_t nb, double vn, size_t nn);
/*
 * Minimum detectable effect, as an absolute difference of the means:
 * (t(1 - alpha/2, df) + t(power, df)) * sqrt(vb + vn), the difference a
 * test at level @alpha finds with probability @power. NAN when undefined.
 */
double iop_mde(double vb, size_t nb, double vn, size_t nn, double alpha, double power);
/*
 * Half-width of the (1 - alpha) confidence interval of the mean of @x
 * (Student t, n - 1 degrees of freedom) relative to |mean|; NAN for n < 2
 * or a zero mean. With @reciprocal, of the mean of 1/x (rates).
 */
double iop_ci_rel_halfwidth(const double *x, size_t n, double alpha, bool reciprocal);
/*
 * Repetitions nested in groups (boots): @key[i] names the group of @x[i].
 * Writes the mean of each group, in order of first appearance, to @means
 * (room for @n) and returns the number of groups. With @reciprocal the
 * group's value is its harmonic mean (1 / mean of 1/x), the mean a rate is
 * tested by, so that the group means are again values of the same kind.
 */
size_t iop_group_means(const double *x, const char *const *key, size_t n, bool reciprocal,
		       double *means);

/*
 * Welch's two-sided t-test of the means of @xb and @xn (of 1/x with
 * @reciprocal, the scale rates are tested on). Returns p (NAN when
 * undefined); @rel gets (mean_n - mean_b) / |mean_b| on that scale.
 */
double iop_welch_p(const double *xb, size_t nb, const double *xn, size_t nn, bool reciprocal,
		   double *rel);

#endif
