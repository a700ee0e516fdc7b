// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lib/scratch.c: scratch filesystems come up usable and go away without a
 * trace, and a device named as scratch is refused whenever formatting it
 * could destroy something.
 *
 * Catches: a teardown that leaves a mount, a bound loop device, a hot-added
 * zram device, a backing file or a state file behind (each is checked
 * separately after destroy, and after the owner is SIGKILLed, when only
 * the guardian is left to undo it); a checker that calls a corrupted
 * filesystem clean (positive control: a link count set wrong offline);
 * a device check that lets the root disk, a mounted device, or a device
 * with a filesystem or partition table through, or that writes to the
 * device it refuses (the first MiB is checksummed around every refusal).
 * The options and the environment are scratch_opts_test.c's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <linux/loop.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "iopath.h"
#include "probe.h"

#define MIB (1u << 20)

/* ---- observations, made independently of lib/scratch.c ----------------- */

/* Is @mnt a mount point? If so, its fstype and source. */
static bool mounted_at(const char *mnt, char *fstype, char *source)
{
	char line[8192], target[4096], type[64], src[4096];
	bool hit = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*d %*d %*s %*s %4095s", target) != 1)
			continue;
		if (strcmp(target, mnt) || sscanf(dash + 3, "%63s %4095s", type, src) != 2)
			continue;
		hit = true;
		if (fstype)
			strcpy(fstype, type);
		if (source)
			strcpy(source, src);
	}
	fclose(f);
	return hit;
}

/* Bound loop device: its lo_file_name into @name; false if unbound. */
static bool loop_bound(const char *dev, char *name)
{
	struct loop_info64 info;
	int fd = open(dev, O_RDONLY | O_CLOEXEC);
	bool bound;

	if (fd < 0)
		return false;
	bound = ioctl(fd, LOOP_GET_STATUS64, &info) == 0;
	close(fd);
	if (bound && name)
		snprintf(name, LO_NAME_SIZE, "%s", (const char *)info.lo_file_name);
	return bound;
}

/* A zram index that exists again only because another run hot-added it. */
static bool zram_claimed_elsewhere(int id)
{
	char path[PATH_MAX], buf[4096], want[32];
	struct dirent *d;
	bool hit = false;
	DIR *dir = opendir(IOP_RUN_DIR "/state");

	if (!dir)
		return false;
	snprintf(want, sizeof(want), "zram=%d\n", id);
	while (!hit && (d = readdir(dir))) {
		FILE *f;
		size_t n;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), IOP_RUN_DIR "/state/%s", d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		hit = !!strstr(buf, want);
	}
	closedir(dir);
	return hit;
}

static bool zram_gone(int id)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/block/zram%d", id);
	return access(path, F_OK) != 0 || zram_claimed_elsewhere(id);
}

/* FNV-1a over the first MiB: "nothing was written" made checkable. */
static int checksum_first_mib(const char *path, uint64_t *sum)
{
	static unsigned char buf[MIB];
	uint64_t h = 1469598103934665603ull;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = pread(fd, buf, sizeof(buf), 0);
	close(fd);
	if (n < 0)
		return -errno;
	for (ssize_t i = 0; i < n; i++)
		h = (h ^ buf[i]) * 1099511628211ull;
	*sum = h ^ (uint64_t)n;
	return 0;
}

/* Alive and not a zombie (an init that does not reap leaves zombies). */
static bool proc_running(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

static bool one_line(const char *s)
{
	return s[0] && !strchr(s, '\n');
}

/* The one skip policy (lib/probe.h): only what the kernel lacks. */
static bool skip_errno(int err)
{
	return iop_errno_means_absent(err);
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* ---- create and destroy on each backing ------------------------------- */

FIXTURE(scratch) {
	struct iop_scratch *s;
	char skip[128];
};

FIXTURE_VARIANT(scratch) {
	enum iop_backing backing;
	const char *fstype;
};

FIXTURE_VARIANT_ADD(scratch, zram_ext4) {
	.backing = IOP_BACKING_ZRAM, .fstype = "ext4",
};

FIXTURE_VARIANT_ADD(scratch, zram_xfs) {
	.backing = IOP_BACKING_ZRAM, .fstype = "xfs",
};

FIXTURE_VARIANT_ADD(scratch, loop_ext4) {
	.backing = IOP_BACKING_LOOP, .fstype = "ext4",
};

FIXTURE_VARIANT_ADD(scratch, loop_xfs) {
	.backing = IOP_BACKING_LOOP, .fstype = "xfs",
};

FIXTURE_SETUP(scratch)
{
	self->s = NULL;
	self->skip[0] = '\0';
	if (geteuid() != 0)
		snprintf(self->skip, sizeof(self->skip), "needs root (mkfs, mount, loop, zram)");
}

FIXTURE_TEARDOWN(scratch)
{
	iop_scratch_destroy(self->s);
}

#define CREATE_OR_SKIP(_self, _variant, _opts)					\
	do {									\
		char __why[256] = "";						\
		int __r;							\
		if ((_self)->skip[0])						\
			SKIP(return, "%s", (_self)->skip);			\
		__r = iop_scratch_create(_opts, &(_self)->s, __why, sizeof(__why)); \
		if (__r && skip_errno(-__r))					\
			SKIP(return, "%s on %s: %s", (_variant)->fstype,	\
			     (_variant)->backing == IOP_BACKING_ZRAM ? "zram" : "loop", __why); \
		ASSERT_EQ(0, __r) TH_LOG("create: %s", __why);			\
		ASSERT_TRUE(one_line(__why) || !__why[0]);			\
	} while (0)

/*
 * The filesystem is mounted where it says, usable, survives a remount,
 * checks clean; after destroy each resource is gone.
 */
TEST_F_TIMEOUT(scratch, create_use_destroy_leaves_nothing, 90)
{
	struct iop_scratch_opts o = {
		.backing = variant->backing, .fstype = variant->fstype,
		.size = 512ull << 20,
	};
	char fstype[64], source[4096], path[PATH_MAX + 8], state[PATH_MAX], dev[PATH_MAX];
	char mnt[PATH_MAX], img[PATH_MAX], tag[LO_NAME_SIZE], why[512], buf[64];
	pid_t guardian;
	int fd, zram;

	CREATE_OR_SKIP(self, variant, &o);
	snprintf(dev, sizeof(dev), "%s", self->s->dev);
	snprintf(mnt, sizeof(mnt), "%s", self->s->mnt);
	snprintf(img, sizeof(img), "%s", self->s->img);
	snprintf(state, sizeof(state), IOP_RUN_DIR "/state/%s", self->s->id);
	zram = self->s->zram_id;
	guardian = self->s->guardian;

	/* The guardian is nobody's child here: a wait() loop must not find it. */
	EXPECT_EQ(-1, waitpid(-1, NULL, WNOHANG));
	EXPECT_EQ(ECHILD, errno);
	ASSERT_TRUE(mounted_at(mnt, fstype, source)) TH_LOG("%s not mounted", mnt);
	EXPECT_STREQ(variant->fstype, fstype);
	EXPECT_STREQ(dev, source);
	EXPECT_EQ(0, strncmp(mnt, IOP_RUN_DIR "/mnt/", strlen(IOP_RUN_DIR "/mnt/")));
	EXPECT_EQ(0, access(state, F_OK)) TH_LOG("no state file %s", state);
	EXPECT_TRUE(proc_running(guardian)) TH_LOG("guardian %d not running", guardian);
	if (variant->backing == IOP_BACKING_ZRAM) {
		ASSERT_GT(zram, 0) TH_LOG("zram0 is never ours");
		snprintf(path, sizeof(path), "/dev/zram%d", zram);
		EXPECT_STREQ(path, dev);
	} else {
		char want[LO_NAME_SIZE];

		ASSERT_TRUE(loop_bound(dev, tag));
		snprintf(want, sizeof(want), "iopath:%.40s", self->s->id);
		EXPECT_STREQ(want, tag);
		EXPECT_EQ(0, access(img, F_OK));
	}

	/* Usable, and the data survives a remount (page cache dropped). */
	snprintf(path, sizeof(path), "%s/f", mnt);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(12, write(fd, "scratch data", 12));
	ASSERT_EQ(0, fsync(fd));
	close(fd);
	ASSERT_EQ(0, iop_scratch_remount(self->s));
	ASSERT_TRUE(mounted_at(mnt, NULL, NULL));
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd);
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(12, read(fd, buf, sizeof(buf)));
	EXPECT_STREQ("scratch data", buf);
	close(fd);
	EXPECT_EQ(0, iop_scratch_fsck(self->s, why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_TRUE(mounted_at(mnt, NULL, NULL)) TH_LOG("not remounted after fsck");

	ASSERT_EQ(0, iop_scratch_destroy(self->s));
	self->s = NULL;
	EXPECT_FALSE(mounted_at(mnt, NULL, NULL));
	EXPECT_NE(0, access(mnt, F_OK)) TH_LOG("mount point %s left", mnt);
	EXPECT_NE(0, access(state, F_OK)) TH_LOG("state file %s left", state);
	if (variant->backing == IOP_BACKING_ZRAM) {
		EXPECT_TRUE(zram_gone(zram)) TH_LOG("zram%d left", zram);
	} else {
		char want[LO_NAME_SIZE];

		snprintf(want, sizeof(want), "iopath:%.40s", strrchr(state, '/') + 1);
		tag[0] = '\0';
		EXPECT_FALSE(loop_bound(dev, tag) && !strcmp(tag, want)) TH_LOG("%s still bound",
										dev);
		EXPECT_NE(0, access(img, F_OK)) TH_LOG("%s left", img);
	}
	/* The guardian was told: it exits rather than lingering. */
	for (int i = 0; i < 100 && proc_running(guardian); i++)
		usleep(20000);
	EXPECT_FALSE(proc_running(guardian)) TH_LOG("guardian %d still running", guardian);
}

/*
 * The owner is SIGKILLed with the scratch mounted and a file open on it,
 * the way a harness timeout does it (kill(-pgid, SIGKILL) on the test's
 * process group): the guardian, in a session of its own, must survive that
 * and undo everything.
 */
TEST_F_TIMEOUT(scratch, guardian_undoes_after_sigkill, 90)
{
	struct {
		char dev[64], mnt[256], img[256], id[64];
		int zram;
		pid_t guardian;
	} info;
	int p[2], status;
	char state[PATH_MAX], tag[LO_NAME_SIZE], want[LO_NAME_SIZE];
	bool gone = false;
	pid_t pid;

	if (self->skip[0])
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct iop_scratch_opts o = {
			.backing = variant->backing, .fstype = variant->fstype,
			.size = 512ull << 20,
		};
		struct iop_scratch *s;
		char why[256], path[PATH_MAX + 8];

		close(p[0]);
		setpgid(0, 0);	/* as the harness does for each test */
		memset(&info, 0, sizeof(info));
		int r = iop_scratch_create(&o, &s, why, sizeof(why));

		if (r)
			_exit(skip_errno(-r) ? 4 : 1);
		snprintf(info.dev, sizeof(info.dev), "%.63s", s->dev);
		snprintf(info.mnt, sizeof(info.mnt), "%.255s", s->mnt);
		snprintf(info.img, sizeof(info.img), "%.255s", s->img);
		snprintf(info.id, sizeof(info.id), "%.63s", s->id);
		info.zram = s->zram_id;
		info.guardian = s->guardian;
		/* Keep the filesystem busy, as a test in the middle of its work. */
		snprintf(path, sizeof(path), "%s/busy", s->mnt);
		if (open(path, O_CREAT | O_RDWR, 0644) < 0 || chdir(s->mnt))
			_exit(1);
		if (write(p[1], &info, sizeof(info)) != sizeof(info))
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &info, sizeof(info)) != sizeof(info)) {
		waitpid(pid, &status, 0);
		close(p[0]);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 4)
			SKIP(return, "%s scratch not available", variant->fstype);
		ASSERT_TRUE(false) TH_LOG("child could not create the scratch");
	}
	close(p[0]);
	ASSERT_TRUE(mounted_at(info.mnt, NULL, NULL));
	ASSERT_EQ(0, kill(-pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));

	snprintf(state, sizeof(state), IOP_RUN_DIR "/state/%s", info.id);
	snprintf(want, sizeof(want), "iopath:%.40s", info.id);
	for (int i = 0; i < 300 && !gone; i++) {
		tag[0] = '\0';
		gone = !mounted_at(info.mnt, NULL, NULL) && access(state, F_OK) &&
		       (info.zram < 0 || zram_gone(info.zram)) &&
		       !(info.img[0] && (!access(info.img, F_OK) ||
					 (loop_bound(info.dev, tag) && !strcmp(tag, want))));
		if (!gone)
			usleep(50000);
	}
	EXPECT_FALSE(mounted_at(info.mnt, NULL, NULL)) TH_LOG("%s still mounted", info.mnt);
	EXPECT_NE(0, access(info.mnt, F_OK));
	EXPECT_NE(0, access(state, F_OK)) TH_LOG("state file %s left", state);
	if (info.zram >= 0)
		EXPECT_TRUE(zram_gone(info.zram)) TH_LOG("zram%d left", info.zram);
	if (info.img[0]) {
		EXPECT_NE(0, access(info.img, F_OK));
		tag[0] = '\0';
		EXPECT_FALSE(loop_bound(info.dev, tag) && !strcmp(tag, want));
	}
	for (int i = 0; i < 100 && proc_running(info.guardian); i++)
		usleep(20000);
	EXPECT_FALSE(proc_running(info.guardian)) TH_LOG("guardian %d still running",
							 info.guardian);
}

/*
 * Positive control for the checker: a link count set wrong while
 * unmounted must come back as -EUCLEAN with the complaint in one line.
 */
TEST_F_TIMEOUT(scratch, fsck_reports_corruption, 90)
{
	struct iop_scratch_opts o = {
		.backing = variant->backing, .fstype = variant->fstype,
		.size = 512ull << 20,
	};
	char path[PATH_MAX + 8], why[512];
	bool ext4 = !strcmp(variant->fstype, "ext4");
	int fd, ret;

	if (variant->backing != IOP_BACKING_LOOP)
		SKIP(return, "one backing is enough for the checker");
	if (sh("command -v %s >/dev/null", ext4 ? "debugfs" : "xfs_db"))
		SKIP(return, "%s not installed", ext4 ? "debugfs" : "xfs_db");
	CREATE_OR_SKIP(self, variant, &o);
	snprintf(path, sizeof(path), "%s/f", self->s->mnt);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, umount2(self->s->mnt, 0));
	if (ext4)
		ret = sh("debugfs -w -R 'set_inode_field /f links_count 5' %s >/dev/null 2>&1",
			 self->s->dev);
	else
		ret = sh("xfs_db -x -c 'path /f' -c 'write core.nlinkv2 5' %s >/dev/null 2>&1",
			 self->s->dev);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, iop_scratch_remount(self->s));
	ret = iop_scratch_fsck(self->s, why, sizeof(why));
	EXPECT_EQ(-EUCLEAN, ret) TH_LOG("fsck of a corrupted fs: %d %s", ret, why);
	EXPECT_TRUE(one_line(why)) TH_LOG("why: '%s'", why);
	TH_LOG("complaint: %s", why);
	EXPECT_TRUE(mounted_at(self->s->mnt, NULL, NULL));
}

/* ---- device safety ---------------------------------------------------- */

/* A blank 64 MiB loop device of our own, detached when our fd closes. */
FIXTURE(device) {
	char skip[128];
	char id[64];
	char img[PATH_MAX];
	char dev[64];
	char mnt[PATH_MAX];
	int fd;
};

/*
 * Attach a loop device to a fresh @size-byte file @img with lo_file_name
 * @tag, autoclear; the file is unlinked at once (the device holds it), so
 * nothing is left even if a teardown never runs (the 6.12 harness skips it
 * after a failed ASSERT in some builds). Returns the fd holding the device.
 */
static int attach_loop(const char *img, const char *tag, off_t size, char *dev, size_t len)
{
	struct loop_config cfg;
	int fd = -ENODEV, file, ctl;

	file = open(img, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (file < 0)
		return -errno;
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0 || ftruncate(file, size)) {
		fd = -errno;
		goto out;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = (__u32)file;
	cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
	snprintf((char *)cfg.info.lo_file_name, LO_NAME_SIZE, "%s", tag);
	for (int i = 0; i < 16 && fd < 0; i++) {
		int n = ioctl(ctl, LOOP_CTL_GET_FREE);

		if (n < 0)
			break;
		snprintf(dev, len, "/dev/loop%d", n);
		fd = open(dev, O_RDWR | O_CLOEXEC);
		if (fd >= 0 && ioctl(fd, LOOP_CONFIGURE, &cfg)) {
			close(fd);
			fd = -EBUSY;
		}
	}
out:
	unlink(img);
	if (ctl >= 0)
		close(ctl);
	close(file);
	return fd;
}

FIXTURE_SETUP(device)
{
	char tag[LO_NAME_SIZE];

	self->skip[0] = '\0';
	self->fd = -1;
	self->mnt[0] = '\0';
	if (geteuid() != 0) {
		snprintf(self->skip, sizeof(self->skip), "needs root (loop devices)");
		return;
	}
	/* Tagged like the library's, so that iop_cleanup() finds a leftover. */
	snprintf(self->id, sizeof(self->id), "%d-t0", (int)getpid());
	snprintf(tag, sizeof(tag), "iopath:%.40s", self->id);
	snprintf(self->img, sizeof(self->img), IOP_RUN_DIR "/img/%s.img", self->id);
	snprintf(self->mnt, sizeof(self->mnt), IOP_RUN_DIR "/mnt/%s", self->id);
	mkdir(IOP_RUN_DIR, 0755);
	mkdir(IOP_RUN_DIR "/img", 0700);
	mkdir(IOP_RUN_DIR "/mnt", 0755);
	self->fd = attach_loop(self->img, tag, 64 * MIB, self->dev, sizeof(self->dev));
	if (self->fd < 0)
		snprintf(self->skip, sizeof(self->skip), "no loop device: %s", strerror(-self->fd));
}

FIXTURE_TEARDOWN(device)
{
	if (self->mnt[0]) {
		umount2(self->mnt, 0);
		rmdir(self->mnt);
	}
	if (self->fd >= 0)
		close(self->fd);	/* autoclear detaches it */
}

/*
 * Refused with @err, a one-line reason, and the first MiB unchanged. Where
 * the device cannot be read at all (a sandbox may deny opening the root
 * disk) the refusal is still checked; the checksum then proves nothing.
 */
#define EXPECT_REFUSED(_dev, _force, _err)					\
	do {									\
		uint64_t __before = 0, __after = 0;				\
		char __why[512] = "";						\
		int __r, __c;							\
		__c = checksum_first_mib(_dev, &__before);			\
		if (__c)							\
			TH_LOG("%s unreadable (%s): refusal checked, contents not", \
			       _dev, strerror(-__c));				\
		__r = iop_scratch_check_device(_dev, _force, __why, sizeof(__why)); \
		EXPECT_EQ(_err, __r) TH_LOG("%s: got %d (%s)", _dev, __r, __why); \
		EXPECT_TRUE(one_line(__why)) TH_LOG("why: '%s'", __why);	\
		if (!__c) {							\
			EXPECT_EQ(0, checksum_first_mib(_dev, &__after));	\
			EXPECT_EQ(__before, __after) TH_LOG("%s changed by the check", _dev); \
		}								\
	} while (0)

/* /dev/<name> of the block device holding / (and its whole disk). */
static bool root_devices(char *dev, size_t dlen, char *disk, size_t klen)
{
	char path[PATH_MAX + 16], real[PATH_MAX], *slash;
	struct stat sb;

	if (stat("/", &sb) || !major(sb.st_dev))
		return false;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(sb.st_dev), minor(sb.st_dev));
	if (!realpath(path, real))
		return false;
	slash = strrchr(real, '/');
	snprintf(dev, dlen, "/dev/%s", slash + 1);
	snprintf(path, sizeof(path), "%s/partition", real);
	if (access(path, F_OK) == 0) {
		*slash = '\0';
		snprintf(disk, klen, "/dev/%s", strrchr(real, '/') + 1);
	} else {
		snprintf(disk, klen, "%s", dev);
	}
	return access(dev, F_OK) == 0;
}

TEST_F(device, refuses_the_root_disk)
{
	char dev[PATH_MAX], disk[PATH_MAX];

	if (self->skip[0])
		SKIP(return, "%s", self->skip);
	if (!root_devices(dev, sizeof(dev), disk, sizeof(disk)))
		SKIP(return, "/ is not on a block device with a /dev node");
	EXPECT_REFUSED(dev, false, -EPERM);
	EXPECT_REFUSED(dev, true, -EPERM);
	EXPECT_REFUSED(disk, true, -EPERM);
}

TEST_F(device, accepts_a_blank_unused_device)
{
	char why[512] = "";

	if (self->skip[0])
		SKIP(return, "%s", self->skip);
	/* Positive control: without it every refusal below could be a bug. */
	EXPECT_EQ(0,
		  iop_scratch_check_device(self->dev, false, why, sizeof(why))) TH_LOG("%s", why);
}

TEST_F_TIMEOUT(device, refuses_a_mounted_device_even_forced, 60)
{
	struct iop_scratch_opts o = {
		.backing = IOP_BACKING_DEVICE, .fstype = "ext4", .device = self->dev,
		.force = true,
	};
	struct iop_scratch *s = NULL;
	uint64_t before, after;
	char why[512] = "";

	if (self->skip[0])
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, sh("mkfs.ext4 -F -q %s >/dev/null 2>&1", self->dev));
	ASSERT_EQ(0, mkdir(self->mnt, 0755));
	ASSERT_EQ(0, mount(self->dev, self->mnt, "ext4", MS_NOATIME, NULL));
	sync();
	EXPECT_REFUSED(self->dev, false, -EBUSY);
	EXPECT_REFUSED(self->dev, true, -EBUSY);

	/* The same through create, as IOPATH_SCRATCH_DEV would. */
	/* Mounted from here on: no ASSERT, so that the teardown unmounts it. */
	EXPECT_EQ(0, checksum_first_mib(self->dev, &before));
	EXPECT_EQ(-EBUSY, iop_scratch_create(&o, &s, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(NULL, s);
	iop_scratch_destroy(s);
	EXPECT_EQ(0, checksum_first_mib(self->dev, &after));
	EXPECT_EQ(before, after);
}

TEST_F_TIMEOUT(device, refuses_a_device_with_a_filesystem_unless_forced, 60)
{
	char why[512] = "";
	int fd;

	if (self->skip[0])
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, sh("mkfs.ext4 -F -q %s >/dev/null 2>&1", self->dev));
	EXPECT_REFUSED(self->dev, false, -EEXIST);
	EXPECT_EQ(0, iop_scratch_check_device(self->dev, true, why, sizeof(why))) TH_LOG("%s", why);

	if (sh("command -v mkfs.xfs >/dev/null") == 0) {
		/* 64 MiB is below mkfs.xfs's minimum: only the superblock matters. */
		ASSERT_EQ(0, sh("wipefs -a -q %s && printf XFSB | dd of=%s conv=notrunc status=none",
				self->dev, self->dev));
		EXPECT_REFUSED(self->dev, false, -EEXIST);
	}

	/* A partition table (MBR signature) and nothing else. */
	ASSERT_EQ(0, sh("wipefs -a -q %s", self->dev));
	fd = open(self->dev, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(2, pwrite(fd, "\x55\xaa", 2, 510));
	ASSERT_EQ(0, fsync(fd));
	close(fd);
	EXPECT_REFUSED(self->dev, false, -EEXIST);
	EXPECT_EQ(0, iop_scratch_check_device(self->dev, true, why, sizeof(why))) TH_LOG("%s", why);
}

TEST_F(device, refuses_what_is_not_a_block_device)
{
	char file[] = "/tmp/iopath-scratch-test-XXXXXX";
	int fd;

	if (self->skip[0])
		SKIP(return, "%s", self->skip);
	fd = mkstemp(file);
	ASSERT_LE(0, fd);
	/* Looks like a filesystem image: refused for not being a device all the same. */
	EXPECT_EQ(0, ftruncate(fd, 2 * MIB));
	EXPECT_EQ(4, pwrite(fd, "XFSB", 4, 0));
	close(fd);
	EXPECT_REFUSED(file, false, -ENOTBLK);
	EXPECT_REFUSED(file, true, -ENOTBLK);
	unlink(file);
	EXPECT_REFUSED("/dev/null", true, -ENOTBLK);
	{
		char why[256] = "";

		EXPECT_EQ(-ENOENT, iop_scratch_check_device("/dev/iopath-no-such-device", true,
							    why, sizeof(why)));
		EXPECT_TRUE(one_line(why));
	}
}

/* A named device is formatted and mounted, and left attached at destroy: not ours. */
TEST_F_TIMEOUT(device, create_on_a_named_device_leaves_the_device, 60)
{
	struct iop_scratch_opts o = {
		.backing = IOP_BACKING_DEVICE, .fstype = "ext4", .device = self->dev,
	};
	struct iop_scratch *s = NULL;
	char why[512] = "", mnt[PATH_MAX];

	if (self->skip[0])
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, iop_scratch_create(&o, &s, why, sizeof(why))) TH_LOG("%s", why);
	snprintf(mnt, sizeof(mnt), "%s", s->mnt);
	EXPECT_STREQ(self->dev, s->dev);
	EXPECT_TRUE(mounted_at(mnt, NULL, NULL));
	EXPECT_EQ(0, iop_scratch_destroy(s));
	EXPECT_FALSE(mounted_at(mnt, NULL, NULL));
	EXPECT_TRUE(loop_bound(self->dev, NULL));
	/* It now carries our ext4: a second run must be forced. */
	EXPECT_REFUSED(self->dev, false, -EEXIST);
}

/* An existing directory: a fresh subdirectory, removed at destroy; other fs types skip. */
TEST_F_TIMEOUT(device, dir_backing_uses_and_removes_a_subdirectory, 60)
{
	struct iop_scratch_opts o = { .backing = IOP_BACKING_DIR, .fstype = "ext4" };
	struct iop_scratch *s = NULL;
	char why[512] = "", sub[PATH_MAX], path[PATH_MAX + 16], keep[PATH_MAX + 8];
	int fd, ret;

	if (self->skip[0])
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, sh("mkfs.ext4 -F -q %s >/dev/null 2>&1", self->dev));
	ASSERT_EQ(0, mkdir(self->mnt, 0755));
	ASSERT_EQ(0, mount(self->dev, self->mnt, "ext4", 0, NULL));
	/* Mounted from here on: no ASSERT, so that the teardown unmounts it. */
	/* Something of the user's next to ours: it must survive. */
	snprintf(keep, sizeof(keep), "%s/keep", self->mnt);
	fd = open(keep, O_CREAT | O_WRONLY, 0644);
	EXPECT_LE(0, fd);
	close(fd);

	o.dir = self->mnt;
	ret = iop_scratch_create(&o, &s, why, sizeof(why));
	EXPECT_EQ(0, ret) TH_LOG("%s", why);
	if (ret)
		return;
	snprintf(sub, sizeof(sub), "%s", s->mnt);
	EXPECT_EQ(0, strncmp(sub, self->mnt, strlen(self->mnt)));
	EXPECT_NE(NULL, strstr(sub, "/iopath-"));
	EXPECT_STREQ("", s->dev);
	snprintf(path, sizeof(path), "%s/a/b", sub);
	EXPECT_EQ(0, sh("mkdir -p %s && echo x > %s/c && ln -s / %s/root-link", path, path, sub));
	EXPECT_EQ(-EOPNOTSUPP, iop_scratch_fsck(s, why, sizeof(why)));
	EXPECT_EQ(0, iop_scratch_destroy(s));
	EXPECT_NE(0, access(sub, F_OK)) TH_LOG("%s left", sub);
	EXPECT_EQ(0, access(keep, F_OK)) TH_LOG("the user's file went with it");
	EXPECT_EQ(0, access("/etc/passwd", F_OK));

	o.fstype = "xfs";
	s = NULL;
	EXPECT_EQ(-EOPNOTSUPP, iop_scratch_create(&o, &s, why, sizeof(why)));
	EXPECT_TRUE(one_line(why)) TH_LOG("why: '%s'", why);
	EXPECT_EQ(NULL, s);
}

/* ---- threads ------------------------------------------------------------ */

/*
 * Several threads make and destroy scratches at once, as a benchmark with
 * one filesystem per worker might: ids, devices and mount points must not
 * collide, and each fork of a guardian from a multi-threaded process must
 * still come up and go away.
 */
#define NR_THREADS 4

static pthread_barrier_t all_created;

struct thread_job {
	struct iop_scratch_opts o;
	int create, destroy;
	char mnt[PATH_MAX], dev[PATH_MAX], why[256];
	bool mounted;
};

static void *thread_job(void *arg)
{
	struct thread_job *j = arg;
	struct iop_scratch *s = NULL;

	j->create = iop_scratch_create(&j->o, &s, j->why, sizeof(j->why));
	/* All alive at once: a device freed early may rightly be handed out again. */
	pthread_barrier_wait(&all_created);
	if (j->create)
		return NULL;
	snprintf(j->mnt, sizeof(j->mnt), "%s", s->mnt);
	snprintf(j->dev, sizeof(j->dev), "%s", s->dev);
	j->mounted = mounted_at(s->mnt, NULL, NULL);
	j->destroy = iop_scratch_destroy(s);
	return NULL;
}

FIXTURE(threads) {
	char skip[128];
};

FIXTURE_SETUP(threads)
{
	self->skip[0] = '\0';
	if (geteuid() != 0)
		snprintf(self->skip, sizeof(self->skip), "needs root");
}

FIXTURE_TEARDOWN(threads)
{
}

TEST_F_TIMEOUT(threads, concurrent_create_destroy, 120)
{
	static struct thread_job jobs[NR_THREADS];
	pthread_t tid[NR_THREADS];

	if (self->skip[0])
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, pthread_barrier_init(&all_created, NULL, NR_THREADS));
	for (int i = 0; i < NR_THREADS; i++) {
		memset(&jobs[i], 0, sizeof(jobs[i]));
		jobs[i].o.backing = i % 2 ? IOP_BACKING_LOOP : IOP_BACKING_DEFAULT;
		jobs[i].o.fstype = "ext4";
		jobs[i].o.size = 64 * MIB;
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, thread_job, &jobs[i]));
	}
	for (int i = 0; i < NR_THREADS; i++)
		ASSERT_EQ(0, pthread_join(tid[i], NULL));
	for (int i = 0; i < NR_THREADS; i++) {
		EXPECT_EQ(0, jobs[i].create) TH_LOG("thread %d: %s", i, jobs[i].why);
		EXPECT_TRUE(jobs[i].mounted) TH_LOG("thread %d: %s not mounted", i, jobs[i].mnt);
		EXPECT_EQ(0, jobs[i].destroy) TH_LOG("thread %d", i);
		EXPECT_FALSE(mounted_at(jobs[i].mnt, NULL, NULL));
		for (int k = 0; k < i; k++) {
			EXPECT_STRNE(jobs[k].mnt, jobs[i].mnt);
			EXPECT_STRNE(jobs[k].dev, jobs[i].dev);
		}
	}
}

/* ---- cleanup acts only on what is its own ----------------------------- */

/*
 * Canaries a state file names but iopath never made: the system's zram0,
 * a loop device bound by someone else, a mount and a file outside
 * IOP_RUN_DIR/mnt and /img (reached through ".."), a directory reached
 * through "..". A dead owner's state file pointing at them must be dropped
 * with every canary intact.
 */
FIXTURE(cleanup) {
	char skip[128];
	char id[64];
	char loop[64];
	int loop_fd;
	char canary_mnt[PATH_MAX];
	char canary_file[PATH_MAX];
	char canary_dir[PATH_MAX];
	char state[PATH_MAX];
	pid_t dead;
};

FIXTURE_SETUP(cleanup)
{
	char img[PATH_MAX];
	pid_t dead;

	self->dead = 0;
	self->skip[0] = '\0';
	self->loop_fd = -1;
	self->canary_mnt[0] = '\0';
	self->canary_file[0] = '\0';
	self->canary_dir[0] = '\0';
	self->state[0] = '\0';
	if (geteuid() != 0) {
		snprintf(self->skip, sizeof(self->skip), "needs root");
		return;
	}
	/* A pid that is surely gone: our own reaped child's. */
	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	self->dead = dead;
	snprintf(self->id, sizeof(self->id), "%d-99", (int)dead);
	snprintf(self->state, sizeof(self->state), IOP_RUN_DIR "/state/%s", self->id);
	snprintf(self->canary_mnt, sizeof(self->canary_mnt),
		 IOP_RUN_DIR "/canary-mnt-%d", (int)getpid());
	snprintf(self->canary_file, sizeof(self->canary_file),
		 IOP_RUN_DIR "/canary-%d", (int)getpid());
	snprintf(self->canary_dir, sizeof(self->canary_dir),
		 "/tmp/iopath-canary-%d", (int)getpid());
	snprintf(img, sizeof(img), "/tmp/iopath-canary-%d.img", (int)getpid());
	mkdir(IOP_RUN_DIR, 0755);
	mkdir(IOP_RUN_DIR "/state", 0755);
	self->loop_fd = attach_loop(img, "not-iopath", 4 * MIB, self->loop, sizeof(self->loop));
	if (self->loop_fd < 0)
		snprintf(self->skip, sizeof(self->skip), "no loop device: %s",
			 strerror(-self->loop_fd));
}

FIXTURE_TEARDOWN(cleanup)
{
	char path[PATH_MAX + 64];

	if (self->canary_mnt[0]) {
		umount2(self->canary_mnt, 0);
		rmdir(self->canary_mnt);
	}
	if (self->canary_file[0])
		unlink(self->canary_file);
	if (self->canary_dir[0]) {
		snprintf(path, sizeof(path), "rm -rf %s", self->canary_dir);
		sh("%s", path);
	}
	if (self->state[0])
		unlink(self->state);
	if (self->loop_fd >= 0)
		close(self->loop_fd);
}

static int read_attr(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

TEST_F_TIMEOUT(cleanup, drops_a_state_file_naming_what_is_not_its_own, 60)
{
	char zram0_before[64] = "absent", zram0_after[64] = "absent", tag[LO_NAME_SIZE];
	char path[PATH_MAX + 160], sub[PATH_MAX + 80];
	FILE *f;
	int fd;

	if (self->skip[0])
		SKIP(return, "%s", self->skip);
	read_attr("/sys/block/zram0/disksize", zram0_before, sizeof(zram0_before));

	ASSERT_EQ(0, mkdir(self->canary_mnt, 0755));
	ASSERT_EQ(0, mount("canary", self->canary_mnt, "tmpfs", 0, "size=1m"));
	fd = open(self->canary_file, O_CREAT | O_WRONLY, 0600);
	EXPECT_LE(0, fd);
	close(fd);
	snprintf(sub, sizeof(sub), "%s/iopath-%s", self->canary_dir, self->id);
	EXPECT_EQ(0, sh("mkdir -p %s/x && touch %s/keep", sub, sub));

	f = fopen(self->state, "w");
	EXPECT_NE(NULL, f);
	if (!f)
		return;
	fprintf(f, "owner=%d\nbacking=zram\nfstype=ext4\nzram=0\ndev=/dev/zram0\n"
		"loop=%s\nimg=" IOP_RUN_DIR "/img/../canary-%d\n"
		"mnt=" IOP_RUN_DIR "/mnt/../canary-mnt-%d\ndir=%s/x/../iopath-%s\n",
		(int)self->dead, self->loop, (int)getpid(), (int)getpid(),
		self->canary_dir, self->id);
	fclose(f);

	iop_cleanup(false, NULL, NULL);

	EXPECT_NE(0, access(self->state, F_OK)) TH_LOG("state file kept");
	EXPECT_TRUE(mounted_at(self->canary_mnt, NULL, NULL)) TH_LOG("unmounted %s",
								     self->canary_mnt);
	EXPECT_EQ(0, access(self->canary_file, F_OK)) TH_LOG("deleted %s", self->canary_file);
	snprintf(path, sizeof(path), "%s/keep", sub);
	EXPECT_EQ(0, access(path, F_OK)) TH_LOG("deleted %s", path);
	EXPECT_TRUE(loop_bound(self->loop, tag)) TH_LOG("detached %s", self->loop);
	EXPECT_STREQ("not-iopath", tag);
	read_attr("/sys/block/zram0/disksize", zram0_after, sizeof(zram0_after));
	EXPECT_STREQ(zram0_before, zram0_after);
}

TEST_HARNESS_MAIN
