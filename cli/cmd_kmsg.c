// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath kmsg: the kernel-log check of a whole run, for the runners.
 * Each selftest checks the log of its own window; a WARNING logged
 * between two tests, or by a teardown after the check, would be seen by
 * nobody. `iopath kmsg mark` writes a marker and prints its sequence
 * number; `iopath kmsg check SEQ` lists the bug reports the kernel logged
 * since (the patterns of lib/kmsg_patterns.h) and exits 1 if there is one.
 * `iopath kmsg scan [FILE]` applies the same classifier to a saved kernel
 * console (a QEMU guest's serial log), so that scripts/vm.sh has no copy of
 * the patterns or of their rules.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "iopath.h"
#include "quote.h"

/* A console line as text, through the one escaper (iop_esc()). */
static void print_escaped(const char *line)
{
	iop_esc(stdout, line);
	putchar('\n');
}

/* Print @line if it is a kernel bug report; 1 if it is. */
static int scan_line(char *line, size_t n)
{
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	if (memchr(line, '\0', n))
		return 0;	/* binary noise on the serial line */
	if (!iop_kmsg_line_is_bad(iop_kmsg_console_text(line)))
		return 0;
	print_escaped(iop_kmsg_console_text(line));
	return 1;
}

/*
 * A console line longer than this is no kernel line: the file is refused
 * rather than held in memory whole (a kernel line is under 1 KiB).
 */
#define KMSG_SCAN_LINE_MAX (1u << 20)

/*
 * Each line of @path that is a kernel bug report, printed without its
 * console prefix. Exit 1 if there is one, 0 if none, 2 if the file cannot
 * be read. Only a regular file is read (lib/input.c): a FIFO cannot block
 * the scan, /dev/zero cannot feed it without end.
 */
static int kmsg_scan_file(const char *path)
{
	struct iop_input in;
	char why[PATH_MAX + 128], *line;
	bool terminated;
	ssize_t n;
	int bad = 0;

	if (iop_input_open(&in, path, KMSG_SCAN_LINE_MAX, why, sizeof(why)))
		return iop_usage_error("kmsg", "scan %s", why);
	while ((n = iop_input_line(&in, &line, &terminated, why, sizeof(why))) >= 0)
		bad |= scan_line(line, (size_t)n);
	iop_input_close(&in);
	if (n != -ENODATA)
		return iop_usage_error("kmsg", "scan %s", why);
	return bad;
}

/* The same for standard input (a pipe): getline() holds one line at a time. */
static int kmsg_scan_stdin(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int bad = 0, err;

	while ((n = getline(&line, &cap, stdin)) >= 0)
		bad |= scan_line(line, (size_t)n);
	err = ferror(stdin) ? errno : 0;
	free(line);
	if (err) {
		fprintf(stderr, "iopath: kmsg: scan -: %s\n", strerror(err));
		return 2;
	}
	return bad;
}

static int cmd_kmsg(int argc, char **argv)
{
	struct iop_kmsg_mark m = { 0 };
	char first[512];
	int ret;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		printf("usage: iopath kmsg mark | iopath kmsg check SEQ | iopath kmsg scan [FILE]\n"
		       "mark: write a marker to /dev/kmsg, print its sequence number;\n"
		       "check: exit 1 if the kernel logged a bug report since SEQ;\n"
		       "scan: print the bug reports of a saved kernel console (FILE or stdin),\n"
		       "      exit 1 if there is one.\n");
		return 0;
	}
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "scan")) {
		if (argc == 3 && strcmp(argv[2], "-"))
			return kmsg_scan_file(argv[2]);
		return kmsg_scan_stdin();
	}
	if (argc == 2 && !strcmp(argv[1], "mark")) {
		ret = iop_kmsg_mark(&m, "run");
		if (ret) {
			fprintf(stderr, "iopath: kmsg: marker: %s%s\n", strerror(-ret),
				ret == -ENOENT ?
				" (the marker never reached the log: printk_devkmsg=off?)" : "");
			return 1;
		}
		printf("%" PRIu64 "\n", m.seq);
		return 0;
	}
	if (argc != 3 || strcmp(argv[1], "check"))
		return iop_usage_error("kmsg", "expected 'mark', 'check SEQ' or 'scan [FILE]' (iopath kmsg --help)");
	if (iop_parse_u64(argv[2], 0, UINT64_MAX, &m.seq))
		return iop_usage_error("kmsg", "check '%s': expected a sequence number from 'iopath kmsg mark'",
				       argv[2]);
	ret = iop_kmsg_scan(&m, first, sizeof(first));
	if (ret < 0) {
		fprintf(stderr, "iopath: kmsg: cannot read the kernel log: %s\n", strerror(-ret));
		return 1;
	}
	if (ret) {
		printf("%d kernel bug report%s in the log since the run began, first: %s\n", ret,
		       ret == 1 ? "" : "s", first);
		return 1;
	}
	return 0;
}

IOP_COMMAND("kmsg", "the kernel-log check of a whole run (mark, then check)", cmd_kmsg)
