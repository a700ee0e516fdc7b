// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What every part of iopath mutant (mutant_int.h) uses: its one error
 * line, the rule of a mutant's name (it makes paths under a work
 * directory) and the mutants of a directory, each header read and
 * checked (lib/mutant.c). The parts call these; nothing here calls a
 * part.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mutant.h"
#include "mutant_int.h"
#include "quote.h"

int iop_mutant_error(const char *why)
{
	fputs("iopath: mutant: ", stderr);
	iop_esc_line(stderr, why);
	fputc('\n', stderr);
	return 2;
}

/* A mutant's name: [A-Za-z0-9][A-Za-z0-9._-]*, as the scripts use it in paths. */
static bool good_name(const char *s, size_t n)
{
	if (!n || n > 200 || s[0] == '.' || s[0] == '_' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

bool iop_mutant_name_ok(const char *s)
{
	return good_name(s, strlen(s));
}

static int patch_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 6 && !strcmp(d->d_name + n - 6, ".patch");
}

int iop_mutant_scan(const char *dir, char ***names, size_t *count, char *why, size_t len)
{
	struct dirent **ents;
	int n, ret = 0;

	*names = NULL;
	*count = 0;
	n = scandir(dir, &ents, patch_filter, alphasort);
	if (n < 0) {
		snprintf(why, len, "--mutants %s: %s", dir, strerror(errno));
		return -errno;
	}
	*names = calloc((size_t)n + 1, sizeof(**names));
	for (int i = 0; i < n; i++) {
		const char *d = ents[i]->d_name;
		size_t l = strlen(d) - 6;
		char path[PATH_MAX];
		struct iop_mutant m;

		if (ret || !*names)
			goto next;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, d) >= sizeof(path)) {
			snprintf(why, len, "%s/%s: name too long", dir, d);
			ret = -ENAMETOOLONG;
			goto next;
		}
		if (!good_name(d, l)) {
			snprintf(why, len, "%s: a mutant's name is [A-Za-z0-9._-]", path);
			ret = -EINVAL;
			goto next;
		}
		if (iop_mutant_read(path, &m, why, len)) {
			ret = -EINVAL;
			goto next;
		}
		ret = iop_mutant_check(&m, path, why, len);
		iop_mutant_free(&m);
		if (!ret) {
			(*names)[*count] = strndup(d, l);
			if (!(*names)[*count])
				ret = -ENOMEM;
			else
				(*count)++;
		}
next:
		free(ents[i]);
	}
	free(ents);
	if (!*names)
		ret = -ENOMEM;
	if (!ret && !*count) {
		snprintf(why, len, "--mutants: no *.patch in %s", dir);
		ret = -ENOENT;
	}
	if (ret == -ENOMEM)
		snprintf(why, len, "%s", strerror(ENOMEM));
	if (ret)
		iop_mutant_names_free(*names, *count);
	return ret;
}

void iop_mutant_names_free(char **names, size_t count)
{
	for (size_t i = 0; names && i < count; i++)
		free(names[i]);
	free(names);
}
