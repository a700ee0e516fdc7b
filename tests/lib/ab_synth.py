#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Simulated iopath ab runs with the noise structure of the real ones.

A boot under icount is slow; whether the MDE a verdict states keeps its
promise needs hundreds of runs. This makes them: for each profile, the
records of `pairs` pairs of boots, A and B of a pair with one seed, each
boot `reps` repetitions whose value is the whole repetition's (operations
over virtual time, or time over operations, docs/records.md), and runs
`iopath compare --format planted` on them: an A/A (B = A) and a plant (B
costs `delta` more instructions per operation). A repetition of D
instructions of virtual time holds (D - E) / c operations of c
instructions each, E the work of other kernel jobs that landed in it:
events of a fixed size at random times (the count in a repetition is
Poisson), plus a normal spread, plus a per-boot offset per operation.
The figures per profile are fitted to the A/A records of real runs
(docs/ab.md, "What the MDE promises").

usage: ab_synth.py IOPATH DIR RUNS|exact SEED PROFILE DELTA
       ab_synth.py --cost PROFILE   (its instructions per operation, its MDE goal in %)
prints one line: "runs R none N regression G improvement I mde_p50 X
mde_p90 Y promise_runs M promise_kept K" (MDEs as fractions; a promise
run is one whose stated MDE is at most the planted change, kept when it
was detected). With "exact" instead of RUNS: one A/B whose B is A's
repetitions, the same noise, with DELTA planted: "change C want W".
"""
import json
import math
import os
import random
import subprocess
import sys

# name: bench, fs, metric, unit, rate, c (instructions per operation), D
# (instructions of virtual time per repetition), reps, pairs, events
# [(instructions, per 10^9 instructions)], rep_sd (instructions per
# repetition), boot_sd (instructions per operation, per boot), offsets
# (instructions of other work in repetition i of every boot). Fitted to
# the A/A of 6 December (docs/ab.md, "What the MDE promises"): the same
# work at the same repetition in every boot (read_vs_readv's fifth
# repetition always holds a job of 617,000 instructions, every first
# repetition some setup), the odd job of 830,000 to 950,000 instructions
# at random (2 in 20 repetitions of ext4, 0 of XFS, 1 of readv, 4 of
# falloc), and a spread of 0.0007% to 0.002% between boots at one
# repetition.
PROFILES = {
    "uring-ext4": ("uring_randread", "ext4", "iops", "ops/s", True,
                   4034.3, 3.5e8, 5, 3, [(857000, 0.29)], 4200, 0.0,
                   [52000, 0, 0, 0, 0]),
    "uring-xfs": ("uring_randread", "xfs", "iops", "ops/s", True,
                  4308.1, 3.5e8, 5, 3, [(857000, 0.1)], 2600, 0.0,
                  [54000, 0, 3000, 7500, -9000]),
    "readv": ("read_vs_readv", "none", "readv_ns", "ns", False,
              1615.3, 3.5e8, 5, 3, [(834000, 0.14)], 7400, 0.0,
              [15000, 11000, 11000, 33000, 617000]),
    "falloc": ("falloc_write", "ext4", "ops", "ops/s", True,
               4757.4, 6.5e8, 5, 3, [(953000, 0.31)], 5300, 0.0,
               [105000, 0, 0, 0, 0]),
}


# the MDE goal of each profile, in percent (docs/ab.md)
GOALS = {"uring-ext4": 0.05, "uring-xfs": 0.05, "readv": 0.01, "falloc": 0.01}


def rep_noise(rng, p, i):
    """The instructions of other work in repetition @i."""
    d, events, rep_sd = p[6], p[9], p[10]
    e = p[12][i] + rng.gauss(0, rep_sd)
    for size, per_g in events:
        lam = per_g * d / 1e9
        # Poisson by inversion: lam is small
        k, t, u = 0, math.exp(-lam), rng.random()
        s = t
        while u > s:
            k += 1
            t *= lam / k
            s += t
        e += k * size
    return e


def rep_value(p, c, e):
    """A repetition's value: (D - e) / c operations in D instructions."""
    rate, d = p[4], p[6]
    ops = (d - e) / c
    return ops / d * 1e9 if rate else d / ops


def record(p, value, rep, boot, seed):
    bench, fs, metric, unit, rate = p[:5]
    return {
        "schema": 1, "bench": bench, "rep": rep, "status": "ok",
        "params": {"fs": fs} if fs != "none" else {},
        "metrics": [{"name": metric, "unit": unit,
                     "better": "higher" if rate else "lower",
                     "agg": "ops_over_time" if rate else "time_over_ops",
                     "value": value, "samples": [value]}],
        "env": {"kernel": {"release": "7.2.13", "boot_id": boot,
                           "cmdline": "nokaslr iopath.seed=%s" % seed},
                "clock": {"domain": "instructions", "accel": "tcg-icount"},
                "fs": {"type": fs if fs != "none" else None}},
        "run": {"main_metric": metric, "invocation": boot[:8]},
    }


def one_run(rng, p, delta, tmp, iopath, same_noise=False):
    """One A/B; with @same_noise B is A's repetitions with @delta planted."""
    c, reps, pairs, boot_sd = p[5], p[7], p[8], p[11]
    sides = {"A": [], "B": []}
    for i in range(pairs):
        seed = "%032x" % rng.getrandbits(128)
        noise = [rep_noise(rng, p, r) for r in range(reps)]
        for side, dc in (("A", 0.0), ("B", delta)):
            boot = "%08x-0000-4000-8000-%012x" % (rng.getrandbits(32), rng.getrandbits(48))
            cb = c + dc + (0 if same_noise else rng.gauss(0, boot_sd))
            for r in range(reps):
                e = noise[r] if same_noise else rep_noise(rng, p, r)
                sides[side].append(record(p, rep_value(p, cb, e), r, boot, seed))
    for side, recs in sides.items():
        with open(os.path.join(tmp, side + ".jsonl"), "w") as f:
            for rec in recs:
                f.write(json.dumps(rec) + "\n")
    out = subprocess.run([iopath, "compare", os.path.join(tmp, "A.jsonl"),
                          os.path.join(tmp, "B.jsonl"), "--format", "planted"],
                         capture_output=True, text=True, check=True).stdout
    fields = dict(w.split("=", 1) for w in out.split()[2:])
    return fields["verdict"], float(fields["mde"]), float(fields["change"])


def main():
    if sys.argv[1] == "--cost":
        print(PROFILES[sys.argv[2]][5], GOALS[sys.argv[2]])
        return
    iopath, tmp, runs, seed, name, delta = sys.argv[1:7]
    p = PROFILES[name]
    rng = random.Random(int(seed))
    delta = float(delta)
    if runs == "exact":
        # every repetition of B is A's with the plant: what is measured
        # is the plant, whatever its size, if no rule drops a repetition
        _, _, change = one_run(rng, p, delta, tmp, iopath, same_noise=True)
        c = p[5]
        want = c / (c + delta) - 1 if p[4] else delta / c
        print("change %.12g want %.12g" % (change, want))
        return
    counts = {"none": 0, "regression": 0, "improvement": 0}
    mdes = []
    promise_runs = promise_kept = 0
    for _ in range(int(runs)):
        v, mde, _ = one_run(rng, p, delta, tmp, iopath)
        counts[v] += 1
        mdes.append(mde)
        if delta > 0 and delta / p[5] >= mde:
            promise_runs += 1
            promise_kept += v == "regression"
    mdes.sort()
    print("runs %s none %d regression %d improvement %d mde_p50 %.8f mde_p90 %.8f "
          "promise_runs %d promise_kept %d" %
          (runs, counts["none"], counts["regression"], counts["improvement"],
           mdes[len(mdes) // 2], mdes[int(0.9 * len(mdes))], promise_runs, promise_kept))


if __name__ == "__main__":
    main()
