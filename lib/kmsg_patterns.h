/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel log lines that are a sign of a kernel bug: the one list, read
 * by lib/kmsg.c (each test's own window of /dev/kmsg) and, as text, by
 * scripts/vm.sh (the guest's whole console log). One entry per line:
 *   IOP_KMSG_ANYWHERE("text")   the text anywhere in the line
 *   IOP_KMSG_WORD("text")       the text at a word start, so that
 *                               "DEBUG: x" or "Whoops" are not reports
 *   IOP_KMSG_LINE_START("text") the text at the start of the line
 * What fstests' _check_dmesg and the kernel's own selftests look for, plus
 * the hung-task detector (I/O that never completes) and KASAN/kmemleak
 * reports for kernels built with them. No quotes or backslashes inside.
 */
IOP_KMSG_ANYWHERE("WARNING:")			/* WARN_ON(), lockdep headers */
IOP_KMSG_ANYWHERE("kernel BUG at")		/* BUG_ON() */
IOP_KMSG_ANYWHERE("general protection fault")
IOP_KMSG_ANYWHERE("Internal error:")		/* arm/arm64 oops */
IOP_KMSG_ANYWHERE("UBSAN:")
IOP_KMSG_ANYWHERE("KASAN:")
IOP_KMSG_ANYWHERE("possible recursive locking")
IOP_KMSG_ANYWHERE("possible circular locking")
IOP_KMSG_ANYWHERE("inconsistent lock state")
IOP_KMSG_ANYWHERE("suspicious RCU usage")
IOP_KMSG_ANYWHERE("INFO: rcu")			/* rcu_sched/rcu_preempt stalls */
IOP_KMSG_ANYWHERE("rcu_sched self-detected stall")
IOP_KMSG_ANYWHERE("blocked for more than")	/* hung task: an I/O never completed */
IOP_KMSG_ANYWHERE("Busy inodes")		/* "Busy inodes after unmount" */
IOP_KMSG_ANYWHERE("list_add corruption")
IOP_KMSG_ANYWHERE("list_del corruption")
IOP_KMSG_ANYWHERE("unreferenced object")	/* kmemleak report */
IOP_KMSG_ANYWHERE("suspected memory leak")	/* kmemleak scan summary */
IOP_KMSG_ANYWHERE("Kernel panic - not syncing")
IOP_KMSG_WORD("BUG:")				/* BUG: unable to handle page fault ... */
IOP_KMSG_WORD("Oops")
IOP_KMSG_LINE_START("BUG ")			/* SLUB: "BUG kmalloc-64 (Not tainted): ..." */
