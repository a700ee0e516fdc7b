// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Undoing a scratch, step by step in the reverse order of creation, from
 * what its state file records. Runs in the owner, in the guardian and in
 * iop_cleanup(), with the async-signal-safe helpers of sys.h; only
 * swapoff_under() reads /proc/swaps with stdio.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <unistd.h>

#include "scratch_int.h"
#include "sys.h"

void undo_report(struct undo_ctx *c, const char *kind, const char *what)
{
	char msg[PATH_MAX + 64];

	c->removed++;
	if (!c->report)
		return;
	s_cpy(msg, sizeof(msg), kind);
	s_cat(msg, sizeof(msg), " ");
	s_cat(msg, sizeof(msg), what);
	c->report(msg, c->arg);
}

/*
 * Unmount @mnt until it is no longer a mount point. Busy: retry, then (if
 * @c->lazy) detach it lazily; the device is released when its last user goes.
 * Returns how many mounts were removed or -errno.
 */
int umount_all(const char *mnt, struct undo_ctx *c)
{
	int removed = 0, tries = 0;

	while (removed < 16) {
		if (umount2(mnt, UMOUNT_NOFOLLOW) == 0) {
			removed++;
			continue;
		}
		if (errno == EINVAL || errno == ENOENT)
			break;		/* not (or no longer) a mount point */
		if (errno == EINTR)
			continue;
		if (errno != EBUSY)
			return -errno;
		if (tries++ < c->busy_tries) {
			nap_ms(c->nap);
			continue;
		}
		if (!c->lazy)
			return -EBUSY;
		if (umount2(mnt, MNT_DETACH | UMOUNT_NOFOLLOW))
			return -errno;
		removed++;
	}
	return removed;
}

/*
 * swapoff every swap file inside @mnt. A test killed between swapon(2) and
 * its swapoff(2) leaves the filesystem busy for good otherwise: umount
 * gives EBUSY and even a lazy detach keeps the device.
 */
static void swapoff_under(const char *mnt, struct undo_ctx *c)
{
	char line[PATH_MAX + 128], path[PATH_MAX];
	size_t ml = strlen(mnt);
	FILE *f;

	f = fopen("/proc/swaps", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%4095s", path) != 1)
			continue;
		unescape(path);
		if (strncmp(path, mnt, ml) || path[ml] != '/')
			continue;
		if (swapoff(path) == 0)
			undo_report(c, "swap", path);
	}
	fclose(f);
}

static int undo_mount(struct sstate *st, struct undo_ctx *c)
{
	int n;

	if (!st->mnt[0])
		return 0;
	/* Only our own mount points: never unmount what a state file merely names. */
	if (!own_child(st->mnt, MNT_DIR))
		goto forget;
	swapoff_under(st->mnt, c);
	n = umount_all(st->mnt, c);
	if (n < 0)
		return n;
	if (n) {
		c->unmounted = true;
		undo_report(c, "mount", st->mnt);
	}
	if (rmdir(st->mnt) && errno != ENOENT)
		return -errno;
forget:
	st->mnt[0] = '\0';
	return state_write(st);
}

static int undo_loop(struct sstate *st, struct undo_ctx *c)
{
	char tag[LO_NAME_SIZE];
	struct loop_info64 info;
	bool was_bound = false;
	int fd, r, err, tries;

	if (!st->loop[0])
		return 0;
	if (!s_prefix(st->loop, "/dev/loop"))
		goto gone;
	s_cpy(tag, sizeof(tag), LOOP_TAG);
	s_cat(tag, sizeof(tag), st->id);
	for (tries = 0;; tries++) {
		fd = open(st->loop, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
				break;
			return -errno;
		}
		if (ioctl(fd, LOOP_GET_STATUS64, &info)) {
			err = errno;
			close(fd);
			/* ENXIO: unbound, autoclear already ran; ENOTTY: not a loop device. */
			if (err == ENXIO || err == ENOTTY || err == EINVAL)
				break;
			return -err;
		}
		/* Bound to someone else's file since: not ours to detach. */
		if (strncmp((const char *)info.lo_file_name, tag, LO_NAME_SIZE)) {
			close(fd);
			break;
		}
		was_bound = true;
		/* With other openers the kernel only sets autoclear: look again. */
		r = ioctl(fd, LOOP_CLR_FD, 0);
		err = errno;
		close(fd);
		if (r && err != EBUSY && err != ENXIO)
			return -err;
		if (tries >= c->busy_tries)
			return -EBUSY;
		nap_ms(c->nap);
	}
	if (was_bound || c->unmounted)
		undo_report(c, "loop", st->loop);
gone:
	if (!strcmp(st->dev, st->loop))
		st->dev[0] = '\0';
	st->loop[0] = '\0';
	return state_write(st);
}

static int undo_zram(struct sstate *st, struct undo_ctx *c)
{
	char path[PATH_MAX], num[16] = "", dev[32] = "/dev/zram";
	int err = 0, tries;

	if (st->zram < 0)
		return 0;
	/* zram0 belongs to the system: no state file can make us touch it. */
	if (st->zram == 0)
		goto forget;
	s_cat_u(num, sizeof(num), (unsigned long long)st->zram);
	s_cat(dev, sizeof(dev), num);
	s_cpy(path, sizeof(path), "/sys/block/zram");
	s_cat(path, sizeof(path), num);
	if (access(path, F_OK))
		goto gone;
	s_cat(path, sizeof(path), "/reset");
	for (tries = 0;; tries++) {
		err = write_attr(path, "1");
		if (err != -EBUSY || tries >= c->busy_tries)
			break;
		nap_ms(c->nap);
	}
	if (err == -ENOENT)
		goto gone;
	if (err)
		return err;
	/*
	 * The index stays in the state file until hot_remove succeeded: a
	 * leaked empty device is better than a record that could later make
	 * cleanup reset a device someone else hot-added under the same index.
	 */
	for (tries = 0;; tries++) {
		err = write_attr(ZRAM_CONTROL "/hot_remove", num);
		if (err != -EBUSY || tries >= c->busy_tries)
			break;
		nap_ms(c->nap);
	}
	if (err && err != -ENODEV && err != -ENOENT)
		return err;
	undo_report(c, "zram", dev);
gone:
	if (!strcmp(st->dev, dev))
		st->dev[0] = '\0';
forget:
	st->zram = -1;
	return state_write(st);
}

static int undo_img(struct sstate *st, struct undo_ctx *c)
{
	if (!st->img[0])
		return 0;
	if (!own_child(st->img, IMG_DIR))
		goto forget;
	if (unlink(st->img) == 0)
		undo_report(c, "file", st->img);
	else if (errno != ENOENT)
		return -errno;
forget:
	st->img[0] = '\0';
	return state_write(st);
}

/* Remove a tree without following symlinks or crossing into other mounts. */
static int rm_tree_at(int dfd, const char *name, int depth)
{
	char buf[4096] __attribute__((aligned(8)));
	struct stat top, sb;
	bool again = true;
	int fd, err = 0;

	if (depth > 64)
		return -ELOOP;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &top)) {
		err = -errno;
		goto out;
	}
	/* Deleting while reading a directory may skip entries: repeat until a pass finds none. */
	while (again && !err) {
		again = false;
		if (lseek(fd, 0, SEEK_SET) < 0) {
			err = -errno;
			break;
		}
		for (;;) {
			ssize_t n = getdents64(fd, buf, sizeof(buf));

			if (n < 0)
				err = -errno;
			if (n <= 0)
				break;
			for (ssize_t off = 0; off < n;) {
				struct dirent64 *d = (struct dirent64 *)(buf + off);
				unsigned char type = d->d_type;

				off += d->d_reclen;
				if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
					continue;
				if (type == DT_UNKNOWN) {
					if (fstatat(fd, d->d_name, &sb, AT_SYMLINK_NOFOLLOW))
						continue;
					type = S_ISDIR(sb.st_mode) ? DT_DIR : DT_REG;
				}
				if (type == DT_DIR) {
					if (fstatat(fd, d->d_name, &sb, AT_SYMLINK_NOFOLLOW) ||
					    sb.st_dev != top.st_dev) {
						err = -EXDEV;
						continue;
					}
					err = rm_tree_at(fd, d->d_name, depth + 1);
				} else if (unlinkat(fd, d->d_name, 0) && errno != ENOENT) {
					err = -errno;
				}
				again = true;
			}
		}
	}
out:
	close(fd);
	if (!err && unlinkat(dfd, name, AT_REMOVEDIR) && errno != ENOENT)
		err = -errno;
	return err;
}

static int undo_dir(struct sstate *st, struct undo_ctx *c)
{
	char want[80] = "/iopath-";
	size_t l = strlen(st->dir), w;
	int err;

	if (!st->dir[0])
		return 0;
	/* Only the subdirectory we made: ".../iopath-<id>", "/iopath-<id>" included. */
	s_cat(want, sizeof(want), st->id);
	w = strlen(want);
	if (st->dir[0] != '/' || l < w || strcmp(st->dir + l - w, want) || has_dotdot(st->dir))
		goto gone;
	if (access(st->dir, F_OK) && errno == ENOENT)
		goto gone;
	err = rm_tree_at(AT_FDCWD, st->dir, 0);
	if (err)
		return err;
	undo_report(c, "directory", st->dir);
gone:
	st->dir[0] = '\0';
	return state_write(st);
}

/*
 * Undo everything @st records, in the reverse order of creation, then
 * delete the state file. Stops at the first step that fails: the state file
 * then still says what is left, for the guardian or iop_cleanup().
 */
int undo_all(struct sstate *st, struct undo_ctx *c, int *loop_fd)
{
	char path[PATH_MAX];
	int err;

	c->unmounted = false;
	err = undo_mount(st, c);
	/* The owner's own hold on the loop device goes last: autoclear then detaches it. */
	if (loop_fd && *loop_fd >= 0) {
		close(*loop_fd);
		*loop_fd = -1;
	}
	if (!err)
		err = undo_loop(st, c);
	if (!err)
		err = undo_zram(st, c);
	if (!err)
		err = undo_img(st, c);
	if (!err)
		err = undo_dir(st, c);
	if (err)
		return err;
	state_path(path, sizeof(path), st->id, false);
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return 0;
}
