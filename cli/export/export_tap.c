// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath export --kcidb of a selftest run: the TAP of make kselftest or
 * make check, of iopath vm or of iopath lava verdict. The TAP is judged by
 * the engine of lib/tap.c through lib/verdict.c (the one TAP reader);
 * this file reads only its machine lines, and the TAP itself only for the
 * kernel line of iopath vm and lava, the run's own result line, and the
 * log lines of a test that did not pass (by the line numbers the engine
 * gives).
 *
 * Tests: "iopath" for the run, "iopath.PROGRAM" for each program and
 * "iopath.PROGRAM.FIXTURE.VARIANT.TEST" for each harness test, so a
 * program's node is the parent of its cases. A known kernel bug stays
 * FAIL, with the bug in misc; a test or program the TAP was cut inside,
 * and a run that has no result line, are ERROR: the infrastructure
 * stopped, and nothing is known of the kernel.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "export.h"
#include "input.h"
#include "tap.h"
#include "verdict.h"

struct tap {
	char **lines;
	size_t n, cap;
};

static void tap_free(struct tap *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->lines[i]);
	free(t->lines);
}

static int tap_read(const char *path, struct tap *t, char *why, size_t len)
{
	struct iop_input in;
	bool terminated;
	char *line, **p;
	ssize_t n;
	int ret;

	ret = iop_input_open(&in, path, EXPORT_MAX_LINE, why, len);
	if (ret)
		return ret;
	while ((n = iop_input_line(&in, &line, &terminated, why, len)) >= 0) {
		if (t->n == t->cap) {
			p = reallocarray(t->lines, t->cap ? 2 * t->cap : 1024, sizeof(*p));
			if (!p) {
				n = -ENOMEM;
				break;
			}
			t->lines = p;
			t->cap = t->cap ? 2 * t->cap : 1024;
		}
		/* A NUL in a line ends it: what follows is not text. */
		t->lines[t->n] = strdup(line);
		if (!t->lines[t->n]) {
			n = -ENOMEM;
			break;
		}
		t->n++;
	}
	iop_input_close(&in);
	if (n == -ENOMEM)
		snprintf(why, len, "%s: no memory", path);
	return n == -ENODATA ? 0 : (int)n;
}

static bool release_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 100)
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+~-") == n;
}

/* Lines @first..@last of the TAP (1-based), each without the runner's "# ". */
static char *excerpt(const struct tap *t, unsigned int first, unsigned int last)
{
	char *buf = NULL;
	size_t blen = 0, i;
	FILE *f;

	if (!first || first > t->n)
		return NULL;
	if (last > t->n)
		last = (unsigned int)t->n;
	/* Only the end is kept (EXPORT_MAX_EXCERPT): a bounded window of lines. */
	if (last - first > 4096)
		first = last - 4096;
	f = open_memstream(&buf, &blen);
	if (!f)
		return NULL;
	for (i = first; i <= last; i++) {
		const char *s = t->lines[i - 1];

		fprintf(f, "%s%s", i > first ? "\n" : "", strncmp(s, "# ", 2) ? s : s + 2);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* "iopath.PART.PART..." of @prog and the dot-separated @name (or NULL). */
static void test_path(const char *prog, const char *name, char *out, size_t len)
{
	char part[256], *copy, *tok, *save;
	size_t o;

	export_path_part(prog, part, sizeof(part));
	o = (size_t)snprintf(out, len, "iopath.%s", part);
	if (!name || o >= len)
		return;
	copy = strdup(name);
	for (tok = copy ? strtok_r(copy, ".", &save) : NULL; tok && o < len;
	     tok = strtok_r(NULL, ".", &save)) {
		export_path_part(tok, part, sizeof(part));
		o += (size_t)snprintf(out + o, len - o, ".%s", part);
	}
	free(copy);
}

static const char *case_status(const char *result)
{
	if (!strcmp(result, "pass"))
		return "PASS";
	if (!strcmp(result, "skip"))
		return "SKIP";
	if (!strcmp(result, "unfinished"))
		return "ERROR";
	return "FAIL";		/* fail, known, excused */
}

/* What iopath vm and iopath lava verdict say of the run, as machine lines. */
struct run_lines {
	char release[128];
	char image[65];		/* "# iopath-vm: image-sha256 H" */
	char start[32];		/* "# iopath-vm: start-time T", the first */
	char stop[16];		/* "# IOPATH-STOP: reason=R ...", the last */
	char stop_what[512];
	bool vm;		/* any "# iopath-vm: " line: the run of a guest */
};

static void run_line(const char *l, struct run_lines *rl)
{
	static const char vm[] = "# iopath-vm: ", stop[] = "# IOPATH-STOP: reason=";
	const char *what;

	if (!strncmp(l, vm, sizeof(vm) - 1)) {
		rl->vm = true;
		l += sizeof(vm) - 1;
		if (!rl->release[0] && !strncmp(l, "kernel ", 7))
			sscanf(l + 7, "%127s", rl->release);
		else if (!strncmp(l, "image-sha256 ", 13) && strlen(l + 13) == 64 &&
			 strspn(l + 13, "0123456789abcdef") == 64)
			snprintf(rl->image, sizeof(rl->image), "%s", l + 13);
		else if (!rl->start[0] && !strncmp(l, "start-time ", 11) && export_time_ok(l + 11))
			snprintf(rl->start, sizeof(rl->start), "%s", l + 11);
	} else if (!strncmp(l, stop, sizeof(stop) - 1)) {
		l += sizeof(stop) - 1;
		snprintf(rl->stop, sizeof(rl->stop), "%.*s", (int)strcspn(l, " "), l);
		what = strstr(l, " what=");
		snprintf(rl->stop_what, sizeof(rl->stop_what), "%s", what ? what + 6 : rl->stop);
	}
}

static json_t *result_misc(const struct iop_verdict *v)
{
	json_t *m = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			      "status", v->status, "passed", (json_int_t)v->passed,
			      "failed", (json_int_t)v->failed, "known", (json_int_t)v->known,
			      "skipped", (json_int_t)v->skipped,
			      "programs", (json_int_t)v->programs,
			      "programs_failed", (json_int_t)v->programs_failed,
			      "required_missing", (json_int_t)v->required_missing,
			      "stale_known", (json_int_t)v->stale_known);

	if (m && v->seconds >= 0 && json_object_set_new(m, "seconds", json_integer(v->seconds))) {
		json_decref(m);
		return NULL;
	}
	return m;
}

static char *notes_text(const struct iop_verdict *v)
{
	char *buf = NULL;
	size_t blen = 0, i;
	FILE *f = open_memstream(&buf, &blen);

	if (!f)
		return NULL;
	for (i = 0; i < v->nnotes; i++)
		fprintf(f, "%s%s", i ? "\n" : "", v->notes[i] + 2);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * The run's kernel release (--kernel-release, the run's kernel line, else
 * this machine's: a TAP of make kselftest), start (its start-time line,
 * unless --start-time) and image. EXPORT_BAD with @why for a guest that
 * never reached its kernel, a release that is no uname -r, or --image of
 * another kernel.
 */
static int run_identity(struct report *r, const struct run_lines *rl, char *release,
			size_t rlen, const char **image, char *why, size_t len)
{
	const struct export_opts *o = r->o;
	struct utsname u;

	snprintf(release, rlen, "%s", o->kernel_release ? o->kernel_release : rl->release);
	if (!release[0] && (rl->vm || rl->stop[0])) {
		/* A guest that never reached its kernel: this machine's is not it. */
		snprintf(why, len, "the run never reached its kernel (no \"# iopath-vm: kernel\" line): "
			 "name it with --kernel-release");
		return EXPORT_BAD;
	}
	if (!release[0] && !uname(&u))
		snprintf(release, rlen, "%s", u.release);
	if (!release_ok(release)) {
		snprintf(why, len, "kernel release '%.100s' is not a uname -r", release);
		return EXPORT_BAD;
	}
	if (!o->start_time && rl->start[0])
		snprintf(r->fallback_time, sizeof(r->fallback_time), "%s", rl->start);
	return report_image(r, rl->image[0] ? rl->image : NULL, image, why, len);
}

static int add_tests(struct report *r, const struct tap *t, const struct iop_verdict *v,
		     const char *build)
{
	char path[1024], doc[160];
	const char *st;
	json_t *misc;
	char *exc;
	size_t i;
	int ret = 0;

	for (i = 0; i < v->nprogs && !ret; i++) {
		const struct iop_program *p = &v->progs[i];

		test_path(p->program, NULL, path, sizeof(path));
		misc = NULL;
		if (!strcmp(p->result, "excused"))
			misc = json_pack("{s:b}", "excused", 1);
		else if (!strcmp(p->result, "unfinished"))
			misc = json_pack("{s:s}", "reason", "the TAP ends inside this program");
		ret = report_test(r, build, path, case_status(p->result), NULL, misc, NULL, NULL);
	}
	for (i = 0; i < v->ncases && !ret; i++) {
		const struct iop_case *c = &v->cases[i];

		test_path(c->program, c->name, path, sizeof(path));
		st = case_status(c->result);
		misc = NULL;
		if (!strcmp(c->result, "known")) {
			snprintf(doc, sizeof(doc), "docs/kernel-bugs/%s.md", c->bug);
			misc = json_pack("{s:{s:s, s:s}, s:b}", "known_bug", "bug", c->bug,
					 "doc", doc, "excused", 1);
		} else if (!strcmp(c->result, "unfinished")) {
			misc = json_pack("{s:s}", "reason", "the TAP ends inside this test");
		}
		exc = strcmp(st, "PASS") ? excerpt(t, c->first, c->last) : NULL;
		ret = report_test(r, build, path, st, NULL, misc, exc, NULL);
		free(exc);
	}
	return ret;
}

/*
 * The verdict engine on the input, read through the fd opened here: not a
 * name that could point elsewhere by then (or at a FIFO). A run of zero
 * tests is refused.
 */
static int judge_tap(const struct export_opts *o, const char *release,
		     const struct run_lines *rl, struct iop_verdict *v, char *why, size_t len)
{
	char req[4096], tap[64];
	struct stat st;
	int fd, ret;

	snprintf(req, sizeof(req), "%s/selftests/requirements", o->top);
	fd = open(o->input, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(why, len, "%s: not a regular file", o->input);
		if (fd >= 0)
			close(fd);
		return EXPORT_BAD;
	}
	snprintf(tap, sizeof(tap), "/proc/self/fd/%d", fd);
	ret = iop_verdict_run(release, o->known, req, o->features, tap, v, why, len);
	close(fd);
	if (ret)
		return ret == -EINVAL ? EXPORT_BAD : EXPORT_FAILED;
	if (!v->ncases && !rl->stop[0]) {
		/*
		 * A program that ran no test (its plan 1..0, or skipped whole)
		 * passes in run_kselftest.sh's TAP: counted, it would make a
		 * green report of zero tests.
		 */
		if (v->nprogs)
			snprintf(why, len, "no test results in the input (%zu programs, none with a "
				 "harness test): a KCIDB report of a run with zero tests would read "
				 "as nothing wrong", v->nprogs);
		else
			snprintf(why, len, "no test results in the input (no program ran): a KCIDB "
				 "report of a run with zero tests would read as nothing wrong");
		return EXPORT_FAILED;
	}
	return 0;
}

/* Why the run as a whole is an error rather than a pass or fail, or "". */
static void stop_reason(const struct run_lines *rl, const struct iop_verdict *own,
			const struct iop_verdict *v, char *reason, size_t len)
{
	size_t i;

	reason[0] = '\0';
	if (!strcmp(rl->stop, "infrastructure"))
		/* LAVA's own error: the kernel was not judged. */
		snprintf(reason, len, "%s", rl->stop_what);
	else if (!own->have_result && (rl->vm || rl->stop[0]))
		snprintf(reason, len, "the run has no result line: it did not finish, "
			 "or iopath lava verdict refused it (its stderr says why)%s%s",
			 rl->stop[0] ? ": " : "", rl->stop_what);
	for (i = 0; i < v->ncases && !reason[0]; i++)
		if (!strcmp(v->cases[i].result, "unfinished"))
			snprintf(reason, len, "the TAP ends inside test %s of %s: the run "
				 "was cut short", v->cases[i].name, v->cases[i].program);
	for (i = 0; i < v->nprogs && !reason[0]; i++)
		if (!strcmp(v->progs[i].result, "unfinished"))
			snprintf(reason, len, "the TAP ends inside program %s: the run was "
				 "cut short", v->progs[i].program);
}

/* The "iopath" test: the run's own result, ERROR when @reason says why. */
static int add_result(struct report *r, const char *bid, const char *reason,
		      const struct run_lines *rl, const struct iop_verdict *res,
		      const struct iop_verdict *v)
{
	json_t *misc;
	char *notes;
	int ret;

	if (reason[0]) {
		export_note("%s", reason);
		misc = json_pack("{s:s, s:s}", "status", "error", "reason", reason);
		if (misc && rl->stop[0] && json_object_set_new(misc, "stop", json_string(rl->stop))) {
			json_decref(misc);
			return -ENOMEM;
		}
		return report_test(r, bid, "iopath", "ERROR", NULL, misc, reason, NULL);
	}
	if (!strcmp(res->status, "pass"))
		return report_test(r, bid, "iopath", "PASS", NULL, result_misc(res), NULL, NULL);
	notes = notes_text(v);
	ret = report_test(r, bid, "iopath", "FAIL", NULL, result_misc(res), notes, NULL);
	free(notes);
	return ret;
}

int export_tap(struct report *r, char *why, size_t len)
{
	const struct export_opts *o = r->o;
	char release[128] = "", cid[200], bid[200], source[300], reason[1024];
	struct run_lines rl = { 0 };
	struct iop_verdict own, v;
	const char *image;
	struct tap t = { 0 };
	struct build_info b = { 0 };
	size_t i;
	int ret;

	iop_verdict_init(&own);
	iop_verdict_init(&v);
	ret = tap_read(o->input, &t, why, len);
	if (ret) {
		ret = EXPORT_BAD;
		goto out;
	}
	for (i = 0; i < t.n; i++) {
		run_line(t.lines[i], &rl);
		/* The run's own verdict, if it was judged: only its result line counts. */
		iop_verdict_parse_line(t.lines[i], &own);
	}
	ret = run_identity(r, &rl, release, sizeof(release), &image, why, len);
	if (!ret)
		ret = judge_tap(o, release, &rl, &v, why, len);
	if (ret)
		goto out;
	stop_reason(&rl, &own, &v, reason, sizeof(reason));
	if (!r->fallback_time[0])
		export_note("the input has no start time of its own (no \"# iopath-vm: start-time\" "
			    "line): no start_time in the report; --start-time gives one");

	snprintf(source, sizeof(source), "%s%s", o->source ? "" : "kernel ",
		 o->source ? o->source : release);
	if (report_checkout(r, release, source, image, r->fallback_time, cid, sizeof(cid)))
		goto nomem;
	b.release = release;
	b.image_sha = image;
	b.arch = o->arch;
	b.start = r->fallback_time;
	if (report_build(r, cid, &b, bid, sizeof(bid)) || add_tests(r, &t, &v, bid) ||
	    add_result(r, bid, reason, &rl, own.have_result ? &own : &v, &v))
		goto nomem;
	goto out;
nomem:
	snprintf(why, len, "no memory");
	ret = EXPORT_FAILED;
out:
	iop_verdict_free(&own);
	iop_verdict_free(&v);
	tap_free(&t);
	return ret;
}
