/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to libiopath: small system helpers. Those above the line are
 * async-signal-safe (no stdio, no malloc): the guardian runs them after a
 * fork from a possibly multi-threaded process.
 */
#ifndef IOPATH_SYS_H
#define IOPATH_SYS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

void s_cpy(char *d, size_t cap, const char *s);
void s_cat(char *d, size_t cap, const char *s);
void s_cat_u(char *d, size_t cap, unsigned long long v);
/* Decimal up to the end of the string or a newline; -1 if malformed. */
int s_to_u(const char *s, unsigned long long *v);
bool s_prefix(const char *s, const char *prefix);
/* Is @path exactly "<parent>/<name>", name a plain file name? */
bool own_child(const char *path, const char *parent);
bool has_dotdot(const char *path);
void nap_ms(int ms);
ssize_t read_full(int fd, char *buf, size_t len);
int write_full(int fd, const char *buf, size_t len);
/* Read a small file (sysfs, procfs) into @buf, NUL-terminated. */
int read_small(const char *path, char *buf, size_t len);
/* Write a value into a sysfs attribute in one write(2), as sysfs wants. */
int write_attr(const char *path, const char *val);
/* Start time (clock ticks since boot) and state letter of a process. */
int proc_stat(long pid, unsigned long long *start, char *state);
/* Is @pid a live (not zombie) process, started at @start if that is known? */
bool pid_alive(long pid, unsigned long long start);

/* ---- not async-signal-safe ---- */

int mkdir_p(const char *path, mode_t mode);
/* Octal escapes in /proc/self/mountinfo (\040 for a space) undone in place. */
void unescape(char *s);

struct mountent {
	unsigned int major, minor;
	char target[PATH_MAX];
	char fstype[64];
	char source[PATH_MAX];
};

/* Call @fn for each line of /proc/self/mountinfo; stops when @fn returns non-zero. */
int walk_mounts(int (*fn)(const struct mountent *m, void *arg), void *arg);
/*
 * Run a tool with stdout and stderr collected in @out: its exit status
 * (128+signal if killed) or -errno, -ENOENT if it is not installed.
 */
int run_tool(char *const argv[], char *out, size_t cap);
/*
 * Is the tool @name where run_tool() looks for it (PATH, then /usr/sbin
 * and /sbin)? 0 if a file of that name is there, whether or not it runs,
 * -ENOENT if not.
 */
int find_tool(const char *name);
/* First non-empty line of @text into @line. */
void first_line(const char *text, char *line, size_t len);

#endif
