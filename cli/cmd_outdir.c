// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath outdir [--check] DIR: DIR checked as a directory iopath writes
 * into, by lib/outfile.c's rule (iop_out_dir_check(): no control
 * character in the name, a directory that is no symbolic link, or absent
 * below an existing directory), made if missing, and its absolute path
 * printed. The scripts' --out options (scripts/lib/common.bash's out_dir)
 * ask here, so that a directory a script writes into follows the rule of
 * the C commands' (lava jobs --out, run --results), not one of its own.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "iopath.h"
#include "outfile.h"

static int cmd_outdir(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char why[PATH_MAX + 128], abs[PATH_MAX];
	bool check = false;
	int opt;

	optind = 0;
	while ((opt = iop_getopt(argc, argv, "outdir", "", opts)) != -1) {
		switch (opt) {
		case 'c':
			check = true;
			break;
		case 'h':
			printf("usage: iopath outdir [--check] [--] DIR\n"
			       "Check DIR as a directory iopath writes into: no control character in its\n"
			       "name, a writable directory that is not a symbolic link, or absent with its\n"
			       "parent a directory. Then make it if missing and print its absolute path\n"
			       "(--check: only check). Bad: one line, exit 2.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (argc - optind != 1)
		return iop_usage_error("outdir", "name one DIR (iopath outdir --help)");
	if (check ? iop_out_dir_check(argv[optind], why, sizeof(why)) :
	    iop_out_dir_make(argv[optind], why, sizeof(why)))
		return iop_usage_error("outdir", "%s", why);
	if (check)
		return 0;
	if (!realpath(argv[optind], abs)) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		iop_usage_error("outdir", "%s: %s", argv[optind], why);
		return 1;
	}
	if (!iop_out_name_ok(abs))
		return iop_usage_error("outdir", "%s: its absolute path holds a control character",
				       argv[optind]);
	printf("%s\n", abs);
	return fflush(stdout) ? 1 : 0;
}

IOP_COMMAND("outdir", "check and make a directory the scripts write into, by the C commands' rule",
	    cmd_outdir)
