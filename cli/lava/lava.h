/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iopath lava: the parts of the command (cmd_lava.c: options and
 * dispatch; lava_jobs.c: job files; lava_yaml.c: their quoting and key
 * lookup; lava_check.c: what a job must hold; lava_schema.c: LAVA's schema;
 * lava_log.c: the job log reader; lava_verdict.c: the verdict on it;
 * lava_common.c: the failure line and the files written, which they all
 * use).
 *
 * Exit status: 0 passed or written, 1 failed (a test, a kernel bug, a
 * malformed or unfinished log), 2 bad usage or input, 3 LAVA's
 * infrastructure failed (no verdict on the kernel).
 */
#ifndef IOPATH_LAVA_H
#define IOPATH_LAVA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <yaml.h>

#define LAVA_EXIT_INFRA 3

/* A log line longer than this is not one LAVA wrote: the log is refused. */
#define LAVA_MAX_LINE (1u << 16)
/* Nor is a log larger than this one job's. */
#define LAVA_MAX_LOG (256ull << 20)
/* A job file larger than this is not one iopath wrote. */
#define LAVA_MAX_JOB (1u << 20)

/* The guest's console protocol (scripts/vm/lava-guest.sh). */
#define LAVA_MARK "IOPATH-LAVA:"

/* A growing array of strings (each malloc'd), with a line number each. */
struct lava_strv {
	char **s;
	size_t *line;
	size_t n, cap;
};

int lava_strv_add(struct lava_strv *v, char *s, size_t line);
void lava_strv_free(struct lava_strv *v);

/* A map of strings to strings (the test cases and their results). */
struct lava_map {
	char **keys, **vals;
	size_t n, cap;		/* cap: a power of two, 0 when empty */
};

/* The value of @key, or NULL. */
const char *lava_map_get(const struct lava_map *m, const char *key);
/* Set @key to @val (copied); 0 or -ENOMEM. */
int lava_map_set(struct lava_map *m, const char *key, const char *val);
void lava_map_free(struct lava_map *m);

/* What the guest and LAVA said in a job's log. */
struct lava_job {
	size_t entries;
	char *release;		/* "kernel" line, NULL without one */
	char *image_sha;	/* "image-sha256" line: the kernel the job booted */
	char start[32];		/* LAVA's time of the first entry, RFC 3339 UTC, or "" */
	char *end;		/* "end" line */
	char *guest_verdict;
	char *bench_exit;
	struct lava_strv features, tap, console, bench;
	struct lava_strv records;	/* as the guest wrote them, with their lines */
	struct lava_map cases;	/* LAVA's test cases of the iopath definition */
	struct lava_strv failures;	/* "case: error" of LAVA's failed actions */
	bool have_job;		/* LAVA's job result */
	char *job_result, *job_error_type, *job_error_msg;
};

void lava_job_free(struct lava_job *job);

/*
 * Read the log at @path into @job. 0; -EBADMSG with the named failure in
 * @why when the log is malformed (exit 1); other -errno with a one-line
 * reason when the file cannot be read at all (bad input, exit 2).
 */
int lava_log_read(const char *path, struct lava_job *job, char *why, size_t len);

/* One line of a log (line number @lineno), as lava_log_read() reads it. */
int lava_log_line(struct lava_job *job, const char *raw, size_t n, size_t lineno,
		  char *why, size_t len);

/* @s escaped (iop_esc()), cut after @limit bytes with "..."; malloc'd. */
char *lava_text(const char *s, size_t limit);

/* ---- job files' YAML (lava_yaml.c) ---- */

/* @s as a double-quoted YAML scalar: the one quoting of job values. */
void lava_yaml_quote(FILE *f, const char *s);

/*
 * The value of key @key in mapping @map of @d, or NULL: the one lookup of
 * the job files and the log's lines. The last of a key given twice
 * counts, as in PyYAML's loader (what LAVA reads with).
 */
yaml_node_t *lava_yaml_get(yaml_document_t *d, yaml_node_t *map, const char *key);

/* ---- the checks of a job (lava_check.c; LAVA's schema: lava_schema.c) ---- */

/*
 * What iopath needs of a job, and the deploy and boot methods its device
 * type offers: NULL if fine, else the problem (a static or @buf).
 */
const char *lava_job_check(const char *text, size_t n, char *buf, size_t len);

/*
 * LAVA's schema (lava_common.schemas.validate, strict) on a job of the
 * shape iopath writes: NULL if valid, else the problem in @buf.
 */
const char *lava_schema_check(yaml_document_t *d, char *buf, size_t len);

/* The device types whose deploy and boot the jobs use, for messages. */
#define LAVA_DEVICE_TYPES "qemu (deploy to tmpfs, boot qemu) or x86 (deploy to tftp, boot ipxe ramdisk)"
bool lava_device_type_ok(const char *type);

/* ---- subcommands ---- */

struct lava_opts {
	/* jobs, mutate, bench, ab */
	const char *out, *build, *url_base, *device_type, *template;
	const char *job_timeout, *boot_timeout, *test_timeout;
	const char *known_failures, *append, *kernel_url;
	struct lava_strv env, kernels;
	const char *work, *kernels_dir, *pristine, *mutants, *plan;
	const char *profile, *boots, *a, *b;
	char **args;		/* after "--" */
	int nargs;
	char **operands;
	int noperands;
	/* verdict, run */
	const char *tap, *console, *records, *device;
	bool template_given;
};

int lava_cmd_jobs(struct lava_opts *o);
int lava_cmd_mutate(struct lava_opts *o);
int lava_cmd_bench(struct lava_opts *o);
int lava_cmd_ab(struct lava_opts *o);
int lava_cmd_validate(struct lava_opts *o);
int lava_cmd_verdict(struct lava_opts *o, const char *log);
int lava_cmd_run(struct lava_opts *o);

/* The values of one job (lava_jobs.c). */
struct lava_jobv {
	const char *name, *kind, *desc, *args_desc, *run, *kernel_url, *ramdisk_url;
	char kernel_sha[65], ramdisk_sha[65];
	const char *append;
};

/* Each: 0, or the exit status with its one line printed. */
int lava_check_job_args(struct lava_opts *o);
int lava_make_out(struct lava_opts *o);
int lava_stage_kernel(struct lava_opts *o, const char *kernel, const char *dest,
		      char **args, int nargs, const struct lava_strv *env);
int lava_write_job(struct lava_opts *o, struct lava_jobv *j, const char *kernel, const char *rel,
		   const char *ramdisk, char **ksft, int nksft, const struct lava_strv *env);
/* Words joined by blanks, each quoted for the guest's sh (iop_shell_quote()). */
char *lava_command(char *const *w, size_t n);

/* ---- what every part uses (lava_common.c) ---- */

/* "iopath: lava: MSG" (MSG escaped) on stderr; returns @code. */
int lava_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Write @len bytes of @buf to @path: a new temporary file renamed into
 * place, 0644 less the umask; a symlink or a directory at @path refused.
 * 0 or -errno.
 */
int lava_write_file(const char *path, const char *buf, size_t len);
/* Whether @path may be written (lava_write_file()); 0 or exit 2 printed. */
int lava_out_ok(const char *opt, const char *path);

#endif
