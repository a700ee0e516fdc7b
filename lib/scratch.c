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
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scratch.h"
#include "why.h"

#define STATE_DIR IOP_RUN_DIR "/state"
#define MNT_DIR IOP_RUN_DIR "/mnt"
#define IMG_DIR IOP_RUN_DIR "/img"
#define ZRAM_CONTROL "/sys/class/zram-control"
#define LOOP_TAG "iopath:"

/* mkfs.xfs refuses anything smaller than 300 MiB. */
#define XFS_MIN_SIZE (300ull << 20)

/* ---- async-signal-safe string helpers ---------------------------------- */

static void s_cpy(char *d, size_t cap, const char *s)
{
	size_t n = strlen(s);

	if (!cap)
		return;
	if (n >= cap)
		n = cap - 1;
	memcpy(d, s, n);
	d[n] = '\0';
}

static void s_cat(char *d, size_t cap, const char *s)
{
	size_t l = strnlen(d, cap);

	if (l < cap)
		s_cpy(d + l, cap - l, s);
}

static void s_cat_u(char *d, size_t cap, unsigned long long v)
{
	char b[24];
	int i = sizeof(b) - 1;

	b[i] = '\0';
	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	s_cat(d, cap, b + i);
}

/* Decimal up to the end of the string or a newline; -1 if malformed. */
static int s_to_u(const char *s, unsigned long long *v)
{
	unsigned long long r = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (r > (ULLONG_MAX - 9) / 10)
			return -1;
		r = r * 10 + (unsigned long long)(*s - '0');
	}
	if (*s && *s != '\n')
		return -1;
	*v = r;
	return 0;
}

static bool s_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * Is @path exactly "<parent>/<name>", name a plain file name? State files
 * are root's, but what they name is checked before anything is undone.
 */
static bool own_child(const char *path, const char *parent)
{
	size_t l = strlen(parent);
	const char *name = path + l + 1;

	return !strncmp(path, parent, l) && path[l] == '/' && *name && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

static bool has_dotdot(const char *path)
{
	for (const char *p = strstr(path, ".."); p; p = strstr(p + 1, ".."))
		if ((p == path || p[-1] == '/') && (p[2] == '/' || !p[2]))
			return true;
	return false;
}

static void nap_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static ssize_t read_full(int fd, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static int write_full(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read a small file (sysfs, procfs) into @buf, NUL-terminated. */
static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read_full(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	return (int)n;
}

/* Write a value into a sysfs attribute in one write(2), as sysfs wants. */
static int write_attr(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	do {
		n = write(fd, val, strlen(val));
	} while (n < 0 && errno == EINTR);
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

/* ---- processes --------------------------------------------------------- */

/*
 * Start time (clock ticks since boot) and state letter of a process, from
 * /proc/<pid>/stat. The start time tells a live owner from a new process
 * that happens to have the same pid.
 */
static int proc_stat(long pid, unsigned long long *start, char *state)
{
	char path[64] = "/proc/", buf[1024], *p, *end;
	int n, field;

	s_cat_u(path, sizeof(path), (unsigned long long)pid);
	s_cat(path, sizeof(path), "/stat");
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	/* comm may contain spaces and parentheses: fields start after the last ')'. */
	end = buf + n;
	for (p = end; p > buf && p[-1] != ')'; p--)
		;
	if (p == buf)
		return -EINVAL;
	/* p points after ')': " S ppid ..." ; state is field 3, starttime field 22. */
	for (field = 2; p < end && field < 22; p++) {
		if (*p != ' ')
			continue;
		field++;
		if (field == 3 && state)
			*state = p[1];
	}
	if (field != 22)
		return -EINVAL;
	*start = 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++)
		*start = *start * 10 + (unsigned long long)(*p - '0');
	return 0;
}

/* Is @pid a live (not zombie) process, started at @start if that is known? */
static bool pid_alive(long pid, unsigned long long start)
{
	unsigned long long now;
	char state = '?';

	if (pid <= 0)
		return false;
	if (kill((pid_t)pid, 0) && errno == ESRCH)
		return false;
	if (proc_stat(pid, &now, &state))
		return true;	/* no /proc: trust kill() */
	if (state == 'Z' || state == 'X')
		return false;
	return !start || now == start;
}

/* ---- the state file ---------------------------------------------------- */

struct sstate {
	char id[64];
	char backing[8];	/* zram, loop, dev, dir */
	char fstype[16];
	long owner;
	unsigned long long owner_start;
	long guardian;
	int zram;		/* hot-added zram index, -1 if none */
	char dev[PATH_MAX];
	char loop[PATH_MAX];
	char img[PATH_MAX];
	char mnt[PATH_MAX];	/* mount point under MNT_DIR */
	char dir[PATH_MAX];	/* IOP_BACKING_DIR: the subdirectory to remove */
};

static const char *backing_name(enum iop_backing b)
{
	switch (b) {
	case IOP_BACKING_ZRAM:
		return "zram";
	case IOP_BACKING_LOOP:
		return "loop";
	case IOP_BACKING_DEVICE:
		return "dev";
	case IOP_BACKING_DIR:
		return "dir";
	default:
		return "default";
	}
}

static void state_path(char *buf, size_t len, const char *id, bool tmp)
{
	s_cpy(buf, len, STATE_DIR "/");
	if (tmp)
		s_cat(buf, len, ".");
	s_cat(buf, len, id);
	if (tmp)
		s_cat(buf, len, ".tmp");
}

static void kv(char *buf, size_t len, const char *key, const char *val)
{
	if (!val[0])
		return;
	s_cat(buf, len, key);
	s_cat(buf, len, "=");
	s_cat(buf, len, val);
	s_cat(buf, len, "\n");
}

static void kv_u(char *buf, size_t len, const char *key, unsigned long long val)
{
	s_cat(buf, len, key);
	s_cat(buf, len, "=");
	s_cat_u(buf, len, val);
	s_cat(buf, len, "\n");
}

/* Replace the state file atomically (temp file and rename). */
static int state_write(const struct sstate *st)
{
	char buf[5 * PATH_MAX + 512] = "", tmp[PATH_MAX], path[PATH_MAX];
	int fd, err;

	kv_u(buf, sizeof(buf), "owner", (unsigned long long)st->owner);
	kv_u(buf, sizeof(buf), "owner_start", st->owner_start);
	if (st->guardian > 0)
		kv_u(buf, sizeof(buf), "guardian", (unsigned long long)st->guardian);
	kv(buf, sizeof(buf), "backing", st->backing);
	kv(buf, sizeof(buf), "fstype", st->fstype);
	if (st->zram >= 0)
		kv_u(buf, sizeof(buf), "zram", (unsigned long long)st->zram);
	kv(buf, sizeof(buf), "dev", st->dev);
	kv(buf, sizeof(buf), "loop", st->loop);
	kv(buf, sizeof(buf), "img", st->img);
	kv(buf, sizeof(buf), "mnt", st->mnt);
	kv(buf, sizeof(buf), "dir", st->dir);

	state_path(tmp, sizeof(tmp), st->id, true);
	state_path(path, sizeof(path), st->id, false);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	err = write_full(fd, buf, strlen(buf));
	close(fd);
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static int state_read(const char *id, struct sstate *st)
{
	char buf[5 * PATH_MAX + 512], path[PATH_MAX], *line, *nl, *eq;
	unsigned long long v;
	int n;

	memset(st, 0, sizeof(*st));
	st->zram = -1;
	s_cpy(st->id, sizeof(st->id), id);
	state_path(path, sizeof(path), id, false);
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	for (line = buf; *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		else
			nl = line + strlen(line);
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq++ = '\0';
		if (!strcmp(line, "owner") && !s_to_u(eq, &v))
			st->owner = (long)v;
		else if (!strcmp(line, "owner_start") && !s_to_u(eq, &v))
			st->owner_start = v;
		else if (!strcmp(line, "guardian") && !s_to_u(eq, &v))
			st->guardian = (long)v;
		else if (!strcmp(line, "zram") && !s_to_u(eq, &v) && v < INT_MAX)
			st->zram = (int)v;
		else if (!strcmp(line, "backing"))
			s_cpy(st->backing, sizeof(st->backing), eq);
		else if (!strcmp(line, "fstype"))
			s_cpy(st->fstype, sizeof(st->fstype), eq);
		else if (!strcmp(line, "dev"))
			s_cpy(st->dev, sizeof(st->dev), eq);
		else if (!strcmp(line, "loop"))
			s_cpy(st->loop, sizeof(st->loop), eq);
		else if (!strcmp(line, "img"))
			s_cpy(st->img, sizeof(st->img), eq);
		else if (!strcmp(line, "mnt"))
			s_cpy(st->mnt, sizeof(st->mnt), eq);
		else if (!strcmp(line, "dir"))
			s_cpy(st->dir, sizeof(st->dir), eq);
	}
	return st->owner > 0 ? 0 : -EINVAL;
}

/* ---- undo -------------------------------------------------------------- */

struct undo_ctx {
	void (*report)(const char *what, void *arg);
	void *arg;
	int removed;
	int busy_tries;		/* how often a busy umount/detach/reset is retried */
	int nap;		/* ms between retries */
	bool lazy;		/* fall back to MNT_DETACH when umount stays busy */
	bool unmounted;		/* this pass unmounted the scratch (autoclear ran) */
};

static void undo_report(struct undo_ctx *c, const char *kind, const char *what)
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
static int umount_all(const char *mnt, struct undo_ctx *c)
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

static void unescape(char *s);

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
	/* Only the subdirectory we made: ".../iopath-<id>". */
	s_cat(want, sizeof(want), st->id);
	w = strlen(want);
	if (st->dir[0] != '/' || l <= w || strcmp(st->dir + l - w, want) || has_dotdot(st->dir))
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
static int undo_all(struct sstate *st, struct undo_ctx *c, int *loop_fd)
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

/* ---- the guardian ------------------------------------------------------ */

static void close_fds_from(unsigned int first)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, first, ~0U, 0) == 0)
		return;
#endif
	for (unsigned int fd = first; fd < 65536; fd++)
		close((int)fd);
}

/*
 * Runs in a grandchild of the creating process, in its own session. Waits
 * on its end of the lifeline; "done" means the owner tore the scratch down
 * itself, end-of-file without it means the owner is gone (exit, crash,
 * SIGKILL, or a destroy that could not finish): undo what the state file
 * still lists.
 */
static void __attribute__((noreturn)) guardian_main(int sock, const char *id)
{
	static struct sstate st;
	struct undo_ctx c = { .busy_tries = 600, .nap = 100, .lazy = true };
	char buf[64] = "ready ";
	sigset_t none;
	int null;

	setsid();
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if (chdir("/"))
		_exit(1);
	/*
	 * Hold nothing of the owner's: above all not the owner's end of another
	 * scratch's lifeline, which would keep that guardian from ever seeing EOF,
	 * nor a pipe a harness waits on for end-of-output.
	 */
	if (sock < 3)
		sock = fcntl(sock, F_DUPFD, 3);
	null = open("/dev/null", O_RDWR);
	if (sock < 0 || null < 0)
		_exit(1);
	dup2(null, 0);
	dup2(null, 1);
	dup2(null, 2);
	if (null > 2 && null != sock)
		close(null);
	if (sock != 3) {
		dup2(sock, 3);
		sock = 3;
	}
	close_fds_from(4);
	prctl(PR_SET_NAME, "iopath-guardian", 0, 0, 0);

	s_cat_u(buf, sizeof(buf), (unsigned long long)getpid());
	s_cat(buf, sizeof(buf), "\n");
	send(sock, buf, strlen(buf), MSG_NOSIGNAL);
	for (;;) {
		ssize_t n = read(sock, buf, sizeof(buf) - 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		buf[n] = '\0';
		if (strstr(buf, "done"))
			_exit(0);
	}
	if (state_read(id, &st) == 0)
		undo_all(&st, &c, NULL);
	_exit(0);
}

static int guardian_start(struct iop_scratch *s)
{
	char buf[64] = "";
	unsigned long long pid;
	struct pollfd pfd;
	size_t got = 0;
	int sv[2], status;
	pid_t mid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	/*
	 * Fork twice: the guardian is then nobody's child here, so a caller's
	 * wait() loop for its own children neither reaps it nor waits for it.
	 */
	mid = fork();
	if (mid < 0) {
		int err = -errno;

		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (mid == 0) {
		close(sv[0]);
		if (fork() != 0)
			_exit(0);
		guardian_main(sv[1], s->id);
	}
	close(sv[1]);
	while (waitpid(mid, &status, 0) < 0 && errno == EINTR)
		;
	pfd.fd = sv[0];
	pfd.events = POLLIN;
	while (got < sizeof(buf) - 1 && !memchr(buf, '\n', got)) {
		ssize_t n;
		int r = poll(&pfd, 1, 5000);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n = read(sv[0], buf + got, sizeof(buf) - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		buf[got] = '\0';
	}
	if (!s_prefix(buf, "ready ") || s_to_u(buf + 6, &pid)) {
		close(sv[0]);
		return -ECHILD;
	}
	s->guardian = (pid_t)pid;
	s->guardian_fd = sv[0];
	return 0;
}

/*
 * Tell the guardian the scratch is gone and wait until it has exited (its
 * end of the lifeline closes). Without @done the guardian takes over the
 * teardown of whatever the state file still lists.
 */
static void guardian_release(struct iop_scratch *s, bool done)
{
	struct pollfd pfd = { .fd = s->guardian_fd, .events = POLLIN };
	char buf[64];

	if (s->guardian_fd < 0)
		return;
	if (done && send(s->guardian_fd, "done\n", 5, MSG_NOSIGNAL) == 5) {
		for (int i = 0; i < 50; i++) {
			int r = poll(&pfd, 1, 100);
			ssize_t n;

			if (r < 0 && errno != EINTR)
				break;
			if (r <= 0)
				continue;
			n = read(s->guardian_fd, buf, sizeof(buf));
			if (n == 0 || (n < 0 && errno != EINTR))
				break;
		}
		/* Reparented to us if we are a child subreaper: reap it then. */
		for (int i = 0; i < 20; i++) {
			pid_t r = waitpid(s->guardian, NULL, WNOHANG);

			if (r != 0)
				break;
			nap_ms(10);
		}
	}
	close(s->guardian_fd);
	s->guardian_fd = -1;
}

/* ---- small helpers for the owner side (no async-signal constraints) ----- */

static int mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];

	s_cpy(buf, sizeof(buf), path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Octal escapes in /proc/self/mountinfo (\040 for a space) undone in place. */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

struct mountent {
	unsigned int major, minor;
	char target[PATH_MAX];
	char fstype[64];
	char source[PATH_MAX];
};

/* Call @fn for each line of /proc/self/mountinfo; stops when @fn returns non-zero. */
static int for_each_mount(int (*fn)(const struct mountent *m, void *arg), void *arg)
{
	static const char sep[] = " - ";
	struct mountent m;
	char *line = NULL, *dash;
	size_t cap = 0;
	FILE *f;
	int ret = 0;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (!ret && getline(&line, &cap, f) > 0) {
		dash = strstr(line, sep);
		if (!dash)
			continue;
		if (sscanf(line, "%*d %*d %u:%u %*s %4095s", &m.major, &m.minor, m.target) != 3)
			continue;
		if (sscanf(dash + strlen(sep), "%63s %4095s", m.fstype, m.source) != 2)
			continue;
		unescape(m.target);
		unescape(m.source);
		ret = fn(&m, arg);
	}
	free(line);
	fclose(f);
	return ret;
}

/* ---- tools ------------------------------------------------------------- */

/*
 * Run a filesystem tool with stdout and stderr collected in @out. Returns
 * its exit status (128+signal if killed) or -errno; -ENOENT if the tool is
 * not installed. /usr/sbin and /sbin are tried when PATH lacks them.
 */
static int run_tool(char *const argv[], char *out, size_t cap)
{
	char alt[2][PATH_MAX];
	size_t used = 0;
	int p[2], status, null;
	pid_t pid;

	snprintf(alt[0], sizeof(alt[0]), "/usr/sbin/%s", argv[0]);
	snprintf(alt[1], sizeof(alt[1]), "/sbin/%s", argv[0]);
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(p[0]);
		close(p[1]);
		return err;
	}
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execvp(argv[0], argv);
		execv(alt[0], argv);
		execv(alt[1], argv);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		char sink[512];
		ssize_t n;

		if (used + 1 < cap)
			n = read(p[0], out + used, cap - 1 - used);
		else
			n = read(p[0], sink, sizeof(sink));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (used + 1 < cap)
			used += (size_t)n;
	}
	if (cap)
		out[used] = '\0';
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	if (WEXITSTATUS(status) == 127 && used == 0)
		return -ENOENT;
	return WEXITSTATUS(status);
}

/* First non-empty line of @text into @line. */
static void first_line(const char *text, char *line, size_t len)
{
	while (*text == '\n' || *text == ' ' || *text == '\t')
		text++;
	snprintf(line, len, "%.*s", (int)strcspn(text, "\n"), text);
}

/* ---- options ----------------------------------------------------------- */

int iop_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v, mult = 1;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
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
	if (*end || !v || v > UINT64_MAX / mult)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

int iop_scratch_opts_from_env(struct iop_scratch_opts *o, char *why, size_t len)
{
	const char *backing = env("IOPATH_BACKING"), *dev = env("IOPATH_SCRATCH_DEV");
	const char *dir = env("IOPATH_SCRATCH_DIR"), *force = env("IOPATH_SCRATCH_FORCE_MKFS");
	const char *size = env("IOPATH_SCRATCH_SIZE");
	struct iop_scratch_opts n = *o;

	if (why && len)
		why[0] = '\0';
	if (dev && dir) {
		iop_why(why, len, "set only one of IOPATH_SCRATCH_DEV and IOPATH_SCRATCH_DIR");
		return -EINVAL;
	}
	if (backing) {
		if (!strcmp(backing, "zram")) {
			n.backing = IOP_BACKING_ZRAM;
		} else if (!strcmp(backing, "loop")) {
			n.backing = IOP_BACKING_LOOP;
		} else {
			iop_why(why, len, "IOPATH_BACKING=%s: expected zram or loop", backing);
			return -EINVAL;
		}
		if (dev || dir) {
			iop_why(why, len, "IOPATH_BACKING=%s conflicts with IOPATH_SCRATCH_%s",
				backing, dev ? "DEV" : "DIR");
			return -EINVAL;
		}
	}
	if (dev) {
		if (dev[0] != '/') {
			iop_why(why, len, "IOPATH_SCRATCH_DEV=%s: expected an absolute /dev path", dev);
			return -EINVAL;
		}
		n.backing = IOP_BACKING_DEVICE;
		n.device = dev;
	}
	if (dir) {
		if (dir[0] != '/' || strchr(dir, '\n')) {
			iop_why(why, len, "IOPATH_SCRATCH_DIR=%s: expected an absolute path", dir);
			return -EINVAL;
		}
		n.backing = IOP_BACKING_DIR;
		n.dir = dir;
	}
	if (force) {
		if (strcmp(force, IOP_FORCE_MKFS_WORD)) {
			iop_why(why, len, "IOPATH_SCRATCH_FORCE_MKFS=%s: only '%s' forces a format",
				force, IOP_FORCE_MKFS_WORD);
			return -EINVAL;
		}
		n.force = true;
	}
	if (size && iop_parse_size(size, &n.size)) {
		iop_why(why, len, "IOPATH_SCRATCH_SIZE=%s: expected a size in bytes with an optional k, m, g or t suffix",
			size);
		return -EINVAL;
	}
	*o = n;
	return 0;
}

/* ---- device safety ----------------------------------------------------- */

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
	for_each_mount(find_root_mount, &r);
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
	for (size_t i = 0; i < sizeof(swap_off) / sizeof(swap_off[0]); i++)
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

int iop_scratch_check_device(const char *dev, bool force, char *why, size_t len)
{
	const size_t buf_len = 128 << 10;
	unsigned char *buf;
	char holder[NAME_MAX + 1], out[1024], line[256];
	struct names roots, below, parts;
	struct busy_find busy = { .n = 0 };
	const char *sig;
	struct stat sb;
	struct blk b;
	uint64_t size = 0;
	ssize_t have;
	int fd, ret;

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

	root_disks(&roots);
	below.n = 0;
	disks_below(b.name, &below, 0);
	for (int i = 0; i < below.n; i++) {
		if (names_has(&roots, below.v[i])) {
			iop_why(why, len, "%s: %s holds the root filesystem; refusing to format it",
				dev, below.v[i]);
			return -EPERM;
		}
	}

	partitions_of(&b, &parts);
	busy.devs[busy.n++] = b.devt;
	for (int i = 0; i < parts.n; i++) {
		struct blk p;

		if (!blk_by_name(parts.v[i], &p) && busy.n < MAX_NAMES)
			busy.devs[busy.n++] = p.devt;
	}
	if (for_each_mount(find_mounted, &busy) > 0 || find_swap(&busy)) {
		iop_why(why, len, "%s: %s%s%s", dev,
			busy.n > 1 ? "it or a partition of it " : "", busy.what, "; refusing to format it");
		return -EBUSY;
	}
	names_add(&parts, b.name);
	for (int i = 0; i < parts.n; i++) {
		if (find_holder(parts.v[i], holder, sizeof(holder))) {
			iop_why(why, len, "%s: %s is held by %s; refusing to format it",
				dev, parts.v[i], holder);
			return -EBUSY;
		}
	}

	/*
	 * An exclusive open fails while anything has the device claimed, also a
	 * mount in another mount namespace. Opened read-only: nothing is written.
	 */
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
	sig = ret ? NULL : magic_signature(buf, (size_t)have);
	free(buf);
	if (ret) {
		iop_why(why, len, "%s: cannot read it: %s", dev, strerror(-ret));
		return ret;
	}
	if (force)
		return 0;
	if (sig) {
		iop_why(why, len, "%s: carries %s; IOPATH_SCRATCH_FORCE_MKFS=%s formats it anyway",
			dev, sig, IOP_FORCE_MKFS_WORD);
		return -EEXIST;
	}
	/* blkid -p knows many more signatures; without blkid the magic check stands. */
	{
		char *argv[] = { "blkid", "-p", "-o", "export", (char *)dev, NULL };

		ret = run_tool(argv, out, sizeof(out));
	}
	if (ret == 0 || ret == 8) {
		const char *t = NULL;

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
	return 0;
}

/* ---- mkfs and mount ---------------------------------------------------- */

static int do_mkfs(struct iop_scratch *s, char *why, size_t len)
{
	char opts[sizeof(s->mkfs_opts)], tool[32], out[4096], line[256], *argv[72];
	bool ext4 = !strcmp(s->fstype, "ext4");
	int argc = 0, ret;

	snprintf(tool, sizeof(tool), "mkfs.%s", s->fstype);
	argv[argc++] = tool;
	argv[argc++] = ext4 ? "-F" : "-f";
	argv[argc++] = "-q";
	snprintf(opts, sizeof(opts), "%s", s->mkfs_opts);
	for (char *save = NULL, *tok = strtok_r(opts, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (argc >= 70) {
			iop_why(why, len, "too many mkfs options: %s", s->mkfs_opts);
			return -EINVAL;
		}
		argv[argc++] = tok;
	}
	argv[argc++] = s->dev;
	argv[argc] = NULL;

	ret = run_tool(argv, out, sizeof(out));
	if (ret == -ENOENT) {
		iop_why(why, len, "%s not found (install %s)", tool,
			ext4 ? "e2fsprogs" : "xfsprogs");
		return -ENOENT;
	}
	if (ret < 0) {
		iop_why(why, len, "%s: %s", tool, strerror(-ret));
		return ret;
	}
	if (ret == 0)
		return 0;
	first_line(out, line, sizeof(line));
	/*
	 * Both mkfs tools exit 1 on an option they do not know or accept:
	 * a missing feature (reflink on ext4, an old xfsprogs), not a failure.
	 */
	if (ret == 1 && s->mkfs_opts[0] &&
	    (strcasestr(out, "invalid") || strcasestr(out, "unknown") ||
	     strcasestr(out, "bad option") || strcasestr(out, "not supported") ||
	     strcasestr(out, "unsupported") || strstr(out, "Usage:"))) {
		iop_why(why, len, "%s %s: %s", tool, s->mkfs_opts, line);
		return -EOPNOTSUPP;
	}
	iop_why(why, len, "%s %s failed (exit %d): %s", tool, s->dev, ret, line);
	return -EIO;
}

static const struct {
	const char *name;
	unsigned long flag;
	bool set;
} mount_flags[] = {
	{ "ro", MS_RDONLY, true },		{ "rw", MS_RDONLY, false },
	{ "noatime", MS_NOATIME, true },	{ "atime", MS_NOATIME, false },
	{ "nodiratime", MS_NODIRATIME, true },	{ "diratime", MS_NODIRATIME, false },
	{ "relatime", MS_RELATIME, true },	{ "norelatime", MS_RELATIME, false },
	{ "strictatime", MS_STRICTATIME, true },
	{ "lazytime", MS_LAZYTIME, true },	{ "nolazytime", MS_LAZYTIME, false },
	{ "nosuid", MS_NOSUID, true },		{ "suid", MS_NOSUID, false },
	{ "nodev", MS_NODEV, true },		{ "dev", MS_NODEV, false },
	{ "noexec", MS_NOEXEC, true },		{ "exec", MS_NOEXEC, false },
	{ "sync", MS_SYNCHRONOUS, true },	{ "async", MS_SYNCHRONOUS, false },
	{ "dirsync", MS_DIRSYNC, true },	{ "silent", MS_SILENT, true },
	{ "defaults", 0, false },
};

/*
 * mount(8)-style options: the generic words become MS_* flags, the rest is
 * the filesystem's data string.
 */
static void split_mount_opts(const char *opts, unsigned long *flags, char *data, size_t len)
{
	char buf[256];

	*flags = 0;
	data[0] = '\0';
	snprintf(buf, sizeof(buf), "%s", opts ? opts : "");
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(mount_flags) / sizeof(mount_flags[0]); i++)
			if (!strcmp(tok, mount_flags[i].name))
				break;
		if (i < sizeof(mount_flags) / sizeof(mount_flags[0])) {
			if (mount_flags[i].set)
				*flags |= mount_flags[i].flag;
			else
				*flags &= ~mount_flags[i].flag;
			continue;
		}
		if (data[0])
			s_cat(data, len, ",");
		s_cat(data, len, tok);
	}
}

static int do_mount(struct iop_scratch *s, char *why, size_t len)
{
	unsigned long flags;
	char data[256];
	int ret;

	split_mount_opts(s->mount_opts, &flags, data, sizeof(data));
	if (mkdir(s->mnt, 0755) && errno != EEXIST) {
		ret = -errno;
		iop_why(why, len, "mkdir %s: %s", s->mnt, strerror(-ret));
		return ret;
	}
	if (!mount(s->dev, s->mnt, s->fstype, flags, data[0] ? data : NULL))
		return 0;
	ret = -errno;
	if (ret == -EINVAL && s->mount_opts[0]) {
		iop_why(why, len, "mount -t %s -o %s %s: %s (the kernel log names the option)",
			s->fstype, s->mount_opts, s->dev, strerror(-ret));
		return -EOPNOTSUPP;
	}
	if (ret == -ENODEV)
		iop_why(why, len, "mount -t %s: filesystem not in this kernel", s->fstype);
	else
		iop_why(why, len, "mount -t %s %s %s: %s", s->fstype, s->dev, s->mnt, strerror(-ret));
	return ret == -ENODEV ? -EOPNOTSUPP : ret;
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
		       char *why, size_t len)
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
		if (ret == -EINVAL || ret == -ENOTTY) {
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
	for_each_mount(find_fstype, &f);
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
	s_cpy(st->backing, sizeof(st->backing), backing_name(s->backing));
	s_cpy(st->fstype, sizeof(st->fstype), s->fstype);
	st->owner = getpid();
	proc_stat(st->owner, &st->owner_start, NULL);
	st->guardian = s->guardian;
	st->zram = s->zram_id;
	switch (s->backing) {
	case IOP_BACKING_DIR:
		s_cpy(st->dir, sizeof(st->dir), s->mnt);
		break;
	case IOP_BACKING_LOOP:
		s_cpy(st->loop, sizeof(st->loop), s->dev);
		/* fall through */
	default:
		s_cpy(st->dev, sizeof(st->dev), s->dev);
		s_cpy(st->mnt, sizeof(st->mnt), s->mnt);
		s_cpy(st->img, sizeof(st->img), s->img);
		break;
	}
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
	if (!o->fstype || (strcmp(o->fstype, "ext4") && strcmp(o->fstype, "xfs"))) {
		iop_why(why, len, "filesystem '%s': expected ext4 or xfs", o->fstype ? o->fstype : "");
		return -EINVAL;
	}
	if ((o->mkfs_opts && strlen(o->mkfs_opts) >= sizeof(s->mkfs_opts)) ||
	    (o->mount_opts && strlen(o->mount_opts) >= sizeof(s->mount_opts))) {
		iop_why(why, len, "mkfs or mount options too long");
		return -EINVAL;
	}
	if (backing == IOP_BACKING_DEFAULT)
		backing = access(ZRAM_CONTROL "/hot_add", W_OK) == 0 ? IOP_BACKING_ZRAM : IOP_BACKING_LOOP;
	if ((backing == IOP_BACKING_ZRAM || backing == IOP_BACKING_LOOP) &&
	    !strcmp(o->fstype, "xfs") && size < XFS_MIN_SIZE) {
		iop_why(why, len, "XFS needs at least 300 MiB, not %llu bytes", (unsigned long long)size);
		return -EINVAL;
	}
	size = (size + 4095) & ~4095ull;

	switch (backing) {
	case IOP_BACKING_DEVICE:
		ret = iop_scratch_check_device(o->device, o->force, why, len);
		if (ret)
			return ret;
		break;
	case IOP_BACKING_DIR:
		ret = dir_check(o, real, why, len);
		if (ret)
			return ret;
		break;
	case IOP_BACKING_ZRAM:
		if (access(ZRAM_CONTROL "/hot_add", F_OK)) {
			iop_why(why, len, "no zram in this kernel (%s missing)", ZRAM_CONTROL);
			return -ENODEV;
		}
		break;
	case IOP_BACKING_LOOP:
		break;
	default:
		iop_why(why, len, "unknown backing %d", (int)backing);
		return -EINVAL;
	}

	if ((ret = mkdir_p(STATE_DIR, 0755)) || (ret = mkdir_p(MNT_DIR, 0755)) ||
	    (ret = mkdir_p(IMG_DIR, 0700))) {
		iop_why(why, len, "%s: %s%s", IOP_RUN_DIR, strerror(-ret),
			ret == -EACCES || ret == -EPERM ? " (needs root)" : "");
		return ret == -EPERM ? -EACCES : ret;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->backing = backing;
	s->zram_id = -1;
	s->loop_fd = -1;
	s->guardian_fd = -1;
	snprintf(s->fstype, sizeof(s->fstype), "%s", o->fstype);
	snprintf(s->mount_opts, sizeof(s->mount_opts), "%s", o->mount_opts ? o->mount_opts : "");
	/*
	 * ext4 otherwise zeroes its inode tables from a kernel thread after
	 * mount: background I/O in the middle of a measurement. An explicit -E
	 * wins (mke2fs keeps only the last -E).
	 */
	if (!strcmp(o->fstype, "ext4") && backing != IOP_BACKING_DIR &&
	    !(o->mkfs_opts && strstr(o->mkfs_opts, "-E")))
		snprintf(s->mkfs_opts, sizeof(s->mkfs_opts), "-E lazy_itable_init=0,lazy_journal_init=0%s%s",
			 o->mkfs_opts && *o->mkfs_opts ? " " : "", o->mkfs_opts ? o->mkfs_opts : "");
	else
		snprintf(s->mkfs_opts, sizeof(s->mkfs_opts), "%s", o->mkfs_opts ? o->mkfs_opts : "");

	ret = claim_id(s);
	if (ret) {
		iop_why(why, len, "state file in %s: %s", STATE_DIR, strerror(-ret));
		free(s);
		return ret;
	}
	if (backing == IOP_BACKING_DIR)
		snprintf(s->mnt, sizeof(s->mnt), "%s/iopath-%s", strcmp(real, "/") ? real : "", s->id);
	else
		snprintf(s->mnt, sizeof(s->mnt), MNT_DIR "/%s", s->id);
	if (backing == IOP_BACKING_DEVICE)
		snprintf(s->dev, sizeof(s->dev), "%s", o->device);
	scratch_to_state(s, &st);
	/* The device, loop and zram fields are recorded once they exist. */
	st.dev[0] = st.loop[0] = st.img[0] = '\0';
	if (backing == IOP_BACKING_DEVICE)
		s_cpy(st.dev, sizeof(st.dev), s->dev);
	ret = state_write(&st);
	if (ret) {
		iop_why(why, len, "state file: %s", strerror(-ret));
		goto fail;
	}
	ret = guardian_start(s);
	if (ret) {
		iop_why(why, len, "cannot start the guardian process: %s", strerror(-ret));
		goto fail;
	}
	st.guardian = s->guardian;
	ret = state_write(&st);
	if (ret) {
		iop_why(why, len, "state file: %s", strerror(-ret));
		goto fail;
	}

	switch (backing) {
	case IOP_BACKING_ZRAM:
		ret = zram_add(s, &st, size, why, len);
		break;
	case IOP_BACKING_LOOP:
		ret = loop_fd = loop_attach(s, &st, size, why, len);
		if (ret > 0)
			ret = 0;
		break;
	case IOP_BACKING_DIR:
		if (mkdir(s->mnt, 0755)) {
			ret = -errno;
			iop_why(why, len, "mkdir %s: %s", s->mnt, strerror(-ret));
		}
		break;
	default:
		break;
	}
	if (ret)
		goto fail;
	if (backing != IOP_BACKING_DIR) {
		ret = do_mkfs(s, why, len);
		if (!ret)
			ret = do_mount(s, why, len);
		if (ret)
			goto fail;
	}
	/*
	 * Hold the loop device: autoclear would detach it at every umount
	 * (remount, fsck). Closed at destroy, or by the kernel if we die.
	 */
	s->loop_fd = loop_fd;
	*out = s;
	return 0;

fail:
	if (loop_fd >= 0)
		close(loop_fd);
	/* Undo what exists; if that stalls, the guardian finishes from the state file. */
	guardian_release(s, undo_all(&st, &c, NULL) == 0);
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
	guardian_release(s, ret == 0);
	free(s);
	return ret;
}

int iop_scratch_remount(struct iop_scratch *s)
{
	struct undo_ctx c = { .busy_tries = 40, .nap = 50 };
	char why[256];
	int ret;

	if (s->backing == IOP_BACKING_DIR)
		return -EOPNOTSUPP;
	ret = umount_all(s->mnt, &c);
	if (ret < 0)
		return ret;
	return do_mount(s, why, sizeof(why));
}

/* The checker's first line that is not progress chatter. */
static void first_complaint(const char *out, char *line, size_t len)
{
	const char *p = out, *last = NULL;

	for (; *p; p += strcspn(p, "\n"), p += *p == '\n') {
		const char *q = p + strspn(p, " \t");
		size_t l = strcspn(q, "\n");

		if (!l)
			continue;
		last = q;
		if (*q == '-' || s_prefix(q, "Pass ") || s_prefix(q, "Phase ") ||
		    s_prefix(q, "e2fsck ") || s_prefix(q, "No modify flag set") ||
		    s_prefix(q, "Maximum metadata LSN"))
			continue;
		snprintf(line, len, "%.*s", (int)l, q);
		return;
	}
	if (last)
		snprintf(line, len, "%.*s", (int)strcspn(last, "\n"), last);
	else
		snprintf(line, len, "no output");
}

int iop_scratch_fsck(struct iop_scratch *s, char *why, size_t len)
{
	struct undo_ctx c = { .busy_tries = 40, .nap = 50 };
	static char out[64 << 10];
	char line[512], mwhy[256];
	bool ext4 = !strcmp(s->fstype, "ext4");
	char *e2[] = { "e2fsck", "-fn", s->dev, NULL };
	char *xr[] = { "xfs_repair", "-n", s->dev, NULL };
	int ret, mret;

	if (why && len)
		why[0] = '\0';
	if (s->backing == IOP_BACKING_DIR) {
		iop_why(why, len, "an existing directory is not checked");
		return -EOPNOTSUPP;
	}
	ret = umount_all(s->mnt, &c);
	if (ret < 0) {
		iop_why(why, len, "umount %s: %s", s->mnt, strerror(-ret));
		return ret;
	}
	ret = run_tool(ext4 ? e2 : xr, out, sizeof(out));
	if (ret == -ENOENT) {
		iop_why(why, len, "%s not found", ext4 ? "e2fsck" : "xfs_repair");
		ret = -EOPNOTSUPP;
	} else if (ret < 0) {
		iop_why(why, len, "%s: %s", ext4 ? "e2fsck" : "xfs_repair", strerror(-ret));
	} else if (ret) {
		first_complaint(out, line, sizeof(line));
		iop_why(why, len, "%s %s (exit %d): %s", ext4 ? "e2fsck -fn" : "xfs_repair -n",
			s->dev, ret, line);
		ret = -EUCLEAN;
	}
	mret = do_mount(s, mwhy, sizeof(mwhy));
	if (mret && !ret) {
		iop_why(why, len, "remount after the check: %s", mwhy);
		ret = mret;
	}
	return ret;
}

/* ---- cleanup ----------------------------------------------------------- */

/* Leading "<pid>-" of an id, or 0. */
static long id_pid(const char *id)
{
	unsigned long long v = 0;
	const char *p = id;

	for (; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (unsigned long long)(*p - '0');
	return p > id && *p == '-' && v < LONG_MAX ? (long)v : 0;
}

static bool state_exists(const char *id)
{
	char path[PATH_MAX];

	state_path(path, sizeof(path), id, false);
	return access(path, F_OK) == 0;
}

static int cleanup_states(bool all, struct undo_ctx *c)
{
	struct sstate st;
	struct dirent *d;
	int err = 0, r;
	DIR *dir = opendir(STATE_DIR);

	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.') {
			/* A temp file of a dead writer. */
			long pid = id_pid(d->d_name + 1);
			char path[PATH_MAX];

			if (d->d_name[1] && strstr(d->d_name, ".tmp") && pid && (all || !pid_alive(pid, 0))) {
				snprintf(path, sizeof(path), STATE_DIR "/%s", d->d_name);
				unlink(path);
			}
			continue;
		}
		if (state_read(d->d_name, &st))
			continue;
		if (!all && (pid_alive(st.owner, st.owner_start) || pid_alive(st.guardian, 0)))
			continue;
		r = undo_all(&st, c, NULL);
		if (r && !err)
			err = r;
		if (!r)
			undo_report(c, "state", st.id);
	}
	closedir(dir);
	return err;
}

struct orphan_mounts {
	bool all;
	int n;
	char mnt[64][PATH_MAX];
};

/* Trailing "-<pid>" of a name, or 0. */
static long trailing_pid(const char *name)
{
	const char *dash = strrchr(name, '-');
	unsigned long long v;

	return dash && !s_to_u(dash + 1, &v) && v < LONG_MAX ? (long)v : 0;
}

static int find_orphan_mount(const struct mountent *m, void *arg)
{
	struct orphan_mounts *o = arg;
	const char *id;
	long pid;

	if (o->n >= 64)
		return 0;
	if (own_child(m->target, IOP_RUN_DIR) && s_prefix(m->target, IOP_RUN_DIR "/tracefs-")) {
		/*
		 * lib/tracefs.c detaches its private tracefs mount at once; one
		 * is left only if its process died in between.
		 */
		pid = trailing_pid(m->target);
		if (!o->all && (!pid || pid_alive(pid, 0)))
			return 0;
	} else if (own_child(m->target, MNT_DIR)) {
		id = m->target + strlen(MNT_DIR "/");
		pid = id_pid(id);
		if (state_exists(id) || (!o->all && pid && pid_alive(pid, 0)))
			return 0;
	} else {
		return 0;
	}
	for (int i = 0; i < o->n; i++)
		if (!strcmp(o->mnt[i], m->target))
			return 0;
	snprintf(o->mnt[o->n++], PATH_MAX, "%s", m->target);
	return 0;
}

/*
 * Mounts under MNT_DIR that no state file covers (say, a state write
 * failed), and private tracefs mounts of dead processes.
 */
static int cleanup_mounts(bool all, struct undo_ctx *c)
{
	struct orphan_mounts *o = calloc(1, sizeof(*o));
	struct dirent *d;
	int err = 0, r;
	DIR *dir;

	if (!o)
		return -ENOMEM;
	o->all = all;
	for_each_mount(find_orphan_mount, o);
	for (int i = 0; i < o->n; i++) {
		r = umount_all(o->mnt[i], c);
		if (r > 0)
			undo_report(c, "mount", o->mnt[i]);
		else if (r < 0 && !err)
			err = r;
		if (r >= 0 && !own_child(o->mnt[i], MNT_DIR))
			rmdir(o->mnt[i]);
	}
	free(o);
	/* Empty mount points of dead runs. */
	dir = opendir(MNT_DIR);
	if (!dir)
		return err;
	while ((d = readdir(dir))) {
		long pid = id_pid(d->d_name);
		char path[PATH_MAX];

		if (d->d_name[0] == '.' || state_exists(d->d_name) || (!all && pid && pid_alive(pid, 0)))
			continue;
		snprintf(path, sizeof(path), MNT_DIR "/%s", d->d_name);
		rmdir(path);	/* fails harmlessly while something is mounted there */
	}
	closedir(dir);
	return err;
}

/* Bound loop devices carrying our tag or backed by a file in IMG_DIR. */
static int cleanup_loops(bool all, struct undo_ctx *c)
{
	struct dirent *d;
	int err = 0;
	DIR *dir = opendir("/sys/block");

	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		char path[PATH_MAX], backing[PATH_MAX] = "", id[64] = "";
		struct loop_info64 info;
		const char *name;
		long pid;
		int fd;

		if (strncmp(d->d_name, "loop", 4) || !isdigit((unsigned char)d->d_name[4]))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", d->d_name);
		if (read_small(path, backing, sizeof(backing)) < 0)
			continue;	/* not bound */
		backing[strcspn(backing, "\n")] = '\0';
		snprintf(path, sizeof(path), "/dev/%s", d->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (ioctl(fd, LOOP_GET_STATUS64, &info)) {
			close(fd);
			continue;
		}
		name = (const char *)info.lo_file_name;
		if (s_prefix(name, LOOP_TAG)) {
			snprintf(id, sizeof(id), "%.*s", (int)strnlen(name + strlen(LOOP_TAG),
				 LO_NAME_SIZE - strlen(LOOP_TAG)), name + strlen(LOOP_TAG));
		} else if (s_prefix(backing, IMG_DIR "/")) {
			s_cpy(id, sizeof(id), backing + strlen(IMG_DIR "/"));
			id[strcspn(id, ". ")] = '\0';
		} else {
			close(fd);
			continue;
		}
		pid = id_pid(id);
		if (state_exists(id) || (!all && pid && pid_alive(pid, 0))) {
			close(fd);
			continue;
		}
		if (ioctl(fd, LOOP_CLR_FD, 0) == 0)
			undo_report(c, "loop", path);
		else if (errno != ENXIO && !err)
			err = -errno;
		close(fd);
	}
	closedir(dir);
	return err;
}

static int cleanup_images(bool all, struct undo_ctx *c)
{
	struct dirent *d;
	DIR *dir = opendir(IMG_DIR);
	int err = 0;

	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		char path[PATH_MAX], id[64];
		long pid;

		if (d->d_name[0] == '.')
			continue;
		s_cpy(id, sizeof(id), d->d_name);
		id[strcspn(id, ".")] = '\0';
		pid = id_pid(id);
		if (state_exists(id) || (!all && pid && pid_alive(pid, 0)))
			continue;
		snprintf(path, sizeof(path), IMG_DIR "/%s", d->d_name);
		if (unlink(path) == 0)
			undo_report(c, "file", path);
		else if (!err)
			err = -errno;
	}
	closedir(dir);
	return err;
}

static int first_tracefs(const struct mountent *m, void *arg)
{
	int *fd = arg;

	if (strcmp(m->fstype, "tracefs"))
		return 0;
	*fd = open(m->target, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return *fd >= 0;
}

/*
 * tracefs is one filesystem however often it is mounted: any mount shows
 * every instance. Without one, mount it privately and detach it at once
 * (as lib/tracefs.c does), so cleanup leaves no mount behind.
 */
static int open_tracefs(void)
{
	char path[PATH_MAX];
	int fd = -1, err;

	for_each_mount(first_tracefs, &fd);
	if (fd >= 0)
		return fd;
	snprintf(path, sizeof(path), IOP_RUN_DIR "/tracefs-cleanup-%d", (int)getpid());
	err = mkdir_p(path, 0700);
	if (err)
		return err;
	if (mount("nodev", path, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		err = -errno;
		rmdir(path);
		return err;
	}
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	umount2(path, MNT_DETACH);
	rmdir(path);
	return err ? err : fd;
}

static int cleanup_trace(bool all, struct undo_ctx *c)
{
	int root = open_tracefs(), fd, err = 0;
	struct dirent *d;
	DIR *dir;

	if (root < 0)
		return 0;	/* no tracefs: no instances */
	fd = openat(root, "instances", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(dir = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		close(root);
		return 0;
	}
	while ((d = readdir(dir))) {
		long pid;

		if (!s_prefix(d->d_name, "iopath-"))
			continue;
		pid = id_pid(d->d_name + strlen("iopath-"));
		if (!pid || (!all && pid_alive(pid, 0)))
			continue;
		if (unlinkat(dirfd(dir), d->d_name, AT_REMOVEDIR) == 0)
			undo_report(c, "trace instance", d->d_name);
		else if (!err)
			err = -errno;
	}
	closedir(dir);
	close(root);
	return err;
}

int iop_cleanup(bool all, void (*report)(const char *what, void *arg), void *arg)
{
	struct undo_ctx c = {
		.report = report, .arg = arg, .busy_tries = 20, .nap = 50, .lazy = true,
	};
	int err = 0, r;

	/* State files first: they say exactly what to undo, zram included. */
	r = cleanup_states(all, &c);
	err = err ? err : r;
	r = cleanup_mounts(all, &c);
	err = err ? err : r;
	r = cleanup_loops(all, &c);
	err = err ? err : r;
	r = cleanup_images(all, &c);
	err = err ? err : r;
	r = cleanup_trace(all, &c);
	err = err ? err : r;
	return err ? err : c.removed;
}
