// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath run: the main job. Runs every selftest binary (each makes its own
 * scratch ext4 and XFS on the default backing), then the quick benchmark
 * profile, showing progress on stderr, and ends with a summary table. The
 * benchmark records go to results/run-<time>.jsonl.
 *
 * It only orchestrates: the selftests are the installed kselftest tree,
 * one program at a time through scripts/selftest-runner.sh (the one runner:
 * it starts the program, limits its time and gives the verdict, as for make
 * check, make kselftest and the VM guests), and the benchmarks are
 * `iopath bench`.
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

#include "bench/bench_check.h"
#include "cli.h"
#include "iopath.h"
#include "tap.h"
#include "verdict.h"

struct step {
	char name[128];
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

/* Feed captured output to the logs and the terminal. */
static void take_output(const char *buf, size_t n, FILE *log, FILE *tap, bool echo)
{
	if (log)
		fwrite(buf, 1, n, log);
	if (tap)
		fwrite(buf, 1, n, tap);
	if (echo)
		fwrite(buf, 1, n, stderr);
}

/*
 * Run argv in its own process group with stdout+stderr captured into @log
 * (and @tap, when given); kill the whole group after @timeout seconds
 * (0: no limit of its own, for the selftest runner, which has the limit).
 */
static int run_step(struct step *s, char *const argv[], int timeout, FILE *log, FILE *tap,
		    bool echo)
{
	uint64_t t0 = iop_now_ns();
	char buf[4096];
	int pfd[2], status = 0;
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

		if (timeout > 0 && elapsed(t0) > timeout && !s->timed_out) {
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
		take_output(buf, r, log, tap, echo);
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* Whatever the test forked must not outlive it. */
	kill(-pid, SIGKILL);
	running_child = 0;
	s->secs = elapsed(t0);
	s->status = WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
	return 0;
}

/* The known-failures list: $IOPATH_KNOWN_FAILURES, else configs/known-failures. */
static void known_list(char *list, size_t len)
{
	const char *env = getenv("IOPATH_KNOWN_FAILURES");

	if (env && *env)
		snprintf(list, len, "%s", env);
	else
		snprintf(list, len, "%s/configs/known-failures", iop_src_dir());
}

/*
 * The list read once before anything runs, by its one reader
 * (lib/tap_known.c), which also compiles every ERE in it: 0, or 2 after
 * one line saying what is wrong.
 */
static int known_failures_check(void)
{
	char list[PATH_MAX + 32], why[512] = "";
	struct iop_kf kf;
	int ret;

	known_list(list, sizeof(list));
	iop_kf_init(&kf);
	ret = iop_kf_read(&kf, list, why, sizeof(why));
	iop_kf_free(&kf);
	if (!ret)
		return 0;
	return iop_usage_error("run", "known failures %s: %s", list, why);
}

/*
 * Take the verdict of a runner's output (@tap): the counts of its result
 * line, its notes to stderr (@echo: they were shown already), and whether
 * run_kselftest.sh ended a program at its time limit, as the reader's
 * program line says (ended=timeout): the TAP itself is the verdict
 * engine's to read. A run without a result line fails.
 */
static void take_verdict(struct step *s, FILE *tap, bool echo)
{
	char line[4096], path[64], why[512] = "";
	struct iop_verdict v;
	bool have = false;
	size_t i;
	int ret;

	s->fail = 1;
	if (fflush(tap) || fseek(tap, 0, SEEK_SET))
		return;
	while (!echo && fgets(line, sizeof(line), tap))
		if (!strncmp(line, "# iopath run: ", 14) && strncmp(line + 14, "feature ", 8))
			fputs(line, stderr);
	/* The machine lines, by their one reader; a malformed one fails the run. */
	iop_verdict_init(&v);
	strcpy(v.want_word, "IOPATH-RESULT");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fileno(tap));
	ret = iop_verdict_read(path, &v, NULL, NULL, why, sizeof(why));
	for (i = 0; !ret && i < v.nprogs; i++)
		if (v.progs[i].timed_out)
			s->timed_out = true;
	have = !ret && v.have_result;
	if (have) {
		s->pass = (int)v.passed;
		s->fail = (int)v.failed;
		s->skip = (int)v.skipped;
		s->known = (int)v.known;
	}
	iop_verdict_free(&v);
	if (!have)
		fprintf(stderr, "iopath: run: %s: no verdict from the selftest runner (exit %d)%s%s\n",
			s->name, s->status, why[0] ? ": " : "", why);
}

/*
 * The kernel-log check of the whole run (@mark_ret: how the marker went),
 * printed as the last line of the coverage block. 1 if it fails the run:
 * a bug report in the log, or no check at all.
 */
static int kmsg_verdict(const struct iop_kmsg_mark *m, int mark_ret)
{
	char first[400] = "";
	int ret = mark_ret ? mark_ret : iop_kmsg_scan(m, first, sizeof(first));

	printf("# iopath run: coverage: kernel-log check of the whole run: ");
	if (mark_ret)
		printf("NOT RUN (marker: %s)\n\n", strerror(-mark_ret));
	else if (ret < 0)
		printf("NOT RUN (%s)\n\n", strerror(-ret));
	else if (ret)
		printf("FAIL: %d bug reports, first: %s\n\n", ret, first);
	else
		printf("ran, clean\n\n");
	return ret != 0;
}

static int cmp_step(const void *a, const void *b)
{
	return strcmp(((const struct step *)a)->name, ((const struct step *)b)->name);
}

/*
 * The installed kselftest tree (next to a build tree, or installed with
 * iopath) into @dir, and its programs, from its kselftest-list.txt.
 */
static int find_selftests(const char *src, struct step **out, char *dir, size_t len)
{
	const char *cands[] = { "%s/build/kselftest", "%s/../../libexec/iopath/kselftest" };
	struct step *steps = NULL;
	/* "iopath:" and a name that fits a step's */
	char list[PATH_MAX + 32], line[sizeof(steps->name) + 7];
	int n = 0;

	for (size_t c = 0; c < ARRAY_SIZE(cands) && !n; c++) {
		FILE *f;

		snprintf(dir, len, cands[c], src);
		snprintf(list, sizeof(list), "%s/kselftest-list.txt", dir);
		f = fopen(list, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			struct step *tmp;

			line[strcspn(line, "\n")] = '\0';
			if (strncmp(line, "iopath:", 7) || !line[7])
				continue;
			tmp = realloc(steps, (n + 1) * sizeof(*steps));
			if (!tmp)
				break;
			steps = tmp;
			memset(&steps[n], 0, sizeof(steps[n]));
			snprintf(steps[n].name, sizeof(steps[n].name), "%s", line + 7);
			n++;
		}
		fclose(f);
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

/*
 * Everything a run can get wrong before it starts, checked before anything
 * is made: the scratch backing the environment names (a refused device is
 * one line and exit 2, not every selftest failing), the benchmark profile
 * (iopath bench --dry-run checks it), and the results directory. Returns 0
 * or the exit status.
 */
static int validate_run(const char *profile, const char *results, bool do_bench)
{
	struct iop_backing_info bi;
	char why[PATH_MAX + 128], self[PATH_MAX];
	const char *known;
	struct stat st;
	int status;
	ssize_t sl;
	pid_t pid;

	if (iop_backing_check(NULL, &bi, why, sizeof(why)))
		return iop_usage_error("run", "%s", why);
	/* a FIFO or a device is refused here with the variable's name */
	known = getenv("IOPATH_KNOWN_FAILURES");
	if (known && *known && strcmp(known, "/dev/null")) {
		if (stat(known, &st))
			return iop_usage_error("run", "IOPATH_KNOWN_FAILURES=%s: %s", known,
					       strerror(errno));
		if (!S_ISREG(st.st_mode))
			return iop_usage_error("run", "IOPATH_KNOWN_FAILURES=%s: not a regular file",
					       known);
	}
	if (known_failures_check())
		return 2;
	if (do_bench) {
		sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[sl > 0 ? sl : 0] = '\0';
		pid = fork();
		if (pid < 0)
			return iop_usage_error("run", "fork: %s", strerror(errno));
		if (!pid) {
			int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

			if (null >= 0)
				dup2(null, STDOUT_FILENO);
			execl(self, self, "bench", "--dry-run", "--quiet", "--profile",
			      profile, (char *)NULL);
			_exit(127);
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		/* bench said what is wrong, in one line */
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			return 2;
	}
	if (iop_out_dir_make(results, why, sizeof(why)))
		return iop_usage_error("run", "--results %s", why);
	return 0;
}

/* The selftest half of a run. */
struct selftests {
	struct step *steps;
	int n;
	char inst[PATH_MAX];		/* the installed kselftest tree */
	char runner[PATH_MAX + 32];	/* scripts/selftest-runner.sh */
	char all[PATH_MAX];		/* every program's output, for the coverage block */
	FILE *allf;
};

/* Find the installed tree, its programs and the runner. */
static int selftests_prepare(struct selftests *st)
{
	int fd;

	st->n = find_selftests(iop_src_dir(), &st->steps, st->inst, sizeof(st->inst));
	if (st->n == 0) {
		fprintf(stderr, "iopath: run: no installed selftests found (run make first)\n");
		return 0;
	}
	snprintf(st->runner, sizeof(st->runner), "%s/scripts/selftest-runner.sh", iop_src_dir());
	/* Under the run's tagged state: a run killed now leaves it to `iopath cleanup`. */
	fd = iop_run_tmp("tap", st->all, sizeof(st->all));
	st->allf = fd < 0 ? NULL : fdopen(fd, "w+");
	if (!st->allf) {
		fprintf(stderr, "iopath: run: temporary file for the coverage block: %s\n",
			strerror(fd < 0 ? -fd : errno));
		if (fd >= 0) {
			close(fd);
			unlink(st->all);
		}
		st->all[0] = '\0';
		return 1;
	}
	return 0;
}

/* Run each selftest program through the runner; the number of failures. */
static int selftests_run(struct selftests *st, FILE *log, uint64_t t0, int nsteps, bool verbose)
{
	int fail = 0;

	for (int i = 0; i < st->n && !interrupted; i++) {
		struct step *s = &st->steps[i];
		char prog[sizeof(s->name) + 8];
		char *av[] = { st->runner, "--tag", "iopath run", st->inst, "-t", prog, NULL };
		FILE *tap = tmpfile();
		char kn[48] = "";

		snprintf(prog, sizeof(prog), "iopath:%s", s->name);
		/* The selftest must not inherit it. */
		if (tap)
			fcntl(fileno(tap), F_SETFD, FD_CLOEXEC);

		fprintf(stderr, "[%2d/%d %5.0fs] %s ...\n", i + 1, nsteps, elapsed(t0), s->name);
		fprintf(log, "# ---- %s\n", s->name);
		/* The runner limits the program's time: no limit of our own. */
		run_step(s, av, 0, log, tap, verbose);
		if (tap && !interrupted)
			take_verdict(s, tap, verbose);
		if (tap && st->allf && fseek(tap, 0, SEEK_SET) == 0) {
			char buf[4096];
			size_t r;

			while ((r = fread(buf, 1, sizeof(buf), tap)) > 0)
				fwrite(buf, 1, r, st->allf);
		}
		if (tap)
			fclose(tap);
		else
			s->fail = 1;
		if (s->known)
			snprintf(kn, sizeof(kn), ", %d known", s->known);
		fprintf(stderr, "[%2d/%d %5.0fs] %s: %d passed, %d failed, %d skipped%s (%.1fs)%s\n",
			i + 1, nsteps, elapsed(t0), s->name, s->pass, s->fail, s->skip, kn, s->secs,
			s->timed_out ? " TIMEOUT" : "");
		fail += s->fail;
	}
	return fail;
}

/*
 * The coverage block of the programs that ran, by the runner (--judge):
 * its lines to stdout; 1 if its verdict fails or cannot be had.
 */
static int selftests_coverage(struct selftests *st)
{
	char *av[] = { st->runner, "--tag", "iopath run", "--coverage", "--judge", st->all,
		       st->inst, NULL };
	struct step coverage = { .name = "coverage" };
	FILE *out = tmpfile();
	char line[4096], path[64], why[512];
	struct iop_verdict v;
	bool pass = false;

	if (!out || fflush(st->allf)) {
		fprintf(stderr, "iopath: run: coverage block: %s\n", strerror(errno));
		if (out)
			fclose(out);
		return 1;
	}
	fcntl(fileno(out), F_SETFD, FD_CLOEXEC);
	run_step(&coverage, av, 0, NULL, out, false);
	if (fseek(out, 0, SEEK_SET) == 0)
		while (fgets(line, sizeof(line), out))
			if (strstr(line, ": coverage: "))
				fputs(line, stdout);
	iop_verdict_init(&v);
	strcpy(v.want_word, "IOPATH-RESULT");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fileno(out));
	pass = !iop_verdict_read(path, &v, NULL, NULL, why, sizeof(why)) && v.have_result &&
	       !strcmp(v.status, "pass");
	iop_verdict_free(&v);
	fclose(out);
	return !pass;
}

/*
 * The selftest table, then the coverage block: which seed paths and
 * post-test checks ran, and the kernel-log check of the whole run. The
 * number of failures the block adds.
 */
static int selftests_summary(struct selftests *st, const struct iop_kmsg_mark *run_mark,
			     int mark_ret)
{
	int known = 0, fail = 0;

	printf("%-28s %7s %7s %7s %7s %8s\n", "selftest", "passed", "failed", "known", "skipped",
	       "seconds");
	for (int i = 0; i < st->n; i++) {
		struct step *s = &st->steps[i];

		printf("%-28s %7d %7d %7d %7d %8.1f%s\n", s->name, s->pass, s->fail, s->known,
		       s->skip, s->secs, s->timed_out ? "  TIMEOUT" : "");
		known += s->known;
	}
	printf("\n");
	if (st->allf && !interrupted)
		fail += selftests_coverage(st);
	fail += kmsg_verdict(run_mark, mark_ret);
	if (known)
		printf("known: failures that configs/known-failures lists as bugs of this\n"
		       "       kernel; reported on stderr, they do not fail the run\n\n");
	return fail;
}

/*
 * The benchmarks of @profile, records into @out, as step @n of @n: 1 if
 * iopath bench failed (its output is in @log), else 0.
 */
static int bench_step(const char *profile, char *out, int n, uint64_t t0, FILE *log)
{
	char self[PATH_MAX + 16];
	char *av[] = { self, "bench", "--profile", (char *)profile, "--out", out, NULL };
	struct step bench = { .name = "bench" };
	ssize_t sl;

	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[sl > 0 ? sl : 0] = '\0';
	fprintf(stderr, "[%2d/%d %5.0fs] benchmarks, profile %s ...\n", n, n, elapsed(t0), profile);
	fprintf(log, "# ---- bench --profile %s\n", profile);
	/* The bench command shows its own progress: let it through. */
	run_step(&bench, av, 1800, log, NULL, true);
	if (bench.status != 0) {
		fprintf(stderr, "iopath: run: benchmarks failed (exit %d), see the log\n",
			bench.status);
		return 1;
	}
	return 0;
}

/* The mean of each benchmark's metrics over its repetitions, from @out. */
static void bench_summary(const char *out)
{
	struct bench_sum bs = { 0 };
	char why[256], num[32];

	if (iop_records_read(out, bench_cb, &bs, why, sizeof(why)) >= 0 && bs.n) {
		printf("%-32s %-22s %14s %s\n", "benchmark", "metric", "mean of reps", "");
		for (int i = 0; i < bs.n; i++)
			printf("%-32s %-22s %14s %s%s\n", bs.rows[i].key, bs.rows[i].metric,
			       iop_fmt_num(num, sizeof(num), bs.rows[i].sum / bs.rows[i].n),
			       bs.rows[i].unit, bs.rows[i].untrusted ? "  (untrusted)" : "");
		printf("\nrecords: %s\n", out);
	}
}

/*
 * The run's log and records live in IOP_RUN_DIR/tmp until the end
 * (iop_run_tmp(): tagged with the pid, so `iopath cleanup` removes them
 * once the run is dead, SIGKILL included); the results directory only
 * ever holds complete files (publish()). The log opened, its name in
 * @logtmp, and an empty records file for iopath bench --out in @rec; NULL
 * on error.
 */
static FILE *open_log(char *logtmp, size_t loglen, char *rec, size_t reclen)
{
	FILE *log;
	int fd;

	fd = iop_run_tmp("records", rec, reclen);
	if (fd < 0) {
		fprintf(stderr, "iopath: run: %s/tmp: %s\n", IOP_RUN_DIR, strerror(-fd));
		return NULL;
	}
	close(fd);
	fd = iop_run_tmp("log", logtmp, loglen);
	if (fd < 0) {
		fprintf(stderr, "iopath: run: %s/tmp: %s\n", IOP_RUN_DIR, strerror(-fd));
		unlink(rec);
		return NULL;
	}
	log = fdopen(fd, "w");
	if (!log) {
		fprintf(stderr, "iopath: run: %s: %s\n", logtmp, strerror(errno));
		close(fd);
		unlink(logtmp);
		unlink(rec);
	}
	return log;
}

/*
 * The log and, if there are any, the records @rec into @results as
 * run-<stamp>-<pid>[-N].log and .jsonl, the two under one free name, each
 * under it only once complete (iop_out_publish()). Their names go to
 * @logpath and @out ("" without records). 0 or -errno.
 */
static int publish(const char *results, const char *stamp, FILE *log, const char *rec,
		   char *logpath, size_t loglen, char *out, size_t outlen)
{
	int recfd, ret = -EEXIST;
	struct stat st;

	if (fflush(log))
		return -errno;
	recfd = open(rec, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (recfd >= 0 && (fstat(recfd, &st) || !st.st_size)) {
		close(recfd);
		recfd = -1;
	}
	for (int n = 1; n < 1000 && ret == -EEXIST; n++) {
		char num[16] = "";
		int w;

		if (n > 1)
			snprintf(num, sizeof(num), "-%d", n);
		w = snprintf(logpath, loglen, "%s/run-%s-%d%s.log", results, stamp,
			     (int)getpid(), num);
		if (w < 0 || (size_t)w >= loglen || (size_t)w + 2 >= outlen) {
			ret = -ENAMETOOLONG;
			break;
		}
		snprintf(out, outlen, "%.*s.jsonl", w - 4, logpath);
		/* The records' name must be free as well. */
		if (recfd >= 0 && !lstat(out, &st))
			continue;
		ret = iop_out_publish(fileno(log), logpath, iop_out_mode(logpath));
		if (ret || recfd < 0)
			continue;
		ret = iop_out_publish(recfd, out, iop_out_mode(out));
		if (ret == -EEXIST)
			unlink(logpath);
	}
	if (recfd < 0)
		out[0] = '\0';
	else
		close(recfd);
	return ret;
}

static int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "no-bench", no_argument, NULL, 'B' },
		{ "no-selftests", no_argument, NULL, 'S' },
		{ "profile", required_argument, NULL, 'p' },
		{ "results", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *profile = "quick", *results = "results";
	bool do_bench = true, do_tests = true, verbose = false;
	char logpath[PATH_MAX], out[PATH_MAX], stamp[32], logtmp[PATH_MAX], rec[PATH_MAX];
	struct selftests tests = { 0 };
	struct iop_kmsg_mark run_mark;
	struct sigaction sa = { .sa_handler = on_signal };
	int total_fail = 0, opt, ret, kmsg_ret;
	uint64_t t0 = iop_now_ns();
	time_t now = time(NULL);
	FILE *log;

	optind = 0;
	while ((opt = iop_getopt(argc, argv, "run", "hv", longopts)) != -1) {
		switch (opt) {
		case 'B':
			do_bench = false;
			break;
		case 'S':
			do_tests = false;
			break;
		case 'p':
			profile = optarg;
			break;
		case 'r':
			results = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (optind < argc)
		return iop_usage_error("run", "takes no operands ('%s'; iopath run --help)",
				       argv[optind]);
	if (geteuid() != 0) {
		fprintf(stderr, "iopath: run: must run as root (it formats scratch devices it creates)\n");
		return 1;
	}
	ret = validate_run(profile, results, do_bench);
	if (ret)
		return ret;
	/* Every selftest would stop at its scratch setup: said once, here. */
	if (do_tests && iop_scratch_namespace_check(logpath, sizeof(logpath)) == 1)
		return iop_usage_error("run", "selftests: %s (or --no-selftests)", logpath);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", gmtime(&now));
	log = open_log(logtmp, sizeof(logtmp), rec, sizeof(rec));
	if (!log)
		return 1;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* The kernel-log check of the whole run, outside every test's window too. */
	kmsg_ret = iop_kmsg_mark(&run_mark, "run");

	if (do_tests)
		total_fail += selftests_prepare(&tests);
	total_fail += selftests_run(&tests, log, t0, tests.n + do_bench, verbose);

	if (do_bench && !interrupted)
		total_fail += bench_step(profile, rec, tests.n + 1, t0, log);
	ret = publish(results, stamp, log, rec, logpath, sizeof(logpath), out, sizeof(out));
	fclose(log);
	unlink(logtmp);
	unlink(rec);
	if (ret) {
		fprintf(stderr, "iopath: run: %s: %s\n", logpath, strerror(-ret));
		logpath[0] = '\0';
		out[0] = '\0';
		total_fail++;
	}

	printf("\niopath run on %s, %.0f s\n\n", stamp, elapsed(t0));
	if (tests.n)
		total_fail += selftests_summary(&tests, &run_mark, kmsg_ret);
	if (out[0])
		bench_summary(out);
	if (logpath[0])
		printf("log: %s\n", logpath);
	if (tests.allf)
		fclose(tests.allf);
	if (tests.all[0])
		unlink(tests.all);
	free(tests.steps);
	if (interrupted) {
		fprintf(stderr, "iopath: run: interrupted\n");
		return 128 + interrupted;
	}
	return total_fail ? 1 : 0;
}

IOP_COMMAND("run",
	    "the main job: all selftests, then the quick benchmarks, then a summary", cmd_run)
