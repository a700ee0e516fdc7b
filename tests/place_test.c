// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lib/place.c: CPU lists in the kernel's cpulist syntax, pinning that the
 * scheduler honours, and a read-back that reports where the thread really
 * runs. Catches lenient parsers that turn "1-" or "3-1" into some CPU set
 * (a benchmark then runs unpinned and says it was pinned), ranges merged
 * wrongly when formatting, pinning the whole process instead of the thread,
 * and a read-back that echoes the request instead of asking the kernel.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dirent.h>
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "place.h"

FIXTURE(place) {
	cpu_set_t orig;		/* affinity to restore */
};

FIXTURE_SETUP(place)
{
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(self->orig), &self->orig));
}

FIXTURE_TEARDOWN(place)
{
	sched_setaffinity(0, sizeof(self->orig), &self->orig);
	set_mempolicy(MPOL_DEFAULT, NULL, 0);
}

static const struct {
	const char *in;
	const char *out;
} good_lists[] = {
	{ "0", "0" },
	{ "0-3,5", "0-3,5" },
	{ "1,3,5-7", "1,3,5-7" },
	{ " 0 - 3 , 5 \n", "0-3,5" },		/* sysfs files end in a newline */
	{ "0,1,2,3", "0-3" },
	{ "5,3", "3,5" },
	{ "0-3,2-5", "0-5" },
	{ "7-7", "7" },
	{ "1023", "1023" },			/* CPU_SETSIZE - 1 */
	{ "0-1023", "0-1023" },
	{ "00012", "12" },
};

TEST_F(place, cpulist_parse_format_round_trip)
{
	cpu_set_t set, again;
	char buf[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good_lists); i++) {
		ASSERT_EQ(0, iop_cpulist_parse(good_lists[i].in, &set)) {
			TH_LOG("\"%s\"", good_lists[i].in);
		}
		ASSERT_EQ(0, iop_cpulist_format(&set, buf, sizeof(buf)));
		EXPECT_STREQ(good_lists[i].out, buf);
		/* The formatted list parses back to the same set. */
		ASSERT_EQ(0, iop_cpulist_parse(buf, &again));
		EXPECT_TRUE(CPU_EQUAL(&set, &again));
	}
}

TEST_F(place, cpulist_parse_sets_exactly_the_listed_cpus)
{
	cpu_set_t set;

	ASSERT_EQ(0, iop_cpulist_parse("1,4-6", &set));
	EXPECT_EQ(4, CPU_COUNT(&set));
	EXPECT_FALSE(CPU_ISSET(0, &set));
	EXPECT_TRUE(CPU_ISSET(1, &set));
	EXPECT_FALSE(CPU_ISSET(3, &set));
	EXPECT_TRUE(CPU_ISSET(4, &set));
	EXPECT_TRUE(CPU_ISSET(6, &set));
	EXPECT_FALSE(CPU_ISSET(7, &set));
}

static const struct {
	const char *in;
	int err;
} bad_lists[] = {
	{ "", -EINVAL },
	{ "   ", -EINVAL },
	{ "1-", -EINVAL },
	{ "-1", -EINVAL },
	{ "a", -EINVAL },
	{ "3-1", -EINVAL },
	{ "1,,2", -EINVAL },
	{ ",1", -EINVAL },
	{ "1,", -EINVAL },
	{ "1-2-3", -EINVAL },
	{ "0x1", -EINVAL },
	{ "1 2", -EINVAL },
	{ "1;2", -EINVAL },
	{ "+1", -EINVAL },
	{ "99999", -ERANGE },
	{ "1024", -ERANGE },
	{ "0-1024", -ERANGE },
	{ "18446744073709551617", -ERANGE },	/* 2^64 + 1 must not wrap */
};

TEST_F(place, cpulist_bad_input_refused_set_untouched)
{
	cpu_set_t set, before;
	size_t i;

	CPU_ZERO(&set);
	CPU_SET(2, &set);
	before = set;
	for (i = 0; i < ARRAY_SIZE(bad_lists); i++) {
		EXPECT_EQ(bad_lists[i].err, iop_cpulist_parse(bad_lists[i].in, &set)) {
			TH_LOG("\"%s\"", bad_lists[i].in);
		}
		EXPECT_TRUE(CPU_EQUAL(&set, &before)) {
			TH_LOG("\"%s\" changed the set", bad_lists[i].in);
		}
	}
	EXPECT_EQ(-EINVAL, iop_cpulist_parse(NULL, &set));
}

TEST_F(place, cpulist_format_refuses_short_buffer)
{
	cpu_set_t set;
	char buf[8];

	ASSERT_EQ(0, iop_cpulist_parse("0,2,4,6,8", &set));
	EXPECT_EQ(-ENOSPC, iop_cpulist_format(&set, buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
	/* "0,2,4,6" plus its NUL is exactly 8 bytes. */
	ASSERT_EQ(0, iop_cpulist_parse("0,2,4,6", &set));
	EXPECT_EQ(0, iop_cpulist_format(&set, buf, sizeof(buf)));
	EXPECT_STREQ("0,2,4,6", buf);
	CPU_ZERO(&set);
	EXPECT_EQ(0, iop_cpulist_format(&set, buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
}

/*
 * Every CPU this process may use: pin, check with the scheduler itself
 * (sched_getcpu, and a yield so a migration has happened if it was going
 * to), and check the read-back.
 */
TEST_F(place, pin_to_each_allowed_cpu_and_read_back)
{
	struct iop_placement p;
	char want[16];
	int cpu, pinned = 0, node;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &self->orig))
			continue;
		ASSERT_EQ(0, iop_pin_self(cpu, true)) {
			TH_LOG("cpu %d", cpu);
		}
		sched_yield();
		EXPECT_EQ(cpu, sched_getcpu());
		ASSERT_EQ(0, iop_placement_read(&p));
		snprintf(want, sizeof(want), "%d", cpu);
		EXPECT_STREQ(want, p.cpus);
		EXPECT_EQ(cpu, p.cpu);
		if (numa_available() >= 0) {
			node = numa_node_of_cpu(cpu);
			EXPECT_EQ(node, p.node);
			snprintf(want, sizeof(want), "%d", node);
			EXPECT_STREQ(want, p.mems);
		} else {
			EXPECT_EQ(-1, p.node);
		}
		pinned++;
	}
	EXPECT_LE(1, pinned);
}

/* The read-back reports the kernel's view, also for a wider set. */
TEST_F(place, read_back_reports_real_affinity)
{
	struct iop_placement p;
	char want[256];

	ASSERT_EQ(0, iop_placement_read(&p));
	ASSERT_EQ(0, iop_cpulist_format(&self->orig, want, sizeof(want)));
	EXPECT_STREQ(want, p.cpus);
	EXPECT_TRUE(CPU_ISSET(p.cpu, &self->orig));
	/* Pinned without binding memory: no memory policy to report. */
	ASSERT_EQ(0, iop_pin_self(p.cpu, false));
	ASSERT_EQ(0, iop_placement_read(&p));
	EXPECT_STREQ("", p.mems);
}

static void *pin_in_thread(void *arg)
{
	long ret = iop_pin_self(*(int *)arg, false);

	return (void *)ret;
}

/* Pinning is per thread: another thread's pin leaves this one alone. */
TEST_F(place, pin_affects_only_the_calling_thread)
{
	cpu_set_t now;
	pthread_t t;
	void *ret;
	int cpu;

	for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &self->orig); cpu++)
		;
	ASSERT_EQ(0, pthread_create(&t, NULL, pin_in_thread, &cpu));
	ASSERT_EQ(0, pthread_join(t, &ret));
	ASSERT_EQ(0, (long)ret);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(now), &now));
	EXPECT_TRUE(CPU_EQUAL(&now, &self->orig));
}

TEST_F(place, pin_to_impossible_cpu_refused)
{
	cpu_set_t now;

	EXPECT_EQ(-EINVAL, iop_pin_self(-1, false));
	EXPECT_EQ(-EINVAL, iop_pin_self(CPU_SETSIZE, false));
	/* CPU 1023 is not online on any machine this runs on. */
	EXPECT_EQ(-EINVAL, iop_pin_self(CPU_SETSIZE - 1, true));
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(now), &now));
	EXPECT_TRUE(CPU_EQUAL(&now, &self->orig));
}

TEST_F(place, blockdev_node_absent_is_minus_one)
{
	EXPECT_EQ(-1, iop_blockdev_node("iopath-no-such-disk"));
	EXPECT_EQ(-1, iop_blockdev_node("/dev/iopath-no-such-disk"));
	EXPECT_EQ(-1, iop_blockdev_node(""));
	EXPECT_EQ(-1, iop_blockdev_node(NULL));
	EXPECT_EQ(-1, iop_blockdev_node("/dev/"));
	EXPECT_EQ(-1, iop_blockdev_node(".."));
}

/*
 * Every block device here gives a node the machine has, or -1; devices
 * without a bus device (loop, zram) give -1.
 */
TEST_F(place, blockdev_node_of_present_devices_is_plausible)
{
	int node, max = numa_available() >= 0 ? numa_max_node() : 0;
	struct dirent *d;
	DIR *dir;

	dir = opendir("/sys/class/block");
	if (!dir)
		SKIP(return, "no /sys/class/block");
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		node = iop_blockdev_node(d->d_name);
		EXPECT_LE(-1, node);
		EXPECT_GE(max, node);
		if (!strncmp(d->d_name, "loop", 4) || !strncmp(d->d_name, "zram", 4))
			EXPECT_EQ(-1, node);
	}
	closedir(dir);
}

TEST_HARNESS_MAIN
