// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath vm: run the selftests against another kernel (a bzImage, a Debian
 * kernel .deb or a Debian package name) under QEMU. The work is done by
 * scripts/vm.sh, which is shell because it is a pipeline of apt-get,
 * dpkg-deb, depmod, cpio and qemu-system-x86_64; this file only finds the
 * script and hands over the arguments, so the exit status is the script's
 * (0 passed, 1 failed or no result, 2 bad usage or input).
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

static int cmd_vm(int argc, char **argv)
{
	char script[PATH_MAX];
	char **args;
	int n;

	n = snprintf(script, sizeof(script), "%s/scripts/vm.sh", iop_src_dir());
	if (n < 0 || (size_t)n >= sizeof(script))
		return iop_usage_error("vm", "source directory path too long");
	if (access(script, X_OK)) {
		fprintf(stderr, "iopath: vm: %s: %s (set IOPATH_SRC to the iopath source tree)\n",
			script, strerror(errno));
		return 1;
	}

	/* argv[0] ("vm") becomes the script path; the rest is passed as is. */
	args = calloc((size_t)argc + 1, sizeof(*args));
	if (!args) {
		fprintf(stderr, "iopath: vm: %s\n", strerror(ENOMEM));
		return 1;
	}
	args[0] = script;
	for (int i = 1; i < argc; i++)
		args[i] = argv[i];
	fflush(NULL);
	execv(script, args);
	fprintf(stderr, "iopath: vm: cannot run %s: %s\n", script, strerror(errno));
	free(args);
	return 1;
}

IOP_COMMAND("vm", "run the selftests against another kernel under QEMU", cmd_vm)
