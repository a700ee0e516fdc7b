// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command line of the verdict engine (tap.h), shared by `iopath
 * verdict` and iopath_verdict, the static helper the kselftest collection
 * installs beside iopath_probe for a runner with no iopath binary (a
 * fleet's board, the VM guest's busybox /init): both take the same
 * options and give the same lines and exit status.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_size.h"
#include "number.h"
#include "tap.h"

static const char usage_text[] =
	"usage: %s [options] KNOWN-FAILURES REQUIREMENTS FEATURES TAP\n"
	"       %s --list [--kernel RELEASE] [--test NAME] KNOWN-FAILURES\n"
	"       %s --result-line [--result WORD] KEY=VALUE...\n"
	"       %s --read [--result WORD] [--fields KEY,... | --cases] FILE\n"
	"       %s --kinds TAG < RUNNER-OUTPUT\n"
	"The verdict on selftest TAP (run_kselftest.sh's output, or with --program\n"
	"one harness binary's): notes, a machine line per test and per program and\n"
	"the result line on stdout; exit 0 pass, 1 fail, 2 a malformed input line\n"
	"(one line on stderr naming FILE:LINE). /dev/null for a list: none.\n"
	"  --kernel RELEASE   the uname -r the known failures are judged for\n"
	"  --tag NAME         the notes say \"# NAME: ...\" (iopath)\n"
	"  --result WORD      the result line's word (IOPATH-RESULT)\n"
	"  --start S --end S  seconds (/proc/uptime): the result's seconds=\n"
	"  --program NAME --exit-status N   TAP is that one binary's output\n"
	"  --coverage         the coverage block of REQUIREMENTS among the notes\n"
	"  --list             check KNOWN-FAILURES and print the entries that\n"
	"                     cover RELEASE (all without --kernel), tab-separated:\n"
	"                     KERNEL TEST DIAGNOSTIC BUG LINE REASON; with --test,\n"
	"                     only those whose TEST-ERE matches NAME\n"
	"  --result-line      write the result line of counts a script made\n"
	"                     (status= passed= failed= known= skipped= programs=\n"
	"                     programs_failed= required_missing= stale_known=\n"
	"                     [seconds=], or --start and --end), checked, in the\n"
	"                     one format\n"
	"  --read             the one reader of the machine lines in FILE (this\n"
	"                     program's output, a runner's, a guest's TAP): its\n"
	"                     result line (the first; with --result, the first of\n"
	"                     that word) as KEY=VALUE lines: word, status, the\n"
	"                     counts, seconds when given; exit 0, 1 when FILE has\n"
	"                     no result line, 2 on a malformed machine line\n"
	"  --fields KEY,...   with --read: those values on one line, blank-\n"
	"                     separated, '-' for one the line does not hold\n"
	"  --cases            with --read: a line per test and per program, in\n"
	"                     order: \"case RESULT PROGRAM NAME[ BUG]\" and\n"
	"                     \"program RESULT PROGRAM[ timeout]\"; exit 0\n"
	"  --kinds TAG        each line of a runner's output on stdin as it comes,\n"
	"                     after the word of its kind: \"feature\" (\"# TAG:\n"
	"                     feature X\": X), \"note\" (\"# TAG: ...\"), \"result\" (a\n"
	"                     result line) or \"line\" (any other)\n";

/* "iopath: verdict: MSG" (the subcommand's form) or "iopath_verdict: MSG" */
static int bad_usage(const char *prog, const char *msg, const char *arg)
{
	const char *sp = strchr(prog, ' ');

	if (sp)
		fprintf(stderr, "%.*s: %s: ", (int)(sp - prog), prog, sp + 1);
	else
		fprintf(stderr, "%s: ", prog);
	fprintf(stderr, "%s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
	return 2;
}

static int list(const char *prog, const char *kernel, const char *test, const char *known)
{
	char why[1024] = "";
	struct iop_kf kf;
	int ret;

	iop_kf_init(&kf);
	ret = iop_kf_read(&kf, known, why, sizeof(why));
	if (ret) {
		fprintf(stderr, "%s\n", why[0] ? why : prog);
		return 2;
	}
	iop_kf_list(&kf, kernel, test, stdout);
	iop_kf_free(&kf);
	return fflush(stdout) ? 1 : 0;
}

/* "# WORD: KEY=VALUE..." of a script's counts, checked and written. */
static int result_line(const char *prog, const struct iop_tap_opts *o, int argc, char **argv)
{
	const char *word = o->result;
	struct iop_verdict v;
	char *in = NULL, *s, *out;
	double secs;
	int i, ret;

	if (asprintf(&in, "# %s:", word ? word : "IOPATH-RESULT") < 0)
		return 1;
	for (i = 0; i < argc; i++) {
		if (asprintf(&s, "%s %s", in, argv[i]) < 0) {
			free(in);
			return 1;
		}
		free(in);
		in = s;
	}
	iop_verdict_init(&v);
	ret = iop_verdict_parse_line(in, &v);
	free(in);
	if (ret != 1 || !v.have_result) {
		iop_verdict_free(&v);
		return bad_usage(prog, "--result-line: not a result line's WORD and KEY=VALUE words",
				 NULL);
	}
	/* --start and --end as the engine takes them: whole seconds between */
	if (o->end) {
		secs = strtod(o->end, NULL) - strtod(o->start ? o->start : "0", NULL);
		v.seconds = secs > 0 && secs < 1e15 ? (long)secs : 0;
	}
	ret = iop_verdict_fmt_result(&out, &v);
	iop_verdict_free(&v);
	if (ret)
		return 1;
	printf("%s\n", out);
	free(out);
	return fflush(stdout) ? 1 : 0;
}

/* The keys of a result line --read gives, in its order. */
static const char *const read_keys[] = {
	"word", "status", "passed", "failed", "known", "skipped", "programs",
	"programs_failed", "required_missing", "stale_known", "seconds", NULL
};

/* @key's value in @v's result line, in @buf; NULL for a key it does not hold. */
static const char *result_value(const struct iop_verdict *v, const char *key, char *buf,
				size_t len)
{
	const unsigned int counts[] = {
		v->passed, v->failed, v->known, v->skipped, v->programs, v->programs_failed,
		v->required_missing, v->stale_known
	};
	size_t i;

	if (!strcmp(key, "word"))
		return v->result_word;
	if (!strcmp(key, "status"))
		return v->status;
	if (!strcmp(key, "seconds")) {
		if (v->seconds < 0)
			return NULL;
		snprintf(buf, len, "%ld", v->seconds);
		return buf;
	}
	for (i = 2; read_keys[i] && strcmp(read_keys[i], key); i++)
		;
	if (!read_keys[i] || i - 2 >= ARRAY_SIZE(counts))
		return NULL;
	snprintf(buf, len, "%u", counts[i - 2]);
	return buf;
}

/* --cases: each test's and program's line as it is read. */
static void print_test(void *arg, const struct iop_verdict *v, enum iop_verdict_kind kind)
{
	const struct iop_program *p;
	const struct iop_case *c;

	(void)arg;
	if (kind == IOP_VERDICT_CASE) {
		c = &v->cases[v->ncases - 1];
		printf("case %s %s %s%s%s\n", c->result, c->program, c->name, c->bug[0] ? " " : "",
		       c->bug);
	} else if (kind == IOP_VERDICT_PROGRAM) {
		p = &v->progs[v->nprogs - 1];
		printf("program %s %s%s\n", p->result, p->program, p->timed_out ? " timeout" : "");
	}
}

/* @fields' keys ("a,b,c"), each one --read knows: 0, or the one it does not. */
static const char *unknown_field(const char *fields, char *bad, size_t len)
{
	const char *p = fields, *e;
	size_t i, n;

	for (;;) {
		e = strchr(p, ',');
		n = e ? (size_t)(e - p) : strlen(p);
		for (i = 0; read_keys[i]; i++)
			if (strlen(read_keys[i]) == n && !strncmp(read_keys[i], p, n))
				break;
		if (!read_keys[i] || !n) {
			snprintf(bad, len, "%.*s", (int)n, p);
			return bad;
		}
		if (!e)
			return NULL;
		p = e + 1;
	}
}

/*
 * --read: the one reader of the machine lines, for the scripts, which
 * never take a line apart themselves. Exit 0, 1 (no result line), 2.
 */
static int read_lines(const char *prog, const char *word, const char *fields, bool per_test,
		      const char *path)
{
	char why[1024] = "", buf[32], bad[64];
	const char *val, *p, *e;
	struct iop_verdict v;
	size_t i, n;
	int ret;

	if (fields && unknown_field(fields, bad, sizeof(bad)))
		return bad_usage(prog, "--fields: no such key:", bad);
	if (word && strlen(word) >= sizeof(v.want_word))
		return bad_usage(prog, "--result: too long a word:", word);
	iop_verdict_init(&v);
	if (word)
		strcpy(v.want_word, word);
	ret = iop_verdict_read(path, &v, per_test ? print_test : NULL, NULL, why, sizeof(why));
	if (ret) {
		fflush(stdout);
		fprintf(stderr, "%s\n", why[0] ? why : strerror(-ret));
		iop_verdict_free(&v);
		return 2;
	}
	ret = v.have_result || per_test ? 0 : 1;
	for (p = fields; v.have_result && p; p = e ? e + 1 : NULL) {
		e = strchr(p, ',');
		n = e ? (size_t)(e - p) : strlen(p);
		snprintf(bad, sizeof(bad), "%.*s", (int)n, p);
		val = result_value(&v, bad, buf, sizeof(buf));
		printf("%s%s", p == fields ? "" : " ", val ? val : "-");
		if (!e)
			putchar('\n');
	}
	for (i = 0; !fields && !per_test && v.have_result && read_keys[i]; i++) {
		val = result_value(&v, read_keys[i], buf, sizeof(buf));
		if (val)
			printf("%s=%s\n", read_keys[i], val);
	}
	iop_verdict_free(&v);
	return fflush(stdout) ? 2 : ret;
}

/*
 * --kinds: a runner's output, streamed (a guest whose job is cut short
 * keeps what ran), each line after the word of its kind, for a script
 * that sends each kind its own way and never tells them apart itself.
 */
static int line_kinds(const char *tag)
{
	size_t cap = 0, tl = strlen(tag);
	struct iop_verdict v;
	char *line = NULL;
	const char *kind;
	ssize_t n;
	bool res;

	while ((n = getline(&line, &cap, stdin)) >= 0) {
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		/* A NUL byte would end the line early: it reads '?'. */
		while (strlen(line) < (size_t)n)
			line[strlen(line)] = '?';
		iop_verdict_init(&v);
		res = iop_verdict_parse_line(line, &v) == 1 && v.have_result;
		iop_verdict_free(&v);
		kind = "line";
		if (res) {
			kind = "result";
		} else if (!strncmp(line, "# ", 2) && !strncmp(line + 2, tag, tl) &&
			   !strncmp(line + 2 + tl, ": ", 2)) {
			kind = "note";
			if (!strncmp(line + 4 + tl, "feature ", 8)) {
				kind = "feature";
				memmove(line, line + 12 + tl, strlen(line + 12 + tl) + 1);
			}
		}
		printf("%s %s\n", kind, line);
		if (fflush(stdout))
			break;
	}
	free(line);
	return ferror(stdin) || ferror(stdout) ? 2 : 0;
}

/*
 * --start and --end are /proc/uptime readings the scripts took: a number
 * of seconds, the end not before the start. -ERANGE names --start, -EINVAL
 * --end, -EDOM the pair.
 */
static int check_times(const struct iop_tap_opts *o)
{
	double start = 0, end = 0;

	if (o->start && iop_parse_real(o->start, 0, 1e9, &start))
		return -ERANGE;
	if (o->end && iop_parse_real(o->end, 0, 1e9, &end))
		return -EINVAL;
	return o->start && o->end && end < start ? -EDOM : 0;
}

/* The verdict on the TAP of @files (KNOWN REQUIREMENTS FEATURES TAP). Exit status. */
static int judge(const char *prog, struct iop_tap_opts *o, const char *exit_status,
		 char *const *files)
{
	char why[1024] = "";
	struct iop_verdict v;
	uint64_t x;
	int ret;

	if (!o->program != !exit_status)
		return bad_usage(prog, "--program and --exit-status go together", NULL);
	if (exit_status) {
		if (iop_parse_u64(exit_status, 0, 255, &x))
			return bad_usage(prog, "--exit-status: not a status 0..255:", exit_status);
		o->exit_status = (int)x;
	}
	iop_verdict_init(&v);
	ret = iop_tap_judge(files[0], files[1], files[2], files[3], o, &v, stdout, why,
			    sizeof(why));
	if (fflush(stdout) && !ret)
		ret = -EIO;
	if (ret) {
		fprintf(stderr, "%s\n", why[0] ? why : strerror(-ret));
		iop_verdict_free(&v);
		return 2;
	}
	ret = strcmp(v.status, "pass") ? 1 : 0;
	iop_verdict_free(&v);
	return ret;
}

int iop_tap_main(int argc, char **argv, const char *prog)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "tag", required_argument, NULL, 't' },
		{ "result", required_argument, NULL, 'r' },
		{ "start", required_argument, NULL, 's' },
		{ "end", required_argument, NULL, 'e' },
		{ "program", required_argument, NULL, 'p' },
		{ "exit-status", required_argument, NULL, 'x' },
		{ "coverage", no_argument, NULL, 'c' },
		{ "list", no_argument, NULL, 'l' },
		{ "test", required_argument, NULL, 'T' },
		{ "result-line", no_argument, NULL, 'R' },
		{ "read", no_argument, NULL, 'm' },
		{ "fields", required_argument, NULL, 'f' },
		{ "cases", no_argument, NULL, 'C' },
		{ "kinds", required_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct iop_tap_opts o = { 0 };
	const char *exit_status = NULL, *test = NULL, *fields = NULL, *kinds = NULL;
	bool do_list = false, do_result = false, do_read = false, per_test = false;
	int c, ret;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			o.kernel = optarg;
			break;
		case 't':
			o.tag = optarg;
			break;
		case 'r':
			o.result = optarg;
			break;
		case 's':
			o.start = optarg;
			break;
		case 'e':
			o.end = optarg;
			break;
		case 'p':
			o.program = optarg;
			break;
		case 'x':
			exit_status = optarg;
			break;
		case 'c':
			o.coverage = true;
			break;
		case 'l':
			do_list = true;
			break;
		case 'T':
			test = optarg;
			break;
		case 'R':
			do_result = true;
			break;
		case 'm':
			do_read = true;
			break;
		case 'f':
			fields = optarg;
			break;
		case 'C':
			per_test = true;
			break;
		case 'K':
			kinds = optarg;
			break;
		case 'h':
			printf(usage_text, prog, prog, prog, prog, prog);
			return 0;
		default:
			return bad_usage(prog, optopt ? "an option needs a value or is unknown:" :
					 "unknown option", argv[optind - 1]);
		}
	}
	ret = check_times(&o);
	if (ret)
		return bad_usage(prog, ret == -EDOM ? "--end before --start:" :
				 "--start/--end: not seconds 0..1e9 of /proc/uptime:",
				 ret == -ERANGE ? o.start : o.end);
	if (do_result)
		return result_line(prog, &o, argc - optind, argv + optind);
	if (kinds)
		return argc == optind ? line_kinds(kinds) :
		       bad_usage(prog, "--kinds reads stdin, no FILE", NULL);
	if ((fields || per_test) && !do_read)
		return bad_usage(prog, "--fields and --cases go with --read", NULL);
	if (do_read)
		return fields && per_test ? bad_usage(prog, "--fields or --cases, not both", NULL) :
		       argc - optind == 1 ? read_lines(prog, o.result, fields, per_test, argv[optind]) :
		       bad_usage(prog, "--read takes one FILE", NULL);
	if (do_list)
		return argc - optind == 1 ? list(prog, o.kernel, test, argv[optind]) :
		       bad_usage(prog, "--list takes one KNOWN-FAILURES file", NULL);
	if (argc - optind != 4)
		return bad_usage(prog, "expected KNOWN-FAILURES REQUIREMENTS FEATURES TAP (--help)",
				 NULL);
	return judge(prog, &o, exit_status, argv + optind);
}
