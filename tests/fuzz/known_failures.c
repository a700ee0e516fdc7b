// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the known-failures list's reader (lib/tap_known.c), in
 * process, read the way make check and iopath run read it (a file, every
 * ERE checked and compiled), then the verdict engine on one harness
 * binary's output with a known failure in it, for kernels an entry can
 * name, cover by a range or have passed by. A finding is a crash, a
 * sanitizer report, a hang (libFuzzer's -timeout: an ERE whose matching
 * takes exponential time), or a list accepted whose verdict has no result
 * line.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array_size.h"
#include "fuzz.h"
#include "tap.h"

/* One harness binary's output: a pass, a listed failure, a skip. */
static const char *const tap[] = {
	"TAP version 13", "1..3",
	"#  RUN           fb.xfs.one ...",
	"# fb_test.c:342:one:after-test checks: fsck ran, kernel log ran",
	"ok 1 fb.xfs.one",
	"#  RUN           fb.xfs_1k.dio_past_eof ...",
	"# fb_test.c:417:dio_past_eof:Expected 0 (0) == r (-117)",
	"# fb_test.c:417:dio_past_eof:eof.000: cached byte 1000 is 0x53, expected 0x00",
	"#      FAIL  fb.xfs_1k.dio_past_eof",
	"not ok 2 fb.xfs_1k.dio_past_eof",
	"ok 3 fb.ext4.two # SKIP no loop device",
	"# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0",
};

static const char *const kernels[] = {
	"7.2.13+deb14-amd64", "6.12.118+deb12-amd64", "6.12.300-1-amd64", "6.1.0-57-amd64",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iop_tap_opts o = { .tag = "fuzz", .program = "fb_test", .exit_status = 1 };
	char path[64], why[512];
	struct iop_verdict v;
	struct iop_tap *t;
	struct iop_kf kf;
	size_t i, k;
	int fd;

	fd = fuzz_file(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	iop_kf_init(&kf);
	if (!iop_kf_read(&kf, path, why, sizeof(why))) {
		for (k = 0; k < ARRAY_SIZE(kernels); k++) {
			o.kernel = kernels[k];
			iop_verdict_init(&v);
			t = iop_tap_new(&o, &kf, &v, NULL);
			for (i = 0; t && i < ARRAY_SIZE(tap); i++)
				iop_tap_line(t, tap[i]);
			if (t && !iop_tap_end(t) && !v.have_result) {
				fprintf(stderr, "known_failures: no result line\n");
				abort();
			}
			iop_tap_free(t);
			iop_verdict_free(&v);
		}
	}
	iop_kf_free(&kf);
	close(fd);
	return 0;
}
