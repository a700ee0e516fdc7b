/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Judge one iomap iteration as the iomap tracepoints recorded it
 * (iomap_iter, iomap_iter_dstmap, iomap_iter_srcmap) against the extent
 * layout a test built. Catches mapping state carried from one extent to the
 * next: a stale type, stale NEW/SHARED flags, a leftover srcmap, a wrong
 * advance (gap or overlap), an extra or missing iomap_iter call.
 *
 * Pure functions: no I/O, no allocation; the caller collects the events
 * (lib/tracefs) and keeps the layout.
 */
#ifndef IOPATH_MAPCHECK_H
#define IOPATH_MAPCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracefs.h"

/* include/linux/iomap.h: mapping types (the "type" field of the events) */
#define IOP_IOMAP_HOLE		0
#define IOP_IOMAP_DELALLOC	1
#define IOP_IOMAP_MAPPED	2
#define IOP_IOMAP_UNWRITTEN	3
#define IOP_IOMAP_INLINE	4

/* mapping flags (IOMAP_F_*) */
#define IOP_IOMAP_F_NEW		0x0001
#define IOP_IOMAP_F_DIRTY	0x0002
#define IOP_IOMAP_F_SHARED	0x0004
#define IOP_IOMAP_F_MERGED	0x0008
#define IOP_IOMAP_F_STALE	0x8000

/* operation flags of iomap_iter (IOMAP_*) */
#define IOP_IOMAP_WRITE		0x0001
#define IOP_IOMAP_ZERO		0x0002
#define IOP_IOMAP_REPORT	0x0004
#define IOP_IOMAP_FAULT		0x0008
#define IOP_IOMAP_DIRECT	0x0010
#define IOP_IOMAP_UNSHARE	0x0080

/* The flags that carry per-extent state; checked unless a mask says otherwise. */
#define IOP_MAP_FLAGS_STATE	(IOP_IOMAP_F_NEW | IOP_IOMAP_F_SHARED)

enum iop_map_kind {
	IOP_MAP_ITER,		/* iomap_iter: offset = pos */
	IOP_MAP_DST,		/* iomap_iter_dstmap */
	IOP_MAP_SRC,		/* iomap_iter_srcmap */
};

struct iop_map_event {
	enum iop_map_kind kind;
	uint64_t ino;
	uint64_t offset;	/* iter: pos; maps: offset */
	uint64_t length;	/* iter: iomap_length() at entry */
	uint32_t flags;		/* iter: IOMAP_* op flags; maps: IOMAP_F_* */
	uint16_t type;		/* maps: IOP_IOMAP_* type */
	/*
	 * iter: recorded before the previous mapping was consumed (kernels
	 * before 6.15: pos is that mapping's start, length what it is about
	 * to consume); otherwise after (pos advanced, length 0 when the
	 * mapping was used up).
	 */
	bool pre_advance;
};

/* One extent of the layout the test built. */
struct iop_map_extent {
	uint64_t offset;
	uint64_t length;
	uint16_t type;		/* IOP_IOMAP_* the filesystem must report ... */
	uint16_t types_also;	/* ... or one of these (1 << IOP_IOMAP_*), 0: none */
	uint16_t flags;		/* expected IOMAP_F_* bits ... */
	uint16_t flags_mask;	/* ... among these; 0: IOP_MAP_FLAGS_STATE */
	bool srcmap;		/* a srcmap (blocks to copy from) must come with it */
};

/* The loop may stop before the range is consumed (SEEK_DATA/SEEK_HOLE). */
#define IOP_MAPCHECK_PARTIAL	0x1

struct iop_map_verdict {
	bool ok;
	unsigned int iters;	/* iomap_iter events in the loop */
	unsigned int mappings;	/* dstmap events */
	char reason[192];	/* one line: why it failed, or a summary */
};

/*
 * Convert one parsed trace line. Returns 0, or -ENOENT for an event that
 * is not one of the three, -EINVAL if a field is missing or malformed.
 */
int iop_map_event_from_trace(const struct iop_trace_event *tev, struct iop_map_event *out);

/*
 * Find the next loop in @ev[from..n): it starts at an iomap_iter whose op
 * flags satisfy (flags & op_mask) == op_flags and, if @ino is non-zero,
 * whose inode is @ino; it runs while dstmaps follow iomap_iter calls and
 * ends with the iomap_iter that is not followed by a dstmap. Events of
 * other inodes are not part of a loop and must have been filtered out.
 * Returns 0 with @start and @len set, or -ENOENT.
 */
int iop_map_loop_find(const struct iop_map_event *ev, size_t n, size_t from,
		      uint64_t ino, uint32_t op_mask, uint32_t op_flags,
		      size_t *start, size_t *len);

/*
 * Judge the loop @ev[0..n) over the byte range [@start, @start + @len)
 * (a loop without revalidation: a mapping the core marks IOMAP_F_STALE is
 * mapped again at the same pos, which this rejects as a wrong advance)
 * against @layout (sorted by offset, covering the range). Each mapping is
 * judged on the part the core processes: inside the range and, if it has a
 * srcmap, inside the srcmap. Returns v->ok.
 */
bool iop_mapcheck(const struct iop_map_event *ev, size_t n,
		  const struct iop_map_extent *layout, size_t nlayout,
		  uint64_t start, uint64_t len, unsigned int opts,
		  struct iop_map_verdict *v);

/* "HOLE", "MAPPED", ... for messages. */
const char *iop_map_type_name(unsigned int type);

#endif
