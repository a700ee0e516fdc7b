// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath: the command-line front end. Subcommands live in cli/cmd_NAME.c or
 * cli/NAME/ and register themselves; this file only dispatches.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "iopath.h"

static void help(FILE *f)
{
	fprintf(f, "usage: iopath <command> [options]   (iopath <command> --help)\n\n");
	for (const struct iop_cmd *c = iop_cmd_first(); c; c = c->next)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
}

int main(int argc, char **argv)
{
	const struct iop_cmd *cmd;

	if (argc < 2) {
		/* bad usage is one line, as in every subcommand */
		fprintf(stderr, "iopath: no command given (iopath help lists them)\n");
		return 2;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		help(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("iopath %s (%s)\n", IOPATH_VERSION, IOPATH_GIT);
		return 0;
	}
	cmd = iop_cmd_find(argv[1]);
	if (cmd)
		return cmd->run(argc - 1, argv + 1);
	fprintf(stderr, "iopath: unknown command '%s' (iopath help lists them)\n", argv[1]);
	return 2;
}
