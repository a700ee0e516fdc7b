// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath verdict: the verdict engine (lib/tap.c) on a TAP file, as every
 * runner calls it (scripts/selftest-runner.sh through the collection's
 * static iopath_verdict, which takes the same command line).
 */
#include "cli.h"
#include "tap.h"

static int cmd_verdict(int argc, char **argv)
{
	return iop_tap_main(argc, argv, "iopath verdict");
}

IOP_COMMAND("verdict", "judge selftest TAP: known failures, required coverage, machine lines",
	    cmd_verdict)
