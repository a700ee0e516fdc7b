// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath lava mutate: one job per mutant kernel of iopath mutate's work
 * directory (and the pristine kernel), each running the programs and
 * harness filters its header names (lib/mutant.c reads it), as
 * scripts/mutate.sh runs them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "lava.h"
#include "mutant.h"

#define BAD(...) lava_fail(2, __VA_ARGS__)

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * "-t iopath:P" for each word of @tests into @v; none for "all" (a
 * generated mutant's "# Tests: all": the whole collection).
 */
static int tests_args(const char *tests, struct lava_strv *v)
{
	char *copy = strdup(tests && strcmp(tests, "all") ? tests : ""), *w, *save, *a;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	for (w = strtok_r(copy, " ", &save); w && !rc; w = strtok_r(NULL, " ", &save)) {
		rc = lava_strv_add(v, strdup("-t"), 0);
		if (!rc)
			rc = lava_strv_add(v, asprintf(&a, "iopath:%s", w) < 0 ? NULL : a, 0);
	}
	free(copy);
	return rc;
}

struct mjob {
	char *name, *kernel;
	struct lava_strv ksft, env;
};

/*
 * One job per mutant kernel of iopath mutate's work directory (and the
 * pristine kernel), each running the programs its header names, as
 * scripts/mutate.sh runs them. The kernels have what they need built in
 * (configs/kernel/iopath.config), so they share one initramfs
 * (OUT/initramfs-mutate), and each job says its programs and filters in
 * its test shell command.
 */
int lava_cmd_mutate(struct lava_opts *o)
{
	char kdir[PATH_MAX], pristine[PATH_MAX], mdir[PATH_MAX], path[PATH_MAX], why[512];
	char append[1100], **mutants = NULL, **unions = NULL, *w, *save, *copy, *run;
	size_t nm = 0, nu = 0, i, k, nj = 0;
	bool every = false;	/* a mutant runs the whole collection: so does the pristine job */
	struct lava_strv none = { 0 };
	struct mjob *jobs = NULL;
	struct iop_mutant m;
	struct dirent *de;
	struct stat st;
	struct lava_jobv j;
	DIR *dir;
	int rc = lava_check_job_args(o);

	if (rc)
		return rc;
	snprintf(kdir, sizeof(kdir), "%s", *o->kernels_dir ? o->kernels_dir : "");
	if (!*kdir)
		snprintf(kdir, sizeof(kdir), "%s/kernels", o->work);
	snprintf(pristine, sizeof(pristine), "%s", o->pristine);
	if (!*pristine)
		snprintf(pristine, sizeof(pristine), "%s/obj/arch/x86/boot/bzImage", o->work);
	snprintf(mdir, sizeof(mdir), "%s", *o->mutants ? o->mutants : "");
	if (!*mdir)
		snprintf(mdir, sizeof(mdir), "%s/configs/mutants", iop_src_dir());
	dir = opendir(mdir);
	if (!dir)
		return BAD("--mutants %s: %s", mdir, strerror(errno));
	while ((de = readdir(dir))) {
		size_t n = strlen(de->d_name);
		char **nmu;

		if (n <= 6 || strcmp(de->d_name + n - 6, ".patch"))
			continue;
		nmu = realloc(mutants, (nm + 1) * sizeof(*mutants));
		if (nmu)
			nmu[nm] = strndup(de->d_name, n - 6);
		if (!nmu || !nmu[nm]) {
			closedir(dir);
			return lava_fail(1, "out of memory");
		}
		mutants = nmu;
		nm++;
	}
	closedir(dir);
	qsort(mutants, nm, sizeof(*mutants), cmp_str);
	for (i = 0; i < (size_t)o->noperands && !rc; i++) {
		for (k = 0; k < nm && strcmp(mutants[k], o->operands[i]); k++)
			;
		if (k == nm && strcmp(o->operands[i], "pristine"))
			rc = BAD("no mutant %s in %s", o->operands[i], mdir);
	}
	jobs = calloc(nm + 1, sizeof(*jobs));
	unions = calloc(1, sizeof(*unions));
	if (!rc && (!jobs || !unions))
		rc = lava_fail(1, "out of memory");
	/* Each mutant's header, read once: the pristine job runs the union. */
	for (i = 0; i < nm && !rc; i++) {
		bool want = !o->noperands;

		for (k = 0; k < (size_t)o->noperands; k++)
			want |= !strcmp(o->operands[k], mutants[i]);
		if (snprintf(path, sizeof(path), "%s/%s.patch", mdir, mutants[i]) >=
		    (int)sizeof(path)) {
			rc = BAD("%s/%s.patch: path too long", mdir, mutants[i]);
			break;
		}
		rc = iop_mutant_read(path, &m, why, sizeof(why));
		if (rc) {
			iop_mutant_free(&m);
			rc = BAD("%s", why);
			break;
		}
		every |= iop_mutant_all_tests(&m);
		copy = strdup(iop_mutant_get(&m, "Tests") ? iop_mutant_get(&m, "Tests") : "");
		w = copy ? strtok_r(copy, " ", &save) : NULL;
		for (; w && unions; w = strtok_r(NULL, " ", &save)) {
			for (k = 0; k < nu && strcmp(unions[k], w); k++)
				;
			if (k < nu)
				continue;
			unions = realloc(unions, (nu + 1) * sizeof(*unions));
			if (unions)
				unions[nu++] = strdup(w);
		}
		free(copy);
		if (snprintf(path, sizeof(path), "%s/%s", kdir, mutants[i]) >= (int)sizeof(path))
			path[0] = '\0';
		if (want && !stat(path, &st) && S_ISREG(st.st_mode)) {
			struct mjob *mj = &jobs[++nj];

			mj->name = strdup(mutants[i]);
			mj->kernel = strdup(path);
			rc = tests_args(iop_mutant_get(&m, "Tests"), &mj->ksft);
			for (k = 0; k < m.nfields && !rc; k++) {
				const char *v = m.fields[k].value, *eq = strchr(v, '=');
				char *e, *up;

				if (strcmp(m.fields[k].key, "Filter") || !eq)
					continue;
				if (asprintf(&e, "KSELFTEST_%.*s_ARGS=%s", (int)(eq - v), v,
					     eq + 1) < 0)
					e = NULL;
				for (up = e ? e + 10 : NULL; up && up < e + 10 + (eq - v); up++)
					*up = (char)toupper((unsigned char)*up);
				rc = lava_strv_add(&mj->env, e, 0);
			}
		}
		iop_mutant_free(&m);
	}
	if (!rc && !unions)
		rc = lava_fail(1, "out of memory");
	/* jobs[0]: the pristine kernel, if wanted and there. */
	if (!rc && !stat(pristine, &st) && S_ISREG(st.st_mode)) {
		bool want = !o->noperands;

		for (k = 0; k < (size_t)o->noperands; k++)
			want |= !strcmp(o->operands[k], "pristine");
		if (want) {
			qsort(unions, nu, sizeof(*unions), cmp_str);
			jobs[0].name = strdup("pristine");
			jobs[0].kernel = strdup(pristine);
			for (k = 0; k < nu && !rc && !every; k++)
				rc = tests_args(unions[k], &jobs[0].ksft);
		}
	}
	/* mutate.sh's no_timer_check: the timer check fails at random under TCG. */
	snprintf(append, sizeof(append), "no_timer_check%s%s", *o->append ? " " : "", o->append);
	for (i = 0, k = 0; i <= nj && !rc; i++) {
		struct mjob *mj = &jobs[i];
		char *words[2 + 2 * 64 + 1 + 256];
		size_t nw = 0, e;

		if (!mj->name)
			continue;
		if (!k++) {
			rc = lava_make_out(o);
			snprintf(path, sizeof(path), "%s/initramfs-mutate", o->out);
			if (!rc)
				rc = lava_stage_kernel(o, mj->kernel, path, NULL, 0, &none);
			if (rc)
				break;
		}
		words[nw++] = "/iopath/lava/run";
		for (e = 0; e < mj->env.n && e < 64; e++) {
			words[nw++] = "--env";
			words[nw++] = mj->env.s[e];
		}
		words[nw++] = "--";
		for (e = 0; e < mj->ksft.n && e < 256; e++)
			words[nw++] = mj->ksft.s[e];
		run = lava_command(words, nw);
		j = (struct lava_jobv){ .name = mj->name, .kind = "mutate", .desc = mj->name,
				  .args_desc = run, .run = run, .append = append };
		rc = run ? lava_write_job(o, &j, mj->kernel, mj->name, "initramfs-mutate", NULL, 0,
					  NULL) : lava_fail(1, "out of memory");
		free(run);
	}
	if (!rc && !k)
		rc = lava_fail(1, "no kernels: neither %s nor any mutant in %s (run iopath mutate first)",
			       pristine, kdir);
	for (i = 0; jobs && i <= nm; i++) {
		free(jobs[i].name);
		free(jobs[i].kernel);
		lava_strv_free(&jobs[i].ksft);
		lava_strv_free(&jobs[i].env);
	}
	for (i = 0; i < nu; i++)
		free(unions[i]);
	for (i = 0; i < nm; i++)
		free(mutants[i]);
	free(unions);
	free(mutants);
	free(jobs);
	return rc;
}
