// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: a mutant's VM run as iopath mutant classify, results and
 * stop read it (cli/mutant/mutant_classify.c: the verdict engine's machine lines
 * through lib/verdict.c, the diagnostic by their line ranges, vm.sh's
 * stop line). The input is a run's output: TAP, the reader's lines, a
 * result or a stop line. A finding is a crash, a sanitizer report, a byte
 * a terminal obeys in what they print, or a classification that is not
 * one "# IOPATH-MUTANT: class=C killers=... detail=..." line with C one
 * of mutate's classes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array_size.h"
#include "fuzz.h"
#include "quote.h"

static const char patch[] =
	"# Function: f()\n# Bug: b\n# Tests: fb_test a_test\n# Filter: a_test=-t one\n"
	"--- a/x\n+++ b/x\n";
static const char pristine_ok[] = "fb.xfs_1k.dio_past_eof\nfb.x.y\na.x.two\n";
static const char pristine_tests[] =
	"fb.xfs_1k.dio_past_eof\tfb_test\nfb.x.y\tfb_test\na.x.two\ta_test\nfb.x.gone\tfb_test\n";

static void finding(const char *what)
{
	fprintf(stderr, "mutant_classify: %s\n", what);
	abort();
}

/* The classification iopath mutant classify printed into @fd, checked. */
static void check_line(int fd)
{
	static const char *const classes[] = {
		"killed ", "crash ", "survived ", "equivalent ", "unstable ",
	};
	static const char head[] = "# IOPATH-MUTANT: class=";
	char buf[16384], *nl, *p;
	struct stat st;
	ssize_t n;
	size_t k;

	if (fstat(fd, &st) || st.st_size <= 0 || st.st_size >= (off_t)sizeof(buf))
		finding("classify printed nothing, or more than a line");
	n = pread(fd, buf, (size_t)st.st_size, 0);
	if (n != st.st_size)
		return;
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	if (!nl || nl[1] || strncmp(buf, head, sizeof(head) - 1))
		finding("classify printed other than one machine line");
	p = buf + sizeof(head) - 1;
	for (k = 0; k < ARRAY_SIZE(classes); k++)
		if (!strncmp(p, classes[k], strlen(classes[k])))
			break;
	if (k == ARRAY_SIZE(classes))
		finding("a class that is none of mutate's");
	p += strlen(classes[k]);
	if (strncmp(p, "killers=", 8) || !strstr(p, " detail="))
		finding("no killers= and detail= in the classification");
	/* killers: names, no blank: the first blank starts detail= */
	if (strcspn(p, " ") != (size_t)(strstr(p, " detail=") - p))
		finding("a blank among the killers");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char run[64], mp[64], okp[64], tp[64], op[64];
	int fd, m, ok, t, out;

	fd = fuzz_file(data, size, run, sizeof(run));
	m = fuzz_file((const uint8_t *)patch, sizeof(patch) - 1, mp, sizeof(mp));
	ok = fuzz_file((const uint8_t *)pristine_ok, sizeof(pristine_ok) - 1, okp, sizeof(okp));
	t = fuzz_file((const uint8_t *)pristine_tests, sizeof(pristine_tests) - 1, tp, sizeof(tp));
	if (fd < 0 || m < 0 || ok < 0 || t < 0)
		goto out;
	out = fuzz_file(NULL, 0, op, sizeof(op));
	if (out >= 0) {
		const char *argv[] = {
			"mutant", "classify", "--pristine-ok", okp, "--pristine-tests", tp,
			"--pristine-runs", "1", "--pristine-clean", "1", "--crash-runs", "1",
			mp, run,
		};

		if (!fuzz_cmd_to(out, ARRAY_SIZE(argv), argv))
			check_line(out);
		fuzz_no_control(out, "iopath mutant classify");
		close(out);
	}
	out = fuzz_file(NULL, 0, op, sizeof(op));
	if (out >= 0) {
		const char *results[] = { "mutant", "results", run };
		const char *stop[] = { "mutant", "stop", run };

		fuzz_cmd_to(out, ARRAY_SIZE(results), results);
		fuzz_cmd_to(out, ARRAY_SIZE(stop), stop);
		/* results: tab-separated fields, a line each */
		fuzz_no_control_but(out, "\n\t", "iopath mutant results or stop");
		close(out);
	}
out:
	if (fd >= 0)
		close(fd);
	if (m >= 0)
		close(m);
	if (ok >= 0)
		close(ok);
	if (t >= 0)
		close(t);
	return 0;
}
