// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bounded YAML loading (see yaml_bound.h): a pass over libyaml's events
 * that refuses a text past the bounds at the first event past them, then
 * libyaml's own loader on the text that passed. Two passes keep the
 * document exactly what libyaml makes of it; the first costs what the
 * second does, within the bounds.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "why.h"
#include "yaml_bound.h"

/* libyaml's error as "not YAML: line N: PROBLEM"; -ENOMEM for its own failure. */
static int parser_error(yaml_parser_t *p, char *why, size_t len)
{
	if (p->error == YAML_MEMORY_ERROR) {
		iop_why(why, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	iop_why(why, len, "not YAML: line %zu: %s", p->problem_mark.line + 1,
		p->problem ? p->problem : "unparsable");
	return -EBADMSG;
}

/* The events of the whole stream, each counted; 0 when within the bounds. */
static int walk(yaml_parser_t *p, char *why, size_t len)
{
	size_t depth = 0, nodes = 0, anchors = 0, docs = 0;
	yaml_event_t ev;
	bool end = false;
	int ret = 0;

	while (!end && !ret) {
		if (!yaml_parser_parse(p, &ev))
			return parser_error(p, why, len);
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			end = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1) {
				iop_why(why, len, "line %zu: more than one document",
					ev.start_mark.line + 1);
				ret = -EBADMSG;
			}
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth > IOP_YAML_MAX_DEPTH) {
				iop_why(why, len, "line %zu: nested deeper than %d levels",
					ev.start_mark.line + 1, IOP_YAML_MAX_DEPTH);
				ret = -E2BIG;
			}
			anchors += ev.type == YAML_SEQUENCE_START_EVENT ?
				   !!ev.data.sequence_start.anchor : !!ev.data.mapping_start.anchor;
			nodes++;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_SCALAR_EVENT:
			anchors += !!ev.data.scalar.anchor;
			nodes++;
			break;
		case YAML_ALIAS_EVENT:
			anchors++;
			nodes++;
			break;
		default:
			break;
		}
		if (!ret && nodes > IOP_YAML_MAX_NODES) {
			iop_why(why, len, "line %zu: more than %d nodes", ev.start_mark.line + 1,
				IOP_YAML_MAX_NODES);
			ret = -E2BIG;
		}
		if (!ret && anchors > IOP_YAML_MAX_ANCHORS) {
			iop_why(why, len, "line %zu: more than %d anchors and aliases",
				ev.start_mark.line + 1, IOP_YAML_MAX_ANCHORS);
			ret = -E2BIG;
		}
		yaml_event_delete(&ev);
	}
	return ret;
}

/*
 * The directives ("%TAG ..." lines) before a document are checked against
 * each other before its first event: a megabyte of them is minutes. A
 * line starting with '%' is counted as one, wherever it is.
 */
static int directives(const char *text, size_t n, char *why, size_t len)
{
	const char *p = text, *end = text + n;
	size_t count = 0, line = 1;

	while (p < end) {
		if (*p == '%' && ++count > IOP_YAML_MAX_DIRECTIVES) {
			iop_why(why, len, "line %zu: more than %d directives", line,
				IOP_YAML_MAX_DIRECTIVES);
			return -E2BIG;
		}
		p = memchr(p, '\n', end - p);
		if (!p)
			break;
		p++;
		line++;
	}
	return 0;
}

int iop_yaml_bounds(const char *text, size_t n, char *why, size_t len)
{
	yaml_parser_t p;
	int ret;

	ret = directives(text, n, why, len);
	if (ret)
		return ret;
	if (!yaml_parser_initialize(&p)) {
		iop_why(why, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, n);
	ret = walk(&p, why, len);
	yaml_parser_delete(&p);
	return ret;
}

int iop_yaml_load(const char *text, size_t n, yaml_document_t *doc, char *why, size_t len)
{
	yaml_parser_t p;
	int ret;

	ret = iop_yaml_bounds(text, n, why, len);
	if (ret)
		return ret;
	if (!yaml_parser_initialize(&p))
		goto nomem;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, n);
	ret = yaml_parser_load(&p, doc) ? 0 : parser_error(&p, why, len);
	yaml_parser_delete(&p);
	return ret;
nomem:
	iop_why(why, len, "%s", strerror(ENOMEM));
	return -ENOMEM;
}
