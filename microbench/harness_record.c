// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The record of one repetition: the benchmark's metrics and the common CPU
 * ones, the environment seen from the workers' CPUs, and everything about
 * the run needed to reproduce and to judge it (intervals, workers, foreign
 * CPU, steal, placement, phases, injection, untrusted reasons).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "harness_int.h"
#include "iopath.h"

int make_record(struct iop_run *r, const struct iop_harness_opts *o, int rep,
		struct rep_result *res, json_t **out, double *primary)
{
	struct iop_env_info info = { 0 };
	char cpus[256];
	json_t *rec, *env, *run;
	cpu_set_t set;
	int ret, bad;

	rec = iop_record_new(r->bench->name, rep);
	if (!rec)
		return -ENOMEM;
	/*
	 * Every part of the record, or no record: a part jansson could not
	 * make (no memory, a figure that is no number) is never left out.
	 */
	bad = json_object_set_new(rec, "params", iop_params_json(r));
	*primary = NAN;
	ret = r->bench->report(r, &res->rep, rec, primary);
	if (!ret && r->nphases == 1) {
		double usr = res->rep.usr_ns_per_op, sys = res->rep.sys_ns_per_op;
		double share = usr + sys > 0 ? usr * 100.0 / (usr + sys) : NAN;

		iop_metric_add(r, rec, "cpu_usr_ns_per_op", &usr, 1);
		iop_metric_add(r, rec, "cpu_sys_ns_per_op", &sys, 1);
		iop_metric_add(r, rec, "cpu_usr_share", &share, 1);
		iop_metric_add_whole(r, rec, "cpu_ns_per_op", res->rep.cpu_ns_per_op[0],
				     (size_t)res->rep.nsamples, res->rep.whole_cpu_ns_per_op[0],
				     res->rep.quantum[0]);
		iop_metric_add_floor(r, rec, "cpu_ns_floor", res->rep.cpu_ns_per_op[0],
				     (size_t)res->rep.nsamples);
	}
	if (ret) {
		json_decref(rec);
		return ret;
	}
	CPU_ZERO(&set);
	for (int i = 0; i < r->ncpus; i++)
		CPU_SET(r->cpus[i], &set);
	iop_cpulist_format(&set, cpus, sizeof(cpus));
	info.dev = r->dev && *r->dev ? r->dev : NULL;
	info.fstype = r->fstype;
	info.mnt = r->dir[0] ? r->dir : NULL;
	info.backing = r->fstype ? o->backing : NULL;
	info.mkfs_opts = o->mkfs_opts;
	info.mount_opts = o->mount_opts;
	info.cpus = cpus;
	{
		/* the record's env.placement describes the calling thread: be with the workers */
		cpu_set_t mine;

		sched_getaffinity(0, sizeof(mine), &mine);
		sched_setaffinity(0, sizeof(set), &set);
		env = iop_env_collect(&info);
		sched_setaffinity(0, sizeof(mine), &mine);
	}
	bad |= json_object_set_new(rec, "env", env);
	run = json_pack("{s:i, s:I, s:i, s:f, s:f, s:f, s:I, s:O}",
			"samples_dropped", 1,
			"interval_ms", (json_int_t)r->opt.interval_ms,
			"workers", r->nworkers,
			"foreign_cpu_pct", res->foreign_pct,
			"worker_on_cpu_pct", res->rep.on_cpu_pct,
			"steal_pct", res->steal_pct,
			"nivcsw", (json_int_t)res->nivcsw,
			"placement", res->placement);
	if (r->nphases > 1) {
		json_t *ph = json_array();

		for (int p = 0; ph && p < r->nphases; p++)
			bad |= json_array_append_new(ph, json_string(r->phase_names[p]));
		bad |= json_object_set_new(run, "phases", ph);
	}
	if (r->extra)
		bad |= json_object_set(run, "facts", r->extra);
	bad |= json_object_set_new(run, "main_metric", json_string(iop_main_metric(r)));
	bad |= json_object_set_new(run, "invocation", json_string(r->invocation));
	if (r->w[0] && r->w[0]->inject.ns && r->w[0]->inject.every) {
		uint64_t k = r->w[0]->inject.every;
		json_t *inj = json_pack("{s:I, s:s, s:I, s:f}",
			"ns", (json_int_t)r->w[0]->inject.ns, "clock", "op",
			"every", (json_int_t)k, "share", 1.0 / (double)(k - 1));

		bad |= json_object_set_new(run, "inject", inj);
	} else if (r->w[0] && r->w[0]->inject.ns) {
		json_t *inj = json_pack("{s:I, s:s, s:f, s:o}",
			"ns", (json_int_t)r->w[0]->inject.ns, "clock", iop_str(r, "inject_clock"),
			"measured_ns", r->w[0]->inject.measured_ns,
			"loops", r->w[0]->inject.loop ? json_integer(r->w[0]->inject.debit) :
							 json_null());

		if (inj && r->w[0]->inject.probe) {
			double f = iop_inject_probe_take(&r->w[0]->inject);

			bad |= json_object_set_new(inj, "in_context",
						   isfinite(f) ? json_real(f) : json_null());
		}
		bad |= json_object_set_new(run, "inject", inj);
	}
	bad |= json_object_set_new(rec, "run", run);
	if (bad) {
		json_decref(rec);
		return -ENOMEM;
	}
	if (res->untrusted[0])
		iop_record_untrusted(rec, res->untrusted);
	/* its metrics mix operations with the loop and without */
	if (r->opt.inject_probe)
		iop_record_untrusted(rec, "inject_probe=1: a run that sizes the known effect, not a measurement");
	*out = rec;
	return 0;
}
