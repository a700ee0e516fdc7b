// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the mutant-header reader (lib/mutant.c), directly and as
 * the scripts call it (iopath mutant header, expects). The input is a
 * mutant patch. A finding is a crash, a sanitizer report, a header
 * accepted with a key given twice (Filter: twice for one program), a
 * value that is empty, padded or holds a control character, or a byte a
 * terminal obeys in what iopath mutant prints. The duplicate check reads
 * the input on its own, not through the parser.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array_size.h"
#include "fuzz.h"
#include "mutant.h"
#include "quote.h"

static void finding(const char *what)
{
	fprintf(stderr, "mutant_header: %s\n", what);
	abort();
}

/*
 * The start of the "# Key:" or "# Filter: prog=" of a header line of
 * @data, its length in *@n; NULL if the line is not a field.
 */
static const uint8_t *field_id(const uint8_t *l, size_t len, size_t *n)
{
	size_t k = 2;

	if (len < 4 || l[0] != '#' || l[1] != ' ' ||
	    !((l[2] >= 'A' && l[2] <= 'Z') || (l[2] >= 'a' && l[2] <= 'z')))
		return NULL;
	while (k < len && (l[k] == '-' || (l[k] >= '0' && l[k] <= '9') ||
			   (l[k] >= 'A' && l[k] <= 'Z') || (l[k] >= 'a' && l[k] <= 'z')))
		k++;
	if (k >= len || l[k] != ':' || (k + 1 < len && l[k + 1] != ' '))
		return NULL;
	*n = k + 1;
	if (*n - 2 == 7 && !memcmp(l + 2, "Filter:", 7)) {
		const uint8_t *eq = memchr(l, '=', len);

		*n = eq ? (size_t)(eq - l) : len;
	}
	return l;
}

/* Whether the header (up to the first "--- " line) gives one field twice. */
static bool has_duplicate(const uint8_t *data, size_t size)
{
	const uint8_t *ids[IOP_MUTANT_FIELDS_MAX * 2];
	size_t lens[IOP_MUTANT_FIELDS_MAX * 2], nids = 0, i = 0;

	while (i < size && nids < IOP_MUTANT_FIELDS_MAX * 2) {
		const uint8_t *l = data + i, *nl = memchr(l, '\n', size - i);
		size_t len = nl ? (size_t)(nl - l) : size - i, n;

		i += len + 1;
		if (len >= 4 && !memcmp(l, "--- ", 4))
			break;
		if (!field_id(l, len, &n))
			continue;
		for (size_t j = 0; j < nids; j++)
			if (lens[j] == n && !memcmp(ids[j], l, n))
				return true;
		ids[nids] = l;
		lens[nids++] = n;
	}
	return false;
}

static void check_values(const struct iop_mutant *m)
{
	for (size_t i = 0; i < m->nfields; i++) {
		const char *v = m->fields[i].value;
		size_t n = strlen(v);

		if (!n || v[0] == ' ' || v[n - 1] == ' ')
			finding("an empty or padded value");
		for (size_t j = 0; j < n; j++)
			if (iop_is_control(v, j))
				finding("a control character in a value");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "Tests", "Filter", "Function" };
	struct iop_mutant m;
	char path[64], out_path[64], why[512];
	int fd, out;

	fd = fuzz_file(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	if (!iop_mutant_read(path, &m, why, sizeof(why))) {
		if (has_duplicate(data, size))
			finding("a key given twice was accepted");
		check_values(&m);
		iop_mutant_check(&m, path, why, sizeof(why));
		iop_mutant_free(&m);
	}
	out = fuzz_file(NULL, 0, out_path, sizeof(out_path));
	if (out >= 0) {
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
			const char *argv[] = { "mutant", "header", path, keys[i] };

			fuzz_cmd_to(out, 4, argv);
		}
		{
			const char *argv[] = { "mutant", "expects", path };

			fuzz_cmd_to(out, 3, argv);
		}
		fuzz_no_control(out, "iopath mutant header");
		close(out);
	}
	close(fd);
	return 0;
}
