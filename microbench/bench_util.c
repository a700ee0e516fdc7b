// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the benchmarks' setup shares: fio argument vectors, the block
 * device under a path, a file filled with incompressible data in blocks
 * allocated up front, where those blocks are, and ext4's extent status
 * entries for it loaded in file order.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "bench.h"

/* linux/ext4.h, which Debian 12's linux-libc-dev does not have yet. */
#ifndef EXT4_IOC_PRECACHE_EXTENTS
#define EXT4_IOC_PRECACHE_EXTENTS	_IO('f', 18)
#endif
#ifndef EXT4_IOC_CLEAR_ES_CACHE
#define EXT4_IOC_CLEAR_ES_CACHE		_IO('f', 40)
#endif

void iop_fio_arg(struct iop_fio_job *j, const char *fmt, ...)
{
	va_list ap;

	if (j->argc >= 62 || j->nstore >= 32)
		abort();
	va_start(ap, fmt);
	vsnprintf(j->store[j->nstore], sizeof(j->store[0]), fmt, ap);
	va_end(ap);
	j->argv[j->argc++] = j->store[j->nstore++];
	j->argv[j->argc] = NULL;
}

void iop_fio_time_based(struct iop_fio_job *j, bool lat, int runtime_ms,
			const char *ddir, int phase)
{
	if (!lat)
		iop_fio_arg(j, "--gtod_reduce=1");
	iop_fio_arg(j, "--time_based=1");
	iop_fio_arg(j, "--ramp_time=1");
	if (runtime_ms % 1000)
		iop_fio_arg(j, "--runtime=%dms", runtime_ms);
	else
		iop_fio_arg(j, "--runtime=%d", runtime_ms / 1000);
	j->ddir = ddir;
	j->phase = phase;
}

void iop_job_free(struct iop_run *r, const char *path, bool created)
{
	if (created)
		unlink(path);
	free(r->priv);
	r->priv = NULL;
}

/* ---- small helpers for benchmarks ------------------------------------ */

void iop_path_device(const char *path, char *buf, size_t len)
{
	char link[PATH_MAX], target[PATH_MAX];
	struct stat st;
	ssize_t n;
	const char *base;

	buf[0] = '\0';
	if (stat(path, &st))
		return;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return;
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(buf, len, "/dev/%s", base ? base + 1 : target);
}

int iop_fill_file(int fd, uint64_t size, bool *prealloc)
{
	const size_t chunk = 1 << 20;
	uint64_t *buf, x = 0x9e3779b97f4a7c15ull;
	int ret = 0;

	/*
	 * The blocks first, in one call: with delayed allocation the blocks
	 * a file gets follow from when writeback ran during the fill, and
	 * under icount that differs from boot to boot. A filesystem without
	 * fallocate() is filled as it comes, and the record says so.
	 */
	*prealloc = !fallocate(fd, 0, 0, (off_t)size);
	if (!*prealloc && errno != EOPNOTSUPP)
		return -errno;
	buf = malloc(chunk);
	if (!buf)
		return -ENOMEM;
	for (uint64_t off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? (size_t)(size - off) : chunk;
		ssize_t w;

		for (size_t i = 0; i < chunk / 8; i++) {	/* xorshift64: incompressible */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[i] = x;
		}
		w = pwrite(fd, buf, n, (off_t)off);
		if (w != (ssize_t)n) {
			ret = w < 0 ? -errno : -EIO;
			break;
		}
	}
	free(buf);
	if (!ret && fsync(fd))
		ret = -errno;
	return ret;
}

long iop_file_layout(int fd, char *buf, size_t len)
{
	/*
	 * The extents follow the header as the kernel writes them: a union,
	 * not a struct with an array after fiemap's flexible member (a GNU
	 * extension clang refuses, so make fuzz did not build).
	 */
	union {
		struct fiemap fm;
		char raw[sizeof(struct fiemap) + IOP_LAYOUT_EXTENTS * sizeof(struct fiemap_extent)];
	} m = { .fm = {
		.fm_length = FIEMAP_MAX_OFFSET,
		.fm_flags = FIEMAP_FLAG_SYNC,
		.fm_extent_count = IOP_LAYOUT_EXTENTS,
	} };
	size_t used = 0;

	buf[0] = '\0';
	if (ioctl(fd, FS_IOC_FIEMAP, &m.fm))
		return -errno;
	for (unsigned int i = 0; i < m.fm.fm_mapped_extents; i++) {
		const struct fiemap_extent *e = &m.fm.fm_extents[i];
		int n = snprintf(buf + used, len - used, "%s%llu+%llu@%llu", i ? " " : "",
				 (unsigned long long)e->fe_logical,
				 (unsigned long long)e->fe_length,
				 (unsigned long long)e->fe_physical);

		if (n < 0 || (size_t)n >= len - used) {
			buf[used] = '\0';
			break;
		}
		used += (size_t)n;
	}
	if (m.fm.fm_mapped_extents < IOP_LAYOUT_EXTENTS)
		return m.fm.fm_mapped_extents;
	/* more than the array holds: count them all */
	m.fm.fm_extent_count = 0;
	if (ioctl(fd, FS_IOC_FIEMAP, &m.fm))
		return -errno;
	return m.fm.fm_mapped_extents;
}

int iop_ext4_reload_extent_cache(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf))
		return -errno;
	if (sf.f_type != EXT4_SUPER_MAGIC)
		return -EOPNOTSUPP;
	if (ioctl(fd, EXT4_IOC_CLEAR_ES_CACHE) || ioctl(fd, EXT4_IOC_PRECACHE_EXTENTS))
		return -errno;
	return 0;
}

long iop_ext4_es_objects(const char *dev)
{
	const char *base = strrchr(dev, '/');
	char path[PATH_MAX], line[256];
	long n = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/fs/ext4/%s/es_shrinker_info", base ? base + 1 : dev);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %ld objects", &n) == 1 && strstr(line, " objects\n") &&
		    !strstr(line, "reclaimable"))
			break;
	fclose(f);
	return n;
}

long iop_anon_huge_kb(const void *addr)
{
	unsigned long a = (unsigned long)addr, lo, hi;
	char line[512];
	bool in = false;
	long kb = -ENOENT;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* a mapping's first line; no field name parses as "hex-hex" */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = a >= lo && a < hi;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}
