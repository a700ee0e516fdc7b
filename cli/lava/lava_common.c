// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What every part of iopath lava (lava.h) uses to speak and to write:
 * its one failure line on stderr, and the files it writes (job files,
 * verdicts), each made anew and renamed into place by lib/outfile.c.
 * The parts call these; nothing here calls a part.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lava.h"
#include "outfile.h"
#include "quote.h"

int lava_fail(int code, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	fputs("iopath: lava: ", stderr);
	iop_esc_line(stderr, msg ? msg : "out of memory");
	fputc('\n', stderr);
	free(msg);
	return code;
}

int lava_write_file(const char *path, const char *buf, size_t len)
{
	char tmp[PATH_MAX];
	size_t done = 0;
	ssize_t n;
	int fd, ret = 0;

	fd = iop_tmp_create(path, iop_out_mode(path), tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	while (done < len) {
		n = write(fd, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		done += n;
	}
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (ret) {
		iop_tmp_discard(tmp);
		return ret;
	}
	return iop_tmp_commit(tmp, path);
}

int lava_out_ok(const char *opt, const char *path)
{
	char why[PATH_MAX + 128];

	if (iop_out_check(path, why, sizeof(why)))
		return lava_fail(2, "%s %s", opt, why);
	return 0;
}
