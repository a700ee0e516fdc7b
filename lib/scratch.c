// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scratch filesystems: ext4 or XFS on a hot-added zram device, on a loop
 * device over a sparse file, on a block device the user named, or a fresh
 * subdirectory of an existing mounted filesystem. The safety model and the
 * tagging are described in scratch.h.
 *
 * The state file IOP_RUN_DIR/state/<id> is the one record of what a scratch
 * holds. It is written before anything is created and rewritten after every
 * step, forwards and backwards, so that whoever undoes a scratch (the owner
 * in iop_scratch_destroy(), the guardian after the owner died, or
 * iop_cleanup() after both died) undoes exactly what exists and never acts
 * on a device number that may since have been reused by someone else.
 *
 * The undo path (undo_*, state_read/state_write and what they call) also
 * runs in the guardian, which is forked from a possibly multi-threaded
 * process. It therefore uses only system calls and string functions that
 * are async-signal-safe: no stdio, no malloc, numbers formatted by hand.
 *
 * The parts: scratch_state.c (the state file), scratch_undo.c (undoing
 * what it lists), guardian.c, scratch_device.c (the safety checks of a
 * named device), scratch_fs.c (mkfs, mount, fsck), scratch_cleanup.c
 * (iop_cleanup()) and sys.c (small system helpers).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "array_size.h"
#include "guardian.h"
#include "number.h"
#include "quote.h"
#include "scratch_int.h"
#include "sys.h"
#include "why.h"

/* ---- options ----------------------------------------------------------- */

int iop_parse_size(const char *s, uint64_t *out)
{
	unsigned long long mult = 1;
	char digits[32];
	const char *end;
	size_t nd;
	uint64_t v;

	if (!s)
		return -EINVAL;
	/* the number through the one parser, then the unit */
	nd = strspn(s, "0123456789");
	if (!nd || nd >= sizeof(digits))
		return -EINVAL;
	memcpy(digits, s, nd);
	digits[nd] = '\0';
	if (iop_parse_u64(digits, 0, UINT64_MAX, &v))
		return -EINVAL;
	end = s + nd;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K':
		mult = 1ull << 10;
		end++;
		break;
	case 'm': case 'M':
		mult = 1ull << 20;
		end++;
		break;
	case 'g': case 'G':
		mult = 1ull << 30;
		end++;
		break;
	case 't': case 'T':
		mult = 1ull << 40;
		end++;
		break;
	default:
		return -EINVAL;
	}
	if (mult > 1 && (*end == 'i' || *end == 'I'))
		end++;
	if (mult > 1 && (*end == 'b' || *end == 'B'))
		end++;
	if (*end || !v || v > UINT64_MAX / mult)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

static const char *const backing_names[] = {
	[IOP_BACKING_DEFAULT] = "default",
	[IOP_BACKING_ZRAM] = "zram",
	[IOP_BACKING_LOOP] = "loop",
	[IOP_BACKING_DEVICE] = "dev",
	[IOP_BACKING_DIR] = "dir",
};

const char *iop_backing_name(enum iop_backing b)
{
	return (size_t)b < ARRAY_SIZE(backing_names) ? backing_names[b] : "default";
}

int iop_parse_backing(const char *s, struct iop_scratch_opts *o, char *why, size_t len)
{
	const char *path = s ? strchr(s, ':') : NULL;
	size_t n = path ? (size_t)(path - s) : 0;

	if (!s || !*s)
		return 0;
	if ((!strcmp(s, "zram") || !strcmp(s, "loop"))) {
		o->backing = strcmp(s, "zram") ? IOP_BACKING_LOOP : IOP_BACKING_ZRAM;
		o->device = NULL;
		o->dir = NULL;
		return 0;
	}
	if (path && path[1] == '/' && !strchr(path, '\n')) {
		if (n == 3 && !strncmp(s, "dev", 3)) {
			o->backing = IOP_BACKING_DEVICE;
			o->device = path + 1;
			o->dir = NULL;
			return 0;
		}
		if (n == 3 && !strncmp(s, "dir", 3)) {
			o->backing = IOP_BACKING_DIR;
			o->dir = path + 1;
			o->device = NULL;
			return 0;
		}
	}
	iop_why(why, len, "backing '%s': expected zram, loop, dev:/dev/X or dir:/path", s);
	return -EINVAL;
}

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/*
 * Why a variable of the environment is refused: "NAME=VALUE: @what", the
 * value escaped (iop_esc()): a newline in it would end the one-line reason
 * before the reason.
 */
static void why_env(char *why, size_t len, const char *name, const char *val,
		    const char *what)
{
	char *e = iop_esc_dup(val);

	iop_why(why, len, "%s=%s: %s", name, e ? e : "(out of memory)", what);
	free(e);
}

/* Whether @s holds a control character: no device or directory path does. */
static bool has_control(const char *s)
{
	for (size_t i = 0; s[i]; i++)
		if (iop_is_control(s, i))
			return true;
	return false;
}

/*
 * An absolute path from the environment, with no control character in
 * it: true, or false with @why filled ("NAME=VALUE: @what").
 */
static bool env_path_ok(char *why, size_t len, const char *name, const char *val,
			const char *what)
{
	if (val[0] == '/' && !has_control(val))
		return true;
	why_env(why, len, name, val, what);
	return false;
}

int iop_scratch_opts_from_env(struct iop_scratch_opts *o, char *why, size_t len)
{
	const char *backing = env("IOPATH_BACKING"), *dev = env("IOPATH_SCRATCH_DEV");
	const char *dir = env("IOPATH_SCRATCH_DIR"), *force = env("IOPATH_SCRATCH_FORCE_MKFS");
	const char *size = env("IOPATH_SCRATCH_SIZE"), *dax = env("IOPATH_SCRATCH_DAX_DEV");
	struct iop_scratch_opts n = *o;

	if (why && len)
		why[0] = '\0';
	if (dev && dir) {
		iop_why(why, len, "set only one of IOPATH_SCRATCH_DEV and IOPATH_SCRATCH_DIR");
		return -EINVAL;
	}
	if (backing) {
		/* A device or directory has a variable of its own. */
		if (iop_parse_backing(backing, &n, NULL, 0) ||
		    (n.backing != IOP_BACKING_ZRAM && n.backing != IOP_BACKING_LOOP)) {
			why_env(why, len, "IOPATH_BACKING", backing, "expected zram or loop");
			return -EINVAL;
		}
		if (dev || dir) {
			why_env(why, len, "IOPATH_BACKING", backing, dev ?
				"conflicts with IOPATH_SCRATCH_DEV" :
				"conflicts with IOPATH_SCRATCH_DIR");
			return -EINVAL;
		}
	}
	if (dev) {
		if (!env_path_ok(why, len, "IOPATH_SCRATCH_DEV", dev, "expected an absolute /dev path"))
			return -EINVAL;
		n.backing = IOP_BACKING_DEVICE;
		n.device = dev;
	}
	if (dir) {
		if (!env_path_ok(why, len, "IOPATH_SCRATCH_DIR", dir, "expected an absolute path"))
			return -EINVAL;
		n.backing = IOP_BACKING_DIR;
		n.dir = dir;
	}
	if (dax) {
		if (!env_path_ok(why, len, "IOPATH_SCRATCH_DAX_DEV", dax, "expected an absolute /dev path"))
			return -EINVAL;
		n.dax_device = dax;
	}
	if (force) {
		if (strcmp(force, IOP_FORCE_MKFS_WORD)) {
			why_env(why, len, "IOPATH_SCRATCH_FORCE_MKFS", force,
				"only '" IOP_FORCE_MKFS_WORD "' forces a format");
			return -EINVAL;
		}
		n.force = true;
	}
	if (size && iop_parse_size(size, &n.size)) {
		why_env(why, len, "IOPATH_SCRATCH_SIZE", size,
			"expected a size in bytes with an optional k, m, g or t suffix");
		return -EINVAL;
	}
	*o = n;
	return 0;
}

/* ---- backings ---------------------------------------------------------- */

static int zram_add(struct iop_scratch *s, struct sstate *st, uint64_t size,
		    char *why, size_t len)
{
	char buf[32], path[PATH_MAX];
	unsigned long long id;
	struct stat sb;
	int ret;

	ret = read_small(ZRAM_CONTROL "/hot_add", buf, sizeof(buf));
	if (ret < 0) {
		iop_why(why, len, "zram hot_add: %s", strerror(-ret));
		return ret == -ENOENT ? -ENODEV : ret;
	}
	if (s_to_u(buf, &id) || id == 0 || id > INT_MAX) {
		iop_why(why, len, "zram hot_add returned '%s'", buf);
		return -EIO;
	}
	s->zram_id = (int)id;
	snprintf(s->dev, sizeof(s->dev), "/dev/zram%d", s->zram_id);
	st->zram = s->zram_id;
	s_cpy(st->dev, sizeof(st->dev), s->dev);
	ret = state_write(st);
	if (ret) {
		iop_why(why, len, "state file: %s", strerror(-ret));
		return ret;
	}
	snprintf(path, sizeof(path), "/sys/block/zram%d/disksize", s->zram_id);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)size);
	ret = write_attr(path, buf);
	if (ret) {
		iop_why(why, len, "zram%d disksize %s: %s", s->zram_id, buf, strerror(-ret));
		return ret;
	}
	/* devtmpfs makes the node during hot_add; udev may still be renaming it. */
	for (int i = 0; stat(s->dev, &sb) || !S_ISBLK(sb.st_mode); i++) {
		if (i == 100) {
			iop_why(why, len, "%s did not appear", s->dev);
			return -ENODEV;
		}
		nap_ms(20);
	}
	return 0;
}

/* Attach a loop device to a fresh sparse file; returns an fd on it (keep until mounted). */
static int loop_attach(struct iop_scratch *s, struct sstate *st, uint64_t size,
		       unsigned int sector_size, char *why, size_t len)
{
	struct loop_config cfg;
	char path[64];
	int img, ctl, fd = -1, ret = 0;

	snprintf(s->img, sizeof(s->img), IMG_DIR "/%s.img", s->id);
	s_cpy(st->img, sizeof(st->img), s->img);
	ret = state_write(st);
	if (ret) {
		iop_why(why, len, "state file: %s", strerror(-ret));
		return ret;
	}
	img = open(s->img, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (img < 0) {
		ret = -errno;
		iop_why(why, len, "create %s: %s", s->img, strerror(-ret));
		return ret;
	}
	if (ftruncate(img, (off_t)size)) {
		ret = -errno;
		iop_why(why, len, "size %s: %s", s->img, strerror(-ret));
		goto out_img;
	}
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		ret = errno == ENOENT ? -ENODEV : -errno;
		iop_why(why, len, "/dev/loop-control: %s", strerror(errno));
		goto out_img;
	}

	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = (__u32)img;
	cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
	cfg.block_size = sector_size;
	s_cpy((char *)cfg.info.lo_file_name, LO_NAME_SIZE, LOOP_TAG);
	s_cat((char *)cfg.info.lo_file_name, LO_NAME_SIZE, s->id);
	/* Another process may take the free device between GET_FREE and CONFIGURE. */
	for (int attempt = 0; attempt < 32; attempt++) {
		int n = ioctl(ctl, LOOP_CTL_GET_FREE);

		if (n < 0) {
			ret = -errno;
			iop_why(why, len, "LOOP_CTL_GET_FREE: %s", strerror(-ret));
			goto out_ctl;
		}
		snprintf(path, sizeof(path), "/dev/loop%d", n);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			nap_ms(10);
			continue;
		}
		if (!ioctl(fd, LOOP_CONFIGURE, &cfg)) {
			ret = 0;
			break;
		}
		ret = -errno;
		if ((ret == -EINVAL && !sector_size) || ret == -ENOTTY) {
			/* Before 5.8: LOOP_SET_FD, then the status with flags and tag. */
			if (!ioctl(fd, LOOP_SET_FD, img)) {
				if (!ioctl(fd, LOOP_SET_STATUS64, &cfg.info)) {
					ret = 0;
					break;
				}
				ret = -errno;
				ioctl(fd, LOOP_CLR_FD, 0);
				close(fd);
				fd = -1;
				break;
			}
			ret = -errno;
		}
		close(fd);
		fd = -1;
		if (ret != -EBUSY)
			break;
	}
	if (ret || fd < 0) {
		ret = ret ? ret : -EBUSY;
		iop_why(why, len, "attach a loop device to %s: %s", s->img, strerror(-ret));
		goto out_ctl;
	}
	snprintf(s->dev, sizeof(s->dev), "%s", path);
	s_cpy(st->loop, sizeof(st->loop), path);
	s_cpy(st->dev, sizeof(st->dev), path);
	ret = state_write(st);
	if (ret)
		iop_why(why, len, "state file: %s", strerror(-ret));
out_ctl:
	close(ctl);
out_img:
	close(img);
	if (ret && fd >= 0) {
		close(fd);	/* autoclear detaches it */
		fd = -1;
	}
	return ret ? ret : fd;
}

struct fstype_find {
	const char *path;
	size_t best;
	char fstype[64];
};

static int find_fstype(const struct mountent *m, void *arg)
{
	struct fstype_find *f = arg;
	size_t l = strlen(m->target);

	if (!strcmp(m->target, "/"))
		l = 0;
	else if (strncmp(f->path, m->target, l) || (f->path[l] && f->path[l] != '/'))
		return 0;
	/* >=: a later mount on the same point hides the earlier one. */
	if (l >= f->best) {
		f->best = l;
		snprintf(f->fstype, sizeof(f->fstype), "%s", m->fstype);
	}
	return 0;
}

static int dir_check(const struct iop_scratch_opts *o, char *real, char *why, size_t len)
{
	struct fstype_find f = { .best = 0 };
	struct stat sb;
	int ret;

	if (!o->dir || !*o->dir) {
		iop_why(why, len, "no scratch directory named");
		return -EINVAL;
	}
	if (!realpath(o->dir, real) || stat(real, &sb)) {
		ret = -errno;
		iop_why(why, len, "%s: %s", o->dir, strerror(-ret));
		return ret;
	}
	if (!S_ISDIR(sb.st_mode)) {
		iop_why(why, len, "%s: not a directory", o->dir);
		return -ENOTDIR;
	}
	if (strchr(real, '\n')) {
		iop_why(why, len, "%s: newline in path", o->dir);
		return -EINVAL;
	}
	f.path = real;
	walk_mounts(find_fstype, &f);
	if (strcmp(f.fstype, o->fstype)) {
		iop_why(why, len, "%s is on %s, not %s", o->dir, f.fstype[0] ? f.fstype : "an unknown filesystem",
			o->fstype);
		return -EOPNOTSUPP;
	}
	/* Nothing is formatted or mounted here: requested options cannot be honoured. */
	if ((o->mkfs_opts && *o->mkfs_opts) || (o->mount_opts && *o->mount_opts)) {
		iop_why(why, len, "%s: an existing filesystem cannot take mkfs options '%s' or mount options '%s'",
			o->dir, o->mkfs_opts ? o->mkfs_opts : "", o->mount_opts ? o->mount_opts : "");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* ---- create and destroy ------------------------------------------------ */

static void scratch_to_state(const struct iop_scratch *s, struct sstate *st)
{
	memset(st, 0, sizeof(*st));
	s_cpy(st->id, sizeof(st->id), s->id);
	s_cpy(st->backing, sizeof(st->backing), iop_backing_name(s->backing));
	s_cpy(st->fstype, sizeof(st->fstype), s->fstype);
	st->owner = getpid();
	proc_stat(st->owner, &st->owner_start, NULL);
	st->guardian = s->guardian;
	st->zram = s->zram_id;
	if (s->backing == IOP_BACKING_DIR) {
		s_cpy(st->dir, sizeof(st->dir), s->mnt);
		return;
	}
	if (s->backing == IOP_BACKING_LOOP)
		s_cpy(st->loop, sizeof(st->loop), s->dev);
	s_cpy(st->dev, sizeof(st->dev), s->dev);
	s_cpy(st->mnt, sizeof(st->mnt), s->mnt);
	s_cpy(st->img, sizeof(st->img), s->img);
}

/* In the guardian, once the owner is gone: undo what the state file of @id lists. */
static void guardian_undo(void *id, int keep_fd)
{
	static struct sstate st;
	struct undo_ctx c = { .busy_tries = 600, .nap = 100, .lazy = true };

	(void)keep_fd;
	if (state_read(id, &st) == 0)
		undo_all(&st, &c, NULL);
}

/* Claim an id: the state file is created exclusively, so ids never collide. */
static int claim_id(struct iop_scratch *s)
{
	static unsigned int seq;
	char path[PATH_MAX];

	for (int tries = 0; tries < 1000; tries++) {
		unsigned int n = __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED);
		int fd;

		snprintf(s->id, sizeof(s->id), "%d-%u", (int)getpid(), n);
		state_path(path, sizeof(path), s->id, false);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/*
 * Everything about @o that can be refused before anything exists: the
 * filesystem, the option lengths, the backing (the default resolved) and
 * what it names. @real gets the resolved directory of IOP_BACKING_DIR.
 */
int iop_stable_writes_check(enum iop_backing backing, char *why, size_t len)
{
	if (backing == IOP_BACKING_ZRAM || backing == IOP_BACKING_LOOP)
		return 0;
	iop_why(why, len, "stable_writes: only on a zram or loop device iopath makes, not on %s",
		iop_backing_name(backing));
	return -EINVAL;
}

static int create_check(const struct iop_scratch_opts *o, enum iop_backing *backing,
			uint64_t size, char *real, char *why, size_t len)
{
	const struct iop_scratch *s = NULL;
	char mkfs[sizeof(s->mkfs_opts)], mount[sizeof(s->mount_opts)];

	if (!o->fstype || (strcmp(o->fstype, "ext4") && strcmp(o->fstype, "xfs"))) {
		iop_why(why, len, "filesystem '%s': expected ext4 or xfs", o->fstype ? o->fstype : "");
		return -EINVAL;
	}
	if (*backing == IOP_BACKING_DEFAULT)
		*backing = access(ZRAM_CONTROL "/hot_add", W_OK) == 0 ? IOP_BACKING_ZRAM :
									IOP_BACKING_LOOP;
	if (iop_scratch_fs_opts(o, *backing, mkfs, mount, sizeof(s->mkfs_opts))) {
		iop_why(why, len, "mkfs or mount options too long");
		return -EINVAL;
	}
	if ((*backing == IOP_BACKING_ZRAM || *backing == IOP_BACKING_LOOP) &&
	    !strcmp(o->fstype, "xfs") && size < XFS_MIN_SIZE) {
		iop_why(why, len, "XFS needs at least 300 MiB, not %llu bytes",
			(unsigned long long)size);
		return -EINVAL;
	}
	if (o->sector_size && (*backing != IOP_BACKING_LOOP || o->sector_size < 512 ||
			       o->sector_size > 4096 || (o->sector_size & (o->sector_size - 1)))) {
		iop_why(why, len, "sector size %u: a power of two from 512 to 4096, on a loop device only",
			o->sector_size);
		return -EINVAL;
	}
	if (o->stable_writes != IOP_STABLE_WRITES_DEVICE &&
	    iop_stable_writes_check(*backing, why, len))
		return -EINVAL;
	switch (*backing) {
	case IOP_BACKING_DEVICE:
		return iop_scratch_check_device(o->device, o->force, why, len);
	case IOP_BACKING_DIR:
		return dir_check(o, real, why, len);
	case IOP_BACKING_ZRAM:
		if (access(ZRAM_CONTROL "/hot_add", F_OK)) {
			iop_why(why, len, "no zram in this kernel (%s missing)", ZRAM_CONTROL);
			return -ENODEV;
		}
		return 0;
	case IOP_BACKING_LOOP:
		return 0;
	default:
		iop_why(why, len, "unknown backing %d", (int)*backing);
		return -EINVAL;
	}
}

int iop_run_tmp(const char *what, char *path, size_t len)
{
	int ret = mkdir_p(TMP_DIR, 0700), fd;

	if (ret)
		return ret;
	if ((size_t)snprintf(path, len, TMP_DIR "/%d-%s.XXXXXX", (int)getpid(), what) >= len)
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int iop_scratch_create_check(const struct iop_scratch_opts *o, char *why, size_t len)
{
	enum iop_backing backing = o->backing;
	char real[PATH_MAX];

	return create_check(o, &backing, o->size ? o->size : IOP_SCRATCH_DEFAULT_SIZE, real, why,
			    len);
}

static int run_dirs(char *why, size_t len)
{
	static const struct {
		const char *path;
		mode_t mode;
	} dirs[] = { { STATE_DIR, 0755 }, { MNT_DIR, 0755 }, { IMG_DIR, 0700 } };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		int ret = mkdir_p(dirs[i].path, dirs[i].mode);

		if (!ret)
			continue;
		iop_why(why, len, "%s: %s%s", IOP_RUN_DIR, strerror(-ret),
			ret == -EACCES || ret == -EPERM ? " (needs root)" : "");
		return ret == -EPERM ? -EACCES : ret;
	}
	return 0;
}

int iop_scratch_fs_opts(const struct iop_scratch_opts *o, enum iop_backing backing,
			char *mkfs, char *mount, size_t len)
{
	const char *mk = o->mkfs_opts ? o->mkfs_opts : "", *mo = o->mount_opts ? o->mount_opts : "";
	bool ext4 = o->fstype && !strcmp(o->fstype, "ext4") && backing != IOP_BACKING_DIR;
	int n, m;

	/*
	 * ext4 otherwise zeroes its inode tables from a kernel thread after
	 * mount: background I/O in the middle of a measurement. An explicit -E
	 * wins (mke2fs keeps only the last -E).
	 */
	if (ext4 && !strstr(mk, "-E"))
		n = snprintf(mkfs, len, "-E lazy_itable_init=0,lazy_journal_init=0%s%s",
			     *mk ? " " : "", mk);
	else
		n = snprintf(mkfs, len, "%s", mk);
	/*
	 * With the inode tables zeroed, what that thread still does is load
	 * every group's block bitmap and buddy (prefetch_block_bitmaps), at a
	 * random time up to 5 s after mount. mballoc's cheap passes consider
	 * only groups already loaded, so a file allocated before it ran went
	 * to one place and after it to another (a whole boot 12 instructions
	 * a read slower), and a run of it could land in a measured interval.
	 * Without it, groups are loaded by the allocation itself, the same in
	 * every boot. An explicit [no_]prefetch_block_bitmaps wins.
	 */
	if (ext4 && o->measure && !strstr(mo, "prefetch_block_bitmaps"))
		m = snprintf(mount, len, "no_prefetch_block_bitmaps%s%s", *mo ? "," : "", mo);
	else
		m = snprintf(mount, len, "%s", mo);
	return n < 0 || (size_t)n >= len || m < 0 || (size_t)m >= len ? -EINVAL : 0;
}

/* A new struct iop_scratch with the options as they will be used. */
static struct iop_scratch *scratch_new(const struct iop_scratch_opts *o, enum iop_backing backing)
{
	struct iop_scratch *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->backing = backing;
	s->zram_id = -1;
	s->loop_fd = -1;
	s->guardian_fd = -1;
	snprintf(s->fstype, sizeof(s->fstype), "%s", o->fstype);
	/* create_check() made sure that they fit */
	iop_scratch_fs_opts(o, backing, s->mkfs_opts, s->mount_opts, sizeof(s->mkfs_opts));
	return s;
}

/* The first state file, then the guardian that acts on it, then its pid in it. */
static int state_begin(struct iop_scratch *s, struct sstate *st, char *why, size_t len)
{
	int ret;

	scratch_to_state(s, st);
	/* The device, loop and zram fields are recorded once they exist. */
	st->dev[0] = '\0';
	st->loop[0] = '\0';
	st->img[0] = '\0';
	if (s->backing == IOP_BACKING_DEVICE)
		s_cpy(st->dev, sizeof(st->dev), s->dev);
	ret = state_write(st);
	if (ret) {
		iop_why(why, len, "state file: %s", strerror(-ret));
		return ret;
	}
	ret = iop_guardian_start("iopath-guardian", -1, guardian_undo, s->id, &s->guardian,
				 &s->guardian_fd);
	if (ret) {
		iop_why(why, len, "cannot start the guardian process: %s", strerror(-ret));
		return ret;
	}
	st->guardian = s->guardian;
	ret = state_write(st);
	if (ret)
		iop_why(why, len, "state file: %s", strerror(-ret));
	return ret;
}

/* The stable_writes flag of the device just made, before mkfs reads it. */
static int set_stable_writes(const struct iop_scratch *s, enum iop_stable_writes sw,
			     char *why, size_t len)
{
	char path[PATH_MAX];
	int ret;

	if (sw == IOP_STABLE_WRITES_DEVICE)
		return 0;
	snprintf(path, sizeof(path), "/sys/class/block/%s/queue/stable_writes",
		 strrchr(s->dev, '/') + 1);
	ret = write_attr(path, sw == IOP_STABLE_WRITES_ON ? "1" : "0");
	if (ret)
		iop_why(why, len, "%s stable_writes: %s", s->dev, strerror(-ret));
	return ret;
}

/* The block device (zram, loop) or directory; a loop device's fd in *@loop_fd. */
static int backing_make(struct iop_scratch *s, struct sstate *st, uint64_t size,
			const struct iop_scratch_opts *o, int *loop_fd, char *why, size_t len)
{
	int ret = 0;

	switch (s->backing) {
	case IOP_BACKING_ZRAM:
		ret = zram_add(s, st, size, why, len);
		return ret ? ret : set_stable_writes(s, o->stable_writes, why, len);
	case IOP_BACKING_LOOP:
		ret = *loop_fd = loop_attach(s, st, size, o->sector_size, why, len);
		if (ret <= 0)
			return ret;
		return set_stable_writes(s, o->stable_writes, why, len);
	case IOP_BACKING_DIR:
		if (mkdir(s->mnt, 0755)) {
			ret = -errno;
			iop_why(why, len, "mkdir %s: %s", s->mnt, strerror(-ret));
		}
		return ret;
	default:
		return 0;
	}
}

int iop_scratch_create(const struct iop_scratch_opts *o, struct iop_scratch **out,
		       char *why, size_t len)
{
	enum iop_backing backing = o->backing;
	uint64_t size = o->size ? o->size : IOP_SCRATCH_DEFAULT_SIZE;
	char real[PATH_MAX] = "";
	struct iop_scratch *s;
	struct sstate st;
	struct undo_ctx c = { .busy_tries = 20, .nap = 50, .lazy = true };
	int ret, loop_fd = -1;

	*out = NULL;
	if (why && len)
		why[0] = '\0';
	ret = create_check(o, &backing, size, real, why, len);
	if (ret)
		return ret;
	size = (size + 4095) & ~4095ull;
	ret = run_dirs(why, len);
	if (ret)
		return ret;
	s = scratch_new(o, backing);
	if (!s)
		return -ENOMEM;
	ret = claim_id(s);
	if (ret) {
		iop_why(why, len, "state file in %s: %s", STATE_DIR, strerror(-ret));
		free(s);
		return ret;
	}
	if (backing == IOP_BACKING_DIR)
		snprintf(s->mnt, sizeof(s->mnt), "%s/iopath-%s",
			 strcmp(real, "/") ? real : "", s->id);
	else
		snprintf(s->mnt, sizeof(s->mnt), MNT_DIR "/%s", s->id);
	if (backing == IOP_BACKING_DEVICE)
		snprintf(s->dev, sizeof(s->dev), "%s", o->device);

	ret = state_begin(s, &st, why, len);
	if (!ret)
		ret = backing_make(s, &st, size, o, &loop_fd, why, len);
	if (!ret && backing != IOP_BACKING_DIR) {
		ret = do_mkfs(s, why, len);
		if (!ret)
			ret = do_mount(s, why, len);
	}
	if (ret)
		goto undo;
	/*
	 * Hold the loop device: autoclear would detach it at every umount
	 * (remount, fsck). Closed at destroy, or by the kernel if we die.
	 */
	s->loop_fd = loop_fd;
	*out = s;
	return 0;

undo:
	if (loop_fd >= 0)
		close(loop_fd);
	/* Undo what exists; if that stalls, the guardian finishes from the state file. */
	iop_guardian_release(s->guardian, &s->guardian_fd, undo_all(&st, &c, NULL) == 0);
	free(s);
	return ret;
}

int iop_scratch_destroy(struct iop_scratch *s)
{
	struct undo_ctx c = { .busy_tries = 40, .nap = 50, .lazy = true };
	char path[PATH_MAX];
	struct sstate st;
	int ret;

	if (!s)
		return 0;
	scratch_to_state(s, &st);
	/*
	 * No state file: `iopath cleanup --all` undid this scratch already, and
	 * the zram index may be someone else's by now. (Mount point, image and
	 * tagged loop device are checked as ours whatever happened.)
	 */
	state_path(path, sizeof(path), s->id, false);
	if (access(path, F_OK) && errno == ENOENT)
		st.zram = -1;
	ret = undo_all(&st, &c, &s->loop_fd);
	/* Not finished (still busy): the guardian keeps at it from the state file. */
	iop_guardian_release(s->guardian, &s->guardian_fd, ret == 0);
	free(s);
	return ret;
}
