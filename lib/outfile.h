/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Creating the files iopath writes (records, logs, plots) so that root
 * cannot be tricked into writing somewhere else: every file is created
 * with O_CREAT|O_EXCL|O_NOFOLLOW, never opened if it exists, and a final
 * name is reached by rename(2) from a temporary file in the same
 * directory. A symlink or a directory at the final name is refused.
 */
#ifndef IOPATH_OUTFILE_H
#define IOPATH_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Whether @name may name an output: no control character (C0, DEL, C1 in
 * UTF-8: lib/quote.c's iop_is_control()) in it, which every message and
 * list of written files would print raw or split over two lines. Each
 * function below refuses such a name: the one check of output names.
 */
bool iop_out_name_ok(const char *name);

/*
 * Create "<final>.tmp.XXXXXX" (random, retried on a collision) with
 * O_EXCL|O_NOFOLLOW; its name goes to @tmp. Returns the fd or -errno.
 * The name is remembered for iop_tmp_cleanup_signals() until
 * iop_tmp_commit() or iop_tmp_discard().
 */
int iop_tmp_create(const char *final, mode_t mode, char *tmp, size_t len);

/*
 * rename(2) @tmp over @final, unless @final is a symlink (-ELOOP), a
 * directory (-EISDIR) or something else that is not a regular file
 * (-EINVAL); @tmp is removed on failure. When @final is claimed
 * (iop_out_claim()), the claim moves to the renamed file.
 */
int iop_tmp_commit(const char *tmp, const char *final);

/* Remove @tmp and forget it. */
void iop_tmp_discard(const char *tmp);

/*
 * SIGINT, SIGTERM and SIGHUP remove the temporary file being written, then
 * take their default action. For commands that do not handle those
 * signals themselves.
 */
void iop_tmp_cleanup_signals(void);

/*
 * The mode a file written at @final gets: 0644 less the umask for a new
 * file; an existing regular file keeps its permission bits (never set-id
 * or sticky bits), and only when the caller owns it (a file someone else
 * planted, say mode 6777, must not pass its mode to a file root writes).
 */
mode_t iop_out_mode(const char *final);

/*
 * Make @final this process's alone until iop_out_release(): a new empty
 * file is created if none is there (O_EXCL|O_NOFOLLOW), and an exclusive
 * flock(2) is held on whatever inode the name points at, handed on by
 * iop_tmp_commit() to the file renamed over it. A second writer gets
 * -EBUSY with a one-line reason: records are never lost to two writers
 * replacing each other's file. Returns 1 if the file was created (the
 * caller removes it if it writes nothing), 0 if it existed, or -errno.
 */
int iop_out_claim(const char *final, char *why, size_t len);

/* Drop the claim of iop_out_claim(). */
void iop_out_release(void);

/*
 * Whether @final may be written: no control character in it
 * (iop_out_name_ok()), its directory exists and is writable, and @final
 * is absent or a regular file (not a symlink, not a directory), and
 * its name and its temporary name fit NAME_MAX and PATH_MAX (a name too
 * long would be found only when the records are written, after the run).
 * 0, or -errno with a one-line reason naming @final.
 */
int iop_out_check(const char *final, char *why, size_t len);

/*
 * Create a new file "<dir>/<prefix>-<UTC time>-<pid><suffix>" with
 * O_EXCL|O_NOFOLLOW, adding "-2", "-3"... before @suffix while the name is
 * taken: two runs started in the same second never share a file. With
 * @also, the same name with that suffix is created (empty) as well, and
 * both must be new. The name goes to @out. Returns the fd or -errno.
 */
int iop_out_unique(const char *dir, const char *prefix, const char *suffix, const char *also,
		   char *out, size_t len);

/*
 * Create @final, new, holding the bytes of @src_fd from offset 0, so that
 * it has that name only once complete: the copy goes into an unnamed file
 * of @final's directory (O_TMPFILE; where the filesystem has none, a
 * temporary name, iop_tmp_create()) and link(2) names it, which fails
 * rather than replace anything there: -EEXIST when @final is taken (a
 * symlink included). Killed before the link, nothing of it is left
 * (O_TMPFILE). 0 or -errno.
 */
int iop_out_publish(int src_fd, const char *final, mode_t mode);

/*
 * iop_tmp_commit() of @n files that belong together (a table and its
 * JSON): every @final is checked first as iop_tmp_commit() checks it, and
 * none is renamed unless all can be; a rename that fails after that (the
 * name changed in between) removes the ones renamed before it, so that no
 * mixed set is left. Every @tmp is gone on return. 0, or -errno with the
 * index of the final name that failed in *@failed.
 */
int iop_tmp_commit_set(const char *const *tmp, const char *const *final, size_t n,
		       size_t *failed);

/*
 * The rule for a directory iopath writes into (lava jobs --out, run
 * --results; scripts/lib/common.bash's out_dir through `iopath outdir`):
 * no control character in its name; a directory, writable, not a
 * symbolic link; or absent with its parent an existing directory (made
 * by iop_out_dir_make(), never the parents: a typo is not a tree).
 * 0, or -errno with a one-line reason naming @dir.
 */
int iop_out_dir_check(const char *dir, char *why, size_t len);

/* iop_out_dir_check(), then @dir made (0755 less the umask) if missing. */
int iop_out_dir_make(const char *dir, char *why, size_t len);

#endif
