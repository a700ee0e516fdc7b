// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath lava's YAML: the one quoting of a value written into a job
 * (lava_jobs.c) and the one lookup of a key in a mapping, which the
 * checks of a job (lava_check.c), LAVA's schema (lava_schema.c) and the
 * log reader (lava_log.c) all use.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <string.h>
#include <yaml.h>

#include "lava.h"

void lava_yaml_quote(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			fprintf(f, "\\x%02x", *++p);	/* U+0080..U+009F */
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

yaml_node_t *lava_yaml_get(yaml_document_t *d, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;
	yaml_node_t *k, *found = NULL;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		k = yaml_document_get_node(d, p->key);
		if (k && k->type == YAML_SCALAR_NODE && k->data.scalar.length == strlen(key) &&
		    !memcmp(k->data.scalar.value, key, k->data.scalar.length))
			found = yaml_document_get_node(d, p->value);
	}
	return found;
}
