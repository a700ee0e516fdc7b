/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to the scratch code (scratch*.c): the state file and the undo
 * steps they share. See scratch.c for how they fit together.
 */
#ifndef IOPATH_SCRATCH_INT_H
#define IOPATH_SCRATCH_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "scratch.h"

#define STATE_DIR IOP_RUN_DIR "/state"
#define MNT_DIR IOP_RUN_DIR "/mnt"
#define IMG_DIR IOP_RUN_DIR "/img"
#define TMP_DIR IOP_RUN_DIR "/tmp"
#define ZRAM_CONTROL "/sys/class/zram-control"
#define LOOP_TAG "iopath:"

/* mkfs.xfs refuses anything smaller than 300 MiB. */
#define XFS_MIN_SIZE (300ull << 20)

struct sstate {
	char id[64];
	char backing[8];	/* iop_backing_name() */
	char fstype[16];
	long owner;
	unsigned long long owner_start;
	long guardian;
	int zram;		/* hot-added zram index, -1 if none */
	char dev[PATH_MAX];
	char loop[PATH_MAX];
	char img[PATH_MAX];
	char mnt[PATH_MAX];	/* mount point under MNT_DIR */
	char dir[PATH_MAX];	/* IOP_BACKING_DIR: the subdirectory to remove */
};

struct undo_ctx {
	void (*report)(const char *what, void *arg);
	void *arg;
	int removed;
	int busy_tries;		/* how often a busy umount/detach/reset is retried */
	int nap;		/* ms between retries */
	bool lazy;		/* fall back to MNT_DETACH when umount stays busy */
	bool unmounted;		/* this pass unmounted the scratch (autoclear ran) */
};

/* scratch_state.c */
void state_path(char *buf, size_t len, const char *id, bool tmp);
int state_write(const struct sstate *st);
int state_read(const char *id, struct sstate *st);

/* scratch_undo.c */
void undo_report(struct undo_ctx *c, const char *kind, const char *what);
int umount_all(const char *mnt, struct undo_ctx *c);
int undo_all(struct sstate *st, struct undo_ctx *c, int *loop_fd);

/* scratch_fs.c */
int do_mkfs(struct iop_scratch *s, char *why, size_t len);
int do_mount(struct iop_scratch *s, char *why, size_t len);

#endif
