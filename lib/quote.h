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

/*
 * Whether byte @i of @s starts what iop_esc() escapes: a control character
 * (C0, DEL, C1, the line and paragraph separators, the bidirectional
 * controls such as U+202E), or a byte that is not part of valid UTF-8. A
 * byte inside a valid sequence is judged where the sequence starts.
 */
bool iop_is_control(const char *s, size_t i);

/* Whether @s holds anything iop_is_control() flags. */
bool iop_needs_esc(const char *s);

/*
 * @s with each byte of a control character and each byte that is not
 * valid UTF-8 (iop_is_control()) as \xHH, and a backslash as \\, so that
 * what is printed maps back to one string.
 */
void iop_esc(FILE *f, const char *s);

/*
 * @msg, a line of a message that may hold text escaped before (a reason
 * from the library, iop_why(); a line of iopath's own stderr): as it is
 * when nothing in it needs escaping, else as iop_esc() prints it.
 * Escaping such a line again changes nothing, so a reason handed from the
 * library to a command to a script is escaped once.
 */
void iop_esc_line(FILE *f, const char *msg);

/* iop_esc() into a new string (malloc); NULL without memory. */
char *iop_esc_dup(const char *s);

#endif
