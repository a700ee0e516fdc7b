// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath repro: run the minimal reproducer of each kernel bug the selftests
 * found (reproducers/, docs/kernel-bugs/) on a scratch filesystem, on the
 * running kernel or in a QEMU guest (--kernel), one line per bug. The work
 * is done by scripts/repro.sh, shell because each reproducer is a few
 * xfs_io invocations meant to be pasted into a bug report, and because the
 * same runner must work in the busybox guest of iopath vm. This file finds
 * the script and hands over the arguments (iop_exec_script() names this
 * binary, which makes the scratch filesystems, in IOPATH_BIN); the exit
 * status is the script's (0 every result as configs/known-failures
 * expects, 1 a difference or an error, 2 bad usage).
 */
#include "cli.h"

static int cmd_repro(int argc, char **argv)
{
	return iop_exec_script("repro", "repro.sh", argc, argv);
}

IOP_COMMAND("repro", "run the reproducers of the kernel bugs the selftests found", cmd_repro)
