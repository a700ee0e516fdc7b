// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ext4 with bigalloc (allocation in clusters of several blocks): every
 * block of a logical cluster lies in one physical cluster, at the same
 * offset in it, however the cluster's blocks came to be allocated.
 *
 * A logical cluster is allocated once; a later block of it is mapped into
 * the physical cluster already there, found through the extent to its
 * left or to its right (get_implied_cluster_alloc()), and an allocation of
 * new clusters must stop at the first cluster an extent after it already
 * uses: ext4_ext_check_overlap() measures the next extent from the start
 * of its cluster, which can lie inside the hole being filled. An
 * allocation that does not stop there maps the start of that cluster
 * into a new physical cluster while its end stays in the old one: a
 * logical cluster in two physical clusters, which e2fsck reports ("violates
 * cluster allocation rules") and which frees and counts clusters wrongly.
 *
 * Each case builds a file in steps (a buffered write, an O_DIRECT write or
 * fallocate(2), each followed by fsync so that it allocates at once, in
 * that order), then reads back every byte against a model and checks the
 * rule on each extent FIEMAP reports: offset in the logical cluster equal
 * to the offset in the physical one, and the same physical cluster for
 * every extent that touches a logical cluster.
 *
 * The bug it catches: an allocation before an extent that runs into that
 * extent's cluster (118-ext4-allocation-runs-into-the-next-cluster,
 * generated sample 8's 008-call-zero-ext4_ext_map_blocks).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iopath_test.h"
#include "iomap_layout.h"

#define FILE_MAX	IOP_K(256)

FIXTURE(bigalloc) {
	struct iop_test_fs fs;
};

FIXTURE_VARIANT(bigalloc) {
	IOP_FS_VARIANT_FIELDS;
};

FIXTURE_VARIANT_ADD(bigalloc, ext4_bigalloc) { IOP_FS_EXT4_BIGALLOC };

FIXTURE_SETUP(bigalloc)
{
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(bigalloc)
{
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

enum how { BUFFERED, DIRECT, FALLOCATE };

static const char *const how_name[] = {
	[BUFFERED] = "buffered write",
	[DIRECT] = "O_DIRECT write",
	[FALLOCATE] = "fallocate",
};

struct step {
	uint64_t off, len;
	enum how how;
};

#define MAX_STEPS 4

struct cluster_case {
	const char *name;
	struct step steps[MAX_STEPS];
};

#define B(n)	((uint64_t)(n) * 4096)	/* block n of 4 KiB */

/*
 * With clusters of 16 blocks: blocks 40-47 sit in cluster 2 (32-47), so
 * the hole 0-39 before them ends inside that cluster, and blocks 32-39
 * belong where 40-47 are.
 */
static const struct cluster_case cases[] = {
	{ "buffered write before an extent, into its cluster",
	  { { B(40), B(8), BUFFERED }, { 0, B(40), BUFFERED } } },
	{ "O_DIRECT write before an extent, into its cluster",
	  { { B(40), B(8), DIRECT }, { 0, B(40), DIRECT } } },
	{ "fallocate before an extent, into its cluster",
	  { { B(40), B(8), FALLOCATE }, { 0, B(40), FALLOCATE } } },
	{ "write into a cluster begun to its left, then on into the next",
	  { { 0, B(4), BUFFERED }, { B(8), B(4), DIRECT }, { B(12), B(12), BUFFERED } } },
	{ "write into a cluster begun to its right, then over the gap",
	  { { B(12), B(4), DIRECT }, { 0, B(4), BUFFERED }, { B(20), B(4), FALLOCATE },
	    { B(4), B(16), BUFFERED } } },
};

/* Apply one step to fd and to the model. 0 or -errno. */
static int do_step(int fd, int dfd, const struct step *s, unsigned int seed,
		   uint8_t *model, uint64_t *size)
{
	uint8_t *buf;
	int ret;

	if (s->how == FALLOCATE) {
		if (fallocate(fd, 0, (off_t)s->off, (off_t)s->len))
			return -errno;
	} else {
		buf = iop_alloc_aligned(s->len);
		if (!buf)
			return -ENOMEM;
		iop_pattern_fill(buf, s->off, s->len, seed);
		ret = iop_pwrite_all(s->how == DIRECT ? dfd : fd, buf, s->len, s->off);
		if (!ret)
			memcpy(model + s->off, buf, s->len);
		free(buf);
		if (ret)
			return ret;
	}
	if (s->off + s->len > *size)
		*size = s->off + s->len;
	return fsync(fd) ? -errno : 0;
}

/*
 * The cluster rule over every extent of fd (of size bytes): 0, 1 with the
 * first breach in why, or -errno.
 */
static int cluster_rule(int fd, uint64_t size, uint64_t cs, char *why, size_t wlen)
{
	struct iop_fiemap f;
	unsigned int i, j;
	int n;

	n = iop_fiemap(fd, 0, size, &f);
	if (n < 0)
		return n;
	if (f.n == IOP_FIEMAP_MAX)
		return -E2BIG;
	for (i = 0; i < f.n; i++) {
		const struct fiemap_extent *a = &f.ext[i];

		if (a->fe_logical % cs != a->fe_physical % cs) {
			snprintf(why, wlen, "extent at %" PRIu64 " (%" PRIu64 " bytes) lies at physical %"
				 PRIu64 ": %" PRIu64 " into its logical cluster, %" PRIu64
				 " into its physical one", (uint64_t)a->fe_logical,
				 (uint64_t)a->fe_length, (uint64_t)a->fe_physical,
				 (uint64_t)(a->fe_logical % cs), (uint64_t)(a->fe_physical % cs));
			return 1;
		}
		for (j = 0; j < i; j++) {
			const struct fiemap_extent *b = &f.ext[j];
			uint64_t a0 = a->fe_logical / cs, a1 = (a->fe_logical + a->fe_length - 1) / cs;
			uint64_t b0 = b->fe_logical / cs, b1 = (b->fe_logical + b->fe_length - 1) / cs;

			if (a0 > b1 || b0 > a1)
				continue;
			if (a->fe_physical - a->fe_logical == b->fe_physical - b->fe_logical)
				continue;
			snprintf(why, wlen, "logical cluster %" PRIu64 " in two physical clusters: "
				 "bytes %" PRIu64 "+%" PRIu64 " at physical %" PRIu64 ", bytes %"
				 PRIu64 "+%" PRIu64 " at physical %" PRIu64,
				 a0 > b0 ? a0 : b0, (uint64_t)b->fe_logical, (uint64_t)b->fe_length,
				 (uint64_t)b->fe_physical, (uint64_t)a->fe_logical,
				 (uint64_t)a->fe_length, (uint64_t)a->fe_physical);
			return 1;
		}
	}
	return 0;
}

/*
 * The cluster size, measured: a file of one written block is charged a
 * whole cluster (st_blocks). Bytes, or -errno.
 */
static int64_t cluster_size(const char *dir)
{
	uint8_t block[4096];
	struct stat st;
	int fd, ret;

	fd = iop_open_at(dir, "one-block", O_RDWR | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return fd;
	memset(block, 0xa5, sizeof(block));
	ret = iop_pwrite_all(fd, block, sizeof(block), 0);
	if (!ret && (fsync(fd) || fstat(fd, &st)))
		ret = -errno;
	close(fd);
	if (ret)
		return ret;
	return (int64_t)st.st_blocks * 512;
}

TEST_F(bigalloc, blocks_of_a_logical_cluster_share_one_physical_cluster)
{
	char why[512] = "", path[PATH_MAX];
	uint8_t *model = NULL;
	int64_t cs;
	size_t c, k;

	IOP_TEST_BEGIN(&self->fs);
	cs = cluster_size(self->fs.scratch->mnt);
	ASSERT_LT(0, cs) TH_LOG("a file of one block: %s", strerror((int)-cs));
	if (self->fs.scratch->backing == IOP_BACKING_DIR && cs != (int64_t)variant->cluster)
		SKIP(return, "IOPATH_SCRATCH_DIR: a block is charged %" PRId64 " bytes, not a "
		     "cluster of %u", cs, variant->cluster);
	ASSERT_EQ((int64_t)variant->cluster, cs) TH_LOG("mkfs \"%s\" made clusters of %" PRId64
						   " bytes", variant->mkfs_opts, cs);
	model = calloc(1, FILE_MAX);
	ASSERT_NE(NULL, model);

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		const struct cluster_case *t = &cases[c];
		uint64_t size = 0;
		int fd, dfd, ret = 0;
		char name[32];

		snprintf(name, sizeof(name), "case-%zu", c);
		memset(model, 0, FILE_MAX);
		fd = iop_open_at(self->fs.scratch->mnt, name, O_RDWR | O_CREAT | O_EXCL, 0644);
		ASSERT_LE(0, fd) TH_LOG("%s: open: %s", t->name, strerror(-fd));
		ASSERT_EQ(0, iop_path_in(path, self->fs.scratch->mnt, name));
		dfd = open(path, O_RDWR | O_DIRECT | O_NOFOLLOW);
		if (dfd < 0) {
			ret = -errno;
			close(fd);
		}
		ASSERT_LE(0, dfd) TH_LOG("%s: open O_DIRECT: %s", t->name, strerror(-ret));

		for (k = 0; k < MAX_STEPS && t->steps[k].len; k++) {
			ret = do_step(fd, dfd, &t->steps[k], (unsigned int)(c * MAX_STEPS + k),
				      model, &size);
			if (ret)
				break;
		}
		if (ret)
			snprintf(why, sizeof(why), "%s of %" PRIu64 " at %" PRIu64 ": %s",
				 how_name[t->steps[k].how], t->steps[k].len, t->steps[k].off,
				 strerror(-ret));
		else
			ret = iop_file_compare(fd, model, size, why, sizeof(why));
		if (!ret) {
			ret = cluster_rule(fd, size, (uint64_t)cs, why, sizeof(why));
			if (ret < 0)
				snprintf(why, sizeof(why), "FIEMAP: %s", strerror(-ret));
		}
		IOP_CLOSE_FDS(dfd, fd);
		EXPECT_EQ(0, ret) TH_LOG("%s: %s", t->name, why);
	}
	free(model);
}

TEST_HARNESS_MAIN
