/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to libiopath: what the files of the campaign's state
 * (lib/campaign_*.c) share: JSON in and out, the checks of names.
 */
#ifndef IOPATH_CAMPAIGN_INT_H
#define IOPATH_CAMPAIGN_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "campaign.h"

/* A test or program name as the verdict engine writes it: [A-Za-z0-9_.:+?-], 1 to 255. */
bool iop_campaign_test_ok(const char *s);
/* A selftest program of a mutant's "# Tests:": [a-z0-9_]+_test. */
bool iop_campaign_program_ok(const char *s);

/* @v as a JSON array of strings; NULL without memory. */
json_t *iop_campaign_jstrs(const struct iop_strs *v);
/*
 * The JSON array @a of strings, each passing @ok (if given), added to @v;
 * -EINVAL naming @what of @path, or -ENOMEM, with @why.
 */
int iop_campaign_strs(json_t *a, struct iop_strs *v, bool (*ok)(const char *s),
		      const char *path, const char *what, char *why, size_t len);
/* @doc (its reference taken; NULL: out of memory) written to @path through lib/outfile.c. */
int iop_campaign_write(json_t *doc, const char *path, char *why, size_t len);
/*
 * The JSON object of @path, a regular file of at most @max bytes whose
 * "schema" is @schema; NULL with @why.
 */
json_t *iop_campaign_load(const char *path, size_t max, const char *schema, char *why,
			  size_t len);

#endif
