// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath run: the main job. Runs every selftest binary (each makes its own
 * scratch ext4 and XFS on the default backing), then the quick benchmark
 * profile, showing progress on stderr, and ends with a summary table. The
 * benchmark records go to results/run-<time>.jsonl.
 *
 * It only orchestrates: the selftests are the kselftest binaries, run as
 * run_kselftest.sh would (a time limit from `settings`, TAP parsed for the
 * counts), and the benchmarks are `iopath bench`.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "iopath.h"

struct step {
	char name[128];
	char path[PATH_MAX + 256];
	int pass, fail, skip;
	int known;		/* failures configs/known-failures lists */
	int status;		/* exit status, or -signal */
	double secs;
	bool timed_out;
};

static volatile sig_atomic_t interrupted;
static pid_t running_child;

static void on_signal(int sig)
{
	interrupted = sig;
	/* The child leads its own process group: pass the signal on to all of it. */
	if (running_child > 0)
		kill(-running_child, sig);
}

static double elapsed(uint64_t t0)
{
	return (double)(iop_now_ns() - t0) / 1e9;
}

/* Count the top-level TAP results in one line of a harness binary's output. */
static void tap_count(const char *line, struct step *s)
{
	if (!strncmp(line, "ok ", 3)) {
		if (strstr(line, "# SKIP"))
			s->skip++;
		else
			s->pass++;
	} else if (!strncmp(line, "not ok ", 7)) {
		s->fail++;
	}
}

/* Feed captured output to the logs, the terminal and the TAP counter. */
static void take_output(struct step *s, const char *buf, size_t n, char *line, size_t *ll,
			size_t cap, FILE *log, FILE *tap, bool echo)
{
	if (log)
		fwrite(buf, 1, n, log);
	if (tap)
		fwrite(buf, 1, n, tap);
	if (echo)
		fwrite(buf, 1, n, stderr);
	for (size_t i = 0; i < n; i++) {
		if (*ll + 1 < cap)
			line[(*ll)++] = buf[i];
		if (buf[i] == '\n') {
			line[*ll] = '\0';
			tap_count(line, s);
			*ll = 0;
		}
	}
}

/*
 * Run argv in its own process group with stdout+stderr captured into @log
 * (and @tap, when given), counting TAP results; kill the whole group after
 * @timeout seconds, as kselftest's runner does.
 */
static int run_step(struct step *s, char *const argv[], int timeout, FILE *log, FILE *tap,
		    bool echo)
{
	uint64_t t0 = iop_now_ns();
	char buf[4096], line[4096];
	int pfd[2], status = 0;
	size_t ll = 0;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (pid == 0) {
		setpgid(0, 0);
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		execv(argv[0], argv);
		fprintf(stderr, "iopath: run: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	running_child = pid;
	close(pfd[1]);
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		ssize_t r;

		if (elapsed(t0) > timeout && !s->timed_out) {
			kill(-pid, SIGKILL);
			s->timed_out = true;
		}
		/* Something outside the group still holds the pipe: stop waiting. */
		if (s->timed_out && elapsed(t0) > timeout + 10)
			break;
		if (poll(&p, 1, 1000) <= 0)
			continue;
		r = read(pfd[0], buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		take_output(s, buf, r, line, &ll, sizeof(line), log, tap, echo);
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* Whatever the test forked must not outlive it. */
	kill(-pid, SIGKILL);
	running_child = 0;
	s->secs = elapsed(t0);
	s->status = WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
	/* A crash or a timeout with no failed test reported still fails. */
	if ((s->status != 0 || s->timed_out) && s->fail == 0)
		s->fail = 1;
	return 0;
}

/*
 * Judge a selftest's output (@tap) with scripts/tap-verdict.awk, the
 * verdict iopath vm, make kselftest and make check use: a failure that
 * configs/known-failures (or $IOPATH_KNOWN_FAILURES) lists for the running
 * kernel is a known kernel bug, counted apart and not failed on, when the
 * program otherwise ran to completion. The script's notes go to stderr.
 * Without the script or the list, the raw counts stand.
 */
static void judge_known(struct step *s, FILE *tap)
{
	char script[PATH_MAX + 32], list[PATH_MAX + 32], kernel[128], program[160], status[32];
	const char *env = getenv("IOPATH_KNOWN_FAILURES");
	char line[4096], *p;
	int pfd[2], known = 0, wst;
	bool pass = false;
	struct utsname u;
	FILE *out;
	pid_t pid;

	snprintf(script, sizeof(script), "%s/scripts/tap-verdict.awk", iop_src_dir());
	if (env && *env)
		snprintf(list, sizeof(list), "%s", env);
	else
		snprintf(list, sizeof(list), "%s/configs/known-failures", iop_src_dir());
	if (access(script, R_OK) || access(list, R_OK) || uname(&u) || fflush(tap) ||
	    fseek(tap, 0, SEEK_SET))
		return;
	snprintf(kernel, sizeof(kernel), "kernel=%s", u.release);
	snprintf(program, sizeof(program), "program=%s", s->name);
	/* As the kselftest runner reports them: 124 for a timeout, 128+N for signal N. */
	snprintf(status, sizeof(status), "exit_status=%d",
		 s->timed_out ? 124 : s->status < 0 ? 128 - s->status : s->status);
	if (pipe2(pfd, O_CLOEXEC))
		return;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return;
	}
	if (pid == 0) {
		dup2(fileno(tap), STDIN_FILENO);
		dup2(pfd[1], STDOUT_FILENO);
		execlp("awk", "awk", "-v", kernel, "-v", "tag=iopath run", "-v", program,
		       "-v", status, "-f", script, list, "/dev/null", "/dev/stdin", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	out = fdopen(pfd[0], "r");
	if (!out) {
		close(pfd[0]);
		waitpid(pid, &wst, 0);
		return;
	}
	while (fgets(line, sizeof(line), out)) {
		if (strncmp(line, "# IOPATH-RESULT: ", 17)) {
			fputs(line, stderr);
			continue;
		}
		pass = strstr(line, " status=pass ") != NULL;
		p = strstr(line, " known=");
		known = p ? atoi(p + 7) : 0;
	}
	fclose(out);
	while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
		;
	/* A verdict that did not run (awk missing, a bad list) changes nothing. */
	if (!WIFEXITED(wst) || WEXITSTATUS(wst) > 1)
		return;
	s->known = known;
	if (pass)
		s->fail = 0;
	else if (s->fail > known)
		s->fail -= known;
	else
		s->fail = 1;
}

static int settings_timeout(const char *dir)
{
	char path[PATH_MAX + 16], line[256];
	int timeout = 45;	/* kselftest runner.sh default */
	FILE *f;

	snprintf(path, sizeof(path), "%s/settings", dir);
	f = fopen(path, "r");
	if (!f)
		return timeout;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "timeout=", 8))
			timeout = atoi(line + 8);
	fclose(f);
	return timeout > 0 ? timeout : 3600;
}

static int cmp_step(const void *a, const void *b)
{
	return strcmp(((const struct step *)a)->name, ((const struct step *)b)->name);
}

/* The selftest binaries: next to a build tree, or in an installed layout. */
static int find_selftests(const char *src, struct step **out, char *dir, size_t len)
{
	const char *cands[] = { "%s/build/selftests", "%s/../../libexec/iopath/kselftest/iopath" };
	struct step *steps = NULL;
	int n = 0;

	for (size_t c = 0; c < ARRAY_SIZE(cands); c++) {
		struct dirent *de;
		DIR *d;

		snprintf(dir, len, cands[c], src);
		d = opendir(dir);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			size_t l = strlen(de->d_name);
			struct step *tmp;

			if (l < 6 || strcmp(de->d_name + l - 5, "_test"))
				continue;
			tmp = realloc(steps, (n + 1) * sizeof(*steps));
			if (!tmp)
				break;
			steps = tmp;
			memset(&steps[n], 0, sizeof(steps[n]));
			snprintf(steps[n].name, sizeof(steps[n].name), "%s", de->d_name);
			snprintf(steps[n].path, sizeof(steps[n].path), "%s/%s", dir, de->d_name);
			n++;
		}
		closedir(d);
		if (n)
			break;
	}
	if (n)
		qsort(steps, n, sizeof(*steps), cmp_step);
	*out = steps;
	return n;
}

struct bench_row {
	char key[200];
	char metric[48];
	char unit[16];
	double sum;
	int n;
	bool untrusted;
};

struct bench_sum {
	struct bench_row rows[64];
	int n;
};

static int bench_cb(json_t *rec, void *arg)
{
	struct bench_sum *bs = arg;
	json_t *m = json_array_get(json_object_get(rec, "metrics"), 0);
	json_t *fsobj = json_object_get(json_object_get(rec, "env"), "fs");
	const char *fs = json_string_value(json_object_get(fsobj, "type"));
	const char *status = json_string_value(json_object_get(rec, "status"));
	char key[200];
	struct bench_row *r = NULL;

	if (!m)
		return 0;
	snprintf(key, sizeof(key), "%s%s%s", json_string_value(json_object_get(rec, "bench")),
		 fs ? "/" : "", fs ? fs : "");
	for (int i = 0; i < bs->n; i++)
		if (!strcmp(bs->rows[i].key, key))
			r = &bs->rows[i];
	if (!r) {
		if (bs->n == (int)(ARRAY_SIZE(bs->rows)))
			return 0;
		r = &bs->rows[bs->n++];
		memset(r, 0, sizeof(*r));
		snprintf(r->key, sizeof(r->key), "%s", key);
		snprintf(r->metric, sizeof(r->metric), "%s",
			 json_string_value(json_object_get(m, "name")) ?: "?");
		snprintf(r->unit, sizeof(r->unit), "%s",
			 json_string_value(json_object_get(m, "unit")) ?: "");
	}
	r->sum += json_number_value(json_object_get(m, "value"));
	r->n++;
	if (status && strcmp(status, "ok"))
		r->untrusted = true;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: iopath run [--no-bench] [--no-selftests] [--profile NAME] [--results DIR] [-v]\n"
		   "Run every selftest, then the benchmark profile (default quick), and summarise.\n"
		   "The scratch backing comes from the environment (IOPATH_BACKING, IOPATH_SCRATCH_DEV,\n"
		   "IOPATH_SCRATCH_DIR; see README).\n");
}

static int cmd_run(int argc, char **argv)
{
	const char *profile = "quick", *results = "results";
	bool do_bench = true, do_tests = true, verbose = false;
	char dir[PATH_MAX], logpath[PATH_MAX], out[PATH_MAX], self[PATH_MAX + 16], stamp[32];
	struct step *steps = NULL, bench = { .name = "bench" };
	struct sigaction sa = { .sa_handler = on_signal };
	int n = 0, total_fail = 0, timeout;
	uint64_t t0 = iop_now_ns();
	struct bench_sum bs = { 0 };
	time_t now = time(NULL);
	ssize_t sl;
	FILE *log;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-bench")) {
			do_bench = false;
		} else if (!strcmp(argv[i], "--no-selftests")) {
			do_tests = false;
		} else if (!strcmp(argv[i], "--profile") && i + 1 < argc) {
			profile = argv[++i];
		} else if (!strcmp(argv[i], "--results") && i + 1 < argc) {
			results = argv[++i];
		} else if (!strcmp(argv[i], "-v")) {
			verbose = true;
		} else if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			return iop_usage_error("run", "unknown option '%s' (iopath run --help)", argv[i]);
		}
	}
	if (geteuid() != 0) {
		fprintf(stderr, "iopath: run: must run as root (it formats scratch devices it creates)\n");
		return 1;
	}
	if (mkdir(results, 0755) && errno != EEXIST) {
		fprintf(stderr, "iopath: run: %s: %s\n", results, strerror(errno));
		return 1;
	}
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", gmtime(&now));
	snprintf(logpath, sizeof(logpath), "%s/run-%s.log", results, stamp);
	snprintf(out, sizeof(out), "%s/run-%s.jsonl", results, stamp);
	log = fopen(logpath, "w");
	if (!log) {
		fprintf(stderr, "iopath: run: %s: %s\n", logpath, strerror(errno));
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (do_tests) {
		n = find_selftests(iop_src_dir(), &steps, dir, sizeof(dir));
		if (n == 0)
			fprintf(stderr, "iopath: run: no selftest binaries found (run make first)\n");
		/* Installed, settings sits with the binaries; in a checkout, in selftests/. */
		snprintf(self, sizeof(self), "%s/settings", dir);
		if (access(self, R_OK))
			snprintf(dir, sizeof(dir), "%s/selftests", iop_src_dir());
		timeout = settings_timeout(dir);
	}
	for (int i = 0; i < n && !interrupted; i++) {
		char *av[] = { steps[i].path, NULL };
		FILE *tap = tmpfile();
		char kn[48] = "";

		/* The selftest must not inherit it; the verdict gets it by dup2. */
		if (tap)
			fcntl(fileno(tap), F_SETFD, FD_CLOEXEC);

		fprintf(stderr, "[%2d/%d %5.0fs] %s ...\n", i + 1, n + do_bench, elapsed(t0), steps[i].name);
		fprintf(log, "# ---- %s\n", steps[i].name);
		run_step(&steps[i], av, timeout, log, tap, verbose);
		if (tap && !interrupted)
			judge_known(&steps[i], tap);
		if (tap)
			fclose(tap);
		if (steps[i].known)
			snprintf(kn, sizeof(kn), ", %d known", steps[i].known);
		fprintf(stderr, "[%2d/%d %5.0fs] %s: %d passed, %d failed, %d skipped%s (%.1fs)%s\n",
			i + 1, n + do_bench, elapsed(t0), steps[i].name, steps[i].pass, steps[i].fail,
			steps[i].skip, kn, steps[i].secs, steps[i].timed_out ? " TIMEOUT" : "");
		total_fail += steps[i].fail;
	}

	if (do_bench && !interrupted) {
		char *av[] = { self, "bench", "--profile", (char *)profile, "--out", out, NULL };

		sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[sl > 0 ? sl : 0] = '\0';
		fprintf(stderr, "[%2d/%d %5.0fs] benchmarks, profile %s ...\n", n + 1, n + 1, elapsed(t0), profile);
		fprintf(log, "# ---- bench --profile %s\n", profile);
		/* The bench command shows its own progress: let it through. */
		run_step(&bench, av, 1800, log, NULL, true);
		if (bench.status != 0) {
			fprintf(stderr, "iopath: run: benchmarks failed (exit %d), see %s\n", bench.status, logpath);
			total_fail++;
		}
	}
	fclose(log);

	printf("\niopath run on %s, %.0f s\n\n", stamp, elapsed(t0));
	if (n) {
		int known = 0;

		printf("%-28s %7s %7s %7s %7s %8s\n", "selftest", "passed", "failed", "known", "skipped",
		       "seconds");
		for (int i = 0; i < n; i++) {
			printf("%-28s %7d %7d %7d %7d %8.1f%s\n", steps[i].name, steps[i].pass,
			       steps[i].fail, steps[i].known, steps[i].skip, steps[i].secs,
			       steps[i].timed_out ? "  TIMEOUT" : "");
			known += steps[i].known;
		}
		printf("\n");
		if (known)
			printf("known: failures that configs/known-failures lists as bugs of this\n"
			       "       kernel; reported on stderr, they do not fail the run\n\n");
	}
	if (do_bench && access(out, R_OK) == 0) {
		char why[256];

		if (iop_records_read(out, bench_cb, &bs, why, sizeof(why)) >= 0 && bs.n) {
			printf("%-32s %-22s %14s %s\n", "benchmark", "metric", "mean of reps", "");
			for (int i = 0; i < bs.n; i++)
				printf("%-32s %-22s %14.1f %s%s\n", bs.rows[i].key, bs.rows[i].metric,
				       bs.rows[i].sum / bs.rows[i].n, bs.rows[i].unit,
				       bs.rows[i].untrusted ? "  (untrusted)" : "");
			printf("\nrecords: %s\n", out);
		}
	}
	printf("log: %s\n", logpath);
	free(steps);
	if (interrupted) {
		fprintf(stderr, "iopath: run: interrupted\n");
		return 128 + interrupted;
	}
	return total_fail ? 1 : 0;
}

IOP_COMMAND("run", "the main job: all selftests, then the quick benchmarks, then a summary", cmd_run)
