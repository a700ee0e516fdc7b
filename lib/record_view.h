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

/*
 * The environment fields that must match for two runs to be comparable
 * (compare's "environment differs" notes). The kernel release and
 * version are left out on purpose: they are what differs.
 */
#define IOP_REC_NENV 15
extern const char *const iop_rec_env_compared[IOP_REC_NENV];

/*
 * One member of "params". Parameters are open-ended (each benchmark has
 * its own): the view gives each as text, as printed and as paired, and
 * keeps the value itself only for the output, where compare.json gives
 * it back as the record had it.
 */
struct iop_rec_param {
	const char *name;
	json_t *value;		/* one reference held; for compare.json and equality only */
	char *text;		/* a string as is, anything else as compact JSON */
	bool is_str;
	char *key;		/* as paired: compact JSON, keys sorted, an integer as a real */
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

	/* compare and plot */
	const char *clock_accel;	/* env.clock.accel */
	const char *cpu_model;	/* env.machine.cpu_model */
	const char *cpus_online;	/* env.machine.cpus_online as a list ("0-3"), or NULL */
	json_int_t ncpus_online;	/* ... or, in older records, a count */
	bool has_ncpus_online;
	const char *placement_cpus;	/* env.placement.cpus */
	const char *backing;	/* env.device.backing */
	const char *dev_name;	/* env.device.name */
	const char *fs_mnt;	/* env.fs.mnt */
	/*
	 * iop_rec_env_compared[i] as compared and printed: NULL when absent or
	 * null, a string in double quotes (the cmdline without the words that
	 * name the image or the boot), anything else as compact JSON, keys
	 * sorted. Equal texts, equal values.
	 */
	char *cmp[IOP_REC_NENV];
};

struct iop_rec_run {
	const char *invocation;	/* run.invocation */
	const char *main_metric;	/* run.main_metric */
	const char *pairing_id;	/* run.pairing.id */
	json_int_t round;	/* run.pairing.round, when has_round */
	json_int_t cycle;	/* run.pairing.cycle: 0 when not an integer, 2 when absent */
	bool has_round;

	/* compare */
	const char *file_layout;	/* run.facts.file_layout */
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

	/* compare and plot */
	struct iop_rec_param *param_list;	/* "params", member by member, in record order */
	size_t nparams;
	const char **untrusted_reasons;	/* the strings of "untrusted", in order */
	size_t nuntrusted_reasons;
};

/*
 * Fill @r from @rec (which must have passed iop_record_check()): 0, or
 * -EINVAL with what is wrong in @what, in words that follow
 * "<path>:<line>: ", or -ENOMEM. @r holds a reference to @rec until
 * iop_rec_free().
 */
int iop_rec_parse(json_t *rec, struct iop_rec *r, char *what, size_t len);

/*
 * iop_rec_parse() for readers that take values as measurements (compare,
 * plot): with IOP_REC_MEASURED a value or sample that no measurement
 * gives (a negative time or rate) or that the statistics cannot take
 * (outside 1e-150 .. 1e150 in magnitude, but 0) is refused too.
 */
#define IOP_REC_MEASURED 0x1
int iop_rec_parse_flags(json_t *rec, struct iop_rec *r, unsigned int flags, char *what,
			size_t len);
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
/* @p as parameter @name of value @value (a reference taken): 0 or -ENOMEM. */
int iop_rec_param_init(struct iop_rec_param *p, const char *name, json_t *value);
void iop_rec_param_release(struct iop_rec_param *p);
/* Whether @a and @b hold one value (as JSON compares: 1 and 1.0 are two). */
bool iop_rec_param_same(const struct iop_rec_param *a, const struct iop_rec_param *b);
/* The parameter named @name among @n, or NULL. */
const struct iop_rec_param *iop_rec_param(const struct iop_rec_param *p, size_t n,
					  const char *name);

#endif
