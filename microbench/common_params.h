/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The harness's own parameters, one entry each: the field of struct
 * iop_common_opts its parsed value goes to (as fio's option table points
 * into its thread_options), type, default, minimum, maximum, choices and
 * help. The one list: microbench/harness_params.c includes it for the
 * table and again for the offsets, with IOP_COMMON_PARAM defined for each.
 * IOP_COMMON_SETTING marks a setting of the harness (how it runs and
 * judges the benchmark) from a parameter of the workload (IOP_COMMON_PARAM:
 * the injected work, the scratch device's stable_writes): a KCIDB test
 * path (iopath export) names the workload, never a setting.
 */
IOP_COMMON_SETTING(cpus, IOP_P_CPUS, "", 0, 0, NULL,
		   "CPUs for the worker threads, one each in turn (default: the last online CPU)")
IOP_COMMON_SETTING(reps, IOP_P_U64, "5", 1, 1000, NULL,
		   "repetitions, one record each")
IOP_COMMON_SETTING(runtime, IOP_P_DOUBLE, "5", 0.1, 86400, NULL,
		   "seconds per repetition (per phase), after the dropped first interval; fractions to the ms")
IOP_COMMON_SETTING(warmup, IOP_P_U64, "1", 0, 3600, NULL,
		   "seconds of untimed warm-up before the first repetition")
IOP_COMMON_SETTING(interval_ms, IOP_P_U64, "1000", 10, 60000, NULL,
		   "sample interval (per-phase slice)")
IOP_COMMON_SETTING(cv_max, IOP_P_DOUBLE, "2", 0, 1000, NULL,
		   "untrusted if the main metric's coefficient of variation across repetitions exceeds this (%)")
IOP_COMMON_SETTING(foreign_max, IOP_P_DOUBLE, "10", 0, 10000, NULL,
		   "untrusted if other processes (or steal) used more than this share of one CPU during a repetition (%)")
IOP_COMMON_SETTING(main_metric, IOP_P_METRIC, "", 0, 0, NULL,
		   "the metric the trust check, target_ci and calibration go by (default: the first)")
IOP_COMMON_SETTING(target_ci, IOP_P_DOUBLE, "0", 0, 100, NULL,
		   "repeat until the main metric's 95% CI is within +-this % of its mean (reps: the minimum); 0: off")
IOP_COMMON_SETTING(time_budget, IOP_P_U64, "300", 1, 86400, NULL,
		   "seconds after which target_ci stops repeating, reached or not")
IOP_COMMON_PARAM(inject_ns, IOP_P_U64, "0", 0, 100000000, NULL,
		 "known extra work: busy-wait this many ns per operation in the timed loop (calibration)")
IOP_COMMON_PARAM(inject_clock, IOP_P_ENUM, "wall", 0, 0, "wall|cpu|loop|op",
		 "what inject_ns waits on: wall time (rates), the worker's CPU time (CPU per op), loop: a count of iterations, no clock read, or op: whole operations (inject_every)")
IOP_COMMON_PARAM(inject_loops, IOP_P_U64, "0", 0, 1000000, NULL,
		 "with inject_clock=loop: iterations per operation (0: the count that costs inject_ns at start)")
IOP_COMMON_PARAM(inject_every, IOP_P_U64, "0", 0, 1000000000, NULL,
		 "with inject_clock=op: one operation in this many is done and not counted, +1/(N-1) per counted operation")
IOP_COMMON_PARAM(inject_probe, IOP_P_BOOL, "0", 0, 1, NULL,
		 "inject in every other 100 us only, and record its cost there as a fraction (run.inject.in_context); a sizing run, untrusted")
IOP_COMMON_PARAM(stable_writes, IOP_P_ENUM, "device", 0, 0, "device|0|1",
		 "zram or loop scratch: its stable_writes flag before mkfs; 0: XFS does not bounce direct I/O (as on a disk without integrity)")
