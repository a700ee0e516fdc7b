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

#include "number.h"
#include "tap.h"

static const char usage_text[] =
	"usage: %s [options] KNOWN-FAILURES REQUIREMENTS FEATURES TAP\n"
	"       %s --list [--kernel RELEASE] [--test NAME] KNOWN-FAILURES\n"
	"       %s --result-line [--result WORD] KEY=VALUE...\n"
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
	"                     one format\n";

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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct iop_tap_opts o = { 0 };
	const char *exit_status = NULL, *test = NULL;
	char why[1024] = "";
	struct iop_verdict v;
	bool do_list = false, do_result = false;
	uint64_t x;
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
		case 'h':
			printf(usage_text, prog, prog, prog);
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
	if (do_list)
		return argc - optind == 1 ? list(prog, o.kernel, test, argv[optind]) :
		       bad_usage(prog, "--list takes one KNOWN-FAILURES file", NULL);
	if (argc - optind != 4)
		return bad_usage(prog, "expected KNOWN-FAILURES REQUIREMENTS FEATURES TAP (--help)",
				 NULL);
	if (!o.program != !exit_status)
		return bad_usage(prog, "--program and --exit-status go together", NULL);
	if (exit_status) {
		if (iop_parse_u64(exit_status, 0, 255, &x))
			return bad_usage(prog, "--exit-status: not a status 0..255:", exit_status);
		o.exit_status = (int)x;
	}
	iop_verdict_init(&v);
	ret = iop_tap_judge(argv[optind], argv[optind + 1], argv[optind + 2], argv[optind + 3],
			    &o, &v, stdout, why, sizeof(why));
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
