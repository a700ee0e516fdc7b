// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the bounded YAML loader (lib/yaml_bound.c), the one way
 * iopath loads a LAVA job or a line of a LAVA log. The input is a YAML
 * text. libFuzzer's -timeout catches a text the bounds let through to
 * libyaml's quadratic parts; each result is checked against libyaml's own
 * loader without the bounds (run only where the bounds passed, or where
 * the event pass stopped at an error before any bound: both cheap):
 *   loaded      libyaml loads it too, the same number of nodes (at most
 *               IOP_YAML_MAX_NODES) and the same root, and nothing after
 *               the document (one document only);
 *   not YAML    libyaml fails on the stream, or finds a second document;
 *   past a bound  the reason names the bound.
 * Every reason is one line without a control character. A crash, a leak
 * or a sanitizer report is a bug too.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "fuzz.h"
#include "quote.h"
#include "yaml_bound.h"

static void finding(const char *what, const char *why)
{
	fprintf(stderr, "fuzz: yaml_bound: %s (reason: %s)\n", what, why);
	abort();
}

/*
 * libyaml alone: how many documents the stream holds, -1 on an error. The
 * first (empty at once for an empty stream) goes to @first unless -1.
 */
static int plain_docs(const uint8_t *data, size_t size, yaml_document_t *first)
{
	yaml_parser_t p;
	yaml_document_t d;
	bool saved = false, empty;
	int docs = 0;

	if (!yaml_parser_initialize(&p))
		abort();
	yaml_parser_set_input_string(&p, data, size);
	for (;;) {
		if (!yaml_parser_load(&p, &d)) {
			if (saved)
				yaml_document_delete(first);
			docs = -1;
			break;
		}
		empty = !yaml_document_get_root_node(&d);
		if (!saved && first) {
			*first = d;
			saved = true;
		} else {
			yaml_document_delete(&d);
		}
		if (empty)
			break;
		docs++;
	}
	yaml_parser_delete(&p);
	return docs;
}

static size_t count(yaml_document_t *d)
{
	return (size_t)(d->nodes.top - d->nodes.start);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	yaml_document_t d, plain;
	char why[256] = "";
	int ret, docs;

	ret = iop_yaml_load((const char *)data, size, &d, why, sizeof(why));
	for (size_t i = 0; why[i]; i++)
		if (iop_is_control(why, i))
			finding("a control character in the reason", "");
	if (ret == 0) {
		docs = plain_docs(data, size, &plain);
		if (docs < 0)
			finding("loaded, but libyaml fails on the stream", why);
		if (docs > 1)
			finding("loaded, but the stream holds more than one document", why);
		if (count(&d) > IOP_YAML_MAX_NODES)
			finding("loaded more nodes than the bound", why);
		if (count(&d) != count(&plain) ||
		    !yaml_document_get_root_node(&d) != !yaml_document_get_root_node(&plain) ||
		    (yaml_document_get_root_node(&d) &&
		     yaml_document_get_root_node(&d)->type != yaml_document_get_root_node(&plain)->type))
			finding("not the document libyaml loads", why);
		yaml_document_delete(&plain);
		yaml_document_delete(&d);
	} else if (ret == -EBADMSG) {
		docs = plain_docs(data, size, NULL);
		if (docs >= 0 && docs <= 1)
			finding("refused as not YAML, but libyaml loads one document", why);
	} else if (ret == -E2BIG) {
		if (!strstr(why, "nested deeper than") && !strstr(why, "nodes") &&
		    !strstr(why, "anchors and aliases") && !strstr(why, "directives"))
			finding("past a bound, but the reason names none", why);
	} else if (ret != -ENOMEM) {
		finding("an unexpected return", why);
	}
	return 0;
}
