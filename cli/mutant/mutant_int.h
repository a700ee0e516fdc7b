/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of iopath mutant (cli/mutant/cmd_mutant.c, cli/mutant/mutant_*.c)
 * share.
 */
#ifndef IOPATH_MUTANT_INT_H
#define IOPATH_MUTANT_INT_H

#include <stdbool.h>
#include <stddef.h>

/* ---- what every part uses (cli/mutant/mutant_common.c) ---- */

/* "iopath: mutant: WHY" (iop_esc_line(): escaped once) on stderr; returns 2. */
int iop_mutant_error(const char *why);

/*
 * The mutants of @dir (*.patch, in name order) into @names (malloc, the
 * names without .patch): each name [A-Za-z0-9._-], each header read and
 * checked (iop_mutant_check()). 0, or -errno with one line in @why.
 */
int iop_mutant_scan(const char *dir, char ***names, size_t *count, char *why, size_t len);

void iop_mutant_names_free(char **names, size_t count);

/* Whether @s is a mutant's name: [A-Za-z0-9][A-Za-z0-9._-]*. */
bool iop_mutant_name_ok(const char *s);

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

#endif
