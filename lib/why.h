/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to libiopath: filling a caller's "why" buffer, the one-line
 * reason that goes with a -errno return.
 */
#ifndef IOPATH_WHY_H
#define IOPATH_WHY_H

#include <stddef.h>

/*
 * printf into @why (NULL or @len 0: nothing); a control character in the
 * result (a newline, ESC) or a byte that is not UTF-8 makes the whole of
 * it escaped by iop_esc(), so it is one line that keeps what follows, and
 * printed by iop_esc_line() it is escaped once. A result longer than
 * @len loses its middle, not its end: the reason after a long name stays.
 */
void iop_why(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
