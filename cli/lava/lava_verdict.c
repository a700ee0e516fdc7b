// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath lava verdict LOG: the verdict on a job's log, as iopath vm gives
 * it. The log is read by lava_log.c; the TAP the guest wrote is judged by
 * the one TAP reader, the engine of lib/tap.c, through lib/verdict.c (the
 * same counts, known failures and required coverage); LAVA's test cases
 * must say what the TAP says, one for one; the console is checked for
 * kernel bug reports (lib/kmsg.c's patterns). A benchmark job gives its
 * records instead, each checked by lib/record.c and taken into its typed
 * view (lib/record_view.c). A log LAVA's infrastructure cut short is
 * reported as that, with LAVA's error_type and error_msg, and exit 3: it
 * says nothing about the kernel.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "kmsg.h"
#include "lava.h"
#include "quote.h"
#include "record.h"
#include "record_view.h"
#include "tap.h"
#include "verdict.h"

/* LAVA's failure that says the job ran out of time, or NULL. */
static const char *timed_out(const struct lava_job *job)
{
	size_t i;

	for (i = 0; i < job->failures.n; i++)
		if (strstr(job->failures.s[i], "timed out") ||
		    strcasestr(job->failures.s[i], "timeout"))
			return job->failures.s[i];
	return NULL;
}

/* The reasons a job cannot be judged at all, in order; NULL if it can. */
static char *judge(const struct lava_job *job)
{
	const char *f = job->failures.n ? job->failures.s[0] : NULL, *t;
	char *r = NULL, cause[512];

	if (!job->entries)
		return strdup("malformed LAVA log: no entries");
	if (!job->have_job)
		return strdup("malformed LAVA log: no job result (the log is cut short)");
	t = timed_out(job);
	if (t)
		return asprintf(&r, "the LAVA job timed out: %s", t) < 0 ? NULL : r;
	/* A deploy or boot that failed: LAVA's own words for it. */
	cause[0] = '\0';
	if (*job->job_error_msg)
		snprintf(cause, sizeof(cause), ": LAVA's job error%s%s%s: %s",
			 *job->job_error_type ? " (" : "", job->job_error_type,
			 *job->job_error_type ? ")" : "", job->job_error_msg);
	else if (f)
		snprintf(cause, sizeof(cause), ": %s", f);
	if (!job->release)
		return asprintf(&r, "the guest never started the run (no kernel line)%s", cause) < 0 ?
		       NULL : r;
	if (!job->end)
		return asprintf(&r, "the guest's run did not finish (no end line)%s", cause) < 0 ?
		       NULL : r;
	return NULL;
}

/*
 * LAVA's infrastructure failed (its job result's error_type says so, or
 * the connection to the device closed): the reason, or NULL.
 */
static char *infra(const struct lava_job *job)
{
	static const char *const types[] = { "Infrastructure", "Job", "Bug" };
	char *r = NULL;
	size_t i;

	if (!job->have_job || !strcmp(job->job_result, "pass"))
		return NULL;
	for (i = 0; i < 3; i++)
		if (!strcmp(job->job_error_type, types[i]))
			return asprintf(&r, "LAVA's infrastructure failed, the kernel is not judged: error_type %s: %s",
					job->job_error_type, *job->job_error_msg ? job->job_error_msg :
					"(no error_msg)") < 0 ? NULL : r;
	for (i = 0; i < job->failures.n; i++)
		if (strstr(job->failures.s[i], "Connection closed"))
			return asprintf(&r, "LAVA's infrastructure failed, the kernel is not judged: error_type %s: %s",
					*job->job_error_type ? job->job_error_type : "(none)",
					job->failures.s[i]) < 0 ? NULL : r;
	return NULL;
}

static int bench_verdict(struct lava_opts *o, const struct lava_job *job)
{
	json_t **recs = calloc(job->records.n + 1, sizeof(*recs));
	char *reason = NULL, what[200];
	size_t i, n = 0, metrics = 0;
	struct iop_rec view;
	json_error_t err;
	int rc, ret;

	if (!recs)
		return lava_fail(1, "out of memory");
	for (i = 0; i < job->records.n && !reason; i++) {
		json_t *rec = json_loads(job->records.s[i], JSON_REJECT_DUPLICATES, &err);

		/* Strict JSON: NaN and Infinity are not, and are refused here. */
		if (!rec) {
			if (asprintf(&reason, "malformed LAVA log: line %zu: a record that is not JSON",
				     job->records.line[i]) < 0)
				reason = NULL;
			break;
		}
		/* Each record taken once into its view, every field checked there. */
		ret = iop_rec_parse_keep(rec, &view, what, sizeof(what));
		if (!ret)
			metrics += view.nmetrics;
		iop_rec_free(&view);
		if (ret) {
			if (ret == -ENOMEM)
				reason = strdup("out of memory");
			else if (asprintf(&reason, "malformed LAVA log: line %zu: a record that is not of schema 1 (%s)",
					  job->records.line[i], what) < 0)
				reason = NULL;
			json_decref(rec);
			break;
		}
		recs[n++] = rec;
	}
	for (i = job->bench.n > 20 ? job->bench.n - 20 : 0; i < job->bench.n; i++)
		printf("# bench: %s\n", job->bench.s[i]);
	fflush(stdout);
	if (!reason && strcmp(job->bench_exit ? job->bench_exit : "", "0"))
		if (asprintf(&reason, "iopath bench exited %s in the guest",
			     job->bench_exit ? job->bench_exit : "(no exit line)") < 0)
			reason = NULL;
	if (!reason && !n)
		reason = strdup("iopath bench wrote no record");
	rc = 0;
	if (*o->records && n) {
		rc = iop_records_write(o->records, recs, n, false);
		if (rc)
			rc = lava_fail(1, "--records %s: %s", o->records, strerror(-rc));
	}
	for (i = 0; i < n; i++)
		json_decref(recs[i]);
	free(recs);
	if (rc) {
		free(reason);
		return rc;
	}
	if (reason) {
		lava_fail(1, "%s", reason);
		free(reason);
		return 1;
	}
	fprintf(stderr, "lava: bench: %zu records, %zu metrics on %s (LAVA job %s)", n, metrics,
		job->release, job->job_result);
	if (*o->records) {
		fputs("; records in ", stderr);
		iop_esc(stderr, o->records);
	}
	fputc('\n', stderr);
	return 0;
}

static int write_lines(const char *path, char *const *lines, size_t n)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		fprintf(f, "%s\n", lines[i]);
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	rc = lava_write_file(path, buf, len);
	free(buf);
	return rc;
}

/* A scratch file for the engine: the directory is this process's own. */
static int scratch(const char *dir, const char *name, const struct lava_strv *v, char *path)
{
	FILE *f;
	size_t i;

	snprintf(path, PATH_MAX, "%s/%s", dir, name);
	f = fopen(path, "wxe");
	if (!f)
		return -errno;
	for (i = 0; i < v->n; i++)
		fprintf(f, "%s\n", v->s[i]);
	return fclose(f) ? -errno : 0;
}

/*
 * Whether the guest's result line @line says what @v says, its seconds
 * aside (the guest times the programs, the host the whole runner), as
 * the one reader of the machine lines reads it.
 */
static bool same_counts(const char *line, const struct iop_verdict *v)
{
	struct iop_verdict g;
	bool same;

	iop_verdict_init(&g);
	same = iop_verdict_parse_line(line, &g) == 1 && g.have_result &&
	       !strcmp(g.result_word, v->result_word) && !strcmp(g.status, v->status) &&
	       g.passed == v->passed && g.failed == v->failed && g.known == v->known &&
	       g.skipped == v->skipped && g.programs == v->programs &&
	       g.programs_failed == v->programs_failed &&
	       g.required_missing == v->required_missing && g.stale_known == v->stale_known;
	iop_verdict_free(&g);
	return same;
}

/* The engine's verdict on the TAP: its notes and result line into @out. */
static int tap_verdict(const struct lava_job *job, const char *known, struct lava_strv *out,
		       struct iop_verdict *v)
{
	char dir[] = "/tmp/iopath-lava.XXXXXX", feat[PATH_MAX], tap[PATH_MAX], req[PATH_MAX];
	char start[32] = "", end[32] = "", why[512], *line;
	struct iop_verdict_opts vo = { .tag = "iopath-vm", .result = "IOPATH-VM-RESULT",
				       .coverage = true };
	size_t i;
	int rc;

	if (!mkdtemp(dir))
		return lava_fail(1, "a temporary directory: %s", strerror(errno));
	rc = scratch(dir, "features", &job->features, feat);
	if (!rc)
		rc = scratch(dir, "tap", &job->tap, tap);
	if (rc) {
		rc = lava_fail(1, "%s: %s", dir, strerror(-rc));
		goto out;
	}
	if (strspn(job->end, "0123456789. ") == strlen(job->end) &&
	    sscanf(job->end, "%31[0-9.] %31[0-9.]", start, end) == 2 && strchr(job->end, ' ') &&
	    !strchr(strchr(job->end, ' ') + 1, ' ')) {
		vo.start = start;
		vo.end = end;
	}
	snprintf(req, sizeof(req), "%s/selftests/requirements", iop_src_dir());
	rc = iop_verdict_run_opts(job->release, known, req, feat, tap, &vo, v, why,
				  sizeof(why));
	if (rc == -EINVAL) {
		rc = lava_fail(2, "the verdict: %s", why);
		goto out;
	}
	if (rc) {
		rc = lava_fail(1, "the verdict: %s", why);
		goto out;
	}
	for (i = 0; i < v->nnotes && !rc; i++)
		rc = lava_strv_add(out, strdup(v->notes[i]), 0);
	if (!rc && v->have_result) {
		if (iop_verdict_fmt_result(&line, v))
			line = NULL;
		rc = lava_strv_add(out, line, 1);
	}
	if (rc < 0)
		rc = lava_fail(1, "out of memory");
out:
	unlink(feat);
	unlink(tap);
	rmdir(dir);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The result a finished test or program has as a LAVA test case, or NULL. */
static const char *case_result(const char *r)
{
	if (!strcmp(r, "pass") || !strcmp(r, "skip"))
		return r;
	if (!strcmp(r, "fail") || !strcmp(r, "known") || !strcmp(r, "excused"))
		return "fail";
	return NULL;	/* unfinished: the guest reports none */
}

/*
 * The test cases the guest reports (scripts/vm/lava-guest.sh), from the
 * reader's machine lines on its TAP (@v): each harness test whose name is
 * a LAVA test case name, then "program.NAME", as pass, fail or skip.
 */
static int verdict_cases(const struct iop_verdict *v, struct lava_map *cases)
{
	const struct iop_case *c;
	const char *st;
	char key[sizeof(v->progs->program) + 8];
	size_t i, k;
	int ret = 0;

	for (i = 0; i < v->ncases && !ret; i++) {
		c = &v->cases[i];
		st = case_result(c->result);
		k = strspn(c->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-");
		if (st && !c->name[k])
			ret = lava_map_set(cases, c->name, st);
	}
	for (i = 0; i < v->nprogs && !ret; i++) {
		st = case_result(v->progs[i].result);
		snprintf(key, sizeof(key), "program.%s", v->progs[i].program);
		if (st)
			ret = lava_map_set(cases, key, st);
	}
	return ret;
}

/* LAVA's test cases against the reader's on the TAP: the first that differs, or NULL. */
static char *disagreement(const struct lava_job *job, const struct iop_verdict *v)
{
	struct lava_map want = { 0 };
	char **all, *r = NULL;
	size_t n = 0, i;

	if (verdict_cases(v, &want))
		return strdup("out of memory");
	all = calloc(want.n + job->cases.n + 1, sizeof(*all));
	for (i = 0; all && i < want.cap; i++)
		if (want.keys[i])
			all[n++] = want.keys[i];
	for (i = 0; all && i < job->cases.cap; i++)
		if (job->cases.keys[i] && !lava_map_get(&want, job->cases.keys[i]) &&
		    strcmp(job->cases.keys[i], "iopath-verdict"))
			all[n++] = job->cases.keys[i];
	if (all)
		qsort(all, n, sizeof(*all), cmp_str);
	for (i = 0; all && i < n && !r; i++) {
		const char *w = lava_map_get(&want, all[i]), *g = lava_map_get(&job->cases, all[i]);

		if (!w || !g || strcmp(w, g)) {
			char *e = lava_text(all[i], 200);

			if (asprintf(&r, "LAVA's test cases and the TAP disagree: %s is %s in the TAP, %s in the test cases",
				     e ? e : "?", w ? w : "absent", g ? g : "absent") < 0)
				r = NULL;
			free(e);
		}
	}
	free(all);
	lava_map_free(&want);
	return r;
}

static int finish(struct lava_opts *o, struct lava_job *job, struct lava_strv *out,
		  struct iop_verdict *v, const char *log);
static int stop_line(struct lava_strv *out, const char *why, const char *what);

/*
 * The run's own time, kernel image and kernel, as the machine lines
 * scripts/vm.sh writes: LAVA's time of the job, the image the job
 * deployed, the release the guest booted. 0 or -ENOMEM.
 */
static int run_lines(const struct lava_job *job, const char *log, struct lava_strv *out)
{
	const char *b = strrchr(log, '/') ? strrchr(log, '/') + 1 : log;
	char *line = NULL, *eb;
	int rc = 0;

	if (job->start[0])
		rc = lava_strv_add(out, asprintf(&line, "# iopath-vm: start-time %s", job->start) < 0 ?
				   NULL : line, 0);
	if (!rc && job->image_sha)
		rc = lava_strv_add(out, asprintf(&line, "# iopath-vm: image-sha256 %s",
						 job->image_sha) < 0 ? NULL : line, 0);
	if (!rc && job->release) {
		eb = lava_text(b, 200);
		rc = lava_strv_add(out, asprintf(&line, "# iopath-vm: kernel %s (LAVA job log %s)",
						 job->release, eb ? eb : "?") < 0 ? NULL : line, 0);
		free(eb);
	}
	return rc;
}

int lava_cmd_verdict(struct lava_opts *o, const char *log)
{
	static char known_default[PATH_MAX];
	struct lava_strv out = { 0 };
	struct lava_job job = { 0 };
	struct iop_verdict v;
	const char *known = o->known_failures;
	char why[600], *reason = NULL, *inf = NULL;
	bool have_job = true;
	struct stat st;
	size_t i;
	int rc;

	iop_verdict_init(&v);
	if (!*known) {
		snprintf(known_default, sizeof(known_default), "%s/configs/known-failures",
			 iop_src_dir());
		known = known_default;
	}
	/* Read whole: a FIFO or a device would never end. */
	if (strcmp(known, "/dev/null") && stat(known, &st))
		return lava_fail(2, "--known-failures %s: %s", known, strerror(errno));
	if (strcmp(known, "/dev/null") && !S_ISREG(st.st_mode))
		return lava_fail(2, "--known-failures %s: not a regular file", known);
	if ((*o->tap && lava_out_ok("--tap", o->tap)) ||
	    (*o->console && lava_out_ok("--console", o->console)) ||
	    (*o->records && lava_out_ok("--records", o->records)))
		return 2;
	rc = lava_log_read(log, &job, why, sizeof(why));
	if (rc == -EBADMSG) {
		have_job = false;
		reason = strdup(why);
	} else if (rc) {
		lava_job_free(&job);
		return lava_fail(2, "%s", why);
	} else if (job.bench_exit || job.records.n) {
		/* A benchmark job ends with its exit line, not an end line. */
		if (!job.end)
			job.end = strdup("bench");
		reason = judge(&job);
		if (!reason) {
			rc = bench_verdict(o, &job);
			lava_job_free(&job);
			return rc;
		}
	} else {
		reason = judge(&job);
	}
	rc = have_job ? run_lines(&job, log, &out) : 0;
	for (i = 0; have_job && i < job.tap.n && !rc; i++)
		rc = lava_strv_add(&out, strdup(job.tap.s[i]), 0);
	if (rc)
		rc = lava_fail(1, "out of memory");
	if (!rc && have_job && job.release && job.end)
		rc = tap_verdict(&job, known, &out, &v);
	if (rc)
		goto out;
	if (!reason && have_job)
		reason = disagreement(&job, &v);
	if (*o->console && have_job) {
		rc = write_lines(o->console, job.console.s, job.console.n);
		if (rc) {
			rc = lava_fail(1, "--console %s: %s", o->console, strerror(-rc));
			goto out;
		}
	}
	if (reason) {
		/* Like a guest that stopped without a result: the result line goes. */
		size_t k = 0;

		inf = have_job ? infra(&job) : NULL;

		for (i = 0; i < out.n; i++) {
			if (out.line[i] == 1) {
				free(out.s[i]);
				continue;
			}
			out.line[k] = out.line[i];
			out.s[k++] = out.s[i];
		}
		out.n = k;
		/*
		 * and, as scripts/vm.sh says it, why: one machine line, LAVA's
		 * own error where its infrastructure failed (iopath export
		 * reports that run as an ERROR with it).
		 */
		rc = stop_line(&out, have_job && timed_out(&job) ? "hang" :
			       inf ? "infrastructure" : "no-result", inf ? inf : reason);
		if (rc)
			goto out;
	}
	for (i = 0; i < out.n; i++)
		printf("%s\n", out.s[i]);
	fflush(stdout);
	if (*o->tap) {
		rc = write_lines(o->tap, out.s, out.n);
		if (rc) {
			rc = lava_fail(1, "--tap %s: %s", o->tap, strerror(-rc));
			goto out;
		}
	}
	if (reason) {
		rc = lava_fail(inf ? LAVA_EXIT_INFRA : 1, "%s", inf ? inf : reason);
		goto out;
	}
	rc = finish(o, &job, &out, &v, log);
out:
	free(inf);
	free(reason);
	iop_verdict_free(&v);
	lava_strv_free(&out);
	lava_job_free(&job);
	return rc;
}

/*
 * "# IOPATH-STOP: reason=WHY seconds=0 what=TEXT", the line scripts/vm.sh
 * ends a guest without a result with: iopath mutate classifies a LAVA job
 * by it as it does a run of its own.
 */
static int stop_line(struct lava_strv *out, const char *why, const char *what)
{
	char *e = iop_esc_dup(what), *line = NULL;
	int rc = 0;

	if (!e || asprintf(&line, "# IOPATH-STOP: reason=%s seconds=0 what=%s", why, e) < 0 ||
	    lava_strv_add(out, line, 0))
		rc = lava_fail(1, "out of memory");
	free(e);
	return rc;
}

/* A judged run: the summary, the console, LAVA's and the guest's notes. */
static int finish(struct lava_opts *o, struct lava_job *job, struct lava_strv *out,
		  struct iop_verdict *v, const char *log)
{
	const char *cov = "# iopath-vm: coverage: ";
	char known[32] = "";
	bool pass = v->have_result && !strcmp(v->status, "pass");
	size_t i, bad = 0;

	(void)o;
	(void)log;
	if (v->known)
		snprintf(known, sizeof(known), " %u known,", v->known);
	fprintf(stderr, "lava: %u passed, %u failed,%s %u skipped (%u programs on %s; LAVA job %s)\n",
		v->passed, v->failed, known, v->skipped, v->programs, job->release, job->job_result);
	for (i = 0; i < job->console.n; i++) {
		const char *t = iop_kmsg_console_text(job->console.s[i]);

		if (!iop_kmsg_line_is_bad(t))
			continue;
		if (!bad++)
			fprintf(stderr, "iopath: lava: the kernel console shows a kernel bug report (lib/kmsg_patterns.h):\n");
		if (bad <= 5)
			fprintf(stderr, "  | %s\n", t);
	}
	if (bad)
		pass = false;
	if (strcmp(job->job_result, "pass"))
		/* The run finished and is judged; what failed after it is LAVA's. */
		fprintf(stderr, "iopath: lava: note: LAVA reports the job %s: %s\n", job->job_result,
			*job->job_error_msg ? job->job_error_msg : job->job_error_type);
	/*
	 * The durations differ: the guest's runner times the programs, the
	 * host the runner (its probe included) from the end line.
	 */
	if (job->guest_verdict && v->have_result && !same_counts(job->guest_verdict, v))
		fprintf(stderr, "iopath: lava: note: the guest's own verdict differs: %s\n",
			job->guest_verdict);
	for (i = 0; i < out->n; i++)
		if (!strncmp(out->s[i], cov, strlen(cov)))
			fprintf(stderr, "coverage: %s\n", out->s[i] + strlen(cov));
	fprintf(stderr, "coverage: kernel console of the whole run (loglevel=5): %s\n",
		bad ? "FAIL" : "ran, clean");
	return pass ? 0 : 1;
}
