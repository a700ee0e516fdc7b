/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * statx(2) as the kernel answers it, for the fields the C library's
 * struct statx may not have yet (direct I/O alignment since 6.1, atomic
 * write units since 6.11): the selftests read them through this layout
 * and the raw system call.
 */
#ifndef IOP_STATX_H
#define IOP_STATX_H

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define IOP_STATX_DIOALIGN 0x00002000U
#define IOP_STATX_WRITE_ATOMIC 0x00010000U
#define IOP_STATX_BASIC 0x000007ffU

/*
 * struct statx as the kernel's uapi has it since 6.16 (the C library's may
 * predate the atomic-write fields); 256 bytes, the fields at their offsets.
 */
struct iop_statx {
	uint32_t mask, blksize;
	uint64_t attributes;
	uint32_t nlink, uid, gid;
	uint16_t mode, spare0;
	uint64_t ino, size, blocks, attributes_mask;
	uint8_t times[64];
	uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
	uint64_t mnt_id;
	uint32_t dio_mem_align, dio_offset_align;
	uint64_t subvol;
	uint32_t awu_min, awu_max;		/* 0xa8 */
	uint32_t aw_segments_max, dio_read_offset_align;
	uint32_t awu_max_opt, spare2;
	uint64_t spare3[8];
};

_Static_assert(sizeof(struct iop_statx) == 0x100, "struct statx is 256 bytes");
_Static_assert(__builtin_offsetof(struct iop_statx, awu_min) == 0xa8, "stx_atomic_write_unit_min");

/* statx of the open file @fd for @mask into @sx (zeroed first): 0 or -errno */
static inline int iop_statx_fd(int fd, unsigned int mask, struct iop_statx *sx)
{
	memset(sx, 0, sizeof(*sx));
	return syscall(SYS_statx, fd, "", AT_EMPTY_PATH, mask, sx) ? -errno : 0;
}

#endif
