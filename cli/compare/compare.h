/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside iopath compare, shared by its parts and by nothing else: one
 * comparison of a base and a new record file, group by group (a benchmark
 * and its parameters) and metric by metric. cmd_compare.c: the options and
 * the flow; compare_stats.c: the test, interval and MDE of one metric;
 * compare_build.c: pairing, the observations and the notes; compare_fmt.c:
 * the text table, the commit block and the JSON; compare_layout.c: the
 * pairs whose boots read the benchmark's file in different layouts.
 */
#ifndef IOPATH_CLI_COMPARE_H
#define IOPATH_CLI_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "shared_recset.h"
#include "stats.h"

enum verdict { V_NONE, V_BETTER, V_WORSE, V_UNTESTED };

struct side_stats {
	size_t n;
	double mean;		/* as printed: harmonic mean for rates */
	double rsd;		/* relative stddev on the tested scale (fraction) */
	double tmean;		/* trimmed mean on the tested scale (1/x for rates) */
	double tvar;		/* its squared standard error (Yuen; s^2 / n untrimmed) */
	size_t h;		/* values kept after trimming */
	size_t boots;		/* distinct boot ids among the records (0: none recorded) */
	bool by_boot;		/* the observations are per-boot means (2 or more boots) */
	size_t runs;		/* distinct invocations of iopath bench (0: none recorded) */
	bool by_run;		/* one boot, 2 or more runs: the observations are per-run means */
};

struct metric_cmp {
	const char *name;
	const char *unit;
	bool higher;		/* higher is better */
	bool rate;		/* agg "hmean" */
	struct side_stats s[2];
	double change;		/* new / base - 1 */
	double ci_lo, ci_hi;	/* of change; NAN unknown, +-INFINITY unbounded */
	double t, df, p;
	double mde;		/* smallest change found with IOP_MDE_POWER, of the base mean */
	bool paired;		/* tested on differences within pairs: of rounds, or of boots */
	bool by_seed;		/* the pairs are boots given one seed (iopath ab) */
	double *boot_med[2];	/* each boot's median; in pair order when by_seed */
	size_t nboot[2];
	size_t pair_h;		/* differences kept after trimming */
	double pair_se2;	/* squared standard error of their trimmed mean */
	double pair_base;	/* the base's trimmed mean over the same units */
	enum verdict v;
	const char *why;	/* why not tested */
};

/* A metric of a group that was not compared, and why. */
struct metric_skip {
	const char *name;
	char *why;		/* malloc */
	bool both;		/* on both sides ("better" or "agg" differs), not on one */
};

struct group_cmp {
	struct iop_rs_group *g;
	struct metric_cmp *m;
	size_t nm;
	struct metric_skip *skip;
	size_t nskip;
	const char *main;	/* run.main_metric, named alike by every record, or NULL */
	bool main_differs;	/* the records name different ones, or some none */
	bool untrusted;
	bool env_differs;
	json_t *layouts;	/* pairs whose boots' file layouts differ (compare_layout.c) */
	size_t layout_pairs;	/* how many */
	char *layout_first;	/* the first of them, in words; NULL: none */
	char *layout_note;	/* the note on them, or on unpaired boots that differ; NULL: none */
};

struct notes {
	char **v;
	size_t n;
};

struct comparison {
	const char *base_path, *new_path;
	struct iop_rs_file *base, *new;
	struct iop_rs_group *groups;
	size_t ngroups;
	struct group_cmp *gc;
	size_t ngc;
	struct notes notes;
};

struct opts {
	enum { F_TEXT, F_COMMIT, F_JSON, F_VERDICT, F_CI, F_PLANTED } format;
	double alpha;
	double target_ci;	/* --target-ci, percent; NAN when not given */
	const char *json_out;	/* --json FILE: the JSON as well, or NULL */
	const char *verdict_out;	/* --verdict FILE: the verdict lines as well, or NULL */
};

void compare_metric(const double *xb, size_t nb, const double *xn, size_t nn,
		    double alpha, struct metric_cmp *mc);
/*
 * The same for @n runs paired by round (rounds 0 .. n - 1 in order, in
 * cycles of @cycle): Yuen's test of the differences of cycles (exactly
 * Student's below 5). Boots paired by seed are cycles of 1, @xb[i] and
 * @xn[i] the medians of pair i's two boots. False where the unpaired
 * test stands (fewer than two pairs).
 */
bool compare_paired(const double *xb, const double *xn, size_t n, size_t cycle, double alpha,
		    struct metric_cmp *mc);
void metric_mde(struct metric_cmp *mc, double alpha);
/* Which figure of @mc no verdict can rest on (not finite), or NULL. */
const char *metric_not_finite(const struct metric_cmp *mc);

/*
 * Pair, check and compute; -errno with @why for input that cannot be
 * compared, -ERANGE when a metric's statistics are not finite numbers.
 */
int comparison_build(struct comparison *c, double alpha, char *why, size_t len);
void comparison_free(struct comparison *c);

/* The metric a verdict on @gc is given on: the one its runs chose, else its first; or NULL. */
const struct metric_cmp *group_verdict_metric(const struct group_cmp *gc);
/*
 * With @verdict, whether every group of @c has a verdict (what --format
 * verdict and ci, and so iopath ab, give): its verdict metric compared
 * and tested, every figure of its line a finite number (an interval may
 * be unbounded only around "no significant change"). With @all, whether
 * every metric both sides have is (--fail-on-regression: a metric left
 * untested or not compared could have regressed). 0, or -EDOM with the
 * first that is not, named, in @why.
 */
int comparison_verdicts(const struct comparison *c, bool verdict, bool all, char *why,
			size_t len);

/* Longest seed taken: iopath vm draws 16 bytes, 32 hex digits. */
#define COMPARE_SEED_MAX 64

/*
 * The seed the host gave the boot of @rec (iopath.seed=, iopath vm
 * --seed), "" when none or longer than any iopath draws. Boots given one
 * seed were paired on purpose: the seed is drawn at random otherwise.
 */
static inline const char *compare_rec_seed(const struct iop_rec *rec)
{
	return strlen(rec->env.seed) <= COMPARE_SEED_MAX ? rec->env.seed : "";
}

/*
 * Whether the boots of @gc read the benchmark's file in different layouts
 * (run.facts.file_layout): within pairs by seed, else between any boots.
 * Changes no figure. 0 or -ENOMEM.
 */
int compare_layout(struct group_cmp *gc, const char *label);

void compare_print_text(FILE *out, struct comparison *c, const struct opts *o);
void compare_print_commit(FILE *out, struct comparison *c, const struct opts *o);
json_t *comparison_json(struct comparison *c);
/* One line per group, for iopath ab: the verdict metric's change, CI, verdict and MDE. */
void compare_print_verdict(FILE *out, struct comparison *c, const struct opts *o);
/*
 * The widest CI of a verdict metric among the groups of @c, as half its
 * width in percent of the base (INFINITY when one is unbounded, NAN when
 * a group has no interval: comparison_verdicts() refuses that first).
 */
double compare_ci_halfwidth(const struct comparison *c);
/* --format planted: one machine line per verdict metric (iopath ab --calibrate) */
void compare_print_planted(FILE *out, struct comparison *c);

#endif
