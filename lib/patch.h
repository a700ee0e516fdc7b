/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one reader of the patches iopath applies to a source tree as root
 * (iopath ab --patch and --patch-a, the mutants of iopath mutate and of
 * scripts/mutate-tool.sh). A patch may only change regular files inside
 * the tree: it is read whole, before anything is applied, and refused
 * with one reason if it makes a symbolic link or a submodule, changes a
 * mode, renames or copies, names a path that is absolute or has an empty,
 * '.' or '..' component, holds a binary patch, or has a line this reader
 * cannot place (a diff of another format, a hunk cut short or longer than
 * its "@@" line says). What patch(1) then applies is the copy written
 * here, holding only what was read: no preamble, no header this reader
 * did not check, so patch(1) cannot find in it anything that was not
 * decided on.
 */
#ifndef IOPATH_PATCH_H
#define IOPATH_PATCH_H

#include <stddef.h>

/* No line of a patch is longer (a line of source and its marker). */
#define IOP_PATCH_MAX_LINE 65536

struct iop_patch {
	char **names;		/* the tree's names it touches, as -p1 gives them */
	size_t nnames;		/* sorted (strcmp), each once */
	char *text;		/* the patch as it is to be applied */
	size_t text_len;
};

/*
 * Read the patch at @path (lib/input.c: a regular file, bounded) and
 * check it. Its text as it is to be applied goes to p->text: for each
 * file, its git header if it had one (the file mode of a new or deleted
 * regular file), its "---" and "+++" lines and its hunks, nothing else.
 * 0, or -EINVAL with "<path>:<line>: <what>" in @why (-errno with the
 * reason for a file that cannot be read).
 */
int iop_patch_read(const char *path, struct iop_patch *p, char *why, size_t len);

void iop_patch_free(struct iop_patch *p);

#endif
