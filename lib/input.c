// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bounded line reading of input files (see input.h). stdio's getline()
 * grows its buffer for as long as a file streams bytes without a newline:
 * /dev/zero takes the machine's memory, a FIFO blocks forever, and fgets()
 * with a fixed buffer splits a long line in two, so the tail of a comment
 * becomes a setting. Here every read is bounded by the file's size and
 * every line by a limit, and a line over the limit is an error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"
#include "why.h"

int iop_input_open(struct iop_input *in, const char *path, size_t max_line,
		   char *why, size_t len)
{
	struct stat st;
	int fd, err;

	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->path = path;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		err = errno;
		iop_why(why, len, "%s: %s", path, strerror(err));
		return -err;
	}
	if (fstat(fd, &st)) {
		err = errno;
		close(fd);
		iop_why(why, len, "%s: %s", path, strerror(err));
		return -err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		if (S_ISDIR(st.st_mode)) {
			iop_why(why, len, "%s: %s", path, strerror(EISDIR));
			return -EISDIR;
		}
		iop_why(why, len, "%s: not a regular file", path);
		return -EINVAL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	in->fd = fd;
	in->left = (uint64_t)st.st_size;
	in->max_line = max_line;
	/* A line and its newline, and the NUL after it; never more than the file. */
	in->cap = (uint64_t)st.st_size < max_line ? (size_t)st.st_size + 2 : max_line + 2;
	in->buf = malloc(in->cap);
	if (!in->buf) {
		iop_input_close(in);
		iop_why(why, len, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

/* Read more after the unread bytes, moved to the front; 0 at the end. */
static ssize_t fill(struct iop_input *in)
{
	size_t room;
	ssize_t n;

	if (in->pos) {
		memmove(in->buf, in->buf + in->pos, in->len - in->pos);
		in->len -= in->pos;
		in->pos = 0;
	}
	room = in->cap - 1 - in->len;
	if (room > in->left)
		room = (size_t)in->left;
	if (!room)
		return 0;
	do
		n = read(in->fd, in->buf + in->len, room);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	in->len += (size_t)n;
	/* A file that shrank ends here. */
	in->left = n ? in->left - (size_t)n : 0;
	return n;
}

ssize_t iop_input_line(struct iop_input *in, char **line, bool *terminated,
		       char *why, size_t len)
{
	size_t scanned = 0;
	char *nl;
	ssize_t n;

	for (;;) {
		nl = memchr(in->buf + in->pos + scanned, '\n', in->len - in->pos - scanned);
		if (nl)
			break;
		scanned = in->len - in->pos;
		if (scanned > in->max_line) {
			iop_why(why, len, "%s:%zu: line longer than %zu bytes", in->path,
				in->lineno + 1, in->max_line);
			return -E2BIG;
		}
		n = fill(in);
		if (n < 0) {
			iop_why(why, len, "%s: %s", in->path, strerror((int)-n));
			return n;
		}
		if (!n)
			break;
	}
	n = nl ? nl - (in->buf + in->pos) : (ssize_t)(in->len - in->pos);
	if (!nl && !n)
		return -ENODATA;
	if ((size_t)n > in->max_line) {
		iop_why(why, len, "%s:%zu: line longer than %zu bytes", in->path, in->lineno + 1,
			in->max_line);
		return -E2BIG;
	}
	in->lineno++;
	*line = in->buf + in->pos;
	*terminated = !!nl;
	(*line)[n] = '\0';
	in->pos += (size_t)n + (nl ? 1 : 0);
	return n;
}

ssize_t iop_input_tail(struct iop_input *in, char *buf, size_t n)
{
	size_t want = n - 1;
	ssize_t got;

	if (!n)
		return -EINVAL;
	if (want > in->left)
		want = (size_t)in->left;
	do
		got = pread(in->fd, buf, want, (off_t)(in->left - want));
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -errno;
	buf[got] = '\0';
	return got;
}

void iop_input_close(struct iop_input *in)
{
	if (in->fd >= 0)
		close(in->fd);
	free(in->buf);
	in->fd = -1;
	in->buf = NULL;
}

int iop_input_each_line(const char *path, size_t max_line,
			int (*fn)(void *arg, const char *line, size_t lineno,
				  char *why, size_t len),
			void *arg, char *why, size_t len)
{
	struct iop_input in;
	char msg[512] = "";
	bool term;
	char *line;
	ssize_t n;
	int ret;

	if (!path || !strcmp(path, "/dev/null"))
		return 0;
	ret = iop_input_open(&in, path, max_line, why, len);
	if (ret)
		return ret;
	while ((n = iop_input_line(&in, &line, &term, why, len)) >= 0) {
		ret = fn(arg, line, in.lineno, msg, sizeof(msg));
		if (ret == -EINVAL)
			iop_why(why, len, "%s:%zu: %s", path, in.lineno, msg);
		else if (ret)
			iop_why(why, len, "%s: %s", path, strerror(-ret));
		if (ret)
			break;
	}
	if (!ret && n != -ENODATA)
		ret = (int)n;
	iop_input_close(&in);
	return ret;
}
