// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Running scripts/tap-verdict.awk and reading its machine lines (see
 * verdict.h). The awk is the one reader of TAP and of the known-failures
 * list; a C consumer that parsed TAP or the notes itself would be a second
 * reader, drifting from the first. Only the machine lines are parsed, and
 * strictly: a line that starts like one but does not parse is an error,
 * not a line skipped.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "number.h"
#include "quote.h"
#include "verdict.h"
#include "why.h"

/* Longest awk output line kept whole; notes are cut there. */
#define LINE_MAX_BYTES 65536
#define MAX_NOTES 1000
#define NOTE_MAX 1000

void iop_verdict_init(struct iop_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->seconds = -1;
}

void iop_verdict_free(struct iop_verdict *v)
{
	size_t i;

	for (i = 0; i < v->nnotes; i++)
		free(v->notes[i]);
	free(v->notes);
	free(v->cases);
	free(v->progs);
	iop_verdict_init(v);
}

/* The awk's word(): what a machine line's value may hold. */
static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == ':' || c == '+' || c == '-' || c == '?';
}

struct field {
	const char *key, *val;
	size_t klen, vlen;
};

#define MAX_FIELDS 16

/* "k=v k=v ...": single blanks, non-empty words. Count, or -EINVAL. */
static int split_fields(const char *s, struct field *f, int max)
{
	int n = 0;
	const char *p;

	while (*s) {
		if (n == max)
			return -EINVAL;
		f[n].key = s;
		for (p = s; (*p >= 'a' && *p <= 'z') || *p == '_'; p++)
			;
		if (p == s || *p != '=')
			return -EINVAL;
		f[n].klen = p - s;
		f[n].val = ++p;
		for (; *p && *p != ' '; p++)
			if (!word_char(*p))
				return -EINVAL;
		f[n].vlen = p - f[n].val;
		if (!f[n].vlen)
			return -EINVAL;
		n++;
		if (*p == ' ') {
			p++;
			if (!*p)
				return -EINVAL;
		}
		s = p;
	}
	return n;
}

static const struct field *get(const struct field *f, int n, const char *key)
{
	size_t k = strlen(key);
	int i;

	for (i = 0; i < n; i++)
		if (f[i].klen == k && !memcmp(f[i].key, key, k))
			return &f[i];
	return NULL;
}

/* Copy a field's value into @dst of @size bytes: -EINVAL if absent or too long. */
static int copy_val(char *dst, size_t size, const struct field *f)
{
	if (!f || f->vlen >= size)
		return -EINVAL;
	memcpy(dst, f->val, f->vlen);
	dst[f->vlen] = '\0';
	return 0;
}

static bool one_of(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(s, *set))
			return true;
	return false;
}

static int uint_val(const struct field *f, unsigned int *out)
{
	char buf[24];
	uint64_t u;

	if (copy_val(buf, sizeof(buf), f) || iop_parse_u64(buf, 0, UINT_MAX, &u))
		return -EINVAL;
	*out = (unsigned int)u;
	return 0;
}

static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	if (n >= IOP_VERDICT_MAX_CASES)
		return -E2BIG;
	ncap = *cap ? *cap * 2 : 64;
	p = reallocarray(*arr, ncap, size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

static int parse_case(const char *s, struct iop_verdict *v)
{
	static const char *const results[] = { "pass", "fail", "skip", "known", "unfinished", NULL };
	struct field f[MAX_FIELDS];
	const struct field *lines, *bug;
	struct iop_case c;
	char range[48], *dash;
	uint64_t a, b;
	int n, ret;

	n = split_fields(s, f, MAX_FIELDS);
	if (n < 0)
		return n;
	memset(&c, 0, sizeof(c));
	lines = get(f, n, "lines");
	if (copy_val(c.result, sizeof(c.result), get(f, n, "result")) ||
	    !one_of(c.result, results) ||
	    copy_val(c.program, sizeof(c.program), get(f, n, "program")) ||
	    copy_val(c.name, sizeof(c.name), get(f, n, "name")) ||
	    copy_val(range, sizeof(range), lines))
		return -EINVAL;
	dash = strchr(range, '-');
	if (!dash)
		return -EINVAL;
	*dash = '\0';
	if (iop_parse_u64(range, 0, UINT_MAX, &a) || iop_parse_u64(dash + 1, 0, UINT_MAX, &b) ||
	    a > b)
		return -EINVAL;
	c.first = (unsigned int)a;
	c.last = (unsigned int)b;
	bug = get(f, n, "bug");
	if (bug && copy_val(c.bug, sizeof(c.bug), bug))
		return -EINVAL;
	if (!strcmp(c.result, "known") != !!bug)
		return -EINVAL;
	ret = grow((void **)&v->cases, &v->cases_cap, v->ncases, sizeof(c));
	if (ret)
		return ret;
	v->cases[v->ncases++] = c;
	return 1;
}

static int parse_program(const char *s, struct iop_verdict *v)
{
	static const char *const results[] = { "pass", "fail", "excused", "skip", "unfinished", NULL };
	struct field f[MAX_FIELDS];
	const struct field *ended;
	struct iop_program p;
	int n, ret;

	n = split_fields(s, f, MAX_FIELDS);
	if (n < 0)
		return n;
	memset(&p, 0, sizeof(p));
	if (copy_val(p.result, sizeof(p.result), get(f, n, "result")) ||
	    !one_of(p.result, results) ||
	    copy_val(p.program, sizeof(p.program), get(f, n, "program")))
		return -EINVAL;
	/* Another way a later awk says a program ended is no timeout. */
	ended = get(f, n, "ended");
	p.timed_out = ended && ended->vlen == 7 && !memcmp(ended->val, "timeout", 7);
	ret = grow((void **)&v->progs, &v->progs_cap, v->nprogs, sizeof(p));
	if (ret)
		return ret;
	v->progs[v->nprogs++] = p;
	return 1;
}

static int parse_result(const char *word, size_t wlen, const char *s, struct iop_verdict *v)
{
	static const char *const statuses[] = { "pass", "fail", NULL };
	static const char *const keys[] = {
		"passed", "failed", "known", "skipped", "programs", "programs_failed",
		"required_missing", "stale_known",
	};
	struct field f[MAX_FIELDS];
	const struct field *sec;
	unsigned int c[8], secs = 0;
	char status[8];
	size_t i;
	int n;

	n = split_fields(s, f, MAX_FIELDS);
	if (n < 0 || wlen >= sizeof(v->result_word))
		return -EINVAL;
	/* Parsed whole first: a malformed line leaves @v as it was. */
	if (copy_val(status, sizeof(status), get(f, n, "status")) || !one_of(status, statuses))
		return -EINVAL;
	for (i = 0; i < 8; i++)
		if (uint_val(get(f, n, keys[i]), &c[i]))
			return -EINVAL;
	sec = get(f, n, "seconds");
	if (sec && uint_val(sec, &secs))
		return -EINVAL;
	if (v->have_result)
		return 1;
	v->have_result = true;
	memcpy(v->result_word, word, wlen);
	v->result_word[wlen] = '\0';
	strcpy(v->status, status);
	v->passed = c[0];
	v->failed = c[1];
	v->known = c[2];
	v->skipped = c[3];
	v->programs = c[4];
	v->programs_failed = c[5];
	v->required_missing = c[6];
	v->stale_known = c[7];
	v->seconds = sec ? (long)secs : -1;
	return 1;
}

int iop_verdict_parse_line(const char *line, struct iop_verdict *v)
{
	const char *w, *colon;
	size_t wlen;

	if (strncmp(line, "# ", 2))
		return 0;
	if (!strncmp(line, "# IOPATH-CASE: ", 15))
		return parse_case(line + 15, v);
	if (!strncmp(line, "# IOPATH-PROGRAM: ", 18))
		return parse_program(line + 18, v);
	/* "# WORD-RESULT: ", WORD of capitals and '-'. */
	w = line + 2;
	for (colon = w; (*colon >= 'A' && *colon <= 'Z') || *colon == '-'; colon++)
		;
	if (*colon != ':' || colon[1] != ' ')
		return 0;
	wlen = colon - w;
	if (wlen < 7 || memcmp(colon - 7, "-RESULT", 7))
		return 0;
	return parse_result(w, wlen, colon + 2, v);
}

static int add_note(struct iop_verdict *v, const char *line)
{
	char *s;
	int ret;

	if (v->nnotes >= MAX_NOTES)
		return 0;
	ret = grow((void **)&v->notes, &v->notes_cap, v->nnotes, sizeof(*v->notes));
	if (ret)
		return ret;
	s = strndup(line, NOTE_MAX);
	if (!s)
		return -ENOMEM;
	v->notes[v->nnotes++] = s;
	return 0;
}

/* One line of the awk's output: a machine line into @v, a note kept. */
static int one_line(char *line, size_t lineno, struct iop_verdict *v, char *why, size_t len)
{
	int ret = iop_verdict_parse_line(line, v);

	if (!ret && !strncmp(line, "# ", 2))
		ret = add_note(v, line);
	if (ret == -EINVAL)
		iop_why(why, len, "tap-verdict.awk line %zu: a malformed machine line", lineno);
	return ret < 0 ? ret : 0;
}

/*
 * Each line of @fd (the awk's stdout) into @v. A line over the bound (a
 * note quoting a long TAP line) counts by its head; the rest is dropped.
 */
static int read_lines(int fd, struct iop_verdict *v, char *why, size_t len)
{
	size_t have = 0, start, lineno = 0;
	bool skipping = false;
	char *buf, *nl;
	ssize_t n;
	int ret = 0;

	buf = malloc(LINE_MAX_BYTES + 1);
	if (!buf)
		return -ENOMEM;
	while (!ret) {
		n = read(fd, buf + have, LINE_MAX_BYTES - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		have += (size_t)n;
		start = 0;
		while (!ret && (nl = memchr(buf + start, '\n', have - start))) {
			*nl = '\0';
			if (!skipping)
				ret = one_line(buf + start, ++lineno, v, why, len);
			skipping = false;
			start = nl - buf + 1;
		}
		if (ret)
			break;
		if (!n) {
			buf[have] = '\0';
			if (start < have && !skipping)
				ret = one_line(buf + start, ++lineno, v, why, len);
			break;
		}
		if (!start && have == LINE_MAX_BYTES) {
			buf[have] = '\0';
			if (!skipping)
				ret = one_line(buf, ++lineno, v, why, len);
			skipping = true;
			have = 0;
			continue;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
	}
	free(buf);
	return ret;
}

/* The first line of @fd from its start, escaped, into @why. */
static void first_line(int fd, char *why, size_t len)
{
	char buf[512], *nl, *e;
	ssize_t n;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0) {
		iop_why(why, len, "scripts/tap-verdict.awk failed without a reason");
		return;
	}
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	e = iop_esc_dup(buf);
	iop_why(why, len, "scripts/tap-verdict.awk: %s", e ? e : "failed");
	free(e);
}

int iop_verdict_run(const char *top, const char *kernel, const char *known,
		    const char *req, const char *features, const char *tap,
		    struct iop_verdict *v, char *why, size_t len)
{
	return iop_verdict_run_opts(top, kernel, known, req, features, tap, NULL, v, why, len);
}

int iop_verdict_run_opts(const char *top, const char *kernel, const char *known,
			 const char *req, const char *features, const char *tap,
			 const struct iop_verdict_opts *opts,
			 struct iop_verdict *v, char *why, size_t len)
{
	char awk[PATH_MAX], vk[512], vtag[128], vres[128], vstart[64], vend[64];
	const char *argv[24];
	int out[2], err_fd, status, ret, argc = 0;
	pid_t pid;

	if (!top || !tap || !v)
		return -EINVAL;
	if ((size_t)snprintf(awk, sizeof(awk), "%s/scripts/tap-verdict.awk", top) >= sizeof(awk) ||
	    (size_t)snprintf(vk, sizeof(vk), "kernel=%s", kernel ? kernel : "") >= sizeof(vk) ||
	    (size_t)snprintf(vtag, sizeof(vtag), "tag=%s",
			     opts && opts->tag ? opts->tag : "iopath") >= sizeof(vtag) ||
	    (size_t)snprintf(vres, sizeof(vres), "result=%s",
			     opts && opts->result ? opts->result : "IOPATH-RESULT") >= sizeof(vres)) {
		iop_why(why, len, "tap-verdict.awk: an argument too long");
		return -ENAMETOOLONG;
	}
	argv[argc++] = "awk";
	argv[argc++] = "-v";
	argv[argc++] = vk;
	argv[argc++] = "-v";
	argv[argc++] = vtag;
	argv[argc++] = "-v";
	argv[argc++] = vres;
	if (opts && opts->coverage) {
		argv[argc++] = "-v";
		argv[argc++] = "coverage=1";
	}
	if (opts && opts->start && opts->end) {
		snprintf(vstart, sizeof(vstart), "start=%s", opts->start);
		snprintf(vend, sizeof(vend), "end=%s", opts->end);
		argv[argc++] = "-v";
		argv[argc++] = vstart;
		argv[argc++] = "-v";
		argv[argc++] = vend;
	}
	argv[argc++] = "-f";
	argv[argc++] = awk;
	argv[argc++] = known ? known : "/dev/null";
	argv[argc++] = req ? req : "/dev/null";
	argv[argc++] = features ? features : "/dev/null";
	argv[argc++] = tap;
	argv[argc] = NULL;

	/* stderr into an anonymous file: a pipe could fill while stdout is read. */
	err_fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (err_fd < 0) {
		ret = -errno;
		iop_why(why, len, "a temporary file for tap-verdict.awk: %s", strerror(-ret));
		return ret;
	}
	if (pipe2(out, O_CLOEXEC)) {
		ret = -errno;
		close(err_fd);
		iop_why(why, len, "pipe: %s", strerror(-ret));
		return ret;
	}
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		iop_why(why, len, "fork: %s", strerror(-ret));
		goto out_close;
	}
	if (!pid) {
		int null = open("/dev/null", O_RDONLY);

		if (null < 0 || dup2(null, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err_fd, 2) < 0)
			_exit(127);
		execvp("awk", (char *const *)argv);
		_exit(127);
	}
	close(out[1]);
	out[1] = -1;
	ret = read_lines(out[0], v, why, len);
	close(out[0]);
	out[0] = -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			status = -1;
			break;
		}
	if (ret)
		goto out_close;
	if (!WIFEXITED(status) || WEXITSTATUS(status) > 2 ||
	    (WEXITSTATUS(status) < 2 && !v->have_result)) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			iop_why(why, len, "awk could not be run (is it installed?)");
		else
			first_line(err_fd, why, len);
		ret = -EIO;
	} else if (WEXITSTATUS(status) == 2) {
		first_line(err_fd, why, len);
		ret = -EINVAL;
	}
out_close:
	if (out[0] >= 0)
		close(out[0]);
	if (out[1] >= 0)
		close(out[1]);
	close(err_fd);
	return ret;
}
