// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What every part of iopath mutant (mutant_int.h) uses: its one error
 * line. (The rule of a mutant's name and the scan of a directory's
 * mutants are lib/mutant.c's: the campaign's plan, lib/campaign_plan.c,
 * takes the mutants from there.) The parts call this; nothing here calls
 * a part.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>

#include "mutant_int.h"
#include "quote.h"

int iop_mutant_error(const char *why)
{
	fputs("iopath: mutant: ", stderr);
	iop_esc_line(stderr, why);
	fputc('\n', stderr);
	return 2;
}
