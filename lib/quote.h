/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Printing text that came from elsewhere (records from other machines,
 * profiles, logs): iop_shell_quote() is the one quoting of a word in a
 * command line iopath prints for pasting, iop_esc() the one escaping of
 * control characters for every other output. Neither lets a control
 * character reach a terminal raw, and neither lets a newline forge a line.
 */
#ifndef IOPATH_QUOTE_H
#define IOPATH_QUOTE_H

#include <stdbool.h>
#include <stdio.h>

/*
 * @s as one shell word that bash reads back byte for byte: bare when it
 * is made of [A-Za-z0-9_./:=,+@%-] only, else in '...' ("'" as '\''), or,
 * when it holds a control character or a byte past ASCII, in $'...' with
 * \xHH, \\ and \' escapes.
 */
void iop_shell_quote(FILE *f, const char *s);

/* Whether byte @i of @s starts a control character: C0, DEL, or C1 in UTF-8. */
bool iop_is_control(const char *s, size_t i);

/*
 * @s with each control character (iop_is_control()) as \xHH and a
 * backslash as \\, so that what is printed maps back to one string.
 */
void iop_esc(FILE *f, const char *s);

/* iop_esc() into a new string (malloc); NULL without memory. */
char *iop_esc_dup(const char *s);

#endif
