// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CPU and memory placement (see place.h): CPU list syntax as in
 * /sys/devices/system/cpu/online and taskset -c, per-thread pinning with
 * sched_setaffinity(2) and memory binding with libnuma, and a read-back of
 * where the thread really is, so that a record reports the effective
 * placement rather than the requested one.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "place.h"

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/*
 * One decimal CPU number. Distinguishes "not a number" (-EINVAL) from a
 * number the cpu_set_t cannot hold (-ERANGE).
 */
static int parse_cpu(const char **sp, int *cpu)
{
	const char *s = skip_space(*sp);
	unsigned long v = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (*s - '0');
		if (v >= CPU_SETSIZE)
			v = CPU_SETSIZE;	/* saturate, keep scanning */
		s++;
	}
	*sp = skip_space(s);
	if (v >= CPU_SETSIZE)
		return -ERANGE;
	*cpu = (int)v;
	return 0;
}

int iop_cpulist_parse(const char *s, cpu_set_t *set)
{
	cpu_set_t tmp;
	int lo, hi, ret, c;

	if (!s || !set)
		return -EINVAL;
	CPU_ZERO(&tmp);
	s = skip_space(s);
	if (!*s)
		return -EINVAL;
	for (;;) {
		ret = parse_cpu(&s, &lo);
		if (ret)
			return ret;
		hi = lo;
		if (*s == '-') {
			s++;
			ret = parse_cpu(&s, &hi);
			if (ret)
				return ret;
			if (hi < lo)
				return -EINVAL;
		}
		for (c = lo; c <= hi; c++)
			CPU_SET(c, &tmp);
		if (!*s)
			break;
		if (*s != ',')
			return -EINVAL;
		s++;
	}
	/* The caller's set changes only on success. */
	*set = tmp;
	return 0;
}

int iop_cpulist_format(const cpu_set_t *set, char *buf, size_t len)
{
	size_t off = 0;
	int c, end, n;

	if (!buf || !len)
		return -ENOSPC;
	buf[0] = '\0';
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		end = c;
		while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, set))
			end++;
		if (end == c)
			n = snprintf(buf + off, len - off, "%s%d", off ? "," : "", c);
		else
			n = snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", c, end);
		if (n < 0 || (size_t)n >= len - off) {
			buf[0] = '\0';
			return -ENOSPC;
		}
		off += n;
		c = end;
	}
	return 0;
}

int iop_pin_self(int cpu, bool bind_mem)
{
	struct bitmask *nodes;
	cpu_set_t set;
	int node, ret;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -EINVAL;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* pid 0 is the calling thread, not the whole process. */
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;	/* EINVAL: offline or outside the cpuset */

	/*
	 * Without NUMA support in the kernel there is one memory node and
	 * nothing to bind; the placement read-back reports mems "".
	 */
	if (!bind_mem || numa_available() < 0)
		return 0;
	node = numa_node_of_cpu(cpu);
	if (node < 0)
		return -EINVAL;
	nodes = numa_allocate_nodemask();
	if (!nodes)
		return -ENOMEM;
	numa_bitmask_setbit(nodes, node);
	/*
	 * What numa_set_membind() does with strict binding (MPOL_BIND, no
	 * fallback to other nodes), called directly because libnuma reports
	 * its failure by printing rather than through errno.
	 */
	ret = set_mempolicy(MPOL_BIND, nodes->maskp, nodes->size + 1) ? -errno : 0;
	numa_bitmask_free(nodes);
	return ret;
}

static int bitmask_format(struct bitmask *bm, char *buf, size_t len)
{
	cpu_set_t set;
	unsigned int i;

	CPU_ZERO(&set);
	for (i = 0; i < bm->size && i < CPU_SETSIZE; i++)
		if (numa_bitmask_isbitset(bm, i))
			CPU_SET(i, &set);
	return iop_cpulist_format(&set, buf, len);
}

/*
 * The thread's memory policy as a node list: "" for the default (local
 * allocation, no policy) and for MPOL_LOCAL, else the policy's nodes.
 */
static int mems_read(char *buf, size_t len)
{
	struct bitmask *nodes;
	int mode, ret;

	buf[0] = '\0';
	nodes = numa_allocate_nodemask();
	if (!nodes)
		return -ENOMEM;
	if (get_mempolicy(&mode, nodes->maskp, nodes->size + 1, NULL, 0)) {
		ret = -errno;
		goto out_free;
	}
	/* The mode flags (static/relative nodes, balancing) sit above bit 8. */
	mode &= 0xff;
	ret = 0;
	if (mode != MPOL_DEFAULT && mode != MPOL_LOCAL)
		ret = bitmask_format(nodes, buf, len);
out_free:
	numa_bitmask_free(nodes);
	return ret;
}

int iop_placement_read(struct iop_placement *p)
{
	cpu_set_t set;
	int ret;

	memset(p, 0, sizeof(*p));
	p->node = -1;
	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	ret = iop_cpulist_format(&set, p->cpus, sizeof(p->cpus));
	if (ret)
		return ret;
	p->cpu = sched_getcpu();
	if (p->cpu < 0)
		return -errno;
	if (numa_available() < 0)
		return 0;
	p->node = numa_node_of_cpu(p->cpu);
	return mems_read(p->mems, sizeof(p->mems));
}

static int read_int_file(const char *path, int *val)
{
	char buf[32];
	ssize_t n;
	char *end;
	long v;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -ENODATA;
	buf[n] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || v < INT_MIN || v > INT_MAX)
		return -EINVAL;
	*val = (int)v;
	return 0;
}

int iop_blockdev_node(const char *dev)
{
	char path[PATH_MAX], *real, *slash;
	const char *name, *disk;
	int node = -1;

	if (!dev || !*dev)
		return -1;
	name = strrchr(dev, '/');
	name = name ? name + 1 : dev;
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return -1;

	/*
	 * A partition has no device/ of its own; its sysfs directory sits
	 * inside the parent disk's, so the disk is "..".
	 */
	snprintf(path, sizeof(path), "/sys/class/block/%s/partition", name);
	disk = access(path, F_OK) ? "" : "/..";
	snprintf(path, sizeof(path), "/sys/class/block/%s%s/device", name, disk);
	/* Devices without a bus (zram, loop, dm) have no device/: no node. */
	real = realpath(path, NULL);
	if (!real)
		return -1;

	/*
	 * The node belongs to the bus device the disk hangs off, which is
	 * device/ itself for SCSI, its parent for virtio (virtioN under the
	 * PCI function) and NVMe (the controller under the PCI function).
	 * Walk up to the first ancestor that knows its node.
	 */
	while (strlen(real) > strlen("/sys/devices")) {
		snprintf(path, sizeof(path), "%s/numa_node", real);
		if (!read_int_file(path, &node))
			break;
		slash = strrchr(real, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	free(real);
	return node < 0 ? -1 : node;
}
