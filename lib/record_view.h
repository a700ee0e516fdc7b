/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The typed view of one result record (docs/records.md): what the readers
 * (compare, plot, export, lava) use, filled once from the JSON by
 * iop_rec_parse(), every field checked there, as fio fills its thread_stat
 * and formats only at the edges. A reader that takes a struct iop_rec
 * never looks a field up by name.
 */
#ifndef IOPATH_RECORD_VIEW_H
#define IOPATH_RECORD_VIEW_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "record.h"

struct iop_rec_metric {
	const char *name;
	const char *unit;	/* NULL: the record gives none */
	enum iop_better better;
	const char *agg;	/* one iop_agg_known() names */
	double value;		/* what compare tests: the aggregate of the samples */
	double *samples;	/* the raw samples, in order */
	size_t nsamples;
	bool has_samples;
	double quantum;		/* a fraction in [0, 1); 0 when the record gives none */
	/* What export and lava also read (cli/export, cli/lava). */
	bool no_value;		/* "value" not a finite number: only iop_rec_parse_keep() */
	json_int_t n;		/* "n", when has_n */
	bool has_n;
	double cv;		/* "cv", when has_cv (null: none) */
	bool has_cv;
};

struct iop_rec_env {
	const char *release;	/* env.kernel.release */
	const char *boot_id;	/* env.kernel.boot_id */
	const char *cmdline;	/* env.kernel.cmdline */
	const char *image_sha256;	/* env.kernel.image_sha256 */
	const char *seed;	/* "iopath.seed=" of the cmdline, "" when none */
	const char *clock_domain;	/* "wall" (also when absent) or "instructions" */
	const char *fs_type;	/* env.fs.type */
	/* What export and lava also read (cli/export, cli/lava). */
	const char *mkfs_opts;	/* env.fs.mkfs_opts */
	const char *arch;	/* env.machine.arch */
	json_t *fs;		/* env.fs as given (borrowed): KCIDB's misc carries it whole */
};

struct iop_rec_run {
	const char *invocation;	/* run.invocation */
	const char *main_metric;	/* run.main_metric */
	const char *pairing_id;	/* run.pairing.id */
	json_int_t round;	/* run.pairing.round, when has_round */
	json_int_t cycle;	/* run.pairing.cycle: 0 when not an integer, 2 when absent */
	bool has_round;
};

struct iop_rec {
	const char *bench;
	json_int_t rep;		/* when has_rep */
	bool has_rep;
	const char *time;	/* NULL: the record gives none */
	json_t *params;		/* the benchmark's parameters (an object; borrowed from @json) */
	struct iop_rec_env env;
	struct iop_rec_run run;
	bool untrusted;		/* "status" "untrusted" or a non-empty "untrusted" list */
	struct iop_rec_metric *metrics;
	size_t nmetrics;
	json_t *json;		/* the record (one reference held): strings above point into it */
	char seed_buf[80];
	/* What export and lava also read (cli/export, cli/lava). */
	const char *status;	/* "status", NULL when none */
	json_t *untrusted_why;	/* "untrusted", strings (borrowed), NULL when none */
};

/*
 * Fill @r from @rec (which must have passed iop_record_check()): 0, or
 * -EINVAL with what is wrong in @what, in words that follow
 * "<path>:<line>: ", or -ENOMEM. @r holds a reference to @rec until
 * iop_rec_free().
 */
int iop_rec_parse(json_t *rec, struct iop_rec *r, char *what, size_t len);
size_t iop_cmdline_seed(const char *cmdline, char *buf, size_t len);
void iop_rec_free(struct iop_rec *r);

/* The metric named @name, or NULL. */
const struct iop_rec_metric *iop_rec_metric(const struct iop_rec *r, const char *name);

/*
 * iop_rec_parse(), but a metric whose "value" is not a finite number is
 * kept with no_value set (and value NaN) rather than refused: export
 * leaves that metric out with a note and lava passes the record on, as a
 * statistic undefined over its samples is written null (lib/record.c).
 */
int iop_rec_parse_keep(json_t *rec, struct iop_rec *r, char *what, size_t len);

#endif
