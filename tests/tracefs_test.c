// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Tests of lib/tracefs against the running kernel (root only): a private
 * instance appears and disappears with open/close, also when its owner is
 * SIGKILLed (the guardian removes it); a device filter keeps other
 * devices' events out; the iomap events of a FIEMAP on a local file are
 * read back, parsed and judged by lib/mapcheck.
 *
 * To look at the instances directory the test mounts tracefs, keeps an fd
 * on its root and detaches the mount at once (nothing left if it dies).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mapcheck.h"
#include "tracefs.h"

#define MAP(off, len, t, f, mask, src)						\
	{ .offset = (off), .length = (len), .type = (t), .flags = (f),		\
	  .flags_mask = (mask), .srcmap = (src) }

#define EXT4_MAGIC 0xef53
#define XFS_MAGIC 0x58465342

FIXTURE(tracefs) {
	char skip[128];
	int view;		/* fd on a detached tracefs mount, to look at instances */
	char dir[64];		/* a scratch directory for a traced file */
	struct iop_trace *t;
};

FIXTURE_SETUP(tracefs)
{
	int ret;

	char mnt[64] = "/tmp/iopath-tracefs-test.XXXXXX";

	self->skip[0] = '\0';
	self->dir[0] = '\0';
	self->view = -1;
	self->t = NULL;
	if (geteuid()) {
		snprintf(self->skip, sizeof(self->skip), "needs root for tracefs");
		return;
	}
	if (!mkdtemp(mnt)) {
		snprintf(self->skip, sizeof(self->skip), "mkdtemp: %s", strerror(errno));
		return;
	}
	if (mount("nodev", mnt, "tracefs", 0, NULL)) {
		snprintf(self->skip, sizeof(self->skip), "cannot mount tracefs: %s",
			 strerror(errno));
		rmdir(mnt);
		return;
	}
	self->view = open(mnt, O_PATH | O_DIRECTORY);
	umount2(mnt, MNT_DETACH);
	rmdir(mnt);
	ret = iop_trace_open(&self->t);
	if (ret)
		snprintf(self->skip, sizeof(self->skip), "iop_trace_open: %s", strerror(-ret));
}

FIXTURE_TEARDOWN(tracefs)
{
	iop_trace_close(self->t);
	if (self->dir[0]) {
		char path[96];

		snprintf(path, sizeof(path), "%s/f", self->dir);
		unlink(path);
		rmdir(self->dir);
	}
	if (self->view >= 0)
		close(self->view);
}

/* How many instances named iopath-<pid>-* exist. */
static int count_instances(int view, pid_t pid)
{
	char prefix[32];
	struct dirent *d;
	DIR *dir;
	int fd, n = 0;

	snprintf(prefix, sizeof(prefix), "iopath-%d-", (int)pid);
	fd = openat(view, "instances", O_RDONLY | O_DIRECTORY);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	while ((d = readdir(dir)))
		n += !strncmp(d->d_name, prefix, strlen(prefix));
	closedir(dir);
	return n;
}

TEST_F(tracefs, open_creates_a_private_instance_and_close_removes_it)
{
	if (self->skip[0])
		SKIP(return, "%s", self->skip);
	EXPECT_EQ(1, count_instances(self->view, getpid()));
	iop_trace_close(self->t);
	self->t = NULL;
	EXPECT_EQ(0, count_instances(self->view, getpid()));
}

TEST_F(tracefs, instance_of_a_killed_owner_is_removed)
{
	int pfd[2], i, n = -1;
	pid_t child;
	char c;

	if (self->skip[0])
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, pipe(pfd));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		struct iop_trace *t;

		close(pfd[0]);
		if (iop_trace_open(&t))
			_exit(1);
		c = 'x';
		if (write(pfd[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	ASSERT_EQ(1, read(pfd[0], &c, 1));
	close(pfd[0]);
	EXPECT_EQ(1, count_instances(self->view, child));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	/* The guardian notices the closed lifeline; give it a moment. */
	for (i = 0; i < 200; i++) {
		n = count_instances(self->view, child);
		if (n == 0)
			break;
		usleep(10000);
	}
	EXPECT_EQ(0, n);
}

/*
 * A small file on a local ext4 or XFS directory: FIEMAP under tracing
 * gives one REPORT loop for the file's inode, which mapcheck accepts;
 * with a filter for another device nothing is recorded.
 */
struct collected {
	struct iop_map_event ev[256];
	size_t n;
	uint64_t ino;
	int bad;
};

static int collect(const struct iop_trace_event *tev, void *arg)
{
	struct collected *c = arg;
	struct iop_map_event e;
	int ret = iop_map_event_from_trace(tev, &e);

	if (ret == -ENOENT)
		return 0;
	if (ret) {
		c->bad++;
		return 0;
	}
	if (e.ino == c->ino && c->n < 256)
		c->ev[c->n++] = e;
	return 0;
}

/*
 * A 64 KiB file on /var/tmp's ext4 or XFS to trace, its inode in @c; -1
 * with the reason to skip in @why where that cannot be (no instance, no
 * iomap tracepoints, another filesystem).
 */
static int traced_file(FIXTURE_DATA(tracefs) *self, struct collected *c, struct stat *st,
		       char *why, size_t len)
{
	static char buf[65536];
	char path[96];
	struct statfs sfs;
	int fd;

	if (self->skip[0]) {
		snprintf(why, len, "%s", self->skip);
		return -1;
	}
	if (!iop_trace_has_event(self->t, "iomap", "iomap_iter")) {
		snprintf(why, len, "no iomap tracepoints in this kernel");
		return -1;
	}
	snprintf(self->dir, sizeof(self->dir), "/var/tmp/iopath-tracefs-test.XXXXXX");
	if (!mkdtemp(self->dir)) {
		snprintf(why, len, "mkdtemp: %s", strerror(errno));
		self->dir[0] = '\0';
		return -1;
	}
	if (statfs(self->dir, &sfs) || (sfs.f_type != EXT4_MAGIC && sfs.f_type != XFS_MAGIC)) {
		snprintf(why, len, "/var/tmp is not on ext4 or XFS");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/f", self->dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	memset(buf, 0x5a, sizeof(buf));
	if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf) || fsync(fd) || fstat(fd, st)) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	c->ino = st->st_ino;
	return fd;
}

static void fiemap_once(int fd)
{
	uint64_t raw[(sizeof(struct fiemap) + 8 * sizeof(struct fiemap_extent)) / 8];
	struct fiemap *fm = (struct fiemap *)raw;

	memset(raw, 0, sizeof(raw));
	fm->fm_length = 65536;
	fm->fm_extent_count = 8;
	ioctl(fd, FS_IOC_FIEMAP, fm);
}

TEST_F(tracefs, fiemap_events_are_read_back_and_judged)
{
	static const struct iop_map_extent written[] = {
		MAP(0, 65536, IOP_IOMAP_MAPPED, 0, 0, false),
	};
	struct collected *c = calloc(1, sizeof(*c));
	struct iop_map_verdict v;
	size_t first, count;
	char filter[64], why[128];
	struct stat st;
	int fd, n;

	ASSERT_NE(NULL, c);
	fd = traced_file(self, c, &st, why, sizeof(why));
	if (fd < 0)
		SKIP(return, "%s", why);
	snprintf(filter, sizeof(filter), "dev == %llu",
		 (unsigned long long)iop_trace_devno(major(st.st_dev), minor(st.st_dev)));
	ASSERT_EQ(0, iop_trace_enable(self->t, "iomap", "iomap_iter", filter));
	ASSERT_EQ(0, iop_trace_enable(self->t, "iomap", "iomap_iter_dstmap", filter));
	ASSERT_EQ(-ENOENT, iop_trace_enable(self->t, "iomap", "no_such_event", filter));
	ASSERT_EQ(-EINVAL, iop_trace_enable(self->t, "iomap", "../iomap_iter", filter));

	ASSERT_EQ(0, iop_trace_start(self->t));
	fiemap_once(fd);
	ASSERT_EQ(0, iop_trace_stop(self->t));
	/* Not recorded: tracing is off. */
	fiemap_once(fd);
	close(fd);
	n = iop_trace_read(self->t, collect, c);
	ASSERT_LE(2, n);
	EXPECT_EQ(0, c->bad);
	ASSERT_EQ(0, iop_map_loop_find(c->ev, c->n, 0, c->ino, IOP_IOMAP_REPORT,
				       IOP_IOMAP_REPORT, &first, &count));
	EXPECT_TRUE(iop_mapcheck(c->ev + first, count, written, 1, 0, 65536, 0, &v))
		TH_LOG("%s", v.reason);
	/* Exactly one loop: the FIEMAP after stop left nothing. */
	EXPECT_EQ(-ENOENT, iop_map_loop_find(c->ev, c->n, first + count, c->ino,
					     IOP_IOMAP_REPORT, IOP_IOMAP_REPORT, &first, &count));
	free(c);
}

TEST_F(tracefs, filter_for_another_device_records_nothing)
{
	struct collected *c = calloc(1, sizeof(*c));
	char why[128];
	struct stat st;
	int fd;

	ASSERT_NE(NULL, c);
	fd = traced_file(self, c, &st, why, sizeof(why));
	if (fd < 0)
		SKIP(return, "%s", why);
	/* dev_t 0:1 is no block device's */
	ASSERT_EQ(0, iop_trace_enable(self->t, "iomap", "iomap_iter", "dev == 1"));
	ASSERT_EQ(0, iop_trace_start(self->t));
	fiemap_once(fd);
	ASSERT_EQ(0, iop_trace_stop(self->t));
	close(fd);
	EXPECT_EQ(0, iop_trace_read(self->t, collect, c));
	free(c);
}

TEST_HARNESS_MAIN
