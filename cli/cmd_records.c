// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath records check: whether the records of one boot are what iopath
 * ab asked for, checked by the records reader every other consumer uses
 * (cli/shared_recset.c over lib/record.c): every record a valid one (finite
 * values, one clock domain), all from the kernel image of the side
 * (env.kernel.image_sha256), in the clock domain of the run, from one
 * boot, and that boot not one of the earlier boots' (--seen). scripts/ab.sh
 * runs it after each boot; nothing of the records is read in bash.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "iopath.h"
#include "shared_recset.h"

/* Most earlier boots a check takes: iopath ab runs at most 99 a side. */
#define SEEN_MAX 256

static void usage(FILE *f)
{
	fprintf(f, "usage: iopath records check --image-sha256 HEX --domain wall|instructions\n"
		   "                            [--seen FILE]... FILE\n"
		   "Check the records of one boot (FILE): valid records (iopath compare's\n"
		   "reader), every one from the kernel image with SHA-256 HEX, in the clock\n"
		   "domain given, all with one boot id that no record of a --seen FILE (the\n"
		   "records of an earlier boot) carries. Exit 0, or 2 with one line naming\n"
		   "the file, the line and the problem.\n");
}

static void say(const char *why)
{
	fputs("iopath: records: ", stderr);
	iop_esc_line(stderr, why);
	fputc('\n', stderr);
}

static int records_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "image-sha256", required_argument, NULL, 's' },
		{ "domain", required_argument, NULL, 'd' },
		{ "seen", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 }
	};
	const char *sha = NULL, *domain = NULL, *seen_path[SEEN_MAX];
	struct iop_rs_file f, *seen = NULL;
	size_t nseen = 0, nloaded = 0;
	char why[768];
	int opt, ret = 2;
	bool loaded = false;

	optind = 0;
	while ((opt = iop_getopt(argc, argv, "records", "h", longopts)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		case 's':
			if (strlen(optarg) != 64 || strspn(optarg, "0123456789abcdef") != 64)
				return iop_usage_error("records", "--image-sha256 '%s': expected 64 lowercase hex digits",
						       optarg);
			sha = optarg;
			break;
		case 'd':
			if (strcmp(optarg, "wall") && strcmp(optarg, "instructions"))
				return iop_usage_error("records", "--domain '%s': expected wall or instructions",
						       optarg);
			domain = optarg;
			break;
		case 'n':
			if (nseen == SEEN_MAX)
				return iop_usage_error("records", "more than %d --seen files", SEEN_MAX);
			seen_path[nseen++] = optarg;
			break;
		default:
			return 2;
		}
	}
	if (!sha || !domain)
		return iop_usage_error("records", "check needs --image-sha256 and --domain (iopath records --help)");
	if (argc - optind != 1)
		return iop_usage_error("records", "check takes one FILE, the records of one boot");

	seen = calloc(nseen ? nseen : 1, sizeof(*seen));
	if (!seen)
		return 1;
	if (iop_rs_load(&f, argv[optind], why, sizeof(why)) < 0) {
		say(why);
		goto out;
	}
	loaded = true;
	for (; nloaded < nseen; nloaded++) {
		if (iop_rs_load(&seen[nloaded], seen_path[nloaded], why, sizeof(why)) < 0) {
			say(why);
			goto out;
		}
	}
	if (iop_rs_check_boot(&f, sha, domain, seen, nseen, why, sizeof(why))) {
		say(why);
		goto out;
	}
	ret = 0;
out:
	for (size_t i = 0; i < nloaded; i++)
		iop_rs_free(&seen[i]);
	if (loaded)
		iop_rs_free(&f);
	free(seen);
	return ret;
}

static int cmd_records(int argc, char **argv)
{
	if (argc < 2)
		return iop_usage_error("records", "no command: check (iopath records --help)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "check"))
		return iop_usage_error("records", "unknown '%s': the command is check (iopath records --help)",
				       argv[1]);
	return records_check(argc - 1, argv + 1);
}

IOP_COMMAND("records", "check the records of one boot of iopath ab (image, clock domain, boot id)",
	    cmd_records)
