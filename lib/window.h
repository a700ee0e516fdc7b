/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Marks around a benchmark's measured repetition, for QEMU's tbcount
 * plugin (contrib/qemu-plugin/tbcount.c, iopath ab --explain): each is
 * one 7-byte NOP, nopl 0x494f5001(%rax) at the start and
 * nopl 0x494f5002(%rax) at the end, which the plugin recognises by its
 * bytes when it translates the code and which does nothing anywhere else.
 * Only the kernel work between a start and an end is then counted per
 * operation, not the boot, mkfs or file fill around the repetitions. One
 * guest instruction each, the same in every kernel compared, outside the
 * timed operations.
 */
#ifndef IOPATH_WINDOW_H
#define IOPATH_WINDOW_H

#if defined(__x86_64__) || defined(__i386__)
static inline void iop_window_open(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80, 0x01, 0x50, 0x4f, 0x49" ::: "memory");
}

static inline void iop_window_close(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80, 0x02, 0x50, 0x4f, 0x49" ::: "memory");
}
#else
/* The plugin counts x86 guests only. */
static inline void iop_window_open(void)
{
}

static inline void iop_window_close(void)
{
}
#endif

#endif
