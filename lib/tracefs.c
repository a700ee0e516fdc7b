// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A private tracefs instance ("iopath-<pid>-<n>"): events are enabled,
 * filtered and read there, so the global buffer and anybody else's tracing
 * are left alone.
 *
 * All access goes through a directory fd on the tracefs root. When tracefs
 * is not mounted anywhere, it is mounted at IOP_RUN_DIR/tracefs-<pid>, the
 * root is opened and the mount is detached again at once: the fd keeps the
 * filesystem reachable for the lifetime of the instance, and a process that
 * dies at any point leaves no mount behind.
 *
 * The instance itself would outlive a killed process, so a guardian (own
 * session, out of reach of a harness that SIGKILLs the test's process
 * group: guardian.h) removes the instance when the owner is gone.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "guardian.h"
#include "scratch.h"
#include "sys.h"
#include "tracefs.h"

/* Per-CPU buffer of an instance: a few thousand iomap events fit easily. */
#define IOP_TRACE_BUFFER_KB "2048"

struct iop_trace {
	int root_fd;		/* tracefs root (possibly a detached mount) */
	char name[64];		/* "iopath-<pid>-<n>" */
	char dir[96];		/* "instances/<name>", relative to root_fd */
	pid_t guardian;		/* not our child: see guardian.h */
	int guardian_fd;	/* owner's end of the guardian's lifeline */
};

static unsigned int iop_trace_seq;
static pthread_mutex_t iop_trace_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * A tracefs mount that is already there. Mounts under IOP_RUN_DIR belong
 * to other iopath processes and may vanish at any time: skip them.
 */
static int find_tracefs(const struct mountent *m, void *arg)
{
	int *fd = arg;

	if (strcmp(m->fstype, "tracefs") ||
	    !strncmp(m->target, IOP_RUN_DIR "/", strlen(IOP_RUN_DIR) + 1))
		return 0;
	*fd = open(m->target, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*fd >= 0)
		return 1;
	*fd = -errno;
	return 0;
}

static int open_mounted_tracefs(void)
{
	int fd = -ENOENT, ret;

	ret = walk_mounts(find_tracefs, &fd);
	return ret < 0 ? ret : fd;
}

/* Mount tracefs privately, keep an fd on its root, detach the mount. */
static int open_own_tracefs(void)
{
	char path[PATH_MAX];
	int fd, err;

	if (mkdir(IOP_RUN_DIR, 0755) && errno != EEXIST)
		return errno == EACCES || errno == EROFS ? -EACCES : -errno;
	snprintf(path, sizeof(path), IOP_RUN_DIR "/tracefs-%d", (int)getpid());
	if (mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	if (mount("nodev", path, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		err = errno;
		rmdir(path);
		if (err == ENODEV)
			return -ENOENT;
		return err == EPERM ? -EACCES : -err;
	}
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	umount2(path, MNT_DETACH);
	rmdir(path);
	return err ? err : fd;
}

int iop_tracefs_root(void)
{
	int fd = open_mounted_tracefs();

	return fd >= 0 ? fd : open_own_tracefs();
}

static int write_file(int root_fd, const char *dir, const char *file, const char *val,
		      int extra_flags)
{
	char path[PATH_MAX];
	size_t len = strlen(val);
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = openat(root_fd, path, O_WRONLY | O_CLOEXEC | extra_flags);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/*
 * tracefs refuses rmdir of an instance while one of its files is open;
 * a reader that is just finishing gets a moment.
 */
static int remove_instance(int root_fd, const char *dir)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!unlinkat(root_fd, dir, AT_REMOVEDIR) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		nap_ms(10);
	}
	return -EBUSY;
}

/* In the guardian, once the owner is gone: remove the instance. */
static void guardian_undo(void *dir, int root_fd)
{
	remove_instance(root_fd, dir);
}

int iop_trace_open(struct iop_trace **out)
{
	struct iop_trace *t;
	unsigned int n;
	int err, tries;

	*out = NULL;
	if (geteuid() != 0)
		return -EACCES;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->guardian = -1;
	t->guardian_fd = -1;

	t->root_fd = iop_tracefs_root();
	if (t->root_fd < 0) {
		err = t->root_fd;
		goto free_t;
	}
	if (faccessat(t->root_fd, "instances", F_OK, 0)) {
		err = -ENOENT;	/* a tracefs without instances: too old */
		goto close_root;
	}

	for (tries = 0; tries < 64; tries++) {
		pthread_mutex_lock(&iop_trace_lock);
		n = iop_trace_seq++;
		pthread_mutex_unlock(&iop_trace_lock);
		snprintf(t->name, sizeof(t->name), "iopath-%d-%u", (int)getpid(), n);
		snprintf(t->dir, sizeof(t->dir), "instances/%s", t->name);
		if (!mkdirat(t->root_fd, t->dir, 0700))
			break;
		if (errno != EEXIST) {
			err = errno == EPERM ? -EACCES : -errno;
			goto close_root;
		}
	}
	if (tries == 64) {
		err = -EEXIST;
		goto close_root;
	}

	err = iop_guardian_start("iopath-trace-g", t->root_fd, guardian_undo, t->dir,
				 &t->guardian, &t->guardian_fd);
	if (err)
		goto remove_instance;
	/* A new instance traces as soon as an event is enabled: not yet. */
	err = write_file(t->root_fd, t->dir, "tracing_on", "0", 0);
	if (err)
		goto release_guardian;
	/* A smaller buffer only risks lost events, which the read reports. */
	write_file(t->root_fd, t->dir, "buffer_size_kb", IOP_TRACE_BUFFER_KB, 0);
	*out = t;
	return 0;

release_guardian:
	iop_guardian_release(t->guardian, &t->guardian_fd,
			     remove_instance(t->root_fd, t->dir) == 0);
	goto close_root;
remove_instance:
	remove_instance(t->root_fd, t->dir);
close_root:
	close(t->root_fd);
free_t:
	free(t);
	return err;
}

void iop_trace_close(struct iop_trace *t)
{
	if (!t)
		return;
	write_file(t->root_fd, t->dir, "tracing_on", "0", 0);
	/* Still busy: the guardian keeps trying. */
	iop_guardian_release(t->guardian, &t->guardian_fd,
			     remove_instance(t->root_fd, t->dir) == 0);
	close(t->root_fd);
	free(t);
}

static bool valid_name(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

bool iop_trace_has_event(struct iop_trace *t, const char *system, const char *event)
{
	char path[PATH_MAX];

	if (!valid_name(system) || !valid_name(event))
		return false;
	snprintf(path, sizeof(path), "%s/events/%s/%s/enable", t->dir, system, event);
	return faccessat(t->root_fd, path, F_OK, 0) == 0;
}

int iop_trace_enable(struct iop_trace *t, const char *system, const char *event,
		     const char *filter)
{
	char dir[PATH_MAX];
	int err;

	if (!valid_name(system) || !valid_name(event))
		return -EINVAL;
	if (!iop_trace_has_event(t, system, event))
		return -ENOENT;
	snprintf(dir, sizeof(dir), "%s/events/%s/%s", t->dir, system, event);
	if (filter && *filter) {
		err = write_file(t->root_fd, dir, "filter", filter, O_TRUNC);
		if (err)
			return err;
	}
	return write_file(t->root_fd, dir, "enable", "1", 0);
}

int iop_trace_start(struct iop_trace *t)
{
	int err;

	err = write_file(t->root_fd, t->dir, "tracing_on", "0", 0);
	if (err)
		return err;
	/* Opening "trace" for writing with O_TRUNC empties the buffer. */
	err = write_file(t->root_fd, t->dir, "trace", "", O_TRUNC);
	if (err)
		return err;
	return write_file(t->root_fd, t->dir, "tracing_on", "1", 0);
}

int iop_trace_stop(struct iop_trace *t)
{
	return write_file(t->root_fd, t->dir, "tracing_on", "0", 0);
}

/*
 * One line of the "trace" file:
 *   "  comm-with-dashes-1234  [001] d..1.  123.456789: event: fields"
 * comm may hold spaces and dashes, so anchor on the "[cpu]" column.
 * Returns 1 for an event, 0 for a line to ignore, -EOVERFLOW for a
 * "[LOST n EVENTS]" marker.
 */
static int parse_line(char *line, struct iop_trace_event *ev)
{
	char *cpu, *p, *dash, *colon, *name, *end;
	uint64_t sec, frac = 0;
	int digits = 0;

	if (line[0] == '#' || line[0] == '\0')
		return 0;
	if (strstr(line, "[LOST ") && strstr(line, " EVENTS]"))
		return -EOVERFLOW;
	for (cpu = strchr(line, '['); cpu; cpu = strchr(cpu + 1, '[')) {
		p = cpu + 1;
		if (!isdigit((unsigned char)*p))
			continue;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p == ']')
			break;
	}
	if (!cpu)
		return 0;
	/* "comm-pid" before the cpu column */
	end = cpu;
	while (end > line && end[-1] == ' ')
		end--;
	*end = '\0';
	dash = strrchr(line, '-');
	ev->pid = dash ? atoi(dash + 1) : -1;

	/*
	 * After "[cpu]": the flags column (which may hold digits, "d..1."),
	 * then the first token of the form "<digits>.<digits>:".
	 */
	p = strchr(cpu, ']') + 1;
	for (;;) {
		char *q;

		while (*p == ' ')
			p++;
		if (!*p)
			return 0;
		q = p;
		while (isdigit((unsigned char)*q))
			q++;
		if (q > p && *q == '.' && isdigit((unsigned char)q[1])) {
			q++;
			while (isdigit((unsigned char)*q))
				q++;
			if (*q == ':')
				break;
		}
		p += strcspn(p, " ");
	}
	sec = strtoull(p, &p, 10);
	p++;	/* '.' */
	while (isdigit((unsigned char)*p)) {
		if (digits < 9) {
			frac = frac * 10 + (uint64_t)(*p - '0');
			digits++;
		}
		p++;
	}
	while (digits++ < 9)
		frac *= 10;
	ev->ts_ns = sec * 1000000000ull + frac;
	p++;	/* ':' */
	while (*p == ' ')
		p++;
	name = p;
	colon = strstr(p, ": ");
	if (colon) {
		*colon = '\0';
		ev->fields = colon + 2;
	} else {
		colon = strchr(p, ':');
		if (!colon)
			return 0;
		*colon = '\0';
		ev->fields = colon + 1;
	}
	ev->event = name;
	return 1;
}

int iop_trace_read(struct iop_trace *t,
		   int (*cb)(const struct iop_trace_event *ev, void *arg), void *arg)
{
	char path[PATH_MAX];
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int fd, count = 0, ret = 0;

	snprintf(path, sizeof(path), "%s/trace", t->dir);
	fd = openat(t->root_fd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "r");
	if (!f) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct iop_trace_event ev = { 0 };
		int r;

		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		r = parse_line(line, &ev);
		if (r < 0) {
			ret = r;
			break;
		}
		if (r == 0)
			continue;
		count++;
		if (cb && cb(&ev, arg))
			break;
	}
	if (!ret && ferror(f))
		ret = -EIO;
	free(line);
	fclose(f);
	return ret ? ret : count;
}

/*
 * Where "name" starts as a field: at the start or after a space, followed
 * by '=' or ' ' ("ino 0x83" in iomap events, "ino=12" elsewhere). Returns
 * a pointer to the value text or NULL.
 */
static const char *find_field(const char *fields, const char *name)
{
	size_t n = strlen(name);
	const char *p = fields;

	if (!n)
		return NULL;
	while ((p = strstr(p, name))) {
		if ((p == fields || p[-1] == ' ') && (p[n] == '=' || p[n] == ' '))
			return p + n + 1;
		/* an empty last field ("flags %s" of no flags, trailing space trimmed) */
		if ((p == fields || p[-1] == ' ') && p[n] == '\0')
			return p + n;
		p += n;
	}
	return NULL;
}

static int parse_u64(const char *s, uint64_t *val, const char **endp)
{
	char *end;

	if (*s == '-' || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*val = strtoull(s, &end, 0);
	if (errno)
		return -errno;
	*endp = end;
	return 0;
}

int iop_trace_field_u64(const struct iop_trace_event *ev, const char *name, uint64_t *val)
{
	const char *v = find_field(ev->fields, name), *end;
	uint64_t a, b;

	if (!v)
		return -ENOENT;
	/* "flags  (0x0)": an empty symbolic part */
	while (*v == ' ')
		v++;
	if (!parse_u64(v, &a, &end)) {
		/* "dev 7:0" (iomap) or "dev 7,0" (ext4): back to dev_t */
		if ((*end == ':' || *end == ',') && !parse_u64(end + 1, &b, &end) &&
		    (*end == ' ' || *end == '\0')) {
			*val = iop_trace_devno((unsigned int)a, (unsigned int)b);
			return 0;
		}
		if (*end != ' ' && *end != '\0')
			return -EINVAL;
		*val = a;
		return 0;
	}
	/* "type MAPPED (0x2)", "flags NEW|SHARED (0x5)": take the raw value */
	if (*v != '(') {
		v = strchr(v, ' ');
		if (!v)
			return -EINVAL;
		while (*v == ' ')
			v++;
	}
	if (*v != '(' || parse_u64(v + 1, &a, &end) || *end != ')')
		return -EINVAL;
	*val = a;
	return 0;
}

int iop_trace_field_str(const struct iop_trace_event *ev, const char *name, char *buf, size_t len)
{
	const char *v = find_field(ev->fields, name);
	size_t n;

	if (!v)
		return -ENOENT;
	n = strcspn(v, " ");
	if (!len)
		return -ENOSPC;
	if (n >= len) {
		memcpy(buf, v, len - 1);
		buf[len - 1] = '\0';
		return -ENOSPC;
	}
	memcpy(buf, v, n);
	buf[n] = '\0';
	return 0;
}

/*
 * The kernel-internal dev_t (MINORBITS = 20) that trace events store and
 * that filters compare against; iomap events print it as "major:minor".
 */
uint64_t iop_trace_devno(unsigned int major, unsigned int minor)
{
	return ((uint64_t)major << 20) | (minor & ((1u << 20) - 1));
}
