// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath cleanup: remove what a crashed or killed run left behind (mounts,
 * loop and zram devices, backing files, trace instances), found by the
 * iopath tag. Resources of a run that is still alive are left alone unless
 * --all is given. The roots a killed scripts/fresh-root.sh left in
 * /var/tmp (and their mounts, and the processes in them) go by that
 * script's own sweep, which knows which runs are dead.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "iopath.h"

static void report(const char *what, void *arg)
{
	(void)arg;
	fprintf(stderr, "iopath: cleanup: removed %s\n", what);
}

static int cmd_cleanup(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool all = false;
	int n, opt;
	glob_t g;

	optind = 0;
	while ((opt = iop_getopt(argc, argv, "cleanup", "h", longopts)) != -1) {
		switch (opt) {
		case 'a':
			all = true;
			break;
		case 'h':
			printf("usage: iopath cleanup [--all]\n"
			       "Remove leftovers of dead iopath runs; --all also those of live runs.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (optind < argc)
		return iop_usage_error("cleanup", "takes no operands ('%s')", argv[optind]);
	if (geteuid() != 0) {
		fprintf(stderr, "iopath: cleanup: must run as root\n");
		return 1;
	}
	n = iop_cleanup(all, report, NULL);
	if (n < 0) {
		fprintf(stderr, "iopath: cleanup: %s\n", strerror(-n));
		return 1;
	}
	fprintf(stderr, "iopath: cleanup: %d leftover%s removed\n", n, n == 1 ? "" : "s");
	if (!glob("/var/tmp/iopath-fresh.*", GLOB_NOSORT, NULL, &g)) {
		char *sweep[] = { argv[0], "--sweep", NULL };

		globfree(&g);
		fflush(NULL);
		return iop_exec_script("cleanup", "fresh-root.sh", 2, sweep);
	}
	return 0;
}

IOP_COMMAND("cleanup", "remove mounts, devices and trace instances left by dead runs", cmd_cleanup)
