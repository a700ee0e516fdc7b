/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iopath bench --calibrate: the resolution of a benchmark on the machine at
 * hand, measured with a known effect (inject_ns) rather than assumed.
 */
#ifndef IOPATH_CLI_BENCH_CALIBRATE_H
#define IOPATH_CLI_BENCH_CALIBRATE_H

#include <jansson.h>
#include <stdio.h>

#include "bench.h"

#define IOP_CALIB_MAX_EFFECTS	8
#define IOP_CALIB_MAX_RUNS	192

struct iop_calib_opts {
	int pairs;			/* comparisons of each kind */
	int runs;			/* runs per side: 1 tests over repetitions */
	bool interleave;		/* a pair's sides run round by round, tested paired */
	double effects[IOP_CALIB_MAX_EFFECTS];	/* fractions: 0.01, 0.02, 0.05 */
	int neffects;
	double side_time;		/* seconds per side to state the MDE for */
	double alpha;
};

/*
 * Run one run of a side: the job's parameters @kv plus the calibration's
 * own (inject_ns=, inject_clock=), records appended to @recs, each with
 * run.pairing = @pairing ({"id", "round", "cycle", "side"}) unless it is NULL. -errno and
 * why.
 */
typedef int (*iop_calib_side_fn)(void *arg, char **kv, int nkv, json_t *pairing, json_t *recs,
				  char *why, size_t len);

/*
 * Rounds per cycle of an interleaved calibration (0 when sequential): one
 * per side, A, A' and each effect, each cycle a Latin square of the sides'
 * places, balanced for the run before over a pair of cycles (bench_calibrate.c,
 * side_at(); lib/stats.h, iop_round_units()).
 */
static inline int iop_calib_cycle(const struct iop_calib_opts *o)
{
	return o->interleave ? 2 + o->neffects : 0;
}

/* Parse "1,2,5" (percent) into @o->effects; -EINVAL on anything else. */
int iop_calib_parse_effects(struct iop_calib_opts *o, const char *list);

/* -EINVAL and why when the job's main metric cannot carry a known effect. */
int iop_calib_check(const struct iop_bench *b, char **kv, int nkv, char *why, size_t len);

/*
 * Calibrate benchmark @b with the job's parameters @kv: A/A pairs and
 * pairs with each known effect, each side run by @side. The report goes
 * to @out. Returns 0, -EINVAL with @why when the main metric cannot
 * carry a known effect, or the error of a side.
 */
int iop_calibrate(const struct iop_bench *b, char **kv, int nkv, const struct iop_calib_opts *o,
		  iop_calib_side_fn side, void *arg, FILE *out, char *why, size_t len);

#endif
