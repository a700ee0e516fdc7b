// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lib/scratch.c's options: the environment (IOPATH_BACKING,
 * IOPATH_SCRATCH_*), sizes and the backing as users write them. No root
 * needed, nothing is created.
 *
 * Catches: an environment parser that accepts a malformed value or changes
 * the options while refusing them; a size spelling one parser takes and
 * another refuses ("4KiB"); a backing name that differs between what is
 * parsed and what state files and records say; a benchmark's ext4 mounted
 * with the lazyinit thread's block bitmap prefetch, which put a file
 * where that thread's random start time said (issue 50, docs/ab.md),
 * and options the user gave lost or overridden.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "iopath.h"

static bool one_line(const char *s)
{
	return s[0] && !strchr(s, '\n');
}

/* ---- the environment -------------------------------------------------- */

FIXTURE(env) {
	int unused;
};

FIXTURE_SETUP(env)
{
	static const char *const vars[] = {
		"IOPATH_BACKING", "IOPATH_SCRATCH_DEV", "IOPATH_SCRATCH_DIR",
		"IOPATH_SCRATCH_FORCE_MKFS", "IOPATH_SCRATCH_SIZE", "IOPATH_SCRATCH_DAX_DEV",
	};

	self->unused = 0;
	/* Each test runs in its own process: the changes stay there. */
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++)
		unsetenv(vars[i]);
}

FIXTURE_TEARDOWN(env)
{
}

TEST_F(env, opts_from_env_accepts_each_form)
{
	struct iop_scratch_opts o = { .fstype = "xfs", .mkfs_opts = "-m reflink=1" };
	char why[256];

	ASSERT_EQ(0, iop_scratch_opts_from_env(&o, why, sizeof(why)));
	EXPECT_EQ(IOP_BACKING_DEFAULT, o.backing);
	EXPECT_EQ(0, o.size);
	EXPECT_FALSE(o.force);

	setenv("IOPATH_BACKING", "loop", 1);
	setenv("IOPATH_SCRATCH_SIZE", "512m", 1);
	ASSERT_EQ(0, iop_scratch_opts_from_env(&o, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(IOP_BACKING_LOOP, o.backing);
	EXPECT_EQ(512ull << 20, o.size);
	EXPECT_STREQ("xfs", o.fstype);
	EXPECT_STREQ("-m reflink=1", o.mkfs_opts);

	setenv("IOPATH_BACKING", "zram", 1);
	setenv("IOPATH_SCRATCH_SIZE", "2G", 1);
	ASSERT_EQ(0, iop_scratch_opts_from_env(&o, why, sizeof(why)));
	EXPECT_EQ(IOP_BACKING_ZRAM, o.backing);
	EXPECT_EQ(2ull << 30, o.size);

	unsetenv("IOPATH_BACKING");
	setenv("IOPATH_SCRATCH_SIZE", "1073741824", 1);
	setenv("IOPATH_SCRATCH_DEV", "/dev/nvme0n1", 1);
	setenv("IOPATH_SCRATCH_FORCE_MKFS", IOP_FORCE_MKFS_WORD, 1);
	ASSERT_EQ(0, iop_scratch_opts_from_env(&o, why, sizeof(why)));
	EXPECT_EQ(IOP_BACKING_DEVICE, o.backing);
	EXPECT_STREQ("/dev/nvme0n1", o.device);
	EXPECT_TRUE(o.force);
	EXPECT_EQ(1ull << 30, o.size);

	unsetenv("IOPATH_SCRATCH_DEV");
	unsetenv("IOPATH_SCRATCH_FORCE_MKFS");
	setenv("IOPATH_SCRATCH_DIR", "/mnt/test", 1);
	o.force = false;
	ASSERT_EQ(0, iop_scratch_opts_from_env(&o, why, sizeof(why)));
	EXPECT_EQ(IOP_BACKING_DIR, o.backing);
	EXPECT_STREQ("/mnt/test", o.dir);

	/* The DAX device is a name of its own: the backing stays as it was. */
	setenv("IOPATH_SCRATCH_DAX_DEV", "/dev/pmem0", 1);
	ASSERT_EQ(0, iop_scratch_opts_from_env(&o, why, sizeof(why)));
	EXPECT_EQ(IOP_BACKING_DIR, o.backing);
	EXPECT_STREQ("/dev/pmem0", o.dax_device);
}

TEST_F(env, opts_from_env_rejects_malformed_values)
{
	static const struct {
		const char *var, *val, *var2, *val2;
	} bad[] = {
		{ "IOPATH_BACKING", "nvme", NULL, NULL },
		{ "IOPATH_BACKING", "ZRAM", NULL, NULL },
		{ "IOPATH_SCRATCH_SIZE", "1x", NULL, NULL },
		{ "IOPATH_SCRATCH_SIZE", "-5", NULL, NULL },
		{ "IOPATH_SCRATCH_SIZE", "0", NULL, NULL },
		{ "IOPATH_SCRATCH_SIZE", "g", NULL, NULL },
		{ "IOPATH_SCRATCH_SIZE", "99999999999999999999", NULL, NULL },
		{ "IOPATH_SCRATCH_SIZE", "17179869184T", NULL, NULL },
		{ "IOPATH_SCRATCH_FORCE_MKFS", "yes", NULL, NULL },
		{ "IOPATH_SCRATCH_FORCE_MKFS", "1", NULL, NULL },
		{ "IOPATH_SCRATCH_DEV", "nvme0n1", NULL, NULL },
		{ "IOPATH_SCRATCH_DIR", "relative/dir", NULL, NULL },
		{ "IOPATH_SCRATCH_DAX_DEV", "pmem0", NULL, NULL },
		{ "IOPATH_SCRATCH_DEV", "/dev/vdb", "IOPATH_SCRATCH_DIR", "/mnt" },
		{ "IOPATH_SCRATCH_DEV", "/dev/vdb", "IOPATH_BACKING", "zram" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct iop_scratch_opts o = { .fstype = "ext4", .size = 12345 };
		char why[256] = "";

		setenv(bad[i].var, bad[i].val, 1);
		if (bad[i].var2)
			setenv(bad[i].var2, bad[i].val2, 1);
		EXPECT_EQ(-EINVAL, iop_scratch_opts_from_env(&o, why, sizeof(why)))
			TH_LOG("%s=%s accepted", bad[i].var, bad[i].val);
		EXPECT_TRUE(one_line(why)) TH_LOG("%s=%s: why '%s'", bad[i].var, bad[i].val, why);
		/* A refusal changes nothing. */
		EXPECT_EQ(IOP_BACKING_DEFAULT, o.backing);
		EXPECT_EQ(12345, o.size);
		EXPECT_FALSE(o.force);
		unsetenv(bad[i].var);
		if (bad[i].var2)
			unsetenv(bad[i].var2);
	}
}

/*
 * A value with a newline: refused with its reason, the value escaped (the
 * reason was cut at the newline, "IOPATH_BACKING=garbage" alone, and a
 * device path with one was taken and failed later as "/dev/nope").
 */
TEST_F(env, opts_from_env_keeps_the_reason_of_a_value_with_a_newline)
{
	static const struct {
		const char *var, *val, *want;
	} bad[] = {
		{ "IOPATH_BACKING", "garbage\nX",
		  "IOPATH_BACKING=garbage\\x0aX: expected zram or loop" },
		{ "IOPATH_SCRATCH_DEV", "/dev/nope\nX",
		  "IOPATH_SCRATCH_DEV=/dev/nope\\x0aX: expected an absolute /dev path" },
		{ "IOPATH_SCRATCH_DIR", "/mnt/\033[2J",
		  "IOPATH_SCRATCH_DIR=/mnt/\\x1b[2J: expected an absolute path" },
		{ "IOPATH_SCRATCH_DAX_DEV", "/dev/pmem0\n",
		  "IOPATH_SCRATCH_DAX_DEV=/dev/pmem0\\x0a: expected an absolute /dev path" },
		{ "IOPATH_SCRATCH_SIZE", "1\ng",
		  "IOPATH_SCRATCH_SIZE=1\\x0ag: expected a size in bytes with an optional k, m, g or t suffix" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct iop_scratch_opts o = { .fstype = "ext4" };
		char why[256] = "";

		setenv(bad[i].var, bad[i].val, 1);
		EXPECT_EQ(-EINVAL, iop_scratch_opts_from_env(&o, why, sizeof(why)))
			TH_LOG("%s accepted", bad[i].var);
		EXPECT_STREQ(bad[i].want, why);
		unsetenv(bad[i].var);
	}
}

/* The one size parser: the scratch size and the benchmark parameters. */
TEST_F(env, parse_size_takes_the_usual_spellings)
{
	static const struct {
		const char *s;
		uint64_t want;
	} good[] = {
		{ "4096", 4096 }, { "4k", 4096 }, { "4K", 4096 }, { "4KiB", 4096 },
		{ "4kb", 4096 }, { "512m", 512ull << 20 }, { "1G", 1ull << 30 },
		{ "2TiB", 2ull << 40 },
	};
	static const char *const bad[] = {
		"", "0", "k", "4x", "4B", "4iB", "4KiBs", "-4k", " 4k", "4 k",
		"17179869184T",
	};

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		uint64_t v = 0;

		EXPECT_EQ(0, iop_parse_size(good[i].s, &v)) TH_LOG("'%s' refused", good[i].s);
		EXPECT_EQ(good[i].want, v) TH_LOG("'%s'", good[i].s);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		uint64_t v = 7;

		EXPECT_EQ(-EINVAL, iop_parse_size(bad[i], &v)) TH_LOG("'%s' accepted", bad[i]);
		EXPECT_EQ(7, v);
	}
}

/*
 * One spelling of the backing from the command line to the records: what
 * iop_parse_backing() takes, iop_backing_name() gives back.
 */
TEST_F(env, backing_parse_and_name_agree)
{
	static const struct {
		const char *arg, *name, *path;
	} good[] = {
		{ "zram", "zram", NULL },
		{ "loop", "loop", NULL },
		{ "dev:/dev/vdb", "dev", "/dev/vdb" },
		{ "dir:/mnt/test", "dir", "/mnt/test" },
	};
	static const char *const bad[] = {
		"nvme", "ZRAM", "dev:", "dev:vdb", "dir:relative", "device:/dev/vdb",
		"zram:/dev/zram1",
	};

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		struct iop_scratch_opts o = { 0 };
		char why[256] = "";

		ASSERT_EQ(0, iop_parse_backing(good[i].arg, &o, why, sizeof(why)))
			TH_LOG("%s: %s", good[i].arg, why);
		EXPECT_STREQ(good[i].name, iop_backing_name(o.backing));
		if (good[i].path)
			EXPECT_STREQ(good[i].path, o.backing == IOP_BACKING_DIR ? o.dir : o.device);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct iop_scratch_opts o = { 0 };
		char why[256] = "";

		EXPECT_EQ(-EINVAL, iop_parse_backing(bad[i], &o, why, sizeof(why)))
			TH_LOG("'%s' accepted", bad[i]);
		EXPECT_TRUE(one_line(why)) TH_LOG("'%s': why '%s'", bad[i], why);
		EXPECT_EQ(IOP_BACKING_DEFAULT, o.backing);
	}
}

/* ---- the options a filesystem is made with ----------------------------- */

FIXTURE(fs_opts) {
	char mkfs[256], mount[256];
};

FIXTURE_SETUP(fs_opts)
{
	self->mkfs[0] = '\0';
	self->mount[0] = '\0';
}

FIXTURE_TEARDOWN(fs_opts)
{
}

/*
 * A measurement's ext4 on a device iopath formats: no block bitmap
 * prefetch, the user's own mount options after it; nothing of it on XFS,
 * on an existing directory or outside a measurement (the selftests,
 * iopath scratch).
 */
TEST_F(fs_opts, measured_ext4_mounts_without_bitmap_prefetch)
{
	static const char *const lazy = "-E lazy_itable_init=0,lazy_journal_init=0";
	static const struct {
		const char *fs, *mkfs, *mount;
		enum iop_backing backing;
		bool measure;
		const char *want_mkfs, *want_mount;
	} c[] = {
		{ "ext4", NULL, NULL, IOP_BACKING_ZRAM, true, lazy, "no_prefetch_block_bitmaps" },
		{ "ext4", NULL, NULL, IOP_BACKING_LOOP, true, lazy, "no_prefetch_block_bitmaps" },
		{ "ext4", NULL, NULL, IOP_BACKING_DEVICE, true, lazy, "no_prefetch_block_bitmaps" },
		{ "ext4", NULL, "noatime", IOP_BACKING_ZRAM, true, lazy,
		  "no_prefetch_block_bitmaps,noatime" },
		/* the user's word wins, either way */
		{ "ext4", NULL, "prefetch_block_bitmaps", IOP_BACKING_ZRAM, true, lazy,
		  "prefetch_block_bitmaps" },
		{ "ext4", NULL, "no_prefetch_block_bitmaps", IOP_BACKING_ZRAM, true, lazy,
		  "no_prefetch_block_bitmaps" },
		{ "ext4", "-E stride=4", NULL, IOP_BACKING_ZRAM, true, "-E stride=4",
		  "no_prefetch_block_bitmaps" },
		{ "ext4", "-b 1024", NULL, IOP_BACKING_ZRAM, true,
		  "-E lazy_itable_init=0,lazy_journal_init=0 -b 1024",
		  "no_prefetch_block_bitmaps" },
		{ "ext4", NULL, NULL, IOP_BACKING_ZRAM, false, lazy, "" },
		{ "ext4", NULL, "noatime", IOP_BACKING_LOOP, false, lazy, "noatime" },
		{ "ext4", NULL, NULL, IOP_BACKING_DIR, true, "", "" },
		{ "xfs", NULL, NULL, IOP_BACKING_ZRAM, true, "", "" },
		{ "xfs", "-m reflink=1", "noatime", IOP_BACKING_LOOP, true, "-m reflink=1",
		  "noatime" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		struct iop_scratch_opts o = {
			.fstype = c[i].fs, .mkfs_opts = c[i].mkfs, .mount_opts = c[i].mount,
			.backing = c[i].backing, .measure = c[i].measure,
		};

		ASSERT_EQ(0, iop_scratch_fs_opts(&o, c[i].backing, self->mkfs, self->mount,
						 sizeof(self->mkfs))) TH_LOG("case %zu", i);
		EXPECT_STREQ(c[i].want_mkfs, self->mkfs) TH_LOG("case %zu", i);
		EXPECT_STREQ(c[i].want_mount, self->mount) TH_LOG("case %zu", i);
	}
}

/* Options that would not fit once the defaults are added are refused, not cut. */
TEST_F(fs_opts, too_long_with_the_defaults_is_refused)
{
	char user[256];
	struct iop_scratch_opts o = {
		.fstype = "ext4", .mount_opts = user, .backing = IOP_BACKING_ZRAM, .measure = true,
	};

	memset(user, 'a', 240);
	user[240] = '\0';
	EXPECT_EQ(-EINVAL, iop_scratch_fs_opts(&o, o.backing, self->mkfs, self->mount,
					       sizeof(self->mkfs)));
	o.measure = false;
	EXPECT_EQ(0, iop_scratch_fs_opts(&o, o.backing, self->mkfs, self->mount,
					 sizeof(self->mkfs)));
	EXPECT_STREQ(user, self->mount);
}

TEST_HARNESS_MAIN
