// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the known-failures list parser, which is the awk verdict
 * (scripts/tap-verdict.awk), called the way make check and iopath run call
 * it, on one harness binary's output with a known failure in it. The input is
 * the list. awk must end with its verdict (0 pass, 1 fail) or its
 * malformed-input status (2) within seconds; awk killed by a signal, any
 * other status or a run past the deadline aborts (a crash for libFuzzer).
 * awk's internals are not instrumented: this finds hangs and crashes, not
 * new coverage.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

#ifndef FUZZ_TOP
#define FUZZ_TOP "."
#endif

/* One harness binary's output: a pass, a listed failure, a skip. */
static const char tap[] =
	"TAP version 13\n1..3\n"
	"#  RUN           fb.xfs.one ...\n"
	"# fb_test.c:342:one:after-test checks: fsck ran, kernel log ran\n"
	"ok 1 fb.xfs.one\n"
	"#  RUN           fb.xfs_1k.dio_past_eof ...\n"
	"# fb_test.c:417:dio_past_eof:Expected 0 (0) == r (-117)\n"
	"# fb_test.c:417:dio_past_eof:eof.000: cached byte 1000 is 0x53, expected 0x00\n"
	"#      FAIL  fb.xfs_1k.dio_past_eof\n"
	"not ok 2 fb.xfs_1k.dio_past_eof\n"
	"ok 3 fb.ext4.two # SKIP no loop device\n"
	"# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char script[4200], tap_path[64];
	static int tap_fd = -1;
	char list_path[64];
	struct timespec t0, t;
	int list_fd, st = 0;
	pid_t pid, w;

	if (tap_fd < 0) {
		const char *top = getenv("IOPATH_SRC");

		snprintf(script, sizeof(script), "%s/scripts/tap-verdict.awk",
			 top ? top : FUZZ_TOP);
		tap_fd = fuzz_file((const uint8_t *)tap, strlen(tap), tap_path, sizeof(tap_path));
		if (tap_fd < 0 || access(script, R_OK))
			abort();
	}
	list_fd = fuzz_file(data, size, list_path, sizeof(list_path));
	if (list_fd < 0)
		return 0;
	pid = fork();
	if (pid < 0) {
		close(list_fd);
		return 0;
	}
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		/* the fds were made close-on-exec: awk opens them by path */
		fcntl(list_fd, F_SETFD, 0);
		fcntl(tap_fd, F_SETFD, 0);
		execlp("awk", "awk", "-v", "kernel=7.2.13+deb14-amd64", "-v", "tag=fuzz",
		       "-v", "program=fb_test", "-v", "exit_status=1", "-f", script,
		       list_path, "/dev/null", "/dev/null", tap_path, (char *)NULL);
		_exit(127);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((w = waitpid(pid, &st, WNOHANG)) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 5) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			fprintf(stderr, "known_failures: awk ran past 5 s on this list\n");
			abort();
		}
		usleep(200);
	}
	close(list_fd);
	if (w < 0)
		return 0;
	if (WIFSIGNALED(st) || WEXITSTATUS(st) > 2) {
		fprintf(stderr, "known_failures: awk %s %d\n",
			WIFSIGNALED(st) ? "killed by signal" : "exited",
			WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		abort();
	}
	return 0;
}
