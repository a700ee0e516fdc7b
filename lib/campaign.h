/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state of a mutation campaign (iopath mutate, iopath lava mutate),
 * written and read here only, as JSON through jansson, each file created
 * through lib/outfile.c (a new temporary file renamed into place) and
 * read back as input (lib/campaign_state.c: a regular file, bounded,
 * every field checked). docs/efficacy.md gives the schemas.
 *
 *   the plan      WORK/plan.json: which mutants, the programs each runs,
 *                 the harness filters, the boot options, and what the
 *                 pristine kernel runs (the union of the mutants'
 *                 programs); made from the mutants' headers (lib/mutant.c)
 *   the pristine  WORK/state/pristine.json: the pristine kernel's runs,
 *                 every test seen and those that passed on every run
 *   a result      WORK/state/NAME.json: a mutant's class, its killers,
 *                 build and run seconds, the detail
 *
 * The scripts ask iopath mutant (cli/) for what they need of it, a value
 * a line; nothing else parses these files.
 */
#ifndef IOPATH_CAMPAIGN_H
#define IOPATH_CAMPAIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "verdict.h"

#define IOP_PLAN_SCHEMA		"iopath-mutant-plan/1"
#define IOP_PRISTINE_SCHEMA	"iopath-mutant-pristine/1"
#define IOP_RESULT_SCHEMA	"iopath-mutant-result/1"
/*
 * Every run of a campaign boots with it: the boot-time check that the
 * timer interrupt works fails at random on a loaded host under TCG
 * ("IO-APIC + timer doesn't work!"), as under any slow hypervisor (KVM
 * guests skip it).
 */
#define IOP_PLAN_APPEND		"no_timer_check"
#define IOP_RUN_STOP_MAX	160	/* bytes of why a guest stopped */

struct iop_strs {
	char **s;
	size_t n, cap;
};

int iop_strs_add(struct iop_strs *v, const char *s);
/* Sorted (strcmp), each once. */
void iop_strs_sort(struct iop_strs *v);
/* Whether sorted @v holds @s. */
bool iop_strs_has(const struct iop_strs *v, const char *s);
void iop_strs_free(struct iop_strs *v);

/* "# Filter: PROGRAM=ARGS": the harness options PROGRAM runs with. */
struct iop_plan_filter {
	char *program, *args;
};

struct iop_plan_mutant {
	char *name;		/* [A-Za-z0-9][A-Za-z0-9._-]* */
	char *patch;		/* the patch file */
	char *function;		/* "# Function:" */
	char *equivalent;	/* "# Equivalent:", NULL when not */
	char *gen_operator;	/* "# Generated: OPERATOR, SEED", NULL when not */
	uint64_t gen_seed;
	bool whole;		/* every program, unfiltered ("# Tests: all", --all-tests) */
	struct iop_strs programs;	/* none when whole */
	struct iop_plan_filter *filters;	/* none when whole */
	size_t nfilters;
};

struct iop_plan {
	char *mutants_dir;
	bool all_tests;
	char *append;		/* the kernel command line the runs add */
	bool pristine_whole;	/* the pristine kernel runs every program */
	struct iop_strs pristine_programs;	/* else these, sorted */
	struct iop_plan_mutant *mutants;	/* in the order asked for */
	size_t nmutants;
};

/*
 * The plan of the mutants of @dir (every *.patch, in name order, or the
 * @nnames of @names, in that order: each one of @dir's): every header of
 * @dir read and checked (iop_mutant_scan()), its programs selftest
 * programs ([a-z0-9_]+_test) and its filters "program_test=-OPTIONS".
 * @all_tests: every mutant runs the whole collection. The pristine
 * kernel runs the union of the chosen mutants' programs (all of them if
 * one runs the whole collection). 0, or -errno with one line in @why.
 */
int iop_plan_make(struct iop_plan *p, const char *dir, char *const *names, size_t nnames,
		  bool all_tests, char *why, size_t len);
int iop_plan_write(const struct iop_plan *p, const char *path, char *why, size_t len);
int iop_plan_load(struct iop_plan *p, const char *path, char *why, size_t len);
void iop_plan_free(struct iop_plan *p);
const struct iop_plan_mutant *iop_plan_find(const struct iop_plan *p, const char *name);

/*
 * The one transform of a filter into the environment of the guest's
 * runner: "KSELFTEST_<PROGRAM in capitals>_ARGS=<ARGS>", for each filter
 * of @m, added to @env. 0 or -ENOMEM.
 */
int iop_plan_env(const struct iop_plan_mutant *m, struct iop_strs *env);
/*
 * The runner's test selection: "-t", "iopath:PROGRAM" for each program
 * @m runs (@m NULL: the pristine kernel), added to @args; none for the
 * whole collection. 0 or -ENOMEM.
 */
int iop_plan_tests(const struct iop_plan *p, const struct iop_plan_mutant *m,
		   struct iop_strs *args);
/* Whether @m ran @program unfiltered: each of its tests was run. */
bool iop_plan_unfiltered(const struct iop_plan_mutant *m, const char *program);

/*
 * One run of a kernel under the VM: the file of scripts/vm.sh's stdout (or
 * iopath lava verdict's --tap): the guest's TAP, then its result line or
 * vm.sh's "# IOPATH-STOP: reason=R seconds=N what=TEXT".
 */
struct iop_run {
	const char *path;
	bool result;			/* the guest's result line is there */
	char stop[IOP_RUN_STOP_MAX + 1];	/* why not, when not */
};

/* Read @r->path for its result and stop lines. 0 or -errno with @why. */
int iop_run_scan(struct iop_run *r, char *why, size_t len);
/* The verdict engine's machine lines for the run at @path, in @v. */
int iop_run_judge(const char *path, struct iop_verdict *v, char *why, size_t len);
/* A case's result as the campaign counts it: "ok", "fail", "skip", NULL if unfinished. */
const char *iop_run_word(const struct iop_case *c);

struct iop_pristine_run {
	int64_t seconds, rc;
	char *stop;		/* "" for a clean run */
};

struct iop_pristine {
	bool whole;			/* ran every program */
	struct iop_strs programs;	/* else these */
	int64_t build_s;		/* -1: not built here (LAVA jobs) */
	struct iop_pristine_run *runs;
	size_t nruns;
	struct iop_strs tests, test_programs;	/* each test seen, with its program */
	struct iop_strs passing;	/* passed on every run, sorted */
};

/*
 * The pristine kernel's state from its @n runs (@paths, with the seconds
 * and exit status of each), for the programs @p gave it.
 */
int iop_pristine_make(struct iop_pristine *pr, const struct iop_plan *p, int64_t build_s,
		      const char *const *paths, const int64_t *seconds, const int64_t *rcs,
		      size_t n, char *why, size_t len);
int iop_pristine_write(const struct iop_pristine *pr, const char *path, char *why, size_t len);
int iop_pristine_load(struct iop_pristine *pr, const char *path, char *why, size_t len);
void iop_pristine_free(struct iop_pristine *pr);
size_t iop_pristine_clean(const struct iop_pristine *pr);
/* Whether the pristine runs covered every program @p needs. */
bool iop_pristine_covers(const struct iop_pristine *pr, const struct iop_plan *p);

struct iop_result {
	char *name, *class, *detail;	/* detail: escaped once (lib/quote.c) */
	struct iop_strs killers;
	int64_t build_s, run_s;
};

/* killed crash survived equivalent no-build unstable */
bool iop_result_class_ok(const char *class);
int iop_result_write(const struct iop_result *r, const char *path, char *why, size_t len);
/* 1 if there is no file at @path, 0, or -errno with @why. */
int iop_result_load(struct iop_result *r, const char *path, char *why, size_t len);
void iop_result_free(struct iop_result *r);

/*
 * The one-off conversion of a work directory's state as scripts/mutate.sh
 * wrote it before this format (NAME.result "key=value" lines, pristine.runs,
 * .tests, .ok, .programs, .build_s) from @old_state into @new_state (an
 * existing directory): NAME.json and pristine.json. 0 or -errno, @why.
 */
int iop_campaign_convert(const char *old_state, const char *new_state, char *why, size_t len);

#endif
