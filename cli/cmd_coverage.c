// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath coverage: which basic blocks of the kernel's file I/O fast path
 * the selftest collection executes, on a built small kernel booted under
 * QEMU TCG with the block-counting plugin. The work is done by
 * scripts/coverage.sh (the static blocks from the vmlinux, the boot) and
 * iopath tbprof coverage (the tables); this file only hands over the
 * arguments, so the exit status is the script's.
 */
#include "cli.h"

static int cmd_coverage(int argc, char **argv)
{
	return iop_exec_script("coverage", "coverage.sh", argc, argv);
}

IOP_COMMAND("coverage", "which fast-path basic blocks the selftests execute (QEMU TCG plugin)",
	    cmd_coverage)
