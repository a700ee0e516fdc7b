// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A main() for the fuzz targets without libFuzzer: runs each file named on
 * the command line (or each file in each directory named) through
 * LLVMFuzzerTestOneInput once, as make check's regression run of the
 * corpora. Prints one TAP line per corpus; the target's own messages
 * (usage errors for bad inputs) are discarded.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	size_t off = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	buf = malloc((size_t)st.st_size + 1);
	while (buf && off < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + off, (size_t)st.st_size - off);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	if (!buf)
		return -1;
	LLVMFuzzerTestOneInput(buf, off);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC), err = dup(STDERR_FILENO);
	int failed = 0;

	for (int i = 1; i < argc; i++) {
		char path[PATH_MAX];
		struct dirent *de;
		int n = 0, bad = 0;
		DIR *d = opendir(argv[i]);

		dup2(null, STDERR_FILENO);
		if (!d) {
			bad = run_file(argv[i]) < 0;
			n = 1;
		}
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
			bad += run_file(path) < 0;
			n++;
		}
		if (d)
			closedir(d);
		dup2(err, STDERR_FILENO);
		printf("%sok %d %s: %d inputs%s\n", bad || !n ? "not " : "", i, argv[i], n,
		       bad ? " (some unreadable)" : "");
		failed |= bad || !n;
	}
	printf("1..%d\n", argc - 1);
	return failed;
}
