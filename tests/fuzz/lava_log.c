// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the LAVA job log reader of iopath lava verdict
 * (cli/lava/lava_log.c: libyaml on each line, the lvl/msg entries, the guest's
 * marked console lines, LAVA's results). The input is a log, read as a
 * file the way the verdict reads it. Any result is fine (a log is
 * refused with a reason, or read); a crash, a hang, a leak, a sanitizer
 * report, or a control character in any text the verdict prints or
 * writes (console, TAP, notes, LAVA's error messages: all escaped by
 * iop_esc()) is a bug.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "lava/lava.h"
#include "quote.h"

static void no_control(const char *s, const char *what)
{
	size_t i;

	for (i = 0; s && s[i]; i++) {
		if (iop_is_control(s, i)) {
			fprintf(stderr, "fuzz: lava_log: a control character in %s\n", what);
			abort();
		}
	}
}

static void strv_no_control(const struct lava_strv *v, const char *what)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		no_control(v->s[i], what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lava_job job = { 0 };
	char path[64], why[512];
	int fd, ret;

	fd = fuzz_file(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	ret = lava_log_read(path, &job, why, sizeof(why));
	if (ret)
		no_control(why, "the reason");
	strv_no_control(&job.tap, "the TAP");
	strv_no_control(&job.console, "the console");
	strv_no_control(&job.features, "the features");
	strv_no_control(&job.bench, "the bench output");
	strv_no_control(&job.failures, "LAVA's failures");
	no_control(job.release, "the release");
	no_control(job.end, "the end line");
	no_control(job.guest_verdict, "the guest's verdict");
	no_control(job.job_error_type, "LAVA's error_type");
	no_control(job.job_error_msg, "LAVA's error_msg");
	lava_job_free(&job);
	close(fd);
	return 0;
}
