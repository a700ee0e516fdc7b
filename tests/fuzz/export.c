// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: iopath export --kcidb on one input, whatever it is (TAP
 * judged through the verdict engine (lib/tap.c), a mutation matrix, benchmark
 * records: the command decides by its first bytes, as in real use). Any
 * exit status is fine; a crash, a leak, a sanitizer report, or a report
 * written on exit 0 that is not strict JSON (a NaN, an infinity), holds a
 * raw control character, or has a test without an id or a path KCIDB
 * accepts, or with a start_time that is not text, is a bug (an input with
 * no time of its own has no start_time: that is by design).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

static void finding(const char *what, const char *detail)
{
	fprintf(stderr, "export: %s: %s\n", what, detail ? detail : "");
	abort();
}

/* KCIDB's path: dot-separated parts of [a-zA-Z0-9_-]+. */
static bool path_ok(const char *p)
{
	bool part = false;

	for (; *p; p++) {
		if (*p == '.') {
			if (!part)
				return false;
			part = false;
		} else if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", *p)) {
			part = true;
		} else {
			return false;
		}
	}
	return part;
}

static void check_report(int fd)
{
	json_error_t err;
	json_t *doc, *t;
	size_t i;

	if (lseek(fd, 0, SEEK_SET))
		return;
	/* jansson's reader is strict: NaN and Infinity are not JSON. */
	doc = json_loadfd(fd, JSON_REJECT_DUPLICATES, &err);
	if (!doc)
		finding("exit 0 with a report that is not strict JSON", err.text);
	if (!json_array_size(json_object_get(doc, "tests")))
		finding("exit 0 with no test", NULL);
	json_array_foreach(json_object_get(doc, "tests"), i, t) {
		const char *path = json_string_value(json_object_get(t, "path"));
		json_t *start = json_object_get(t, "start_time");

		if (!json_is_string(json_object_get(t, "id")) || (start && !json_is_string(start)))
			finding("a test without id, or with a start_time that is not text", path);
		if (!path || !path_ok(path))
			finding("a path KCIDB refuses", path);
	}
	json_decref(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in_path[64], out_path[64];
	int in, out, ret;

	setenv("IOPATH_SRC", FUZZ_TOP, 0);
	in = fuzz_file(data, size, in_path, sizeof(in_path));
	out = fuzz_file(NULL, 0, out_path, sizeof(out_path));
	if (in >= 0 && out >= 0) {
		const char *argv[] = { "export", "--kcidb", "--kernel-release", "6.12.1",
				       "--known-failures", "/dev/null", in_path };

		ret = fuzz_cmd_to(out, 7, argv);
		fuzz_no_control(out, "export");
		if (!ret)
			check_report(out);
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return 0;
}
