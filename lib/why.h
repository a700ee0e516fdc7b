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
 * result (a newline, ESC) makes the whole of it escaped by iop_esc(), so it is one
 * line that keeps what follows.
 */
void iop_why(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
