// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The log of a LAVA job: lava-run's stderr (one YAML flow mapping a line)
 * or a lab's `lavacli jobs logs --raw` (the same as a YAML list, "- {...}"
 * a line). Each line is parsed alone with libyaml, bounded in length, and
 * must be a mapping with "lvl" and "msg"; anything else is refused by its
 * line number. Only scalars are ever read: a structure (YAML aliases can
 * make one exponentially large) is never walked, let alone turned into
 * text. Console text ("target" lines) is kept escaped (iop_esc()), except
 * records, which are JSON the record checker reads.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "input.h"
#include "lava.h"
#include "quote.h"
#include "why.h"
#include "yaml_bound.h"

/* ---- small containers --------------------------------------------------- */

int lava_strv_add(struct lava_strv *v, char *s, size_t line)
{
	if (!s)
		return -ENOMEM;
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		char **ns = realloc(v->s, cap * sizeof(*ns));
		size_t *nl;

		if (!ns) {
			free(s);
			return -ENOMEM;
		}
		v->s = ns;
		nl = realloc(v->line, cap * sizeof(*nl));
		if (!nl) {
			free(s);
			return -ENOMEM;
		}
		v->line = nl;
		v->cap = cap;
	}
	v->s[v->n] = s;
	v->line[v->n++] = line;
	return 0;
}

void lava_strv_free(struct lava_strv *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		free(v->s[i]);
	free(v->s);
	free(v->line);
	memset(v, 0, sizeof(*v));
}

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static size_t slot(char *const *keys, size_t cap, const char *key)
{
	size_t i = hash(key) & (cap - 1);

	while (keys[i] && strcmp(keys[i], key))
		i = (i + 1) & (cap - 1);
	return i;
}

const char *lava_map_get(const struct lava_map *m, const char *key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = slot(m->keys, m->cap, key);
	return m->keys[i] ? m->vals[i] : NULL;
}

static int map_grow(struct lava_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256, i, j;
	char **keys = calloc(cap, sizeof(*keys)), **vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		j = slot(keys, cap, m->keys[i]);
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

int lava_map_set(struct lava_map *m, const char *key, const char *val)
{
	char *v = strdup(val);
	size_t i;

	if (!v)
		return -ENOMEM;
	/* At most half full: a probe always ends. */
	if ((m->n + 1) * 2 > m->cap && map_grow(m)) {
		free(v);
		return -ENOMEM;
	}
	i = slot(m->keys, m->cap, key);
	if (m->keys[i]) {
		free(m->vals[i]);
		m->vals[i] = v;
		return 0;
	}
	m->keys[i] = strdup(key);
	if (!m->keys[i]) {
		free(v);
		return -ENOMEM;
	}
	m->vals[i] = v;
	m->n++;
	return 0;
}

void lava_map_free(struct lava_map *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		free(m->keys[i]);
		free(m->vals[i]);
	}
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

void lava_job_free(struct lava_job *job)
{
	free(job->release);
	free(job->image_sha);
	free(job->end);
	free(job->guest_verdict);
	free(job->bench_exit);
	free(job->job_result);
	free(job->job_error_type);
	free(job->job_error_msg);
	lava_strv_free(&job->features);
	lava_strv_free(&job->tap);
	lava_strv_free(&job->console);
	lava_strv_free(&job->bench);
	lava_strv_free(&job->records);
	lava_strv_free(&job->failures);
	lava_map_free(&job->cases);
	memset(job, 0, sizeof(*job));
}

char *lava_text(const char *s, size_t limit)
{
	size_t n = strlen(s);
	char *cut, *e, *out;

	if (n <= limit)
		return iop_esc_dup(s);
	/* Cut on a character boundary, not in a UTF-8 sequence. */
	while (limit && ((unsigned char)s[limit] & 0xc0) == 0x80)
		limit--;
	cut = strndup(s, limit);
	if (!cut)
		return NULL;
	e = iop_esc_dup(cut);
	free(cut);
	if (!e || asprintf(&out, "%s...", e) < 0)
		out = NULL;
	free(e);
	return out;
}

/* ---- one line ---------------------------------------------------------- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* A scalar's text, a NUL in it as '?' (the guest writes control characters so). */
static char *scalar(yaml_node_t *n)
{
	char *s;
	size_t i;

	if (!n)
		return strdup("");
	s = malloc(n->data.scalar.length + 1);
	if (!s)
		return NULL;
	memcpy(s, n->data.scalar.value, n->data.scalar.length);
	s[n->data.scalar.length] = '\0';
	for (i = 0; i < n->data.scalar.length; i++)
		if (!s[i])
			s[i] = '?';
	return s;
}

/* LAVA writes each '"' of the console as '\"': undone in place. */
static void unescape_quotes(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == '"')
			s++;
		*w++ = *s;
	}
	*w = '\0';
}

static int set_str(char **dst, char *s)
{
	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

#define BAD(...) ({ iop_why(why, len, "malformed LAVA log: " __VA_ARGS__); -EBADMSG; })

static int target_line(struct lava_job *job, yaml_node_t *msgn, size_t ln, char *why, size_t len)
{
	char *msg, *rest, *sep, *text = NULL;
	int ret = 0;

	if (!msgn || msgn->type != YAML_SCALAR_NODE)
		return BAD("line %zu: a target line that is not text", ln);
	msg = scalar(msgn);
	if (!msg)
		return -ENOMEM;
	unescape_quotes(msg);
	if (strncmp(msg, LAVA_MARK, strlen(LAVA_MARK))) {
		ret = lava_strv_add(&job->console, lava_text(msg, LAVA_MAX_LINE), ln);
		goto out;
	}
	rest = msg + strlen(LAVA_MARK);
	sep = strstr(rest, ": ");
	if (sep) {
		*sep = '\0';
		sep += 2;
	} else {
		sep = rest + strlen(rest);
	}
	if (!strcmp(rest, "record")) {
		ret = lava_strv_add(&job->records, strdup(sep), ln);
		goto out;
	}
	text = lava_text(sep, LAVA_MAX_LINE);
	if (!text) {
		ret = -ENOMEM;
		goto out;
	}
	if (!strcmp(rest, "tap")) {
		ret = lava_strv_add(&job->tap, text, ln);
		text = NULL;
	} else if (!strcmp(rest, "feature")) {
		ret = lava_strv_add(&job->features, text, ln);
		text = NULL;
	} else if (!strcmp(rest, "bench")) {
		ret = lava_strv_add(&job->bench, text, ln);
		text = NULL;
	} else if (!strcmp(rest, "kernel")) {
		size_t i, n = strlen(text);

		for (i = 0; i < n; i++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+~-",
				    text[i]))
				break;
		if (!n || n > 100 || i < n) {
			ret = BAD("line %zu: kernel release '%s'", ln, text);
			goto out;
		}
		ret = set_str(&job->release, text);
		text = NULL;
	} else if (!strcmp(rest, "image-sha256")) {
		if (strlen(text) != 64 || strspn(text, "0123456789abcdef") != 64) {
			ret = BAD("line %zu: image sha256 '%s'", ln, text);
			goto out;
		}
		ret = set_str(&job->image_sha, text);
		text = NULL;
	} else if (!strcmp(rest, "end")) {
		ret = set_str(&job->end, text);
		text = NULL;
	} else if (!strcmp(rest, "guest-verdict")) {
		ret = set_str(&job->guest_verdict, text);
		text = NULL;
	} else if (!strcmp(rest, "bench-exit")) {
		ret = set_str(&job->bench_exit, text);
		text = NULL;
	}
	/*
	 * "guest-note": the guest's own verdict's notes; the host's verdict
	 * writes its own, by its known-failures list. Other channels: later
	 * guests' news, ignored.
	 */
out:
	free(text);
	free(msg);
	return ret;
}

static int result_line(struct lava_job *job, yaml_document_t *d, yaml_node_t *msg, size_t ln,
		       char *why, size_t len)
{
	static const char *const keys[] = {
		"definition", "case", "result", "error_msg", "error_type"
	};
	yaml_node_t *v[5];
	char *def = NULL, *c = NULL, *r = NULL, *s, *e = NULL;
	size_t i;
	int ret = 0;

	if (!msg || msg->type != YAML_MAPPING_NODE || !lava_yaml_get(d, msg, "definition") ||
	    !lava_yaml_get(d, msg, "case"))
		return BAD("line %zu: a result without definition and case", ln);
	for (i = 0; i < 5; i++) {
		v[i] = lava_yaml_get(d, msg, keys[i]);
		if (v[i] && v[i]->type != YAML_SCALAR_NODE)
			return BAD("line %zu: a result whose %s is not text", ln, keys[i]);
	}
	def = scalar(v[0]);
	c = scalar(v[1]);
	r = scalar(v[2]);
	if (!def || !c || !r) {
		ret = -ENOMEM;
		goto out;
	}
	if (!strcmp(def, "lava")) {
		if (!strcmp(r, "fail")) {
			char *ec = lava_text(c, 200);	/* the case's name too */

			s = v[3] ? scalar(v[3]) : strdup("failed");
			e = s ? lava_text(s, 300) : NULL;
			free(s);
			if (!e || !ec || asprintf(&s, "%s: %s", ec, e) < 0)
				s = NULL;
			free(ec);
			ret = lava_strv_add(&job->failures, s, ln);
			free(e);
			e = NULL;
			if (ret)
				goto out;
		}
		if (!strcmp(c, "job")) {
			job->have_job = true;
			free(job->job_result);
			free(job->job_error_type);
			free(job->job_error_msg);
			job->job_result = lava_text(r, 40);
			s = scalar(v[4]);
			job->job_error_type = s ? lava_text(s, 40) : NULL;
			free(s);
			s = scalar(v[3]);
			job->job_error_msg = s ? lava_text(s, 300) : NULL;
			free(s);
			if (!job->job_result || !job->job_error_type || !job->job_error_msg)
				ret = -ENOMEM;
		}
	} else if (strlen(def) >= 7 && !strcmp(def + strlen(def) - 7, "_iopath")) {
		if (lava_map_get(&job->cases, c) && strcmp(c, "iopath-verdict")) {
			e = lava_text(c, 200);
			ret = BAD("line %zu: test case %s reported twice", ln, e ? e : "?");
			goto out;
		}
		ret = lava_map_set(&job->cases, c, r);
	}
out:
	free(e);
	free(def);
	free(c);
	free(r);
	return ret;
}

/*
 * The job's start, as LAVA recorded it: the first entry's "dt" (UTC, ISO
 * 8601 without a zone, as lava-run writes it), to the second.
 */
static void log_start(struct lava_job *job, yaml_node_t *dt)
{
	static const char pat[] = "dddd-dd-ddTdd:dd:dd";
	size_t i;

	if (!dt || dt->type != YAML_SCALAR_NODE || dt->data.scalar.length < sizeof(pat) - 1)
		return;
	for (i = 0; i < sizeof(pat) - 1; i++)
		if (pat[i] == 'd' ? !(dt->data.scalar.value[i] >= '0' && dt->data.scalar.value[i] <= '9') :
		    dt->data.scalar.value[i] != pat[i])
			return;
	snprintf(job->start, sizeof(job->start), "%.19sZ", (const char *)dt->data.scalar.value);
}

int lava_log_line(struct lava_job *job, const char *raw, size_t n, size_t ln,
		  char *why, size_t len)
{
	yaml_document_t d;
	yaml_node_t *root, *lvl;
	char yerr[128];
	int ret;

	while (n && is_space(raw[0])) {
		raw++;
		n--;
	}
	while (n && is_space(raw[n - 1]))
		n--;
	if (n >= 2 && raw[0] == '-' && raw[1] == ' ') {
		raw += 2;
		n -= 2;
	}
	if (!n || (n == 3 && (!memcmp(raw, "---", 3) || !memcmp(raw, "...", 3))))
		return 0;
	/* One document: "{...} --- {...}" is not one entry. */
	ret = iop_yaml_load(raw, n, &d, yerr, sizeof(yerr));
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		return BAD("line %zu is not a YAML mapping", ln);
	root = yaml_document_get_root_node(&d);
	if (!root || root->type != YAML_MAPPING_NODE) {
		ret = BAD("line %zu is not a YAML mapping", ln);
		goto out;
	}
	lvl = lava_yaml_get(&d, root, "lvl");
	if (!lvl || !lava_yaml_get(&d, root, "msg")) {
		ret = BAD("line %zu has no lvl and msg", ln);
		goto out;
	}
	job->entries++;
	if (!job->start[0])
		log_start(job, lava_yaml_get(&d, root, "dt"));
	ret = 0;
	if (lvl->type != YAML_SCALAR_NODE)
		goto out;
	if (lvl->data.scalar.length == 6 && !memcmp(lvl->data.scalar.value, "target", 6))
		ret = target_line(job, lava_yaml_get(&d, root, "msg"), ln, why, len);
	else if (lvl->data.scalar.length == 7 && !memcmp(lvl->data.scalar.value, "results", 7))
		ret = result_line(job, &d, lava_yaml_get(&d, root, "msg"), ln, why, len);
out:
	yaml_document_delete(&d);
	return ret;
}

int lava_log_read(const char *path, struct lava_job *job, char *why, size_t len)
{
	struct iop_input in;
	size_t ln = 0;
	bool term;
	char *line;
	ssize_t n;
	int ret;

	ret = iop_input_open(&in, path, LAVA_MAX_LINE - 1, why, len);
	if (ret)
		return ret;
	if (in.left > LAVA_MAX_LOG) {
		iop_input_close(&in);
		return BAD("larger than %llu MiB, not one job's", LAVA_MAX_LOG >> 20);
	}
	while ((n = iop_input_line(&in, &line, &term, why, len)) >= 0) {
		ret = lava_log_line(job, line, (size_t)n, ++ln, why, len);
		if (ret)
			break;
	}
	if (n == -E2BIG)
		ret = BAD("line %zu is longer than %u bytes", ln + 1, LAVA_MAX_LINE);
	else if (n < 0 && n != -ENODATA)
		ret = (int)n;
	iop_input_close(&in);
	if (ret == -ENOMEM)
		iop_why(why, len, "%s: out of memory", path);
	return ret;
}
