// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the benchmark profile parser (iopath bench --profile), its
 * matrix expansion and the validation of every job, through --dry-run so
 * that nothing is made or run. Any exit status is fine; a crash, a hang,
 * memory beyond the input's measure or a sanitizer report is a bug.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <unistd.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd >= 0) {
		const char *argv[] = { "bench", "--dry-run", "--quiet", "--profile", path };

		fuzz_cmd(5, argv);
		close(fd);
	}
	return 0;
}
