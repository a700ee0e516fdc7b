/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The model of content_model_test.c: a file's bytes in memory and the
 * operations that change them (writes, truncates, fallocate modes,
 * clones), the fill pattern that marks stale data and the fill of a
 * fresh filesystem's free space with it, and the random stream of a run.
 */
#ifndef CONTENT_MODEL_H
#define CONTENT_MODEL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array_size.h"
#include "iomap_layout.h"

#define FILL_CHUNK	(1u << 20)
#define MAX_REQ		IOP_K(64)	/* one read or write */

static const char fill_pattern[8] = { 'i', 'o', 'p', 'S', 'T', 'A', 'L', 'E' };

/* A file under test and its model; bytes past size are zero in the model. */
struct mfile {
	int fd;			/* buffered */
	int dfd;		/* O_DIRECT */
	uint64_t size;
	uint64_t cap;
	uint8_t *m;
	char name[24];
};

/* splitmix64: the one random stream of a run, from its seed. */
static inline uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t rnd_below(uint64_t *s, uint64_t n)
{
	return n ? rnd(s) % n : 0;
}

static inline void fill_with_pattern(uint8_t *p, uint64_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)fill_pattern[(off + i) % sizeof(fill_pattern)];
}

/* Do the 8 bytes around file offset @o in @got (holding [off, off+len)) show the fill? */
static inline bool looks_stale(const uint8_t *got, uint64_t off, size_t len, uint64_t o)
{
	uint64_t a = o & ~7ull, i;

	if (a < off || a + 8 > off + len)
		return false;
	for (i = a; i < a + 8; i++)
		if (got[i - off] != (uint8_t)fill_pattern[i % sizeof(fill_pattern)])
			return false;
	return true;
}

/*
 * Files of @per_file bytes of the pattern, written @chunk at a time, from
 * *@nfiles on, until ENOSPC. 0 or -errno.
 */
static inline int fill_files(int dirfd, const uint8_t *buf, size_t chunk, uint64_t per_file,
			     unsigned int *nfiles)
{
	char name[32];
	uint64_t done;
	int fd, ret = 0;
	ssize_t n;

	for (;;) {
		snprintf(name, sizeof(name), "fill%05u", *nfiles);
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return errno == ENOSPC ? 0 : -errno;
		(*nfiles)++;
		for (done = 0; done < per_file; done += (uint64_t)n) {
			n = write(fd, buf, chunk);
			if (n <= 0)
				break;
		}
		if (n < 0 && errno != ENOSPC)
			ret = -errno;
		if (fsync(fd) && !ret && errno != ENOSPC)
			ret = -errno;
		close(fd);
		if (ret || n <= 0)
			return ret;
	}
}

/*
 * Fill the free space with the pattern: large files until ENOSPC, then
 * small ones (a few blocks: ext4 serves those from its per-CPU group
 * preallocations, which large files never reach) until ENOSPC again;
 * delete them and commit the frees (freed blocks are reused only after
 * the transaction that freed them is on disk).
 */
static inline int fill_free_space(int dirfd, char *why, size_t wlen)
{
	uint8_t *buf = iop_alloc_aligned(FILL_CHUNK);
	unsigned int nfiles = 0, i;
	char name[32];
	int ret;

	if (!buf)
		return -ENOMEM;
	fill_with_pattern(buf, 0, FILL_CHUNK);
	ret = fill_files(dirfd, buf, FILL_CHUNK, 16u << 20, &nfiles);
	if (!ret)
		ret = fill_files(dirfd, buf, IOP_K(16), IOP_K(16), &nfiles);
	for (i = 0; i < nfiles; i++) {
		snprintf(name, sizeof(name), "fill%05u", i);
		if (unlinkat(dirfd, name, 0) && !ret)
			ret = -errno;
	}
	if (!ret && syncfs(dirfd))
		ret = -errno;
	free(buf);
	if (ret)
		snprintf(why, wlen, "fill: %s", strerror(-ret));
	return ret;
}

static inline void model_write(struct mfile *f, const uint8_t *src, uint64_t off, uint64_t len)
{
	memcpy(f->m + off, src, len);
	if (off + len > f->size)
		f->size = off + len;
}

static inline void model_zero(struct mfile *f, uint64_t off, uint64_t len)
{
	uint64_t end = off + len < f->size ? off + len : f->size;

	if (off < end)
		memset(f->m + off, 0, end - off);
}

static inline void model_truncate(struct mfile *f, uint64_t size)
{
	if (size < f->size)
		memset(f->m + size, 0, f->size - size);
	f->size = size;
}

static inline int do_falloc(struct mfile *f, int mode, uint64_t off, uint64_t len)
{
	if (fallocate(f->fd, mode, (off_t)off, (off_t)len))
		return -errno;
	if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
		model_zero(f, off, len);
	if (mode & FALLOC_FL_COLLAPSE_RANGE) {
		memmove(f->m + off, f->m + off + len, f->size - off - len);
		model_truncate(f, f->size - len);
	} else if (mode & FALLOC_FL_INSERT_RANGE) {
		memmove(f->m + off + len, f->m + off, f->size - off);
		memset(f->m + off, 0, len);
		f->size += len;
	} else if (!(mode & FALLOC_FL_KEEP_SIZE) && off + len > f->size) {
		f->size = off + len;
	}
	return 0;
}

static inline int do_clone(struct mfile *dst, const struct mfile *src, uint64_t soff,
			   uint64_t len, uint64_t doff)
{
	int ret = iop_clone_range(dst->fd, src->fd, soff, len, doff);

	if (!ret)
		model_write(dst, src->m + soff, doff, len);
	return ret;
}

static inline void mfile_close(struct mfile *f)
{
	IOP_CLOSE_FDS(f->fd, f->dfd);
	f->fd = -1;
	f->dfd = -1;
}

static inline void free_files(struct mfile *fs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		mfile_close(&fs[i]);
		free(fs[i].m);
	}
	free(fs);
}

/* A range inside [0, @cap): lengths from a byte to MAX_REQ, small ones often. */
static inline void pick_range(uint64_t *rs, uint64_t cap, uint64_t *off, uint64_t *len)
{
	static const uint64_t most[] = { 512, 4096, IOP_K(16), MAX_REQ };
	uint64_t m = most[rnd_below(rs, ARRAY_SIZE(most))];

	*off = rnd_below(rs, cap);
	if (m > cap - *off)
		m = cap - *off;
	*len = 1 + rnd_below(rs, m);
}

/* Whole blocks: [@off, @off+@len) inside [0, @end), @len >= one block; false if none. */
static inline bool pick_blocks(uint64_t *rs, uint64_t B, uint64_t end, uint64_t *off, uint64_t *len)
{
	uint64_t nb = end / B;

	if (nb < 2)
		return false;
	*off = rnd_below(rs, nb - 1) * B;
	*len = (1 + rnd_below(rs, (nb - *off / B - 1 < 16 ? nb - *off / B - 1 : 16))) * B;
	return true;
}

#endif
