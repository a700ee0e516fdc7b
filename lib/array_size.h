/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The number of elements of an array, as the kernel's <linux/array_size.h>
 * and the kselftest harness spell it (either may have defined it first).
 */
#ifndef IOPATH_ARRAY_SIZE_H
#define IOPATH_ARRAY_SIZE_H

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#endif
