/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPU and memory placement (libnuma and sched_setaffinity), the way numactl
 * --physcpubind/--membind does it but per thread, and read back afterwards so
 * a result can say where it really ran.
 */
#ifndef IOPATH_PLACE_H
#define IOPATH_PLACE_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

/* "0-3,5,7-8" -> set. -EINVAL names nothing; -ERANGE for CPU >= CPU_SETSIZE. */
int iop_cpulist_parse(const char *s, cpu_set_t *set);
/* set -> "0-3,5" into buf; -ENOSPC if it does not fit. */
int iop_cpulist_format(const cpu_set_t *set, char *buf, size_t len);

/*
 * Pin the calling thread to @cpu and, if @bind_mem, bind its future
 * allocations to that CPU's NUMA node (strict). -EINVAL for an offline CPU
 * or one outside the allowed set.
 */
int iop_pin_self(int cpu, bool bind_mem);

struct iop_placement {
	char cpus[256];		/* effective affinity of the calling thread */
	char mems[256];		/* effective memory-bind nodes, "" if no policy */
	int node;		/* NUMA node of the CPU it is running on now */
	int cpu;		/* sched_getcpu() */
};

int iop_placement_read(struct iop_placement *p);

/* NUMA node of a block device ("nvme0n1" or "/dev/nvme0n1"); -1 if none. */
int iop_blockdev_node(const char *dev);

#endif
