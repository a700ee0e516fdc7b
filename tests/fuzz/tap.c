// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the verdict engine (lib/tap.c, lib/tap_known.c), in
 * process, with coverage. The input's first byte picks the mode (one
 * harness binary's output or run_kselftest.sh's, its exit status, the
 * coverage block) and the kernel (a release an entry names, one inside a
 * range, one past a fix, none); the rest is a known-failures list and,
 * after a line "=====", the TAP. A finding is a crash, a sanitizer report,
 * a verdict without its result line, a result whose counts do not add up
 * (known failures excused in a failed program, tests counted twice), or a
 * machine line the engine wrote that its own reader refuses.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "tap.h"

static void finding(const char *what)
{
	fprintf(stderr, "tap: %s\n", what);
	abort();
}

/* Each line of [s, e) to the list; 0, or the list was refused. */
static int list_lines(struct iop_kf *kf, char *s, char *e)
{
	unsigned long n = 0;
	char why[256], *nl;

	for (; s < e; s = nl + 1) {
		nl = memchr(s, '\n', (size_t)(e - s));
		if (!nl)
			nl = e;
		*nl = '\0';
		if (iop_kf_add_line(kf, s, ++n, why, sizeof(why)))
			return -1;
	}
	return 0;
}

static const char *const kernels[] = {
	"7.2.13+deb14-amd64", "6.12.119+deb12-amd64", "6.12.200+deb12-amd64",
	"6.1.0-57-amd64", "6.18.44-fc-v1147", "", "7.2.13-dirty", "fuzz",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iop_tap_opts o = { .tag = "fuzz" };
	char *in, *tap, *e, *nl;
	struct iop_verdict v;
	struct iop_tap *t;
	struct iop_kf kf;
	uint8_t mode;

	if (!size)
		return 0;
	mode = data[0];
	in = malloc(size);
	if (!in)
		return 0;
	memcpy(in, data + 1, size - 1);
	e = in + size - 1;
	tap = memmem(in, size - 1, "=====\n", 6);
	if (!tap)
		tap = in;
	o.kernel = kernels[mode & 7];
	o.coverage = mode & 8;
	if (mode & 16) {
		o.program = "fb_test";
		o.exit_status = (mode & 32) ? 124 : (mode >> 6);
	}
	iop_kf_init(&kf);
	iop_verdict_init(&v);
	if (tap > in && list_lines(&kf, in, tap)) {
		iop_kf_free(&kf);
		free(in);
		return 0;
	}
	if (tap > in)
		tap += 6;
	t = iop_tap_new(&o, &kf, &v, NULL);
	if (!t)
		goto out;
	iop_tap_requirement(t, "fb-path  ^fb\\.xfs\\.(one|two)$  xfs_reflink", NULL, 0);
	iop_tap_feature(t, "xfs_reflink yes");
	for (; tap < e; tap = nl + 1) {
		nl = memchr(tap, '\n', (size_t)(e - tap));
		if (!nl)
			nl = e;
		*nl = '\0';
		if (iop_tap_line(t, tap))
			break;
	}
	if (!iop_tap_end(t)) {
		if (!v.have_result && v.ncases < IOP_VERDICT_MAX_CASES)
			finding("no result line");
		if (!strcmp(v.status, "pass") && (v.failed || !v.programs))
			finding("a pass with failures or no program");
		if (v.programs_failed > v.programs)
			finding("more programs failed than ran");
	}
	iop_tap_free(t);
out:
	iop_verdict_free(&v);
	iop_kf_free(&kf);
	free(in);
	return 0;
}
