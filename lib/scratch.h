/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scratch filesystems: create, mount, tear down.
 *
 * What may be formatted (the safety model, as in fstests):
 *   - a zram device this process hot-added (the default: memory-backed and
 *     CPU-bound, so results do not depend on a disk);
 *   - a loop device this process attached to a sparse file it created;
 *   - a block device the user named explicitly as scratch (IOPATH_SCRATCH_DEV
 *     or --backing dev:/dev/X), and only if it is not mounted, has no holders, is
 *     not (part of) the disk holding / and carries no filesystem or partition
 *     table. "force" (IOPATH_SCRATCH_FORCE_MKFS=yes-wipe-it) waives only the
 *     last check.
 * Nothing else is ever formatted. With IOPATH_SCRATCH_DIR the suite uses an
 * existing mounted directory and formats nothing.
 *
 * Every resource carries the iopath tag: mount points live under
 * IOP_RUN_DIR/mnt, loop backing files under IOP_RUN_DIR/img (the loop device
 * also has lo_file_name "iopath:<id>"), and each scratch writes a state file
 * IOP_RUN_DIR/state/<id> before touching anything. A guardian process
 * (guardian.h: own session, so a harness timeout that SIGKILLs the test's
 * process group does not reach it; not a child of the caller) undoes
 * everything if the creating process dies without calling
 * iop_scratch_destroy(). iop_cleanup() removes what a crashed run left, by
 * state file and tag.
 *
 * mkfs details: ext4 is made with lazy_itable_init=0,lazy_journal_init=0
 * (no background zeroing after mount) unless the options carry their own
 * -E, and a measurement's ext4 is mounted with no_prefetch_block_bitmaps
 * unless the options name prefetch_block_bitmaps themselves;
 * struct iop_scratch.mkfs_opts and mount_opts record the options actually
 * used (iop_scratch_fs_opts()).
 * Mount options are mount(8)-style: generic words (noatime, ro, sync, ...)
 * become MS_* flags, the rest goes to the filesystem.
 */
#ifndef IOPATH_SCRATCH_H
#define IOPATH_SCRATCH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define IOP_RUN_DIR "/run/iopath"
#define IOP_FORCE_MKFS_WORD "yes-wipe-it"

enum iop_backing {
	IOP_BACKING_DEFAULT = 0,	/* zram, or loop where zram is missing */
	IOP_BACKING_ZRAM,
	IOP_BACKING_LOOP,
	IOP_BACKING_DEVICE,		/* the user's named scratch device */
	IOP_BACKING_DIR,		/* an existing mounted directory */
};

struct iop_scratch_opts {
	enum iop_backing backing;
	const char *fstype;	/* "ext4" or "xfs" */
	const char *mkfs_opts;	/* extra mkfs arguments, e.g. "-b size=1024 -m reflink=1" */
	const char *mount_opts;	/* e.g. "noatime,dax=never" (may be NULL) */
	const char *device;	/* IOP_BACKING_DEVICE: e.g. "/dev/nvme0n1" */
	const char *dir;	/* IOP_BACKING_DIR: a mounted directory */
	uint64_t size;		/* zram/loop size in bytes; 0: IOP_SCRATCH_DEFAULT_SIZE */
	/*
	 * Loop only: the device's logical block size (512 ... 4096, a power
	 * of two; 0: the loop driver's default). 512 allows direct I/O in
	 * units smaller than any filesystem block, as on most NVMe and SATA
	 * disks.
	 */
	unsigned int sector_size;
	/*
	 * zram and loop only: the device's stable_writes flag, set before
	 * mkfs. A device with stable writes (zram's default) makes XFS bounce
	 * every direct I/O through a kernel buffer and complete it in a
	 * worker, which an NVMe disk without integrity does not.
	 */
	enum iop_stable_writes {
		IOP_STABLE_WRITES_DEVICE = 0,	/* as the driver sets it */
		IOP_STABLE_WRITES_OFF,
		IOP_STABLE_WRITES_ON,
	} stable_writes;
	bool force;		/* format a named device that carries a filesystem */
	/*
	 * A DAX-capable block device the user named as scratch for the DAX
	 * tests (IOPATH_SCRATCH_DAX_DEV, e.g. an emulated pmem region), and
	 * whether this scratch goes there (a setup that asks for DAX): it is
	 * then made as on IOPATH_SCRATCH_DEV, with every check of a named
	 * device.
	 */
	const char *dax_device;
	bool dax;
	/*
	 * A filesystem for a measurement (iopath bench): ext4 is mounted
	 * without its lazyinit thread's block bitmap prefetch. That thread
	 * loads the allocator's groups at a random time in the 5 s after
	 * mount; whether it has run when a file is allocated decides where
	 * the file goes (docs/ab.md, "Where ext4 puts the file").
	 */
	bool measure;
};

#define IOP_SCRATCH_DEFAULT_SIZE (1ull << 30)

struct iop_scratch {
	enum iop_backing backing;
	char id[64];		/* "<pid>-<n>": names the state file and mount point */
	char fstype[16];
	char dev[PATH_MAX];	/* block device ("" for IOP_BACKING_DIR) */
	char mnt[PATH_MAX];	/* filesystem root (IOP_BACKING_DIR: .../iopath-<id>) */
	char mkfs_opts[256];	/* as used, defaults included ("" for IOP_BACKING_DIR) */
	char mount_opts[256];
	/* private */
	char img[PATH_MAX];	/* loop backing file */
	int zram_id;		/* hot-added zram index, -1 if none */
	int loop_fd;		/* keeps an autoclear loop device bound across umounts */
	pid_t guardian;		/* not our child: see above */
	int guardian_fd;	/* owner's end of the guardian's lifeline socket */
};

/*
 * The backing as a user writes it (--backing, a profile's backing=):
 * "zram", "loop", "dev:/dev/X" or "dir:/path". Sets @o->backing and
 * @o->device or @o->dir; NULL or "" leaves @o alone (the environment's
 * choice or the default). -EINVAL with @why filled ("backing '<s>': ...")
 * for anything else.
 */
int iop_parse_backing(const char *s, struct iop_scratch_opts *o, char *why, size_t len);

/*
 * Whether a stable_writes setting other than the device's own can be
 * made on @backing (resolved: not IOP_BACKING_DEFAULT): -EINVAL with @why
 * filled for a device or directory iopath did not make.
 */
int iop_stable_writes_check(enum iop_backing backing, char *why, size_t len);

/*
 * The one name of a backing, in state files, records and messages: "zram",
 * "loop", "dev", "dir" ("default" before the choice is made).
 */
const char *iop_backing_name(enum iop_backing b);

/*
 * A size in bytes with an optional k, m, g or t suffix (powers of 1024,
 * also written KiB or KB): "1073741824", "512m", "1G", "4KiB". -EINVAL for
 * anything else, zero included. The one size parser: scratch sizes and
 * benchmark parameters alike.
 */
int iop_parse_size(const char *s, uint64_t *out);

/*
 * Fill @o from the environment: IOPATH_BACKING=zram|loop,
 * IOPATH_SCRATCH_DEV, IOPATH_SCRATCH_DIR, IOPATH_SCRATCH_FORCE_MKFS,
 * IOPATH_SCRATCH_SIZE (bytes, k/m/g suffix), IOPATH_SCRATCH_DAX_DEV. Leaves fstype, mkfs_opts and
 * mount_opts alone, and every field whose variable is unset or empty.
 * -EINVAL with @why filled for a malformed value or a contradiction
 * (IOPATH_SCRATCH_DEV with IOPATH_SCRATCH_DIR or IOPATH_BACKING, a force word
 * other than IOP_FORCE_MKFS_WORD); @o is then unchanged.
 */
int iop_scratch_opts_from_env(struct iop_scratch_opts *o, char *why, size_t len);

/*
 * A new temporary file of this run: IOP_RUN_DIR "/tmp/<pid>-<what>.XXXXXX",
 * O_EXCL, mode 0600. The pid tags it, so `iopath cleanup` removes it once
 * the run is dead, SIGKILL included. Its name goes to @path; returns the
 * fd (close-on-exec) or -errno.
 */
int iop_run_tmp(const char *what, char *path, size_t len);

/*
 * What iop_scratch_create() would refuse before making anything: the
 * filesystem, the options, the backing and what it names (a device's
 * safety checks, a missing IOPATH_SCRATCH_DIR). 0, or -errno with one line
 * in @why: -ENODEV (no zram) is a missing feature, anything else a
 * refusal.
 */
int iop_scratch_create_check(const struct iop_scratch_opts *o, char *why, size_t len);

/*
 * The mkfs and mount options a scratch of @o on @backing (resolved: not
 * IOP_BACKING_DEFAULT) is made with, defaults included, into @mkfs and
 * @mount (@len bytes each): what struct iop_scratch records. -EINVAL if
 * either does not fit.
 */
int iop_scratch_fs_opts(const struct iop_scratch_opts *o, enum iop_backing backing,
			char *mkfs, char *mount, size_t len);

/*
 * Make a scratch filesystem. On failure nothing is left behind and @why
 * says what went wrong in one line. -EOPNOTSUPP: the kernel has no such
 * filesystem, or IOP_BACKING_DIR is of another type; -ENODEV: no zram in
 * the kernel; -EINVAL: mkfs or mount refused the options; -ENOENT: a tool
 * is missing; -EBUSY/-EEXIST/-EPERM on a named device: refused as unsafe.
 * Whether to skip is the caller's to probe (lib/probe.h), not the errno's.
 */
int iop_scratch_create(const struct iop_scratch_opts *o, struct iop_scratch **out,
		       char *why, size_t len);

/*
 * Unmount and undo everything @s made; frees @s. NULL is a no-op. If
 * something stays busy (a process still has files open on the scratch),
 * the mount is detached lazily and the guardian finishes the teardown in
 * the background; the return value is then -EBUSY.
 */
int iop_scratch_destroy(struct iop_scratch *s);

/*
 * Move the calling process into a mount namespace of its own, once, whose
 * mounts do not propagate back (the host's still propagate in): scratch
 * filesystems mounted afterwards are invisible to the rest of the
 * machine. A process that copies the host's mount namespace while one is
 * mounted (unshare -m, a systemd service with PrivateTmp=, a container
 * start) would otherwise hold a reference to it and keep its superblock
 * alive after our umount, log dirty, and the checker would report
 * corruption that is not there. The mounts also vanish with the run if it
 * is killed. Single-threaded callers only (unshare(2) refuses otherwise).
 */
int iop_scratch_private_mounts(char *why, size_t len);

/*
 * Can iop_scratch_private_mounts() work here? Not where / is not a mount
 * point, as in a chroot into a plain directory (sbuild, pbuilder): the
 * mount holding / is outside the process's view, so its propagation
 * cannot be changed and whatever is mounted under it would appear in the
 * host's namespace. 0 if it can, 1 if not (the reason in @why), or a
 * negative errno if /proc/self/mountinfo cannot be read.
 */
int iop_scratch_namespace_check(char *why, size_t len);

/* Unmount and mount again (drops the page cache, replays the log). */
int iop_scratch_remount(struct iop_scratch *s);

/*
 * Are the tools a scratch filesystem of @fstype needs installed: its mkfs
 * and the checker iop_scratch_fsck() runs? 0 if so; -ENOENT, and in @why
 * the missing tool and the package to install, if not. A test without
 * them cannot run (kselftest's convention: a SKIP with the reason).
 */
int iop_scratch_tools(const char *fstype, char *why, size_t len);

/*
 * Run the filesystem checker read-only on the unmounted device
 * (e2fsck -fn / xfs_repair -n), remounting afterwards. 0 if clean,
 * -EUCLEAN with the first complaint in @why if not, -EOPNOTSUPP for
 * IOP_BACKING_DIR (or a missing checker, named in @why), -EBUSY if the
 * superblock outlives the umount (mounted elsewhere: nothing is checked).
 */
int iop_scratch_fsck(struct iop_scratch *s, char *why, size_t len);

/*
 * Edit an unmounted ext4 scratch filesystem with one debugfs request
 * ("set_inode_field f size 2048"), then mount it again: the on-disk
 * states a running kernel never writes (a corrupted inode, blocks past
 * EOF), which only a test of how the kernel reads them needs. 0 if done;
 * -EOPNOTSUPP for another filesystem or IOP_BACKING_DIR, -ENOENT without
 * debugfs, -EIO with debugfs's complaint in @why.
 */
int iop_scratch_debugfs(struct iop_scratch *s, const char *request, char *why, size_t len);

/*
 * The safety checks for a user-named scratch device, without touching it.
 * 0 if it may be formatted; otherwise -errno and a one-line reason:
 * -ENOTBLK not a block device, -EBUSY mounted or has holders, -EPERM the
 * root disk or one of its partitions, -EEXIST carries a filesystem or
 * partition table (waived by @force).
 */
int iop_scratch_check_device(const char *dev, bool force, char *why, size_t len);

/*
 * Remove what earlier runs left behind: for every state file whose owner is
 * gone (or every one, if @all), unmount, detach loop devices, reset and
 * remove zram devices, delete backing files; remove trace instances named
 * "iopath-<pid>-*" whose pid is gone. @report, if set, is called once per
 * thing removed. Returns how many things were removed.
 */
int iop_cleanup(bool all, void (*report)(const char *what, void *arg), void *arg);

#endif
