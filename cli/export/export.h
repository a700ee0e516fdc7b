/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iopath export --kcidb: what its files share. cmd_export.c takes the
 * options and writes the report, export_report.c builds the KCIDB v5.3
 * object (ids, checkouts, builds, tests), export_tap.c reads a selftest
 * run through lib/verdict.c, export_bench.c benchmark records and
 * export_matrix.c a mutation matrix.
 *
 * The object is conforming by construction: every string from an input
 * is made valid UTF-8 without NUL, every path part matches KCIDB's
 * [a-zA-Z0-9_-]+, numbers are finite, URLs http(s). tests/kcidb.sh checks
 * the output against configs/kcidb/kcidb-io.schema.v5.3.json.
 */
#ifndef IOPATH_EXPORT_H
#define IOPATH_EXPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define EXPORT_PROG "export"
/* Largest input read (TAP, matrix); records are streamed by lib/record.c. */
#define EXPORT_MAX_INPUT (64u << 20)
/* Largest iopath_probe output taken with --features (it is a few hundred bytes). */
#define EXPORT_MAX_FEATURES (1u << 20)
#define EXPORT_MAX_KNOWN (16u << 20)
#define EXPORT_MAX_EXCERPT 16384
#define EXPORT_MAX_LINE (1u << 20)

struct export_opts {
	const char *input, *output, *origin, *kernel_release, *source, *tree_name;
	const char *git_url, *git_commit, *config, *image, *known, *features;
	const char *log_url, *artifact_url_base, *lab, *device, *start_time, *arch;
	const char *top;
};

struct report {
	const struct export_opts *o;
	json_t *checkouts, *builds, *tests;
	char run[17];		/* the input's digest, for test ids */
	char config_sha[65], image_sha[65];
	char fallback_time[32];	/* the run's own start (or --start-time), "" if unknown */
	json_t *environment;	/* from --lab and --device, or NULL */
};

/* "iopath: export: ..." on stderr, escaped, one line; returns 2 or 1. */
int export_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int export_failed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, prefixed "note: ", for what goes on (a skipped metric). */
void export_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * @s bounded to @limit bytes as valid UTF-8 without NUL (U+FFFD for what
 * is not), DEL as U+2421: jansson escapes every other control character.
 */
json_t *export_text(const char *s, size_t len, size_t limit);
/* @s as one KCIDB path part: [a-zA-Z0-9_-] (others '_'), or "unnamed". */
void export_path_part(const char *s, char *out, size_t len);
/*
 * Whether @s is "YYYY-MM-DDTHH:MM:SS[.frac]Z" (RFC 3339 in UTC), a date
 * that exists, from 1970 to 2099 (lib/date.c).
 */
bool export_time_ok(const char *s);

int report_init(struct report *r, const struct export_opts *o, char *why, size_t len);
void report_free(struct report *r);

/*
 * The checkout of @release, @source and @image (or of --tree-name/--git-url
 * and --git-commit when given): added once per id. Its id into @id.
 */
int report_checkout(struct report *r, const char *release, const char *source,
		    const char *image, const char *start, char *id, size_t len);

/*
 * The kernel image of a run: --image's SHA-256, else @image (the input's
 * own, NULL if none) where it is one. --image and an input that names
 * another kernel: EXPORT_BAD with @why.
 */
int report_image(struct report *r, const char *image, const char **out, char *why, size_t len);

struct build_info {
	const char *release;
	const char *image_sha;	/* a record's env.kernel.image_sha256, or NULL */
	const char *arch;	/* KCIDB architecture, or NULL */
	const char *name;	/* a mutant: a build of its own, or NULL */
	const char *status;	/* PASS, FAIL, MISS... or NULL */
	const char *start;
	json_t *misc;		/* stolen, or NULL */
};

/* The build of @b in @checkout (once per id); its id into @id. */
int report_build(struct report *r, const char *checkout, const struct build_info *b,
		 char *id, size_t len);

/* A test; @misc and @number are stolen (NULL: none). */
int report_test(struct report *r, const char *build, const char *path, const char *status,
		const char *start, json_t *misc, const char *excerpt, json_t *number);

/* Lower a checkout's or build's start_time to @start if earlier. */
int report_earliest(json_t *obj, const char *start);

/* The whole report, indented, sorted, strict JSON (no NaN); NULL on failure. */
char *report_dump(struct report *r);

int export_tap(struct report *r, char *why, size_t len);
int export_records(struct report *r, char *why, size_t len);
int export_matrix_json(struct report *r, json_t *matrix, char *why, size_t len);

/* Exit status of the input readers: 2 bad input (@why), 1 named failure (@why). */
#define EXPORT_BAD 2
#define EXPORT_FAILED 1

#endif
