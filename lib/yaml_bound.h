/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one way iopath loads YAML (LAVA job files, the lines of a LAVA job
 * log): libyaml's document loader, behind a pass over the parser's events
 * that stops at the first event past a bound. libyaml's scanner looks at
 * every open flow collection for each token (its simple-key stack) and its
 * loader compares each anchor and alias with every anchor before it: a
 * megabyte of '[' or of anchors costs minutes of CPU, and so do its %TAG
 * directives, compared with each other before the first event: those are
 * counted first, by their lines. The event pass stops
 * as soon as the nesting is deeper than IOP_YAML_MAX_DEPTH, so the scanner
 * never holds more than that many levels for long, and the loader runs only
 * on a text that is known to be within all the bounds.
 */
#ifndef IOPATH_YAML_BOUND_H
#define IOPATH_YAML_BOUND_H

#include <stddef.h>
#include <yaml.h>

/* Collections inside each other: a LAVA job nests about 8 deep. */
#define IOP_YAML_MAX_DEPTH 64
/* Scalars, collections and aliases of the stream. */
#define IOP_YAML_MAX_NODES 65536
/* Anchors and aliases together: the loader's cost is their product. */
#define IOP_YAML_MAX_ANCHORS 256
/* Lines starting with '%' (%YAML, %TAG): each is compared with the others. */
#define IOP_YAML_MAX_DIRECTIVES 64

/*
 * Whether the @n bytes at @text are within the bounds and one YAML stream
 * of at most one document: 0; -E2BIG past a bound, -EBADMSG not YAML or
 * more than one document (each with a one-line reason in @why: "line N:
 * nested deeper than 64 levels", "line N: more than 65536 nodes", "line N:
 * more than 256 anchors and aliases", "line N: more than 64 directives",
 * "line N: more than one document",
 * "not YAML: line N: " and libyaml's error); -ENOMEM.
 */
int iop_yaml_bounds(const char *text, size_t n, char *why, size_t len);

/*
 * Load the single document of the @n bytes at @text into @doc (the caller
 * deletes it with yaml_document_delete()) once iop_yaml_bounds() passed
 * it. An empty stream is a document with no root node. 0, or what
 * iop_yaml_bounds() returns, with its reason.
 */
int iop_yaml_load(const char *text, size_t n, yaml_document_t *doc, char *why, size_t len);

#endif
