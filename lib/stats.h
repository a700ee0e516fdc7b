/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Descriptive statistics over samples. None of these modify their input;
 * functions that need order sort a private copy. An empty input gives NAN.
 */
#ifndef IOPATH_STATS_H
#define IOPATH_STATS_H

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

#endif
