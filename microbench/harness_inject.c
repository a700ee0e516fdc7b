// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The harness's injection machinery: a known effect to check a comparison
 * with (harness_inject.h).
 *
 * - Spike-in: inject_ns=N adds N ns of busy-waiting per operation inside
 *   every benchmark's timed loop (iop_inject()), on the clock the harness
 *   reads: CLOCK_MONOTONIC (what rates see) or, with inject_clock=cpu, the
 *   worker's own CPU clock (what CPU ns per operation see, and what a
 *   preempting process cannot shorten). A run against inject_ns=0 then
 *   has a true effect known in advance: the calibration of iopath bench.
 *   The wait keeps a debt: an overshoot is paid back by the next
 *   operations, so the average per operation is N even when N is shorter
 *   than one clock read. The call's own cost is measured on the pinned
 *   worker before the first timed loop and subtracted; the measured
 *   per-operation cost goes into the record.
 *   inject_clock=loop reads no clock in the timed loop: it runs a count of
 *   iterations (iop_spin_iters(), inline in the timed loop), sized on the
 *   wall clock before the first timed loop unless inject_loops= gives it.
 *   The CPU clock has no vDSO path, so each read of it is a system call,
 *   which under page-table isolation costs as much as the short calls
 *   read_vs_readv times, and disturbs them; a loop is user-mode work only,
 *   and slows with the CPU as the measured call does.
 *   inject_clock=op injects whole operations: every inject_every-th one
 *   is done and not counted (iop_count()), so each counted one carries
 *   exactly 1/(inject_every - 1) of another, in whatever state the host
 *   is: a loop or a wait is a fixed amount of other work, whose share of
 *   a system call moves with what the host does to each.
 * - inject_probe=1: what the injection costs among the operations it
 *   follows, measured in the timed loop itself (probe_step()).
 *   iopath bench --calibrate sizes a loop by it.
 *
 * What the spike-in does not measure: a busy-wait adds time, not the
 * cache, lock or scheduling effects a real change in the kernel has, so a
 * calibration says how small an effect a comparison can resolve, not how
 * a given patch will show up.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness_inject.h"

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* the clock waits; the loop runs inline in iop_inject_step() */
static void wait_now(struct iop_inject *j, uint64_t nops)
{
	int64_t t0, t;

	j->owed += (int64_t)nops * j->debit;
	if (j->owed <= 0)
		return;
	t0 = clock_ns(j->clock);
	do
		t = clock_ns(j->clock);
	while (t - t0 < j->owed);
	/* the part of the first read before t0 and of the last after t: one read */
	j->owed -= t - t0 + j->read_ns;
}

/*
 * inject_probe=1: the loop runs in every other stretch of about 100 us of
 * the timed loop, and each pair of neighbours (without, then with) gives
 * the ratio of their times per operation. Neighbours 100 us apart share
 * the CPU's speed of the moment, which on a shared host changes from one
 * millisecond to the next, and the loop runs among the calls it is
 * measured against: the count that costs N ns alone costs more or less
 * between system calls, and not in proportion. Both kinds of stretch read
 * the clock after every call alike.
 */
#define PROBE_STRETCH_NS	100000
#define PROBE_MAX_PAIRS		65536

struct iop_inject_probe {
	int64_t t0;		/* start of the current stretch; 0: none yet */
	uint64_t ops;		/* operations in it */
	bool on;		/* the loop runs in it */
	double off_ns;		/* per operation in the last stretch without */
	size_t n;
	double ratio[PROBE_MAX_PAIRS];
};

static void probe_step(struct iop_inject *j, uint64_t nops)
{
	struct iop_inject_probe *p = j->probe;
	int64_t t;
	double per;

	if (p->on && !j->loop)
		wait_now(j, nops);
	p->ops += nops;
	t = clock_ns(CLOCK_MONOTONIC);
	if (!p->t0) {
		p->t0 = t;
		p->ops = 0;
		return;
	}
	if (t - p->t0 < PROBE_STRETCH_NS)
		return;
	per = (double)(t - p->t0) / (double)p->ops;
	if (!p->on)
		p->off_ns = per;
	else if (p->off_ns > 0 && p->n < PROBE_MAX_PAIRS)
		p->ratio[p->n++] = per / p->off_ns;
	p->on = !p->on;
	if (j->loop)
		j->loop_on = p->on;
	p->t0 = t;
	p->ops = 0;
}

void iop_inject_spin(struct iop_inject *j, uint64_t nops)
{
	if (j->probe)
		probe_step(j, nops);
	else
		wait_now(j, nops);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double iop_inject_probe_take(struct iop_inject *j)
{
	struct iop_inject_probe *p = j->probe;
	double m;

	if (!p || !p->n)
		return NAN;
	qsort(p->ratio, p->n, sizeof(p->ratio[0]), cmp_dbl);
	m = p->n % 2 ? p->ratio[p->n / 2] : (p->ratio[p->n / 2 - 1] + p->ratio[p->n / 2]) / 2;
	memset(p, 0, offsetof(struct iop_inject_probe, ratio));
	j->loop_on = false;
	return m - 1;
}

void iop_inject_probe_free(struct iop_inject *j)
{
	free(j->probe);
	j->probe = NULL;
}

/*
 * The cost per injection, on the wait's clock: the median of 41 short
 * trials of @k injections each, so that the trials a preempting process
 * interrupts (on a shared CPU most long ones would be) do not count.
 * A loop's cost is the fifth fastest trial instead: the speed of the CPU
 * itself changes by a third from one millisecond to the next on a shared
 * host, and the floors a loop is sized against are its fast moments.
 */
static double inject_cost(struct iop_inject *j, uint64_t k)
{
	double per[41];

	for (int trial = 0; trial < 41; trial++) {
		int64_t t0, t1;

		j->owed = 0;
		t0 = clock_ns(j->clock);
		for (uint64_t i = 0; i < k; i++)
			iop_inject_step(j, 1);
		t1 = clock_ns(j->clock);
		per[trial] = (double)(t1 - t0) / (double)k;
	}
	j->owed = 0;
	qsort(per, 41, sizeof(per[0]), cmp_dbl);
	return per[j->loop ? 4 : 20];
}

/*
 * The count of iterations whose calls cost closest to @ns now, on the
 * calling thread's CPU. Calls of up to about 150 iterations cost less per
 * iteration than longer ones (the reach of the exit branch's predictor),
 * so the count is not scaled from one long trial but searched: the cost
 * grows with the count, in steps.
 */
uint64_t iop_inject_loops_for(uint64_t ns)
{
	/* the path of the timed loop: iop_inject_step() with this count */
	struct iop_inject j = { .ns = ns, .work = true, .loop = true, .loop_on = true,
				.clock = CLOCK_MONOTONIC };
	uint64_t k = 100000 / ns > 200 ? 100000 / ns : 200, lo = 0, hi = 2 * ns + 16;
	double c_lo, c_hi;

	if (!ns)
		return 0;
	for (;;) {
		j.debit = (int64_t)hi;
		if (inject_cost(&j, k) >= (double)ns || hi >= (1ull << 40))
			break;
		lo = hi;
		hi *= 2;
	}
	/* cost(lo) < ns <= cost(hi) */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		j.debit = (int64_t)mid;
		if (inject_cost(&j, k) >= (double)ns)
			hi = mid;
		else
			lo = mid;
	}
	j.debit = (int64_t)hi;
	c_hi = inject_cost(&j, k);
	j.debit = (int64_t)lo;
	c_lo = lo ? inject_cost(&j, k) : 0;
	return lo && (double)ns - c_lo < c_hi - (double)ns ? lo : hi;
}

/* after the injection is sized: inject_cost() measures it always on */
static int probe_init(struct iop_inject *j, bool probe)
{
	if (!probe || j->probe)
		return 0;
	j->probe = calloc(1, sizeof(*j->probe));
	/* a probe starts with a stretch without */
	j->loop_on = false;
	return j->probe ? 0 : -ENOMEM;
}

/* calls of @n ns per trial of inject_cost(): about 0.5 ms, at least 200 */
static uint64_t k_for(uint64_t n)
{
	return 500000 / n > 200 ? 500000 / n : 200;
}

/*
 * Calls per trial of a given loop count: about 0.5 ms by one call's time,
 * so that a count of a million (a few ms a call) is measured in a second,
 * not in hours.
 */
static uint64_t k_for_loop(struct iop_inject *j, uint64_t n)
{
	int64_t t0 = clock_ns(CLOCK_MONOTONIC), t;
	uint64_t k;

	iop_inject_step(j, 1);
	t = clock_ns(CLOCK_MONOTONIC) - t0;
	k = 500000 / (uint64_t)(t > 0 ? t : 1);
	return k < 1 ? 1 : k < k_for(n) ? k : k_for(n);
}

int iop_inject_init(struct iop_inject *j, uint64_t n, enum iop_inject_clock clock,
		    uint64_t loops, uint64_t every, bool probe)
{
	double best = INFINITY;
	uint64_t k;

	j->ns = n;
	j->measured_ns = 0;
	j->owed = 0;
	if (clock == IOP_INJECT_OP) {
		/*
		 * With inject_ns=0 (an A side) the count runs and never fires,
		 * so that both sides of a comparison run the same instructions.
		 * Where they did not, the side with the injection's path ran
		 * 4.7% faster than A in the host's slow stretches with nothing
		 * injected (one operation in 100001 uncounted), and a 2%
		 * effect vanished there.
		 */
		j->every = n ? every : UINT64_MAX;
		j->left = j->every;
		return 0;
	}
	if (!n)
		return 0;
	j->work = true;
	j->clock = clock == IOP_INJECT_CPU ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
	j->loop = clock == IOP_INJECT_LOOP;
	if (j->loop) {
		/* the same count every operation: the exit branch predicted alike */
		j->loop_on = true;
		j->debit = (int64_t)(loops ?: iop_inject_loops_for(n));
		j->measured_ns = inject_cost(j, k_for_loop(j, n));
		return probe_init(j, probe);
	}
	/* one read of that clock: the fastest of 20 batches of 1000 */
	for (int b = 0; b < 20; b++) {
		int64_t t0 = clock_ns(j->clock), t1;

		for (int i = 0; i < 1000; i++)
			clock_ns(j->clock);
		t1 = clock_ns(j->clock);
		if ((double)(t1 - t0) / 1001 < best)
			best = (double)(t1 - t0) / 1001;
	}
	j->read_ns = (int64_t)llround(best);
	j->debit = (int64_t)n;
	k = k_for(n);
	for (int round = 0; round < 3; round++) {
		/* pay less per call by what the call itself costs beyond N */
		j->debit -= (int64_t)llround(inject_cost(j, k) - (double)n);
		if (j->debit < 1)
			j->debit = 1;
	}
	j->measured_ns = inject_cost(j, k);
	return probe_init(j, probe);
}
