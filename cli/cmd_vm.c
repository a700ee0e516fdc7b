// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath vm: run the selftests against another kernel (a bzImage, a Debian
 * kernel .deb or a Debian package name) under QEMU. The work is done by
 * scripts/vm.sh, which is shell because it is a pipeline of apt-get,
 * dpkg-deb, depmod, cpio and qemu-system-x86_64; this file only finds the
 * script and hands over the arguments, so the exit status is the script's
 * (0 passed, 1 failed or no result, 2 bad usage or input).
 */
#include "cli.h"

static int cmd_vm(int argc, char **argv)
{
	return iop_exec_script("vm", "vm.sh", argc, argv);
}

IOP_COMMAND("vm", "run the selftests against another kernel under QEMU", cmd_vm)
