// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath repro: run the minimal reproducer of each kernel bug the selftests
 * found (reproducers/, docs/kernel-bugs/) on a scratch filesystem, on the
 * running kernel or in a QEMU guest (--kernel), one line per bug. The work
 * is done by scripts/repro.sh, shell because each reproducer is a few
 * xfs_io invocations meant to be pasted into a bug report, and because the
 * same runner must work in the busybox guest of iopath vm. This file finds
 * the script, tells it which iopath binary makes the scratch filesystems,
 * and hands over the arguments; the exit status is the script's (0 every
 * result as configs/known-failures expects, 1 a difference or an error, 2
 * bad usage).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static int cmd_repro(int argc, char **argv)
{
	char self[PATH_MAX];
	ssize_t len;

	/* The scratch filesystems come from this binary's `scratch create`. */
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len > 0) {
		self[len] = '\0';
		if (setenv("IOPATH_BIN", self, 0)) {
			fprintf(stderr, "iopath: repro: %s\n", strerror(errno));
			return 1;
		}
	}
	return iop_exec_script("repro", "repro.sh", argc, argv);
}

IOP_COMMAND("repro", "run the reproducers of the kernel bugs the selftests found", cmd_repro)
