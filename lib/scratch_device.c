// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The safety checks for a block device the user named as scratch
 * (iop_scratch_check_device(), see scratch.h): never the root disk, nothing
 * mounted, used as swap or held, no filesystem or partition table unless
 * forced. Nothing is written.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include "array_size.h"
#include "scratch.h"
#include "sys.h"
#include "why.h"

struct blk {
	char name[NAME_MAX + 1];	/* "vda1" */
	char disk[NAME_MAX + 1];	/* whole disk: "vda" */
	char sys[PATH_MAX];		/* /sys/devices/.../vda/vda1 */
	bool part;
	dev_t devt;
};

static int blk_by_devt(dev_t devt, struct blk *b)
{
	char link[64], *slash;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(devt), minor(devt));
	if (!realpath(link, b->sys))
		return -errno;
	slash = strrchr(b->sys, '/');
	snprintf(b->name, sizeof(b->name), "%s", slash + 1);
	b->devt = devt;
	{
		char p[PATH_MAX + 16];

		snprintf(p, sizeof(p), "%s/partition", b->sys);
		b->part = access(p, F_OK) == 0;
	}
	if (b->part) {
		*slash = '\0';
		snprintf(b->disk, sizeof(b->disk), "%s", strrchr(b->sys, '/') + 1);
		*slash = '/';
	} else {
		snprintf(b->disk, sizeof(b->disk), "%s", b->name);
	}
	return 0;
}

static int blk_by_name(const char *name, struct blk *b)
{
	char path[PATH_MAX], buf[32];
	unsigned int ma, mi;

	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	if (read_small(path, buf, sizeof(buf)) < 0 || sscanf(buf, "%u:%u", &ma, &mi) != 2)
		return -ENOENT;
	return blk_by_devt(makedev(ma, mi), b);
}

#define MAX_NAMES 64

struct names {
	int n;
	char v[MAX_NAMES][NAME_MAX + 1];
};

static void names_add(struct names *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], name))
			return;
	if (s->n < MAX_NAMES)
		snprintf(s->v[s->n++], sizeof(s->v[0]), "%s", name);
}

static bool names_has(const struct names *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], name))
			return true;
	return false;
}

/*
 * The block devices @name stands on: itself, its whole disk, and, through
 * slaves/ (device mapper, md), the disks underneath.
 */
static void disks_below(const char *name, struct names *out, int depth)
{
	char path[PATH_MAX];
	struct dirent *d;
	struct blk b;
	DIR *dir;

	if (depth > 8 || blk_by_name(name, &b))
		return;
	names_add(out, b.name);
	names_add(out, b.disk);
	snprintf(path, sizeof(path), "/sys/class/block/%s/slaves", b.disk);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			disks_below(d->d_name, out, depth + 1);
	closedir(dir);
}

struct root_find {
	dev_t devt;
	bool found;
};

static int find_root_mount(const struct mountent *m, void *arg)
{
	struct root_find *r = arg;
	struct stat sb;

	if (strcmp(m->target, "/"))
		return 0;
	/* Later lines over-mount earlier ones: keep the last. */
	r->found = false;
	if (m->major) {
		r->devt = makedev(m->major, m->minor);
		r->found = true;
	} else if (s_prefix(m->source, "/dev/") && !stat(m->source, &sb) && S_ISBLK(sb.st_mode)) {
		/* btrfs and friends report an anonymous device: use the source. */
		r->devt = sb.st_rdev;
		r->found = true;
	}
	return 0;
}

/* The disks (and dm/md devices) that hold the root filesystem. */
static void root_disks(struct names *out)
{
	struct root_find r = { 0 };
	struct blk b;

	out->n = 0;
	walk_mounts(find_root_mount, &r);
	if (r.found && !blk_by_devt(r.devt, &b))
		disks_below(b.name, out, 0);
}

struct busy_find {
	dev_t devs[MAX_NAMES];
	int n;
	char what[PATH_MAX + 64];
};

static bool busy_has(const struct busy_find *f, dev_t d)
{
	for (int i = 0; i < f->n; i++)
		if (f->devs[i] == d)
			return true;
	return false;
}

static int find_mounted(const struct mountent *m, void *arg)
{
	struct busy_find *f = arg;
	struct stat sb;
	dev_t d = makedev(m->major, m->minor);

	if ((m->major && busy_has(f, d)) ||
	    (s_prefix(m->source, "/dev/") && !stat(m->source, &sb) && S_ISBLK(sb.st_mode) &&
	     busy_has(f, sb.st_rdev))) {
		snprintf(f->what, sizeof(f->what), "is mounted on %s", m->target);
		return 1;
	}
	return 0;
}

static bool find_swap(struct busy_find *f)
{
	char line[PATH_MAX + 128], path[PATH_MAX];
	struct stat sb;
	bool hit = false;
	FILE *s = fopen("/proc/swaps", "re");

	if (!s)
		return false;
	while (!hit && fgets(line, sizeof(line), s)) {
		if (sscanf(line, "%4095s", path) != 1 || path[0] != '/')
			continue;
		unescape(path);
		if (!stat(path, &sb) && S_ISBLK(sb.st_mode) && busy_has(f, sb.st_rdev)) {
			snprintf(f->what, sizeof(f->what), "is in use as swap (%s)", path);
			hit = true;
		}
	}
	fclose(s);
	return hit;
}

/* First holder of @name (dm, md, bcache ... built on it), or "" if none. */
static bool find_holder(const char *name, char *holder, size_t len)
{
	char path[PATH_MAX];
	struct dirent *d;
	bool hit = false;
	DIR *dir;

	snprintf(path, sizeof(path), "/sys/class/block/%s/holders", name);
	dir = opendir(path);
	if (!dir)
		return false;
	while (!hit && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(holder, len, "%s", d->d_name);
		hit = true;
	}
	closedir(dir);
	return hit;
}

/* Partitions of whole disk @b (names), for the mounted/holder checks. */
static void partitions_of(const struct blk *b, struct names *out)
{
	char path[PATH_MAX + NAME_MAX + 16];
	struct dirent *d;
	DIR *dir;

	out->n = 0;
	if (b->part)
		return;
	dir = opendir(b->sys);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/partition", b->sys, d->d_name);
		if (!access(path, F_OK))
			names_add(out, d->d_name);
	}
	closedir(dir);
}

static bool at(const unsigned char *buf, size_t have, size_t off, const void *magic, size_t len)
{
	return off + len <= have && !memcmp(buf + off, magic, len);
}

/* Known signatures by their magic bytes: what mkfs would destroy. */
static const char *magic_signature(const unsigned char *b, size_t have)
{
	static const size_t swap_off[] = { 4096, 8192, 16384, 32768, 65536 };

	if (at(b, have, 0, "XFSB", 4))
		return "an XFS filesystem";
	if (at(b, have, 1080, "\x53\xef", 2))
		return "an ext2/3/4 filesystem";
	if (at(b, have, 0x10040, "_BHRfS_M", 8))
		return "a btrfs filesystem";
	if (at(b, have, 0, "LUKS\xba\xbe", 6))
		return "a LUKS header";
	if (at(b, have, 0, "hsqs", 4))
		return "a squashfs filesystem";
	if (at(b, have, 1024, "\x10\x20\xf5\xf2", 4))
		return "an f2fs filesystem";
	if (at(b, have, 32769, "CD001", 5))
		return "an ISO 9660 filesystem";
	if (at(b, have, 4096, "\xfc\x4e\x2b\xa9", 4) || at(b, have, 0, "\xfc\x4e\x2b\xa9", 4))
		return "an md RAID superblock";
	for (size_t i = 0; i < ARRAY_SIZE(swap_off); i++)
		if (at(b, have, swap_off[i] - 10, "SWAPSPACE2", 10) ||
		    at(b, have, swap_off[i] - 10, "SWAP-SPACE", 10))
			return "a swap signature";
	for (size_t off = 0; off < 2048; off += 512)
		if (at(b, have, off, "LABELONE", 8))
			return "an LVM physical volume label";
	if (at(b, have, 512, "EFI PART", 8) || at(b, have, 4096, "EFI PART", 8))
		return "a GPT partition table";
	if (at(b, have, 510, "\x55\xaa", 2))
		return "an MBR partition table or boot sector";
	return NULL;
}

/* -EPERM if @b is (on) the disk holding /, -EBUSY if it or a partition is in use. */
static int device_in_use(const char *dev, const struct blk *b, char *why, size_t len)
{
	char holder[NAME_MAX + 1];
	struct names roots, below, parts;
	struct busy_find busy = { .n = 0 };

	root_disks(&roots);
	below.n = 0;
	disks_below(b->name, &below, 0);
	for (int i = 0; i < below.n; i++) {
		if (names_has(&roots, below.v[i])) {
			iop_why(why, len, "%s: %s holds the root filesystem; refusing to format it",
				dev, below.v[i]);
			return -EPERM;
		}
	}

	partitions_of(b, &parts);
	busy.devs[busy.n++] = b->devt;
	for (int i = 0; i < parts.n; i++) {
		struct blk p;

		if (!blk_by_name(parts.v[i], &p) && busy.n < MAX_NAMES)
			busy.devs[busy.n++] = p.devt;
	}
	if (walk_mounts(find_mounted, &busy) > 0 || find_swap(&busy)) {
		iop_why(why, len, "%s: %s%s%s", dev,
			busy.n > 1 ? "it or a partition of it " : "", busy.what, "; refusing to format it");
		return -EBUSY;
	}
	names_add(&parts, b->name);
	for (int i = 0; i < parts.n; i++) {
		if (find_holder(parts.v[i], holder, sizeof(holder))) {
			iop_why(why, len, "%s: %s is held by %s; refusing to format it",
				dev, parts.v[i], holder);
			return -EBUSY;
		}
	}
	return 0;
}

/*
 * The signature at the start of @dev by its magic bytes, read through an
 * exclusive open: it fails while anything has the device claimed, also a
 * mount in another mount namespace. Opened read-only: nothing is written.
 * 0 with *@sig NULL if there is none we know.
 */
static int device_magic(const char *dev, const char **sig, char *why, size_t len)
{
	const size_t buf_len = 128 << 10;
	unsigned char *buf;
	uint64_t size = 0;
	ssize_t have;
	int fd, ret;

	fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -EBUSY)
			iop_why(why, len, "%s: in use (claimed by a mount or another user); refusing to format it",
				dev);
		else
			iop_why(why, len, "%s: %s", dev, strerror(-ret));
		return ret;
	}
	if (ioctl(fd, BLKGETSIZE64, &size) == 0 && size == 0) {
		close(fd);
		iop_why(why, len, "%s: has no medium (size 0)", dev);
		return -ENXIO;
	}
	buf = malloc(buf_len);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	have = pread(fd, buf, buf_len, 0);
	ret = have < 0 ? -errno : 0;
	close(fd);
	*sig = ret ? NULL : magic_signature(buf, (size_t)have);
	free(buf);
	if (ret)
		iop_why(why, len, "%s: cannot read it: %s", dev, strerror(-ret));
	return ret;
}

/* blkid -p knows many more signatures; without blkid the magic check stands. */
static int device_blkid(const char *dev, char *why, size_t len)
{
	char *argv[] = { "blkid", "-p", "-o", "export", (char *)dev, NULL };
	char out[1024], line[256];
	const char *t = NULL;
	int ret;

	ret = run_tool(argv, out, sizeof(out));
	if (ret != 0 && ret != 8)
		return 0;
	/* "TYPE=ext4" (a filesystem) before "PTTYPE=gpt" (a partition table). */
	for (const char *p = out; *p; p += strcspn(p, "\n"), p += *p == '\n') {
		if (s_prefix(p, "TYPE=")) {
			t = p;
			break;
		}
		if (!t && s_prefix(p, "PTTYPE="))
			t = p;
	}
	if (t)
		first_line(t, line, sizeof(line));
	else
		snprintf(line, sizeof(line), "%s", ret == 8 ? "several signatures" : "a signature");
	iop_why(why, len, "%s: blkid finds %s; IOPATH_SCRATCH_FORCE_MKFS=%s formats it anyway",
		dev, line, IOP_FORCE_MKFS_WORD);
	return -EEXIST;
}

int iop_scratch_check_device(const char *dev, bool force, char *why, size_t len)
{
	const char *sig = NULL;
	struct stat sb;
	struct blk b;
	int ret;

	if (why && len)
		why[0] = '\0';
	if (!dev || !*dev) {
		iop_why(why, len, "no scratch device named");
		return -EINVAL;
	}
	if (stat(dev, &sb)) {
		ret = -errno;
		iop_why(why, len, "%s: %s", dev, strerror(-ret));
		return ret;
	}
	if (!S_ISBLK(sb.st_mode)) {
		iop_why(why, len, "%s: not a block device", dev);
		return -ENOTBLK;
	}
	ret = blk_by_devt(sb.st_rdev, &b);
	if (ret) {
		iop_why(why, len, "%s: not in /sys/dev/block: %s", dev, strerror(-ret));
		return ret;
	}
	ret = device_in_use(dev, &b, why, len);
	if (!ret)
		ret = device_magic(dev, &sig, why, len);
	if (ret || force)
		return ret;
	if (sig) {
		iop_why(why, len, "%s: carries %s; IOPATH_SCRATCH_FORCE_MKFS=%s formats it anyway",
			dev, sig, IOP_FORCE_MKFS_WORD);
		return -EEXIST;
	}
	return device_blkid(dev, why, len);
}
