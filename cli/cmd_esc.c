// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath esc TEXT...: each TEXT as iop_esc() prints it (lib/quote.c), one
 * a line. The scripts put names, paths and lines of logs in their
 * messages; they escape them here, so that there is one escaper for the
 * terminal and a script's message reads as the C core's would.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "iopath.h"

static int cmd_esc(int argc, char **argv)
{
	int i = 1;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: iopath esc [--] TEXT...\n"
		       "Print each TEXT on a line of its own with its control characters (C0, DEL,\n"
		       "C1 in UTF-8) as \\xHH and a backslash as \\\\: what the scripts put in a\n"
		       "message can neither forge a line nor reach the terminal raw.\n");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--"))
		i++;
	if (i >= argc)
		return iop_usage_error("esc", "no TEXT to escape (iopath esc --help)");
	for (; i < argc; i++) {
		iop_esc(stdout, argv[i]);
		putchar('\n');
	}
	return fflush(stdout) ? 1 : 0;
}

IOP_COMMAND("esc", "print text with its control characters escaped, for the scripts' messages",
	    cmd_esc)
