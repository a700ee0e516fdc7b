// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The benchmarks' metrics: the common CPU metrics, adding a declared
 * metric's samples to a record, and the latency histogram (percentiles,
 * merging the workers' histograms).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* ---- metrics ----------------------------------------------------------- */

const struct iop_metric iop_common_metrics[] = {
	{ "cpu_usr_ns_per_op", "ns", IOP_LOWER_IS_BETTER, false },
	{ "cpu_sys_ns_per_op", "ns", IOP_LOWER_IS_BETTER, false },
	{ "cpu_usr_share", "%", IOP_LOWER_IS_BETTER, false },
	{ "cpu_ns_per_op", "ns", IOP_LOWER_IS_BETTER, false },
	{ "cpu_ns_floor", "ns", IOP_LOWER_IS_BETTER, false },
	{ .name = NULL }
};

const struct iop_metric iop_latency_metrics[] = {
	{ "lat_p50_ns", "ns", IOP_LOWER_IS_BETTER, false },
	{ "lat_p99_ns", "ns", IOP_LOWER_IS_BETTER, false },
	{ "lat_p999_ns", "ns", IOP_LOWER_IS_BETTER, false },
	{ .name = NULL }
};

int iop_metric_tables(const struct iop_bench *b, const struct iop_metric *tables[IOP_METRIC_TABLES])
{
	int n = 0;

	tables[n++] = b->metrics;
	if (b->latency_metrics)
		tables[n++] = iop_latency_metrics;
	tables[n++] = iop_common_metrics;
	return n;
}

int iop_metric_add(const struct iop_run *r, json_t *rec, const char *name,
		   const double *samples, size_t n)
{
	const struct iop_metric *tables[IOP_METRIC_TABLES];
	int ntables = iop_metric_tables(r->bench, tables);

	for (int t = 0; t < ntables; t++) {
		for (const struct iop_metric *m = tables[t]; m && m->name; m++) {
			double *fin;
			size_t k = 0;
			int ret;

			if (strcmp(m->name, name))
				continue;
			/*
			 * An interval in which a starved worker did nothing gives
			 * no number (0/0): leave it out rather than invent one;
			 * run_rep() marks such a repetition untrusted.
			 */
			fin = malloc((n ? n : 1) * sizeof(*fin));
			if (!fin)
				return -ENOMEM;
			for (size_t i = 0; i < n; i++)
				if (isfinite(samples[i]))
					fin[k++] = samples[i];
			ret = k ? iop_record_add_metric(rec, m->name, m->unit, m->better,
							m->is_rate, fin, k) : 0;
			free(fin);
			return ret;
		}
	}
	fprintf(stderr, "iopath: bench %s: metric '%s' is not declared\n", r->bench->name, name);
	abort();
}

int iop_metric_add_whole(const struct iop_run *r, json_t *rec, const char *name,
			 const double *samples, size_t n, double whole, double quantum)
{
	const char *domain = iop_clock_domain();
	int ret = iop_metric_add(r, rec, name, samples, n);
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += isfinite(samples[i]) != 0;
	if (ret || !k)	/* no slice gave a number: iop_metric_add added nothing */
		return ret;
	if (domain && !strcmp(domain, "instructions")) {
		/* nothing completed: no figure, as iop_metric_add leaves such a slice out */
		return isfinite(whole) ? iop_record_metric_whole(rec, name, whole) : 0;
	}
	return quantum > 0 && isfinite(quantum) ? iop_record_metric_quantum(rec, name, quantum) : 0;
}

int iop_metric_add_floor(const struct iop_run *r, json_t *rec, const char *name,
			 const double *samples, size_t n)
{
	double floor = INFINITY;

	for (size_t i = 0; i < n; i++)
		if (isfinite(samples[i]) && samples[i] < floor)
			floor = samples[i];
	return isfinite(floor) ? iop_metric_add(r, rec, name, &floor, 1) : 0;
}

int iop_metric_add_latency(const struct iop_run *r, json_t *rec, const struct iop_rep *rep)
{
	double p50, p99, p999;
	int ret;

	if (!rep->hist)
		return 0;
	p50 = iop_hist_pct(rep->hist, 50);
	p99 = iop_hist_pct(rep->hist, 99);
	p999 = iop_hist_pct(rep->hist, 99.9);
	ret = iop_metric_add(r, rec, "lat_p50_ns", &p50, 1);
	if (!ret)
		ret = iop_metric_add(r, rec, "lat_p99_ns", &p99, 1);
	if (!ret)
		ret = iop_metric_add(r, rec, "lat_p999_ns", &p999, 1);
	return ret;
}

double iop_hist_pct(const struct iop_hist *h, double p)
{
	uint64_t want, seen = 0;

	if (!h->count)
		return 0;
	want = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (want < 1)
		want = 1;
	for (unsigned int i = 0; i < IOP_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= want) {
			unsigned int grp = i >> IOP_HIST_SUB_BITS;
			uint64_t sub = i & ((1u << IOP_HIST_SUB_BITS) - 1);

			if (!grp)
				return (double)i;
			/* the middle of the bucket */
			return (double)(((1ull << IOP_HIST_SUB_BITS) + sub) << (grp - 1)) +
			       (double)(1ull << (grp - 1)) / 2.0;
		}
	}
	return NAN;
}

void iop_hist_merge(struct iop_hist *dst, const struct iop_hist *src)
{
	for (unsigned int i = 0; i < IOP_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
}
