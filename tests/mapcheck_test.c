// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of lib/mapcheck: a correct iomap iteration passes, and each
 * kind of state carried from one extent into the next (stale type, stale
 * NEW or SHARED flag, leftover srcmap, stale offset, wrong advance, an
 * iomap_iter call too many or too few) is rejected. The rejections are the
 * proof that the selftests' trace checks can fail.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <string.h>

#include "kselftest_harness.h"
#include "mapcheck.h"
#include "tracefs.h"

#define K64 0x10000ull

/*
 * The layout: [shared, COW over it][hole being written][unwritten][written],
 * as one buffered write over an XFS reflink file would see it.
 */
static const struct iop_map_extent layout[] = {
	{ 0 * K64, K64, IOP_IOMAP_DELALLOC, 0, IOP_IOMAP_F_NEW | IOP_IOMAP_F_SHARED, 0, true },
	{ 1 * K64, K64, IOP_IOMAP_DELALLOC, 0, IOP_IOMAP_F_NEW, 0, false },
	{ 2 * K64, K64, IOP_IOMAP_UNWRITTEN, 0, 0, 0, false },
	{ 3 * K64, K64, IOP_IOMAP_MAPPED, 0, 0, 0, false },
};

#define NLAYOUT (ARRAY_SIZE(layout))

FIXTURE(mapcheck) {
	struct iop_map_event ev[32];
	size_t n;
	struct iop_map_verdict v;
};

static void push(FIXTURE_DATA(mapcheck) *self, enum iop_map_kind kind, uint64_t off,
		 uint64_t len, uint16_t type, uint32_t flags)
{
	struct iop_map_event *e = &self->ev[self->n++];

	e->kind = kind;
	e->ino = 0x83;
	e->offset = off;
	e->length = len;
	e->type = type;
	e->flags = flags;
}

/* What a correct kernel records for a write of [0, 256K). */
FIXTURE_SETUP(mapcheck)
{
	memset(self, 0, sizeof(*self));
	push(self, IOP_MAP_ITER, 0, 0, 0, IOP_IOMAP_WRITE);
	push(self, IOP_MAP_DST, 0, K64, IOP_IOMAP_DELALLOC, IOP_IOMAP_F_NEW | IOP_IOMAP_F_SHARED);
	push(self, IOP_MAP_SRC, 0, K64, IOP_IOMAP_MAPPED, 0);
	push(self, IOP_MAP_ITER, K64, 0, 0, IOP_IOMAP_WRITE);
	push(self, IOP_MAP_DST, K64, K64, IOP_IOMAP_DELALLOC, IOP_IOMAP_F_NEW | IOP_IOMAP_F_DIRTY);
	push(self, IOP_MAP_ITER, 2 * K64, 0, 0, IOP_IOMAP_WRITE);
	push(self, IOP_MAP_DST, 2 * K64, K64, IOP_IOMAP_UNWRITTEN, 0);
	push(self, IOP_MAP_ITER, 3 * K64, 0, 0, IOP_IOMAP_WRITE);
	push(self, IOP_MAP_DST, 3 * K64, K64, IOP_IOMAP_MAPPED, 0);
	push(self, IOP_MAP_ITER, 4 * K64, 0, 0, IOP_IOMAP_WRITE);
}

FIXTURE_TEARDOWN(mapcheck)
{
}

static bool check(FIXTURE_DATA(mapcheck) *self, uint64_t start, uint64_t len)
{
	return iop_mapcheck(self->ev, self->n, layout, NLAYOUT, start, len, 0, &self->v);
}

/* Indices of the dstmaps in the fixture's sequence. */
#define DST0 1
#define SRC0 2
#define DST1 4
#define DST2 6
#define DST3 8

TEST_F(mapcheck, correct_sequence_passes)
{
	ASSERT_TRUE(check(self, 0, 4 * K64)) TH_LOG("%s", self->v.reason);
	EXPECT_EQ(4u, self->v.mappings);
	EXPECT_EQ(5u, self->v.iters);
}

TEST_F(mapcheck, flags_outside_the_mask_are_not_judged)
{
	/* DIRTY on the second mapping is not in IOP_MAP_FLAGS_STATE. */
	ASSERT_TRUE(check(self, 0, 4 * K64)) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, first_mapping_may_start_before_the_range)
{
	/* A write at pos 100 gets the mapping of the whole first extent. */
	self->ev[0].offset = 100;
	ASSERT_TRUE(check(self, 100, 4 * K64 - 100)) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, last_mapping_may_run_past_the_range)
{
	/* A write ending at 200K still gets the whole written extent. */
	self->ev[self->n - 1].offset = 200 * 1024;
	ASSERT_TRUE(check(self, 0, 200 * 1024)) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, stale_type_is_rejected)
{
	/* The unwritten extent reported with the previous mapping's type. */
	self->ev[DST2].type = IOP_IOMAP_DELALLOC;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "type DELALLOC, extent is UNWRITTEN"))
		TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, alternative_type_is_accepted_only_where_listed)
{
	struct iop_map_extent alt[NLAYOUT];

	memcpy(alt, layout, sizeof(alt));
	alt[2].types_also = 1u << IOP_IOMAP_MAPPED;
	self->ev[DST2].type = IOP_IOMAP_MAPPED;
	ASSERT_TRUE(iop_mapcheck(self->ev, self->n, alt, NLAYOUT, 0, 4 * K64, 0, &self->v))
		TH_LOG("%s", self->v.reason);
	self->ev[DST2].type = IOP_IOMAP_HOLE;
	ASSERT_FALSE(iop_mapcheck(self->ev, self->n, alt, NLAYOUT, 0, 4 * K64, 0, &self->v));
}

TEST_F(mapcheck, stale_new_flag_is_rejected)
{
	self->ev[DST2].flags = IOP_IOMAP_F_NEW;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "flags 0x1")) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, stale_shared_flag_is_rejected)
{
	/* The hole after a shared extent still marked SHARED. */
	self->ev[DST1].flags |= IOP_IOMAP_F_SHARED;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "mapping 1")) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, missing_shared_flag_is_rejected)
{
	self->ev[DST0].flags = IOP_IOMAP_F_NEW;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "mapping 0")) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, stale_flag_in_a_fresh_mapping_is_rejected)
{
	self->ev[DST3].flags = IOP_IOMAP_F_STALE;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "STALE")) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, leftover_srcmap_on_an_unshared_extent_is_rejected)
{
	/* The shared extent's srcmap repeated after the next dstmap. */
	memmove(&self->ev[DST1 + 2], &self->ev[DST1 + 1],
		(self->n - DST1 - 1) * sizeof(self->ev[0]));
	self->ev[DST1 + 1] = self->ev[SRC0];
	self->n++;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "leftover srcmap")) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, shared_extent_without_srcmap_is_rejected)
{
	memmove(&self->ev[SRC0], &self->ev[SRC0 + 1], (self->n - SRC0 - 1) * sizeof(self->ev[0]));
	self->n--;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "without srcmap")) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, srcmap_not_covering_the_mapping_is_rejected)
{
	self->ev[SRC0].offset = K64 / 2;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "does not cover")) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, srcmap_bounds_the_cow_mapping)
{
	/*
	 * XFS reserves COW blocks past the shared extent (cowextsize); the
	 * core advances only to the srcmap's end, so this is correct.
	 */
	self->ev[DST0].length = 2 * K64;
	ASSERT_TRUE(check(self, 0, 4 * K64)) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, srcmap_ending_before_the_mapping_is_rejected)
{
	/* A srcmap of the extent before: it ends where this mapping starts. */
	self->ev[SRC0].offset = 0;
	self->ev[SRC0].length = 0;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "does not cover")) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, gap_between_mappings_is_rejected)
{
	self->ev[DST2].offset += 0x1000;
	self->ev[DST2].length -= 0x1000;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "gap")) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, stale_offset_is_rejected)
{
	/* The second mapping keeps the first one's offset and length. */
	self->ev[DST1].offset = 0;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "overlap")) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, wrong_advance_is_rejected)
{
	/* iomap_iter moved on to a position the previous mapping did not end at. */
	self->ev[DST2 - 1].offset += 0x1000;
	self->ev[DST2].offset += 0x1000;
	self->ev[DST2].length -= 0x1000;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "previous mapping ended")) TH_LOG("%s",
										 self->v.reason);
}

TEST_F(mapcheck, mapping_across_two_extents_is_rejected)
{
	/* A stale length: the hole's mapping swallows the unwritten extent. */
	self->ev[DST1].length = 2 * K64;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "runs past extent")) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, extra_iomap_iter_call_is_rejected)
{
	push(self, IOP_MAP_ITER, 4 * K64, 0, 0, IOP_IOMAP_WRITE);
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "6 iomap_iter calls for 4 mappings"))
		TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, missing_final_iomap_iter_call_is_rejected)
{
	self->n--;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "4 iomap_iter calls for 4 mappings"))
		TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, range_not_consumed_is_rejected)
{
	/* Loop ended after three mappings although the range goes on. */
	self->n = DST2 + 2;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "consumed only to 0x30000"))
		TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, mapping_of_another_inode_is_rejected)
{
	self->ev[DST3].ino = 0x84;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "inode")) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, partial_loop_passes_only_with_partial_flag)
{
	/* SEEK_DATA: stops while holding the second mapping. */
	self->n = DST1 + 2;
	self->ev[DST1 + 1].offset = K64;
	self->ev[DST1 + 1].length = K64;
	EXPECT_FALSE(check(self, 0, 4 * K64));
	ASSERT_TRUE(iop_mapcheck(self->ev, self->n, layout, NLAYOUT, 0, 4 * K64,
				 IOP_MAPCHECK_PARTIAL, &self->v)) TH_LOG("%s", self->v.reason);
	EXPECT_EQ(2u, self->v.mappings);
}

TEST_F(mapcheck, partial_loop_still_judges_types)
{
	self->n = DST1 + 2;
	self->ev[DST1 + 1].offset = K64;
	self->ev[DST1 + 1].length = K64;
	self->ev[DST1].type = IOP_IOMAP_MAPPED;
	ASSERT_FALSE(iop_mapcheck(self->ev, self->n, layout, NLAYOUT, 0, 4 * K64,
				  IOP_MAPCHECK_PARTIAL, &self->v));
}

/*
 * Before 6.15 the iomap_iter event came ahead of the advance: each call
 * after a mapping shows that mapping's start and length.
 */
static void to_pre_advance(FIXTURE_DATA(mapcheck) *self)
{
	static const size_t iters[] = { DST1 - 1, DST2 - 1, DST3 - 1, DST3 + 1 };
	unsigned int i;

	for (i = 0; i < self->n; i++)
		if (self->ev[i].kind == IOP_MAP_ITER)
			self->ev[i].pre_advance = true;
	for (i = 0; i < 4; i++) {
		self->ev[iters[i]].offset = i * K64;
		self->ev[iters[i]].length = K64;
	}
}

TEST_F(mapcheck, pre_advance_sequence_passes)
{
	to_pre_advance(self);
	ASSERT_TRUE(check(self, 0, 4 * K64)) TH_LOG("%s", self->v.reason);
	EXPECT_EQ(4u, self->v.mappings);
}

TEST_F(mapcheck, pre_advance_wrong_length_is_rejected)
{
	/* The second mapping consumed less than it covers: a short advance. */
	to_pre_advance(self);
	self->ev[DST2 - 1].length = K64 / 2;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "iomap_iter 2")) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, pre_advance_stale_type_is_rejected)
{
	to_pre_advance(self);
	self->ev[DST2].type = IOP_IOMAP_DELALLOC;
	ASSERT_FALSE(check(self, 0, 4 * K64));
	EXPECT_NE(NULL, strstr(self->v.reason, "type DELALLOC")) TH_LOG("%s", self->v.reason);
}

TEST_F(mapcheck, loops_are_split_at_an_iter_without_dstmap)
{
	struct iop_map_event two[40];
	size_t start = 99, len = 99, n = self->n;

	/* an unrelated REPORT loop, then the write loop */
	memcpy(&two[0], &self->ev[0], n * sizeof(two[0]));
	memcpy(&two[n], &self->ev[0], n * sizeof(two[0]));
	two[0].flags = IOP_IOMAP_REPORT;
	ASSERT_EQ(0, iop_map_loop_find(two, 2 * n, 0, 0, IOP_IOMAP_REPORT, IOP_IOMAP_REPORT,
				       &start, &len));
	EXPECT_EQ(0u, start);
	EXPECT_EQ(n, len);
	ASSERT_EQ(0, iop_map_loop_find(two, 2 * n, 0, 0x83, IOP_IOMAP_REPORT, 0, &start, &len));
	EXPECT_EQ(n, start);
	EXPECT_EQ(n, len);
	EXPECT_EQ(-ENOENT, iop_map_loop_find(two, 2 * n, 0, 0x99, 0, 0, &start, &len));
	ASSERT_TRUE(iop_mapcheck(&two[start], len, layout, NLAYOUT, 0, 4 * K64, 0, &self->v))
		TH_LOG("%s", self->v.reason);
}

#define MAP_64K_FIELDS "dev 7:0 ino 0x83 bdev 7:0 addr 0x18000 offset 0x10000 length 0x10000 "

TEST_F(mapcheck, trace_lines_convert_to_events)
{
	struct iop_map_event e;
	char f1[] = "dev 7:0 ino 0x83 pos 0x64 length 0x2227c status 0 flags WRITE (0x1) "
		    "ops 0xffffffff82469ab0 caller iomap_file_buffered_write+0xcf/0x470";
	char f2[] = "dev 7:0 ino 0x83 bdev 7:0 addr 0xffffffffffffffff offset 0x20000 "
		    "length 0x3000 type DELALLOC (0x1) flags NEW|SHARED (0x5)";
	/* f3-f6: one mapping of [64K, 128K), its type and flags as kernels print them */
	char f3[] = MAP_64K_FIELDS "type HOLE (0x0) flags  (0x0)";
	char f4[] = MAP_64K_FIELDS "type UNWRITTEN flags NEW|SHARED|STALE";
	char f5[] = MAP_64K_FIELDS "type HOLE flags";
	char f6[] = MAP_64K_FIELDS "type 0x7 flags DIRTY|0x4000";
	char f7[] = "dev 7:0 ino 0x83 pos 0x0 length 0x10000 processed 65536 flags REPORT (0x4) "
		    "ops 0xffffffff82469aa0 caller iomap_fiemap+0x1f0/0x270";
	struct iop_trace_event t = { .event = "iomap_iter", .fields = f1 };
	uint64_t dev;
	char buf[64];

	ASSERT_EQ(0, iop_map_event_from_trace(&t, &e));
	EXPECT_EQ(IOP_MAP_ITER, e.kind);
	EXPECT_EQ(0x83u, e.ino);
	EXPECT_EQ(0x64u, e.offset);
	EXPECT_EQ(0x2227cu, e.length);
	EXPECT_EQ(IOP_IOMAP_WRITE, e.flags);
	EXPECT_FALSE(e.pre_advance);
	ASSERT_EQ(0, iop_trace_field_u64(&t, "dev", &dev));
	EXPECT_EQ(iop_trace_devno(7, 0), dev);
	ASSERT_EQ(0, iop_trace_field_str(&t, "caller", buf, sizeof(buf)));
	EXPECT_STREQ("iomap_file_buffered_write+0xcf/0x470", buf);

	t.event = "iomap_iter_dstmap";
	t.fields = f2;
	ASSERT_EQ(0, iop_map_event_from_trace(&t, &e));
	EXPECT_EQ(IOP_MAP_DST, e.kind);
	EXPECT_EQ(0x20000u, e.offset);
	EXPECT_EQ(0x3000u, e.length);
	EXPECT_EQ(IOP_IOMAP_DELALLOC, e.type);
	EXPECT_EQ(IOP_IOMAP_F_NEW | IOP_IOMAP_F_SHARED, e.flags);
	/* "bdev 7:0" must not be taken for "dev" */
	ASSERT_EQ(0, iop_trace_field_u64(&t, "addr", &dev));
	EXPECT_EQ(UINT64_MAX, dev);

	t.event = "iomap_iter_srcmap";
	t.fields = f3;
	ASSERT_EQ(0, iop_map_event_from_trace(&t, &e));
	EXPECT_EQ(IOP_MAP_SRC, e.kind);
	EXPECT_EQ(IOP_IOMAP_HOLE, e.type);
	EXPECT_EQ(0u, e.flags);

	/* 6.12 (processed) and 6.1 (neither): the event precedes the advance */
	t.event = "iomap_iter";
	t.fields = f7;
	ASSERT_EQ(0, iop_map_event_from_trace(&t, &e));
	EXPECT_TRUE(e.pre_advance);
	EXPECT_EQ(IOP_IOMAP_REPORT, e.flags);
	EXPECT_EQ(0x10000u, e.length);

	/* Kernels up to at least 6.12: names only, no raw values. */
	t.event = "iomap_iter_dstmap";
	t.fields = f4;
	ASSERT_EQ(0, iop_map_event_from_trace(&t, &e));
	EXPECT_EQ(IOP_IOMAP_UNWRITTEN, e.type);
	EXPECT_EQ(IOP_IOMAP_F_NEW | IOP_IOMAP_F_SHARED | IOP_IOMAP_F_STALE, e.flags);
	t.fields = f5;
	ASSERT_EQ(0, iop_map_event_from_trace(&t, &e));
	EXPECT_EQ(IOP_IOMAP_HOLE, e.type);
	EXPECT_EQ(0u, e.flags);
	t.fields = f6;
	ASSERT_EQ(0, iop_map_event_from_trace(&t, &e));
	EXPECT_EQ(7, e.type);
	EXPECT_EQ(IOP_IOMAP_F_DIRTY, e.flags);

	t.event = "iomap_dio_complete";
	EXPECT_EQ(-ENOENT, iop_map_event_from_trace(&t, &e));
	EXPECT_EQ(-ENOENT, iop_trace_field_u64(&t, "nonexistent", &dev));
}

TEST_HARNESS_MAIN
