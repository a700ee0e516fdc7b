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

usage: ab_synth.py IOPATH DIR RUNS|exact SEED PROFILE DELTA [REPS PAIRS]
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
# (instructions of virtual time per repetition), profile (configs/bench/
# NAME.conf, whose reps a boot runs), pairs, events [(instructions, per
# 10^9 instructions, kind)], rep_sd (instructions per repetition),
# boot_sd (instructions per operation, per boot), offsets (instructions
# of other work in repetition i of every boot; past the last, the pattern
# after the first again). An event of kind "poisson" lands at random
# times; "periodic" recurs at a fixed interval from a random phase per
# boot. Fitted to the A/A of 6 December (docs/ab.md, "What the MDE
# promises"): the same work at the same repetition in every boot
# (read_vs_readv's fifth repetition always holds a job of 617,000
# instructions, every first repetition some setup), the odd job of
# 830,000 to 950,000 instructions (2 in 20 repetitions of ext4, 0 of XFS,
# 1 of readv), and a spread of 0.0007% to 0.002% between boots at one
# repetition. falloc's job (953,000 instructions, +7 a call in its
# repetition) is ext4's journal commit, every 5 s of virtual time: of 45
# boots of 5 repetitions (3.25 s), 29 hold one and none two, where jobs
# at random times at that rate would put two or more in 6 of them. The
# per-boot spread is that of each boot's median within a side, over the
# 14 sides of the A/A and calibration runs of 6 December: 0.01
# instructions for falloc; read_vs_readv's boots agree to 0.001 when it
# runs first in the boot, as in its own profile (after uring_randread
# they sat on levels 0.06 apart, and falloc_write's commits came twice as
# often: the concatenated profile of the A/A and calibration runs puts
# read_vs_readv first and falloc_write second, docs/ab.md).
PROFILES = {
    "uring-ext4": ("uring_randread", "ext4", "iops", "ops/s", True,
                   4034.3, 3.5e8, "ab-uring-randread", 3,
                   [(857000, 0.29, "poisson")], 4200, 0.0,
                   [52000, 0, 0, 0, 0]),
    "uring-xfs": ("uring_randread", "xfs", "iops", "ops/s", True,
                  4308.1, 3.5e8, "ab-uring-randread", 3,
                  [(857000, 0.1, "poisson")], 2600, 0.0,
                  [54000, 0, 3000, 7500, -9000]),
    "readv": ("read_vs_readv", "none", "readv_ns", "ns", False,
              1615.3, 3.5e8, "ab-read-readv", 3,
              [(834000, 0.14, "poisson")], 7400, 0.0,
              [15000, 11000, 11000, 33000, 617000]),
    "falloc": ("falloc_write", "ext4", "ops", "ops/s", True,
               4757.4, 6.5e8, "ab-lkp-falloc", 3,
               [(953000, 0.198, "periodic")], 5300, 0.01,
               [105000, 0, 0, 0, 0]),
}


def profile_reps(top, name):
    """The repetitions a boot runs: reps = N of configs/bench/NAME.conf."""
    with open(os.path.join(top, "configs", "bench", name + ".conf")) as f:
        for line in f:
            key, sep, val = line.partition("=")
            if sep and key.strip() == "reps":
                return int(val)
    raise SystemExit("ab_synth.py: no reps in configs/bench/%s.conf" % name)


# the MDE goal of each profile, in percent (docs/ab.md)
GOALS = {"uring-ext4": 0.05, "uring-xfs": 0.05, "readv": 0.01, "falloc": 0.01}


def rep_noise(rng, p, i, phase):
    """The instructions of other work in repetition @i of a boot whose
    periodic events start at @phase (instructions of virtual time)."""
    d, events, rep_sd, offsets = p[6], p[9], p[10], p[12]
    j = i if i < len(offsets) else 1 + (i - 1) % (len(offsets) - 1)
    e = offsets[j] + rng.gauss(0, rep_sd)
    for size, per_g, kind in events:
        if kind == "periodic":
            # the events at phase + k * period within [i * d, (i + 1) * d)
            period = 1e9 / per_g
            e += size * (math.ceil(((i + 1) * d - phase) / period) -
                         math.ceil((i * d - phase) / period))
            continue
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
    period = max([1e9 / ev[1] for ev in p[9] if ev[2] == "periodic"] + [1.0])
    for i in range(pairs):
        seed = "%032x" % rng.getrandbits(128)
        phase = rng.random() * period
        noise = [rep_noise(rng, p, r, phase) for r in range(reps)]
        for side, dc in (("A", 0.0), ("B", delta)):
            boot = "%08x-0000-4000-8000-%012x" % (rng.getrandbits(32), rng.getrandbits(48))
            cb = c + dc + (0 if same_noise else rng.gauss(0, boot_sd))
            phase = rng.random() * period
            for r in range(reps):
                e = noise[r] if same_noise else rep_noise(rng, p, r, phase)
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
    p = list(PROFILES[name])
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    p[7] = profile_reps(top, p[7])
    if len(sys.argv) > 7:
        p[7], p[8] = int(sys.argv[7]), int(sys.argv[8])
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
