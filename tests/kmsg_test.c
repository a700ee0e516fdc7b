// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lib/kmsg.c: the classifier knows the shapes of real kernel bug reports
 * (WARN_ON, BUG_ON, oopses, lockdep, UBSAN/KASAN, RCU stalls, hung tasks,
 * "Busy inodes after unmount", list corruption, kmemleak) and leaves
 * ordinary filesystem chatter alone; the marker lands where the scan looks.
 * Catches a scan that counts lines from before the marker (every test would
 * fail after the first splat of the boot) or misses lines after it (every
 * splat would pass unnoticed), which is why the live test injects a
 * positive control: a plainly labelled userspace line in /dev/kmsg, not a
 * kernel warning.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "kmsg.h"

FIXTURE(kmsg) {
	char skip[128];
};

FIXTURE_SETUP(kmsg)
{
	int fd;

	/* Never skip from here (6.1 harness): record why, skip in the body. */
	self->skip[0] = '\0';
	fd = open("/dev/kmsg", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		snprintf(self->skip, sizeof(self->skip), "/dev/kmsg: %s (needs root)",
			 strerror(errno));
	else
		close(fd);
}

FIXTURE_TEARDOWN(kmsg)
{
}

/* Lines as the kernel prints them (6.x), one per pattern family. */
static const char *const bad_lines[] = {
	"WARNING: CPU: 1 PID: 4242 at fs/iomap/buffered-io.c:1234 iomap_write_begin+0x3c/0x50",
	"------------[ cut here ]------------ WARNING: fs/xfs/xfs_bmap.c:42",
	"kernel BUG at fs/ext4/inode.c:2718!",
	"BUG: unable to handle page fault for address: ffff888100000000",
	"BUG: sleeping function called from invalid context at mm/slab.h:1",
	"BUG: KASAN: slab-use-after-free in iomap_iter+0x1f4/0x2d0",
	"BUG kmalloc-64 (Not tainted): Redzone overwritten",
	"Oops: 0000 [#1] PREEMPT SMP NOPTI",
	"Oops: general protection fault, probably for non-canonical address 0xdead000000000100",
	"general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] SMP",
	"Internal error: Oops: 96000004 [#1] PREEMPT SMP",
	"UBSAN: shift-out-of-bounds in fs/xfs/libxfs/xfs_bmap.c:1234:5",
	"WARNING: possible recursive locking detected",
	"WARNING: possible circular locking dependency detected",
	"WARNING: inconsistent lock state",
	"WARNING: suspicious RCU usage",
	"rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
	"INFO: rcu_sched self-detected stall on CPU",
	"INFO: task fsstress:4242 blocked for more than 122 seconds.",
	"VFS: Busy inodes after unmount of loop0 (xfs). Self-destruct in 5 seconds.  Have a nice day...",
	"list_add corruption. next->prev should be prev (ffff888100000000), but was 0000000000000000.",
	"list_del corruption, ffff888100000000->next is LIST_POISON1 (dead000000000100)",
	"unreferenced object 0xffff888100000000 (size 64):",
	"kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
};

/* Ordinary log lines, some of them close calls. */
static const char *const good_lines[] = {
	"XFS (loop0): Mounting V5 Filesystem 5372ef90-073d-4fa3-a394-8b743767d836",
	"XFS (loop0): Ending clean mount",
	"EXT4-fs (loop0): mounted filesystem 7c1a2f0e r/w with ordered data mode. Quota mode: none.",
	"loop0: detected capacity change from 0 to 1048576",
	"zram: Added device: zram1",
	"iopath: selftest 4242 1ad0b68b48a8b46c",
	"warning: process `sysctl' used the deprecated sysctl system call",
	"DEBUG: xfs_bmapi_write done",		/* "BUG:" inside a word */
	"MYBUG: not a kernel report",
	"xfs: Deprecated V4 format (crc=0) will not be supported after September 2030.",
	"NOHZ tick-stop error: local softirq work is pending, handler #08!!!",
	"x86 CPU feature dependency check failure: CPU0 has '18*32+31' enabled",
	"",
};

TEST_F(kmsg, classifier_flags_bug_reports)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_lines); i++)
		EXPECT_TRUE(iop_kmsg_line_is_bad(bad_lines[i])) {
			TH_LOG("not flagged: bad_lines[%zu]", i);
		}
}

TEST_F(kmsg, classifier_leaves_ordinary_lines_alone)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good_lines); i++)
		EXPECT_FALSE(iop_kmsg_line_is_bad(good_lines[i])) {
			TH_LOG("flagged: good_lines[%zu]", i);
		}
	EXPECT_FALSE(iop_kmsg_line_is_bad(NULL));
}

static int kmsg_write(const char *line)
{
	size_t len = strlen(line);
	ssize_t n;
	int fd;

	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, line, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

#define CONTROL_TEXT "WARNING: iopath kmsg positive control (injected by tests/kmsg_test from userspace, not a kernel bug)"

/*
 * mark1, control line: scan(mark1) == 0 by default (userspace lines are
 * not the kernel's), == 1 and names the line with include_user; then mark2,
 * scan(mark2) == 0: lines before a marker never count. A real kernel
 * complaint logged by something else at the same moment would also be
 * counted; the message printed then says which line it was.
 */
TEST_F(kmsg, scan_counts_only_lines_after_the_mark)
{
	struct iop_kmsg_mark m1, m2;
	char first[256];
	int ret;

	if (self->skip[0])
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, iop_kmsg_mark(&m1, "kmsg_test"));
	EXPECT_EQ(0, strncmp(m1.text, "iopath: kmsg_test ", 18));

	ret = iop_kmsg_scan(&m1, first, sizeof(first));
	EXPECT_EQ(0, ret) {
		TH_LOG("kernel log not clean right after the mark: \"%s\"", first);
	}

	ASSERT_EQ(0, kmsg_write("<4>" CONTROL_TEXT "\n"));
	/* A line from userspace never fails anyone's test by default... */
	ret = iop_kmsg_scan(&m1, first, sizeof(first));
	EXPECT_EQ(0, ret) {
		TH_LOG("userspace line counted as a kernel one: \"%s\"", first);
	}
	/* ...but the scan does see it when asked to. */
	m1.include_user = true;
	ret = iop_kmsg_scan(&m1, first, sizeof(first));
	EXPECT_EQ(1, ret);
	EXPECT_STREQ(CONTROL_TEXT, first);

	ASSERT_EQ(0, iop_kmsg_mark(&m2, "kmsg_test"));
	m2.include_user = true;
	EXPECT_LT(m1.seq, m2.seq);
	EXPECT_STRNE(m1.text, m2.text);
	ret = iop_kmsg_scan(&m2, first, sizeof(first));
	EXPECT_EQ(0, ret) {
		TH_LOG("line before the mark counted: \"%s\"", first);
	}
}

/* Marker text /dev/kmsg would escape is made plain, so the mark is found. */
TEST_F(kmsg, mark_with_odd_name_is_found)
{
	struct iop_kmsg_mark m;

	if (self->skip[0])
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, iop_kmsg_mark(&m, "tab\there\\back\nslash"));
	EXPECT_EQ(NULL, strchr(m.text, '\t'));
	EXPECT_EQ(NULL, strchr(m.text, '\\'));
	EXPECT_LT(0, m.seq);
	ASSERT_EQ(0, iop_kmsg_mark(&m, NULL));
	EXPECT_EQ(0, strncmp(m.text, "iopath: mark ", 13));
}

/*
 * A log device that accepts the marker and drops it (printk_devkmsg=off
 * does that to /dev/kmsg; /dev/null stands for it here): the mark must
 * fail, so that the post-test check reports itself as not done instead of
 * scanning nothing.
 */
TEST_F(kmsg, dropped_marker_is_an_error)
{
	struct iop_kmsg_mark m;
	int ret;

	ASSERT_EQ(0, setenv("IOPATH_KMSG_DEV", "/dev/null", 1));
	ret = iop_kmsg_mark(&m, "dropped");
	unsetenv("IOPATH_KMSG_DEV");
	EXPECT_EQ(-ENOENT, ret);
}

/* Every family of the shared list (lib/kmsg_patterns.h) is recognised. */
TEST_F(kmsg, classifier_knows_panic_and_word_starts)
{
	EXPECT_EQ(1, iop_kmsg_line_is_bad("Kernel panic - not syncing: Fatal exception"));
	EXPECT_EQ(0, iop_kmsg_line_is_bad("Whoops, nothing to see"));
	EXPECT_EQ(1, iop_kmsg_line_is_bad("UBSAN: shift-out-of-bounds in fs/iomap/iter.c:42"));
}

TEST_HARNESS_MAIN
