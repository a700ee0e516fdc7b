// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath bench --vs-fio: run the fio job a benchmark names as its match
 * (iop_bench.fio) on the same file and CPUs, with fio's own threads pinned
 * and its polling main thread kept off the CPUs under test, and read its
 * IOPS and CPU time per operation from its JSON output.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_fio.h"
#include "cli.h"
#include "iopath.h"

/* In the child: stdout into @wfd, stderr to /dev/null, then fio. */
static void fio_exec(const struct iop_run *r, char **argv, int wfd)
{
	int devnull = open("/dev/null", O_WRONLY);
	cpu_set_t rest;

	dup2(wfd, 1);
	if (devnull >= 0)
		dup2(devnull, 2);
	/*
	 * fio's main thread polls busily; like our sampling thread it
	 * goes on the other CPUs (the job threads pin themselves with
	 * --cpus_allowed), or it would take a share of the CPU under test.
	 */
	sched_getaffinity(0, sizeof(rest), &rest);
	for (int i = 0; i < r->ncpus; i++)
		CPU_CLR(r->cpus[i], &rest);
	if (CPU_COUNT(&rest))
		sched_setaffinity(0, sizeof(rest), &rest);
	signal(SIGINT, SIG_IGN);	/* the parent kills it */
	execvp("fio", argv);
	_exit(127);
}

/* IOPS and CPU time per operation from fio's JSON output @out. */
static int fio_parse(const char *out, const struct iop_fio_job *fj, double *iops, double *cpu_ns,
		     char *why, size_t len)
{
	json_t *root, *v, *job;
	double usr, sys;

	/* fio may print notes before the JSON object */
	root = json_loads(strchr(out, '{') ? strchr(out, '{') : out, JSON_DISABLE_EOF_CHECK, NULL);
	v = json_object_get(json_object_get(json_array_get(json_object_get(root, "jobs"), 0),
					    fj->ddir),
			    "iops");
	if (!json_is_number(v)) {
		json_decref(root);
		snprintf(why, len, "fio output has no jobs[0].%s.iops", fj->ddir);
		return -EIO;
	}
	*iops = json_number_value(v);
	/* usr_cpu/sys_cpu: % of wall time, from the job thread's rusage (thread=1) */
	job = json_array_get(json_object_get(root, "jobs"), 0);
	usr = json_number_value(json_object_get(job, "usr_cpu"));
	sys = json_number_value(json_object_get(job, "sys_cpu"));
	*cpu_ns = *iops > 0 ? (usr + sys) / 100.0 * 1e9 / *iops : NAN;
	json_decref(root);
	return 0;
}

static int run_fio(struct iop_run *r, const struct iop_fio_job *fj, double *iops, double *cpu_ns,
		   char *why, size_t len)
{
	char cpus[64] = "", *argv[72], buf[1 << 16], *out = NULL;
	size_t outlen = 0;
	int pipefd[2], status, argc = 0, ret;
	uint64_t deadline;
	pid_t pid;
	ssize_t n;

	for (int i = 0; i < r->ncpus; i++)
		snprintf(cpus + strlen(cpus), sizeof(cpus) - strlen(cpus),
			 i ? ",%d" : "%d", r->cpus[i]);
	argv[argc++] = "fio";
	argv[argc++] = "--output-format=json";
	for (int i = 0; i < fj->argc; i++)
		argv[argc++] = fj->argv[i];
	{
		static char a1[96];

		snprintf(a1, sizeof(a1), "--cpus_allowed=%s", cpus);
		argv[argc++] = a1;
		argv[argc++] = "--cpus_allowed_policy=split";
	}
	argv[argc] = NULL;
	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -errno;
	}
	if (!pid)
		fio_exec(r, argv, pipefd[1]);
	close(pipefd[1]);
	deadline = iop_now_ns() + 120000000000ull;
	while ((n = read(pipefd[0], buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR && !iop_interrupted && iop_now_ns() < deadline)
				continue;
			kill(pid, SIGKILL);
			break;
		}
		char *o2 = realloc(out, outlen + (size_t)n + 1);

		if (!o2) {
			kill(pid, SIGKILL);
			break;
		}
		out = o2;
		memcpy(out + outlen, buf, (size_t)n);
		outlen += (size_t)n;
		out[outlen] = '\0';
	}
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	if (iop_interrupted) {
		free(out);
		snprintf(why, len, "interrupted");
		return -EINTR;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !out) {
		snprintf(why, len, "fio failed (exit %d)%s",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1,
			 WIFEXITED(status) && WEXITSTATUS(status) == 127 ? ": fio not installed" : "");
		free(out);
		return -EIO;
	}
	ret = fio_parse(out, fj, iops, cpu_ns, why, len);
	free(out);
	return ret;
}

static void print_fio_cmdline(const struct iop_run *r, const struct iop_fio_job *fj)
{
	fprintf(stderr, "iopath: bench: fio command: fio --output-format=json");
	for (int i = 0; i < fj->argc; i++)
		fprintf(stderr, " %s", fj->argv[i]);
	fprintf(stderr, " --cpus_allowed=");
	for (int i = 0; i < r->ncpus; i++)
		fprintf(stderr, i ? ",%d" : "%d", r->cpus[i]);
	fprintf(stderr, " --cpus_allowed_policy=split\n");
}

int vs_fio_after_rep(struct iop_run *r, int rep, const struct iop_rep *res, json_t *rec,
		     void *arg, char *why, size_t len)
{
	struct fio_pair *fp = arg;
	struct iop_fio_job fj;
	double ours, fio = 0, ours_cpu, fio_cpu = NAN;
	int ret;

	memset(&fj, 0, sizeof(fj));
	ret = r->bench->fio(r, &fj, iop_runtime_ms(r));
	if (ret) {
		snprintf(why, len, "%s: no matching fio job for these parameters", r->bench->name);
		return ret;
	}
	if (!rep)
		print_fio_cmdline(r, &fj);
	if (r->bench->warm) {
		ret = r->bench->warm(r, why, len);
		if (ret)
			return ret;
	}
	ret = run_fio(r, &fj, &fio, &fio_cpu, why, len);
	if (ret)
		return ret;
	/* equal intervals: the arithmetic mean is total ops over total time, as fio's IOPS */
	ours = iop_mean(res->rate[fj.phase], (size_t)res->nsamples);
	ours_cpu = r->nphases > 1 ? iop_mean(res->cpu_ns_per_op[fj.phase], (size_t)res->nsamples) :
		   res->usr_ns_per_op + res->sys_ns_per_op;
	if (fp->n < 1000) {
		fp->ours[fp->n] = ours;
		fp->fio[fp->n] = fio;
		fp->ours_cpu[fp->n] = ours_cpu;
		fp->fio_cpu[fp->n] = fio_cpu;
		fp->n++;
	}
	/* json_real() takes no NaN: a figure that is none is no comparison to keep */
	if (json_object_set_new(json_object_get(rec, "run"), "vs_fio",
				json_pack("{s:s, s:f, s:f, s:f, s:f, s:f}", "phase",
					  r->nphases > 1 ? r->phase_names[fj.phase] : "main",
					  "iopath_ops", ours, "fio_ops", fio, "ratio", ours / fio,
					  "iopath_cpu_ns_per_op", ours_cpu,
					  "fio_cpu_ns_per_op", fio_cpu))) {
		snprintf(why, len, "%s: pair %d: the comparison with fio cannot be recorded (a figure that is not a finite number)",
			 r->bench->name, rep + 1);
		return -EINVAL;
	}
	fprintf(stderr,
		"iopath: bench %s: pair %d: iopath %.0f ops/s, fio %.0f ops/s, ratio %.3f; CPU per op iopath %.0f ns, fio %.0f ns\n",
		r->bench->name, rep + 1, ours, fio, ours / fio, ours_cpu, fio_cpu);
	return 0;
}
