// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath mutant: the mutants' headers (lib/mutant.c) for the scripts that
 * run them (scripts/mutate.sh, scripts/mutate-tool.sh, through
 * scripts/lib/common.bash), so that no script parses a header itself.
 *
 *   iopath mutant header FILE KEY   each value of "# KEY:", one a line
 *   iopath mutant expects FILE      the globs of "# Expect: a, b*", one a line
 *   iopath mutant list DIR [NAME...]
 *                                   the name of each mutant of DIR (*.patch,
 *                                   in name order), one a line, once every
 *                                   header is read and has what a mutant
 *                                   needs; each NAME must be one of them
 *   iopath mutant matrix ...        the kill matrix (cli/mutant/mutant_matrix.c)
 *   iopath mutant generate ...      mutants by rule from a kernel tree
 *                                   (cli/mutant/mutant_generate.c)
 *   iopath mutant classify|results|stop ...
 *                                   a mutant's VM runs judged by the one TAP
 *                                   reader (cli/mutant/mutant_classify.c)
 *
 * A value holds no control character (the reader refuses them), so a line
 * of output is one value. Exit 0, or 2 with one line on stderr for a
 * header that cannot be read or lacks what it needs.
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

#include "cli.h"
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

static int mutant_header(const char *path, const char *key)
{
	struct iop_mutant m;
	char why[512];

	if (iop_mutant_read(path, &m, why, sizeof(why)))
		return iop_mutant_error(why);
	for (size_t i = 0; i < m.nfields; i++)
		if (!strcmp(m.fields[i].key, key))
			printf("%s\n", m.fields[i].value);
	iop_mutant_free(&m);
	return 0;
}

static int mutant_expects(const char *path)
{
	struct iop_mutant m;
	const char *v, *end;
	char why[512];

	if (iop_mutant_read(path, &m, why, sizeof(why)))
		return iop_mutant_error(why);
	for (v = iop_mutant_get(&m, "Expect"); v && *v; v = *end ? end + 1 : end) {
		const char *a = v, *b;

		end = strchrnul(v, ',');
		b = end;
		while (a < b && *a == ' ')
			a++;
		while (b > a && b[-1] == ' ')
			b--;
		if (b > a)
			printf("%.*s\n", (int)(b - a), a);
	}
	iop_mutant_free(&m);
	return 0;
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

static int mutant_list(const char *dir, int nwant, char **want)
{
	char why[PATH_MAX + 256], **names;
	size_t count;
	int i;

	if (iop_mutant_scan(dir, &names, &count, why, sizeof(why)))
		return iop_mutant_error(why);
	for (i = 0; i < nwant; i++) {
		size_t j = 0;

		while (j < count && strcmp(names[j], want[i]))
			j++;
		if (j == count) {
			snprintf(why, sizeof(why), "no mutant '%s' in %s (--list shows them)",
				 want[i], dir);
			iop_mutant_names_free(names, count);
			return iop_mutant_error(why);
		}
	}
	for (size_t j = 0; j < count; j++)
		printf("%s\n", names[j]);
	iop_mutant_names_free(names, count);
	return 0;
}

static int cmd_mutant(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "";

	if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
		printf("usage: iopath mutant header FILE KEY | expects FILE | list DIR [NAME...]\n"
		       "       iopath mutant matrix --work WORK --mutants DIR [--ksrc SRC] NAME...\n"
		       "       iopath mutant generate --ksrc DIR --seed N --out DIR [options] | --list\n"
		       "       iopath mutant classify [options] PATCH RUN... | results RUN | stop RUN\n"
		       "The headers of mutant patches (configs/mutants/), read by one parser\n"
		       "for iopath mutate and mutate-tool: each value of '# KEY:' a line, the\n"
		       "globs of '# Expect:' a line, the mutants of DIR a line each; the kill\n"
		       "matrix from iopath mutate's state (iopath mutant matrix --help); a\n"
		       "mutant's class from its VM runs, by the verdict's machine lines\n"
		       "(iopath mutant classify --help); mutants generated by rule from a kernel\n"
		       "tree (iopath mutant generate --help).\n");
		return 0;
	}
	if (!strcmp(sub, "header") && argc == 4)
		return mutant_header(argv[2], argv[3]);
	if (!strcmp(sub, "expects") && argc == 3)
		return mutant_expects(argv[2]);
	if (!strcmp(sub, "list") && argc >= 3)
		return mutant_list(argv[2], argc - 3, argv + 3);
	if (!strcmp(sub, "matrix"))
		return iop_mutant_matrix(argc - 1, argv + 1);
	if (!strcmp(sub, "generate"))
		return iop_mutant_generate(argc - 1, argv + 1);
	if (!strcmp(sub, "classify") || !strcmp(sub, "results") || !strcmp(sub, "stop"))
		return iop_mutant_runs(argc - 1, argv + 1);
	return iop_usage_error("mutant", "expected 'header FILE KEY', 'expects FILE', "
			       "'list DIR [NAME...]', 'matrix ...', 'generate ...', 'classify ...', 'results RUN' "
			       "or 'stop RUN' (iopath mutant --help)");
}

IOP_COMMAND("mutant", "mutant headers, classification and kill matrix for the scripts", cmd_mutant)
