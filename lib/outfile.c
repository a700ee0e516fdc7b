// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Output files created without following symlinks or reusing a name (see
 * outfile.h). iopath runs as root and writes where --out points, often in
 * a world-writable directory: a name an unprivileged user can guess must
 * never be opened if it exists, so every create is O_EXCL|O_NOFOLLOW and
 * a final name is replaced only by rename(2), which replaces a symlink
 * rather than following it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"
#include "quote.h"
#include "why.h"

#define CREATE_FLAGS (O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC)

/* ".tmp.XXXXXX", what iop_tmp_create() adds to a final name. */
#define TMP_SUFFIX_LEN 11

/* The temporary file a signal handler removes; "" when none. */
static char pending_tmp[PATH_MAX];

/* iop_out_claim(): the name and the locked fd of its current inode. */
static char claim_name[PATH_MAX];
static int claim_fd = -1;

bool iop_out_name_ok(const char *name)
{
	for (size_t i = 0; name[i]; i++)
		if (iop_is_control(name, i))
			return false;
	return true;
}

/* The one reason for a name iop_out_name_ok() refuses; -EINVAL. */
static int name_refused(const char *name, char *why, size_t len)
{
	iop_why(why, len, "%s: a control character in the name (refused: it would be printed raw)",
		name);
	return -EINVAL;
}

static void random_suffix(char *s, size_t n)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[16];

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		uint64_t t = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20) ^ (uintptr_t)s;

		for (size_t i = 0; i < sizeof(r); i++, t = t * 6364136223846793005ull + 1)
			r[i] = (unsigned char)(t >> 33);
	}
	for (size_t i = 0; i < n && i < sizeof(r); i++)
		s[i] = set[r[i] % (sizeof(set) - 1)];
	s[n] = '\0';
}

int iop_tmp_create(const char *final, mode_t mode, char *tmp, size_t len)
{
	sigset_t stops, old;
	char sfx[8];
	int fd, err;

	if (!iop_out_name_ok(final))
		return -EINVAL;
	/* A SIGTERM between the open and pending_tmp would leave the file behind. */
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	for (int tries = 0; tries < 100; tries++) {
		random_suffix(sfx, 6);
		if ((size_t)snprintf(tmp, len, "%s.tmp.%s", final, sfx) >= len)
			return -ENAMETOOLONG;
		sigprocmask(SIG_BLOCK, &stops, &old);
		fd = open(tmp, CREATE_FLAGS, mode);
		err = errno;
		if (fd >= 0)
			snprintf(pending_tmp, sizeof(pending_tmp), "%s", tmp);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (fd >= 0) {
			/* The umask must not narrow a mode kept from the old file. */
			fchmod(fd, mode);
			return fd;
		}
		if (err != EEXIST)
			return -err;
	}
	return -EEXIST;
}

void iop_tmp_discard(const char *tmp)
{
	unlink(tmp);
	if (!strcmp(pending_tmp, tmp))
		pending_tmp[0] = '\0';
}

int iop_tmp_commit(const char *tmp, const char *final)
{
	bool claimed = claim_fd >= 0 && !strcmp(claim_name, final);
	int ret = 0, nfd = -1;
	struct stat st;

	if (!lstat(final, &st)) {
		if (S_ISLNK(st.st_mode))
			ret = -ELOOP;
		else if (S_ISDIR(st.st_mode))
			ret = -EISDIR;
		else if (!S_ISREG(st.st_mode))
			ret = -EINVAL;
	}
	/*
	 * A claimed name stays locked across the rename: the new inode is
	 * locked first, so no other writer finds it free in between.
	 */
	if (!ret && claimed) {
		nfd = open(tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0)
			ret = -errno;
		else if (flock(nfd, LOCK_EX | LOCK_NB))
			ret = -errno;
	}
	if (!ret && rename(tmp, final))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		if (nfd >= 0)
			close(nfd);
	} else if (claimed) {
		close(claim_fd);
		claim_fd = nfd;
	}
	if (!strcmp(pending_tmp, tmp))
		pending_tmp[0] = '\0';
	return ret;
}

mode_t iop_out_mode(const char *final)
{
	mode_t um = umask(0);
	struct stat st;

	umask(um);
	if (!lstat(final, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid())
		return st.st_mode & 0777;
	return 0644 & ~um;
}

int iop_out_claim(const char *final, char *why, size_t len)
{
	struct stat fst, nst;
	int fd, created;

	iop_out_release();
	if (!iop_out_name_ok(final))
		return name_refused(final, why, len);
	if (strlen(final) >= sizeof(claim_name)) {
		iop_why(why, len, "%.64s...: name too long", final);
		return -ENAMETOOLONG;
	}
	for (int tries = 0; tries < 100; tries++) {
		created = 0;
		fd = open(final, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		if (fd < 0 && errno == ENOENT) {
			fd = open(final, CREATE_FLAGS, iop_out_mode(final));
			if (fd < 0 && errno == EEXIST)
				continue;
			created = 1;
		}
		if (fd < 0) {
			int err = errno;

			iop_why(why, len, "%s: %s", final, strerror(err));
			return -err;
		}
		if (fstat(fd, &fst) || !S_ISREG(fst.st_mode)) {
			close(fd);
			iop_why(why, len, "%s: is not a regular file", final);
			return -EINVAL;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			int err = errno;

			close(fd);
			if (err == EWOULDBLOCK) {
				iop_why(why, len, "%s: another process is writing it (refused: records would be lost)",
					final);
				return -EBUSY;
			}
			iop_why(why, len, "%s: lock: %s", final, strerror(err));
			return -err;
		}
		/* Still the file the name points at, not one a writer replaced? */
		if (!lstat(final, &nst) && nst.st_dev == fst.st_dev && nst.st_ino == fst.st_ino) {
			snprintf(claim_name, sizeof(claim_name), "%s", final);
			claim_fd = fd;
			return created;
		}
		close(fd);
	}
	iop_why(why, len, "%s: replaced over and over while being claimed", final);
	return -EBUSY;
}

void iop_out_release(void)
{
	if (claim_fd >= 0)
		close(claim_fd);
	claim_fd = -1;
	claim_name[0] = '\0';
}

static void on_signal(int sig)
{
	if (pending_tmp[0])
		unlink(pending_tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

void iop_tmp_cleanup_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int iop_out_check(const char *final, char *why, size_t len)
{
	const char *slash, *base;
	char dir[PATH_MAX];
	struct stat st;

	if (!final || !*final) {
		iop_why(why, len, "empty output file name");
		return -EINVAL;
	}
	if (!iop_out_name_ok(final))
		return name_refused(final, why, len);
	/* The temporary name is the longest the file ever has. */
	base = strrchr(final, '/');
	base = base ? base + 1 : final;
	if (strlen(base) + TMP_SUFFIX_LEN > NAME_MAX) {
		iop_why(why, len, "%.64s...: file name longer than %d bytes", final,
			NAME_MAX - TMP_SUFFIX_LEN);
		return -ENAMETOOLONG;
	}
	if (strlen(final) + TMP_SUFFIX_LEN >= PATH_MAX) {
		iop_why(why, len, "%.64s...: path longer than %d bytes", final,
			PATH_MAX - 1 - TMP_SUFFIX_LEN);
		return -ENAMETOOLONG;
	}
	if (!lstat(final, &st)) {
		if (S_ISLNK(st.st_mode)) {
			iop_why(why, len, "%s: is a symbolic link (refused: it would be replaced, not followed)",
				final);
			return -ELOOP;
		}
		if (S_ISDIR(st.st_mode)) {
			iop_why(why, len, "%s: is a directory, not a file name", final);
			return -EISDIR;
		}
		if (!S_ISREG(st.st_mode)) {
			iop_why(why, len, "%s: is not a regular file", final);
			return -EINVAL;
		}
	}
	slash = strrchr(final, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == final)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - final), final);
	if (slash && !slash[1]) {
		iop_why(why, len, "%s: names a directory, not a file", final);
		return -EISDIR;
	}
	if (stat(dir, &st)) {
		int err = errno;

		iop_why(why, len, "%s: directory %s: %s", final, dir, strerror(err));
		return -err;
	}
	if (!S_ISDIR(st.st_mode)) {
		iop_why(why, len, "%s: %s is not a directory", final, dir);
		return -ENOTDIR;
	}
	if (access(dir, W_OK | X_OK)) {
		int err = errno;

		iop_why(why, len, "%s: directory %s is not writable: %s", final,
			dir, strerror(err));
		return -err;
	}
	return 0;
}

int iop_out_unique(const char *dir, const char *prefix, const char *suffix, const char *also,
		   char *out, size_t len)
{
	char stamp[32], other[PATH_MAX];
	time_t now = time(NULL);
	struct tm tm;
	int fd, ofd, err;

	if (!iop_out_name_ok(dir) || !iop_out_name_ok(prefix) || !iop_out_name_ok(suffix) ||
	    (also && !iop_out_name_ok(also)))
		return -EINVAL;
	if (!gmtime_r(&now, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		return -EINVAL;
	for (int n = 1; n < 1000; n++) {
		char num[16] = "";
		int w;

		if (n > 1)
			snprintf(num, sizeof(num), "-%d", n);
		w = snprintf(out, len, "%s/%s-%s-%d%s%s", dir, prefix, stamp,
			     (int)getpid(), num, suffix);
		if (w < 0 || (size_t)w >= len ||
		    (size_t)w - strlen(suffix) + (also ? strlen(also) : 0) >= sizeof(other))
			return -ENAMETOOLONG;
		fd = open(out, CREATE_FLAGS, 0644);
		if (fd < 0) {
			if (errno != EEXIST)
				return -errno;
			continue;
		}
		if (!also)
			return fd;
		/* The companion file must be new too, or neither name is taken. */
		snprintf(other, sizeof(other), "%.*s%s", w - (int)strlen(suffix), out, also);
		ofd = open(other, CREATE_FLAGS, 0644);
		if (ofd >= 0) {
			close(ofd);
			return fd;
		}
		err = errno;
		close(fd);
		unlink(out);
		if (err != EEXIST)
			return -err;
	}
	return -EEXIST;
}

/* @src's bytes from offset 0 to @dst's current offset. 0 or -errno. */
static int copy_fd(int src, int dst)
{
	char buf[65536];
	off_t off = 0;
	ssize_t n;

	while ((n = pread(src, buf, sizeof(buf), off)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		off += n;
		for (char *p = buf; n > 0;) {
			ssize_t w = write(dst, p, n);

			if (w < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			p += w;
			n -= w;
		}
	}
	return 0;
}

int iop_out_publish(int src_fd, const char *final, mode_t mode)
{
	char dir[PATH_MAX], proc[64], tmp[PATH_MAX];
	const char *slash = strrchr(final, '/');
	int fd, ret;

	if (!iop_out_name_ok(final))
		return -EINVAL;
	if (slash && (size_t)(slash - final) >= sizeof(dir))
		return -ENAMETOOLONG;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == final ? 1 : (int)(slash - final), final);
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
	if (fd >= 0) {
		fchmod(fd, mode);
		ret = copy_fd(src_fd, fd);
		if (!ret && fsync(fd))
			ret = -errno;
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		if (!ret && linkat(AT_FDCWD, proc, AT_FDCWD, final, AT_SYMLINK_FOLLOW))
			ret = -errno;
		close(fd);
		return ret;
	}
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	/* No O_TMPFILE here: a temporary name, removed on a signal. */
	fd = iop_tmp_create(final, mode, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	ret = copy_fd(src_fd, fd);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && link(tmp, final))
		ret = -errno;
	iop_tmp_discard(tmp);
	return ret;
}

int iop_tmp_commit_set(const char *const *tmp, const char *const *final, size_t n,
		       size_t *failed)
{
	struct stat st;
	size_t k, j;
	int ret = 0;

	/* As iop_tmp_commit() would refuse each, before any is renamed. */
	for (k = 0; k < n && !ret; k++)
		if (!lstat(final[k], &st) && !S_ISREG(st.st_mode))
			ret = S_ISLNK(st.st_mode) ? -ELOOP : S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	if (ret) {
		*failed = k - 1;
		for (j = 0; j < n; j++)
			iop_tmp_discard(tmp[j]);
		return ret;
	}
	for (k = 0; k < n; k++) {
		ret = iop_tmp_commit(tmp[k], final[k]);	/* tmp[k] gone either way */
		if (ret)
			break;
	}
	if (!ret)
		return 0;
	/* The name changed since the check: the ones renamed go, no mixed set stays. */
	*failed = k;
	for (j = 0; j < k; j++)
		unlink(final[j]);
	for (j = k + 1; j < n; j++)
		iop_tmp_discard(tmp[j]);
	return ret;
}

/* @path's parent directory into @parent ("." or "/" where it has none). */
static void parent_of(const char *path, char *parent, size_t len)
{
	char *slash;

	snprintf(parent, len, "%s", path);
	while ((slash = strrchr(parent, '/')) && !slash[1] && slash > parent)
		*slash = '\0';
	slash = strrchr(parent, '/');
	if (slash)
		*(slash == parent ? slash + 1 : slash) = '\0';
	else
		snprintf(parent, len, ".");
}

int iop_out_dir_check(const char *dir, char *why, size_t len)
{
	char parent[PATH_MAX];
	struct stat st;

	if (!dir || !*dir) {
		iop_why(why, len, "empty directory name");
		return -EINVAL;
	}
	if (!iop_out_name_ok(dir))
		return name_refused(dir, why, len);
	/* Room for the files written into it: a name of NAME_MAX after it. */
	if (strlen(dir) + 1 + NAME_MAX >= PATH_MAX) {
		iop_why(why, len, "%.64s...: path longer than %d bytes", dir, PATH_MAX - 2 - NAME_MAX);
		return -ENAMETOOLONG;
	}
	if (!lstat(dir, &st)) {
		if (S_ISLNK(st.st_mode)) {
			iop_why(why, len, "%s: is a symbolic link (refused: it would be followed)", dir);
			return -ELOOP;
		}
		if (!S_ISDIR(st.st_mode)) {
			iop_why(why, len, "%s: not a directory", dir);
			return -ENOTDIR;
		}
		if (access(dir, W_OK | X_OK)) {
			int err = errno;

			iop_why(why, len, "%s: not writable: %s", dir, strerror(err));
			return -err;
		}
		return 0;
	}
	if (errno != ENOENT) {
		int err = errno;

		iop_why(why, len, "%s: %s", dir, strerror(err));
		return -err;
	}
	parent_of(dir, parent, sizeof(parent));
	if (stat(parent, &st) || !S_ISDIR(st.st_mode)) {
		iop_why(why, len, "%s: no such directory, nor its parent %s", dir, parent);
		return -ENOENT;
	}
	if (access(parent, W_OK | X_OK)) {
		int err = errno;

		iop_why(why, len, "%s: its parent %s is not writable: %s", dir, parent, strerror(err));
		return -err;
	}
	return 0;
}

int iop_out_dir_make(const char *dir, char *why, size_t len)
{
	int ret = iop_out_dir_check(dir, why, len);

	if (ret)
		return ret;
	if (mkdir(dir, 0755) && errno != EEXIST) {
		ret = -errno;
		iop_why(why, len, "%s: %s", dir, strerror(-ret));
		return ret;
	}
	/* Made by someone else meanwhile: checked again, as it is now. */
	return iop_out_dir_check(dir, why, len);
}
