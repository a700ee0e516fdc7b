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
 * The location every comparison tests: the 20%-trimmed mean (Yuen 1974),
 * the mean of what is left when the lowest and highest floor(0.2 n) values
 * are set aside. A repetition that the host slowed as a whole (another
 * guest on the core for seconds) moves it little, where it would drag a
 * plain mean and inflate its variance; with fewer than 5 values nothing is
 * trimmed and everything below is Welch's test exactly.
 */
#define IOP_TRIM	0.2
/* How many values are set aside at each end: floor(IOP_TRIM * n). */
size_t iop_trim_count(size_t n);
/*
 * The trimmed mean of @x (of 1/x with @reciprocal) into @tmean and the
 * squared standard error Yuen gives it, (n - 1) s_w^2 / (h (h - 1)) with
 * s_w^2 the winsorized variance, into @se2 (NAN when h < 2). Returns h,
 * the number of values kept, n - 2 floor(0.2 n).
 */
size_t iop_trimmed(const double *x, size_t n, bool reciprocal, double *tmean, double *se2);

/*
 * Resolution of the two-sided test: what a comparison could have
 * detected. @vb and @vn are the squared standard errors of the two
 * trimmed means on the tested scale, @nb and @nn the numbers of values
 * kept (h).
 */
/* Welch-Satterthwaite degrees of freedom; NAN when undefined. */
double iop_welch_df(double vb, size_t nb, double vn, size_t nn);
/*
 * Minimum detectable effect, as an absolute difference of the means:
 * (t(1 - alpha/2, df) + t(power, df)) * sqrt(vb + vn), the difference a
 * test at level @alpha finds with probability @power. NAN when undefined.
 */
double iop_mde(double vb, size_t nb, double vn, size_t nn, double alpha, double power);

/* The power at which compare and iopath bench --calibrate state what could be seen. */
#define IOP_MDE_POWER	0.95

/* The same for a test of @df degrees of freedom with squared standard error @se2. */
double iop_mde_t(double se2, double df, double alpha, double power);

/*
 * Half-width of the (1 - alpha) confidence interval of the trimmed mean of
 * @x (Student t, h - 1 degrees of freedom, Yuen's standard error) relative
 * to |trimmed mean|; NAN for n < 2 or a zero mean. With @reciprocal, of
 * 1/x (rates).
 */
double iop_ci_rel_halfwidth(const double *x, size_t n, double alpha, bool reciprocal);

/*
 * Precision-driven repetitions: after @done repetitions whose main metric's
 * 95% CI half-width is @ci_pct (% of the mean, NAN before two), with a
 * target of @target_pct, at least @min_reps repetitions, @elapsed_s of
 * @budget_s seconds spent and at most @max_reps: NULL while another is
 * due, else why they stop ("target", "time_budget", "max_reps"). The
 * target is reached only at or below it, and never before @min_reps or
 * two repetitions.
 */
const char *iop_precision_stop(double ci_pct, double target_pct, int done, int min_reps,
			       double elapsed_s, double budget_s, int max_reps);
/*
 * Repetitions nested in groups (boots): @key[i] names the group of @x[i].
 * Writes the mean of each group, in order of first appearance, to @means
 * (room for @n) and returns the number of groups. A group's value is its
 * trimmed mean; with @reciprocal, the reciprocal of the trimmed mean of
 * 1/x, the scale a rate is tested on, so that the group values are again
 * values of the same kind.
 */
size_t iop_group_means(const double *x, const char *const *key, size_t n, bool reciprocal,
		       double *means);

/*
 * Yuen's two-sided test of the trimmed means of @xb and @xn (of 1/x with
 * @reciprocal, the scale rates are tested on). Returns p (NAN when
 * undefined); @rel gets (tmean_n - tmean_b) / |tmean_b| on that scale.
 */
double iop_yuen_p(const double *xb, size_t nb, const double *xn, size_t nn, bool reciprocal,
		  double *rel);

/*
 * Yuen's test for paired values, on the difference scores (Wilcox): the
 * pairs are (@xb[i], @xn[i]), of 1/x with @reciprocal, as interleaved runs
 * give them, each pair measured side by side in time, so drift that moves
 * both cancels. @d gets the trimmed mean of the differences xn[i] - xb[i],
 * @se2 its squared standard error, @base the trimmed mean of the xb on
 * the tested scale; returns the differences kept after trimming (the
 * test has that minus 1 degrees of freedom), 0 when n < 2.
 */
size_t iop_paired(const double *xb, const double *xn, size_t n, bool reciprocal, double *d,
		  double *se2, double *base);

/*
 * Interleaved sides run in cycles of @k rounds, each a Latin square of
 * the sides' places (A A' B, A' B A, B A A', then B A' A, A' A B, A B A'),
 * so that each side takes every place in a round once per cycle and none
 * runs twice in a row. A trend within a round adds to one round's difference and takes
 * from another's: the differences of single rounds spread more than their
 * mean does (read_vs_readv here: A/A means 0.22% apart, single rounds
 * predicting 0.35%), and a linear trend cancels only over a whole cycle.
 * The unit of the design is therefore a cycle of rounds (k j .. k j + k - 1):
 * @units[j] is the mean of those @k values of @x (on the 1/x scale with
 * @reciprocal, given back as a rate). Returns n / k; rounds after the last
 * whole cycle are left out. Records written before cycles carried their
 * length came from a design of k = 2 (A B, B A).
 */
size_t iop_round_units(const double *x, size_t n, size_t k, bool reciprocal, double *units);

/*
 * The same over cycles: @xb and @xn hold one value per round, and the
 * test runs on their iop_round_units(). What calibrate and compare test
 * interleaved sides by.
 */
size_t iop_paired_rounds(const double *xb, const double *xn, size_t n, size_t k, bool reciprocal,
			 double *d, double *se2, double *base);

/* The two-sided p of a paired test's @d with @se2 and @h values kept (NAN if h < 2). */
double iop_paired_t_p(double d, double se2, size_t h);

/*
 * @v as text with the precision a comparison of such values needs: two
 * decimals below 1000 (a ratio of 2.11 is not 2.1, and 1.04 is not 1.0),
 * whole numbers from 1000, three significant digits below 0.01, %.4g
 * from 1e8, "n/a" for a NAN or an infinity. Returns @buf.
 */
const char *iop_fmt_num(char *buf, size_t len, double v);

/*
 * The Clopper-Pearson (exact) two-sided (1 - @alpha) confidence interval
 * of a binomial proportion, @k successes of @n, into @lo and @hi: the
 * kill rate of a random sample of mutants. Never narrower than its level
 * claims, at any n; both NAN for n = 0 or k > n.
 */
void iop_binomial_ci(unsigned int k, unsigned int n, double alpha, double *lo, double *hi);

#endif
