/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * File layouts for the iomap selftests: a file built region by region
 * (written, hole, unwritten, delalloc), an in-memory model of its bytes,
 * and the checks the tests share (byte-for-byte comparison, FIEMAP).
 *
 * The written pattern depends on the file offset and a seed, so a block
 * read from the wrong place (another extent, another file, a stale
 * mapping) does not compare equal by accident.
 */
#ifndef IOMAP_LAYOUT_H
#define IOMAP_LAYOUT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <linux/fiemap.h>
#include <linux/fs.h>

#define IOP_K(x) ((uint64_t)(x) << 10)
/* The iomap tests' layouts: four regions of 64 KiB. */
#define IOP_R64 IOP_K(64)
#define IOP_LAYOUT_SIZE (4 * IOP_R64)

enum iop_region_kind {
	IOP_REGION_WRITTEN,	/* pwrite + fsync: allocated, written */
	IOP_REGION_HOLE,	/* nothing */
	IOP_REGION_UNWRITTEN,	/* fallocate(0): allocated, reads as zeros */
	IOP_REGION_DELALLOC,	/* buffered pwrite, no writeback yet */
};

struct iop_region {
	uint64_t offset;
	uint64_t length;
	enum iop_region_kind kind;
};

/* The byte the pattern puts at file offset @off. */
static inline uint8_t iop_pattern_byte(uint64_t off, unsigned int seed)
{
	uint64_t x = (off >> 2) * 0x9e3779b97f4a7c15ull + seed * 0x632be59bd9b4e019ull;

	return (uint8_t)((x >> 56) ^ (off & 3) ^ (off >> 12));
}

static inline void iop_pattern_fill(uint8_t *buf, uint64_t off, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = iop_pattern_byte(off + i, seed);
}

static inline void *iop_alloc_aligned(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len ? len : 4096))
		return NULL;
	memset(p, 0, len);
	return p;
}

/* Whole-buffer pwrite/pread: 0, or -errno, or -EIO for a short transfer. */
static inline int iop_pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	ssize_t n = pwrite(fd, buf, len, (off_t)off);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static inline int iop_pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/*
 * Build @regions (sorted, contiguous from 0) in @fd with pattern @seed and
 * record the bytes in @model (the file's size, zero-filled by the caller).
 * Written regions are synced before the next region is made so that each
 * becomes its own extent; delalloc regions are left dirty and are made
 * last, after everything else is on disk. The file size is the end of
 * the last region. Returns 0 or -errno; @why names the failing step.
 */
static inline int iop_layout_build(int fd, const struct iop_region *regions, size_t n,
				   uint8_t *model, unsigned int seed, char *why, size_t wlen)
{
	uint64_t size = regions[n - 1].offset + regions[n - 1].length;
	uint8_t *buf;
	size_t i;
	int pass, ret = 0;

	if (ftruncate(fd, 0) || ftruncate(fd, (off_t)size)) {
		snprintf(why, wlen, "ftruncate(%" PRIu64 "): %s", size, strerror(errno));
		return -errno;
	}
	for (pass = 0; pass < 2 && !ret; pass++) {
		for (i = 0; i < n; i++) {
			const struct iop_region *r = &regions[i];
			bool delalloc = r->kind == IOP_REGION_DELALLOC;

			/* pass 0 makes the others, pass 1 the delalloc regions */
			if (delalloc != pass)
				continue;
			switch (r->kind) {
			case IOP_REGION_WRITTEN:
			case IOP_REGION_DELALLOC:
				buf = malloc(r->length);
				if (!buf)
					return -ENOMEM;
				iop_pattern_fill(buf, r->offset, r->length, seed);
				ret = iop_pwrite_all(fd, buf, r->length, r->offset);
				if (!ret)
					memcpy(model + r->offset, buf, r->length);
				free(buf);
				if (!ret && !delalloc && fsync(fd))
					ret = -errno;
				break;
			case IOP_REGION_UNWRITTEN:
				if (fallocate(fd, 0, (off_t)r->offset, (off_t)r->length))
					ret = -errno;
				break;
			case IOP_REGION_HOLE:
				break;
			}
			if (ret) {
				snprintf(why, wlen, "region %zu [%" PRIu64 ",+%" PRIu64 "): %s",
					 i, r->offset, r->length, strerror(-ret));
				return ret;
			}
		}
		if (pass == 0 && fsync(fd)) {
			snprintf(why, wlen, "fsync: %s", strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* @got holds file bytes [off, off+len): 0 if they match @model, else -EBADMSG. */
static inline int iop_model_compare(const uint8_t *got, const uint8_t *model, uint64_t off,
				    size_t len, char *why, size_t wlen)
{
	size_t i;

	if (!memcmp(got, model + off, len))
		return 0;
	for (i = 0; i < len && got[i] == model[off + i]; i++)
		;
	snprintf(why, wlen, "byte %" PRIu64 ": 0x%02x, expected 0x%02x",
		 off + i, got[i], model[off + i]);
	return -EBADMSG;
}

/*
 * Read [0, size) with plain pread and compare with @model. 0 if equal;
 * -EBADMSG with the first differing offset in @why; -errno on a read error.
 */
static inline int iop_file_compare(int fd, const uint8_t *model, uint64_t size,
				   char *why, size_t wlen)
{
	uint8_t *buf = iop_alloc_aligned(size);
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = iop_pread_all(fd, buf, size, 0);
	if (ret)
		snprintf(why, wlen, "pread [0,%" PRIu64 "): %s", size, strerror(-ret));
	else
		ret = iop_model_compare(buf, model, 0, size, why, wlen);
	free(buf);
	return ret;
}

#define IOP_FIEMAP_MAX 64

/* A FIEMAP answer: the extents and how many there are. */
struct iop_fiemap {
	unsigned int n;
	struct fiemap_extent ext[IOP_FIEMAP_MAX];
};

/* FIEMAP of [start, start+len) without FIEMAP_FLAG_SYNC. Returns the count or -errno. */
static inline int iop_fiemap(int fd, uint64_t start, uint64_t len, struct iop_fiemap *f)
{
	/* struct fiemap ends in a flexible array: build it in a plain buffer. */
	uint64_t raw[(sizeof(struct fiemap) + sizeof(f->ext)) / sizeof(uint64_t) + 1];
	struct fiemap *fm = (struct fiemap *)raw;

	memset(f, 0, sizeof(*f));
	memset(raw, 0, sizeof(raw));
	fm->fm_start = start;
	fm->fm_length = len;
	fm->fm_extent_count = IOP_FIEMAP_MAX;
	if (ioctl(fd, FS_IOC_FIEMAP, fm))
		return -errno;
	f->n = fm->fm_mapped_extents;
	memcpy(f->ext, fm->fm_extents, f->n * sizeof(f->ext[0]));
	return (int)f->n;
}

/*
 * The first extent in [start, end) with @flag set, through as many FIEMAP
 * calls as the range takes: 1 with it in @found, 0 if there is none, or
 * -errno.
 */
static inline int iop_fiemap_find(int fd, uint64_t start, uint64_t end, uint32_t flag,
				  struct fiemap_extent *found)
{
	struct iop_fiemap f;
	unsigned int i;
	int n;

	while (start < end) {
		n = iop_fiemap(fd, start, end - start, &f);
		if (n <= 0)
			return n;
		for (i = 0; i < f.n; i++)
			if ((f.ext[i].fe_flags & flag) && f.ext[i].fe_logical < end) {
				*found = f.ext[i];
				return 1;
			}
		if (f.ext[f.n - 1].fe_flags & FIEMAP_EXTENT_LAST)
			return 0;
		start = f.ext[f.n - 1].fe_logical + f.ext[f.n - 1].fe_length;
	}
	return 0;
}

/* The FIEMAP flags that describe an extent's state (not its encoding). */
#define IOP_FIEMAP_STATE_FLAGS (FIEMAP_EXTENT_LAST | FIEMAP_EXTENT_UNKNOWN | \
				FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNWRITTEN | \
				FIEMAP_EXTENT_SHARED)

struct iop_fiemap_want {
	uint64_t logical;
	uint64_t length;
	uint32_t flags;		/* among IOP_FIEMAP_STATE_FLAGS */
};

/*
 * Compare a FIEMAP answer with the expected extents: count, and each
 * extent's logical offset, length and state flags. 0 or -EBADMSG with
 * the first difference in @why.
 */
static inline int iop_fiemap_expect(const struct iop_fiemap *f, const struct iop_fiemap_want *w,
				    unsigned int n, char *why, size_t wlen)
{
	unsigned int i;

	for (i = 0; i < n && i < f->n; i++) {
		const struct fiemap_extent *e = &f->ext[i];
		uint32_t flags = e->fe_flags & IOP_FIEMAP_STATE_FLAGS;

		if (e->fe_logical != w[i].logical || e->fe_length != w[i].length ||
		    flags != w[i].flags) {
			snprintf(why, wlen, "extent %u: [%" PRIu64 ",+%" PRIu64 ") flags 0x%x, expected [%"
				 PRIu64 ",+%" PRIu64 ") flags 0x%x", i, (uint64_t)e->fe_logical,
				 (uint64_t)e->fe_length, flags, w[i].logical,
				 w[i].length, w[i].flags);
			return -EBADMSG;
		}
	}
	if (f->n != n) {
		snprintf(why, wlen, "%u extents, expected %u", f->n, n);
		return -EBADMSG;
	}
	return 0;
}

/* Close each of the @n descriptors in @fds that is open (>= 0). */
static inline void iop_close_fds(const int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* IOP_CLOSE_FDS(a, b, ...): close those of a, b, ... that are open, in order. */
#define IOP_CLOSE_FDS(...)								\
	iop_close_fds((const int[]){ __VA_ARGS__ },					\
		      sizeof((const int[]){ __VA_ARGS__ }) / sizeof(int))

/* @name in the directory @dir, as a path in @path (PATH_MAX): 0, or -ENAMETOOLONG */
static inline int iop_path_in(char *path, const char *dir, const char *name)
{
	return (size_t)snprintf(path, PATH_MAX, "%s/%s", dir, name) < PATH_MAX ? 0 : -ENAMETOOLONG;
}

/* The kernel's name of the block device @dev ("loop3" of "/dev/loop3"). */
static inline const char *iop_dev_name(const char *dev)
{
	const char *name = strrchr(dev, '/');

	return name ? name + 1 : dev;
}

/*
 * The ext4 sysfs file @attr of the filesystem on @dev
 * (/sys/fs/ext4/<device name>/@attr), as a path in @path (PATH_MAX).
 */
static inline int iop_ext4_sysfs_path(char *path, const char *dev, const char *attr)
{
	return (size_t)snprintf(path, PATH_MAX, "/sys/fs/ext4/%s/%s", iop_dev_name(dev),
				attr) < PATH_MAX ? 0 : -ENAMETOOLONG;
}

/* The number a sysfs file holds (a count, a size): >= 0, or -errno. */
static inline long iop_knob_long(const char *path)
{
	char buf[32];
	long n;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fgets(buf, sizeof(buf), f) ? strtol(buf, NULL, 10) : -EIO;
	fclose(f);
	return n;
}

/* Write @value to the sysfs or debugfs file @path in one write: 0 or -errno. */
static inline int iop_knob_set(const char *path, const char *value)
{
	size_t len = strlen(value);
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, value, len) != (ssize_t)len)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * Set ext4's tunable @attr of the filesystem on @dev (a scratch one: the
 * setting lives and dies with it) to @value. 0 or -errno.
 */
static inline int iop_ext4_sysfs_set(const char *dev, const char *attr, const char *value)
{
	char path[PATH_MAX];
	int ret;

	ret = iop_ext4_sysfs_path(path, dev, attr);
	return ret ? ret : iop_knob_set(path, value);
}

/* The error count of the ext4 filesystem on @dev as sysfs shows it, or -errno. */
static inline long iop_ext4_errors_count(const char *dev)
{
	char path[PATH_MAX];

	if (iop_ext4_sysfs_path(path, dev, "errors_count"))
		return -ENAMETOOLONG;
	return iop_knob_long(path);
}

/* open(@dir/@name) without building a path (no length limit to hit). */
static inline int iop_open_at(const char *dir, const char *name, int flags, mode_t mode)
{
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), fd, err;

	if (dfd < 0)
		return -errno;
	fd = openat(dfd, name, flags | O_CLOEXEC, mode);
	err = errno;
	close(dfd);
	return fd < 0 ? -err : fd;
}

/* Does this filesystem clone? 0 yes, -errno (EOPNOTSUPP, EXDEV, ...) no. */
static inline int iop_clone_range(int dst, int src, uint64_t src_off, uint64_t len,
				  uint64_t dst_off)
{
	struct file_clone_range r = {
		.src_fd = src, .src_offset = src_off, .src_length = len, .dest_offset = dst_off,
	};

	return ioctl(dst, FICLONERANGE, &r) ? -errno : 0;
}

/*
 * The four filesystem presets (iopath_test.h) every iomap fixture runs
 * on. A fixture using them declares FIXTURE_VARIANT(f) {
 * IOP_FS_VARIANT_FIELDS; }. The list ends in a declaration, so that its
 * use, with the semicolon after it, is one.
 */
#define IOP_IOMAP_FS_VARIANTS(f)						\
	FIXTURE_VARIANT_ADD(f, ext4) { IOP_FS_EXT4 };				\
	FIXTURE_VARIANT_ADD(f, ext4_1k) { IOP_FS_EXT4_1K };			\
	FIXTURE_VARIANT_ADD(f, xfs) { IOP_FS_XFS };				\
	FIXTURE_VARIANT_ADD(f, xfs_1k) { IOP_FS_XFS_1K };			\
	struct iop_iomap_fs_variants_of_##f

/*
 * ext4 at 4K and 1K blocks, both mounted with @opts: the variants ext4_@name
 * and ext4_1k_@name of fixture @f (for a mount option that takes the
 * filesystem down a path of its own, such as nodelalloc or data=journal).
 */
#define IOP_EXT4_MOUNT_VARIANTS(f, name, opts)					\
	FIXTURE_VARIANT_ADD(f, ext4_##name) { IOP_FS_EXT4, .mount_opts = opts };	\
	FIXTURE_VARIANT_ADD(f, ext4_1k_##name) { IOP_FS_EXT4_1K, .mount_opts = opts };	\
	struct iop_ext4_mount_variants_of_##f##_##name

/*
 * The largest size ftruncate(2) accepts for @fd, the filesystem's
 * s_maxbytes (a bisection; a refusal must be EFBIG), the file truncated
 * back to 0 after: call it on an empty file. 0 or -errno.
 */
static inline int iop_largest_size(int fd, off_t *max)
{
	off_t lo = 0, hi = LLONG_MAX, mid;

	if (!ftruncate(fd, hi)) {
		*max = hi;
		return ftruncate(fd, 0) ? -errno : 0;
	}
	if (errno != EFBIG)
		return -errno;
	/* lo is accepted, hi is refused */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (!ftruncate(fd, mid))
			lo = mid;
		else if (errno == EFBIG)
			hi = mid;
		else
			return -errno;
	}
	*max = lo;
	return ftruncate(fd, 0) ? -errno : 0;
}

#endif
