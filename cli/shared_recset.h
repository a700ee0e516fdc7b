/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Record sets for `iopath compare` and `iopath plot`: load a result file,
 * check that every record carries what a comparison needs, and pair the
 * records of two files by benchmark and parameters.
 *
 * Shared by several commands (hence shared_): compare, plot, records and
 * bench --calibrate (bench_calibrate.c).
 */
#ifndef IOPATH_CLI_SHARED_RECSET_H
#define IOPATH_CLI_SHARED_RECSET_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "record_view.h"

/*
 * A result file, each record parsed once at load (iop_rec_parse_flags(),
 * values as measurements): from here on its readers take the typed view
 * and never look a field of the JSON up.
 */
struct iop_rs_file {
	const char *path;
	struct iop_rec **recs;	/* each allocated, and freed by iop_rs_free() */
	int *lines;		/* line of each record in @path */
	size_t n;
	const char *domain;	/* env.clock.domain of every record: "wall" or "instructions" */
};

/*
 * Records of one benchmark with one set of parameters: side 0 is the base
 * file, side 1 the new one. Either side may be empty (unpaired).
 */
struct iop_rs_group {
	const char *bench;	/* borrowed from the first record */
	struct iop_rec_param *params;	/* "params" plus "fs" (env.fs.type or "none") */
	size_t nparams;
	bool fs_from_env;	/* "fs" is not a benchmark parameter but --fs */
	char *key;
	const struct iop_rec **recs[2];
	int *lines[2];
	size_t n[2];
};

/*
 * Load @path. On failure returns -errno and writes "<path>:<line>: <what>"
 * (or "<path>: <what>" when no line applies) into @why.
 */
int iop_rs_load(struct iop_rs_file *f, const char *path, char *why, size_t len);
void iop_rs_free(struct iop_rs_file *f);

/* Group base and new records; groups come in base-file order, then new-only. */
int iop_rs_pair(const struct iop_rs_file *base, const struct iop_rs_file *new,
		struct iop_rs_group **groups, size_t *n);
void iop_rs_groups_free(struct iop_rs_group *groups, size_t n);

/*
 * What no comparison can take, refused with "<file>:<line>: <what>" in
 * @why and -EINVAL: a metric in a different unit than on another record
 * of its group (either side), the same repetition (bench, params, rep
 * and time) twice on one side, and one boot id under two kernel releases
 * (either side). Impossible values (not finite, negative
 * times and rates, non-zero magnitudes outside 1e-150 .. 1e150) are
 * refused by iop_rs_load().
 */
int iop_rs_check(const struct iop_rs_group *groups, size_t n, const char *base_path,
		 const char *new_path, char *why, size_t len);

/* @n parameters in order of their names (an array of pointers: caller frees), or NULL. */
const struct iop_rec_param **iop_rs_params_sorted(const struct iop_rec_param *p, size_t n);

/*
 * "falloc_write fs=xfs mode=keep_size": the benchmark, its filesystem and
 * the parameters in which @g differs from another group of the same
 * benchmark among @groups. Caller frees.
 */
char *iop_rs_group_label(const struct iop_rs_group *groups, size_t n,
			 const struct iop_rs_group *g);

/*
 * What iopath ab requires of the records of one boot (@f, loaded): all in
 * clock domain @domain, all from the kernel image whose SHA-256 is
 * @sha256 (env.kernel.image_sha256), all with one boot id, and that id on
 * no record of the @nseen files of earlier boots (a boot of its own, not
 * records sent twice). 0, or -EINVAL with "<path>:<line>: <what>" in @why.
 */
int iop_rs_check_boot(const struct iop_rs_file *f, const char *sha256, const char *domain,
		      const struct iop_rs_file *seen, size_t nseen, char *why, size_t len);

#endif
