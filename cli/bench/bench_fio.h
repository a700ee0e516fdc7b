/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iopath bench --vs-fio: after each repetition, the matching fio job on
 * the same file and CPUs (A B A B ...), its IOPS and CPU time per operation
 * next to ours in the record, and the pairs for the job's summary.
 */
#ifndef IOPATH_CLI_BENCH_FIO_H
#define IOPATH_CLI_BENCH_FIO_H

#include <jansson.h>
#include <stddef.h>

#include "bench.h"

struct fio_pair {
	double ours[1000], fio[1000];		/* ops/s */
	double ours_cpu[1000], fio_cpu[1000];	/* CPU ns per op (user + system) */
	int n;
	const char *cmdline_shown;
};

/*
 * An iop_harness_opts.after_rep: run the fio job matching @r's parameters
 * and add the pair to @arg, a struct fio_pair.
 */
int vs_fio_after_rep(struct iop_run *r, int rep, const struct iop_rep *res, json_t *rec,
		     void *arg, char *why, size_t len);

#endif
