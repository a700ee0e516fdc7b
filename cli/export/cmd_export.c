// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath export --kcidb [options] INPUT: a run's results as KernelCI report
 * data (KCIDB v5.3). INPUT is the TAP of a selftest run (make kselftest,
 * make check's selftests.tap, iopath vm, iopath lava verdict), a mutation
 * matrix (iopath mutate's matrix.json) or benchmark records (iopath
 * bench's JSON Lines). It writes one JSON object: the checkout, the build
 * and the tests (export.h and the export_*.c files say how each input maps).
 *
 * Every option and the input are checked before anything is read whole
 * or written: bad usage or input is one line and exit 2, with nothing
 * created; an input with no test result is a named failure (exit 1),
 * never an empty report. Submitting needs credentials from KernelCI;
 * producing the JSON does not.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array_size.h"
#include "cli.h"
#include "export.h"
#include "iopath.h"
#include "sha256.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iopath export --kcidb [options] INPUT\n"
		"KCIDB v5.3 JSON of a selftest run's TAP, a mutation matrix or benchmark records.\n"
		"  -o, --output FILE        write here (default stdout)\n"
		"  --origin NAME            the CI system's name in KCIDB ([a-z0-9_], default iopath)\n"
		"  --kernel-release R       uname -r of the kernel tested\n"
		"  --source TEXT            where the kernel came from (package, tree)\n"
		"  --tree-name NAME, --git-url https://..., --git-commit HASH   the checkout\n"
		"  --config FILE            the kernel's .config (its name and SHA-256)\n"
		"  --image FILE             the kernel image (its SHA-256 names the build)\n"
		"  --artifact-url-base URL  http(s) URL where --image and --config are published\n"
		"  --log-url URL            http(s) URL of the run's log\n"
		"  --lab NAME, --device NAME   the environment every test ran in\n"
		"  --arch ARCH              the build's architecture, where the input has none\n"
		"  --start-time TIME        when the run started (YYYY-MM-DDTHH:MM:SSZ, UTC, a date\n"
		"                           from 1970-01-01 to 2099-12-31), where the input has no\n"
		"                           time (TAP, matrix: else its mtime)\n"
		"  --known-failures FILE    for a TAP (default configs/known-failures)\n"
		"  --features FILE          iopath_probe output, for a TAP without a verdict\n"
		"Exit: 0 written, 1 failed, 2 bad usage or input.\n");
}

/* Printable text of at most @max bytes: no control character. */
static bool text_ok(const char *s, size_t max)
{
	json_t *j;
	size_t i;

	if (strlen(s) > max)
		return false;
	for (i = 0; s[i]; i++)
		if (iop_is_control(s, i))
			return false;
	j = json_string(s);	/* NULL unless valid UTF-8 */
	json_decref(j);
	return j;
}

static bool chars_ok(const char *s, const char *set, size_t min, size_t max)
{
	size_t n = strlen(s);

	return n >= min && n <= max && strspn(s, set) == n;
}

#define LOWER "abcdefghijklmnopqrstuvwxyz"
#define DIGITS "0123456789"

static bool url_ok(const char *s, bool https_only)
{
	size_t i;

	if (strncmp(s, "https://", 8) && (https_only || strncmp(s, "http://", 7)))
		return false;
	for (i = 0; s[i]; i++)
		if (s[i] == ' ' || s[i] == '\t' || iop_is_control(s, i))
			return false;
	return i > 8 && i <= 2048 && text_ok(s, 2048);
}

/* A regular file of at most @max bytes (0: any): else EXPORT_BAD with a line. */
static int file_ok(const char *opt, const char *path, off_t max)
{
	struct stat st;
	int fd;

	/* O_NONBLOCK: a FIFO must not wait for a writer. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return export_bad("%s%s%s: %s", opt, *opt ? " " : "", path, strerror(errno));
	if (fstat(fd, &st)) {
		close(fd);
		return export_bad("%s%s%s: %s", opt, *opt ? " " : "", path, strerror(errno));
	}
	close(fd);
	if (S_ISDIR(st.st_mode))
		return export_bad("%s%s%s: a directory, not a file", opt, *opt ? " " : "", path);
	if (!S_ISREG(st.st_mode))
		return export_bad("%s%s%s: not a regular file", opt, *opt ? " " : "", path);
	if (max && st.st_size > max)
		return export_bad("%s%s%s: larger than %lld bytes", opt, *opt ? " " : "", path,
				  (long long)max);
	return 0;
}

static int parse_opts(int argc, char **argv, struct export_opts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "kcidb", no_argument, NULL, 'K' },
		{ "output", required_argument, NULL, 'o' },
		{ "origin", required_argument, NULL, 'O' },
		{ "kernel-release", required_argument, NULL, 'r' },
		{ "source", required_argument, NULL, 's' },
		{ "tree-name", required_argument, NULL, 't' },
		{ "git-url", required_argument, NULL, 'u' },
		{ "git-commit", required_argument, NULL, 'c' },
		{ "config", required_argument, NULL, 'C' },
		{ "image", required_argument, NULL, 'i' },
		{ "known-failures", required_argument, NULL, 'k' },
		{ "features", required_argument, NULL, 'f' },
		{ "log-url", required_argument, NULL, 'l' },
		{ "artifact-url-base", required_argument, NULL, 'a' },
		{ "lab", required_argument, NULL, 'L' },
		{ "device", required_argument, NULL, 'D' },
		{ "start-time", required_argument, NULL, 'T' },
		{ "arch", required_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 }
	};
	bool kcidb = false;
	int opt;

	optind = 0;
	while ((opt = iop_getopt(argc, argv, EXPORT_PROG, "ho:", longopts)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		case 'K':
			kcidb = true;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'O':
			o->origin = optarg;
			break;
		case 'r':
			o->kernel_release = optarg;
			break;
		case 's':
			o->source = optarg;
			break;
		case 't':
			o->tree_name = optarg;
			break;
		case 'u':
			o->git_url = optarg;
			break;
		case 'c':
			o->git_commit = optarg;
			break;
		case 'C':
			o->config = optarg;
			break;
		case 'i':
			o->image = optarg;
			break;
		case 'k':
			o->known = optarg;
			break;
		case 'f':
			o->features = optarg;
			break;
		case 'l':
			o->log_url = optarg;
			break;
		case 'a':
			o->artifact_url_base = optarg;
			break;
		case 'L':
			o->lab = optarg;
			break;
		case 'D':
			o->device = optarg;
			break;
		case 'T':
			o->start_time = optarg;
			break;
		case 'A':
			o->arch = optarg;
			break;
		default:
			return EXPORT_BAD;
		}
	}
	if (argc - optind != 1)
		return export_bad("one INPUT expected, got %d (iopath export --help)", argc - optind);
	if (!kcidb)
		return export_bad("say --kcidb: KCIDB v5.3 JSON is the one format (iopath export --help)");
	o->input = argv[optind];
	return -1;
}

/* Every option's value: one line and EXPORT_BAD for the first that is wrong. */
static int check_opts(struct export_opts *o, char *known_default, size_t len)
{
	const char *texts[][2] = {
		{ "--source", o->source }, { "--tree-name", o->tree_name },
		{ "--lab", o->lab }, { "--device", o->device },
	};
	size_t i;
	int ret;

	if (!chars_ok(o->origin, LOWER DIGITS "_", 1, 64))
		return export_bad("--origin '%s': [a-z0-9_], as KCIDB requires", o->origin);
	if (o->kernel_release && !chars_ok(o->kernel_release, LOWER "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					   DIGITS "._+~-", 1, 100))
		return export_bad("--kernel-release '%s' is not a uname -r", o->kernel_release);
	for (i = 0; i < ARRAY_SIZE(texts); i++)
		if (texts[i][1] && !text_ok(texts[i][1], 1000))
			return export_bad("%s: text without control characters, at most 1000 bytes",
					  texts[i][0]);
	if (o->git_url && !url_ok(o->git_url, true))
		return export_bad("--git-url '%s': an https:// URL", o->git_url);
	if (o->git_commit && !chars_ok(o->git_commit, DIGITS "abcdef", 40, 40))
		return export_bad("--git-commit '%s': a full 40-digit hash", o->git_commit);
	if (o->log_url && !url_ok(o->log_url, false))
		return export_bad("--log-url '%s': an http:// or https:// URL", o->log_url);
	if (o->artifact_url_base && !url_ok(o->artifact_url_base, false))
		return export_bad("--artifact-url-base '%s': an http:// or https:// URL",
				  o->artifact_url_base);
	if (o->start_time && !export_time_ok(o->start_time))
		return export_bad("--start-time '%s': expected YYYY-MM-DDTHH:MM:SSZ (UTC), a date from 1970-01-01 to 2099-12-31, each field in its range",
				  o->start_time);
	if (o->arch && !chars_ok(o->arch, LOWER DIGITS "_", 1, 32))
		return export_bad("--arch '%s': [a-z0-9_], as KCIDB requires", o->arch);
	if (!o->known) {
		snprintf(known_default, len, "%s/configs/known-failures", o->top);
		o->known = known_default;
	}
	/* /dev/null: no list. Anything else must be a file of bounded size. */
	if (strcmp(o->known, "/dev/null")) {
		ret = file_ok("--known-failures", o->known, EXPORT_MAX_KNOWN);
		if (ret)
			return ret;
	}
	ret = o->features ? file_ok("--features", o->features, EXPORT_MAX_FEATURES) : 0;
	if (!ret && o->config)
		ret = file_ok("--config", o->config, 0);
	if (!ret && o->image)
		ret = file_ok("--image", o->image, 0);
	if (!ret)
		ret = file_ok("", o->input, EXPORT_MAX_INPUT);
	return ret;
}

/* The whole of @path (a regular file, checked); NULL with @why on failure. */
static char *slurp(const char *path, size_t *size, char *why, size_t len)
{
	struct stat st;
	size_t got = 0;
	ssize_t n;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > EXPORT_MAX_INPUT) {
		snprintf(why, len, "%s: not a regular file of at most %u MiB", path,
			 EXPORT_MAX_INPUT >> 20);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	/* Never more than the size at open: a growing file cannot grow memory. */
	while (buf && got < (size_t)st.st_size) {
		n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!buf) {
		snprintf(why, len, "%s: no memory", path);
		return NULL;
	}
	buf[got] = '\0';
	*size = got;
	return buf;
}

static int from_input(struct report *r, char *why, size_t len)
{
	const struct export_opts *o = r->o;
	json_error_t err;
	size_t size, skip;
	char *data, head[401];
	json_t *m;
	int ret;

	data = slurp(o->input, &size, why, len);
	if (!data)
		return EXPORT_BAD;
	/* The run's id: the digest of what it reported. */
	{
		struct iop_sha256 c;
		char hex[65];

		iop_sha256_init(&c);
		iop_sha256_update(&c, data, size);
		iop_sha256_hex(&c, hex);
		snprintf(r->run, sizeof(r->run), "%.16s", hex);
	}
	skip = strspn(data, " \t\r\n");
	snprintf(head, sizeof(head), "%.400s", data);
	if (data[skip] == '{' && strstr(head, "\"bench\"") &&
	    memmem(data, size < 200 ? size : 200, "\"schema\"", 8)) {
		free(data);
		return export_records(r, why, len);
	}
	if (data[skip] == '{') {
		m = json_loadb(data, size, JSON_REJECT_DUPLICATES, &err);
		free(data);
		if (!m) {
			snprintf(why, len, "%s: not JSON: %s at line %d", o->input, err.text, err.line);
			return EXPORT_BAD;
		}
		if (!json_is_object(m) || !json_object_get(m, "mutants")) {
			json_decref(m);
			snprintf(why, len, "%s: JSON that is neither a matrix nor records", o->input);
			return EXPORT_BAD;
		}
		ret = export_matrix_json(r, m, why, len);
		json_decref(m);
		return ret;
	}
	free(data);
	return export_tap(r, why, len);
}

static int write_out(const char *path, const char *text, char *why, size_t len)
{
	char tmp[PATH_MAX];
	size_t n = strlen(text), off = 0;
	ssize_t w;
	int fd, ret;

	fd = iop_tmp_create(path, iop_out_mode(path), tmp, sizeof(tmp));
	if (fd < 0) {
		snprintf(why, len, "%s: %s", path, strerror(-fd));
		return fd;
	}
	while (off < n) {
		w = write(fd, text + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			ret = -errno;
			goto out_discard;
		}
		off += (size_t)w;
	}
	if (fsync(fd)) {
		ret = -errno;
		goto out_discard;
	}
	if (close(fd)) {
		fd = -1;
		ret = -errno;
		goto out_discard;
	}
	ret = iop_tmp_commit(tmp, path);
	if (ret)
		snprintf(why, len, "%s: %s", path, ret == -ELOOP ? "a symlink: refused" :
			 strerror(-ret));
	return ret;
out_discard:
	if (fd >= 0)
		close(fd);
	iop_tmp_discard(tmp);
	snprintf(why, len, "%s: %s", path, strerror(-ret));
	return ret;
}

static int cmd_export(int argc, char **argv)
{
	struct export_opts o = { .origin = "iopath" };
	char why[1024] = "", known[PATH_MAX];
	struct report r;
	char *out = NULL;
	int ret;

	o.top = iop_src_dir();
	ret = parse_opts(argc, argv, &o);
	if (ret >= 0)
		return ret;
	ret = check_opts(&o, known, sizeof(known));
	if (ret)
		return ret;
	/* The output's place is checked before any work: nothing is made for nothing. */
	if (o.output && iop_out_check(o.output, why, sizeof(why)))
		return export_bad("-o %s", why);
	ret = report_init(&r, &o, why, sizeof(why));
	if (!ret)
		ret = from_input(&r, why, sizeof(why));
	if (!ret) {
		char *json = report_dump(&r);

		if (!json || asprintf(&out, "%s\n", json) < 0)
			out = NULL;
		free(json);
		if (!out) {
			snprintf(why, sizeof(why), "the report could not be written as JSON");
			ret = EXPORT_FAILED;
		}
	}
	if (ret) {
		report_free(&r);
		return ret == EXPORT_BAD ? export_bad("%s", why) : export_failed("%s", why);
	}
	if (o.output) {
		iop_tmp_cleanup_signals();
		if (write_out(o.output, out, why, sizeof(why))) {
			free(out);
			report_free(&r);
			return export_failed("%s", why);
		}
	} else if (fputs(out, stdout) < 0 || fflush(stdout)) {
		free(out);
		report_free(&r);
		return export_failed("stdout: %s", strerror(errno));
	}
	fprintf(stderr, "export: %zu tests, %zu builds, %zu checkouts (KCIDB 5.3, origin %s)\n",
		json_array_size(r.tests), json_array_size(r.builds),
		json_array_size(r.checkouts), o.origin);
	free(out);
	report_free(&r);
	return 0;
}

IOP_COMMAND("export", "results as KernelCI (KCIDB) report data", cmd_export)
