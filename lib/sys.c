// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Small system helpers of the scratch code (see sys.h). The first half is
 * async-signal-safe: the guardian runs it after a fork from a possibly
 * multi-threaded process.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys.h"

/* ---- async-signal-safe string helpers ---------------------------------- */

void s_cpy(char *d, size_t cap, const char *s)
{
	size_t n = strlen(s);

	if (!cap)
		return;
	if (n >= cap)
		n = cap - 1;
	memcpy(d, s, n);
	d[n] = '\0';
}

void s_cat(char *d, size_t cap, const char *s)
{
	size_t l = strnlen(d, cap);

	if (l < cap)
		s_cpy(d + l, cap - l, s);
}

void s_cat_u(char *d, size_t cap, unsigned long long v)
{
	char b[24];
	int i = sizeof(b) - 1;

	b[i] = '\0';
	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	s_cat(d, cap, b + i);
}

/* Decimal up to the end of the string or a newline; -1 if malformed. */
int s_to_u(const char *s, unsigned long long *v)
{
	unsigned long long r = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (r > (ULLONG_MAX - 9) / 10)
			return -1;
		r = r * 10 + (unsigned long long)(*s - '0');
	}
	if (*s && *s != '\n')
		return -1;
	*v = r;
	return 0;
}

bool s_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * Is @path exactly "<parent>/<name>", name a plain file name? State files
 * are root's, but what they name is checked before anything is undone.
 */
bool own_child(const char *path, const char *parent)
{
	size_t l = strlen(parent);
	const char *name = path + l + 1;

	return !strncmp(path, parent, l) && path[l] == '/' && *name && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

bool has_dotdot(const char *path)
{
	for (const char *p = strstr(path, ".."); p; p = strstr(p + 1, ".."))
		if ((p == path || p[-1] == '/') && (p[2] == '/' || !p[2]))
			return true;
	return false;
}

void nap_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

ssize_t read_full(int fd, char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int write_full(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read a small file (sysfs, procfs) into @buf, NUL-terminated. */
int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read_full(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	return (int)n;
}

/* Write a value into a sysfs attribute in one write(2), as sysfs wants. */
int write_attr(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	do {
		n = write(fd, val, strlen(val));
	} while (n < 0 && errno == EINTR);
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

/* ---- processes --------------------------------------------------------- */

/*
 * Start time (clock ticks since boot) and state letter of a process, from
 * /proc/<pid>/stat. The start time tells a live owner from a new process
 * that happens to have the same pid.
 */
int proc_stat(long pid, unsigned long long *start, char *state)
{
	char path[64] = "/proc/", buf[1024], *p, *end;
	int n, field;

	s_cat_u(path, sizeof(path), (unsigned long long)pid);
	s_cat(path, sizeof(path), "/stat");
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	/* comm may contain spaces and parentheses: fields start after the last ')'. */
	end = buf + n;
	for (p = end; p > buf && p[-1] != ')'; p--)
		;
	if (p == buf)
		return -EINVAL;
	/* p points after ')': " S ppid ..." ; state is field 3, starttime field 22. */
	for (field = 2; p < end && field < 22; p++) {
		if (*p != ' ')
			continue;
		field++;
		if (field == 3 && state)
			*state = p[1];
	}
	if (field != 22)
		return -EINVAL;
	*start = 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++)
		*start = *start * 10 + (unsigned long long)(*p - '0');
	return 0;
}

/* Is @pid a live (not zombie) process, started at @start if that is known? */
bool pid_alive(long pid, unsigned long long start)
{
	unsigned long long now;
	char state = '?';

	if (pid <= 0)
		return false;
	if (kill((pid_t)pid, 0) && errno == ESRCH)
		return false;
	if (proc_stat(pid, &now, &state))
		return true;	/* no /proc: trust kill() */
	if (state == 'Z' || state == 'X')
		return false;
	return !start || now == start;
}

/* ---- for the owner side only (no async-signal constraints) ------------- */

int mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];

	s_cpy(buf, sizeof(buf), path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Octal escapes in /proc/self/mountinfo (\040 for a space) undone in place. */
void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

/* Call @fn for each line of /proc/self/mountinfo; stops when @fn returns non-zero. */
int walk_mounts(int (*fn)(const struct mountent *m, void *arg), void *arg)
{
	static const char sep[] = " - ";
	struct mountent m;
	char *line = NULL, *dash;
	size_t cap = 0;
	FILE *f;
	int ret = 0;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (!ret && getline(&line, &cap, f) > 0) {
		dash = strstr(line, sep);
		if (!dash)
			continue;
		if (sscanf(line, "%*d %*d %u:%u %*s %4095s", &m.major, &m.minor, m.target) != 3)
			continue;
		if (sscanf(dash + strlen(sep), "%63s %4095s", m.fstype, m.source) != 2)
			continue;
		unescape(m.target);
		unescape(m.source);
		ret = fn(&m, arg);
	}
	free(line);
	fclose(f);
	return ret;
}

/* ---- tools ------------------------------------------------------------- */

static bool tool_in(const char *dir, size_t dlen, const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	int n;

	n = snprintf(path, sizeof(path), "%.*s/%s", (int)dlen, dlen ? dir : ".", name);
	/* What execvp() would run: a regular file with an execute bit. */
	return n > 0 && (size_t)n < sizeof(path) && !stat(path, &st) && S_ISREG(st.st_mode) &&
	       (st.st_mode & 0111);
}

int find_tool(const char *name)
{
	const char *dir = getenv("PATH"), *end;

	if (!name || !*name || strchr(name, '/'))
		return -EINVAL;
	for (; dir; dir = *end ? end + 1 : NULL) {
		end = strchrnul(dir, ':');
		if (tool_in(dir, (size_t)(end - dir), name))
			return 0;
	}
	return tool_in("/usr/sbin", 9, name) || tool_in("/sbin", 5, name) ? 0 : -ENOENT;
}

/*
 * Run a filesystem tool with stdout and stderr collected in @out. Returns
 * its exit status (128+signal if killed) or -errno; -ENOENT if the tool is
 * not installed. /usr/sbin and /sbin are tried when PATH lacks them.
 */
int run_tool(char *const argv[], char *out, size_t cap)
{
	char alt[2][PATH_MAX];
	size_t used = 0;
	int p[2], status, null;
	pid_t pid;

	snprintf(alt[0], sizeof(alt[0]), "/usr/sbin/%s", argv[0]);
	snprintf(alt[1], sizeof(alt[1]), "/sbin/%s", argv[0]);
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(p[0]);
		close(p[1]);
		return err;
	}
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execvp(argv[0], argv);
		execv(alt[0], argv);
		execv(alt[1], argv);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		char sink[512];
		ssize_t n;

		if (used + 1 < cap)
			n = read(p[0], out + used, cap - 1 - used);
		else
			n = read(p[0], sink, sizeof(sink));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (used + 1 < cap)
			used += (size_t)n;
	}
	if (cap)
		out[used] = '\0';
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	if (WEXITSTATUS(status) == 127 && used == 0)
		return -ENOENT;
	return WEXITSTATUS(status);
}

/* First non-empty line of @text into @line. */
void first_line(const char *text, char *line, size_t len)
{
	while (*text == '\n' || *text == ' ' || *text == '\t')
		text++;
	snprintf(line, len, "%.*s", (int)strcspn(text, "\n"), text);
}
