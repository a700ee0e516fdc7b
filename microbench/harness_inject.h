/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The known effect a run injects into a benchmark's timed loop
 * (harness_inject.c says what each kind measures): a worker's state of it
 * (struct iop_inject, in struct iop_worker), the part that runs inline in
 * the timed loop, and its setup. It knows nothing of the benchmark or of
 * the worker that holds it: bench.h, which every benchmark includes,
 * holds it, and the injection's code never reaches back into the harness.
 */
#ifndef IOPATH_HARNESS_INJECT_H
#define IOPATH_HARNESS_INJECT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* inject_clock=, in the order of its choices */
enum iop_inject_clock {
	IOP_INJECT_WALL,
	IOP_INJECT_CPU,
	IOP_INJECT_LOOP,
	IOP_INJECT_OP,
};

struct iop_inject_probe;

/* A worker's injection (inject_ns): set up by iop_inject_init() */
struct iop_inject {
	uint64_t ns;
	clockid_t clock;
	bool loop;		/* inject_clock=loop: iterations, no clock read */
	/* owed per operation: inject_ns less the call's own cost; loop: iterations */
	int64_t debit;
	int64_t owed;		/* negative: overshoot paid in advance */
	int64_t read_ns;	/* one read of the clock */
	double measured_ns;	/* per operation, measured on the pinned worker */
	struct iop_inject_probe *probe;	/* inject_probe=1: on and off in turn */
	bool loop_on;		/* the loop runs (inject_probe: in this stretch) */
	bool work;		/* a loop or a wait runs after each operation */
	uint64_t every;		/* inject_clock=op: one operation in this many uncounted */
	uint64_t left;		/* operations until the next uncounted one */
};

/*
 * Measure and set up @j from the run's inject_* parameters, on the pinned
 * worker; 0 or -ENOMEM.
 */
int iop_inject_init(struct iop_inject *j, uint64_t ns, enum iop_inject_clock clock,
		    uint64_t loops, uint64_t every, bool probe);

/*
 * inject_clock=op: of @n operations just done, how many go uncounted,
 * every inject_every-th one, so that each counted operation carries
 * 1/(inject_every - 1) of one more: a known effect that is a share of the
 * operation itself, whatever the host's state makes it cost.
 */
static inline uint64_t iop_uncounted(struct iop_inject *j, uint64_t n)
{
	uint64_t k = 0;

	while (n >= j->left) {
		n -= j->left;
		j->left = j->every;
		k++;
	}
	j->left -= n;
	return k;
}

/* the clock waits of inject_clock=wall|cpu, and inject_probe's bookkeeping */
void iop_inject_spin(struct iop_inject *j, uint64_t nops);

/*
 * inject_probe=1: the loop's cost inside the timed loop, as a fraction of
 * the operation's time (the median over pairs of neighbouring stretches,
 * one with the loop and one without), or NAN; restarts the count.
 */
double iop_inject_probe_take(struct iop_inject *j);
void iop_inject_probe_free(struct iop_inject *j);

/* inject_clock=loop: the iterations per call that cost closest to @ns here, now */
uint64_t iop_inject_loops_for(uint64_t ns);

/* one dependent addition the compiler can neither fold nor drop */
static inline uint64_t iop_spin_add(uint64_t x)
{
	x++;
	__asm__ volatile("" : "+r"(x));
	return x;
}

/*
 * @k iterations of user-mode work: each eight dependent additions, so
 * that the loop's exit branch, taken once per call, stays within the
 * reach of the branch predictor for counts up to hundreds of ns; a loop
 * of single steps outgrows it near 100 iterations and then mispredicts
 * its exit on every call, a cost that varies with the host's state.
 */
static inline void iop_spin_iters(uint64_t k)
{
	uint64_t x = 0;

	while (k) {
		k--;
		x = iop_spin_add(iop_spin_add(iop_spin_add(iop_spin_add(x))));
		x = iop_spin_add(iop_spin_add(iop_spin_add(iop_spin_add(x))));
		__asm__ volatile("" : "+r"(k));
	}
#if defined(__x86_64__) || defined(__i386__)
	/*
	 * The chain ends before the next instruction starts: else it would
	 * overlap the entry of the next system call, by an amount that
	 * varies from one run to the next.
	 */
	__asm__ volatile("lfence" ::: "memory");
#endif
}

/*
 * The known extra work of a calibration run: busy-wait inject_ns per
 * operation, @nops operations at a time, in the timed loop right after
 * iop_count(). One predictable branch when inject_ns=0 or inject_clock=op.
 * The loop of inject_clock=loop is inlined into the timed loop: without
 * PCID, page-table isolation flushes the TLB on every system call, and a
 * loop in a page of code of its own would cost a page walk per call on
 * top of its iterations, more or less with the host's state.
 */
static inline void iop_inject_step(struct iop_inject *j, uint64_t nops)
{
	if (__builtin_expect(!j->work, 1))
		return;
	if (j->loop) {
		if (j->loop_on)
			iop_spin_iters(nops * (uint64_t)j->debit);
		if (!j->probe)
			return;
	}
	iop_inject_spin(j, nops);
}

#endif
