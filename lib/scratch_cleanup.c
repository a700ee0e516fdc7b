// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iop_cleanup(): what crashed runs left behind, found by state file and by
 * tag (mount points, loop devices, backing files, trace instances).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scratch_int.h"
#include "sys.h"
#include "tracefs.h"

/* Leading "<pid>-" of an id, or 0. */
static long id_pid(const char *id)
{
	unsigned long long v = 0;
	const char *p = id;

	for (; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (unsigned long long)(*p - '0');
	return p > id && *p == '-' && v < LONG_MAX ? (long)v : 0;
}

static bool state_exists(const char *id)
{
	char path[PATH_MAX];

	state_path(path, sizeof(path), id, false);
	return access(path, F_OK) == 0;
}

/*
 * A state file with no owner line is an id claim_id() reserved and its run
 * never filled (killed between the two): nothing was made under it yet. It
 * is swept once the pid named in the id is gone, or with --all.
 */
static bool claim_abandoned(const char *id, bool all)
{
	long pid = id_pid(id);

	return pid > 0 && (all || !pid_alive(pid, 0));
}

static int cleanup_states(bool all, struct undo_ctx *c)
{
	struct sstate st;
	struct dirent *d;
	int err = 0, r;
	DIR *dir = opendir(STATE_DIR);

	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.') {
			/* A temp file of a dead writer. */
			long pid = id_pid(d->d_name + 1);
			char path[PATH_MAX];

			if (d->d_name[1] && strstr(d->d_name, ".tmp") && pid &&
			    (all || !pid_alive(pid, 0))) {
				snprintf(path, sizeof(path), STATE_DIR "/%s", d->d_name);
				unlink(path);
			}
			continue;
		}
		r = state_read(d->d_name, &st);
		if (r == -EINVAL && claim_abandoned(d->d_name, all)) {
			/* Claimed by claim_id(), never written: holds nothing. */
			char path[PATH_MAX];

			state_path(path, sizeof(path), d->d_name, false);
			if (unlink(path) == 0)
				undo_report(c, "state", d->d_name);
			continue;
		}
		if (r)
			continue;
		if (!all && (pid_alive(st.owner, st.owner_start) || pid_alive(st.guardian, 0)))
			continue;
		r = undo_all(&st, c, NULL);
		if (r && !err)
			err = r;
		if (!r)
			undo_report(c, "state", st.id);
	}
	closedir(dir);
	return err;
}

struct orphan_mounts {
	bool all;
	int n;
	char mnt[64][PATH_MAX];
};

/* Trailing "-<pid>" of a name, or 0. */
static long trailing_pid(const char *name)
{
	const char *dash = strrchr(name, '-');
	unsigned long long v;

	return dash && !s_to_u(dash + 1, &v) && v < LONG_MAX ? (long)v : 0;
}

static int find_orphan_mount(const struct mountent *m, void *arg)
{
	struct orphan_mounts *o = arg;
	const char *id;
	long pid;

	if (o->n >= 64)
		return 0;
	if (own_child(m->target, IOP_RUN_DIR) && s_prefix(m->target, IOP_RUN_DIR "/tracefs-")) {
		/*
		 * lib/tracefs.c detaches its private tracefs mount at once; one
		 * is left only if its process died in between.
		 */
		pid = trailing_pid(m->target);
		if (!o->all && (!pid || pid_alive(pid, 0)))
			return 0;
	} else if (own_child(m->target, MNT_DIR)) {
		id = m->target + strlen(MNT_DIR "/");
		pid = id_pid(id);
		if (state_exists(id) || (!o->all && pid && pid_alive(pid, 0)))
			return 0;
	} else {
		return 0;
	}
	for (int i = 0; i < o->n; i++)
		if (!strcmp(o->mnt[i], m->target))
			return 0;
	snprintf(o->mnt[o->n++], PATH_MAX, "%s", m->target);
	return 0;
}

/*
 * Mounts under MNT_DIR that no state file covers (say, a state write
 * failed), and private tracefs mounts of dead processes.
 */
static int cleanup_mounts(bool all, struct undo_ctx *c)
{
	struct orphan_mounts *o = calloc(1, sizeof(*o));
	struct dirent *d;
	int err = 0, r;
	DIR *dir;

	if (!o)
		return -ENOMEM;
	o->all = all;
	walk_mounts(find_orphan_mount, o);
	for (int i = 0; i < o->n; i++) {
		r = umount_all(o->mnt[i], c);
		if (r > 0)
			undo_report(c, "mount", o->mnt[i]);
		else if (r < 0 && !err)
			err = r;
		if (r >= 0 && !own_child(o->mnt[i], MNT_DIR))
			rmdir(o->mnt[i]);
	}
	free(o);
	/* Empty mount points of dead runs. */
	dir = opendir(MNT_DIR);
	if (!dir)
		return err;
	while ((d = readdir(dir))) {
		long pid = id_pid(d->d_name);
		char path[PATH_MAX];

		if (d->d_name[0] == '.' || state_exists(d->d_name) ||
		    (!all && pid && pid_alive(pid, 0)))
			continue;
		snprintf(path, sizeof(path), MNT_DIR "/%s", d->d_name);
		rmdir(path);	/* fails harmlessly while something is mounted there */
	}
	closedir(dir);
	return err;
}

/* Bound loop devices carrying our tag or backed by a file in IMG_DIR. */
static int cleanup_loops(bool all, struct undo_ctx *c)
{
	struct dirent *d;
	int err = 0;
	DIR *dir = opendir("/sys/block");

	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		char path[PATH_MAX], backing[PATH_MAX] = "", id[64] = "";
		struct loop_info64 info;
		const char *name;
		long pid;
		int fd;

		if (strncmp(d->d_name, "loop", 4) || !isdigit((unsigned char)d->d_name[4]))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", d->d_name);
		if (read_small(path, backing, sizeof(backing)) < 0)
			continue;	/* not bound */
		backing[strcspn(backing, "\n")] = '\0';
		snprintf(path, sizeof(path), "/dev/%s", d->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (ioctl(fd, LOOP_GET_STATUS64, &info)) {
			close(fd);
			continue;
		}
		name = (const char *)info.lo_file_name;
		if (s_prefix(name, LOOP_TAG)) {
			const char *tag = name + strlen(LOOP_TAG);

			snprintf(id, sizeof(id), "%.*s",
				 (int)strnlen(tag, LO_NAME_SIZE - strlen(LOOP_TAG)), tag);
		} else if (s_prefix(backing, IMG_DIR "/")) {
			s_cpy(id, sizeof(id), backing + strlen(IMG_DIR "/"));
			id[strcspn(id, ". ")] = '\0';
		} else {
			close(fd);
			continue;
		}
		pid = id_pid(id);
		if (state_exists(id) || (!all && pid && pid_alive(pid, 0))) {
			close(fd);
			continue;
		}
		if (ioctl(fd, LOOP_CLR_FD, 0) == 0)
			undo_report(c, "loop", path);
		else if (errno != ENXIO && !err)
			err = -errno;
		close(fd);
	}
	closedir(dir);
	return err;
}

static int cleanup_images(bool all, struct undo_ctx *c)
{
	struct dirent *d;
	DIR *dir = opendir(IMG_DIR);
	int err = 0;

	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		char path[PATH_MAX], id[64];
		long pid;

		if (d->d_name[0] == '.')
			continue;
		s_cpy(id, sizeof(id), d->d_name);
		id[strcspn(id, ".")] = '\0';
		pid = id_pid(id);
		if (state_exists(id) || (!all && pid && pid_alive(pid, 0)))
			continue;
		snprintf(path, sizeof(path), IMG_DIR "/%s", d->d_name);
		if (unlink(path) == 0)
			undo_report(c, "file", path);
		else if (!err)
			err = -errno;
	}
	closedir(dir);
	return err;
}

static int cleanup_trace(bool all, struct undo_ctx *c)
{
	int root = iop_tracefs_root(), fd, err = 0;
	struct dirent *d;
	DIR *dir;

	if (root < 0)
		return 0;	/* no tracefs: no instances */
	fd = openat(root, "instances", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		if (fd >= 0)
			close(fd);
		close(root);
		return 0;
	}
	while ((d = readdir(dir))) {
		long pid;

		if (!s_prefix(d->d_name, "iopath-"))
			continue;
		pid = id_pid(d->d_name + strlen("iopath-"));
		if (!pid || (!all && pid_alive(pid, 0)))
			continue;
		if (unlinkat(dirfd(dir), d->d_name, AT_REMOVEDIR) == 0)
			undo_report(c, "trace instance", d->d_name);
		else if (!err)
			err = -errno;
	}
	closedir(dir);
	close(root);
	return err;
}

/* Temporary files of dead runs (iop_run_tmp(): "<pid>-<what>.XXXXXX"). */
static int cleanup_tmp(bool all, struct undo_ctx *c)
{
	DIR *dir = opendir(TMP_DIR);
	struct dirent *d;
	int err = 0;

	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		long pid = id_pid(d->d_name);

		if (!pid || (!all && pid_alive(pid, 0)))
			continue;
		if (unlinkat(dirfd(dir), d->d_name, 0) == 0)
			undo_report(c, "temporary file", d->d_name);
		else if (!err && errno != ENOENT)
			err = -errno;
	}
	closedir(dir);
	return err;
}

int iop_cleanup(bool all, void (*report)(const char *what, void *arg), void *arg)
{
	struct undo_ctx c = {
		.report = report, .arg = arg, .busy_tries = 20, .nap = 50, .lazy = true,
	};
	int err = 0, r;

	/* State files first: they say exactly what to undo, zram included. */
	r = cleanup_states(all, &c);
	err = err ? err : r;
	r = cleanup_mounts(all, &c);
	err = err ? err : r;
	r = cleanup_loops(all, &c);
	err = err ? err : r;
	r = cleanup_images(all, &c);
	err = err ? err : r;
	r = cleanup_trace(all, &c);
	err = err ? err : r;
	r = cleanup_tmp(all, &c);
	err = err ? err : r;
	return err ? err : c.removed;
}
