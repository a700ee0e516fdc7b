// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The KCIDB v5.3 object of iopath export --kcidb (see export.h).
 *
 * Ids name what was booted, so that a dashboard groups every run of one
 * kernel together and never two kernels: the checkout by tree and commit
 * (--tree-name or --git-url, --git-commit) or else by kernel release,
 * source and the image's SHA-256, the build by the image's SHA-256 and
 * release (the input's own: the records' env.kernel.image_sha256, the
 * TAP's "# iopath-vm: image-sha256" line; --image where the input has
 * none, and it must be the same kernel where it has one) or else by
 * release and config. A selftest run and a benchmark run of one kernel
 * share both, with or without --image. Tests are ids of the run: the
 * input's digest and an index.
 *
 * start_time is the run's own: the TAP's "# iopath-vm: start-time" line
 * (iopath vm, iopath lava verdict: LAVA's own time of the job), each
 * record's time, or --start-time. An input with none of them has no
 * start_time (a note says so): a file's mtime says when it was copied.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "date.h"
#include "export.h"
#include "quote.h"
#include "sha256.h"

static void vsay(const char *pre, const char *fmt, va_list ap)
{
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	fprintf(stderr, "iopath: " EXPORT_PROG ": %s", pre);
	iop_esc_line(stderr, msg ? msg : "(no memory for the message)");
	fputc('\n', stderr);
	free(msg);
}

int export_bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
	return EXPORT_BAD;
}

int export_failed(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
	return EXPORT_FAILED;
}

void export_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("note: ", fmt, ap);
	va_end(ap);
}

/* Length of the valid UTF-8 sequence at @s (of @n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t want, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return s[0] ? 1 : 0;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		want = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		want = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		want = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < want)
		return 0;
	for (i = 1; i < want; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, past U+10FFFF. */
	if ((want == 3 && cp < 0x800) || (want == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return want;
}

json_t *export_text(const char *s, size_t len, size_t limit)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0, n;
	char *buf;
	json_t *j;

	if (!s)
		return json_string("");
	/* Each bad byte may become 3 (U+FFFD). */
	buf = malloc(3 * (len < limit ? len : limit) + 1);
	if (!buf)
		return NULL;
	while (i < len && o + 4 <= limit) {
		n = utf8_len(p + i, len - i);
		if (n == 1 && p[i] == 0x7f) {
			/* JSON leaves DEL raw: U+2421, its symbol, reaches no terminal. */
			memcpy(buf + o, "\xe2\x90\xa1", 3);
			o += 3;
			i++;
		} else if (n) {
			memcpy(buf + o, p + i, n);
			o += n;
			i += n;
		} else {
			memcpy(buf + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	buf[o] = '\0';
	j = json_stringn(buf, o);
	free(buf);
	return j;
}

void export_path_part(const char *s, char *out, size_t len)
{
	size_t o = 0;
	bool sep = false;

	for (; s && *s && o + 2 < len; s++) {
		char c = *s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_') {
			if (sep && o)
				out[o++] = '_';
			sep = false;
			out[o++] = c;
		} else {
			sep = true;
		}
	}
	out[o] = '\0';
	/* Runs of other characters are one '_', none at either end. */
	while (o && out[o - 1] == '_')
		out[--o] = '\0';
	if (!o)
		snprintf(out, len, "unnamed");
}

bool export_time_ok(const char *s)
{
	return !iop_parse_date(s, IOP_DATE_UTC, NULL);
}

/* "origin:K-" and 16 hex digits of the SHA-256 of @parts (NUL-separated). */
static void ident(const struct report *r, const char *kind, const char *const *parts,
		  size_t n, char *id, size_t len)
{
	struct iop_sha256 c;
	char hex[65];
	size_t i;

	iop_sha256_init(&c);
	iop_sha256_update(&c, kind, strlen(kind) + 1);
	for (i = 0; i < n; i++)
		iop_sha256_update(&c, parts[i] ? parts[i] : "", strlen(parts[i] ? parts[i] : "") + 1);
	iop_sha256_hex(&c, hex);
	snprintf(id, len, "%s:%s-%.16s", r->o->origin, kind, hex);
}

static json_t *find_id(json_t *arr, const char *id)
{
	json_t *x;
	size_t i;

	json_array_foreach(arr, i, x)
		if (!strcmp(json_string_value(json_object_get(x, "id")), id))
			return x;
	return NULL;
}

int report_earliest(json_t *obj, const char *start)
{
	const char *cur = json_string_value(json_object_get(obj, "start_time"));

	/* Same format, same zone: string order is time order. */
	if (start && (!cur || strcmp(start, cur) < 0))
		return json_object_set_new(obj, "start_time", json_string(start)) ? -ENOMEM : 0;
	return 0;
}

/* @obj's start_time, when the run has one; 0 or -ENOMEM. */
static int set_start(json_t *obj, const char *start)
{
	if (start && *start && json_object_set_new(obj, "start_time", json_string(start)))
		return -ENOMEM;
	return 0;
}

int report_image(struct report *r, const char *image, const char **out, char *why, size_t len)
{
	bool ok = image && strlen(image) == 64 && strspn(image, "0123456789abcdef") == 64;

	*out = r->image_sha[0] ? r->image_sha : ok ? image : NULL;
	if (ok && r->image_sha[0] && strcmp(image, r->image_sha)) {
		snprintf(why, len, "--image %s is not the kernel the run booted (sha256 %.64s, the "
			 "input says %.64s)", r->o->image, r->image_sha, image);
		return EXPORT_BAD;
	}
	return 0;
}

int report_init(struct report *r, const struct export_opts *o, char *why, size_t len)
{
	json_t *misc;
	char c[512];

	memset(r, 0, sizeof(*r));
	r->o = o;
	r->checkouts = json_array();
	r->builds = json_array();
	r->tests = json_array();
	if (!r->checkouts || !r->builds || !r->tests) {
		snprintf(why, len, "no memory");
		return EXPORT_FAILED;
	}
	if (o->config && iop_sha256_file(o->config, r->config_sha, why, len))
		return EXPORT_BAD;
	if (o->image && iop_sha256_file(o->image, r->image_sha, why, len))
		return EXPORT_BAD;
	if (o->start_time)
		snprintf(r->fallback_time, sizeof(r->fallback_time), "%s", o->start_time);
	if (o->lab || o->device) {
		snprintf(c, sizeof(c), "%s%s%s%s%s", o->lab ? "lab " : "", o->lab ? o->lab : "",
			 o->lab && o->device ? ", " : "", o->device ? "device " : "",
			 o->device ? o->device : "");
		misc = json_object();
		if ((o->lab && json_object_set_new(misc, "lab", json_string(o->lab))) ||
		    (o->device && json_object_set_new(misc, "device", json_string(o->device)))) {
			json_decref(misc);
			return -ENOMEM;
		}
		r->environment = json_pack("{s:s, s:o}", "comment", c, "misc", misc);
		if (!r->environment)
			return -ENOMEM;
	}
	return 0;
}

void report_free(struct report *r)
{
	json_decref(r->checkouts);
	json_decref(r->builds);
	json_decref(r->tests);
	json_decref(r->environment);
}

int report_checkout(struct report *r, const char *release, const char *source,
		    const char *image, const char *start, char *id, size_t len)
{
	const struct export_opts *o = r->o;
	const char *parts[3] = { release, source, image };
	json_t *c, *x;

	if (o->git_commit) {
		parts[0] = o->git_url ? o->git_url : (o->tree_name ? o->tree_name : "");
		parts[1] = o->git_commit;
		parts[2] = NULL;
	}
	ident(r, "c", parts, 3, id, len);
	x = find_id(r->checkouts, id);
	if (x)
		return report_earliest(x, start);
	c = json_pack("{s:s, s:s, s:b, s:{s:o, s:o}}", "id", id, "origin", o->origin,
		      "valid", 1, "misc",
		      "kernel_release", export_text(release, strlen(release), 200),
		      "source", export_text(source, strlen(source), 1000));
	if (!c)
		return -ENOMEM;
	if (set_start(c, start) ||
	    (o->tree_name && json_object_set_new(c, "tree_name", json_string(o->tree_name))) ||
	    (o->git_url && json_object_set_new(c, "git_repository_url", json_string(o->git_url))) ||
	    (o->git_commit &&
	     json_object_set_new(c, "git_commit_hash", json_string(o->git_commit)))) {
		json_decref(c);
		return -ENOMEM;
	}
	return json_array_append_new(r->checkouts, c) ? -ENOMEM : 0;
}

/* @base "/" basename of @path, for output_files and config_url. */
static json_t *artifact_url(const char *base, const char *path)
{
	const char *name = strrchr(path, '/');
	char *url;
	json_t *j;

	name = name ? name + 1 : path;
	if (asprintf(&url, "%s%s%s", base, base[strlen(base) - 1] == '/' ? "" : "/", name) < 0)
		return NULL;
	j = json_string(url);
	free(url);
	return j;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

int report_build(struct report *r, const char *checkout, const struct build_info *b,
		 char *id, size_t len)
{
	const struct export_opts *o = r->o;
	const char *image = r->image_sha[0] ? r->image_sha : b->image_sha;
	const char *parts[4];
	json_t *x, *misc;
	int bad = 0;

	if (image && *image) {
		parts[0] = "image";
		parts[1] = image;
	} else {
		parts[0] = "config";
		parts[1] = r->config_sha;
	}
	parts[2] = b->release;
	parts[3] = b->name;
	ident(r, "b", parts, 4, id, len);
	x = find_id(r->builds, id);
	if (x) {
		json_decref(b->misc);
		return report_earliest(x, b->start);
	}
	misc = b->misc ? b->misc : json_object();
	x = json_pack("{s:s, s:s, s:s, s:o}", "id", id, "origin", o->origin,
		      "checkout_id", checkout, "misc", misc);
	if (!x)
		return -ENOMEM;
	/* every part or no build: a part left out would pass unseen */
	bad |= set_start(x, b->start);
	bad |= json_object_set_new(misc, "kernel_release",
				   export_text(b->release, strlen(b->release), 200));
	if (b->status)
		bad |= json_object_set_new(x, "status", json_string(b->status));
	if (b->arch)
		bad |= json_object_set_new(x, "architecture", json_string(b->arch));
	if (o->config) {
		bad |= json_object_set_new(x, "config_name",
					   export_text(base_name(o->config),
						       strlen(base_name(o->config)), 255));
		bad |= json_object_set_new(misc, "config_sha256", json_string(r->config_sha));
		if (o->artifact_url_base)
			bad |= json_object_set_new(x, "config_url",
						   artifact_url(o->artifact_url_base, o->config));
	}
	if (image && *image)
		bad |= json_object_set_new(misc, "image_sha256", json_string(image));
	/* A URL only where someone else can fetch it: never file://. */
	if (o->image && o->artifact_url_base)
		bad |= json_object_set_new(x, "output_files",
					   json_pack("[{s:o, s:o}]", "name",
						     export_text(base_name(o->image),
								 strlen(base_name(o->image)), 255),
						     "url", artifact_url(o->artifact_url_base,
									 o->image)));
	if (bad) {
		json_decref(x);
		return -ENOMEM;
	}
	return json_array_append_new(r->builds, x) ? -ENOMEM : 0;
}

int report_test(struct report *r, const char *build, const char *path, const char *status,
		const char *start, json_t *misc, const char *excerpt, json_t *number)
{
	size_t n = json_array_size(r->tests), elen;
	char id[160];
	json_t *t;
	int bad = 0;

	snprintf(id, sizeof(id), "%s:t-%s-%zu", r->o->origin, r->run, n);
	t = json_pack("{s:s, s:s, s:s, s:s, s:s}", "id", id, "origin", r->o->origin,
		      "build_id", build, "path", path, "status", status);
	if (!t) {
		json_decref(misc);
		json_decref(number);
		return -ENOMEM;
	}
	bad |= set_start(t, start ? start : r->fallback_time);
	if (misc)
		bad |= json_object_set_new(t, "misc", misc);
	if (number)
		bad |= json_object_set_new(t, "number", number);
	if (excerpt && *excerpt) {
		elen = strlen(excerpt);
		/* The end of a log says most: keep its last bytes. */
		if (elen > EXPORT_MAX_EXCERPT) {
			excerpt += elen - EXPORT_MAX_EXCERPT;
			elen = EXPORT_MAX_EXCERPT;
		}
		bad |= json_object_set_new(t, "log_excerpt",
					   export_text(excerpt, elen, 3 * elen + 4));
	}
	if (r->o->log_url)
		bad |= json_object_set_new(t, "log_url", json_string(r->o->log_url));
	if (r->environment)
		bad |= json_object_set(t, "environment", r->environment);
	if (bad) {
		json_decref(t);
		return -ENOMEM;
	}
	return json_array_append_new(r->tests, t) ? -ENOMEM : 0;
}

char *report_dump(struct report *r)
{
	json_t *all;
	char *s;

	all = json_pack("{s:{s:i, s:i}, s:O, s:O, s:O}", "version", "major", 5, "minor", 3,
			"checkouts", r->checkouts, "builds", r->builds, "tests", r->tests);
	if (!all)
		return NULL;
	/* No JSON_ALLOW_NAN: a NaN or infinity fails here, never reaches the file. */
	s = json_dumps(all, JSON_INDENT(1) | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	json_decref(all);
	return s;
}
