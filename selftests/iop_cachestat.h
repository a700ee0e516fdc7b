/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cachestat(2) (Linux 6.5) as the kernel's uapi has it, for C libraries
 * without a wrapper: how many pages of a range are cached, dirty and
 * under write-back.
 */
#ifndef IOP_CACHESTAT_H
#define IOP_CACHESTAT_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

struct cachestat_range_v1 {
	uint64_t off;
	uint64_t len;
};

struct cachestat_v1 {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

/*
 * The page cache state of [@off, @off + @len) of @fd in @cs: 0, or -errno
 * (-ENOSYS: a kernel without the system call, before 6.5).
 */
static inline int iop_cachestat(int fd, uint64_t off, uint64_t len, struct cachestat_v1 *cs)
{
	struct cachestat_range_v1 range = { off, len };

	memset(cs, 0, sizeof(*cs));
	return syscall(__NR_cachestat, fd, &range, cs, 0) ? -errno : 0;
}

#endif
