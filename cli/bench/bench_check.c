// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Checks iopath bench makes before any scratch filesystem exists (see
 * bench_check.h). Without them bs=513 or size=1t was found only after a
 * filesystem had been made, a refused device came back as a SKIP, and
 * "--fs ," ran nothing and passed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bench_check.h"

static uint64_t sysfs_u64(const char *path)
{
	unsigned long long v = 0;
	FILE *f = fopen(path, "re");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static int device_info(struct iop_backing_info *bi, char *why, size_t len)
{
	char path[PATH_MAX];
	struct stat st;
	int ret;

	ret = iop_scratch_check_device(bi->o.device, bi->o.force, why, len);
	if (ret)
		return ret;
	if (stat(bi->o.device, &st)) {
		ret = -errno;
		snprintf(why, len, "%s: %s", bi->o.device, strerror(-ret));
		return ret;
	}
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/size", major(st.st_rdev),
		 minor(st.st_rdev));
	bi->capacity = sysfs_u64(path) * 512;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/logical_block_size",
		 major(st.st_rdev), minor(st.st_rdev));
	bi->align = (unsigned int)sysfs_u64(path);
	if (!bi->align) {
		/* a partition: its disk's queue */
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/logical_block_size",
			 major(st.st_rdev), minor(st.st_rdev));
		bi->align = (unsigned int)sysfs_u64(path);
	}
	return 0;
}

static int dir_info(struct iop_backing_info *bi, char *why, size_t len)
{
	struct statvfs vfs;
	struct stat st;
	int ret;

	if (bi->o.dir[0] != '/') {
		snprintf(why, len, "dir:%s: expected an absolute path", bi->o.dir);
		return -EINVAL;
	}
	if (stat(bi->o.dir, &st) || statvfs(bi->o.dir, &vfs)) {
		ret = -errno;
		snprintf(why, len, "dir:%s: %s", bi->o.dir, strerror(-ret));
		return ret;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, "dir:%s: not a directory", bi->o.dir);
		return -ENOTDIR;
	}
	if (access(bi->o.dir, W_OK | X_OK)) {
		ret = -errno;
		snprintf(why, len, "dir:%s: not writable: %s", bi->o.dir, strerror(-ret));
		return ret;
	}
	bi->capacity = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	/* the filesystem's block size bounds the O_DIRECT alignment it can need */
	bi->align = vfs.f_bsize > 512 ? 512 : (unsigned int)vfs.f_bsize;
	{
		char dev[PATH_MAX];

		snprintf(dev, sizeof(dev), "/sys/dev/block/%u:%u/queue/logical_block_size",
			 major(st.st_dev), minor(st.st_dev));
		if (sysfs_u64(dev))
			bi->align = (unsigned int)sysfs_u64(dev);
	}
	return 0;
}

int iop_backing_check(const char *backing, struct iop_backing_info *bi, char *why, size_t len)
{
	int ret;

	memset(bi, 0, sizeof(*bi));
	ret = iop_scratch_opts_from_env(&bi->o, why, len);
	if (ret)
		return ret;
	ret = iop_parse_backing(backing, &bi->o, why, len);
	if (ret)
		return ret;
	if (bi->o.backing == IOP_BACKING_DEFAULT)
		bi->o.backing = access("/sys/class/zram-control/hot_add", W_OK) == 0 ?
				IOP_BACKING_ZRAM : IOP_BACKING_LOOP;
	switch (bi->o.backing) {
	case IOP_BACKING_DEVICE:
		return device_info(bi, why, len);
	case IOP_BACKING_DIR:
		return dir_info(bi, why, len);
	case IOP_BACKING_ZRAM:
		/* zram's logical block size is its page size: 4096 */
		bi->align = 4096;
		bi->capacity = bi->o.size ? bi->o.size : IOP_BENCH_SCRATCH_SIZE;
		return 0;
	default:
		bi->align = 512;
		bi->capacity = bi->o.size ? bi->o.size : IOP_BENCH_SCRATCH_SIZE;
		return 0;
	}
}

int iop_fs_list_check(const char *list, char *why, size_t len)
{
	static const char *const known[] = { "ext4", "xfs", "none" };
	bool seen[3] = { false };
	const char *p = list;
	int named = 0;

	for (;;) {
		size_t n = strcspn(p, ",");
		int k;

		while (n && (*p == ' ' || *p == '\t')) {
			p++;
			n--;
		}
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		for (k = 0; k < 3; k++)
			if (n == strlen(known[k]) && !strncmp(p, known[k], n))
				break;
		if (k == 3 && n) {
			snprintf(why, len, "fs %s: '%.*s' is not ext4, xfs or none",
				 list, (int)n, p);
			return -EINVAL;
		}
		/* ext4,ext4 would run every job twice, as if two runs: never meant */
		if (k < 3 && seen[k]) {
			snprintf(why, len, "fs %s: '%s' twice", list, known[k]);
			return -EINVAL;
		}
		if (k < 3) {
			seen[k] = true;
			named += k < 2;
		}
		p += strcspn(p, ",");
		if (!*p)
			break;
		p++;
	}
	if (!named && !strstr(list, "none")) {
		snprintf(why, len, "fs '%s': names no filesystem (ext4, xfs or none)", list);
		return -EINVAL;
	}
	return 0;
}

static const struct iop_value *value_of(const struct iop_run *r, const char *name)
{
	for (int i = 0; i < r->nval; i++)
		if (!strcmp(r->val[i].p->name, name))
			return &r->val[i];
	return NULL;
}

int iop_bench_fits(const struct iop_run *r, const struct iop_backing_info *bi,
		   char *why, size_t len)
{
	const struct iop_value *bs = value_of(r, "bs"), *size = value_of(r, "size");
	const struct iop_value *direct = value_of(r, "direct");
	const struct iop_value *prealloc = value_of(r, "prealloc");
	/* what the filesystem's own metadata and log leave of the device */
	uint64_t room = bi->capacity - bi->capacity / 10;

	if (bs && direct && direct->u && bi->align && bs->u % bi->align) {
		snprintf(why, len, "bs=%s: O_DIRECT on this backing needs a multiple of %u bytes",
			 bs->text, bi->align);
		return -EINVAL;
	}
	if (r->opt.stable_writes != IOP_STABLE_WRITES_DEVICE &&
	    iop_stable_writes_check(bi->o.backing, why, len))
		return -EINVAL;
	/* prealloc=none grows the file in the timed loop: running out is the test */
	if (size && bi->capacity && size->u > room &&
	    !(prealloc && !strcmp(prealloc->text, "none"))) {
		snprintf(why, len, "size=%s does not fit the scratch filesystem (%llu MiB usable%s)",
			 size->text, (unsigned long long)(room >> 20),
			 bi->o.backing == IOP_BACKING_ZRAM || bi->o.backing == IOP_BACKING_LOOP ?
			 "; IOPATH_SCRATCH_SIZE sets it" : "");
		return -EINVAL;
	}
	return 0;
}

int iop_bench_out(const char *out, bool json, const char *name, char *path, size_t len,
		  bool *reserved)
{
	char prefix[128], why[512];
	int fd;

	path[0] = '\0';
	*reserved = false;
	if (out && strcmp(out, "-")) {
		/* One writer at a time: a second --out F would replace the first's records. */
		fd = iop_out_claim(out, why, sizeof(why));
		if (fd < 0) {
			fprintf(stderr, "iopath: bench: --out %s\n", why);
			return 2;
		}
		*reserved = fd == 1;
		snprintf(path, len, "%s", out);
		return 0;
	}
	if (out || json)
		return 0;
	if (mkdir("results", 0755) && errno != EEXIST) {
		fprintf(stderr, "iopath: bench: results: %s\n", strerror(errno));
		return 1;
	}
	snprintf(prefix, sizeof(prefix), "%s", name);
	for (char *p = prefix; *p; p++)
		if (*p == '/')
			*p = '_';
	fd = iop_out_unique("results", prefix, ".jsonl", NULL, path, len);
	if (fd < 0) {
		fprintf(stderr, "iopath: bench: results/%s-*.jsonl: %s\n", prefix, strerror(-fd));
		return 1;
	}
	close(fd);
	*reserved = true;
	return 0;
}
