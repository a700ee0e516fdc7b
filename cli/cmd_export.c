// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath export --kcidb: a selftest run, a VM or LAVA run, a mutation matrix
 * or benchmark records as KernelCI report data (KCIDB v5.3), validated
 * against configs/kcidb/kcidb-io.schema.v5.3.json. The work is done by
 * scripts/export.py, since the validator is python3-jsonschema; this file
 * only finds the script and hands over the arguments, so the exit status
 * is the script's (0 written, 1 failed, 2 bad usage or input).
 */
#include "cli.h"

static int cmd_export(int argc, char **argv)
{
	return iop_exec_script("export", "export.py", argc, argv);
}

IOP_COMMAND("export", "results as KernelCI (KCIDB) report data", cmd_export)
