/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of iopath mutant (cli/mutant/cmd_mutant.c, cli/mutant/mutant_*.c)
 * share.
 */
#ifndef IOPATH_MUTANT_INT_H
#define IOPATH_MUTANT_INT_H

/* ---- what every part uses (cli/mutant/mutant_common.c) ---- */

/* "iopath: mutant: WHY" (iop_esc_line(): escaped once) on stderr; returns 2. */
int iop_mutant_error(const char *why);

/* ---- the lines a coverage run executed (cli/mutant/mutant_lines.c) ---- */

#include <stdbool.h>
#include <stddef.h>

struct iop_exec_line {
	const char *file;
	unsigned int line;
	bool ran;
};

struct iop_exec_lines {
	struct iop_exec_line *l;	/* sorted by file, then line */
	size_t n;
};

/* iopath coverage's lines.tsv: 0, or -EINVAL with "PATH:LINE: what" in @why. */
int iop_exec_lines_read(const char *path, struct iop_exec_lines *el, char *why, size_t len);

/*
 * Of the lines @first to @last of @file: 1 when one of them ran, 0 when
 * some have instructions and none ran, -1 when none has instructions.
 */
int iop_exec_lines_state(const struct iop_exec_lines *el, const char *file, unsigned int first,
			 unsigned int last);

void iop_exec_lines_free(struct iop_exec_lines *el);

/* ---- the subcommands ---- */

/* iopath mutant generate (cli/mutant/mutant_generate.c); argv[0] is "generate". */
int iop_mutant_generate(int argc, char **argv);

/* iopath mutant matrix (cli/mutant/mutant_matrix.c); argv[0] is "matrix". */
int iop_mutant_matrix(int argc, char **argv);

/*
 * iopath mutant classify, results and stop (cli/mutant/mutant_classify.c);
 * argv[0] is the subcommand.
 */
int iop_mutant_runs(int argc, char **argv);

/*
 * iopath mutant plan, args, pristine, covers, record, class and convert
 * (cli/mutant/mutant_campaign.c); argv[0] is the subcommand. -1 for another.
 */
int iop_mutant_campaign(int argc, char **argv);

#endif
