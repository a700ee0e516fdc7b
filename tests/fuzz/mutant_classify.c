// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: a mutant's VM run as iopath mutant classify, results and
 * stop read it (cli/mutant/mutant_classify.c, lib/campaign_run.c: the
 * verdict engine's machine lines through lib/verdict.c, the diagnostic by
 * their line ranges, vm.sh's stop line), against a plan and a pristine
 * state of lib/campaign.h's format. The input is a run's output: TAP, the
 * reader's lines, a result or a stop line. A finding is a crash, a
 * sanitizer report, a byte a terminal obeys in what they print, or a
 * classification that is not one "# IOPATH-MUTANT: class=C killers=...
 * detail=..." line with C one of mutate's classes.
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

/* A mutant of "# Tests: fb_test a_test" and "# Filter: a_test=-t one". */
static const char plan[] =
	"{\"schema\": \"iopath-mutant-plan/1\", \"mutants_dir\": \"m\", \"all_tests\": false,"
	" \"append\": \"no_timer_check\", \"pristine\": {\"programs\": [\"a_test\", \"fb_test\"]},"
	" \"mutants\": [{\"name\": \"x\", \"patch\": \"m/x.patch\", \"function\": \"f()\","
	" \"equivalent\": null, \"generated\": null, \"programs\": [\"fb_test\", \"a_test\"],"
	" \"filters\": [{\"program\": \"a_test\", \"args\": \"-t one\"}]}]}\n";
static const char pristine[] =
	"{\"schema\": \"iopath-mutant-pristine/1\", \"programs\": [\"a_test\", \"fb_test\"],"
	" \"build_s\": 1, \"runs\": [{\"seconds\": 1, \"rc\": 0, \"stop\": \"\"}],"
	" \"tests\": [{\"name\": \"fb.xfs_1k.dio_past_eof\", \"program\": \"fb_test\"},"
	" {\"name\": \"fb.x.y\", \"program\": \"fb_test\"}, {\"name\": \"a.x.two\", \"program\": \"a_test\"},"
	" {\"name\": \"fb.x.gone\", \"program\": \"fb_test\"}],"
	" \"passing\": [\"fb.xfs_1k.dio_past_eof\", \"fb.x.y\", \"a.x.two\"]}\n";

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
	char run[64], pp[64], prp[64], op[64];
	int fd, p, pr, out;

	fd = fuzz_file(data, size, run, sizeof(run));
	p = fuzz_file((const uint8_t *)plan, sizeof(plan) - 1, pp, sizeof(pp));
	pr = fuzz_file((const uint8_t *)pristine, sizeof(pristine) - 1, prp, sizeof(prp));
	if (fd < 0 || p < 0 || pr < 0)
		goto out;
	out = fuzz_file(NULL, 0, op, sizeof(op));
	if (out >= 0) {
		const char *argv[] = {
			"mutant", "classify", "--plan", pp, "--pristine", prp, "--crash-runs", "1",
			"x", run,
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
	if (p >= 0)
		close(p);
	if (pr >= 0)
		close(pr);
	return 0;
}
