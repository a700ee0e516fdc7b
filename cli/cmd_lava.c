// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath lava: the selftests, iopath mutate's kernels and the benchmarks as
 * LAVA job definitions, and the verdict on a job's log through the same
 * scripts/tap-verdict.awk as iopath vm (docs/fleet.md). The work is done by
 * scripts/lava.py: the jobs and the logs are YAML and the job schema is
 * lava_common's, both Python; this file only finds the script and hands
 * over the arguments, so the exit status is the script's (0 passed or
 * written, 1 failed, 2 bad usage or input).
 */
#include "cli.h"

static int cmd_lava(int argc, char **argv)
{
	return iop_exec_script("lava", "lava.py", argc, argv);
}

IOP_COMMAND("lava", "LAVA jobs for a lab, and the verdict on their logs", cmd_lava)
