// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the benchmark profile parser (iopath bench --profile), its
 * matrix expansion and the validation of every job, through --dry-run so
 * that nothing is made or run. Any exit status is fine, but for a
 * profile with a key twice in one section, which must be refused (exit
 * 2): a crash, a hang, memory beyond the input's measure, a sanitizer
 * report or a duplicate accepted is a bug.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

/*
 * Whether a section ("[...]" line to the next) sets one key twice, keys
 * compared as the parser trims them. Found by a reading of its own, not
 * the parser's: a line it cannot read (no '=', a NUL) makes the profile
 * an error anyway.
 */
static bool has_duplicate(const uint8_t *data, size_t size)
{
	char keys[64][128];
	size_t nkeys = 0, i = 0;

	while (i < size) {
		size_t e = i, a, b;

		while (e < size && data[e] != '\n')
			e++;
		a = i;
		b = e;
		i = e + 1;
		while (a < b && isspace(data[a]))
			a++;
		while (b > a && isspace(data[b - 1]))
			b--;
		if (a == b || data[a] == '#' || data[a] == ';')
			continue;
		if (data[a] == '[') {
			nkeys = 0;
			continue;
		}
		{
			const uint8_t *eq = memchr(data + a, '=', b - a);
			size_t kb = eq ? (size_t)(eq - data) : a;

			if (!eq)
				continue;
			while (kb > a && isspace(data[kb - 1]))
				kb--;
			if (kb == a || kb - a >= sizeof(keys[0]) || memchr(data + a, '\0', kb - a))
				continue;
			for (size_t k = 0; k < nkeys; k++)
				if (strlen(keys[k]) == kb - a && !memcmp(keys[k], data + a, kb - a))
					return true;
			if (nkeys < 64) {
				memcpy(keys[nkeys], data + a, kb - a);
				keys[nkeys++][kb - a] = '\0';
			}
		}
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd >= 0) {
		const char *argv[] = { "bench", "--dry-run", "--quiet", "--profile", path };
		int ret = fuzz_cmd(5, argv);

		if (ret != 2 && has_duplicate(data, size)) {
			fprintf(stderr, "profile: a key set twice in one section accepted (exit %d)\n",
				ret);
			abort();
		}
		close(fd);
	}
	return 0;
}
