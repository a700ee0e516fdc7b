// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the records reader (lib/record.c), the record checks and
 * pairing (cli/shared_recset.c, iopath records check of one boot), pairs of
 * boots by seed and the output formats of iopath compare.
 * The input is a BASE file, a line "=====", and a NEW file (without the
 * separator, the input is BASE and NEW is the committed base fixture's
 * first record, so single files still reach pairing). Any exit status is
 * fine; a crash, a hang, a leak, a sanitizer report, a control
 * character in the output of any format (lib/quote.c must escape every
 * string of a record), or a verdict resting on a figure that is not a
 * finite number (null in the JSON) is a bug.
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

#define SEP "\n=====\n"

static const char fallback[] =
	"{\"schema\":1,\"bench\":\"uring_randread\",\"rep\":0,\"time\":\"t\",\"params\":{},"
	"\"metrics\":[{\"name\":\"iops\",\"unit\":\"ops/s\",\"better\":\"higher\","
	"\"agg\":\"hmean\",\"value\":1,\"samples\":[1,2]}]}\n";

/*
 * Abort if a metric of the JSON in @fd is tested without means or a
 * p-value, or is an improvement or a regression without a bounded
 * interval where the base mean is above zero (a zero base has no
 * relative change, by design). Output other than JSON (a refusal) is fine.
 */
static void verdicts_finite(int fd)
{
	json_t *doc, *c, *g, *m;
	size_t i, j, k;

	if (lseek(fd, 0, SEEK_SET))
		return;
	doc = json_loadfd(fd, 0, NULL);
	json_array_foreach(json_object_get(doc, "comparisons"), i, c) {
		json_array_foreach(json_object_get(c, "groups"), j, g) {
			json_array_foreach(json_object_get(g, "metrics"), k, m) {
				const char *v = json_string_value(json_object_get(m, "verdict"));
				json_t *base = json_object_get(json_object_get(m, "base"), "mean");
				json_t *new = json_object_get(json_object_get(m, "new"), "mean");
				json_t *ci = json_object_get(m, "ci");
				bool tested = v && strcmp(v, "not tested");
				bool verdict = v && (!strcmp(v, "improvement") || !strcmp(v, "regression"));

				if ((tested && (!json_is_number(base) || !json_is_number(new) ||
						!json_is_number(json_object_get(m, "p")))) ||
				    (verdict && json_number_value(base) > 0 &&
				     (!json_is_number(json_array_get(ci, 0)) ||
				      !json_is_number(json_array_get(ci, 1))))) {
					fprintf(stderr, "json: %s of \"%s\" rests on a null figure\n",
						v, json_string_value(json_object_get(m, "name")));
					abort();
				}
			}
		}
	}
	json_decref(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const formats[] = { "text", "commit", "json", "verdict" };
	const uint8_t *sep = memmem(data, size, SEP, strlen(SEP));
	size_t nb = sep ? (size_t)(sep - data) + 1 : size;
	const uint8_t *new = sep ? sep + strlen(SEP) : (const uint8_t *)fallback;
	size_t nn = sep ? size - nb - strlen(SEP) + 1 : strlen(fallback);
	char base_path[64], new_path[64];
	int fb, fn;

	fb = fuzz_file(data, nb, base_path, sizeof(base_path));
	fn = fuzz_file(new, nn, new_path, sizeof(new_path));
	if (fb >= 0 && fn >= 0) {
		const char *check[] = { "records", "check", "--image-sha256",
					"0000000000000000000000000000000000000000000000000000000000000000",
					"--domain", "instructions", "--seen", new_path, base_path };

		fuzz_cmd(9, check);
		for (int i = 0; i < 4; i++) {
			const char *argv[] = { "compare", base_path, new_path,
					       "--format", formats[i] };
			char out_path[64];
			int out = fuzz_file(NULL, 0, out_path, sizeof(out_path));

			/* records are hostile: no format may print a control character */
			if (out < 0)
				continue;
			fuzz_cmd_to(out, 5, argv);
			fuzz_no_control(out, formats[i]);
			if (!strcmp(formats[i], "json"))
				verdicts_finite(out);
			close(out);
		}
	}
	if (fb >= 0)
		close(fb);
	if (fn >= 0)
		close(fn);
	return 0;
}
