// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath mutate: measure what the selftests catch. Each mutant of
 * configs/mutants/ (a small bug planted in a kernel source tree) is applied,
 * the kernel rebuilt and booted under QEMU with the selftests that can see
 * it, then reverted and classified (killed, killed by crash, survived, did
 * not build, equivalent); the result is a kill matrix. The work is done by
 * scripts/mutate.sh, a pipeline of patch, make and scripts/vm.sh; this file
 * only finds the script and hands over the arguments, so the exit status is
 * the script's (0 every non-equivalent mutant killed, 1 otherwise, 2 bad
 * usage or input).
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

static int cmd_mutate(int argc, char **argv)
{
	char script[PATH_MAX];
	char **args;
	int n;

	n = snprintf(script, sizeof(script), "%s/scripts/mutate.sh", iop_src_dir());
	if (n < 0 || (size_t)n >= sizeof(script))
		return iop_usage_error("mutate", "source directory path too long");
	if (access(script, X_OK)) {
		fprintf(stderr, "iopath: mutate: %s: %s (set IOPATH_SRC to the iopath source tree)\n",
			script, strerror(errno));
		return 1;
	}

	/* argv[0] ("mutate") becomes the script path; the rest is passed as is. */
	args = calloc((size_t)argc + 1, sizeof(*args));
	if (!args) {
		fprintf(stderr, "iopath: mutate: %s\n", strerror(ENOMEM));
		return 1;
	}
	args[0] = script;
	for (int i = 1; i < argc; i++)
		args[i] = argv[i];
	fflush(NULL);
	execv(script, args);
	fprintf(stderr, "iopath: mutate: cannot run %s: %s\n", script, strerror(errno));
	free(args);
	return 1;
}

IOP_COMMAND("mutate", "measure what the selftests catch with kernel mutants", cmd_mutate)
