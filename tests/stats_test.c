// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lib/stats.c against values worked out by hand and against GSL, an
 * independent implementation of the same definitions (sample stddev with
 * n - 1, quantiles interpolated between closest ranks). Catches the
 * population/sample stddev mix-up, off-by-one percentile ranks, the
 * arithmetic mean used for rates, input sorted in place behind the caller's
 * back, empty input turned into 0 instead of NAN, target_ci taken as
 * reached while the interval is still wider than asked, and a summary
 * that rounds a ratio of 2.11 to 2.1 or one of 1.04 to 1.0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "kselftest_harness.h"
#include "array_size.h"
#include "stats.h"

/* Relative closeness for values computed along different paths. */
static int close_to(double got, double want)
{
	double scale = fabs(want) > 1 ? fabs(want) : 1;

	return fabs(got - want) <= 1e-9 * scale;
}

FIXTURE(stats) {
	int unused;
};

FIXTURE_SETUP(stats)
{
	self->unused = 0;
}

FIXTURE_TEARDOWN(stats)
{
}

/*
 * The textbook set {2,4,4,4,5,5,7,9}: sum of squared deviations from 5 is
 * 32, so the sample variance is 32/7 and the population one 32/8 = 4
 * (stddev 2, the value a population formula would give).
 */
static const double textbook[] = { 2, 4, 4, 4, 5, 5, 7, 9 };

TEST_F(stats, textbook_set_mean_stddev_cv)
{
	size_t n = ARRAY_SIZE(textbook);

	EXPECT_TRUE(close_to(iop_mean(textbook, n), 5.0));
	EXPECT_TRUE(close_to(iop_stddev(textbook, n), 2.138089935299395));
	EXPECT_TRUE(close_to(iop_stddev(textbook, n), sqrt(32.0 / 7)));
	EXPECT_FALSE(close_to(iop_stddev(textbook, n), 2.0));
	EXPECT_TRUE(close_to(iop_cv(textbook, n), sqrt(32.0 / 7) / 5));
	EXPECT_TRUE(close_to(iop_min(textbook, n), 2));
	EXPECT_TRUE(close_to(iop_max(textbook, n), 9));
}

/*
 * Ranks h = (n - 1) p / 100 over the sorted set, interpolated:
 * p50: h = 3.5, between 4 and 5 -> 4.5; p90: h = 6.3, 7 + 0.3 * (9 - 7) = 7.6;
 * p10: h = 0.7, 2 + 0.7 * (4 - 2) = 3.4; p25: h = 1.75, between 4 and 4 -> 4.
 */
TEST_F(stats, textbook_set_percentiles_interpolate_between_ranks)
{
	size_t n = ARRAY_SIZE(textbook);

	EXPECT_TRUE(close_to(iop_median(textbook, n), 4.5));
	EXPECT_TRUE(close_to(iop_percentile(textbook, n, 50), 4.5));
	EXPECT_TRUE(close_to(iop_percentile(textbook, n, 90), 7.6));
	EXPECT_TRUE(close_to(iop_percentile(textbook, n, 10), 3.4));
	EXPECT_TRUE(close_to(iop_percentile(textbook, n, 25), 4.0));
	EXPECT_TRUE(close_to(iop_percentile(textbook, n, 0), 2.0));
	EXPECT_TRUE(close_to(iop_percentile(textbook, n, 100), 9.0));
}

TEST_F(stats, odd_count_median_is_middle_sample)
{
	const double x[] = { 9, 1, 5, 3, 7 };

	EXPECT_TRUE(close_to(iop_median(x, ARRAY_SIZE(x)), 5));
}

/* 3 / (1 + 1/2 + 1/4) = 12/7; the arithmetic mean would say 7/3. */
TEST_F(stats, hmean_of_rates)
{
	const double x[] = { 1, 2, 4 };

	EXPECT_TRUE(close_to(iop_hmean(x, ARRAY_SIZE(x)), 12.0 / 7));
	EXPECT_TRUE(close_to(iop_hmean(x, ARRAY_SIZE(x)), 1.714285714285714));
	EXPECT_FALSE(close_to(iop_hmean(x, ARRAY_SIZE(x)), 7.0 / 3));
}

TEST_F(stats, input_order_untouched)
{
	double x[] = { 5, 1, 4, 2, 3 };
	const double orig[] = { 5, 1, 4, 2, 3 };

	iop_median(x, ARRAY_SIZE(x));
	iop_percentile(x, ARRAY_SIZE(x), 90);
	EXPECT_EQ(0, memcmp(x, orig, sizeof(x)));
}

TEST_F(stats, empty_input_is_nan)
{
	const double x[] = { 1 };

	EXPECT_TRUE(isnan(iop_mean(x, 0)));
	EXPECT_TRUE(isnan(iop_hmean(x, 0)));
	EXPECT_TRUE(isnan(iop_stddev(x, 0)));
	EXPECT_TRUE(isnan(iop_cv(x, 0)));
	EXPECT_TRUE(isnan(iop_median(x, 0)));
	EXPECT_TRUE(isnan(iop_min(x, 0)));
	EXPECT_TRUE(isnan(iop_max(x, 0)));
	EXPECT_TRUE(isnan(iop_percentile(x, 0, 50)));
	EXPECT_TRUE(isnan(iop_mean(NULL, 0)));
}

TEST_F(stats, single_sample_has_no_spread)
{
	const double x[] = { 42.5 };

	EXPECT_TRUE(close_to(iop_mean(x, 1), 42.5));
	EXPECT_TRUE(close_to(iop_hmean(x, 1), 42.5));
	EXPECT_TRUE(close_to(iop_median(x, 1), 42.5));
	EXPECT_TRUE(close_to(iop_percentile(x, 1, 99), 42.5));
	EXPECT_TRUE(close_to(iop_min(x, 1), 42.5));
	EXPECT_TRUE(close_to(iop_max(x, 1), 42.5));
	EXPECT_EQ(0.0, iop_stddev(x, 1));
	EXPECT_EQ(0.0, iop_cv(x, 1));
}

TEST_F(stats, percentile_outside_0_100_is_nan)
{
	EXPECT_TRUE(isnan(iop_percentile(textbook, ARRAY_SIZE(textbook), -1)));
	EXPECT_TRUE(isnan(iop_percentile(textbook, ARRAY_SIZE(textbook), 100.5)));
	EXPECT_TRUE(isnan(iop_percentile(textbook, ARRAY_SIZE(textbook), NAN)));
}

/*
 * IOPS-like samples around 1e6 with a spread of a few hundred: a one-pass
 * sum-of-squares variance loses most of its digits here.
 */
TEST_F(stats, tiny_spread_on_large_values_keeps_precision)
{
	const double x[] = { 1000000.5, 1000001.5, 999999.5, 1000000.5, 1000001.0 };
	double mean = 0, ss = 0;
	size_t i, n = ARRAY_SIZE(x);

	for (i = 0; i < n; i++)
		mean += x[i] - 1000000;
	mean = mean / n;
	for (i = 0; i < n; i++)
		ss += (x[i] - 1000000 - mean) * (x[i] - 1000000 - mean);
	EXPECT_TRUE(close_to(iop_stddev(x, n), sqrt(ss / (n - 1))));
}

/* Random sets of many sizes against GSL's implementation. */
TEST_F(stats, random_sets_agree_with_gsl)
{
	static const double ps[] = { 0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 100 };
	double x[257], sorted[257];
	unsigned int seed = 20261129;
	size_t n, i, k;

	for (n = 1; n <= ARRAY_SIZE(x); n += (n < 20 ? 1 : 37)) {
		for (i = 0; i < n; i++)
			x[i] = 1000 + (rand_r(&seed) % 100000) / 7.0;
		memcpy(sorted, x, n * sizeof(x[0]));
		gsl_sort(sorted, 1, n);

		ASSERT_TRUE(close_to(iop_mean(x, n), gsl_stats_mean(x, 1, n)));
		if (n > 1)
			ASSERT_TRUE(close_to(iop_stddev(x, n), gsl_stats_sd(x, 1, n)));
		ASSERT_TRUE(close_to(iop_median(x, n),
				     gsl_stats_median_from_sorted_data(sorted, 1, n)));
		ASSERT_TRUE(close_to(iop_min(x, n), gsl_stats_min(x, 1, n)));
		ASSERT_TRUE(close_to(iop_max(x, n), gsl_stats_max(x, 1, n)));
		for (k = 0; k < ARRAY_SIZE(ps); k++) {
			double want = gsl_stats_quantile_from_sorted_data(sorted, 1, n,
									  ps[k] / 100);

			ASSERT_TRUE(close_to(iop_percentile(x, n, ps[k]), want));
		}
	}
}

/*
 * Closed forms: with equal variances of the means v and n observations a
 * side, Welch's df is 2(n - 1); the MDE is (t(0.975) + t(0.95)) sqrt(2v),
 * with the quantiles of 8 degrees of freedom from the tables (2.306004,
 * 1.859548). Catches one t quantile used twice, the wrong power tail and
 * the variances of the samples used for those of the means.
 */
TEST_F(stats, mde_closed_form_equal_sides)
{
	double v = 4.0 / 5, mde = iop_mde(v, 5, v, 5, 0.05, 0.95);

	ASSERT_TRUE(close_to(iop_welch_df(v, 5, v, 5), 8));
	ASSERT_TRUE(fabs(mde - (2.306004 + 1.859548) * sqrt(2 * v)) < 1e-5);
	ASSERT_TRUE(isnan(iop_mde(v, 1, v, 5, 0.05, 0.95)));
}

/* Boots: means in order of first appearance, harmonic for rates. */
TEST_F(stats, group_means_by_boot)
{
	const double x[] = { 1, 4, 2, 4, 3 };
	const char *const key[] = { "a", "b", "a", "b", "a" };
	double m[5];

	ASSERT_EQ(iop_group_means(x, key, 5, false, m), 2);
	ASSERT_TRUE(close_to(m[0], 2));
	ASSERT_TRUE(close_to(m[1], 4));
	ASSERT_EQ(iop_group_means(x, key, 5, true, m), 2);
	ASSERT_TRUE(close_to(m[0], 3 / (1 + 0.5 + 1.0 / 3)));
}

/* CI half-width: t(0.975, 3) = 3.182446 times s / sqrt(n), over the mean. */
TEST_F(stats, ci_half_width_relative)
{
	const double x[] = { 9, 10, 11, 10 };
	double want = 3.182446 * sqrt(2.0 / 3) / 2 / 10;

	ASSERT_TRUE(fabs(iop_ci_rel_halfwidth(x, 4, 0.05, false) - want) < 1e-6);
	ASSERT_TRUE(isnan(iop_ci_rel_halfwidth(x, 1, 0.05, false)));
}

/*
 * Yuen by hand: 1 2 3 4 100 sets 1 and 100 aside (floor(0.2 * 5) = 1),
 * mean of 2 3 4 is 3; winsorized 2 2 3 4 4 has variance 1, so the squared
 * standard error is (5 - 1) * 1 / (3 * 2). One value that a stalled host
 * made 30 times slower moves nothing. Below 5 values nothing is trimmed.
 */
TEST_F(stats, trimmed_mean_and_yuen_standard_error)
{
	const double x[] = { 100, 3, 1, 4, 2 }, y[] = { 9, 10, 11, 10 };
	double tm, se2;

	ASSERT_EQ(iop_trim_count(4), 0);
	ASSERT_EQ(iop_trim_count(5), 1);
	ASSERT_EQ(iop_trim_count(15), 3);
	ASSERT_EQ(iop_trimmed(x, 5, false, &tm, &se2), 3);
	ASSERT_TRUE(close_to(tm, 3));
	ASSERT_TRUE(close_to(se2, 4.0 / 6));
	ASSERT_EQ(iop_trimmed(y, 4, false, &tm, &se2), 4);
	ASSERT_TRUE(close_to(tm, 10));
	ASSERT_TRUE(close_to(se2, 2.0 / 3 / 4));
	ASSERT_EQ(iop_trimmed(y, 4, true, &tm, &se2), 4);
	ASSERT_TRUE(close_to(tm, (1 / 9.0 + 2 / 10.0 + 1 / 11.0) / 4));
}

/*
 * Paired by hand: the base drifts 10 to 50 and the new side sits 1, 2, 3,
 * 4 and 100 above it, round by round. The differences are the set above:
 * trimmed mean 3, squared standard error 4/6, 3 kept; t = 3 / sqrt(4/6)
 * = 3.674 on 2 degrees of freedom, p = 0.06674 (tests/lib/tdist.py). The
 * base's trimmed mean is 30, so the change is 10%. Unpaired, the drift
 * would hide all of it.
 */
TEST_F(stats, paired_yuen_on_round_differences)
{
	const double b[] = { 10, 20, 30, 40, 50 }, n[] = { 11, 120, 33, 42, 54 };
	double d, se2, base, rel, rel_unpaired;

	ASSERT_EQ(iop_paired(b, n, 5, false, &d, &se2, &base), 3);
	ASSERT_TRUE(close_to(d, 3));
	ASSERT_TRUE(close_to(se2, 4.0 / 6));
	ASSERT_TRUE(close_to(base, 30));
	ASSERT_TRUE(fabs(iop_paired_t_p(d, se2, 3) - 0.0667435) < 1e-6);
	rel = d / fabs(base);
	ASSERT_TRUE(close_to(rel, 0.1));
	ASSERT_TRUE(iop_yuen_p(b, 5, n, 5, false, &rel_unpaired) > 0.05);
	ASSERT_EQ(iop_paired(b, n, 1, false, &d, &se2, &base), 0);
	ASSERT_TRUE(isnan(iop_paired_t_p(d, se2, 0)));
}

/* Cycles of two rounds: 1 and 3 make 2, 10 and 20 make 15; as rates, 1/x averaged. */
TEST_F(stats, round_units_average_a_cycle_of_two)
{
	const double x[] = { 1, 3, 10, 20 };
	double u[2];

	ASSERT_EQ(iop_round_units(x, 4, 2, false, u), 2);
	ASSERT_TRUE(close_to(u[0], 2));
	ASSERT_TRUE(close_to(u[1], 15));
	ASSERT_EQ(iop_round_units(x, 4, 2, true, u), 2);
	ASSERT_TRUE(close_to(u[0], 1.5));
	ASSERT_TRUE(close_to(u[1], 2 / 0.15));
}

/*
 * Cycles of three rounds, the last incomplete one left out: 1, 2, 6 make
 * 3; 10, 20, 60 make 30; 7 is dropped. As rates 3 / (1/1 + 1/2 + 1/6).
 */
TEST_F(stats, round_units_average_a_cycle_of_three_and_drop_the_rest)
{
	const double x[] = { 1, 2, 6, 10, 20, 60, 7 };
	double u[2];

	ASSERT_EQ(iop_round_units(x, 7, 3, false, u), 2);
	ASSERT_TRUE(close_to(u[0], 3));
	ASSERT_TRUE(close_to(u[1], 30));
	ASSERT_EQ(iop_round_units(x, 7, 3, true, u), 2);
	ASSERT_TRUE(close_to(u[0], 3 / (1 + 0.5 + 1.0 / 6)));
	ASSERT_EQ(iop_round_units(x, 7, 0, false, u), 0);
}

/*
 * A linear trend over the rounds of a rotated cycle moves every side's
 * cycle mean alike: sides A, A', B in the order A A' B, A' B A, B A A'
 * at times 0 .. 8, each run's value its time, give A and A' the same
 * cycle means, so their paired difference is 0.
 */
TEST_F(stats, rotated_cycle_cancels_a_linear_trend)
{
	/* per round, the time of A's run and of A''s */
	const double a[] = { 0, 5, 7, 9, 14, 16 }, a2[] = { 1, 3, 8, 10, 12, 17 };
	double d, se2, base;

	ASSERT_EQ(iop_paired_rounds(a, a2, 6, 3, false, &d, &se2, &base), 2);
	ASSERT_TRUE(close_to(d, 0));
	ASSERT_TRUE(close_to(se2, 0));
}

/*
 * target_ci's stop rule: the target is reached at or below it and not a
 * hair above, never before reps= or two repetitions (no interval before
 * two, NAN), and the budget or the repetition limit ends it otherwise.
 */
TEST_F(stats, precision_stops_only_at_or_below_target)
{
	ASSERT_TRUE(!iop_precision_stop(NAN, 5, 1, 1, 0, 60, 100));
	ASSERT_TRUE(!iop_precision_stop(0.1, 5, 2, 3, 0, 60, 100));
	ASSERT_STREQ(iop_precision_stop(0.1, 5, 3, 3, 0, 60, 100), "target");
	ASSERT_STREQ(iop_precision_stop(5, 5, 2, 2, 0, 60, 100), "target");
	ASSERT_TRUE(!iop_precision_stop(5.0001, 5, 2, 2, 0, 60, 100));
	ASSERT_TRUE(!iop_precision_stop(9.9, 5, 2, 2, 0, 60, 100));
	ASSERT_TRUE(!iop_precision_stop(NAN, 5, 2, 2, 0, 60, 100));
	ASSERT_STREQ(iop_precision_stop(9.9, 5, 2, 2, 60, 60, 100), "time_budget");
	ASSERT_STREQ(iop_precision_stop(9.9, 5, 100, 2, 1, 60, 100), "max_reps");
	/* the target wins over a budget spent in the same repetition */
	ASSERT_STREQ(iop_precision_stop(4, 5, 4, 2, 61, 60, 100), "target");
}

/*
 * iop_fmt_num(), the one number format of iopath run's summary and of
 * compare: a ratio keeps two decimals, large counts are whole, tiny values
 * keep three significant digits.
 */
TEST_F(stats, numbers_keep_the_precision_a_comparison_needs)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
		{ 2.11, "2.11" }, { 2.0149, "2.01" }, { 1.04, "1.04" }, { 1.0, "1.00" },
		{ 0, "0.00" }, { -0.5, "-0.50" }, { 999.994, "999.99" }, { 12345.6, "12346" },
		{ 0.001234, "0.00123" }, { 123456789, "1.235e+08" }, { NAN, "n/a" },
		{ INFINITY, "n/a" },
	};
	char buf[32];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		EXPECT_STREQ(cases[i].want, iop_fmt_num(buf, sizeof(buf), cases[i].v))
			TH_LOG("case %zu", i);
}

TEST_HARNESS_MAIN
