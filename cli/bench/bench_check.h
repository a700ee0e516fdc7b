/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What iopath bench checks before it makes any scratch filesystem, so that
 * bad usage is one line and exit 2 with nothing created: the backing a job
 * would use (a named device passes the scratch safety checks, a directory
 * exists), the filesystems it names, and whether its parameters fit that
 * backing (an O_DIRECT block size aligned to the device's logical block
 * size, a file that fits the scratch capacity); and where the records go.
 */
#ifndef IOPATH_CLI_BENCH_CHECK_H
#define IOPATH_CLI_BENCH_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "iopath.h"

/* The size of a zram or loop scratch for benchmarks: room for 1 GiB files. */
#define IOP_BENCH_SCRATCH_SIZE (4ull << 30)

struct iop_backing_info {
	struct iop_scratch_opts o;	/* environment, then the --backing/profile value */
	unsigned int align;		/* O_DIRECT alignment, bytes */
	uint64_t capacity;		/* bytes a scratch filesystem there can hold */
};

/*
 * Resolve @backing over the environment and check it without changing
 * anything: -errno and one line in @why if it is malformed or refused.
 */
int iop_backing_check(const char *backing, struct iop_backing_info *bi, char *why, size_t len);

/* A comma list of ext4, xfs and none, naming at least one. */
int iop_fs_list_check(const char *list, char *why, size_t len);

/* Whether @r's bs= and size= fit @bi. */
int iop_bench_fits(const struct iop_run *r, const struct iop_backing_info *bi,
		   char *why, size_t len);

/*
 * Where records go: @out (checked with the jobs, and claimed for this
 * process alone: iop_out_claim()), none for '-' or @json,
 * else a new results/<name>-<time>-<pid>.jsonl, created with O_EXCL so that
 * runs started in the same second never share it (*@reserved: an empty
 * placeholder the caller removes if nothing is written). 0, or the exit
 * status after one line on stderr.
 */
int iop_bench_out(const char *out, bool json, const char *name, char *path, size_t len,
		  bool *reserved);

#endif
