/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SHA-256 (FIPS 180-4), for naming what was tested by its content: a
 * kernel image, a config, a run's input. No library of the project's
 * dependencies has it, and it is short.
 */
#ifndef IOPATH_SHA256_H
#define IOPATH_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct iop_sha256 {
	uint32_t h[8];
	uint64_t bytes;
	unsigned char buf[64];
	size_t fill;
};

void iop_sha256_init(struct iop_sha256 *c);
void iop_sha256_update(struct iop_sha256 *c, const void *data, size_t len);
/* The digest as 64 lower-case hex digits and a NUL. */
void iop_sha256_hex(struct iop_sha256 *c, char hex[65]);

/*
 * The SHA-256 of a regular file (a FIFO or a device is refused: -EINVAL),
 * read in blocks. 0, or -errno with "<path>: <what>" in @why.
 */
int iop_sha256_file(const char *path, char hex[65], char *why, size_t len);

#endif
