/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading the files iopath takes as input (records, profiles, lists) line
 * by line, with limits: only a regular file is read (a FIFO cannot block
 * the reader, a device cannot stream without end), never more bytes than
 * its size said when it was opened, and no line longer than a bound the
 * caller sets. Memory use is bounded by the smaller of the two.
 */
#ifndef IOPATH_INPUT_H
#define IOPATH_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct iop_input {
	const char *path;
	int fd;
	uint64_t left;		/* bytes not yet read, of the size at open */
	char *buf;
	size_t cap, len, pos;
	size_t max_line;
	size_t lineno;		/* of the line last returned */
};

/*
 * Open @path for reading lines of at most @max_line bytes (newline not
 * counted). -errno with "<path>: <what>" in @why: not found, not a regular
 * file (-EINVAL), unreadable.
 */
int iop_input_open(struct iop_input *in, const char *path, size_t max_line,
		   char *why, size_t len);

/*
 * The next line, without its newline, NUL-terminated in a buffer valid
 * until the next call; *@terminated says whether a newline ended it. Returns
 * its length (it may hold NUL bytes), -ENODATA at the end of the file,
 * -E2BIG with "<path>:<line>: line longer than N bytes" in @why, or -errno.
 */
ssize_t iop_input_line(struct iop_input *in, char **line, bool *terminated,
		       char *why, size_t len);

/*
 * The last bytes of the file @in opened, before any line is read: at most
 * @n - 1 of them, as its size said at open, NUL-terminated in @buf (a log
 * whose end alone matters: its last line). Returns their count or -errno.
 */
ssize_t iop_input_tail(struct iop_input *in, char *buf, size_t n);

void iop_input_close(struct iop_input *in);

/*
 * Each line of @path (NULL or /dev/null: none) to @fn, with its number,
 * until @fn returns non-zero. @fn's -EINVAL is reported as
 * "<path>:<line>: <what @fn said>", another error as "<path>: <strerror>".
 * 0 or -errno with @why set.
 */
int iop_input_each_line(const char *path, size_t max_line,
			int (*fn)(void *arg, const char *line, size_t lineno,
				  char *why, size_t len),
			void *arg, char *why, size_t len);

#endif
