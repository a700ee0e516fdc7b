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
