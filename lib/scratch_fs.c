// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs, mount and fsck of a scratch filesystem (see scratch.h for the
 * defaults mkfs gets and how mount options are split).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array_size.h"
#include "scratch_int.h"
#include "sys.h"
#include "why.h"

int do_mkfs(struct iop_scratch *s, char *why, size_t len)
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
	 * Both mkfs tools exit 1 on an option they do not know or accept (an
	 * old xfsprogs, a typo): a setup error to fix, never a skip; a test
	 * skips only for what the kernel lacks (lib/probe.h).
	 */
	if (ret == 1 && s->mkfs_opts[0] &&
	    (strcasestr(out, "invalid") || strcasestr(out, "unknown") ||
	     strcasestr(out, "bad option") || strcasestr(out, "not supported") ||
	     strcasestr(out, "unsupported") || strstr(out, "Usage:"))) {
		iop_why(why, len, "%s %s: options refused: %s", tool, s->mkfs_opts, line);
		return -EINVAL;
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

		for (i = 0; i < ARRAY_SIZE(mount_flags); i++)
			if (!strcmp(tok, mount_flags[i].name))
				break;
		if (i < ARRAY_SIZE(mount_flags)) {
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

int do_mount(struct iop_scratch *s, char *why, size_t len)
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
		return -EINVAL;
	}
	if (ret == -ENODEV)
		iop_why(why, len, "mount -t %s: filesystem not in this kernel", s->fstype);
	else
		iop_why(why, len, "mount -t %s %s %s: %s", s->fstype, s->dev, s->mnt,
			strerror(-ret));
	return ret == -ENODEV ? -EOPNOTSUPP : ret;
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

static int is_root_mount(const struct mountent *m, void *arg)
{
	(void)arg;
	return !strcmp(m->target, "/");
}

int iop_scratch_namespace_check(char *why, size_t len)
{
	int ret = walk_mounts(is_root_mount, NULL);

	if (ret < 0) {
		iop_why(why, len, "/proc/self/mountinfo: %s", strerror(-ret));
		return ret;
	}
	if (!ret) {
		iop_why(why, len,
			"/ is not a mount point (a chroot into a plain directory): no mount namespace of our own; bind-mount the root on itself first");
		return 1;
	}
	return 0;
}

int iop_scratch_private_mounts(char *why, size_t len)
{
	static pid_t done;	/* a forked child has its parent's namespace */
	int ret;

	if (done == getpid())
		return 0;
	ret = iop_scratch_namespace_check(why, len);
	if (ret)
		return ret < 0 ? ret : -EINVAL;
	if (unshare(CLONE_NEWNS)) {
		ret = -errno;
		iop_why(why, len, "unshare(CLONE_NEWNS): %s", strerror(-ret));
		return ret;
	}
	/* Slave: mounts made here stay here, mounts of the host still arrive. */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL)) {
		ret = -errno;
		iop_why(why, len, "mount --make-rslave /: %s", strerror(-ret));
		return ret;
	}
	done = getpid();
	return 0;
}

/*
 * After the umount, the superblock must be gone: an exclusive open of the
 * block device fails with EBUSY while any mount of it exists, in any
 * mount namespace. A holder that lets go soon is waited for.
 */
static int wait_superblock_gone(const char *dev, char *why, size_t len)
{
	int fd, tries;

	for (tries = 0; tries < 40; tries++) {
		fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (errno != EBUSY)
			return 0;	/* the checker will say what is wrong */
		nap_ms(50);
	}
	iop_why(why, len, "%s still in use 2 s after its umount (mounted in another mount namespace?): not checked",
		dev);
	return -EBUSY;
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

/* The checker iop_scratch_fsck() runs for @fstype. */
static const char *fsck_tool(const char *fstype)
{
	return strcmp(fstype, "ext4") ? "xfs_repair" : "e2fsck";
}

int iop_scratch_tools(const char *fstype, char *why, size_t len)
{
	const char *pkg = !strcmp(fstype, "ext4") ? " (apt-get install e2fsprogs)" :
			  !strcmp(fstype, "xfs") ? " (apt-get install xfsprogs)" : "";
	char mkfs[32];

	snprintf(mkfs, sizeof(mkfs), "mkfs.%s", fstype);
	if (find_tool(mkfs)) {
		iop_why(why, len, "%s not installed%s", mkfs, pkg);
		return -ENOENT;
	}
	if (find_tool(fsck_tool(fstype))) {
		iop_why(why, len, "%s not installed%s", fsck_tool(fstype), pkg);
		return -ENOENT;
	}
	return 0;
}

/*
 * Run @argv on the unmounted device, then mount again: what the checker
 * and an offline edit share. The tool's exit status (>= 0) or -errno, with
 * @why filled for a failure of our own (the umount, the mount after).
 */
static int run_offline(struct iop_scratch *s, char *const argv[], char *out, size_t cap,
		       char *why, size_t len)
{
	struct undo_ctx c = { .busy_tries = 40, .nap = 50 };
	char mwhy[256];
	int ret, mret;

	ret = umount_all(s->mnt, &c);
	if (ret < 0) {
		iop_why(why, len, "umount %s: %s", s->mnt, strerror(-ret));
		return ret;
	}
	ret = wait_superblock_gone(s->dev, why, len);
	if (!ret) {
		ret = run_tool(argv, out, cap);
		if (ret == -ENOENT)
			iop_why(why, len, "%s not found", argv[0]);
		else if (ret < 0)
			iop_why(why, len, "%s: %s", argv[0], strerror(-ret));
	}
	mret = do_mount(s, mwhy, sizeof(mwhy));
	if (mret && ret >= 0) {
		iop_why(why, len, "remount after %s: %s", argv[0], mwhy);
		ret = mret;
	}
	return ret;
}

int iop_scratch_fsck(struct iop_scratch *s, char *why, size_t len)
{
	static char out[64 << 10];
	char line[512];
	bool ext4 = !strcmp(s->fstype, "ext4");
	char *e2[] = { "e2fsck", "-fn", s->dev, NULL };
	char *xr[] = { "xfs_repair", "-n", s->dev, NULL };
	int ret;

	if (why && len)
		why[0] = '\0';
	if (s->backing == IOP_BACKING_DIR) {
		iop_why(why, len, "an existing directory is not checked");
		return -EOPNOTSUPP;
	}
	ret = run_offline(s, ext4 ? e2 : xr, out, sizeof(out), why, len);
	if (ret == -ENOENT) {
		ret = -EOPNOTSUPP;
	} else if (ret > 0) {
		first_complaint(out, line, sizeof(line));
		iop_why(why, len, "%s %s (exit %d): %s", ext4 ? "e2fsck -fn" : "xfs_repair -n",
			s->dev, ret, line);
		ret = -EUCLEAN;
	}
	return ret;
}

int iop_scratch_debugfs(struct iop_scratch *s, const char *request, char *why, size_t len)
{
	char out[4096], *line, *save = NULL;
	char *argv[] = { "debugfs", "-w", "-R", (char *)request, s->dev, NULL };
	int ret;

	if (why && len)
		why[0] = '\0';
	if (s->backing == IOP_BACKING_DIR || strcmp(s->fstype, "ext4")) {
		iop_why(why, len, "debugfs edits only an ext4 scratch device");
		return -EOPNOTSUPP;
	}
	if (find_tool("debugfs")) {
		iop_why(why, len, "debugfs not installed (apt-get install e2fsprogs)");
		return -ENOENT;
	}
	ret = run_offline(s, argv, out, sizeof(out), why, len);
	if (ret < 0)
		return ret;
	/*
	 * debugfs exits 0 when a request fails ("File not found by
	 * ext2_lookup"): every line but its version banner is a complaint.
	 */
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (s_prefix(line, "debugfs "))
			continue;
		iop_why(why, len, "debugfs -w -R '%s' %s: %s", request, s->dev, line);
		return -EIO;
	}
	if (ret)
		iop_why(why, len, "debugfs -w -R '%s' %s: exit %d", request, s->dev, ret);
	return ret ? -EIO : 0;
}
