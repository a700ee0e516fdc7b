// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The guardian of a scratch filesystem or a trace instance (see
 * guardian.h): started with a handshake, released with "done" or by the
 * owner's death.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guardian.h"
#include "sys.h"

static void close_fds_from(unsigned int first)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, first, ~0U, 0) == 0)
		return;
#endif
	for (unsigned int fd = first; fd < 65536; fd++)
		close((int)fd);
}

/*
 * Keep nothing of the owner's but the lifeline (made fd 3) and @keep_fd
 * (made fd 4): above all not the owner's end of another guardian's
 * lifeline, which would keep that guardian from ever seeing EOF, nor a pipe
 * a harness waits on for end-of-output. Returns the new @keep_fd.
 */
static int keep_only(int sock, int keep_fd)
{
	bool keep = keep_fd >= 0;
	int null;

	/* Out of the way of 0 to 4 first. */
	sock = fcntl(sock, F_DUPFD, 5);
	if (keep)
		keep_fd = fcntl(keep_fd, F_DUPFD, 5);
	null = open("/dev/null", O_RDWR);
	if (sock < 0 || null < 0 || (keep && keep_fd < 0))
		_exit(1);
	dup2(null, 0);
	dup2(null, 1);
	dup2(null, 2);
	dup2(sock, 3);
	if (keep) {
		dup2(keep_fd, 4);
		keep_fd = 4;
	}
	close_fds_from(keep ? 5 : 4);
	return keep_fd;
}

/*
 * Runs in a grandchild of the owner, in its own session. Waits on its end
 * of the lifeline; "done" means the owner undid everything itself,
 * end-of-file without it means the owner is gone: run @undo.
 */
static void __attribute__((noreturn)) guardian_main(int sock, const char *name, int keep_fd,
						    iop_guardian_undo undo, void *arg)
{
	char buf[64] = "ready ";
	sigset_t none;

	setsid();
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if (chdir("/"))
		_exit(1);
	keep_fd = keep_only(sock, keep_fd);
	sock = 3;
	prctl(PR_SET_NAME, name, 0, 0, 0);

	s_cat_u(buf, sizeof(buf), (unsigned long long)getpid());
	s_cat(buf, sizeof(buf), "\n");
	send(sock, buf, strlen(buf), MSG_NOSIGNAL);
	for (;;) {
		ssize_t n = read(sock, buf, sizeof(buf) - 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		buf[n] = '\0';
		if (strstr(buf, "done"))
			_exit(0);
	}
	undo(arg, keep_fd);
	_exit(0);
}

/* The guardian's "ready <pid>" line: its pid, or -ECHILD if it never came. */
static long read_ready(int fd)
{
	char buf[64] = "";
	unsigned long long pid;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t got = 0;

	while (got < sizeof(buf) - 1 && !memchr(buf, '\n', got)) {
		ssize_t n;
		int r = poll(&pfd, 1, 5000);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		buf[got] = '\0';
	}
	if (!s_prefix(buf, "ready ") || s_to_u(buf + 6, &pid) || !pid)
		return -ECHILD;
	return (long)pid;
}

int iop_guardian_start(const char *name, int keep_fd, iop_guardian_undo undo, void *arg,
		       pid_t *pid, int *fd)
{
	int sv[2], status;
	long ready;
	pid_t mid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	/*
	 * Fork twice: the guardian is then nobody's child here, so a caller's
	 * wait() loop for its own children neither reaps it nor waits for it.
	 */
	mid = fork();
	if (mid < 0) {
		int err = -errno;

		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (mid == 0) {
		close(sv[0]);
		if (fork() != 0)
			_exit(0);
		guardian_main(sv[1], name, keep_fd, undo, arg);
	}
	close(sv[1]);
	while (waitpid(mid, &status, 0) < 0 && errno == EINTR)
		;
	ready = read_ready(sv[0]);
	if (ready < 0) {
		close(sv[0]);
		return (int)ready;
	}
	*pid = (pid_t)ready;
	*fd = sv[0];
	return 0;
}

void iop_guardian_release(pid_t guardian, int *fd, bool done)
{
	struct pollfd pfd = { .fd = *fd, .events = POLLIN };
	char buf[64];

	if (*fd < 0)
		return;
	if (done && send(*fd, "done\n", 5, MSG_NOSIGNAL) == 5) {
		for (int i = 0; i < 50; i++) {
			int r = poll(&pfd, 1, 100);
			ssize_t n;

			if (r < 0 && errno != EINTR)
				break;
			if (r <= 0)
				continue;
			n = read(*fd, buf, sizeof(buf));
			if (n == 0 || (n < 0 && errno != EINTR))
				break;
		}
		/* Reparented to us if we are a child subreaper: reap it then. */
		for (int i = 0; i < 20; i++) {
			pid_t r = waitpid(guardian, NULL, WNOHANG);

			if (r != 0)
				break;
			nap_ms(10);
		}
	}
	close(*fd);
	*fd = -1;
}
