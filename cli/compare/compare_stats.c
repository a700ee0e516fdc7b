// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The statistics of iopath compare for one metric: the means as printed
 * (20%-trimmed, harmonic for rates), Yuen's test of the trimmed means on
 * the tested scale (Welch's t-test when a side has fewer than 5 values),
 * Fieller's interval of the relative change, the verdict, and the smallest
 * change the comparison could have found (MDE). cmd_compare.c says why
 * these.
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#include "cli.h"
#include "compare.h"

/*
 * The verdict from mc->p, and t given the sign of the printed change: for
 * rates 1/x moves the other way. @diff: new - base on the tested scale.
 */
static void set_verdict(struct metric_cmp *mc, double alpha, double diff)
{
	if (mc->rate)
		mc->t = -mc->t;
	if (mc->p < alpha) {
		bool up = mc->rate ? diff < 0 : diff > 0;

		mc->v = up == mc->higher ? V_BETTER : V_WORSE;
	} else {
		mc->v = V_NONE;
	}
}

/*
 * The comparison of one metric. @xb and @xn are the per-repetition values
 * of the base and new side. tests/compare.sh recomputes every figure this
 * produces (through the JSON output) without GSL.
 */
void compare_metric(const double *xb, size_t nb, const double *xn, size_t nn,
		    double alpha, struct metric_cmp *mc)
{
	const double *x[2] = { xb, xn };
	size_t n[2] = { nb, nn };
	double *y[2] = { NULL, NULL };
	double a, b, va, vb, tc, den, disc, lo, hi;

	mc->change = NAN;
	mc->ci_lo = NAN;
	mc->ci_hi = NAN;
	mc->t = NAN;
	mc->df = NAN;
	mc->p = NAN;
	mc->v = V_UNTESTED;
	mc->why = NULL;
	mc->paired = false;
	mc->by_seed = false;

	for (int s = 0; s < 2; s++) {
		struct side_stats *ss = &mc->s[s];

		ss->n = n[s];
		ss->mean = NAN;
		ss->rsd = NAN;
		ss->tmean = NAN;
		ss->tvar = NAN;
		y[s] = malloc((n[s] ? n[s] : 1) * sizeof(double));
		if (!y[s]) {
			mc->why = "out of memory";
			goto out;
		}
		for (size_t i = 0; i < n[s]; i++) {
			if (!isfinite(x[s][i]) || (mc->rate && x[s][i] <= 0)) {
				mc->why = mc->rate ? "a rate is zero or negative" :
						     "a value is not finite";
				ss->mean = mc->rate ? iop_hmean(x[s], n[s]) : iop_mean(x[s], n[s]);
				goto out;
			}
			y[s][i] = mc->rate ? 1 / x[s][i] : x[s][i];
		}
		ss->h = iop_trimmed(y[s], n[s], false, &ss->tmean, &ss->tvar);
		ss->mean = mc->rate ? 1 / ss->tmean : ss->tmean;
		ss->rsd = ss->tmean ? iop_stddev(y[s], n[s]) / fabs(ss->tmean) : NAN;
	}
	if (mc->s[0].mean > 0 && mc->s[1].mean >= 0)
		mc->change = mc->s[1].mean / mc->s[0].mean - 1;

	if (nb < 2 || nn < 2) {
		mc->why = "fewer than 2 repetitions on a side";
		goto out;
	}
	/*
	 * Every verdict is on the relative change: over a base mean of 0
	 * (readv_ns 0 in every repetition) it is no number, and neither is
	 * its interval or what could have been seen. Not tested, and said.
	 */
	if (!(mc->s[0].mean > 0)) {
		mc->why = "the base mean is not above 0: no relative change to test";
		goto out;
	}

	a = mc->s[1].tmean;
	b = mc->s[0].tmean;
	va = mc->s[1].tvar;
	vb = mc->s[0].tvar;
	if (va + vb == 0) {
		/* Identical repetitions on both sides: the difference is exact. */
		mc->t = a == b ? 0 : copysign(INFINITY, a - b);
		mc->df = mc->s[0].h + mc->s[1].h - 2;
		mc->p = a == b ? 1 : 0;
		mc->ci_lo = mc->change;
		mc->ci_hi = mc->change;
	} else {
		mc->t = (a - b) / sqrt(va + vb);
		mc->df = iop_welch_df(vb, mc->s[0].h, va, mc->s[1].h);
		mc->p = 2 * gsl_cdf_tdist_Q(fabs(mc->t), mc->df);
		tc = gsl_cdf_tdist_Pinv(1 - alpha / 2, mc->df);

		/*
		 * Fieller: the theta with (a - theta*b)^2 <= tc^2 (va + theta^2 vb).
		 * Bounded only when the base mean is itself clearly non-zero.
		 */
		den = b * b - tc * tc * vb;
		if (b > 0 && den > 0) {
			disc = a * a * vb + b * b * va - tc * tc * va * vb;
			lo = (a * b - tc * sqrt(disc)) / den;
			hi = (a * b + tc * sqrt(disc)) / den;
			if (!mc->rate) {
				mc->ci_lo = lo - 1;
				mc->ci_hi = hi - 1;
			} else {
				/* printed ratio = hmean_new / hmean_base = b / a = 1 / theta */
				mc->ci_lo = 1 / hi - 1;
				mc->ci_hi = lo > 0 ? 1 / lo - 1 : INFINITY;
			}
		} else if (b > 0) {
			mc->ci_lo = -INFINITY;
			mc->ci_hi = INFINITY;
		}
	}
	set_verdict(mc, alpha, a - b);
out:
	free(y[0]);
	free(y[1]);
}

/*
 * The verdict of a test on differences within pairs: @d their trimmed
 * mean, @se2 its squared standard error, @h the differences kept, @base
 * the base's trimmed mean on the tested scale. The interval is the
 * trimmed mean difference +- t * its standard error over the base trimmed
 * mean (the base taken as known, as it is measured far more precisely
 * than the difference); %change is the trimmed mean difference over the
 * base, the estimate the interval is around.
 */
static void paired_result(struct metric_cmp *mc, double d, double se2, double base, size_t h,
			  double alpha)
{
	double tc, lo, hi;

	mc->paired = true;
	mc->pair_h = h;
	mc->pair_se2 = se2;
	mc->pair_base = base;
	/* the change the test is about, not the ratio of the sides' own means */
	mc->change = mc->rate ? 1 / (1 + d / base) - 1 : d / base;
	mc->df = (double)h - 1;
	mc->p = iop_paired_t_p(d, se2, h);
	if (se2 == 0) {
		mc->t = d == 0 ? 0 : copysign(INFINITY, d);
		mc->ci_lo = mc->change;
		mc->ci_hi = mc->change;
	} else {
		mc->t = d / sqrt(se2);
		tc = gsl_cdf_tdist_Pinv(1 - alpha / 2, mc->df);
		lo = (d - tc * sqrt(se2)) / base;
		hi = (d + tc * sqrt(se2)) / base;
		mc->ci_lo = mc->rate ? 1 / (1 + hi) - 1 : lo;
		mc->ci_hi = !mc->rate ? hi : 1 + lo > 0 ? 1 / (1 + lo) - 1 : INFINITY;
	}
	set_verdict(mc, alpha, d);
}

/*
 * Runs interleaved round by round share the drift of their round: the
 * test is Yuen's of the differences of cycles (lib/stats.h,
 * iop_round_units(), says why cycles; h - 1 degrees of freedom). The
 * means and spreads printed are the sides' own, as compare_metric() gives
 * them. Boots given one seed are the same with cycles of 1: pair i's two
 * boot medians, whose difference cancels a boot-level mode both sit in,
 * where the unpaired test counts it as spread of a side.
 */
bool compare_paired(const double *xb, const double *xn, size_t n, size_t cycle, double alpha,
		    struct metric_cmp *mc)
{
	double d, se2, base;
	size_t h;

	compare_metric(xb, n, xn, n, alpha, mc);
	if (mc->why)
		return false;
	h = iop_paired_rounds(xb, xn, n, cycle, mc->rate, &d, &se2, &base);
	if (h < 2)
		return false;	/* the unpaired test stands */
	paired_result(mc, d, se2, base, h, alpha);
	return true;
}

/*
 * The smallest change this comparison finds with probability
 * IOP_MDE_POWER: the MDE of the same test from the two sides' standard
 * errors and numbers of values kept, relative to the base mean on the tested
 * scale (time per operation for rates).
 */
void metric_mde(struct metric_cmp *mc, double alpha)
{
	const struct side_stats *b = &mc->s[0], *n = &mc->s[1];

	mc->mde = NAN;
	if (mc->why || !(fabs(b->tmean) > 0))
		return;
	if (mc->paired) {
		mc->mde = iop_mde_t(mc->pair_se2, mc->df, alpha, IOP_MDE_POWER) /
			  fabs(mc->pair_base);
		return;
	}
	if (b->tvar + n->tvar == 0) {
		mc->mde = 0;
		return;
	}
	mc->mde = iop_mde(b->tvar, b->h, n->tvar, n->h, alpha, IOP_MDE_POWER) / fabs(b->tmean);
}

/*
 * What of @mc is not a finite number though every value it came from is
 * (NULL: nothing). Values near the limits of a double overflow a variance
 * or the interval's products; a verdict, or "no significant change", must
 * not rest on that, nor on a smallest detectable change that is none (an
 * --alpha so small that the t quantile is infinite). Left alone: an
 * untested metric, which says why it has no test (a base mean of zero
 * has no relative change), and Fieller's unbounded interval without a
 * verdict (docs/compare.md).
 */
const char *metric_not_finite(const struct metric_cmp *mc)
{
	for (int s = 0; s < 2; s++) {
		const struct side_stats *ss = &mc->s[s];

		if (isinf(ss->mean) || isinf(ss->tmean) || (!mc->why && !isfinite(ss->mean)))
			return s ? "the new mean is not finite" : "the base mean is not finite";
		if (ss->h >= 2 && !isfinite(ss->tvar))
			return s ? "the spread of the new side is not finite" :
				   "the spread of the base side is not finite";
	}
	if (isinf(mc->change))
		return "the change is not finite";
	if (mc->why)
		return NULL;
	if (isnan(mc->t) || isnan(mc->df) || isnan(mc->p))
		return "the test statistic is not a number";
	if (!(mc->s[0].mean > 0))
		return NULL;
	if (isnan(mc->change) || isnan(mc->ci_lo) || isnan(mc->ci_hi))
		return "the interval of the change is not a number";
	if ((mc->v == V_BETTER || mc->v == V_WORSE) &&
	    !(isfinite(mc->ci_lo) && isfinite(mc->ci_hi)))
		return "the interval of the change is unbounded";
	if (!isfinite(mc->mde))
		return "the smallest change it could have seen is not a finite number";
	return NULL;
}
