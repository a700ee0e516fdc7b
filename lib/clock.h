/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOPATH_CLOCK_H
#define IOPATH_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds: cheap (vDSO) and never steps backwards. */
static inline uint64_t iop_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
