/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The write methods of the content model, shared by content_write_test.c
 * and crash_oracle_test.c: every way a byte reaches a file, each with
 * where the model says it lands, and the comparison of a file with its
 * model.
 *
 * Methods: write, pwrite, writev with 1, 2 and many segments (zero-length
 * ones among them), pwritev2 with RWF_APPEND, RWF_NOAPPEND (on a file
 * opened O_APPEND), RWF_DSYNC, RWF_SYNC and RWF_NOWAIT, files opened
 * O_APPEND, O_DSYNC and O_SYNC, io_uring WRITE, WRITEV, WRITE_FIXED (at an
 * offset inside the registered buffer) and WRITE at the file position,
 * splice from a pipe in two or three calls that split pipe buffers,
 * sendfile and copy_file_range from a file on the same filesystem and
 * from a memfd (another filesystem), and stores through a shared mapping.
 * Positions: O_APPEND and RWF_APPEND land at EOF whatever the offset asked
 * for (and RWF_APPEND leaves the file position alone); RWF_NOAPPEND lands
 * at the offset; the methods that write at the file position move it by
 * the count.
 */
#ifndef CONTENT_WRITE_H
#define CONTENT_WRITE_H

#include <inttypes.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#ifdef HAVE_LIBURING
#include <liburing.h>
#include "uring_helpers.h"
#endif

#include "content_model.h"

#ifndef RWF_NOAPPEND
#define RWF_NOAPPEND	0x00000020
#endif

#define SRC_LEN		IOP_K(256)		/* the sources of sendfile and copy_file_range */
#define FIXED_LEN	(MAX_REQ + IOP_K(64))	/* the registered buffer */
#define MANY_SEGS	9

enum wmethod {
	W_WRITE, W_PWRITE, W_WRITEV1, W_WRITEV2, W_WRITEVN, W_RWF_APPEND, W_RWF_NOAPPEND,
	W_RWF_DSYNC, W_RWF_SYNC, W_RWF_NOWAIT, W_O_APPEND, W_O_DSYNC, W_O_SYNC, W_URING,
	W_URINGV, W_FIXED, W_URING_POS, W_SPLICE, W_SENDFILE, W_SENDFILE_X, W_COPY, W_COPY_X,
	W_MMAP, W_NR
};

static const char *const wname[W_NR] = {
	"write", "pwrite", "writev(1)", "writev(2)", "writev(many, zero-length among them)",
	"pwritev2 RWF_APPEND", "pwritev2 RWF_NOAPPEND on O_APPEND", "pwritev2 RWF_DSYNC",
	"pwritev2 RWF_SYNC", "pwritev2 RWF_NOWAIT", "write on O_APPEND", "pwrite on O_DSYNC",
	"pwrite on O_SYNC", "io_uring WRITE", "io_uring WRITEV(2)", "io_uring WRITE_FIXED",
	"io_uring WRITE at the file position", "splice from a pipe in parts",
	"sendfile (same filesystem)", "sendfile (from a memfd)",
	"copy_file_range (same filesystem)", "copy_file_range (from a memfd)", "mmap store",
};

/* What the write methods need; the test owns and sets it up. */
struct wctx {
	int dirfd;
	int pipe[2];
	int src;		/* SRC_LEN bytes on the filesystem under test */
	int msrc;		/* the same bytes in a memfd */
	uint8_t *srcm;		/* those bytes */
	uint8_t *wbuf;		/* MAX_REQ */
	uint8_t *rbuf;		/* MAX_REQ */
	uint8_t *fixed;		/* FIXED_LEN, registered with the ring */
	unsigned int dio;	/* direct I/O offset, length and memory alignment */
	bool noappend;		/* the kernel has RWF_NOAPPEND */
	bool nowait_buffered;	/* the filesystem takes buffered RWF_NOWAIT writes */
	bool ring_up;
	unsigned int fallbacks;	/* RWF_NOWAIT writes refused or cut short, then finished plain */
	unsigned int exdev;	/* cross-filesystem copies refused with EXDEV */
#ifdef HAVE_LIBURING
	struct io_uring ring;
#endif
	char why[384];
};

/* Can @m write @direct? (the probes decide the kernel's and filesystem's part) */
static inline bool wm_runs(const struct wctx *c, enum wmethod m, bool direct)
{
	if (m == W_MMAP)
		return !direct;
	if (m == W_RWF_NOAPPEND && !c->noappend)
		return false;
	if (m == W_RWF_NOWAIT && !direct && !c->nowait_buffered)
		return false;
	/*
	 * io_uring at the file position, direct: a write that completes
	 * asynchronously leaves the file position where it was (6.18:
	 * kiocb_done() moves it only for inline completions), so the
	 * position the model checks is buffered I/O's.
	 */
	if (m == W_URING_POS && direct)
		return false;
	if (m == W_URING || m == W_URINGV || m == W_FIXED || m == W_URING_POS)
		return c->ring_up;
	return true;
}

/* Methods that write where the file position is (and move it). */
static inline bool wm_at_fpos(enum wmethod m)
{
	return m == W_WRITE || m == W_WRITEV1 || m == W_WRITEV2 || m == W_WRITEVN ||
	       m == W_O_APPEND || m == W_URING_POS || m == W_SENDFILE || m == W_SENDFILE_X;
}

static inline bool wm_appends(enum wmethod m)
{
	return m == W_RWF_APPEND || m == W_O_APPEND;
}

/* Segments of @len for writev: @n of them, zero-length ones among them, each on @al. */
static inline unsigned int wm_segments(struct iovec *iov, unsigned int n, uint8_t *buf,
				       uint64_t len, unsigned int al, unsigned int seed)
{
	uint64_t done = 0, piece;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (i == n - 1)
			piece = len - done;
		else if (n > 2 && (i % 3 == 1 || (i == 0 && seed % 2)))
			piece = 0;
		else
			piece = (len - done) / al / 2 * al;
		iov[i].iov_base = buf + done;
		iov[i].iov_len = piece;
		done += piece;
	}
	return n;
}

#ifdef HAVE_LIBURING
static inline ssize_t wm_ring(struct wctx *c, enum wmethod m, int fd, const uint8_t *buf,
			      uint64_t len, int64_t off)
{
	struct iovec iov[2] = {
		{ .iov_base = (void *)buf, .iov_len = len / 2 / c->dio * c->dio },
		{ .iov_base = (void *)(buf + len / 2 / c->dio * c->dio),
		  .iov_len = len - len / 2 / c->dio * c->dio },
	};
	struct io_uring_sqe *sqe;

	if (m == W_FIXED)
		return t_rw_fixed(&c->ring, fd, 0, true, (void *)buf, len, (uint64_t)off);
	sqe = io_uring_get_sqe(&c->ring);
	if (!sqe)
		return -EBUSY;
	if (m == W_URINGV)
		io_uring_prep_writev(sqe, fd, iov, 2, (uint64_t)off);
	else
		io_uring_prep_write(sqe, fd, buf, (unsigned int)len, (uint64_t)off);
	return t_submit_and_wait_one(&c->ring);
}
#endif

/*
 * splice @len bytes of @buf into @fd at @off through the pipe, in two or
 * three calls whose lengths split pipe buffers (on @al for direct I/O);
 * the last asks for a page more than the pipe still holds, and takes
 * what is there, as splice(2) does.
 */
static inline ssize_t wm_splice(struct wctx *c, int fd, const uint8_t *buf, uint64_t len,
				uint64_t off, unsigned int al, unsigned int seed)
{
	uint64_t done = 0, piece, cut1, cut2;
	loff_t o = (loff_t)off;
	ssize_t n;

	n = write(c->pipe[1], buf, len);
	if (n != (ssize_t)len)
		return n < 0 ? -errno : -EIO;
	cut1 = (1 + seed % 7) * (len / 8) / al * al;
	cut2 = cut1 + (len - cut1) / 2 / al * al;
	while (done < len) {
		piece = done < cut1 ? cut1 - done : done < cut2 ? cut2 - done : len - done + 4096;
		n = splice(c->pipe[0], NULL, fd, &o, piece, 0);
		if (n <= 0)
			break;
		done += (uint64_t)n;
	}
	if (done < len) {
		/* Drain what is left (the read end does not block), so the next starts empty. */
		while (read(c->pipe[0], c->rbuf, MAX_REQ) > 0)
			;
		return n < 0 ? -errno : (ssize_t)done;
	}
	return (ssize_t)done;
}

/*
 * The write itself: @len bytes of @buf (or, for sendfile and
 * copy_file_range, of the source at @soff) by @m on @fd (the file's own
 * descriptor, or one opened for the method) at @off; the count or -errno.
 */
static inline ssize_t wm_call(struct wctx *c, enum wmethod m, int fd, const uint8_t *buf,
			      uint64_t len, uint64_t off, uint64_t soff, bool direct,
			      unsigned int seed)
{
	unsigned int al = direct ? c->dio : 1;
	struct iovec iov[MANY_SEGS];
	loff_t so = (loff_t)soff, o = (loff_t)off;
	int sfd = m == W_SENDFILE_X || m == W_COPY_X ? c->msrc : c->src;
	uint64_t done;
	ssize_t n = 0;

	iov[0].iov_base = (void *)buf;
	iov[0].iov_len = len;
	if (wm_at_fpos(m) && lseek(fd, (off_t)off, SEEK_SET) < 0)
		return -errno;
	switch (m) {
	case W_WRITE:
	case W_O_APPEND:
		n = write(fd, buf, len);
		break;
	case W_WRITEV1:
		n = writev(fd, iov, 1);
		break;
	case W_WRITEV2:
		n = writev(fd, iov, (int)wm_segments(iov, 2, (uint8_t *)buf, len, al, seed));
		break;
	case W_WRITEVN:
		n = writev(fd, iov, (int)wm_segments(iov, MANY_SEGS, (uint8_t *)buf, len, al,
						     seed));
		break;
	case W_RWF_APPEND:
		n = pwritev2(fd, iov, 1, (off_t)off, RWF_APPEND);
		break;
	case W_RWF_NOAPPEND:
		n = pwritev2(fd, iov, 1, (off_t)off, RWF_NOAPPEND);
		break;
	case W_RWF_DSYNC:
	case W_RWF_SYNC:
		n = pwritev2(fd, iov, 1, (off_t)off, m == W_RWF_SYNC ? RWF_SYNC : RWF_DSYNC);
		break;
	case W_RWF_NOWAIT:
		/*
		 * What would block is refused (EAGAIN) or cut short: the rest
		 * goes as a plain write, as a caller of RWF_NOWAIT does.
		 */
		n = pwritev2(fd, iov, 1, (off_t)off, RWF_NOWAIT);
		if (n < 0 && errno == EAGAIN)
			n = 0;
		if (n >= 0 && (uint64_t)n < len) {
			c->fallbacks++;
			so = pwrite(fd, buf + n, len - (uint64_t)n, (off_t)(off + (uint64_t)n));
			n = so < 0 ? -1 : n + so;
		}
		break;
	case W_SPLICE:
		return wm_splice(c, fd, buf, len, off, al, seed);
	case W_SENDFILE:
	case W_SENDFILE_X:
	case W_COPY:
	case W_COPY_X:
		/*
		 * Both may copy less than asked (copy_file_range clones the
		 * whole blocks of a range and stops there): callers loop, as
		 * cp does, until the count or an error.
		 */
		for (done = 0; done < len; done += (uint64_t)n) {
			n = m == W_SENDFILE || m == W_SENDFILE_X ?
			    sendfile(fd, sfd, &so, len - done) :
			    copy_file_range(sfd, &so, fd, &o, len - done, 0);
			if (n <= 0)
				break;
		}
		if (done)
			return (ssize_t)done;
		break;
	case W_URING:
	case W_URINGV:
	case W_FIXED:
	case W_URING_POS:
#ifdef HAVE_LIBURING
		return wm_ring(c, m, fd, buf, len, m == W_URING_POS ? -1 : (int64_t)off);
#else
		return -EOPNOTSUPP;
#endif
	default:
		n = pwrite(fd, buf, len, (off_t)off);
		break;
	}
	return n < 0 ? -errno : n;
}

/* The descriptor @m writes through: the file's own, or one opened for it. */
static inline int wm_fd(struct wctx *c, const struct mfile *f, enum wmethod m, bool direct,
			bool *opened)
{
	int flags = O_WRONLY | O_CLOEXEC | (direct ? O_DIRECT : 0), fd;

	*opened = false;
	if (m == W_O_APPEND || m == W_RWF_NOAPPEND)
		flags |= O_APPEND;
	else if (m == W_O_DSYNC)
		flags |= O_DSYNC;
	else if (m == W_O_SYNC)
		flags |= O_SYNC;
	else
		return direct ? f->dfd : f->fd;
	fd = openat(c->dirfd, f->name, flags);
	*opened = fd >= 0;
	return fd < 0 ? -errno : fd;
}

/* A store of @len bytes of @buf at @off through a shared mapping (inside EOF). */
static inline int wm_mmap(const struct mfile *f, const uint8_t *buf, uint64_t off, uint64_t len)
{
	uint64_t base = off & ~4095ull;
	uint8_t *p = mmap(NULL, off + len - base, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd,
			  (off_t)base);

	if (p == MAP_FAILED)
		return -errno;
	memcpy(p + (off - base), buf, len);
	munmap(p, off + len - base);
	return 0;
}

/*
 * Write [@off, @off+@len) of @f by @m (@direct: offsets and lengths on
 * the DIO alignment, as the caller chose them) with data of @seed, and
 * follow it in the model: appends land at EOF, the file position moves
 * by the count where the method uses it. *@at gets where the bytes
 * landed. 0, or -errno / -EBADMSG with c->why filled.
 */
static inline int wm_write(struct wctx *c, struct mfile *f, enum wmethod m, bool direct,
			   uint64_t off, uint64_t len, unsigned int seed, uint64_t *at)
{
	uint64_t pos, soff = 0, fpos_before = 0;
	const uint8_t *data = c->wbuf;
	bool opened;
	ssize_t n;
	off_t now;
	int fd;

	/* An append at an EOF off the DIO alignment is buffered: direct I/O would refuse it. */
	if (direct && wm_appends(m) && f->size % c->dio)
		direct = false;
	pos = wm_appends(m) ? f->size : off;
	*at = pos;
	if (pos + len > f->cap) {
		snprintf(c->why, sizeof(c->why), "%s at %" PRIu64 ": past the model's %" PRIu64 " bytes",
			 wname[m], pos, f->cap);
		return -EFBIG;
	}
	if (m == W_MMAP) {
		iop_pattern_fill(c->wbuf, off, len, seed);
		n = wm_mmap(f, c->wbuf, off, len);
		if (n)
			goto fail;
		model_write(f, c->wbuf, off, len);
		return 0;
	}
	fd = wm_fd(c, f, m, direct, &opened);
	if (fd < 0) {
		n = fd;
		goto fail;
	}
	if (m == W_SENDFILE || m == W_SENDFILE_X || m == W_COPY || m == W_COPY_X) {
		soff = (seed * 4096ull + seed % 4093) % (SRC_LEN - len + 1);
		if (direct)
			soff = soff / c->dio * c->dio;
		data = c->srcm + soff;
	} else if (m == W_FIXED) {
		data = c->fixed + (direct ? (seed % 16) * c->dio : seed % 4093);
		iop_pattern_fill((uint8_t *)data, off, len, seed);
	} else {
		iop_pattern_fill(c->wbuf, off, len, seed);
	}
	if (m == W_RWF_APPEND) {
		/* RWF_APPEND must leave the file position where it was. */
		fpos_before = (uint64_t)(seed % 7) * 1000;
		if (lseek(fd, (off_t)fpos_before, SEEK_SET) < 0) {
			n = -errno;
			goto close;
		}
	}
	n = wm_call(c, m, fd, data, len, off, soff, direct, seed);
	if (n == -EXDEV && m == W_COPY_X) {
		/* copy_file_range between filesystems: refused since 5.19. */
		c->exdev++;
		n = 0;
		goto close;
	}
	if (n >= 0 && (uint64_t)n != len) {
		snprintf(c->why, sizeof(c->why), "%s%s of %" PRIu64 " bytes at %" PRIu64 ": returned %zd",
			 direct ? "O_DIRECT " : "", wname[m], len, off, n);
		model_write(f, data, pos, (uint64_t)n);
		n = -EBADMSG;
		goto close;
	}
	if (n < 0)
		goto close;
	model_write(f, data, pos, len);
	if (wm_at_fpos(m) || m == W_RWF_APPEND) {
		now = lseek(fd, 0, SEEK_CUR);
		if ((uint64_t)now != (m == W_RWF_APPEND ? fpos_before : pos + len)) {
			snprintf(c->why, sizeof(c->why), "%s%s of %" PRIu64 " bytes at %" PRIu64 ": the file position is %lld after it, expected %" PRIu64,
				 direct ? "O_DIRECT " : "", wname[m], len, pos, (long long)now,
				 m == W_RWF_APPEND ? fpos_before : pos + len);
			n = -EBADMSG;
		}
	}
close:
	if (opened)
		close(fd);
	if (n >= 0)
		return 0;
fail:
	if (n != -EBADMSG)
		snprintf(c->why, sizeof(c->why), "%s%s of %" PRIu64 " bytes at %" PRIu64 ": %s",
			 direct ? "O_DIRECT " : "", wname[m], len, off, strerror((int)-n));
	return (int)n;
}

/*
 * Compare [@off, @off+@len) of @f (read through @fd, MAX_REQ at a time,
 * from a MAX_REQ boundary so direct reads stay aligned) and its size with
 * the model. 0, or -errno / -EBADMSG with c->why filled (prefixed with
 * @ctx).
 */
static inline int wm_compare_range(struct wctx *c, const struct mfile *f, int fd, uint64_t off,
				   uint64_t len, const char *ctx)
{
	uint64_t end = off + len < f->size ? off + len : f->size, o, n;
	struct stat st;
	ssize_t r;

	if (fstat(fd, &st))
		return -errno;
	if ((uint64_t)st.st_size != f->size) {
		snprintf(c->why, sizeof(c->why), "%s %s: size %lld, the model says %" PRIu64, ctx,
			 f->name, (long long)st.st_size, f->size);
		return -EBADMSG;
	}
	for (off = off / MAX_REQ * MAX_REQ; off < end; off += n) {
		n = f->size - off < MAX_REQ ? f->size - off : MAX_REQ;
		r = pread(fd, c->rbuf, MAX_REQ, (off_t)off);
		if (r != (ssize_t)n) {
			snprintf(c->why, sizeof(c->why), "%s %s: pread at %" PRIu64 ": %zd of %" PRIu64 " (%s)",
				 ctx, f->name, off, r, n, r < 0 ? strerror(errno) : "short");
			return -EIO;
		}
		if (!memcmp(c->rbuf, f->m + off, n))
			continue;
		for (o = off; c->rbuf[o - off] == f->m[o]; o++)
			;
		snprintf(c->why, sizeof(c->why), "%s %s: file byte %" PRIu64 " is 0x%02x, the model says 0x%02x%s",
			 ctx, f->name, o, c->rbuf[o - off], f->m[o],
			 looks_stale(c->rbuf, off, n, o) ?
			 " (the fill pattern: stale data from freed blocks)" : "");
		return -EBADMSG;
	}
	return 0;
}

/* The whole file. */
static inline int wm_compare(struct wctx *c, const struct mfile *f, int fd, const char *ctx)
{
	return wm_compare_range(c, f, fd, 0, f->size, ctx);
}

/*
 * Probe what the kernel and the filesystem take, on a file of their own
 * (@name, removed after): RWF_NOAPPEND (6.9) and buffered RWF_NOWAIT
 * writes (ext4 refuses them with EOPNOTSUPP). 0 or -errno of the setup.
 */
static inline int wm_probe(struct wctx *c, const char *name)
{
	struct iovec iov = { .iov_base = c->wbuf, .iov_len = 1 };
	int fd = openat(c->dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC |
			O_APPEND, 0600), ret = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	c->wbuf[0] = 'x';
	if (write(fd, "ab", 2) != 2) {
		ret = -EIO;
		goto out;
	}
	n = pwritev2(fd, &iov, 1, 0, RWF_NOAPPEND);
	c->noappend = n == 1;
	if (n < 0 && errno != EOPNOTSUPP && errno != EINVAL)
		ret = -errno;
	n = pwritev2(fd, &iov, 1, 0, RWF_NOWAIT);
	c->nowait_buffered = n == 1 || (n < 0 && errno == EAGAIN);
	if (n < 0 && errno != EOPNOTSUPP && errno != EAGAIN)
		ret = -errno;
out:
	close(fd);
	if (unlinkat(c->dirfd, name, 0) && !ret)
		ret = -errno;
	return ret;
}

/* The sources of sendfile and copy_file_range: on the filesystem and in a memfd. */
static inline int wm_sources(struct wctx *c)
{
	c->srcm = malloc(SRC_LEN);
	if (!c->srcm)
		return -ENOMEM;
	iop_pattern_fill(c->srcm, 0, SRC_LEN, 4242);
	c->src = openat(c->dirfd, "source", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0600);
	c->msrc = memfd_create("source", MFD_CLOEXEC);
	if (c->src < 0 || c->msrc < 0)
		return -errno;
	if (iop_pwrite_all(c->src, c->srcm, SRC_LEN, 0) || iop_pwrite_all(c->msrc, c->srcm,
									  SRC_LEN, 0) ||
	    fsync(c->src))
		return -EIO;
	return 0;
}

/* Everything of @c but the directory: 0 or -errno. */
static inline int wm_setup(struct wctx *c, char *ring_why, size_t rlen)
{
	struct statx stx;
	int ret;

	c->wbuf = iop_alloc_aligned(MAX_REQ);
	c->rbuf = iop_alloc_aligned(MAX_REQ);
	c->fixed = iop_alloc_aligned(FIXED_LEN);
	if (!c->wbuf || !c->rbuf || !c->fixed)
		return -ENOMEM;
	if (pipe2(c->pipe, O_CLOEXEC) || fcntl(c->pipe[1], F_SETPIPE_SZ, (int)MAX_REQ) < 0 ||
	    fcntl(c->pipe[0], F_SETFL, O_NONBLOCK))
		return -errno;
	ret = wm_sources(c);
	if (!ret)
		ret = wm_probe(c, "probe");
	if (ret)
		return ret;
	/*
	 * The direct I/O alignment: STATX_DIOALIGN of a regular file (6.1 on;
	 * XFS answers for regular files only), else a page, which every
	 * device of a logical block size up to 4 KiB takes.
	 */
	c->dio = 4096;
	if (!statx(c->src, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) &&
	    (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align)
		c->dio = stx.stx_dio_offset_align > stx.stx_dio_mem_align ?
			 stx.stx_dio_offset_align : stx.stx_dio_mem_align;
#ifdef HAVE_LIBURING
	if (iop_probe("io_uring", ring_why, rlen) > 0) {
		ret = t_ring_with_buffer(&c->ring, 4, c->fixed, FIXED_LEN);
		c->ring_up = !ret;
	}
#else
	snprintf(ring_why, rlen, "%s", IOP_NO_LIBURING);
#endif
	return ret;
}

/*
 * On a scratch filesystem @fs set up: the directory opened, its free space
 * planted with the pattern (stale device data must show), then the rest of
 * @c. A failure goes to @fs->error: our own setup failing fails the test.
 */
static inline void wm_fs_prepare(struct iop_test_fs *fs, struct wctx *c,
				 char *ring_why, size_t rlen)
{
	int ret;

	c->dirfd = open(fs->scratch->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->dirfd < 0) {
		snprintf(fs->error, sizeof(fs->error), "open: %s", strerror(errno));
		return;
	}
	if (fill_free_space(c->dirfd, c->why, sizeof(c->why))) {
		snprintf(fs->error, sizeof(fs->error), "%.200s", c->why);
		return;
	}
	ret = wm_setup(c, ring_why, rlen);
	if (ret)
		snprintf(fs->error, sizeof(fs->error), "setup: %s", strerror(-ret));
}

/*
 * Close the source and the directory, remount @s (the page cache goes, the
 * log is replayed) and open both again. 0, or -errno with @c->why set.
 */
static inline int wm_remount(struct wctx *c, struct iop_scratch *s)
{
	int ret;

	IOP_CLOSE_FDS(c->src, c->dirfd);
	c->src = -1;
	c->dirfd = -1;
	ret = iop_scratch_remount(s);
	if (ret) {
		snprintf(c->why, sizeof(c->why), "remount: %s", strerror(-ret));
		return ret;
	}
	c->dirfd = open(s->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	c->src = openat(c->dirfd, "source", O_RDONLY | O_CLOEXEC);
	if (c->dirfd < 0 || c->src < 0)
		return -errno;
	return 0;
}

static inline void wm_init(struct wctx *c)
{
	memset(c, 0, sizeof(*c));
	c->dirfd = -1;
	c->pipe[0] = -1;
	c->pipe[1] = -1;
	c->src = -1;
	c->msrc = -1;
}

static inline void wm_teardown(struct wctx *c)
{
#ifdef HAVE_LIBURING
	if (c->ring_up) {
		io_uring_unregister_buffers(&c->ring);
		io_uring_queue_exit(&c->ring);
	}
#endif
	c->ring_up = false;
	IOP_CLOSE_FDS(c->pipe[0], c->pipe[1], c->src, c->msrc, c->dirfd);
	free(c->wbuf);
	free(c->rbuf);
	free(c->fixed);
	free(c->srcm);
	wm_init(c);
}

#endif
