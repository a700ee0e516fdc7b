// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel feature probes (see probe.h). Each probe asks the kernel itself
 * (/proc/filesystems, /proc/kallsyms, the syscall) and never goes through
 * the setup code the tests use, so a failure of that setup cannot pass
 * for a missing feature.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/io_uring.h>

#include "array_size.h"
#include "probe.h"
#include "why.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

const char *const iop_probe_features[] = {
	"xfs_reflink", "tracefs_iomap", "fadvise", "cachestat", "odirect", "io_uring",
	"folio_batch", "fs_dax", "fail_make_request", NULL,
};

bool iop_errno_means_absent(int err)
{
	return err == ENOSYS || err == EOPNOTSUPP || err == ENODEV;
}

static bool in_proc_filesystems(const char *fstype)
{
	char line[256], name[64];
	bool found = false;
	FILE *f = fopen("/proc/filesystems", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %63s", name) == 1 ? !strcmp(name, fstype) :
			sscanf(line, "%63s", name) == 1 && !strcmp(name, fstype);
	fclose(f);
	return found;
}

bool iop_probe_fs(const char *fstype)
{
	char *argv[] = { "modprobe", "-q", (char *)fstype, NULL };
	pid_t pid;

	if (in_proc_filesystems(fstype))
		return true;
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execvp("modprobe", argv);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	return in_proc_filesystems(fstype);
}

/* 1 if /proc/kallsyms lists @sym, 0 if not, -errno if unreadable or empty. */
static int kallsyms_has(const char *sym)
{
	char line[512], name[256];
	int found = 0, lines = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f)) {
		lines++;
		if (sscanf(line, "%*s %*s %255s", name) == 1 && !strcmp(name, sym))
			found = 1;
	}
	fclose(f);
	return found || lines ? found : -ENOENT;
}

static int probe_tracefs_iomap(char *why, size_t len)
{
	static const char *const events[] = {
		"/sys/kernel/tracing/events/iomap/iomap_iter_dstmap",
		"/sys/kernel/debug/tracing/events/iomap/iomap_iter_dstmap",
	};
	size_t i;
	int ret;

	if (!in_proc_filesystems("tracefs")) {
		iop_why(why, len, "no tracefs in /proc/filesystems");
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(events); i++)
		if (!access(events[i], F_OK))
			return 1;
	/*
	 * tracefs not mounted where we look: the tracepoint's own function
	 * (5.10+; kallsyms lists text symbols even without KALLSYMS_ALL).
	 */
	ret = kallsyms_has("__traceiter_iomap_iter_dstmap");
	if (ret < 0)
		iop_why(why, len, "tracefs not mounted and /proc/kallsyms unreadable: %s",
			strerror(-ret));
	else if (!ret)
		iop_why(why, len, "no iomap_iter_dstmap tracepoint");
	return ret > 0;
}

static int probe_page_cache(bool cachestat, char *why, size_t len)
{
	struct { uint64_t off, len; } range = { 0, 0 };
	uint64_t cs[5];
	int fd, ret;

	fd = memfd_create("iopath-probe", MFD_CLOEXEC);
	if (fd < 0) {
		iop_why(why, len, "memfd_create: %s", strerror(errno));
		return 0;
	}
	if (cachestat)
		ret = syscall(__NR_cachestat, fd, &range, cs, 0) ? errno : 0;
	else
		ret = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (ret)
		iop_why(why, len, "%s: %s",
			cachestat ? "cachestat" : "posix_fadvise", strerror(ret));
	return !ret;
}

/*
 * io_uring_setup(2) itself, not liburing: the probe is of the kernel (and
 * of a seccomp or sysctl that refuses it), and the selftests build
 * without liburing (selftests/Makefile).
 */
static int probe_io_uring(char *why, size_t len)
{
	struct io_uring_params p = { 0 };
	long fd = syscall(__NR_io_uring_setup, 2, &p);

	if (fd < 0) {
		iop_why(why, len, "io_uring_setup: %s", strerror(errno));
		return 0;
	}
	close((int)fd);
	return 1;
}

/*
 * File system DAX needs a device that offers it: the one the user named
 * as DAX scratch (IOPATH_SCRATCH_DAX_DEV; iopath vm names the pmem region
 * it carves out of the guest's RAM). Whether the kernel offers DAX on it
 * is the device's queue/dax (1 only with CONFIG_FS_DAX and a driver that
 * maps the memory with struct pages). A name that is no block device is
 * the user's mistake, not a missing feature: the setup fails on it.
 */
static int probe_fs_dax(char *why, size_t len)
{
	const char *dev = getenv("IOPATH_SCRATCH_DAX_DEV");
	char path[96], v[8] = "";
	struct stat st;
	ssize_t n;
	int fd;

	if (!dev || !dev[0]) {
		iop_why(why, len, "no DAX-capable device named as scratch (IOPATH_SCRATCH_DAX_DEV)");
		return 0;
	}
	if (stat(dev, &st) || !S_ISBLK(st.st_mode)) {
		iop_why(why, len, "IOPATH_SCRATCH_DAX_DEV is not a block device");
		return 0;
	}
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/dax",
		 major(st.st_rdev), minor(st.st_rdev));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		iop_why(why, len, "%s: %s", path, strerror(errno));
		return 0;
	}
	n = read(fd, v, sizeof(v) - 1);
	close(fd);
	if (n > 0 && v[0] == '1')
		return 1;
	iop_why(why, len, "the kernel offers no DAX on IOPATH_SCRATCH_DAX_DEV (queue/dax is not 1)");
	return 0;
}

int iop_probe(const char *feature, char *why, size_t len)
{
	int ret;

	if (why && len)
		why[0] = '\0';
	if (!strcmp(feature, "xfs_reflink")) {
		if (iop_probe_fs("xfs"))
			return 1;
		iop_why(why, len, "no xfs in /proc/filesystems");
		return 0;
	}
	if (!strcmp(feature, "odirect")) {
		if (iop_probe_fs("ext4") || iop_probe_fs("xfs"))
			return 1;
		iop_why(why, len, "neither ext4 nor xfs in /proc/filesystems");
		return 0;
	}
	if (!strcmp(feature, "tracefs_iomap"))
		return probe_tracefs_iomap(why, len);
	if (!strcmp(feature, "fadvise") || !strcmp(feature, "cachestat"))
		return probe_page_cache(feature[0] == 'c', why, len);
	if (!strcmp(feature, "io_uring"))
		return probe_io_uring(why, len);
	if (!strcmp(feature, "fs_dax"))
		return probe_fs_dax(why, len);
	if (!strcmp(feature, "fail_make_request")) {
		/* the function exists only with CONFIG_FAIL_MAKE_REQUEST */
		ret = kallsyms_has("should_fail_request");
		if (ret < 0)
			iop_why(why, len, "/proc/kallsyms unreadable: %s", strerror(-ret));
		else if (!ret)
			iop_why(why, len, "no block-layer fault injection (CONFIG_FAIL_MAKE_REQUEST)");
		return ret > 0;
	}
	if (!strcmp(feature, "folio_batch")) {
		ret = kallsyms_has("iomap_fill_dirty_folios");
		if (ret < 0)
			iop_why(why, len, "/proc/kallsyms unreadable: %s", strerror(-ret));
		else if (!ret)
			iop_why(why, len, "no iomap_fill_dirty_folios in /proc/kallsyms");
		return ret > 0;
	}
	return -EINVAL;
}
