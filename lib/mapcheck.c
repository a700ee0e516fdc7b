// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Checker for recorded iomap iterations (see mapcheck.h). The iomap core
 * zeroes iter->iomap and iter->srcmap before asking the filesystem for the
 * next extent; a kernel that loses that (or a filesystem that leaves fields
 * unset) shows up here as a mapping whose type, flags or srcmap belong to
 * the previous extent, or as a wrong advance.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_size.h"
#include "mapcheck.h"

const char *iop_map_type_name(unsigned int type)
{
	static const char *const names[] = {
		"HOLE", "DELALLOC", "MAPPED", "UNWRITTEN", "INLINE",
	};

	return type < ARRAY_SIZE(names) ? names[type] : "?";
}

/*
 * Mapping type and flags by name: stable across kernels, while the raw
 * "(0x..)" values were added to the dstmap/srcmap output only recently
 * (up to at least 6.12 it is "type MAPPED flags NEW|SHARED") and the
 * IOMAP_F_* bit values above DIRTY/SHARED/MERGED have moved between
 * releases (STALE was 1 << 9, is 1 << 15). Unknown names and bits that
 * print as hex are not judged and are ignored.
 */
static const struct {
	const char *name;
	uint32_t bit;
} map_flag_names[] = {
	{ "NEW", IOP_IOMAP_F_NEW },
	{ "DIRTY", IOP_IOMAP_F_DIRTY },
	{ "SHARED", IOP_IOMAP_F_SHARED },
	{ "MERGED", IOP_IOMAP_F_MERGED },
	{ "STALE", IOP_IOMAP_F_STALE },
};

static int map_flags_from_trace(const struct iop_trace_event *tev, uint32_t *flags)
{
	char buf[256], *tok, *save = NULL;
	size_t i;

	if (iop_trace_field_str(tev, "flags", buf, sizeof(buf)))
		return -EINVAL;
	*flags = 0;
	for (tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save))
		for (i = 0; i < ARRAY_SIZE(map_flag_names); i++)
			if (!strcmp(tok, map_flag_names[i].name))
				*flags |= map_flag_names[i].bit;
	return 0;
}

static int map_type_from_trace(const struct iop_trace_event *tev, uint16_t *type)
{
	char buf[32], *end;
	unsigned int t;
	unsigned long v;

	if (iop_trace_field_str(tev, "type", buf, sizeof(buf)))
		return -EINVAL;
	for (t = IOP_IOMAP_HOLE; t <= IOP_IOMAP_INLINE; t++) {
		if (!strcmp(buf, iop_map_type_name(t))) {
			*type = (uint16_t)t;
			return 0;
		}
	}
	/* __print_symbolic() prints an unknown value in hex */
	v = strtoul(buf, &end, 0);
	if (end == buf || *end || v > UINT16_MAX)
		return -EINVAL;
	*type = (uint16_t)v;
	return 0;
}

int iop_map_event_from_trace(const struct iop_trace_event *tev, struct iop_map_event *out)
{
	uint64_t ino, off, len, flags;
	const char *offname = "offset";

	memset(out, 0, sizeof(*out));
	if (!strcmp(tev->event, "iomap_iter")) {
		out->kind = IOP_MAP_ITER;
		offname = "pos";
	} else if (!strcmp(tev->event, "iomap_iter_dstmap")) {
		out->kind = IOP_MAP_DST;
	} else if (!strcmp(tev->event, "iomap_iter_srcmap")) {
		out->kind = IOP_MAP_SRC;
	} else {
		return -ENOENT;
	}
	if (iop_trace_field_u64(tev, "ino", &ino) ||
	    iop_trace_field_u64(tev, offname, &off) ||
	    iop_trace_field_u64(tev, "length", &len))
		return -EINVAL;
	if (out->kind == IOP_MAP_ITER) {
		/* IOMAP_* op flags: raw value printed on every kernel, bits stable */
		if (iop_trace_field_u64(tev, "flags", &flags))
			return -EINVAL;
		out->flags = (uint32_t)flags;
		/* "status" came with the 6.15 rework that moved the advance */
		out->pre_advance = iop_trace_field_u64(tev, "status", &flags) == -ENOENT;
	} else if (map_type_from_trace(tev, &out->type) ||
		   map_flags_from_trace(tev, &out->flags)) {
		return -EINVAL;
	}
	out->ino = ino;
	out->offset = off;
	out->length = len;
	return 0;
}

int iop_map_loop_find(const struct iop_map_event *ev, size_t n, size_t from,
		      uint64_t ino, uint32_t op_mask, uint32_t op_flags,
		      size_t *start, size_t *len)
{
	size_t i, j;

	for (i = from; i < n; i = j + 1) {
		j = i;
		if (ev[i].kind != IOP_MAP_ITER)
			continue;
		/* iter (dst [src] iter)* : ends at an iter with no dst after it */
		while (j + 1 < n && ev[j + 1].kind == IOP_MAP_DST) {
			j++;
			if (j + 1 < n && ev[j + 1].kind == IOP_MAP_SRC)
				j++;
			if (j + 1 < n && ev[j + 1].kind == IOP_MAP_ITER)
				j++;
			else
				break;
		}
		/* A loop is judged by its first call; other loops are skipped whole. */
		if ((ev[i].flags & op_mask) != op_flags || (ino && ev[i].ino != ino))
			continue;
		*start = i;
		*len = j - i + 1;
		return 0;
	}
	return -ENOENT;
}

__attribute__((format(printf, 2, 3)))
static bool reject(struct iop_map_verdict *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->reason, sizeof(v->reason), fmt, ap);
	va_end(ap);
	v->ok = false;
	return false;
}

static const struct iop_map_extent *extent_at(const struct iop_map_extent *layout,
					      size_t nlayout, uint64_t pos)
{
	size_t i;

	for (i = 0; i < nlayout; i++)
		if (pos >= layout[i].offset && pos - layout[i].offset < layout[i].length)
			return &layout[i];
	return NULL;
}

static uint64_t end_of(uint64_t off, uint64_t len)
{
	return len > UINT64_MAX - off ? UINT64_MAX : off + len;
}

/* Mapping @k (@d) must begin at @pos (the first may begin before it) and cover it. */
static bool check_position(struct iop_map_verdict *v, unsigned int k,
			   const struct iop_map_event *d, uint64_t pos, uint64_t rend)
{
	if (pos >= rend)
		return reject(v, "mapping %u at 0x%" PRIx64 " is past the range end 0x%" PRIx64,
			      k, d->offset, rend);
	if (d->offset > pos)
		return reject(v, "gap: mapping %u starts at 0x%" PRIx64 ", expected 0x%" PRIx64,
			      k, d->offset, pos);
	if (k > 0 && d->offset < pos)
		return reject(v, "overlap: mapping %u starts at 0x%" PRIx64 ", previous ended at 0x%" PRIx64,
			      k, d->offset, pos);
	if (end_of(d->offset, d->length) <= pos)
		return reject(v, "mapping %u [0x%" PRIx64 ",+0x%" PRIx64 ") does not cover pos 0x%" PRIx64,
			      k, d->offset, d->length, pos);
	return true;
}

/*
 * Mapping @k (@d, srcmap @s or NULL) at @pos against the layout's extent
 * @e there; *@jend gets where the iterator may advance to.
 */
static bool check_extent(struct iop_map_verdict *v, unsigned int k,
			 const struct iop_map_event *d, const struct iop_map_event *s,
			 const struct iop_map_extent *e, uint64_t pos,
			 uint64_t rend, uint64_t *jend)
{
	uint64_t dend = end_of(d->offset, d->length);
	uint16_t mask;

	if (e->srcmap && !s)
		return reject(v,
			      "mapping %u at 0x%" PRIx64 ": shared extent without srcmap", k, pos);
	if (!e->srcmap && s)
		return reject(v, "mapping %u at 0x%" PRIx64 ": leftover srcmap [0x%" PRIx64 ",+0x%" PRIx64 ") %s on an unshared extent",
			      k, pos, s->offset, s->length, iop_map_type_name(s->type));
	*jend = dend < rend ? dend : rend;
	/*
	 * With a srcmap the core advances at most to its end
	 * (iomap_length_trim()): a COW reservation may reach past the
	 * shared extent, the srcmap does not.
	 */
	if (s) {
		uint64_t send = end_of(s->offset, s->length);

		if (s->offset > pos || send <= pos)
			return reject(v, "mapping %u at 0x%" PRIx64 ": srcmap [0x%" PRIx64 ",+0x%" PRIx64 ") does not cover it",
				      k, pos, s->offset, s->length);
		if (send < *jend)
			*jend = send;
	}
	if (*jend > end_of(e->offset, e->length))
		return reject(v, "mapping %u [0x%" PRIx64 ",0x%" PRIx64 ") runs past extent [0x%" PRIx64 ",0x%" PRIx64 ")",
			      k, pos, *jend, e->offset, end_of(e->offset, e->length));
	if (d->type != e->type && !(d->type < 16 && (e->types_also & (1u << d->type))))
		return reject(v, "mapping %u at 0x%" PRIx64 ": type %s, extent is %s",
			      k, pos, iop_map_type_name(d->type), iop_map_type_name(e->type));
	mask = e->flags_mask ? e->flags_mask : IOP_MAP_FLAGS_STATE;
	if ((d->flags ^ e->flags) & mask)
		return reject(v, "mapping %u at 0x%" PRIx64 ": flags 0x%x, extent expects 0x%x (mask 0x%x)",
			      k, pos, d->flags, e->flags & mask, mask);
	if (d->flags & IOP_IOMAP_F_STALE)
		return reject(v,
			      "mapping %u at 0x%" PRIx64 ": STALE flag in a fresh mapping", k, pos);
	if (s && s->type != IOP_IOMAP_MAPPED)
		return reject(v, "mapping %u at 0x%" PRIx64 ": srcmap type %s, expected MAPPED",
			      k, pos, iop_map_type_name(s->type));
	return true;
}

/*
 * The iomap_iter call @nx after mapping @k over [@pos, @jend). From 6.15
 * the operation advances the iter itself and the event shows the advanced
 * pos with nothing left of the mapping; before, the event came ahead of
 * the advance and shows the mapping's start and the length about to be
 * consumed. A loop cut short (SEEK, @last_of_partial) shows the latter on
 * every kernel.
 */
static bool check_next_iter(struct iop_map_verdict *v, unsigned int k,
			    const struct iop_map_event *nx, uint64_t pos, uint64_t jend,
			    bool last_of_partial)
{
	bool held = nx->offset == pos && nx->length == jend - pos;

	if (nx->pre_advance || (last_of_partial && held)) {
		if (!held)
			return reject(v, "iomap_iter %u at pos 0x%" PRIx64 " length 0x%" PRIx64 ", mapping %u covers [0x%" PRIx64 ",0x%" PRIx64 ")",
				      k + 1, nx->offset, nx->length, k, pos, jend);
	} else if (nx->offset != jend || nx->length) {
		return reject(v, "iomap_iter %u at pos 0x%" PRIx64 " length 0x%" PRIx64 ", previous mapping ended at 0x%" PRIx64,
			      k + 1, nx->offset, nx->length, jend);
	}
	return true;
}

bool iop_mapcheck(const struct iop_map_event *ev, size_t n,
		  const struct iop_map_extent *layout, size_t nlayout,
		  uint64_t start, uint64_t len, unsigned int opts,
		  struct iop_map_verdict *v)
{
	const bool partial = opts & IOP_MAPCHECK_PARTIAL;
	const uint64_t rend = end_of(start, len);
	uint64_t pos = start;	/* where the next mapping must begin */
	unsigned int k = 0;
	size_t i;

	memset(v, 0, sizeof(*v));
	for (i = 0; i < n; i++) {
		v->iters += ev[i].kind == IOP_MAP_ITER;
		v->mappings += ev[i].kind == IOP_MAP_DST;
	}
	if (!n || ev[0].kind != IOP_MAP_ITER)
		return reject(v, "sequence does not start with iomap_iter");
	if (!partial && v->iters != v->mappings + 1)
		return reject(v, "%u iomap_iter calls for %u mappings (expected %u)",
			      v->iters, v->mappings, v->mappings + 1);
	if (ev[0].offset != start)
		return reject(v,
			      "first iomap_iter at pos 0x%" PRIx64 ", range starts at 0x%" PRIx64,
			      ev[0].offset, start);

	for (i = 1; i < n; k++) {
		const struct iop_map_event *it = &ev[i - 1], *d, *s = NULL;
		const struct iop_map_extent *e;
		uint64_t jend = 0;

		if (ev[i].kind != IOP_MAP_DST)
			return reject(v, "event %zu: %s where a dstmap should follow iomap_iter",
				      i, ev[i].kind == IOP_MAP_SRC ? "srcmap" : "iomap_iter");
		d = &ev[i++];
		if (i < n && ev[i].kind == IOP_MAP_SRC)
			s = &ev[i++];
		if (i >= n || ev[i].kind != IOP_MAP_ITER)
			return reject(v, "mapping %u is not followed by iomap_iter", k);
		if (d->ino != ev[0].ino || it->ino != ev[0].ino)
			return reject(v,
				      "mapping %u: inode 0x%" PRIx64 " in a loop over 0x%" PRIx64,
				      k, d->ino, ev[0].ino);
		if (!check_position(v, k, d, pos, rend))
			return false;
		e = extent_at(layout, nlayout, pos);
		if (!e)
			return reject(v, "mapping %u at 0x%" PRIx64 ": no extent in the layout", k, pos);
		if (!check_extent(v, k, d, s, e, pos, rend, &jend) ||
		    !check_next_iter(v, k, &ev[i], pos, jend, partial && i == n - 1))
			return false;
		pos = jend;
		if (partial && i == n - 1)
			break;
		i++;
	}

	if (!partial && pos != rend)
		return reject(v, "range consumed only to 0x%" PRIx64 " of 0x%" PRIx64, pos, rend);
	v->ok = true;
	snprintf(v->reason, sizeof(v->reason), "%u mappings over [0x%" PRIx64 ",0x%" PRIx64 ") match the layout",
		 v->mappings, start, pos);
	return true;
}
