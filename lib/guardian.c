// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The guardian of a scratch filesystem: a process in its own session, so a
 * harness timeout that SIGKILLs the test's process group does not reach it,
 * that undoes what the state file lists when the owner goes without
 * tearing the scratch down itself.
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

#include "scratch_int.h"
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
 * Runs in a grandchild of the creating process, in its own session. Waits
 * on its end of the lifeline; "done" means the owner tore the scratch down
 * itself, end-of-file without it means the owner is gone (exit, crash,
 * SIGKILL, or a destroy that could not finish): undo what the state file
 * still lists.
 */
static void __attribute__((noreturn)) guardian_main(int sock, const char *id)
{
	static struct sstate st;
	struct undo_ctx c = { .busy_tries = 600, .nap = 100, .lazy = true };
	char buf[64] = "ready ";
	sigset_t none;
	int null;

	setsid();
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if (chdir("/"))
		_exit(1);
	/*
	 * Hold nothing of the owner's: above all not the owner's end of another
	 * scratch's lifeline, which would keep that guardian from ever seeing EOF,
	 * nor a pipe a harness waits on for end-of-output.
	 */
	if (sock < 3)
		sock = fcntl(sock, F_DUPFD, 3);
	null = open("/dev/null", O_RDWR);
	if (sock < 0 || null < 0)
		_exit(1);
	dup2(null, 0);
	dup2(null, 1);
	dup2(null, 2);
	if (null > 2 && null != sock)
		close(null);
	if (sock != 3) {
		dup2(sock, 3);
		sock = 3;
	}
	close_fds_from(4);
	prctl(PR_SET_NAME, "iopath-guardian", 0, 0, 0);

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
	if (state_read(id, &st) == 0)
		undo_all(&st, &c, NULL);
	_exit(0);
}

int guardian_start(struct iop_scratch *s)
{
	char buf[64] = "";
	unsigned long long pid;
	struct pollfd pfd;
	size_t got = 0;
	int sv[2], status;
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
		guardian_main(sv[1], s->id);
	}
	close(sv[1]);
	while (waitpid(mid, &status, 0) < 0 && errno == EINTR)
		;
	pfd.fd = sv[0];
	pfd.events = POLLIN;
	while (got < sizeof(buf) - 1 && !memchr(buf, '\n', got)) {
		ssize_t n;
		int r = poll(&pfd, 1, 5000);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n = read(sv[0], buf + got, sizeof(buf) - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		buf[got] = '\0';
	}
	if (!s_prefix(buf, "ready ") || s_to_u(buf + 6, &pid)) {
		close(sv[0]);
		return -ECHILD;
	}
	s->guardian = (pid_t)pid;
	s->guardian_fd = sv[0];
	return 0;
}

/*
 * Tell the guardian the scratch is gone and wait until it has exited (its
 * end of the lifeline closes). Without @done the guardian takes over the
 * teardown of whatever the state file still lists.
 */
void guardian_release(struct iop_scratch *s, bool done)
{
	struct pollfd pfd = { .fd = s->guardian_fd, .events = POLLIN };
	char buf[64];

	if (s->guardian_fd < 0)
		return;
	if (done && send(s->guardian_fd, "done\n", 5, MSG_NOSIGNAL) == 5) {
		for (int i = 0; i < 50; i++) {
			int r = poll(&pfd, 1, 100);
			ssize_t n;

			if (r < 0 && errno != EINTR)
				break;
			if (r <= 0)
				continue;
			n = read(s->guardian_fd, buf, sizeof(buf));
			if (n == 0 || (n < 0 && errno != EINTR))
				break;
		}
		/* Reparented to us if we are a child subreaper: reap it then. */
		for (int i = 0; i < 20; i++) {
			pid_t r = waitpid(s->guardian, NULL, WNOHANG);

			if (r != 0)
				break;
			nap_ms(10);
		}
	}
	close(s->guardian_fd);
	s->guardian_fd = -1;
}
