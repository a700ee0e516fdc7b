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
	char script[PATH_MAX], self[PATH_MAX];
	char **args;
	ssize_t len;
	int n;

	n = snprintf(script, sizeof(script), "%s/scripts/repro.sh", iop_src_dir());
	if (n < 0 || (size_t)n >= sizeof(script))
		return iop_usage_error("repro", "source directory path too long");
	if (access(script, X_OK)) {
		fprintf(stderr, "iopath: repro: %s: %s (set IOPATH_SRC to the iopath source tree)\n",
			script, strerror(errno));
		return 1;
	}
	/* The scratch filesystems come from this binary's `scratch create`. */
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len > 0) {
		self[len] = '\0';
		if (setenv("IOPATH_BIN", self, 0)) {
			fprintf(stderr, "iopath: repro: %s\n", strerror(errno));
			return 1;
		}
	}

	/* argv[0] ("repro") becomes the script path; the rest is passed as is. */
	args = calloc((size_t)argc + 1, sizeof(*args));
	if (!args) {
		fprintf(stderr, "iopath: repro: %s\n", strerror(ENOMEM));
		return 1;
	}
	args[0] = script;
	for (int i = 1; i < argc; i++)
		args[i] = argv[i];
	fflush(NULL);
	execv(script, args);
	fprintf(stderr, "iopath: repro: cannot run %s: %s\n", script, strerror(errno));
	free(args);
	return 1;
}

IOP_COMMAND("repro", "run the reproducers of the kernel bugs the selftests found", cmd_repro)
