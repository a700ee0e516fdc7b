/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel log check: put a marker into /dev/kmsg before a test, then list the
 * lines the kernel logged since that look like a bug (BUG:, WARNING:, Oops,
 * lockdep "possible ... locking", UBSAN:, general protection fault, "Busy
 * inodes", RCU stalls, "kernel BUG at"), as fstests and liburing do.
 */
#ifndef IOPATH_KMSG_H
#define IOPATH_KMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iop_kmsg_mark {
	uint64_t seq;		/* sequence number of the marker record */
	char text[96];
	/*
	 * Count records written from userspace too. Off by default: anything
	 * can write "WARNING:" into /dev/kmsg, but only the kernel logs with
	 * facility 0 (the kernel refuses it from userspace), so a concurrent
	 * program cannot fail someone else's test. The positive control of
	 * the scan turns it on.
	 */
	bool include_user;
};

/* Write "iopath: <what> <pid>" to /dev/kmsg and remember where it landed. */
int iop_kmsg_mark(struct iop_kmsg_mark *m, const char *what);

/*
 * Count bad lines logged after @m. The first one is copied into @first.
 * Returns the count (0: clean) or -errno (-EACCES: /dev/kmsg not readable).
 */
int iop_kmsg_scan(const struct iop_kmsg_mark *m, char *first, size_t len);

/* Is this kernel log line a sign of a kernel bug? (exposed for unit tests) */
int iop_kmsg_line_is_bad(const char *line);

/*
 * The text of a kernel console line: @line after a "<N>" level and a
 * "[ seconds.micros] " timestamp, either or both of which a serial console
 * prints before the text the patterns are written against.
 */
const char *iop_kmsg_console_text(const char *line);

#endif
