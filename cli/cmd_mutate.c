// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath mutate: measure what the selftests catch. Each mutant of
 * configs/mutants/ (a small bug planted in a kernel source tree) is applied
 * in a tree of its own, the kernel rebuilt and booted under QEMU with the
 * selftests that can see it, then classified (killed, killed by crash,
 * survived, did not build, equivalent); the result is a kill matrix. The work is done by
 * scripts/mutate.sh, a pipeline of patch, make and scripts/vm.sh; this file
 * only finds the script and hands over the arguments, so the exit status is
 * the script's (0 every non-equivalent mutant killed, 1 otherwise, 2 bad
 * usage or input).
 */
#include "cli.h"

static int cmd_mutate(int argc, char **argv)
{
	return iop_exec_script("mutate", "mutate.sh", argc, argv);
}

IOP_COMMAND("mutate", "measure what the selftests catch with kernel mutants", cmd_mutate)
