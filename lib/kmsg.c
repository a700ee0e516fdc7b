// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel log check (see kmsg.h). A test passes only if the kernel did not
 * complain while it ran: a WARN_ON in iomap or a lockdep splat in the
 * ext4/XFS mapping code leaves the syscall's return value intact, so the
 * log is the only place the bug shows.
 *
 * /dev/kmsg gives one record per read(2), "pri,seq,usec,flags;text\n"
 * followed by " KEY=value" continuation lines, with non-printable bytes of
 * the text escaped as \xNN. The sequence number orders records across the
 * whole boot, so "after the marker" is "seq greater than the marker's".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "array_size.h"
#include "kmsg.h"

/* Larger than any record (the kernel's limit is 1024 text + dict). */
#define KMSG_RECORD_MAX 8192

/* The patterns of lib/kmsg_patterns.h, by kind. */
#define IOP_KMSG_ANYWHERE(text) text,
#define IOP_KMSG_WORD(text)
#define IOP_KMSG_LINE_START(text)
static const char *const bad_patterns[] = {
#include "kmsg_patterns.h"
};

#undef IOP_KMSG_ANYWHERE
#undef IOP_KMSG_WORD
#undef IOP_KMSG_LINE_START

#define IOP_KMSG_ANYWHERE(text)
#define IOP_KMSG_WORD(text) text,
#define IOP_KMSG_LINE_START(text)
static const char *const bad_words[] = {
#include "kmsg_patterns.h"
};

#undef IOP_KMSG_ANYWHERE
#undef IOP_KMSG_WORD
#undef IOP_KMSG_LINE_START

#define IOP_KMSG_ANYWHERE(text)
#define IOP_KMSG_WORD(text)
#define IOP_KMSG_LINE_START(text) text,
static const char *const bad_starts[] = {
#include "kmsg_patterns.h"
};

#undef IOP_KMSG_ANYWHERE
#undef IOP_KMSG_WORD
#undef IOP_KMSG_LINE_START

static bool word_start(const char *line, const char *at)
{
	return at == line || !(isalnum((unsigned char)at[-1]) || at[-1] == '_');
}

int iop_kmsg_line_is_bad(const char *line)
{
	const char *at;
	size_t i;

	if (!line)
		return 0;
	for (i = 0; i < ARRAY_SIZE(bad_patterns); i++)
		if (strstr(line, bad_patterns[i]))
			return 1;
	for (i = 0; i < ARRAY_SIZE(bad_words); i++)
		for (at = strstr(line, bad_words[i]); at; at = strstr(at + 1, bad_words[i]))
			if (word_start(line, at))
				return 1;
	for (i = 0; i < ARRAY_SIZE(bad_starts); i++)
		if (!strncmp(line, bad_starts[i], strlen(bad_starts[i])))
			return 1;
	return 0;
}

static const char *skip_enclosed(const char *p, char open, char close, const char *body)
{
	const char *q = p + 1;

	if (*p != open)
		return p;
	while (*q && strchr(body, *q))
		q++;
	return q > p + 1 && *q == close ? q + 1 : p;
}

const char *iop_kmsg_console_text(const char *line)
{
	const char *p;

	if (!line)
		return NULL;
	p = skip_enclosed(line, '<', '>', "0123456789");
	line = skip_enclosed(p, '[', ']', " 0123456789.");
	if (line != p && *line == ' ')
		line++;
	return line;
}

/*
 * Split a record into its facility, sequence number and text
 * (NUL-terminated in place). Returns false for something that is not a
 * record.
 */
static bool parse_record(char *rec, unsigned int *facility, uint64_t *seq, char **text)
{
	char *semi, *nl, *comma, *end;
	unsigned long pri;

	semi = strchr(rec, ';');
	if (!semi)
		return false;
	comma = strchr(rec, ',');
	if (!comma || comma > semi)
		return false;
	errno = 0;
	pri = strtoul(rec, &end, 10);
	if (errno || end != comma)
		return false;
	*facility = pri >> 3;
	*seq = strtoull(comma + 1, &end, 10);
	if (errno || end == comma + 1 || (*end != ',' && *end != ';'))
		return false;
	*text = semi + 1;
	nl = strchr(*text, '\n');
	if (nl)
		*nl = '\0';
	return true;
}

/*
 * Next record from a non-blocking /dev/kmsg descriptor. 0: one record in
 * @buf, -EAGAIN: no more, other -errno: failure. Records overwritten
 * before we read them (EPIPE) are skipped: the kernel moves the reader to
 * the oldest record still there.
 */
static int read_record(int fd, char *buf, size_t len)
{
	ssize_t n;

	for (;;) {
		n = read(fd, buf, len - 1);
		if (n > 0) {
			buf[n] = '\0';
			return 0;
		}
		if (n == 0)
			return -EAGAIN;
		if (errno == EINTR || errno == EPIPE)
			continue;
		return -errno;
	}
}

/*
 * The kernel log device. IOPATH_KMSG_DEV replaces it for the tests of
 * the check itself: /dev/null accepts a marker and drops it, as /dev/kmsg
 * does under printk_devkmsg=off.
 */
static const char *kmsg_dev(void)
{
	const char *dev = getenv("IOPATH_KMSG_DEV");

	return dev && *dev ? dev : "/dev/kmsg";
}

static uint64_t marker_nonce(void)
{
	struct timespec ts;
	uint64_t v;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) == sizeof(v))
		return v;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30);
}

/* Find the record whose text is @text, reading from the current position. */
static int find_marker(int fd, const char *text, uint64_t *seq, char *buf)
{
	unsigned int facility;
	uint64_t s;
	char *t;
	int ret;

	while (!(ret = read_record(fd, buf, KMSG_RECORD_MAX))) {
		if (parse_record(buf, &facility, &s, &t) && !strcmp(t, text)) {
			*seq = s;
			return 0;
		}
	}
	return ret == -EAGAIN ? -ENOENT : ret;
}

int iop_kmsg_mark(struct iop_kmsg_mark *m, const char *what)
{
	char line[sizeof(m->text) + 8], *buf, *p;
	ssize_t written;
	int fd, ret;
	size_t n;

	if (!m)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	/*
	 * The text must come back byte for byte, so nothing /dev/kmsg would
	 * escape goes in: non-printables and backslashes become '_'.
	 */
	snprintf(m->text, sizeof(m->text), "iopath: %.48s %d %016" PRIx64,
		 what && *what ? what : "mark", (int)getpid(), marker_nonce());
	for (p = m->text; *p; p++)
		if (!isprint((unsigned char)*p) || *p == '\\')
			*p = '_';

	buf = malloc(KMSG_RECORD_MAX);
	if (!buf)
		return -ENOMEM;
	/*
	 * A fresh descriptor per marker: /dev/kmsg rate-limits writes per
	 * open file and drops the excess silently.
	 */
	fd = open(kmsg_dev(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out_free;
	}
	/* Start reading where the marker will land, not at boot. */
	if (lseek(fd, 0, SEEK_END) < 0) {
		ret = -errno;
		goto out_close;
	}
	n = (size_t)snprintf(line, sizeof(line), "<6>%s\n", m->text);
	written = write(fd, line, n);
	if (written != (ssize_t)n) {
		ret = written < 0 ? -errno : -EIO;
		goto out_close;
	}
	ret = find_marker(fd, m->text, &m->seq, buf);
	if (ret == -ENOENT) {
		/* Lost a race with the end position: look from the oldest. */
		if (lseek(fd, 0, SEEK_SET) < 0)
			ret = -errno;
		else
			ret = find_marker(fd, m->text, &m->seq, buf);
	}
out_close:
	close(fd);
out_free:
	free(buf);
	return ret;
}

int iop_kmsg_scan(const struct iop_kmsg_mark *m, char *first, size_t len)
{
	int fd, ret, bad = 0;
	unsigned int facility;
	uint64_t seq;
	char *buf, *text;

	if (!m)
		return -EINVAL;
	if (first && len)
		first[0] = '\0';
	buf = malloc(KMSG_RECORD_MAX);
	if (!buf)
		return -ENOMEM;
	fd = open(kmsg_dev(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out_free;
	}
	/*
	 * There is no seeking to a sequence number: read from the oldest
	 * record and skip up to the marker. The buffer holds at most a few
	 * thousand records, a millisecond's work.
	 */
	if (lseek(fd, 0, SEEK_SET) < 0) {
		ret = -errno;
		goto out_close;
	}
	while (!(ret = read_record(fd, buf, KMSG_RECORD_MAX))) {
		if (!parse_record(buf, &facility, &seq, &text) || seq <= m->seq)
			continue;
		if (facility != 0 && !m->include_user)
			continue;
		if (!iop_kmsg_line_is_bad(text))
			continue;
		if (!bad && first && len)
			snprintf(first, len, "%s", text);
		bad++;
	}
	if (ret == -EAGAIN)
		ret = bad;
out_close:
	close(fd);
out_free:
	free(buf);
	return ret;
}
