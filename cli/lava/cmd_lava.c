// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath lava: the selftests, iopath mutate's kernels and the benchmarks as
 * LAVA job definitions, and the verdict on a job's log through the same
 * the verdict engine (lib/tap.c) as iopath vm (docs/fleet.md). This file reads
 * the options and runs the subcommand; lava.h names the parts.
 *
 * Exit: 0 passed or written, 1 failed, 2 bad usage or input, 3 LAVA's
 * infrastructure failed (the kernel is not judged).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "array_size.h"
#include "cli.h"
#include "input.h"
#include "lava.h"
#include "outfile.h"
#include "yaml_bound.h"

/* ---- validate, run ------------------------------------------------------------ */

/*
 * Job @j's text, checked against the YAML bounds (lib/yaml_bound.c) and,
 * with @check, against what a job must hold. 0, 1 invalid or 2 bad input
 * (a file that is not one, a text past the bounds), its line printed.
 */
static int job_check(const char *j, bool check)
{
	char why[PATH_MAX + 128], buf[512], *text, *line, *nt;
	const char *err = NULL;
	struct iop_input in;
	size_t len, cap;
	ssize_t n;
	bool term;
	int rc;

	rc = iop_input_open(&in, j, LAVA_MAX_JOB, why, sizeof(why));
	if (rc)
		return lava_fail(2, "%s", why);
	if (in.left > LAVA_MAX_JOB) {
		/* Not a job iopath wrote; its first MiB alone could validate. */
		iop_input_close(&in);
		return lava_fail(1, "%s: invalid: larger than 1 MiB", j);
	}
	cap = in.left + 1;
	text = malloc(cap);
	len = 0;
	while (text && (n = iop_input_line(&in, &line, &term, why, sizeof(why))) >= 0) {
		if (len + n + 2 > cap) {
			nt = realloc(text, len + n + 2);
			if (!nt)
				break;
			text = nt;
			cap = len + n + 2;
		}
		memcpy(text + len, line, n);
		len += n;
		if (term)
			text[len++] = '\n';
	}
	iop_input_close(&in);
	if (!text)
		return lava_fail(1, "out of memory");
	/* Refused before libyaml's loader (or lava-run's) spends minutes on it. */
	rc = iop_yaml_bounds(text, len, buf, sizeof(buf));
	if (rc == -E2BIG || rc == -ENOMEM) {
		free(text);
		return lava_fail(rc == -E2BIG ? 2 : 1, "%s: %s", j, buf);
	}
	if (check)
		err = lava_job_check(text, len, buf, sizeof(buf));
	free(text);
	if (err)
		return lava_fail(1, "%s: invalid: %s", j, err);
	return 0;
}

int lava_cmd_validate(struct lava_opts *o)
{
	int i, rc, worst = 0;

	for (i = 0; i < o->noperands; i++) {
		rc = job_check(o->operands[i], true);
		if (rc > worst)
			worst = rc;
	}
	return worst;
}

static bool in_path(const char *prog)
{
	char *path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	char *d, *save, f[PATH_MAX];
	bool found = false;

	d = path ? strtok_r(path, ":", &save) : NULL;
	for (; d && !found; d = strtok_r(NULL, ":", &save)) {
		snprintf(f, sizeof(f), "%s/%s", d, prog);
		found = !access(f, X_OK);
	}
	free(path);
	return found;
}

/*
 * Each job in turn with lava-run on the local QEMU device (one QEMU at a
 * time), then its verdict; JOB.log, .tap, .console and .jsonl beside it.
 */
int lava_cmd_run(struct lava_opts *o)
{
	char dir[] = "/tmp/iopath-lava-run.XXXXXX", log[PATH_MAX], tmp[PATH_MAX], id[32];
	char tap[PATH_MAX], console[PATH_MAX], records[PATH_MAX], dev[PATH_MAX];
	struct stat st;
	int i, worst = 0, rc, fd, status;
	size_t n;
	pid_t pid;

	for (i = 0; i < o->noperands; i++) {
		n = strlen(o->operands[i]);
		if (stat(o->operands[i], &st) || !S_ISREG(st.st_mode) || n < 6 ||
		    strcmp(o->operands[i] + n - 5, ".yaml") || n + 16 > PATH_MAX)
			return lava_fail(2, "%s: not a job file (*.yaml)", o->operands[i]);
		/* lava-run's loader is libyaml too: a hostile job never reaches it. */
		rc = job_check(o->operands[i], false);
		if (rc)
			return rc;
	}
	if (!in_path("lava-run"))
		return lava_fail(1, "lava-run not found: scripts/deps.sh lava installs lava-dispatcher (apt-get install --no-install-recommends lava-dispatcher)");
	if (geteuid())
		return lava_fail(2, "lava-run needs root");
	if (!*o->device) {
		snprintf(dev, sizeof(dev), "%s/configs/lava/qemu-local.yaml", iop_src_dir());
		o->device = dev;
	}
	if (stat(o->device, &st) || !S_ISREG(st.st_mode))
		return lava_fail(2, "--device %s: no such file", o->device);
	for (i = 0; i < o->noperands; i++) {
		const char *j = o->operands[i];
		struct lava_opts v = *o;

		n = strlen(j) - 5;
		snprintf(log, sizeof(log), "%.*s.log", (int)n, j);
		snprintf(tap, sizeof(tap), "%.*s.tap", (int)n, j);
		snprintf(console, sizeof(console), "%.*s.console", (int)n, j);
		snprintf(records, sizeof(records), "%.*s.jsonl", (int)n, j);
		/* A job id of its own: lava-run works in /var/lib/lava/dispatcher/tmp/ID. */
		snprintf(id, sizeof(id), "%ld", (long)getpid() * 100 + i);
		if (!mkdtemp(dir))
			return lava_fail(1, "a temporary directory: %s", strerror(errno));
		fd = iop_tmp_create(log, iop_out_mode(log), tmp, sizeof(tmp));
		if (fd < 0) {
			rmdir(dir);
			return lava_fail(1, "%s: %s", log, strerror(-fd));
		}
		lava_fail(0, "running %s (lava-run job %s)", j, id);
		fflush(NULL);
		pid = fork();
		if (!pid) {
			int null = open("/dev/null", O_WRONLY);

			if (null < 0 || dup2(null, 1) < 0 || dup2(fd, 2) < 0)
				_exit(127);
			execlp("lava-run", "lava-run", "--job-id", id, "--output-dir", dir,
			       "--device", o->device, j, (char *)NULL);
			_exit(127);
		}
		status = -1;
		while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		close(fd);
		rc = iop_tmp_commit(tmp, log);
		/* lava-run leaves its work there: removed as the job's own. */
		{
			char *rm[] = { "/bin/rm", "-rf", "--", dir, NULL };
			pid_t p = fork();

			if (!p) {
				execv(rm[0], rm);
				_exit(127);
			}
			while (p > 0 && waitpid(p, NULL, 0) < 0 && errno == EINTR)
				;
			strcpy(dir, "/tmp/iopath-lava-run.XXXXXX");
		}
		if (rc)
			return lava_fail(1, "%s: %s", log, strerror(-rc));
		v.tap = tap;
		v.console = console;
		v.records = records;
		rc = lava_cmd_verdict(&v, log);
		lava_fail(0, "%s: lava-run exit %d, verdict exit %d", j,
			  WIFEXITED(status) ? WEXITSTATUS(status) : -1, rc);
		if (rc > worst)
			worst = rc;
	}
	return worst;
}

/* ---- options ---------------------------------------------------------------- */

enum {
	C_JOBS = 1, C_MUTATE = 2, C_BENCH = 4, C_AB = 8, C_VALIDATE = 16, C_RUN = 32, C_VERDICT = 64
};

#define C_JOBLIKE (C_JOBS | C_MUTATE | C_BENCH | C_AB)

static const struct {
	const char *name;
	int mask;
	const char *summary;
} subs[] = {
	{ "jobs", C_JOBS, "one job per kernel: the selftests" },
	{ "mutate", C_MUTATE, "one job per mutant kernel of iopath mutate" },
	{ "bench", C_BENCH, "benchmark jobs on one kernel, one per boot" },
	{ "ab", C_AB, "iopath ab as jobs: kernels A and B, one job per boot" },
	{ "validate", C_VALIDATE, "check job files" },
	{ "run", C_RUN, "run jobs with lava-run here, then their verdict" },
	{ "verdict", C_VERDICT, "the verdict on a job's log" },
};

static const struct {
	struct option opt;
	int mask;
} all_opts[] = {
	{ { "help", no_argument, NULL, 'h' }, ~0 },
	{ { "out", required_argument, NULL, 'o' }, C_JOBLIKE },
	{ { "build", required_argument, NULL, 'B' }, C_JOBLIKE | C_VERDICT },
	{ { "url-base", required_argument, NULL, 'u' }, C_JOBLIKE },
	{ { "device-type", required_argument, NULL, 'd' }, C_JOBLIKE },
	{ { "template", required_argument, NULL, 'T' }, C_JOBLIKE },
	{ { "job-timeout", required_argument, NULL, 'J' }, C_JOBLIKE },
	{ { "boot-timeout", required_argument, NULL, 'O' }, C_JOBLIKE },
	{ { "test-timeout", required_argument, NULL, 'X' }, C_JOBLIKE },
	{ { "known-failures", required_argument, NULL, 'k' }, C_JOBLIKE | C_RUN | C_VERDICT },
	{ { "append", required_argument, NULL, 'A' }, C_JOBLIKE },
	{ { "env", required_argument, NULL, 'e' }, C_JOBLIKE },
	{ { "kernel", required_argument, NULL, 'K' }, C_JOBS | C_BENCH },
	{ { "kernel-url", required_argument, NULL, 'U' }, C_JOBS },
	{ { "work", required_argument, NULL, 'w' }, C_MUTATE },
	{ { "kernels", required_argument, NULL, 'N' }, C_MUTATE },
	{ { "pristine", required_argument, NULL, 'P' }, C_MUTATE },
	{ { "mutants", required_argument, NULL, 'M' }, C_MUTATE },
	{ { "plan", required_argument, NULL, 'L' }, C_MUTATE },
	{ { "profile", required_argument, NULL, 'p' }, C_BENCH | C_AB },
	{ { "boots", required_argument, NULL, 'b' }, C_BENCH | C_AB },
	{ { "a", required_argument, NULL, 'a' }, C_AB },
	{ { "b", required_argument, NULL, 'c' }, C_AB },
	{ { "device", required_argument, NULL, 'D' }, C_RUN },
	{ { "tap", required_argument, NULL, 't' }, C_VERDICT },
	{ { "console", required_argument, NULL, 'C' }, C_VERDICT },
	{ { "records", required_argument, NULL, 'R' }, C_VERDICT },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: iopath lava SUBCOMMAND [options]\n"
		   "  jobs     --kernel K [--kernel K...] --out DIR [-- run_kselftest.sh args]\n"
		   "  mutate   [--work DIR] [--plan PLAN | --mutants DIR] --out DIR [MUTANT...]\n"
		   "  bench    --kernel K --out DIR [--profile NAME] [--boots N] [-- bench args]\n"
		   "  ab       --a K --b K --out DIR [--boots N] [--profile NAME | -- bench args]\n"
		   "  validate JOB.yaml...\n"
		   "  run      JOB.yaml...  (lava-run here, on configs/lava/qemu-local.yaml)\n"
		   "  verdict  LOG [--tap F] [--console F] [--records F] [--known-failures F]\n"
		   "Job options: --out DIR (made if missing), --build DIR, --url-base URL,\n"
		   "  --device-type qemu|x86, --template F, --job-timeout/--boot-timeout/\n"
		   "  --test-timeout MINUTES (90, 5, 75), --known-failures F, --append ARGS,\n"
		   "  --env NAME=VALUE, --kernel-url URL (jobs), --work/--kernels/--pristine/\n"
		   "  --mutants/--plan (mutate), --profile/--boots (bench, ab), --a/--b (ab).\n"
		   "Exit: 0 passed or written, 1 failed, 2 bad usage or input,\n"
		   "3 LAVA's infrastructure failed (the kernel is not judged). docs/fleet.md\n");
	for (i = 0; i < ARRAY_SIZE(subs); i++)
		fprintf(f, "  %-9s %s\n", subs[i].name, subs[i].summary);
}

static int parse(int argc, char **argv, int mask, struct lava_opts *o)
{
	struct option longopts[ARRAY_SIZE(all_opts) + 1];
	size_t i, n = 0;
	int opt, end = argc;

	for (i = 0; i < ARRAY_SIZE(all_opts); i++)
		if (all_opts[i].mask & mask)
			longopts[n++] = all_opts[i].opt;
	memset(&longopts[n], 0, sizeof(longopts[n]));
	/* Everything after the first "--" is the guest's. */
	for (i = 1; i < (size_t)argc; i++) {
		if (!strcmp(argv[i], "--")) {
			end = (int)i;
			o->args = argv + i + 1;
			o->nargs = argc - (int)i - 1;
			break;
		}
	}
	optind = 0;
	while ((opt = iop_getopt(end, argv, "lava", "h", longopts)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		case 'o':
			o->out = optarg;
			break;
		case 'B':
			o->build = optarg;
			break;
		case 'u':
			o->url_base = optarg;
			break;
		case 'd':
			o->device_type = optarg;
			break;
		case 'T':
			o->template = optarg;
			o->template_given = true;
			break;
		case 'J':
			o->job_timeout = optarg;
			break;
		case 'O':
			o->boot_timeout = optarg;
			break;
		case 'X':
			o->test_timeout = optarg;
			break;
		case 'k':
			o->known_failures = optarg;
			break;
		case 'A':
			o->append = optarg;
			break;
		case 'e':
			if (lava_strv_add(&o->env, strdup(optarg), 0))
				return lava_fail(1, "out of memory");
			break;
		case 'K':
			if (lava_strv_add(&o->kernels, strdup(optarg), 0))
				return lava_fail(1, "out of memory");
			break;
		case 'U':
			o->kernel_url = optarg;
			break;
		case 'w':
			o->work = optarg;
			break;
		case 'N':
			o->kernels_dir = optarg;
			break;
		case 'P':
			o->pristine = optarg;
			break;
		case 'M':
			o->mutants = optarg;
			break;
		case 'L':
			o->plan = optarg;
			break;
		case 'p':
			o->profile = optarg;
			break;
		case 'b':
			o->boots = optarg;
			break;
		case 'a':
			o->a = optarg;
			break;
		case 'c':
			o->b = optarg;
			break;
		case 'D':
			o->device = optarg;
			break;
		case 't':
			o->tap = optarg;
			break;
		case 'C':
			o->console = optarg;
			break;
		case 'R':
			o->records = optarg;
			break;
		default:
			return 2;
		}
	}
	o->operands = argv + optind;
	o->noperands = end - optind;
	return -1;
}

static int cmd_lava(int argc, char **argv)
{
	static char build[PATH_MAX];
	struct stat st;
	struct lava_opts o = {
		.out = "", .url_base = "", .device_type = "qemu", .job_timeout = "90",
		.boot_timeout = "5", .test_timeout = "75", .known_failures = "", .append = "",
		.kernel_url = "", .work = "/var/cache/iopath/mutate", .kernels_dir = "",
		.pristine = "", .mutants = "", .plan = "", .profile = "", .boots = "", .a = "", .b = "",
		.tap = "", .console = "", .records = "", .device = "", .template = "",
	};
	size_t i;
	int mask = 0, rc;

	if (argc < 2)
		return iop_usage_error("lava", "expected a subcommand: jobs, mutate, bench, ab, validate, run or verdict (iopath lava --help)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(subs); i++)
		if (!strcmp(argv[1], subs[i].name))
			mask = subs[i].mask;
	if (!mask)
		return iop_usage_error("lava", "unknown subcommand '%s' (iopath lava --help)", argv[1]);
	snprintf(build, sizeof(build), "%s", iop_build_dir());
	o.build = build;
	rc = parse(argc - 1, argv + 1, mask, &o);
	if (rc >= 0)
		goto out;
	if (!*o.profile)
		o.profile = mask == C_AB ? "none" : "quick";
	if (!*o.boots)
		o.boots = mask == C_AB ? "3" : "1";
	rc = 2;
	/* A --build named is the build directory, whether or not used. */
	if (o.build != build && (stat(o.build, &st) || !S_ISDIR(st.st_mode))) {
		lava_fail(2, "--build %s: not a directory", o.build);
		goto out;
	}
	if (mask & (C_JOBS | C_BENCH | C_AB) && o.noperands) {
		iop_usage_error("lava", "%s takes no operands (kernels are --kernel K)", argv[1]);
		goto out;
	}
	switch (mask) {
	case C_JOBS:
		rc = lava_cmd_jobs(&o);
		break;
	case C_MUTATE:
		rc = lava_cmd_mutate(&o);
		break;
	case C_BENCH:
		rc = lava_cmd_bench(&o);
		break;
	case C_AB:
		rc = lava_cmd_ab(&o);
		break;
	case C_VALIDATE:
	case C_RUN:
		if (!o.noperands) {
			iop_usage_error("lava", "%s: name the job files (JOB.yaml...)", argv[1]);
			break;
		}
		rc = mask == C_RUN ? lava_cmd_run(&o) : lava_cmd_validate(&o);
		break;
	case C_VERDICT:
		if (o.noperands != 1) {
			iop_usage_error("lava", "verdict: name one job log (iopath lava verdict LOG)");
			break;
		}
		rc = lava_cmd_verdict(&o, o.operands[0]);
		break;
	}
out:
	lava_strv_free(&o.env);
	lava_strv_free(&o.kernels);
	return rc;
}

IOP_COMMAND("lava", "LAVA jobs for a lab, and the verdict on their logs", cmd_lava)
