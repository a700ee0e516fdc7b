// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath patch check [--out COPY] PATCH: the patches the scripts apply to
 * a source tree as root (scripts/lib/kbuild.bash for iopath ab --patch
 * and the mutants of iopath mutate, scripts/mutate-tool.sh), read by
 * lib/patch.c before anything is applied. Prints the names of the tree
 * it touches (as patch -p1 takes them), sorted, one a line; with --out,
 * writes the copy patch(1) is to apply, made of what was read and
 * nothing else (lib/outfile.c: a new file renamed into place). A patch
 * that is not only changes to regular files inside the tree is one line
 * naming the problem, exit 2, and no COPY is written.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"
#include "patch.h"
#include "quote.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: iopath patch check [--out COPY] PATCH\n"
		   "Check that PATCH, a unified diff, only changes regular files inside a tree:\n"
		   "no symbolic link or submodule (mode 120000, 160000), no mode change, no\n"
		   "rename or copy, no absolute path or '.', '..' or empty component, no binary\n"
		   "patch, no line that is not part of a file's diff and could be read as one\n"
		   "(another diff format, a hunk longer or shorter than its \"@@\" line says).\n"
		   "Print the names it touches, as patch -p1 takes them, sorted, one a line;\n"
		   "with --out, write COPY: PATCH as it is to be applied, made only of what was\n"
		   "read (the headers of each file and its hunks). Exit 0, or 2 with one line\n"
		   "naming the line of PATCH and the problem.\n");
}

static void say(const char *why)
{
	fputs("iopath: patch: ", stderr);
	iop_esc(stderr, why);
	fputc('\n', stderr);
}

static int write_copy(const char *path, const struct iop_patch *p)
{
	char tmp[4096];
	size_t off = 0;
	int fd, ret;

	fd = iop_tmp_create(path, iop_out_mode(path), tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	while (off < p->text_len) {
		ssize_t n = write(fd, p->text + off, p->text_len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			close(fd);
			iop_tmp_discard(tmp);
			return ret;
		}
		off += (size_t)n;
	}
	if (fsync(fd) || close(fd)) {
		ret = -errno;
		iop_tmp_discard(tmp);
		return ret;
	}
	return iop_tmp_commit(tmp, path);
}

static int patch_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "out", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 }
	};
	const char *out = NULL;
	struct iop_patch p;
	char why[768];
	int opt, ret;

	optind = 0;
	while ((opt = iop_getopt(argc, argv, "patch", "h", longopts)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		case 'o':
			out = optarg;
			break;
		default:
			return 2;
		}
	}
	if (argc - optind != 1)
		return iop_usage_error("patch", "check takes one PATCH (iopath patch --help)");
	if (out && iop_out_check(out, why, sizeof(why))) {
		say(why);
		return 2;
	}
	if (iop_patch_read(argv[optind], &p, why, sizeof(why))) {
		say(why);
		return 2;
	}
	if (out) {
		ret = write_copy(out, &p);
		if (ret) {
			snprintf(why, sizeof(why), "--out %s: %s", out, strerror(-ret));
			say(why);
			iop_patch_free(&p);
			return 1;
		}
	}
	for (size_t i = 0; i < p.nnames; i++)
		printf("%s\n", p.names[i]);
	iop_patch_free(&p);
	return fflush(stdout) ? 1 : 0;
}

static int cmd_patch(int argc, char **argv)
{
	if (argc < 2)
		return iop_usage_error("patch", "no command: check (iopath patch --help)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "check"))
		return iop_usage_error("patch", "unknown '%s': the command is check (iopath patch --help)",
				       argv[1]);
	return patch_check(argc - 1, argv + 1);
}

IOP_COMMAND("patch", "check a patch for a source tree: regular files inside it only, names touched",
	    cmd_patch)
