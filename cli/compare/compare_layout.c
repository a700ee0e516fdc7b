// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath compare: where the benchmark's file landed, boot by boot. The
 * records carry the file's extents (run.facts.file_layout, FIEMAP's
 * logical+length@physical). The filesystem's allocator may place a new
 * file elsewhere from one boot to the next (ext4 did, in 1 boot of 146,
 * with the same kernel and seed as boots that did not), and a read's
 * cost follows the layout (+12 instructions per ext4 read). When the two
 * boots of a pair read different layouts, the pair's difference is the
 * kernels' and the layouts' together: the comparison says so, pair by
 * pair, and changes no figure (docs/compare.md: nothing is dropped).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

struct layout_boot {
	const char *id;
	const char *layout;	/* NULL: not recorded; "" when its records disagree */
	const char *seed;	/* as compare_build.c's pairing takes it */
};

/* The boots of side @s of @g in order of first appearance; how many, or -ENOMEM. */
static long layout_boots(const struct iop_rs_group *g, int s, struct layout_boot **out)
{
	struct layout_boot *b = calloc(g->n[s] ? g->n[s] : 1, sizeof(*b));
	size_t nb = 0, k;

	*out = b;
	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < g->n[s]; i++) {
		const struct iop_rec *rec = g->recs[s][i];
		const char *id = rec->env.boot_id;
		const char *l = rec->run.file_layout;

		if (!id)
			continue;
		for (k = 0; k < nb && strcmp(b[k].id, id); k++)
			;
		if (k == nb) {
			b[nb].id = id;
			b[nb].layout = l;
			b[nb].seed = compare_rec_seed(rec);
			nb++;
		} else if (!b[k].layout != !l || (l && strcmp(b[k].layout, l))) {
			b[k].layout = "";
		}
	}
	return (long)nb;
}

static bool layouts_differ(const struct layout_boot *a, const struct layout_boot *b)
{
	return a->layout && b->layout && (!*a->layout || !*b->layout ||
					  strcmp(a->layout, b->layout));
}

/* A boot's layout in words: "" is its records disagreeing. */
static const char *layout_words(const struct layout_boot *b)
{
	return *b->layout ? b->layout : "(differs between its records)";
}

/* One pair's entry for the JSON and, the first time, the words for the verdict line. */
static int layout_pair(struct group_cmp *gc, size_t pair, const struct layout_boot *a,
		       const struct layout_boot *b)
{
	json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s}", "pair", (json_int_t)pair,
			      "seed", a->seed, "base_boot", a->id, "new_boot", b->id,
			      "base_layout", layout_words(a), "new_layout", layout_words(b));

	if (!o || json_array_append_new(gc->layouts, o))
		return -ENOMEM;
	if (!gc->layout_first &&
	    asprintf(&gc->layout_first, "pair %zu base '%s' new '%s'", pair, layout_words(a),
		     layout_words(b)) < 0) {
		gc->layout_first = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Boots not paired: the first boot, either side, whose layout is not the base's first. */
static int unpaired_note(struct group_cmp *gc, const char *label, struct layout_boot *b[2],
			 const long n[2])
{
	const struct layout_boot *f = &b[0][0];

	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < (size_t)n[s]; i++) {
			const struct layout_boot *o = &b[s][i];

			if (!layouts_differ(o, f))
				continue;
			return asprintf(&gc->layout_note,
					"file layout differs between boots of %s: %s boot %.8s '%s', base boot %.8s '%s': the difference includes the layouts'",
					label, s ? "new" : "base", o->id, o->layout, f->id,
					f->layout) < 0 ? -ENOMEM : 0;
		}
	}
	return 0;
}

/*
 * Boots paired by seed (iopath ab): each pair whose two boots read
 * different layouts. Otherwise, whether the boots' layouts are not all
 * one. Fills gc->layouts, gc->layout_pairs, gc->layout_first and
 * gc->layout_note (NULL when all agree). 0 or -ENOMEM.
 */
int compare_layout(struct group_cmp *gc, const char *label)
{
	struct layout_boot *b[2] = { NULL, NULL };
	long n[2];
	size_t paired = 0, i, j;
	int ret = -ENOMEM;

	gc->layouts = json_array();
	if (!gc->layouts)
		return -ENOMEM;
	n[0] = layout_boots(gc->g, 0, &b[0]);
	n[1] = layout_boots(gc->g, 1, &b[1]);
	if (n[0] < 0 || n[1] < 0)
		goto out;
	for (i = 0; i < (size_t)n[0]; i++) {
		if (!b[0][i].seed[0])
			continue;
		for (j = 0; j < (size_t)n[1] && strcmp(b[1][j].seed, b[0][i].seed); j++)
			;
		if (j == (size_t)n[1])
			continue;
		paired++;
		if (!layouts_differ(&b[0][i], &b[1][j]))
			continue;
		gc->layout_pairs++;
		if (layout_pair(gc, i + 1, &b[0][i], &b[1][j]))
			goto out;
	}
	if (gc->layout_pairs &&
	    asprintf(&gc->layout_note, "file layout differs within %zu of %zu pairs of %s (first: %s): each such pair's difference includes the layouts'",
		     gc->layout_pairs, paired, label, gc->layout_first) < 0)
		goto nomem;
	if (!paired && n[0] > 0 && unpaired_note(gc, label, b, n))
		goto nomem;
	ret = 0;
	goto out;
nomem:
	gc->layout_note = NULL;
out:
	free(b[0]);
	free(b[1]);
	return ret;
}
