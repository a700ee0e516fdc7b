// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath kmsg: the kernel-log check of a whole run, for the runners.
 * Each selftest checks the log of its own window; a WARNING logged
 * between two tests, or by a teardown after the check, would be seen by
 * nobody. `iopath kmsg mark` writes a marker and prints its sequence
 * number; `iopath kmsg check SEQ` lists the bug reports the kernel logged
 * since (the patterns of lib/kmsg_patterns.h) and exits 1 if there is one.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "iopath.h"

static int cmd_kmsg(int argc, char **argv)
{
	struct iop_kmsg_mark m = { 0 };
	char first[512];
	int ret;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("usage: iopath kmsg mark | iopath kmsg check SEQ\n"
		       "mark: write a marker to /dev/kmsg, print its sequence number;\n"
		       "check: exit 1 if the kernel logged a bug report since SEQ.\n");
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "mark")) {
		ret = iop_kmsg_mark(&m, "run");
		if (ret) {
			fprintf(stderr, "iopath: kmsg: marker: %s%s\n", strerror(-ret),
				ret == -ENOENT ? " (the marker never reached the log: printk_devkmsg=off?)" : "");
			return 1;
		}
		printf("%" PRIu64 "\n", m.seq);
		return 0;
	}
	if (argc != 3 || strcmp(argv[1], "check"))
		return iop_usage_error("kmsg", "expected 'mark' or 'check SEQ' (iopath kmsg --help)");
	if (iop_parse_u64(argv[2], 0, UINT64_MAX, &m.seq))
		return iop_usage_error("kmsg", "check '%s': expected a sequence number from 'iopath kmsg mark'",
				       argv[2]);
	ret = iop_kmsg_scan(&m, first, sizeof(first));
	if (ret < 0) {
		fprintf(stderr, "iopath: kmsg: cannot read the kernel log: %s\n", strerror(-ret));
		return 1;
	}
	if (ret) {
		printf("%d kernel bug report%s in the log since the run began, first: %s\n", ret,
		       ret == 1 ? "" : "s", first);
		return 1;
	}
	return 0;
}

IOP_COMMAND("kmsg", "the kernel-log check of a whole run (mark, then check)", cmd_kmsg)
