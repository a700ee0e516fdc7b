/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libiopath: what the selftests, the benchmarks and the iopath command share.
 *
 * Conventions: functions return 0 or a positive count on success and -errno
 * on failure; none of them prints, exits or installs signal handlers on its
 * own (the caller decides what a failure means). Where a failure needs more
 * words than an errno, the function takes a char *why buffer.
 *
 * This header is what a selftest sees: it needs libc alone. Records
 * (record.h, jansson), statistics (stats.h, GSL) and CPU and memory
 * placement (place.h, libnuma) belong to the benchmarks and the command,
 * which include them themselves.
 */
#ifndef IOPATH_H
#define IOPATH_H

#include "array_size.h"
#include "clock.h"
#include "scratch.h"
#include "input.h"
#include "number.h"
#include "quote.h"
#include "outfile.h"
#include "tracefs.h"
#include "kmsg.h"

#define IOPATH_VERSION "0.1"

#endif
