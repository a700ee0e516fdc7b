// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath ab: is kernel B faster than kernel A. Builds the two kernels from
 * one tree and a patch (or takes two), boots them interleaved under QEMU
 * with the benchmarks running inside each guest, and compares the sides
 * with the boot as the unit, in instructions under TCG icount or in wall
 * time under KVM. The work is done by scripts/ab.sh; this file only finds
 * the script and hands over the arguments, so the exit status is the
 * script's (0 a verdict, 1 a build, boot or benchmark failed, 2 bad usage
 * or input).
 */
#include "cli.h"

static int cmd_ab(int argc, char **argv)
{
	return iop_exec_script("ab", "ab.sh", argc, argv);
}

IOP_COMMAND("ab",
	    "kernel A/B: boot two kernels interleaved, benchmark in each, one verdict", cmd_ab)
