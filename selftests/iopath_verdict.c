// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath_verdict: the verdict engine of iopath (lib/tap.c) as a static
 * program of the kselftest collection, installed beside iopath_probe, so
 * that a runner with no iopath binary (a fleet's board, a busybox guest)
 * judges the TAP as `iopath verdict` does. Not a test.
 */
#include "tap.h"

int main(int argc, char **argv)
{
	return iop_tap_main(argc, argv, "iopath_verdict");
}
