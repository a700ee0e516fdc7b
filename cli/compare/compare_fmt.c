// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The output formats of iopath compare: the kernel test robot's table
 * (text), the significant changes as a block for a commit message (commit,
 * with the command line that reproduces each), and everything as JSON.
 * Records come from other machines: every string of theirs is printed
 * through esc() (lib/quote.c), and the reproduce line is made of words
 * quoted by iop_shell_quote(), so that pasting it runs that benchmark and
 * nothing else.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "iopath.h"
#include "compare.h"

static const char *const verdict_name[] = {
	[V_NONE] = "-",
	[V_BETTER] = "improvement",
	[V_WORSE] = "regression",
	[V_UNTESTED] = "n/a",
};

static const char *const verdict_json[] = {
	[V_NONE] = "no significant change",
	[V_BETTER] = "improvement",
	[V_WORSE] = "regression",
	[V_UNTESTED] = "not tested",
};

static const char *fmt_pct(char *buf, size_t len, double frac)
{
	double p = 100 * frac;

	if (isnan(p))
		snprintf(buf, len, "n/a");
	else if (isinf(p))
		snprintf(buf, len, "%sinf", p > 0 ? "+" : "-");
	else if (fabs(p) >= 100000)
		snprintf(buf, len, "%+.2g%%", p);
	else
		snprintf(buf, len, "%+.1f%%", p);
	return buf;
}

/* " ± 5%", blank up to 2% as the robot does. */
static const char *fmt_rsd(char *buf, size_t len, const struct side_stats *s)
{
	if (isfinite(s->rsd) && s->n > 1 && 100 * s->rsd > 2)
		snprintf(buf, len, " ±%3.0f%%", 100 * s->rsd);
	else
		snprintf(buf, len, "      ");
	return buf;
}

static const char *fmt_ci(char *buf, size_t len, const struct metric_cmp *m)
{
	char lo[24], hi[24];

	if (isnan(m->ci_lo) || isnan(m->ci_hi))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "[%s, %s]", fmt_pct(lo, sizeof(lo), m->ci_lo),
			 fmt_pct(hi, sizeof(hi), m->ci_hi));
	return buf;
}

/*
 * @s with its control characters escaped (iop_esc_dup()), for a "%s":
 * valid until ESC_SLOTS more calls, enough for one fprintf().
 */
#define ESC_SLOTS 8
static const char *esc(const char *s)
{
	static char *slot[ESC_SLOTS];
	static unsigned int next;
	char **p = &slot[next++ % ESC_SLOTS];

	free(*p);
	*p = s ? iop_esc_dup(s) : NULL;
	return *p ? *p : "?";
}

static const char *kernel_of(struct iop_rs_file *f)
{
	const char *r = f->n ? f->recs[0]->env.release : NULL;

	return esc(r ? r : "unknown");
}

static void print_notes(FILE *out, const struct notes *nt)
{
	if (!nt->n)
		return;
	fprintf(out, "\nnotes (a '?' after a verdict: untrusted records or another environment):\n");
	for (size_t i = 0; i < nt->n; i++)
		fprintf(out, "  ! %s\n", esc(nt->v[i]));
}

/* " WORD": "PREFIX" and @s as one shell word. */
static void print_word(FILE *out, const char *prefix, const char *s)
{
	char *w = NULL;

	fputc(' ', out);
	if (asprintf(&w, "%s%s", prefix, s ? s : "") < 0) {
		fputs("?", out);
		return;
	}
	iop_shell_quote(out, w);
	free(w);
}

/* The robot's two lines: "bs/fs/bench:" then "  4k/ext4/falloc_write". */
static void print_lkp_params(FILE *out, struct iop_rs_group *g)
{
	const struct iop_rec_param **p = iop_rs_params_sorted(g->params, g->nparams);

	if (!p)
		return;
	for (size_t i = 0; i < g->nparams; i++)
		fprintf(out, "%s/", esc(p[i]->name));
	fprintf(out, "bench:\n  ");
	for (size_t i = 0; i < g->nparams; i++)
		fprintf(out, "%s/", esc(p[i]->text));
	fprintf(out, "%s\n", esc(g->bench));
	free(p);
}

/*
 * "iopath bench --fs F --backing B NAME k=v ..." with every parameter the
 * record carries: the filesystem and backing are options of iopath bench,
 * not parameters, so they come from the record's environment.
 */
static void print_reproduce(FILE *out, struct iop_rs_group *g)
{
	const struct iop_rec_env *env = &g->recs[0][0]->env;
	const struct iop_rec_param *fs_param = iop_rec_param(g->params, g->nparams, "fs");
	const char *fs = !g->fs_from_env ? env->fs_type :
			 fs_param && fs_param->is_str ? fs_param->text : NULL;
	const char *backing = env->backing, *dev = env->dev_name, *mnt = env->fs_mnt;
	const struct iop_rec_param **p = iop_rs_params_sorted(g->params, g->nparams);

	fprintf(out, "iopath bench --fs");
	print_word(out, "", fs ? fs : "none");
	if (backing && !strcmp(backing, "loop")) {
		fprintf(out, " --backing loop");
	} else if (backing && !strcmp(backing, iop_backing_name(IOP_BACKING_DEVICE)) && dev) {
		fprintf(out, " --backing");
		print_word(out, "dev:/dev/", dev);
	} else if (backing && !strcmp(backing, "dir") && mnt) {
		fprintf(out, " --backing");
		print_word(out, "dir:", mnt);
	}
	print_word(out, "", g->bench);
	for (size_t i = 0; p && i < g->nparams; i++) {
		char *prefix = NULL;

		/* "fs" is --fs; an empty value is the parameter's default. */
		if ((g->fs_from_env && !strcmp(p[i]->name, "fs")) || (p[i]->is_str && !*p[i]->text))
			continue;
		if (asprintf(&prefix, "%s=", p[i]->name) >= 0)
			print_word(out, prefix, p[i]->text);
		free(prefix);
	}
	fputc('\n', out);
	free(p);
}

static void print_machine(FILE *out, const struct iop_rec *rec)
{
	const struct iop_rec_env *e = &rec->env;

	fprintf(out, "machine: %s", e->cpu_model ? esc(e->cpu_model) : "unknown CPU");
	if (e->cpus_online)
		fprintf(out, ", CPUs %s online", esc(e->cpus_online));
	else if (e->has_ncpus_online)
		fprintf(out, ", %lld CPUs online", (long long)e->ncpus_online);
	if (e->placement_cpus && *e->placement_cpus)
		fprintf(out, ", pinned to CPU %s", esc(e->placement_cpus));
	fputc('\n', out);
	/* Only where it is not wall time: every older report reads as before. */
	if (!strcmp(e->clock_domain, "instructions"))
		fprintf(out, "clock: instructions (QEMU TCG icount: 1 ns = 1 instruction executed; counts work, not waits, cache misses or device latency)\n");
}

/*
 * "; tested over boots: 2 base, 3 new" where a side has several, and the
 * main metric the runs chose for their verdict.
 */
static void print_boots(FILE *out, const struct group_cmp *gc)
{
	const struct side_stats *s = gc->nm ? gc->m[0].s : NULL;
	const char *main = gc->main;

	if (main)
		fprintf(out, "; verdict metric %s", esc(main));
	if (!s || !(s[0].by_boot || s[1].by_boot || s[0].by_run || s[1].by_run))
		return;
	fprintf(out, "; tested over");
	for (int i = 0; i < 2; i++)
		fprintf(out, "%s %zu %s (%s)", i ? " and" : "", s[i].n,
			s[i].by_boot ? "boots" : s[i].by_run ? "runs" : "repetitions",
			i ? "new" : "base");
	if (gc->m[0].by_seed)
		fprintf(out, ", paired by seed");
	else if (gc->m[0].paired)
		fprintf(out, ", paired by round");
}

/*
 * Each boot's median, per metric and side: a boot that sits apart from
 * the others of its side (a mode of the boot, not noise of the
 * repetitions) is seen here, and with pairs, whether its pair sits
 * there too.
 */
static void print_boot_medians(FILE *out, const struct group_cmp *gc)
{
	bool header = false;

	for (size_t j = 0; j < gc->nm; j++) {
		const struct metric_cmp *m = &gc->m[j];

		if (!m->boot_med[0] || !m->boot_med[1])
			continue;
		if (!header)
			fprintf(out, "\nper boot, the median of its repetitions%s:\n",
				m->by_seed ? " (pairs of boots given one seed, in columns)" : "");
		header = true;
		for (int s = 0; s < 2; s++) {
			fprintf(out, "  %-4s %-20s", s ? "new" : "base", esc(m->name));
			for (size_t i = 0; i < m->nboot[s]; i++) {
				char b[32];

				fprintf(out, " %10s", iop_fmt_num(b, sizeof(b), m->boot_med[s][i]));
			}
			fputc('\n', out);
		}
	}
}

/* "improvement", or "no significant change (could have seen >= 2.1%)" instead of a bare "-". */
static void verdict_text(char *buf, size_t len, const struct metric_cmp *m, bool caveat)
{
	if (m->v == V_NONE && isfinite(m->mde))
		snprintf(buf, len, "no significant change%s (could have seen >= %.1f%%)",
			 caveat ? "?" : "", 100 * m->mde);
	else
		snprintf(buf, len, "%s%s", verdict_name[m->v], caveat ? "?" : "");
}

void compare_print_text(FILE *out, struct comparison *c, const struct opts *o)
{
	int conf = (int)lround(100 * (1 - o->alpha));
	char hdr_b[17], hdr_n[28], ci_hdr[32];

	snprintf(ci_hdr, sizeof(ci_hdr), "%d%% CI of %%change", conf);
	fprintf(out, "base: %s (kernel %s, %zu records)\n", esc(c->base_path), kernel_of(c->base),
		c->base->n);
	fprintf(out, "new:  %s (kernel %s, %zu records)\n", esc(c->new_path), kernel_of(c->new),
		c->new->n);
	print_machine(out, c->base->recs[0]);
	fprintf(out, "test: Yuen's test of 20%%-trimmed means per metric at alpha %g over the\n"
		     "      repetitions (Welch's t-test below 5); rates by harmonic mean (tested\n"
		     "      as 1/x); %d%% CI of %%change by Fieller's method\n",
		o->alpha, conf);
	fprintf(out, "      over boots (else runs) where a side has two or more; runs interleaved\n"
		     "      round by round (run.pairing) on the differences of cycles of rounds;\n"
		     "      \"could have seen\": the change the test finds with %.0f%% power\n",
		100 * IOP_MDE_POWER);
	print_notes(out, &c->notes);

	snprintf(hdr_b, sizeof(hdr_b), "%s", kernel_of(c->base));
	snprintf(hdr_n, sizeof(hdr_n), "%s", kernel_of(c->new));
	for (size_t i = 0; i < c->ngc; i++) {
		struct group_cmp *gc = &c->gc[i];
		struct iop_rs_group *g = gc->g;

		fprintf(out, "\n=========================================================================================\n");
		print_lkp_params(out, g);
		fprintf(out, "\nruns: %zu base, %zu new%s%s%s", g->n[0], g->n[1],
			gc->untrusted ? "; untrusted records, see notes" : "",
			gc->env_differs ? "; environment differs, see notes" : "",
			gc->layout_note ? "; file layout differs, see notes" : "");
		print_boots(out, gc);
		fprintf(out, "\n\n");
		fprintf(out, "%-16s %s\n", hdr_b, hdr_n);
		fprintf(out, "---------------- --------------------------- \n");
		fprintf(out,
			"         %%stddev     %%change         %%stddev  %20s  verdict\n", ci_hdr);
		fprintf(out, "             \\          |                \\  \n");
		for (size_t j = 0; j < gc->nm; j++) {
			struct metric_cmp *m = &gc->m[j];
			char b[32], n[32], rb[16], rn[16], ch[24], ci[48], vd[80];

			verdict_text(vd, sizeof(vd), m, gc->untrusted || gc->env_differs);
			fprintf(out, "%10s%s%11s%11s%s  %20s  %-12s %s.%s\n",
				iop_fmt_num(b, sizeof(b), m->s[0].mean),
				fmt_rsd(rb, sizeof(rb), &m->s[0]),
				fmt_pct(ch, sizeof(ch), m->change),
				iop_fmt_num(n, sizeof(n), m->s[1].mean),
				fmt_rsd(rn, sizeof(rn), &m->s[1]),
				fmt_ci(ci, sizeof(ci), m), vd, esc(g->bench), esc(m->name));
		}
		print_boot_medians(out, gc);
	}
}

/* What the unchanged metrics could have shown, one line per group. */
static void print_commit_mde(FILE *out, struct comparison *c)
{
	fprintf(out, "Could have seen (%.0f%% power):\n", 100 * IOP_MDE_POWER);
	for (size_t i = 0; i < c->ngc; i++) {
		struct group_cmp *gc = &c->gc[i];
		char *label = NULL;
		int k = 0;

		for (size_t j = 0; j < gc->nm; j++) {
			struct metric_cmp *m = &gc->m[j];

			if (m->v != V_NONE || !isfinite(m->mde))
				continue;
			if (!k++) {
				label = iop_rs_group_label(c->groups, c->ngroups, gc->g);
				fprintf(out, "  %s:", esc(label ? label : gc->g->bench));
			}
			fprintf(out, "%s %s >= %.1f%%", k > 1 ? "," : "", esc(m->name),
				100 * m->mde);
		}
		if (k)
			fputc('\n', out);
		free(label);
	}
}

/* A block to paste into a commit message: the significant changes only. */
void compare_print_commit(FILE *out, struct comparison *c, const struct opts *o)
{
	int conf = (int)lround(100 * (1 - o->alpha));
	size_t total = 0, changed = 0;

	for (size_t i = 0; i < c->ngc; i++) {
		total += c->gc[i].nm;
		for (size_t j = 0; j < c->gc[i].nm; j++)
			changed += c->gc[i].m[j].v == V_BETTER || c->gc[i].m[j].v == V_WORSE;
	}
	fprintf(out, "iopath compare, kernel %s (base) vs %s (new)\n", kernel_of(c->base),
		kernel_of(c->new));
	print_machine(out, c->base->recs[0]);
	fprintf(out, "Yuen's trimmed-mean test over repetitions, alpha %g; %d%% CI of the change\n",
		o->alpha, conf);

	for (size_t i = 0; i < c->ngc; i++) {
		struct group_cmp *gc = &c->gc[i];
		bool header = false;

		for (size_t j = 0; j < gc->nm; j++) {
			struct metric_cmp *m = &gc->m[j];
			char b[32], n[32], ch[24], ci[48];

			if (m->v != V_BETTER && m->v != V_WORSE)
				continue;
			if (!header) {
				char *label = iop_rs_group_label(c->groups, c->ngroups, gc->g);

				fprintf(out, "\n%s (%zu vs %zu runs):\n",
					esc(label ? label : gc->g->bench),
					gc->g->n[0], gc->g->n[1]);
				free(label);
				fprintf(out, "%12s %12s %9s  %-20s %s\n", "base", "new", "change",
					"CI", "metric");
				header = true;
			}
			fprintf(out, "%12s %12s %9s  %-20s %s%s (%s)\n",
				iop_fmt_num(b, sizeof(b), m->s[0].mean),
				iop_fmt_num(n, sizeof(n), m->s[1].mean),
				fmt_pct(ch, sizeof(ch), m->change), fmt_ci(ci, sizeof(ci), m),
				esc(m->name), gc->untrusted || gc->env_differs ? "?" : "",
				m->v == V_BETTER ? "better" : "worse");
		}
		if (header) {
			fprintf(out, "reproduce: ");
			print_reproduce(out, gc->g);
		}
	}
	if (changed < total) {
		fprintf(out, "\nNo significant change in %s%zu metric%s.\n",
			changed ? "the other " : "",
			total - changed, total - changed == 1 ? "" : "s");
		print_commit_mde(out, c);
	}
	if (c->notes.n) {
		fprintf(out, "\nCaveats ('?': untrusted records or another environment):\n");
		for (size_t i = 0; i < c->notes.n; i++)
			fprintf(out, "- %s\n", esc(c->notes.v[i]));
	}
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *side_json(const struct side_stats *s)
{
	return json_pack("{s:I, s:o, s:o, s:s, s:I, s:I}", "n", (json_int_t)s->n,
			 "mean", jnum(s->mean), "rsd", jnum(s->rsd),
			 "unit", s->by_boot ? "boots" : s->by_run ? "runs" : "repetitions",
			 "boots", (json_int_t)s->boots, "runs", (json_int_t)s->runs);
}

static json_t *medians_json(const struct metric_cmp *m, int s)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < m->nboot[s]; i++) {
		if (json_array_append_new(a, jnum(m->boot_med[s][i]))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* One metric's object; NULL when it cannot be made. */
static json_t *metric_json(const struct metric_cmp *m)
{
	json_t *o = json_pack("{s:s, s:s?, s:s, s:s, s:o, s:o, s:o, s:[o, o], s:o, s:o, s:o, s:s, s:o, s:b, s:s}",
			      "name", m->name, "unit", m->unit,
			      "better", m->higher ? "higher" : "lower",
			      "mean", m->rate ? "harmonic" : "arithmetic",
			      "base", side_json(&m->s[0]), "new", side_json(&m->s[1]),
			      "change", jnum(m->change), "ci", jnum(m->ci_lo), jnum(m->ci_hi),
			      "t", jnum(m->t), "df", jnum(m->df), "p", jnum(m->p),
			      "verdict", verdict_json[m->v], "mde", jnum(m->mde),
			      "paired", m->paired,
			      "pairing", m->by_seed ? "seed" : m->paired ? "round" : "none");

	if (o && m->boot_med[0] && m->boot_med[1] &&
	    json_object_set_new(o, "boot_medians",
				json_pack("{s:o, s:o}", "base", medians_json(m, 0),
					  "new", medians_json(m, 1))))
		goto fail;
	if (o && m->why && json_object_set_new(o, "why_not_tested", json_string(m->why)))
		goto fail;
	return o;
fail:
	json_decref(o);
	return NULL;
}

/*
 * The group's parameters, "fs" with them, as its first record gave them:
 * compare.json's "params", made here at the output from the typed view.
 */
static json_t *params_json(const struct iop_rs_group *g)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < g->nparams; i++) {
		if (json_object_set(o, g->params[i].name, g->params[i].value)) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/*
 * The JSON of @c; NULL when a part of it cannot be made (a path that is
 * not UTF-8, no memory): never a document with a part left out.
 */
json_t *comparison_json(struct comparison *c)
{
	json_t *groups = json_array(), *notes = json_array();
	bool bad = !groups || !notes;

	for (size_t i = 0; !bad && i < c->notes.n; i++)
		bad = json_array_append_new(notes, json_string(c->notes.v[i]));
	for (size_t i = 0; !bad && i < c->ngc; i++) {
		struct group_cmp *gc = &c->gc[i];
		json_t *metrics = json_array();

		bad = !metrics;
		for (size_t j = 0; !bad && j < gc->nm; j++)
			bad = json_array_append_new(metrics, metric_json(&gc->m[j]));
		if (bad) {
			json_decref(metrics);
			break;
		}
		bad = json_array_append_new(groups,
					    json_pack("{s:s, s:o, s:{s:I, s:I}, s:b, s:b, s:I, s:O, s:o, s:s?}",
						      "bench", gc->g->bench,
						      "params", params_json(gc->g),
						      "runs", "base", (json_int_t)gc->g->n[0],
						      "new", (json_int_t)gc->g->n[1],
						      "untrusted", gc->untrusted,
						      "env_differs", gc->env_differs,
						      "layout_differs_pairs", (json_int_t)gc->layout_pairs,
						      "layout_differs", gc->layouts, "metrics", metrics,
						      "main_metric", gc->main));
	}
	if (bad) {
		json_decref(groups);
		json_decref(notes);
		return NULL;
	}
	return json_pack("{s:{s:s, s:s, s:I}, s:{s:s, s:s, s:I}, s:o, s:o}",
			 "base", "file", c->base_path, "kernel", kernel_of(c->base), "records",
			 (json_int_t)c->base->n,
			 "new", "file", c->new_path, "kernel", kernel_of(c->new), "records",
			 (json_int_t)c->new->n, "notes", notes, "groups", groups);
}

/*
 * @frac as a percentage to 0.001 (instruction counts resolve far below
 * 0.01%), rounded half away from zero, "+" before a positive one with
 * @sign; "-inf"/"+inf" for the bound of an unbounded interval, "n/a" when
 * not a number or beyond a double's integers.
 */
static const char *pct3(char *buf, size_t len, double frac, bool sign)
{
	long long h;

	if (isinf(frac)) {
		snprintf(buf, len, "%sinf", frac < 0 ? "-" : "+");
		return buf;
	}
	if (isnan(frac) || fabs(frac) > 1e9) {
		snprintf(buf, len, "n/a");
		return buf;
	}
	h = llround(frac * 100000);
	snprintf(buf, len, "%s%lld.%03lld", h < 0 ? "-" : sign ? "+" : "", llabs(h) / 1000,
		 llabs(h) % 1000);
	return buf;
}

/* "instructions, QEMU TCG icount", "wall time, KVM": what the counts are of. */
static const char *clock_words(const struct iop_rec *rec)
{
	const char *accel = rec->env.clock_accel;

	if (!strcmp(rec->env.clock_domain, "instructions"))
		return "instructions, QEMU TCG icount";
	if (accel && !strcmp(accel, "kvm"))
		return "wall time, KVM";
	if (accel && !strcmp(accel, "tcg"))
		return "wall time, QEMU TCG";
	return "wall time";
}

/* The group's "fs" parameter where it is a string, or NULL. */
static const char *group_fs(const struct iop_rs_group *g)
{
	const struct iop_rec_param *fs = iop_rec_param(g->params, g->nparams, "fs");

	return fs && fs->is_str ? fs->text : NULL;
}

/* What a side's observations are: boots, runs or repetitions. */
static const char *unit_word(const struct side_stats *s)
{
	return s->by_boot ? "boots" : s->by_run ? "runs" : "repetitions";
}

/* "1 pair: ": how many pairs read their file in different layouts. */
static const char *layout_count(char *buf, size_t len, const struct group_cmp *gc)
{
	snprintf(buf, len, "%zu pair%s: ", gc->layout_pairs, gc->layout_pairs == 1 ? "" : "s");
	return buf;
}

void compare_print_verdict(FILE *out, struct comparison *c, const struct opts *o)
{
	(void)o;
	for (size_t i = 0; i < c->ngc; i++) {
		const struct group_cmp *gc = &c->gc[i];
		const struct metric_cmp *m = group_verdict_metric(gc);
		const char *fs = group_fs(gc->g);
		char ch[32], lo[32], hi[32], mde[32], boots[64], lc[64];

		if (!m)
			continue;
		if (m->s[0].n == m->s[1].n)
			snprintf(boots, sizeof(boots), "%zu %s a side%s", m->s[0].n, unit_word(&m->s[0]),
				 m->by_seed ? ", paired" : "");
		else
			snprintf(boots, sizeof(boots), "%zu %s base, %zu new", m->s[0].n,
				 unit_word(&m->s[0]), m->s[1].n);
		fprintf(out, "iopath ab: %s%s%s %s: %s%% [%s%%, %s%%], %s (could have seen >= %s%%; %s, %s%s%s%s)\n",
			esc(gc->g->bench), fs && strcmp(fs, "none") ? " on " : "",
			fs && strcmp(fs, "none") ? esc(fs) : "", esc(m->name),
			pct3(ch, sizeof(ch), m->change, true), pct3(lo, sizeof(lo), m->ci_lo, true),
			pct3(hi, sizeof(hi), m->ci_hi, true), verdict_json[m->v],
			pct3(mde, sizeof(mde), m->mde, false), clock_words(c->base->recs[0]), boots,
			gc->layout_first ? "; file layout differs in " : "",
			gc->layout_first ? layout_count(lc, sizeof(lc), gc) : "",
			gc->layout_first ? esc(gc->layout_first) : "");
	}
}

/*
 * A machine line per verdict metric, for iopath ab --calibrate: the base's
 * cost per operation (1e9 / the rate for a rate, so instructions per
 * operation under icount), the change and its interval in that unit, the
 * change and the MDE as fractions, and the verdict (none: no significant
 * change, or not tested).
 */
void compare_print_planted(FILE *out, struct comparison *c)
{
	for (size_t i = 0; i < c->ngc; i++) {
		const struct group_cmp *gc = &c->gc[i];
		const struct metric_cmp *m = group_verdict_metric(gc);
		const char *fs = group_fs(gc->g);
		double per_op, d[3], ch[3];

		if (!m)
			continue;
		per_op = m->rate ? 1e9 / m->s[0].mean : m->s[0].mean;
		ch[0] = m->change;
		ch[1] = m->ci_lo;
		ch[2] = m->ci_hi;
		for (int k = 0; k < 3; k++)
			d[k] = m->rate ? per_op * (1 / (1 + ch[k]) - 1) : per_op * ch[k];
		/* a rate's interval turns round: its low end is the most work */
		fprintf(out, "# IOPATH-PLANTED: bench=%s fs=%s metric=%s per_op=%.4f delta=%.4f lo=%.4f hi=%.4f change=%.10g mde=%.10g verdict=%s\n",
			esc(gc->g->bench), fs ? esc(fs) : "none", esc(m->name), per_op, d[0],
			m->rate ? d[2] : d[1], m->rate ? d[1] : d[2], m->change, m->mde,
			m->v == V_BETTER ? "improvement" : m->v == V_WORSE ? "regression" :
			"none");
	}
}

double compare_ci_halfwidth(const struct comparison *c)
{
	double widest = NAN;

	for (size_t i = 0; i < c->ngc; i++) {
		const struct metric_cmp *m = group_verdict_metric(&c->gc[i]);
		double hw;

		if (!m)
			continue;
		if (isnan(widest))
			widest = 0;
		hw = 100 * (m->ci_hi - m->ci_lo) / 2;
		if (isnan(hw))
			return NAN;
		widest = fmax(widest, hw);	/* INFINITY: unbounded */
	}
	return widest;
}
