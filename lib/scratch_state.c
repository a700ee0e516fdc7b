// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The state file IOP_RUN_DIR/state/<id>: one "key=value" line per thing a
 * scratch holds (see scratch_int.h). Written with the async-signal-safe
 * helpers only: the guardian reads and rewrites it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "scratch_int.h"
#include "sys.h"

void state_path(char *buf, size_t len, const char *id, bool tmp)
{
	s_cpy(buf, len, STATE_DIR "/");
	if (tmp)
		s_cat(buf, len, ".");
	s_cat(buf, len, id);
	if (tmp)
		s_cat(buf, len, ".tmp");
}

static void kv(char *buf, size_t len, const char *key, const char *val)
{
	if (!val[0])
		return;
	s_cat(buf, len, key);
	s_cat(buf, len, "=");
	s_cat(buf, len, val);
	s_cat(buf, len, "\n");
}

static void kv_u(char *buf, size_t len, const char *key, unsigned long long val)
{
	s_cat(buf, len, key);
	s_cat(buf, len, "=");
	s_cat_u(buf, len, val);
	s_cat(buf, len, "\n");
}

/* Replace the state file atomically (temp file and rename). */
int state_write(const struct sstate *st)
{
	char buf[5 * PATH_MAX + 512] = "", tmp[PATH_MAX], path[PATH_MAX];
	int fd, err;

	kv_u(buf, sizeof(buf), "owner", (unsigned long long)st->owner);
	kv_u(buf, sizeof(buf), "owner_start", st->owner_start);
	if (st->guardian > 0)
		kv_u(buf, sizeof(buf), "guardian", (unsigned long long)st->guardian);
	kv(buf, sizeof(buf), "backing", st->backing);
	kv(buf, sizeof(buf), "fstype", st->fstype);
	if (st->zram >= 0)
		kv_u(buf, sizeof(buf), "zram", (unsigned long long)st->zram);
	kv(buf, sizeof(buf), "dev", st->dev);
	kv(buf, sizeof(buf), "loop", st->loop);
	kv(buf, sizeof(buf), "img", st->img);
	kv(buf, sizeof(buf), "mnt", st->mnt);
	kv(buf, sizeof(buf), "dir", st->dir);

	state_path(tmp, sizeof(tmp), st->id, true);
	state_path(path, sizeof(path), st->id, false);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	err = write_full(fd, buf, strlen(buf));
	close(fd);
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int state_read(const char *id, struct sstate *st)
{
	char buf[5 * PATH_MAX + 512], path[PATH_MAX], *line, *nl, *eq;
	unsigned long long v;
	int n;

	memset(st, 0, sizeof(*st));
	st->zram = -1;
	s_cpy(st->id, sizeof(st->id), id);
	state_path(path, sizeof(path), id, false);
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	for (line = buf; *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		else
			nl = line + strlen(line);
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq++ = '\0';
		if (!strcmp(line, "owner") && !s_to_u(eq, &v))
			st->owner = (long)v;
		else if (!strcmp(line, "owner_start") && !s_to_u(eq, &v))
			st->owner_start = v;
		else if (!strcmp(line, "guardian") && !s_to_u(eq, &v))
			st->guardian = (long)v;
		else if (!strcmp(line, "zram") && !s_to_u(eq, &v) && v < INT_MAX)
			st->zram = (int)v;
		else if (!strcmp(line, "backing"))
			s_cpy(st->backing, sizeof(st->backing), eq);
		else if (!strcmp(line, "fstype"))
			s_cpy(st->fstype, sizeof(st->fstype), eq);
		else if (!strcmp(line, "dev"))
			s_cpy(st->dev, sizeof(st->dev), eq);
		else if (!strcmp(line, "loop"))
			s_cpy(st->loop, sizeof(st->loop), eq);
		else if (!strcmp(line, "img"))
			s_cpy(st->img, sizeof(st->img), eq);
		else if (!strcmp(line, "mnt"))
			s_cpy(st->mnt, sizeof(st->mnt), eq);
		else if (!strcmp(line, "dir"))
			s_cpy(st->dir, sizeof(st->dir), eq);
	}
	return st->owner > 0 ? 0 : -EINVAL;
}
