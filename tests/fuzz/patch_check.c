// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the reader of the patches applied to a source tree
 * (lib/patch.c), directly and as the scripts call it (iopath patch
 * check). The input is a patch. A finding is a crash, a sanitizer report,
 * or a patch accepted although a line of it, at its start, is one of
 * git's headers that are not changes to a regular file (a mode 120000 or
 * 160000, a mode change, a rename or copy, a binary patch: no hunk line
 * starts so, and this check reads the input on its own, not through the
 * reader); a name accepted that is absolute, has an empty, '.' or '..'
 * component, a blank or a control character; or a copy for patch(1)
 * that is not the reader's fixed point (read again, it must be accepted
 * with the same names and give itself back) or holds a line that is not
 * a header, a hunk's "@@" or one of its lines.
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
#include "patch.h"
#include "quote.h"

static void finding(const char *what)
{
	fprintf(stderr, "patch_check: %s\n", what);
	abort();
}

static bool starts(const uint8_t *l, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(l, prefix, k);
}

static bool ends(const uint8_t *l, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(l + n - k, suffix, k);
}

/* A line no accepted patch holds: not a change to a regular file. */
static bool forbidden(const uint8_t *l, size_t n)
{
	static const char *const always[] = {
		"old mode ", "new mode ", "rename from ", "rename to ", "copy from ", "copy to ",
		"similarity index ", "GIT binary patch",
	};
	static const char *const modes[] = { "new file mode ", "deleted file mode " };
	size_t hex;

	for (size_t i = 0; i < ARRAY_SIZE(always); i++)
		if (starts(l, n, always[i]))
			return true;
	if (starts(l, n, "Binary files ") && ends(l, n, " differ"))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
		if (starts(l, n, modes[i]) && (ends(l, n, " 120000") || ends(l, n, " 160000")))
			return true;
	/* git's "index HASH..HASH MODE" */
	if (!starts(l, n, "index "))
		return false;
	for (hex = 6; hex < n && strchr("0123456789abcdef", l[hex]) && l[hex]; hex++)
		;
	return hex > 6 && starts(l + hex, n - hex, "..") &&
	       (ends(l, n, " 120000") || ends(l, n, " 160000"));
}

static bool has_forbidden_line(const uint8_t *data, size_t size)
{
	size_t i = 0;

	while (i < size) {
		const uint8_t *l = data + i, *nl = memchr(l, '\n', size - i);
		size_t n = nl ? (size_t)(nl - l) : size - i;

		if (forbidden(l, n))
			return true;
		i += n + 1;
	}
	return false;
}

static void check_name(const char *name)
{
	size_t n = strlen(name);

	if (!n || name[0] == '/' || name[n - 1] == '/' || strstr(name, "//"))
		finding("a name absolute or with an empty component");
	if (!strcmp(name, ".") || !strcmp(name, "..") || !strncmp(name, "./", 2) ||
	    !strncmp(name, "../", 3) || strstr(name, "/./") || strstr(name, "/../") ||
	    (n >= 2 && !strcmp(name + n - 2, "/.")) || (n >= 3 && !strcmp(name + n - 3, "/..")))
		finding("a name with a '.' or '..' component");
	for (size_t i = 0; i < n; i++)
		if (name[i] == ' ' || iop_is_control(name, i))
			finding("a name with a blank or a control character");
}

/* Each line of the copy: a header, an "@@" line or a hunk's line. */
static void check_copy_lines(const char *s, size_t size)
{
	static const char *const kinds[] = {
		"diff --git a/", "new file mode 100644", "new file mode 100755",
		"deleted file mode 100644", "deleted file mode 100755", "--- a/", "--- /dev/null",
		"+++ b/", "+++ /dev/null", "@@ -", " ", "+", "-", "\\ No newline at end of file",
	};
	size_t i = 0;

	while (i < size) {
		const char *l = s + i, *nl = memchr(l, '\n', size - i);
		size_t n = nl ? (size_t)(nl - l) : size - i, k;

		if (!nl)
			finding("the copy's last line has no newline");
		for (k = 0; k < ARRAY_SIZE(kinds); k++)
			if (starts((const uint8_t *)l, n, kinds[k]))
				break;
		if (k == ARRAY_SIZE(kinds))
			finding("a line of the copy that is no part of a diff");
		i += n + 1;
	}
}

/* The copy read again: accepted, the same names, the same text. */
static void check_fixed_point(const struct iop_patch *p)
{
	struct iop_patch q;
	char path[64], why[512];
	int fd = fuzz_file((const uint8_t *)p->text, p->text_len, path, sizeof(path));

	if (fd < 0)
		return;
	if (iop_patch_read(path, &q, why, sizeof(why)))
		finding("the copy for patch(1) is refused when read again");
	if (q.nnames != p->nnames || q.text_len != p->text_len ||
	    memcmp(q.text, p->text, p->text_len))
		finding("the copy read again gives another copy");
	for (size_t i = 0; i < p->nnames; i++)
		if (strcmp(q.names[i], p->names[i]))
			finding("the copy read again names other files");
	iop_patch_free(&q);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iop_patch p;
	char path[64], out_path[64], why[512];
	int fd, out;

	fd = fuzz_file(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	if (!iop_patch_read(path, &p, why, sizeof(why))) {
		if (has_forbidden_line(data, size))
			finding("a patch with a link, a mode change, a rename or copy or a binary patch accepted");
		if (!p.nnames)
			finding("a patch accepted that touches no file");
		for (size_t i = 0; i < p.nnames; i++) {
			check_name(p.names[i]);
			if (i && strcmp(p.names[i - 1], p.names[i]) >= 0)
				finding("the names are not sorted, each once");
		}
		check_copy_lines(p.text, p.text_len);
		check_fixed_point(&p);
		iop_patch_free(&p);
	}
	out = fuzz_file(NULL, 0, out_path, sizeof(out_path));
	if (out >= 0) {
		const char *argv[] = { "patch", "check", path };

		fuzz_cmd_to(out, 3, argv);
		fuzz_no_control(out, "iopath patch check");
		close(out);
	}
	close(fd);
	return 0;
}
