// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath esc [--line] TEXT...: each TEXT as iop_esc() (or, --line,
 * iop_esc_line()) prints it (lib/quote.c), one a line. The scripts put
 * names, paths and lines of logs in their messages; they escape them
 * here, so that there is one escaper for the terminal and a script's
 * message reads as the C core's would. A line of iopath's own stderr is
 * escaped already: --line leaves it as it is.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "iopath.h"

static int cmd_esc(int argc, char **argv)
{
	bool line = false;
	int i = 1;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: iopath esc [--line] [--] TEXT...\n"
		       "Print each TEXT on a line of its own with its control characters (C0, DEL,\n"
		       "C1, the line separators and the bidirectional controls such as U+202E)\n"
		       "and every byte that is not UTF-8 as \\xHH, and a backslash as \\\\: what\n"
		       "the scripts put in a message can neither forge a line nor reach the\n"
		       "terminal raw.\n"
		       "  --line  each TEXT is a line of a message that may be escaped already\n"
		       "          (a line of iopath's own stderr): printed as it is unless it\n"
		       "          needs escaping, so that it is escaped once\n");
		return 0;
	}
	if (argc > i && !strcmp(argv[i], "--line")) {
		line = true;
		i++;
	}
	if (argc > i && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc)
		return iop_usage_error("esc", "no TEXT to escape (iopath esc --help)");
	for (; i < argc; i++) {
		if (line)
			iop_esc_line(stdout, argv[i]);
		else
			iop_esc(stdout, argv[i]);
		putchar('\n');
	}
	return fflush(stdout) ? 1 : 0;
}

IOP_COMMAND("esc", "print text with its control characters escaped, for the scripts' messages",
	    cmd_esc)
