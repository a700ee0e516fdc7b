// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A kernel's run under the VM, as the campaign reads it (campaign.h):
 * whether the guest gave its result line or why it stopped (vm.sh's
 * "# IOPATH-STOP:" line), and the tests' results from the one TAP reader,
 * the engine of lib/tap.c through lib/verdict.c (its machine lines, never
 * the TAP's prose). The pristine kernel's state is made from its runs here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "campaign.h"
#include "campaign_int.h"
#include "input.h"
#include "quote.h"
#include "tap.h"
#include "why.h"

#define RUN_LINE_MAX	(1u << 20)	/* bytes in a line of a run's output */

/*
 * "# IOPATH-STOP: reason=R seconds=N what=TEXT" into @r->stop: "TEXT",
 * "hang: TEXT" for a hang, R without a TEXT. vm.sh escaped TEXT; a line
 * with a control character is not vm.sh's, and is escaped whole.
 */
static void stop_line(const char *line, struct iop_run *r)
{
	const char *p = line + strlen("# IOPATH-STOP: reason=");
	size_t rl = strcspn(p, " ");
	const char *what = strstr(p, " what=");
	char buf[IOP_RUN_STOP_MAX * 4 + 64], *e = NULL;
	bool ctl = false;

	for (size_t i = 0; line[i]; i++)
		ctl |= iop_is_control(line, i);
	if (what)
		what += strlen(" what=");
	snprintf(buf, sizeof(buf), "%s%.*s", rl == 4 && !strncmp(p, "hang", 4) ? "hang: " : "",
		 what ? (int)strnlen(what, IOP_RUN_STOP_MAX * 2) : (int)rl, what ? what : p);
	if (ctl)
		e = iop_esc_dup(buf);
	snprintf(r->stop, sizeof(r->stop), "%.*s", IOP_RUN_STOP_MAX, e ? e : buf);
	free(e);
}

int iop_run_scan(struct iop_run *r, char *why, size_t len)
{
	struct iop_verdict v;
	struct iop_input in;
	bool term, stopped = false;
	char *line;
	ssize_t n;
	int ret;

	r->result = false;
	r->stop[0] = '\0';
	ret = iop_input_open(&in, r->path, RUN_LINE_MAX, why, len);
	if (ret)
		return ret;
	/* The result line is the machine lines' reader's to know. */
	iop_verdict_init(&v);
	strcpy(v.want_word, "IOPATH-VM-RESULT");
	while ((n = iop_input_line(&in, &line, &term, why, len)) >= 0) {
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		if (iop_verdict_parse_line(line, &v) == 0 &&
		    !strncmp(line, "# IOPATH-STOP: reason=", 22)) {
			stop_line(line, r);
			stopped = true;
		}
	}
	r->result = v.have_result;
	iop_verdict_free(&v);
	iop_input_close(&in);
	if (n != -ENODATA)
		return (int)n;
	if (r->result)
		r->stop[0] = '\0';
	else if (!stopped)
		snprintf(r->stop, sizeof(r->stop), "no result line");
	return 0;
}

int iop_run_judge(const char *path, struct iop_verdict *v, char *why, size_t len)
{
	char tap[64], w[512];
	struct stat st;
	int fd, ret;

	iop_verdict_init(v);
	/*
	 * The engine reads the file opened here, by its fd, not a name that
	 * may point elsewhere by then (or at a FIFO).
	 */
	fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		iop_why(why, len, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		iop_why(why, len, "%s: not a regular file", path);
		return -EINVAL;
	}
	snprintf(tap, sizeof(tap), "/proc/self/fd/%d", fd);
	ret = iop_verdict_run(NULL, NULL, NULL, NULL, tap, v, w, sizeof(w));
	close(fd);
	if (ret)
		iop_why(why, len, "%s: %s", path, w);
	return ret;
}

const char *iop_run_word(const struct iop_case *c)
{
	if (!strcmp(c->result, "pass"))
		return "ok";
	if (!strcmp(c->result, "fail") || !strcmp(c->result, "known"))
		return "fail";
	if (!strcmp(c->result, "skip"))
		return "skip";
	return NULL;	/* unfinished: no result */
}

/* One pristine run @path: its stop, and each test seen into @seen ("NAME\tPROGRAM"), @ok. */
static int pristine_run(struct iop_pristine_run *pr, const char *path, struct iop_strs *seen,
			struct iop_strs *ok, char *why, size_t len)
{
	struct iop_run r = { .path = path };
	struct iop_verdict v;
	struct iop_strs mine = { 0 };
	int ret;

	ret = iop_run_scan(&r, why, len);
	if (ret)
		return ret;
	pr->stop = strdup(r.stop);
	if (!pr->stop)
		return -ENOMEM;
	ret = iop_run_judge(path, &v, why, len);
	for (size_t i = 0; i < v.ncases && !ret; i++) {
		const char *w = iop_run_word(&v.cases[i]);
		char *t;

		if (!w)
			continue;
		if (asprintf(&t, "%s\t%s", v.cases[i].name, v.cases[i].program) < 0) {
			ret = -ENOMEM;
			break;
		}
		ret = iop_strs_add(seen, t);
		free(t);
		if (!ret && !strcmp(w, "ok"))
			ret = iop_strs_add(&mine, v.cases[i].name);
	}
	/* A test counts once a run. */
	iop_strs_sort(&mine);
	for (size_t i = 0; i < mine.n && !ret; i++)
		ret = iop_strs_add(ok, mine.s[i]);
	iop_strs_free(&mine);
	iop_verdict_free(&v);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The tests of @ok (sorted, each once a run) seen on each of the @n runs into @passing. */
static int passing_all(const struct iop_strs *ok, size_t n, struct iop_strs *passing)
{
	size_t i = 0, k;
	int ret = 0;

	while (i < ok->n && !ret) {
		for (k = i; k < ok->n && !strcmp(ok->s[k], ok->s[i]); k++)
			;
		if (k - i == n)
			ret = iop_strs_add(passing, ok->s[i]);
		i = k;
	}
	return ret;
}

int iop_pristine_make(struct iop_pristine *pr, const struct iop_plan *p, int64_t build_s,
		      const char *const *paths, const int64_t *seconds, const int64_t *rcs,
		      size_t n, char *why, size_t len)
{
	struct iop_strs seen = { 0 }, ok = { 0 };
	int ret = 0;

	memset(pr, 0, sizeof(*pr));
	pr->build_s = build_s;
	pr->whole = p->pristine_whole;
	pr->runs = calloc(n + 1, sizeof(*pr->runs));
	if (!pr->runs)
		ret = -ENOMEM;
	for (size_t i = 0; i < p->pristine_programs.n && !ret; i++)
		ret = iop_strs_add(&pr->programs, p->pristine_programs.s[i]);
	for (size_t i = 0; i < n && !ret; i++) {
		pr->runs[i].seconds = seconds[i];
		pr->runs[i].rc = rcs[i];
		pr->nruns++;
		ret = pristine_run(&pr->runs[i], paths[i], &seen, &ok, why, len);
	}
	iop_strs_sort(&seen);
	if (ok.n)
		qsort(ok.s, ok.n, sizeof(*ok.s), cmp_str);
	for (size_t i = 0; i < seen.n && !ret; i++) {
		char *tab = strchr(seen.s[i], '\t');

		*tab = '\0';
		ret = iop_strs_add(&pr->tests, seen.s[i]) ?:
		      iop_strs_add(&pr->test_programs, tab + 1);
	}
	if (!ret)
		ret = passing_all(&ok, n, &pr->passing);
	iop_strs_free(&seen);
	iop_strs_free(&ok);
	if (ret == -ENOMEM)
		iop_why(why, len, "%s", strerror(ENOMEM));
	if (ret)
		iop_pristine_free(pr);
	return ret;
}
