// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the bug names of iopath repro (scripts/repro.sh), which
 * runs reproducers/NAME.sh as root. The input, up to its first NUL, is
 * one NAME, checked with --list so that nothing runs. A finding: a name
 * not in `repro.sh --list` that is accepted (exit 0), a listed name
 * refused, a refusal that is not exit 2 with one line, or sh running past
 * 5 s. sh is not instrumented: this finds wrong answers, not coverage.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
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

static char script[4200];

/* sh repro.sh --list -- [NAME]: its exit status, stdout into @out, stderr lines into @errlines. */
static int run_list(const char *name, char *out, size_t len, int *errlines)
{
	int po[2], pe[2], st = 0;
	struct timespec t0, t;
	size_t n = 0;
	char c;
	pid_t pid;

	*errlines = 0;
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC))
		abort();
	pid = fork();
	if (pid < 0)
		abort();
	if (!pid) {
		dup2(po[1], STDOUT_FILENO);
		dup2(pe[1], STDERR_FILENO);
		/* "--": a name is never read as an option */
		execlp("sh", "sh", script, "--list", "--", name, (char *)NULL);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (read(po[0], &c, 1) == 1)
		if (n + 1 < len)
			out[n++] = c;
	out[n] = '\0';
	while (read(pe[0], &c, 1) == 1)
		*errlines += c == '\n';
	close(po[0]);
	close(pe[0]);
	while (waitpid(pid, &st, WNOHANG) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 5) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			fprintf(stderr, "repro_name: sh ran past 5 s\n");
			abort();
		}
		usleep(200);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char names[4096];
	char *name = strndup((const char *)data, size), out[8192], line[4200];
	bool listed = false;
	int rc, errlines;

	if (!name)
		return 0;
	if (!script[0]) {
		const char *top = getenv("IOPATH_SRC");

		snprintf(script, sizeof(script), "%s/scripts/repro.sh", top ? top : FUZZ_TOP);
		/* the list, one name a line, between newlines for a whole-line search */
		if (run_list(NULL, names + 1, sizeof(names) - 2, &errlines) != 0)
			abort();
		names[0] = '\n';
	}
	snprintf(line, sizeof(line), "\n%s\n", name);
	listed = *name && !strchr(name, '\n') && strstr(names, line);
	rc = run_list(name, out, sizeof(out), &errlines);
	if (listed && (rc != 0 || strcmp(out, line + 1))) {
		fprintf(stderr, "repro_name: listed name '%s' refused (exit %d)\n", name, rc);
		abort();
	}
	if (!listed && (rc != 2 || errlines != 1 || out[0])) {
		fprintf(stderr, "repro_name: name not in the list accepted or refused wrongly (exit %d, %d lines): '%s'\n",
			rc, errlines, name);
		abort();
	}
	free(name);
	return 0;
}
