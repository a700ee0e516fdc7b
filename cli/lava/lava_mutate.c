// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath lava mutate: one job per mutant kernel of iopath mutate's work
 * directory (and the pristine kernel), each running what the campaign's
 * plan (lib/campaign.h) gives that kernel: its programs, its harness
 * filters, the boot options. The plan is --plan's (iopath mutate writes
 * WORK/plan.json), or made here from --mutants and the MUTANT operands by
 * the same code; nothing of it is derived again here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "campaign.h"
#include "cli.h"
#include "lava.h"

#define BAD(...) lava_fail(2, __VA_ARGS__)

/* The words of a kernel's test command: the guest's runner, its filters, its programs. */
static char *run_command(const struct iop_plan *p, const struct iop_plan_mutant *m)
{
	struct iop_strs env = { 0 }, tests = { 0 }, w = { 0 };
	char *run = NULL;
	int ret;

	ret = (m ? iop_plan_env(m, &env) : 0) ?: iop_plan_tests(p, m, &tests) ?:
	      iop_strs_add(&w, "/iopath/lava/run");
	for (size_t i = 0; i < env.n && !ret; i++)
		ret = iop_strs_add(&w, "--env") ?: iop_strs_add(&w, env.s[i]);
	ret = ret ?: iop_strs_add(&w, "--");
	for (size_t i = 0; i < tests.n && !ret; i++)
		ret = iop_strs_add(&w, tests.s[i]);
	if (!ret)
		run = lava_command(w.s, w.n);
	iop_strs_free(&env);
	iop_strs_free(&tests);
	iop_strs_free(&w);
	return run;
}

/* Whether the operands (none: every kernel) ask for @name. */
static bool wanted(const struct lava_opts *o, const char *name)
{
	for (int i = 0; i < o->noperands; i++)
		if (!strcmp(o->operands[i], name))
			return true;
	return !o->noperands;
}

static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* The plan: --plan's, or made from --mutants and the operands that are not "pristine". */
static int get_plan(struct lava_opts *o, struct iop_plan *p)
{
	char mdir[PATH_MAX], why[PATH_MAX + 512], **names;
	size_t n = 0;
	int ret;

	if (*o->plan && *o->mutants)
		return BAD("--plan and --mutants: the plan names its mutants");
	if (*o->plan) {
		ret = iop_plan_load(p, o->plan, why, sizeof(why));
		for (int i = 0; !ret && i < o->noperands; i++)
			if (strcmp(o->operands[i], "pristine") && !iop_plan_find(p, o->operands[i])) {
				iop_plan_free(p);
				return BAD("no mutant %s in %s", o->operands[i], o->plan);
			}
		return ret ? BAD("%s", why) : 0;
	}
	snprintf(mdir, sizeof(mdir), "%s", *o->mutants ? o->mutants : "");
	if (!*mdir)
		snprintf(mdir, sizeof(mdir), "%s/configs/mutants", iop_src_dir());
	names = calloc((size_t)o->noperands + 1, sizeof(*names));
	if (!names)
		return lava_fail(1, "out of memory");
	for (int i = 0; i < o->noperands; i++)
		if (strcmp(o->operands[i], "pristine"))
			names[n++] = o->operands[i];
	ret = iop_plan_make(p, mdir, names, n, false, why, sizeof(why));
	free(names);
	return ret ? lava_fail(ret == -ENOMEM ? 1 : 2, "%s", why) : 0;
}

/*
 * The job of @kernel (the plan's mutant @m, or the pristine kernel), the
 * first one staging the initramfs the jobs share.
 */
static int write_job(struct lava_opts *o, const struct iop_plan *p,
		     const struct iop_plan_mutant *m, const char *kernel, const char *append,
		     size_t *done)
{
	const char *name = m ? m->name : "pristine";
	struct lava_strv none = { 0 };
	struct lava_jobv j;
	char path[PATH_MAX], *run;
	int rc;

	if (!(*done)++) {
		rc = lava_make_out(o);
		snprintf(path, sizeof(path), "%s/initramfs-mutate", o->out);
		if (!rc)
			rc = lava_stage_kernel(o, kernel, path, NULL, 0, &none);
		if (rc)
			return rc;
	}
	run = run_command(p, m);
	if (!run)
		return lava_fail(1, "out of memory");
	j = (struct lava_jobv){ .name = name, .kind = "mutate", .desc = name, .args_desc = run,
				.run = run, .append = append };
	rc = lava_write_job(o, &j, kernel, name, "initramfs-mutate", NULL, 0, NULL);
	free(run);
	return rc;
}

/*
 * One job per mutant kernel of iopath mutate's work directory (and the
 * pristine kernel). The kernels have what they need built in
 * (configs/kernel/iopath.config), so they share one initramfs
 * (OUT/initramfs-mutate), and each job says its programs and filters in
 * its test shell command.
 */
int lava_cmd_mutate(struct lava_opts *o)
{
	char kdir[PATH_MAX], pristine[PATH_MAX], path[PATH_MAX], append[4200];
	struct iop_plan p;
	size_t done = 0;
	int rc = lava_check_job_args(o);

	if (rc)
		return rc;
	snprintf(kdir, sizeof(kdir), "%s", *o->kernels_dir ? o->kernels_dir : "");
	if (!*kdir)
		snprintf(kdir, sizeof(kdir), "%s/kernels", o->work);
	snprintf(pristine, sizeof(pristine), "%s", o->pristine);
	if (!*pristine)
		snprintf(pristine, sizeof(pristine), "%s/obj/arch/x86/boot/bzImage", o->work);
	rc = get_plan(o, &p);
	if (rc)
		return rc;
	/* The plan's boot options, then --append's. */
	snprintf(append, sizeof(append), "%s%s%s", p.append, *p.append && *o->append ? " " : "",
		 o->append);
	if (wanted(o, "pristine") && is_file(pristine))
		rc = write_job(o, &p, NULL, pristine, append, &done);
	for (size_t i = 0; i < p.nmutants && !rc; i++) {
		const struct iop_plan_mutant *m = &p.mutants[i];

		if (snprintf(path, sizeof(path), "%s/%s", kdir, m->name) < (int)sizeof(path) &&
		    wanted(o, m->name) && is_file(path))
			rc = write_job(o, &p, m, path, append, &done);
	}
	if (!rc && !done)
		rc = lava_fail(1, "no kernels: neither %s nor any mutant in %s (run iopath mutate first)",
			       pristine, kdir);
	iop_plan_free(&p);
	return rc;
}
