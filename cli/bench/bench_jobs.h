/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The jobs of iopath bench: a benchmark and its parameters, one point of
 * a matrix, from the command line or from a profile (configs/bench/NAME.conf).
 *
 * Profile format (INI): "[global]" then one "[benchmark]" section per job
 * (a name may repeat); "key = value" lines; '#' comments. A value with
 * commas is a matrix axis (cpus= axes are separated by spaces instead, as a
 * CPU list has commas). Keys: fs (ext4, xfs, none), backing, and any
 * parameter of the benchmark; [global] keys apply to every job whose
 * benchmark has that parameter, and must be a parameter of some benchmark.
 */
#ifndef IOPATH_CLI_BENCH_JOBS_H
#define IOPATH_CLI_BENCH_JOBS_H

#include <limits.h>
#include <stddef.h>

#include "bench.h"

#define MAX_KV 64

struct job {
	const struct iop_bench *b;
	char *kv[MAX_KV];	/* name=value, single values (the matrix is expanded) */
	int nkv;
	char fs[64];		/* "ext4,xfs", "none" */
	char backing[PATH_MAX];
};

struct jobs {
	struct job *v;
	int n, cap;
};

/*
 * More jobs than anyone runs: a few matrix axes in a small profile must not
 * multiply into gigabytes of job table.
 */
#define MAX_JOBS 4096

/*
 * Expand the axes of @kv (values with commas, or spaces for cpus=) over
 * @base into one job per point. -EINVAL for an item without '=', -E2BIG
 * past MAX_JOBS.
 */
int iop_jobs_expand(struct jobs *js, struct job *base, char **kv, int nkv);

/*
 * Load profile @name (configs/bench/NAME.conf, or a path with a '/') into
 * @js: a regular file, lines of at most 1024 bytes, no NUL byte, no
 * unknown key in any section. -errno with one line in @why.
 */
int iop_profile_load(const char *name, struct jobs *js, char *why, size_t len);

/* Free the job table and every string its jobs point at. */
void iop_jobs_free(struct jobs *js);

/* @s without leading and trailing blanks (in place). */
char *iop_trim(char *s);

#endif
