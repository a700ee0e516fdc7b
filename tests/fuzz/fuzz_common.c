// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Helpers of the fuzz targets (see fuzz.h). Each input becomes a memfd:
 * a regular file with a path, so the real readers run unchanged, with no
 * file left behind however the run ends.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fuzz.h"
#include "quote.h"

int fuzz_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("iopath-fuzz", MFD_CLOEXEC);
	size_t off = 0;

	if (fd < 0)
		return -1;
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

int fuzz_cmd(int argc, const char *const *argv)
{
	static int devnull = -1;

	if (devnull < 0)
		devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	/* Tables and JSON are not what is tested: their construction is. */
	return fuzz_cmd_to(devnull, argc, argv);
}

void fuzz_no_control(int fd, const char *what)
{
	fuzz_no_control_but(fd, "\n", what);
}

void fuzz_no_control_but(int fd, const char *allowed, const char *what)
{
	struct stat st;
	char *buf;

	if (fstat(fd, &st) || st.st_size <= 0)
		return;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return;
	if (pread(fd, buf, (size_t)st.st_size, 0) == st.st_size) {
		buf[st.st_size] = '\0';
		for (off_t i = 0; i < st.st_size; i++) {
			if (!(buf[i] && strchr(allowed, buf[i])) && iop_is_control(buf, (size_t)i)) {
				fprintf(stderr, "%s: raw control byte 0x%02x at offset %lld\n",
					what, (unsigned char)buf[i], (long long)i);
				abort();
			}
		}
	}
	free(buf);
}

int fuzz_cmd_to(int fd, int argc, const char *const *argv)
{
	const struct iop_cmd *cmd = iop_cmd_find(argv[0]);
	char *args[16];
	int saved, ret;

	if (!cmd || argc >= 16)
		abort();
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);
	for (int i = 0; i < argc; i++)
		args[i] = (char *)argv[i];
	args[argc] = NULL;
	ret = cmd->run(argc, args);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	return ret;
}
