// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath lava jobs, mutate, bench and ab: LAVA job files. Each kernel is
 * staged by `scripts/vm.sh --lava-out` (the kernel and the initramfs of
 * iopath vm, and their sha256), and its job is the template
 * (configs/lava/selftests.yaml for device type qemu, selftests-x86.yaml
 * for x86) with each ${NAME} replaced by its value as a quoted YAML scalar
 * (lava_yaml_quote()), checked (lava_job_check()) and written beside the
 * artefacts. Every argument is checked, and the template rendered and
 * checked once with stand-in values, before anything is created.
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

#include "cli.h"
#include "input.h"
#include "lava.h"
#include "number.h"
#include "outfile.h"
#include "quote.h"
#include "sha256.h"

#define BAD(...) lava_fail(2, __VA_ARGS__)

/* The value of each ${NAME} of a template. */
struct value {
	const char *name;
	const char *str;	/* NULL: @num, written as a number */
	long num;
};

static bool all_of(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

/* [A-Z0-9_]{@n}: a ${NAME} of a template. */
static bool all_of_n(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", s[i]) || !s[i])
			return false;
	return true;
}

#define ALNUM "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

static bool minutes_ok(const char *v)
{
	uint64_t m;

	return !iop_parse_u64(v, 1, 9999, &m);
}

/* http(s):// or file:// without blanks, quotes or shell syntax. */
static bool url_ok(const char *u)
{
	const char *rest;
	size_t i;

	if (!strncmp(u, "file://", 7))
		rest = u + 7;
	else if (!strncmp(u, "http://", 7))
		rest = u + 7;
	else if (!strncmp(u, "https://", 8))
		rest = u + 8;
	else
		return false;
	if (!*rest)
		return false;
	for (i = 0; rest[i]; i++)
		if ((unsigned char)rest[i] <= ' ' || (unsigned char)rest[i] == 0x7f ||
		    strchr("\"'\\{}<>`$", rest[i]))
			return false;
	return true;
}

static char *slug(const char *k)
{
	struct stat st;
	const char *b = k, *s;
	char *out = malloc(strlen(k) + 8), *w = out;
	size_t n;

	if (!out)
		return NULL;
	if (!stat(k, &st) && strrchr(k, '/'))
		b = strrchr(k, '/') + 1;
	for (s = b; *s; s++) {
		if (strchr(ALNUM "._+-", *s))
			*w++ = *s;
		else if (w == out || w[-1] != '_' || s == b || strchr(ALNUM "._+-", s[-1]))
			*w++ = '_';
	}
	*w = '\0';
	/* strip("._") */
	for (s = out; *s == '.' || *s == '_'; s++)
		;
	memmove(out, s, strlen(s) + 1);
	n = strlen(out);
	while (n && (out[n - 1] == '.' || out[n - 1] == '_'))
		out[--n] = '\0';
	if (!n)
		strcpy(out, "kernel");
	return out;
}

static const char *top(void)
{
	return iop_src_dir();
}

/* ---- reading and writing ------------------------------------------------- */

/* A whole small regular file (at most @max bytes), NUL-terminated. */
static char *slurp(const char *path, size_t max, size_t *n, char *why, size_t len)
{
	struct iop_input in;
	char *buf = NULL, *line, *nb;
	size_t have = 0;
	ssize_t r;
	bool term;

	if (iop_input_open(&in, path, max, why, len))
		return NULL;
	if (in.left > max) {
		snprintf(why, len, "%s: larger than %zu bytes", path, max);
		iop_input_close(&in);
		return NULL;
	}
	buf = calloc(1, in.left + 1);
	while (buf && (r = iop_input_line(&in, &line, &term, why, len)) >= 0) {
		if (have + r + 1 > in.left + 1) {
			nb = realloc(buf, have + r + 2);
			if (!nb)
				break;
			buf = nb;
		}
		memcpy(buf + have, line, r);
		have += r;
		if (term)
			buf[have++] = '\n';
		buf[have] = '\0';
	}
	iop_input_close(&in);
	if (buf && r != -ENODATA) {
		free(buf);
		return NULL;
	}
	*n = have;
	return buf;
}

/* @path's name and its sha256, from "scripts/vm.sh --lava-out"'s sha256 file. */
static int read_sum(const char *dir, const char *name, char *out)
{
	char path[PATH_MAX], why[256], *text, *line, *save;
	size_t n;

	snprintf(path, sizeof(path), "%s/sha256", dir);
	text = slurp(path, 4096, &n, why, sizeof(why));
	if (!text)
		return lava_fail(1, "%s", why);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char h[65], f[256];

		if (sscanf(line, "%64s %255s", h, f) == 2 && !strcmp(f, name) && strlen(h) == 64) {
			strcpy(out, h);
			free(text);
			return 0;
		}
	}
	free(text);
	return lava_fail(1, "%s: no sha256 of %s", path, name);
}

/* Run @argv with stdout to /dev/null: its exit status, or -1. */
static int run(char *const *argv)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int sha256_file(const char *path, char *out)
{
	char why[PATH_MAX + 64];

	if (iop_sha256_file(path, out, why, sizeof(why)))
		return lava_fail(1, "%s", why);
	return 0;
}

/* A directory for a kernel's artefacts: made if missing; never a link. */
static int artefact_dir(const char *dest)
{
	struct stat st;

	if (!lstat(dest, &st)) {
		if (S_ISDIR(st.st_mode))
			return 0;
		return BAD("%s exists and is not a directory (the kernel's artefacts go there)", dest);
	}
	if (mkdir(dest, 0755) && errno != EEXIST)
		return lava_fail(1, "%s: %s", dest, strerror(errno));
	return 0;
}

/* Copy @src to @dst: a new file renamed into place. */
static int copy_new(const char *src, const char *dst)
{
	char tmp[PATH_MAX], buf[1 << 16];
	int in, fd, ret = 0;
	struct stat st;
	ssize_t r;

	in = open(src, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (in < 0 || fstat(in, &st) || !S_ISREG(st.st_mode)) {
		if (in >= 0)
			close(in);
		return lava_fail(1, "%s: not a regular file", src);
	}
	fd = iop_tmp_create(dst, iop_out_mode(dst), tmp, sizeof(tmp));
	if (fd < 0) {
		close(in);
		return lava_fail(1, "%s: %s", dst, strerror(-fd));
	}
	while ((r = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, r) != r) {
			ret = -EIO;
			break;
		}
	if (r < 0 || fsync(fd))
		ret = -errno;
	close(in);
	if (close(fd) && !ret)
		ret = -errno;
	if (ret) {
		iop_tmp_discard(tmp);
		return lava_fail(1, "%s: %s", dst, strerror(-ret));
	}
	ret = iop_tmp_commit(tmp, dst);
	return ret ? lava_fail(1, "%s: %s", dst, strerror(-ret)) : 0;
}

/* ---- the template ---------------------------------------------------------- */

static char *render(const char *tmpl, const char *text, const struct value *v, size_t nv,
		    size_t *n)
{
	char *out = NULL;
	const char *p = text, *end;
	size_t i, k;
	FILE *f = open_memstream(&out, n);

	if (!f)
		return NULL;
	while (*p) {
		end = p[0] == '$' && p[1] == '{' ? strchr(p + 2, '}') : NULL;
		if (end && end > p + 2 && all_of_n(p + 2, end - p - 2)) {
			k = end - p - 2;
			for (i = 0; i < nv; i++)
				if (strlen(v[i].name) == k && !strncmp(v[i].name, p + 2, k))
					break;
			if (i == nv) {
				fclose(f);
				free(out);
				BAD("%s: no value for ${%.*s}", tmpl, (int)k, p + 2);
				return NULL;
			}
			if (v[i].str)
				lava_yaml_quote(f, v[i].str);
			else
				fprintf(f, "%ld", v[i].num);
			p = end + 1;
			continue;
		}
		fputc(*p++, f);
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

static char *job_text(struct lava_opts *o, const char *tmpl_text, const struct lava_jobv *j,
		      size_t *n)
{
	char jname[512], karg[1024], kargs[1024];
	struct value v[18];
	size_t nv = 0;
	char *text;

	snprintf(jname, sizeof(jname), "iopath %s %s", j->kind, j->name);
	if (snprintf(kargs, sizeof(kargs), "panic=-1 rdinit=/init loglevel=5%s%s",
		     *j->append ? " " : "", j->append) >= (int)sizeof(kargs) ||
	    snprintf(karg, sizeof(karg), "-kernel {kernel} -append \"console=ttyS0 %s\"",
		     kargs) >= (int)sizeof(karg)) {
		lava_fail(2, "--append: too long");
		return NULL;
	}
#define STR(N, S) (v[nv++] = (struct value){ .name = N, .str = S })
#define NUM(N, X) (v[nv++] = (struct value){ .name = N, .num = atol(X) })
	STR("DEVICE_TYPE", o->device_type);
	STR("JOB_NAME", jname);
	NUM("JOB_MINUTES", o->job_timeout);
	NUM("BOOT_MINUTES", o->boot_timeout);
	NUM("TEST_MINUTES", o->test_timeout);
	STR("KIND", j->kind);
	STR("KERNEL_DESC", j->desc);
	STR("ARGS_DESC", j->args_desc);
	STR("RUN", j->run);
	STR("DESCRIPTION", strstr(j->run, "--bench") ? "iopath benchmarks" :
	    "iopath selftests through run_kselftest.sh");
	STR("KERNEL_ARG", karg);
	STR("KERNEL_ARGS", kargs);
	STR("KERNEL_URL", j->kernel_url);
	STR("KERNEL_SHA256", j->kernel_sha);
	STR("RAMDISK_URL", j->ramdisk_url);
	STR("RAMDISK_SHA256", j->ramdisk_sha);
#undef STR
#undef NUM
	text = render(o->template, tmpl_text, v, nv, n);
	return text;
}

static char *template_text;
static size_t template_len;

/* Render the template once with stand-in values: its faults found before anything is made. */
static int check_template(struct lava_opts *o)
{
	struct lava_jobv j = {
		.name = "check", .kind = "check", .desc = "check", .args_desc = "",
		.run = "/iopath/lava/run", .kernel_url = "file:///check/vmlinuz",
		.ramdisk_url = "file:///check/initrd.cpio.gz", .append = o->append,
	};
	char why[512], buf[512];
	const char *err;
	size_t n;
	char *text;

	template_text = slurp(o->template, LAVA_MAX_JOB, &template_len, why, sizeof(why));
	if (!template_text)
		return BAD("--template %s", why);
	memset(j.kernel_sha, '0', 64);
	memset(j.ramdisk_sha, '0', 64);
	text = job_text(o, template_text, &j, &n);
	if (!text)
		return 2;
	err = lava_job_check(text, n, buf, sizeof(buf));
	free(text);
	if (err)
		return BAD("--template %s: the job for --device-type %s would be wrong: %s",
			   o->template, o->device_type, err);
	return 0;
}

static bool env_ok(const char *e)
{
	const char *eq = strchr(e, '=');
	const char *p;

	if (!eq || eq == e || (*e >= '0' && *e <= '9'))
		return false;
	for (p = e; p < eq; p++)
		if (!strchr(ALNUM "_", *p))
			return false;
	return true;
}

static char default_template[PATH_MAX];

int lava_check_job_args(struct lava_opts *o)
{
	static const char *const names[] = { "--job-timeout", "--boot-timeout", "--test-timeout" };
	const char *vals[] = { o->job_timeout, o->boot_timeout, o->test_timeout };
	char why[PATH_MAX + 128];
	struct stat st;
	size_t i;

	for (i = 0; i < 3; i++)
		if (!minutes_ok(vals[i]))
			return BAD("%s '%s': expected minutes, 1 to 9999", names[i], vals[i]);
	if (*o->kernel_url && !url_ok(o->kernel_url))
		return BAD("--kernel-url '%s': expected an http(s):// or file:// URL without blanks or quotes",
			   o->kernel_url);
	if (*o->url_base && !url_ok(o->url_base))
		return BAD("--url-base '%s': expected an http(s):// or file:// URL without blanks or quotes",
			   o->url_base);
	if (!lava_device_type_ok(o->device_type))
		return BAD("--device-type '%s': iopath's jobs deploy and boot on %s", o->device_type,
			   LAVA_DEVICE_TYPES);
	if (!o->template_given) {
		snprintf(default_template, sizeof(default_template), "%s/configs/lava/%s", top(),
			 strcmp(o->device_type, "x86") ? "selftests.yaml" : "selftests-x86.yaml");
		o->template = default_template;
	}
	if (*o->append && strspn(o->append, ALNUM "_.,=/:+ -") != strlen(o->append))
		return BAD("--append '%s': kernel parameters are [A-Za-z0-9_.,=/:+ -]", o->append);
	for (i = 0; i < o->env.n; i++)
		if (!env_ok(o->env.s[i]))
			return BAD("--env '%s': expected NAME=VALUE", o->env.s[i]);
	/*
	 * Files named are regular files (a FIFO would hang the reader), found
	 * now, before --out is made or scripts/vm.sh runs. A kernel without a
	 * '/' that does not exist here is a Debian package name.
	 */
	errno = 0;
	if (*o->known_failures && (stat(o->known_failures, &st) || !S_ISREG(st.st_mode)))
		return BAD("--known-failures %s: %s", o->known_failures,
			   errno == ENOENT ? strerror(ENOENT) : "not a regular file");
	for (i = 0; i < o->kernels.n; i++) {
		const char *k = o->kernels.s[i];

		errno = 0;
		if ((strchr(k, '/') || !lstat(k, &st)) && (stat(k, &st) || !S_ISREG(st.st_mode)))
			return BAD("--kernel %s: %s", k,
				   errno == ENOENT ? strerror(ENOENT) : "not a regular file");
	}
	if (*o->work && !lstat(o->work, &st) && !S_ISDIR(st.st_mode))
		return BAD("--work %s: not a directory", o->work);
	/* --out is made if missing, but not its parent: a typo is not a tree. */
	if (!*o->out)
		return BAD("--out is required (the directory for the jobs and their artefacts)");
	if (iop_out_dir_check(o->out, why, sizeof(why)))
		return BAD("--out %s", why);
	return check_template(o);
}

/* Absolute paths for what the jobs and vm.sh name; --out made if missing. */
int lava_make_out(struct lava_opts *o)
{
	static char out[PATH_MAX], build[PATH_MAX];
	char why[PATH_MAX + 128];

	if (o->out == out)
		return 0;
	if (iop_out_dir_make(o->out, why, sizeof(why)))
		return lava_fail(1, "--out %s", why);
	if (!realpath(o->out, out))
		return lava_fail(1, "--out %s: %s", o->out, strerror(errno));
	o->out = out;
	if (realpath(o->build, build))
		o->build = build;
	return 0;
}

static char *url_of(struct lava_opts *o, const char *rel)
{
	size_t n = strlen(o->url_base);
	char *u;
	int r;

	while (n && o->url_base[n - 1] == '/')
		n--;
	if (*o->url_base)
		r = asprintf(&u, "%.*s/%s", (int)n, o->url_base, rel);
	else
		r = asprintf(&u, "file://%s/%s", o->out, rel);
	return r < 0 ? NULL : u;
}

/* scripts/vm.sh --lava-out: the kernel and its initramfs into @dest. */
int lava_stage_kernel(struct lava_opts *o, const char *kernel, const char *dest,
		      char **args, int nargs, const struct lava_strv *env)
{
	char vm[PATH_MAX], self[PATH_MAX];
	char **argv = calloc(16 + 2 * env->n + nargs, sizeof(*argv));
	size_t i, a = 0;
	ssize_t n;
	int rc;

	if (!argv)
		return lava_fail(1, "out of memory");
	rc = artefact_dir(dest);
	if (rc) {
		free(argv);
		return rc;
	}
	snprintf(vm, sizeof(vm), "%s/scripts/vm.sh", top());
	argv[a++] = vm;
	argv[a++] = "--kernel";
	argv[a++] = (char *)kernel;
	argv[a++] = "--build";
	argv[a++] = (char *)o->build;
	argv[a++] = "--lava-out";
	argv[a++] = (char *)dest;
	if (*o->known_failures) {
		argv[a++] = "--known-failures";
		argv[a++] = (char *)o->known_failures;
	}
	for (i = 0; i < env->n; i++) {
		argv[a++] = "--env";
		argv[a++] = env->s[i];
	}
	if (nargs) {
		argv[a++] = "--";
		for (i = 0; i < (size_t)nargs; i++)
			argv[a++] = args[i];
	}
	/* vm.sh runs this binary (its iopath for the initramfs, kmsg scan). */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		setenv("IOPATH_BIN", self, 0);
	}
	rc = run(argv);
	free(argv);
	if (rc == 2)
		return 2;	/* vm.sh said why, in its one line */
	if (rc)
		return lava_fail(1, "scripts/vm.sh --lava-out failed for %s", kernel);
	return 0;
}

/*
 * Stage one kernel (into OUT/@rel) and write OUT/NAME.yaml. @ramdisk (a
 * directory under OUT): take the initramfs staged there and only copy
 * the kernel into OUT/@rel.
 */
int lava_write_job(struct lava_opts *o, struct lava_jobv *j, const char *kernel, const char *rel,
		   const char *ramdisk, char **ksft, int nksft, const struct lava_strv *env)
{
	char dest[PATH_MAX], path[PATH_MAX], rel2[PATH_MAX], buf[512], sums[PATH_MAX];
	char *text = NULL, *kurl = NULL, *rurl = NULL;
	const char *err;
	struct stat st;
	size_t n;
	int rc;

	rc = lava_make_out(o);
	if (rc)
		return rc;
	if (snprintf(dest, sizeof(dest), "%s/%s", o->out, rel) >= (int)sizeof(dest) - 32 ||
	    snprintf(sums, sizeof(sums), "%s/sha256", dest) >= (int)sizeof(sums))
		return BAD("%s/%s: path too long", o->out, rel);
	if (ramdisk) {
		rc = artefact_dir(dest);
		if (snprintf(path, sizeof(path), "%s/vmlinuz", dest) >= (int)sizeof(path))
			rc = BAD("%s: path too long", dest);
		if (!rc)
			rc = copy_new(kernel, path);
		if (!rc)
			rc = sha256_file(path, j->kernel_sha);
		snprintf(path, sizeof(path), "%s/%s", o->out, ramdisk);
		if (!rc)
			rc = read_sum(path, "initrd.cpio.gz", j->ramdisk_sha);
	} else {
		if (!strcmp(rel, j->name) || lstat(sums, &st) || !S_ISREG(st.st_mode))
			rc = lava_stage_kernel(o, kernel, dest, ksft, nksft, env);
		if (!rc)
			rc = read_sum(dest, "vmlinuz", j->kernel_sha);
		if (!rc)
			rc = read_sum(dest, "initrd.cpio.gz", j->ramdisk_sha);
	}
	if (rc)
		return rc;
	snprintf(rel2, sizeof(rel2), "%s/vmlinuz", rel);
	kurl = *o->kernel_url ? strdup(o->kernel_url) : url_of(o, rel2);
	snprintf(rel2, sizeof(rel2), "%s/initrd.cpio.gz", ramdisk ? ramdisk : rel);
	rurl = url_of(o, rel2);
	if (!kurl || !rurl) {
		rc = lava_fail(1, "out of memory");
		goto out;
	}
	j->kernel_url = kurl;
	j->ramdisk_url = rurl;
	text = job_text(o, template_text, j, &n);
	if (!text) {
		rc = 2;
		goto out;
	}
	err = lava_job_check(text, n, buf, sizeof(buf));
	if (err) {
		rc = lava_fail(1, "%s: the job written from %s is wrong: %s", j->name, o->template, err);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s.yaml", o->out, j->name);
	rc = lava_write_file(path, text, n);
	if (rc) {
		rc = lava_fail(1, "%s: %s", path, strerror(-rc));
		goto out;
	}
	printf("%s\n", path);
	fflush(stdout);
out:
	free(text);
	free(kurl);
	free(rurl);
	return rc;
}

/* Words joined by blanks, each quoted for the guest's sh when it must be. */
char *lava_command(char *const *w, size_t n)
{
	char *out = NULL;
	size_t len, i;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	for (i = 0; i < n; i++) {
		if (i)
			fputc(' ', f);
		iop_shell_quote(f, w[i]);
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

static char *joined(char *const *a, size_t na, char *const *b, size_t nb)
{
	char *out = NULL;
	size_t len, i;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	for (i = 0; i < na + nb; i++)
		fprintf(f, "%s%s", i ? " " : "", i < na ? a[i] : b[i - na]);
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

int lava_cmd_jobs(struct lava_opts *o)
{
	char **names;
	struct lava_jobv j;
	char *desc;
	size_t i, k;
	int rc = lava_check_job_args(o);

	if (rc)
		return rc;
	if (!o->kernels.n)
		return BAD("--kernel is required (a bzImage, a .deb or a Debian package name)");
	if (*o->kernel_url && o->kernels.n != 1)
		return BAD("--kernel-url goes with one --kernel (the same kernel, for its modules and sha256)");
	names = calloc(o->kernels.n, sizeof(*names));
	if (!names)
		return lava_fail(1, "out of memory");
	for (i = 0; i < o->kernels.n && !rc; i++) {
		names[i] = slug(o->kernels.s[i]);
		for (k = 0; names[i] && k < i; k++)
			if (!strcmp(names[k], names[i]))
				rc = BAD("--kernel %s: given twice", o->kernels.s[i]);
	}
	desc = joined(o->env.s, o->env.n, o->args, o->nargs);
	for (i = 0; i < o->kernels.n && !rc; i++) {
		j = (struct lava_jobv){ .name = names[i], .kind = "selftests",
					.desc = o->kernels.s[i], .args_desc = desc ? desc : "",
					.run = "/iopath/lava/run", .append = o->append };
		rc = lava_write_job(o, &j, o->kernels.s[i], names[i], NULL, o->args, o->nargs,
				    &o->env);
	}
	for (i = 0; i < o->kernels.n; i++)
		free(names[i]);
	free(names);
	free(desc);
	return rc;
}

/* The test shell's command for iopath bench, its arguments checked. */
static char *bench_command(struct lava_opts *o, int *rc)
{
	char path[PATH_MAX];
	char *w[260];
	size_t n = 0;
	struct stat st;
	uint64_t boots;
	int i;

	*rc = 0;
	snprintf(path, sizeof(path), "%s/configs/bench/%s.conf", top(), o->profile);
	if (strcmp(o->profile, "none") &&
	    (!all_of(o->profile, ALNUM "_-") || strlen(o->profile) > 64 || stat(path, &st) ||
	     !S_ISREG(st.st_mode))) {
		*rc = BAD("--profile '%s': no configs/bench/%s.conf", o->profile, o->profile);
		return NULL;
	}
	if (!strcmp(o->profile, "none") && !o->nargs) {
		*rc = BAD("--profile none: name the benchmark after -- (iopath bench arguments)");
		return NULL;
	}
	if (iop_parse_u64(o->boots, 1, 99, &boots)) {
		*rc = BAD("--boots '%s': 1 to 99", o->boots);
		return NULL;
	}
	if (o->nargs > 250) {
		*rc = BAD("more than 250 benchmark arguments");
		return NULL;
	}
	for (i = 0; i < o->nargs; i++) {
		if (!all_of(o->args[i], ALNUM "_.,=:/+-") || strlen(o->args[i]) > 200) {
			*rc = BAD("benchmark argument '%s': [A-Za-z0-9_.,=:/+-] only", o->args[i]);
			return NULL;
		}
	}
	w[n++] = "/iopath/lava/run";
	w[n++] = "--bench";
	snprintf(path, sizeof(path), "/iopath/bench/configs/bench/%s.conf", o->profile);
	if (strcmp(o->profile, "none")) {
		w[n++] = "--profile";
		w[n++] = path;
	}
	for (i = 0; i < o->nargs; i++)
		w[n++] = o->args[i];
	return joined(w, n, NULL, 0);
}

int lava_cmd_bench(struct lava_opts *o)
{
	char name[PATH_MAX], *cmd, *base;
	struct lava_strv none = { 0 };
	struct lava_jobv j;
	int rc = lava_check_job_args(o), b;

	if (rc)
		return rc;
	if (o->kernels.n != 1)
		return BAD("--kernel: exactly one kernel for benchmark jobs");
	cmd = bench_command(o, &rc);
	if (!cmd)
		return rc;
	base = slug(o->kernels.s[0]);
	for (b = 1; base && b <= atoi(o->boots) && !rc; b++) {
		snprintf(name, sizeof(name), "bench-%s-%s-boot%d", o->profile, base, b);
		j = (struct lava_jobv){ .name = name, .kind = "bench", .desc = o->kernels.s[0],
				  .args_desc = cmd, .run = cmd, .append = o->append };
		rc = lava_write_job(o, &j, o->kernels.s[0], base, NULL, NULL, 0, &none);
	}
	free(base);
	free(cmd);
	return rc;
}

int lava_cmd_ab(struct lava_opts *o)
{
	struct lava_strv none = { 0 };
	char name[64], rel[8], *cmd;
	struct lava_jobv j;
	int rc = lava_check_job_args(o), b, s;

	if (rc)
		return rc;
	if (!*o->a || !*o->b)
		return BAD("--a and --b are required (two kernels, as iopath ab takes them)");
	cmd = bench_command(o, &rc);
	if (!cmd)
		return rc;
	/* A B A B: a lab that runs them in order interleaves the sides. */
	for (b = 1; b <= atoi(o->boots) && !rc; b++) {
		for (s = 0; s < 2 && !rc; s++) {
			snprintf(name, sizeof(name), "ab-%c-boot%d", "ab"[s], b);
			snprintf(rel, sizeof(rel), "ab-%c", "ab"[s]);
			j = (struct lava_jobv){ .name = name, .kind = "ab", .desc = s ? o->b : o->a,
					  .args_desc = cmd, .run = cmd, .append = o->append };
			rc = lava_write_job(o, &j, s ? o->b : o->a, rel, NULL, NULL, 0, &none);
		}
	}
	free(cmd);
	return rc;
}
