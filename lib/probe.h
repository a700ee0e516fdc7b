/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel feature probes: the one skip policy of iopath. A test or a
 * benchmark is skipped only for a feature the kernel lacks, found by
 * probing that feature; an error of our own setup (mkfs, mount, loop,
 * zram, the guardian, a state file) is a failure whatever its errno.
 * The runners probe the same features once per kernel (the iopath_probe
 * program of the selftest collection) and fail a run in which a test that
 * needs only present features skipped (selftests/requirements).
 */
#ifndef IOPATH_PROBE_H
#define IOPATH_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Does the running kernel have @feature? 1 yes, 0 no (the reason in
 * @why), -EINVAL for a name not in iop_probe_features. Features:
 *   xfs_reflink    XFS (reflink is in every XFS since 4.9)
 *   tracefs_iomap  tracefs with the iomap tracepoints
 *   fadvise        posix_fadvise(POSIX_FADV_DONTNEED)
 *   cachestat      cachestat(2)
 *   odirect        O_DIRECT on ext4 or XFS (both have it wherever they exist)
 *   io_uring       io_uring_setup(2) allowed
 *   folio_batch    the iomap folio batch (iomap_fill_dirty_folios)
 *   fs_dax         DAX on the device named as DAX scratch
 *                  (IOPATH_SCRATCH_DAX_DEV; its queue/dax is 1)
 *   fail_make_request  block-layer fault injection (make-it-fail)
 */
int iop_probe(const char *feature, char *why, size_t len);

/* NULL-terminated list of the feature names iop_probe() knows. */
extern const char *const iop_probe_features[];

/* Is @fstype in /proc/filesystems (after asking for its module)? */
bool iop_probe_fs(const char *fstype);

/*
 * The errno of a syscall made to use a feature that says the kernel lacks
 * it (ENOSYS, EOPNOTSUPP, ENODEV), for code that cannot probe first.
 */
bool iop_errno_means_absent(int err);

#endif
