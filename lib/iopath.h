/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libiopath: what the selftests, the benchmarks and the iopath command share.
 *
 * Conventions: functions return 0 or a positive count on success and -errno
 * on failure; none of them prints, exits or installs signal handlers on its
 * own (the caller decides what a failure means). Where a failure needs more
 * words than an errno, the function takes a char *why buffer.
 */
#ifndef IOPATH_H
#define IOPATH_H

#include "clock.h"
#include "stats.h"
#include "place.h"
#include "scratch.h"
#include "record.h"
#include "input.h"
#include "outfile.h"
#include "tracefs.h"
#include "kmsg.h"

#define IOPATH_VERSION "0.1"

#endif
