// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LAVA's job schema, as lava-common 2023.01 checks a job with
 * lava_common.schemas.validate(job, strict=True), for the parts of a job
 * iopath writes: the job's own keys, timeouts (each one unit of at least 1,
 * none longer than the job's), the context variables, the deploy methods
 * tmpfs and tftp with their URLs, the boot methods qemu and ipxe, and test
 * definitions (git, url, inline). Strict: a key LAVA does not know is an
 * error, as on a server. A value's type is the one PyYAML (what LAVA reads
 * with) gives it: a plain 5 is a number, a plain "yes" a boolean, only a
 * string is a string. What LAVA accepts and iopath's jobs do not use
 * (multinode protocols, notify, other actions and methods) is refused by
 * name: validate says so rather than passing what it did not check.
 *
 * Each node is checked once by each rule (an alias to a checked node is
 * not walked again), and only the nodes the schema names are visited.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "array_size.h"
#include "lava.h"
#include "quote.h"

enum ytype { Y_STR, Y_INT, Y_FLOAT, Y_BOOL, Y_NULL, Y_OTHER, Y_MAP, Y_SEQ };

struct sc;
typedef bool (*rule_fn)(struct sc *c, yaml_node_t *n);

struct sc {
	yaml_document_t *d;
	char *buf;
	size_t len;
	char path[256];
	const rule_fn *seen;	/* per node: the last rule that passed it */
	bool failed;
};

/* ---- PyYAML's types of scalars (YAML 1.1 implicit resolvers) ---------- */

static const char *const res_src[] = {
	[Y_BOOL] = "^(yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$",
	[Y_FLOAT] = "^([-+]?[0-9][0-9_]*\\.[0-9_]*([eE][-+][0-9]+)?|\\.[0-9][0-9_]*([eE][-+][0-9]+)?|"
		    "[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\\.[0-9_]*|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN))$",
	[Y_INT] = "^([-+]?0b[01_]+|[-+]?0[0-7_]+|[-+]?(0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|"
		  "[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+)$",
	[Y_NULL] = "^(~|null|Null|NULL|)$",
	[Y_OTHER] = "^([0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \t]+)"
		    "[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\\.[0-9]*)?([ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?|<<|=)$",
};
static regex_t res[ARRAY_SIZE(res_src)];
static bool res_ready;

static bool res_init(void)
{
	size_t i;

	if (res_ready)
		return true;
	for (i = 0; i < ARRAY_SIZE(res_src); i++)
		if (res_src[i] && regcomp(&res[i], res_src[i], REG_EXTENDED | REG_NOSUB))
			return false;
	res_ready = true;
	return true;
}

static enum ytype ytype(yaml_node_t *n)
{
	static const enum ytype order[] = { Y_BOOL, Y_FLOAT, Y_INT, Y_NULL, Y_OTHER };
	const char *tag = n ? (const char *)n->tag : "";
	char *v;
	size_t i;

	if (!n)
		return Y_NULL;
	if (n->type == YAML_MAPPING_NODE)
		return Y_MAP;
	if (n->type == YAML_SEQUENCE_NODE)
		return Y_SEQ;
	if (strcmp(tag, YAML_STR_TAG))
		return !strcmp(tag, YAML_INT_TAG) ? Y_INT : !strcmp(tag, YAML_FLOAT_TAG) ? Y_FLOAT :
		       !strcmp(tag, YAML_BOOL_TAG) ? Y_BOOL : !strcmp(tag, YAML_NULL_TAG) ? Y_NULL : Y_OTHER;
	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return Y_STR;
	if (memchr(n->data.scalar.value, '\0', n->data.scalar.length))
		return Y_STR;
	v = (char *)n->data.scalar.value;
	for (i = 0; i < ARRAY_SIZE(order); i++)
		if (!regexec(&res[order[i]], v, 0, NULL, 0))
			return order[i];
	return Y_STR;
}

/* The value of a number (a bool is 0 or 1, as in Python); NAN if none. */
static double number(yaml_node_t *n)
{
	enum ytype t = ytype(n);
	char digits[64], *w = digits, *end;
	const char *s;
	double v;
	int base = 10;

	if (t == Y_BOOL)
		return strchr("yYtToO", n->data.scalar.value[0]) &&
		       strcmp((char *)n->data.scalar.value + 1, "ff") &&
		       strcmp((char *)n->data.scalar.value + 1, "FF") ? 1 : 0;
	if ((t != Y_INT && t != Y_FLOAT) || n->data.scalar.length >= sizeof(digits))
		return NAN;
	for (s = (const char *)n->data.scalar.value; *s; s++)
		if (*s != '_')
			*w++ = *s;
	*w = '\0';
	if (strchr(digits, ':'))
		return NAN;	/* sexagesimal: a number, of no size we compare */
	if (t == Y_FLOAT)
		return strstr(digits, "nan") || strstr(digits, "NaN") || strstr(digits, "NAN") ? NAN :
		       strpbrk(digits, "iI") ? (digits[0] == '-' ? -INFINITY : INFINITY) :
		       strtod(digits, NULL);
	s = digits + (digits[0] == '-' || digits[0] == '+');
	if (s[0] == '0' && (s[1] == 'b' || s[1] == 'x'))
		base = s[1] == 'b' ? 2 : 16, s += 2;
	else if (s[0] == '0' && s[1])
		base = 8;
	v = (double)strtoull(s, &end, base);
	return digits[0] == '-' ? -v : v;
}

static bool is_str(yaml_node_t *n)
{
	return ytype(n) == Y_STR;
}

static bool is_lit(yaml_node_t *n, const char *s)
{
	return is_str(n) && n->data.scalar.length == strlen(s) && !strcmp((char *)n->data.scalar.value, s);
}

static size_t chars(yaml_node_t *n)
{
	size_t i, k = 0;

	for (i = 0; i < n->data.scalar.length; i++)
		k += (n->data.scalar.value[i] & 0xc0) != 0x80;
	return k;
}

/* ---- failing, paths, rules ------------------------------------------------------- */

static bool fail(struct sc *c, const char *what)
{
	if (!c->failed)
		snprintf(c->buf, c->len, "%s: %s (LAVA's schema)", *c->path ? c->path : "the job", what);
	c->failed = true;
	return false;
}

/* Check @n by @fn under @key: the path grows by it while the rule runs. */
static bool at(struct sc *c, const char *key, rule_fn fn, yaml_node_t *n)
{
	size_t l = strlen(c->path), idx;
	bool ok;

	idx = n ? (size_t)(n - c->d->nodes.start) : 0;
	if (n && c->seen[idx] == fn)
		return true;
	if (key)
		snprintf(c->path + l, sizeof(c->path) - l, "%s%s", l && key[0] != '[' ? "." : "", key);
	ok = fn(c, n);
	if (ok && n)
		((rule_fn *)c->seen)[idx] = fn;
	if (ok)
		c->path[l] = '\0';
	return ok;
}

static bool r_str(struct sc *c, yaml_node_t *n)
{
	return is_str(n) || fail(c, "not a string");
}

static bool r_str1(struct sc *c, yaml_node_t *n)
{
	return (is_str(n) && n->data.scalar.length) || fail(c, "not a string of at least one character");
}

static bool r_name200(struct sc *c, yaml_node_t *n)
{
	return (is_str(n) && chars(n) >= 1 && chars(n) <= 200) ||
	       fail(c, "not a string of 1 to 200 characters");
}

static bool r_bool(struct sc *c, yaml_node_t *n)
{
	return ytype(n) == Y_BOOL || fail(c, "not true or false");
}

static bool r_int(struct sc *c, yaml_node_t *n)
{
	return ytype(n) == Y_INT || ytype(n) == Y_BOOL || fail(c, "not a whole number");
}

static bool r_dict(struct sc *c, yaml_node_t *n)
{
	return ytype(n) == Y_MAP || fail(c, "not a mapping");
}

static bool r_any(struct sc *c, yaml_node_t *n)
{
	(void)c;
	(void)n;
	return true;
}

static bool r_min1(struct sc *c, yaml_node_t *n)
{
	double v = number(n);

	return (!isnan(v) && v >= 1) || fail(c, "not a number of at least 1");
}

/* A list of what @fn accepts. */
static bool list_of(struct sc *c, yaml_node_t *n, rule_fn fn)
{
	yaml_node_item_t *it;
	char k[32];

	if (ytype(n) != Y_SEQ)
		return fail(c, "not a list");
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		snprintf(k, sizeof(k), "[%zu]", (size_t)(it - n->data.sequence.items.start));
		if (!at(c, k, fn, yaml_document_get_node(c->d, *it)))
			return false;
	}
	return true;
}

static bool r_strs(struct sc *c, yaml_node_t *n)
{
	return list_of(c, n, r_str);
}

static bool r_str_or_strs(struct sc *c, yaml_node_t *n)
{
	return is_str(n) || ytype(n) == Y_SEQ ? is_str(n) || r_strs(c, n) : fail(c, "not a string or a list of strings");
}

/* A mapping's keys, each a string named in @f; R: required. */
struct field {
	const char *key;
	bool req;
	rule_fn fn;
};
#define R(K, F) { K, true, F }
#define O(K, F) { K, false, F }

static yaml_node_t *key_of(struct sc *c, yaml_node_pair_t *p)
{
	return yaml_document_get_node(c->d, p->key);
}

/* Keys of a mapping in sets: those every action has, and an action's own. */
struct fset {
	const struct field *f;
	size_t n;
};

static const struct field *field_of(const struct fset *s, size_t ns, yaml_node_t *k)
{
	size_t i, j;

	for (j = 0; j < ns; j++)
		for (i = 0; i < s[j].n; i++)
			if (is_lit(k, s[j].f[i].key))
				return &s[j].f[i];
	return NULL;
}

static bool fields(struct sc *c, yaml_node_t *n, const struct fset *s, size_t ns)
{
	const struct field *f;
	yaml_node_pair_t *p;
	char *e, msg[160];
	size_t i, j;

	if (ytype(n) != Y_MAP)
		return fail(c, "not a mapping");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = key_of(c, p);

		f = field_of(s, ns, k);
		if (!f) {
			e = is_str(k) ? lava_text((char *)k->data.scalar.value, 40) : NULL;
			snprintf(msg, sizeof(msg), "'%s' is not a key LAVA knows here", e ? e : "(not a string)");
			free(e);
			return fail(c, msg);
		}
		if (!at(c, f->key, f->fn, yaml_document_get_node(c->d, p->value)))
			return false;
	}
	for (j = 0; j < ns; j++) {
		for (i = 0; i < s[j].n; i++) {
			if (s[j].f[i].req && !lava_yaml_get(c->d, n, s[j].f[i].key)) {
				snprintf(msg, sizeof(msg), "no '%s'", s[j].f[i].key);
				return fail(c, msg);
			}
		}
	}
	return true;
}

#define SET(a) { a, ARRAY_SIZE(a) }
/* A mapping of the keys named here, after those of the sets @b1, @b2. */
#define FIELDS(c, n, ...) ({ static const struct field f_[] = { __VA_ARGS__ }; \
			     const struct fset s_[] = { SET(f_) }; fields(c, n, s_, 1); })
#define FIELDS1(c, n, b1, ...) ({ static const struct field f_[] = { __VA_ARGS__ }; \
				  const struct fset s_[] = { SET(b1), SET(f_) }; fields(c, n, s_, 2); })
#define FIELDS2(c, n, b1, b2, ...) ({ static const struct field f_[] = { __VA_ARGS__ }; \
				      const struct fset s_[] = { SET(b1), SET(b2), SET(f_) }; \
				      fields(c, n, s_, 3); })

/* A mapping whose keys are strings, each value what @fn accepts. */
static bool str_map(struct sc *c, yaml_node_t *n, rule_fn fn, bool nonempty)
{
	yaml_node_pair_t *p;

	if (ytype(n) != Y_MAP)
		return fail(c, "not a mapping");
	if (nonempty && n->data.mapping.pairs.start == n->data.mapping.pairs.top)
		return fail(c, "empty");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = key_of(c, p);

		if (!is_str(k))
			return fail(c, "a key that is not a string");
		if (!at(c, (char *)k->data.scalar.value, fn, yaml_document_get_node(c->d, p->value)))
			return false;
	}
	return true;
}

/* ---- timeouts ---------------------------------------------------------------- */

static bool r_timeout(struct sc *c, yaml_node_t *n)
{
	static const char *const units[] = { "days", "hours", "minutes", "seconds" };
	yaml_node_pair_t *p;
	int nu = 0;
	size_t i;

	if (ytype(n) != Y_MAP)
		return fail(c, "not a timeout (one of days, hours, minutes, seconds)");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = key_of(c, p), *v = yaml_document_get_node(c->d, p->value);

		if (is_lit(k, "skip")) {
			if (!at(c, "skip", r_bool, v))
				return false;
			continue;
		}
		for (i = 0; i < 4 && !is_lit(k, units[i]); i++)
			;
		if (i == 4 || nu++)
			return fail(c, "not a timeout (one of days, hours, minutes, seconds)");
		if (!at(c, units[i], r_min1, v))
			return false;
	}
	return nu || fail(c, "not a timeout (one of days, hours, minutes, seconds)");
}

static bool r_timeouts_map(struct sc *c, yaml_node_t *n)
{
	return str_map(c, n, r_timeout, false);
}

/* Timeout.parse(): the seconds of a checked timeout (0: LAVA's default). */
static double seconds(struct sc *c, yaml_node_t *t)
{
	static const char *const units[] = { "days", "hours", "minutes", "seconds" };
	static const double mult[] = { 86400, 3600, 60, 1 };
	double s = 0;
	size_t i;

	for (i = 0; i < 4; i++)
		if (lava_yaml_get(c->d, t, units[i]))
			s += mult[i] * number(lava_yaml_get(c->d, t, units[i]));
	return floor(s);
}

/* lava_common's check_job_timeouts(): none longer than the job's. */
static bool timeouts_within_job(struct sc *c, yaml_node_t *job, yaml_node_t *actions)
{
	static const char *const glob[] = { "action", "connection" };
	static const char *const many[] = { "actions", "connections" };
	yaml_node_t *ts = lava_yaml_get(c->d, job, "timeouts"), *m;
	double max = seconds(c, lava_yaml_get(c->d, ts, "job"));
	yaml_node_item_t *it;
	yaml_node_pair_t *p;
	size_t i;

	if (!max)
		max = 24 * 3600;	/* Timeout.default_duration() */
	for (i = 0; i < 2; i++) {
		m = lava_yaml_get(c->d, ts, glob[i]);
		if (m && seconds(c, m) > max)
			return fail(c, "a global timeout is longer than the job's");
		m = lava_yaml_get(c->d, ts, many[i]);
		for (p = m ? m->data.mapping.pairs.start : NULL; m && p < m->data.mapping.pairs.top; p++)
			if (seconds(c, yaml_document_get_node(c->d, p->value)) > max)
				return fail(c, "a global timeout is longer than the job's");
	}
	for (it = actions->data.sequence.items.start; it < actions->data.sequence.items.top; it++) {
		yaml_node_t *a = yaml_document_get_node(c->d, *it);
		yaml_node_t *t = lava_yaml_get(c->d, yaml_document_get_node(c->d, a->data.mapping.pairs.start->value),
					       "timeout");

		if (t && seconds(c, t) > max)
			return fail(c, "an action's timeout is longer than the job's");
	}
	return true;
}

/* ---- the job's keys ------------------------------------------------------------- */

static bool r_visibility(struct sc *c, yaml_node_t *n)
{
	if (is_lit(n, "public") || is_lit(n, "personal"))
		return true;
	if (ytype(n) == Y_MAP)
		return FIELDS(c, n, O("group", r_strs));
	return fail(c, "not public, personal or a group");
}

static bool r_priority(struct sc *c, yaml_node_t *n)
{
	double v = number(n);

	return is_lit(n, "high") || is_lit(n, "medium") || is_lit(n, "low") || (!isnan(v) && v >= 0 && v <= 100) ||
	       fail(c, "not high, medium, low or 0 to 100");
}

static bool r_ctx_scalar(struct sc *c, yaml_node_t *n)
{
	enum ytype t = ytype(n);

	return t == Y_STR || t == Y_INT || t == Y_BOOL || fail(c, "not a whole number or a string");
}

static bool r_ctx_value(struct sc *c, yaml_node_t *n)
{
	return ytype(n) == Y_SEQ ? list_of(c, n, r_ctx_scalar) : r_ctx_scalar(c, n);
}

static bool r_context(struct sc *c, yaml_node_t *n)
{
	/* lava_common.schemas.CONTEXT_VARIABLES */
	static const char *const vars[] = {
		"arch", "boot_console", "boot_root", "cpu", "extra_options", "guestfs_driveid",
		"guestfs_interface", "guestfs_size", "machine", "memory", "model", "monitor",
		"netdevice", "no_kvm", "serial", "vga", "booti_dtb_addr", "booti_kernel_addr",
		"booti_ramdisk_addr", "bootm_dtb_addr", "bootm_kernel_addr", "bootm_ramdisk_addr",
		"bootz_dtb_addr", "bootz_kernel_addr", "bootz_ramdisk_addr", "boot_character_delay",
		"boot_retry", "bootloader_prompt", "console_device", "custom_kernel_args",
		"extra_kernel_args", "extra_nfsroot_args", "failure_retry", "kernel_loglevel",
		"kernel_start_message", "lava_test_results_dir", "menu_interrupt_prompt",
		"mustang_menu_list", "test_character_delay", "tftp_mac_address",
		"uboot_extra_error_message", "uboot_needs_interrupt", "uboot_altbank",
	};
	yaml_node_pair_t *p;
	char msg[120], *e;
	size_t i;

	if (ytype(n) != Y_MAP)
		return fail(c, "not a mapping");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = key_of(c, p);

		for (i = 0; i < ARRAY_SIZE(vars) && !is_lit(k, vars[i]); i++)
			;
		if (i == ARRAY_SIZE(vars)) {
			e = is_str(k) ? lava_text((char *)k->data.scalar.value, 40) : NULL;
			snprintf(msg, sizeof(msg), "'%s' is not a context variable", e ? e : "(not a string)");
			free(e);
			return fail(c, msg);
		}
		if (!at(c, vars[i], r_ctx_value, yaml_document_get_node(c->d, p->value)))
			return false;
	}
	return true;
}

static bool r_metadata(struct sc *c, yaml_node_t *n)
{
	return str_map(c, n, r_any, false);
}

static bool r_refused(struct sc *c, yaml_node_t *n)
{
	(void)n;
	return fail(c, "not a part of the jobs iopath writes, and not checked here");
}

/* ---- deploy -------------------------------------------------------------------------- */

static bool r_namespace(struct sc *c, yaml_node_t *n)
{
	if (!is_str(n))
		return fail(c, "not a string");
	return (!is_lit(n, "common") && !is_lit(n, "docker-test-shell")) || fail(c, "a reserved namespace");
}

/* The keys every action may have (lava_common.schemas.action()). */
static const struct field action_keys[] = {
	O("namespace", r_namespace), O("connection-namespace", r_str), O("protocols", r_any),
	O("role", r_strs), O("timeout", r_timeout), O("timeouts", r_timeouts_map),
	O("repeat", r_min1), O("failure_retry", r_min1), O("failure_retry_interval", r_min1),
};

static bool r_compression(struct sc *c, yaml_node_t *n)
{
	return ytype(n) == Y_NULL || is_lit(n, "bz2") || is_lit(n, "gz") || is_lit(n, "xz") ||
	       is_lit(n, "zip") || is_lit(n, "zstd") || fail(c, "not bz2, gz, xz, zip, zstd or null");
}

static bool r_tar(struct sc *c, yaml_node_t *n)
{
	return is_lit(n, "tar") || fail(c, "not tar");
}

static bool r_overlay_format(struct sc *c, yaml_node_t *n)
{
	return is_lit(n, "file") || is_lit(n, "tar") || fail(c, "not file or tar");
}

static bool r_image_format(struct sc *c, yaml_node_t *n)
{
	return is_lit(n, "cpio.newc") || is_lit(n, "ext4") || is_lit(n, "tar") || fail(c, "not cpio.newc, ext4 or tar");
}

/* What deploy.url() takes in every resource. */
static const struct field url_keys[] = {
	R("url", r_str), O("headers", r_dict), O("compression", r_compression), O("archive", r_tar),
	O("md5sum", r_str), O("sha256sum", r_str), O("sha512sum", r_str),
};

static bool r_overlay(struct sc *c, yaml_node_t *n)
{
	return FIELDS1(c, n, url_keys, R("format", r_overlay_format), R("path", r_str));
}

static bool r_overlays(struct sc *c, yaml_node_t *n)
{
	yaml_node_pair_t *p;

	if (ytype(n) != Y_MAP)
		return fail(c, "not a mapping");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = key_of(c, p), *v = yaml_document_get_node(c->d, p->value);

		if (is_lit(k, "lava") && ytype(v) == Y_BOOL)
			continue;
		if (!is_str(k))
			return fail(c, "a key that is not a string");
		if (!at(c, (char *)k->data.scalar.value, r_overlay, v))
			return false;
	}
	return true;
}

/*
 * deploy.url(extra): a resource with its URL, or one with a format and
 * overlays (LAVA adds its own and those named to the image). The second
 * form is taken where the mapping names overlays.
 */
static const struct field image_keys[] = {
	O("format", r_image_format), O("partition", r_int), O("sparse", r_bool),
	R("overlays", r_overlays),
};

#define URL_RULE(NAME, ...) \
static bool NAME(struct sc *c, yaml_node_t *n) \
{ \
	if (ytype(n) == Y_MAP && lava_yaml_get(c->d, n, "overlays")) \
		return FIELDS2(c, n, url_keys, image_keys, __VA_ARGS__); \
	return FIELDS1(c, n, url_keys, __VA_ARGS__); \
}

static bool r_qcow2(struct sc *c, yaml_node_t *n)
{
	return is_lit(n, "qcow2") || fail(c, "not qcow2");
}

static bool r_kernel_type(struct sc *c, yaml_node_t *n)
{
	return is_lit(n, "image") || is_lit(n, "uimage") || is_lit(n, "zimage") ||
	       fail(c, "not image, uimage or zimage");
}

static bool r_uboot(struct sc *c, yaml_node_t *n)
{
	return is_lit(n, "u-boot") || fail(c, "not u-boot");
}

static bool r_url_plain(struct sc *c, yaml_node_t *n)
{
	static const struct fset plain[] = { SET(url_keys) };
	static const struct fset image[] = { SET(url_keys), SET(image_keys) };

	if (ytype(n) == Y_MAP && lava_yaml_get(c->d, n, "overlays"))
		return fields(c, n, image, ARRAY_SIZE(image));
	return fields(c, n, plain, ARRAY_SIZE(plain));
}

static bool r_image_url(struct sc *c, yaml_node_t *n)
{
	/* images: format qcow2 in the first form; cpio.newc, ext4, tar in the second */
	if (ytype(n) == Y_MAP && lava_yaml_get(c->d, n, "overlays"))
		return FIELDS2(c, n, url_keys, image_keys, O("image_arg", r_str));
	return FIELDS1(c, n, url_keys, O("image_arg", r_str), O("format", r_qcow2));
}

URL_RULE(r_kernel_url, O("type", r_kernel_type))
URL_RULE(r_ramdisk_url, O("install_modules", r_bool), O("install_overlay", r_bool), O("header", r_uboot))
URL_RULE(r_nfs_url, O("install_modules", r_bool), O("install_overlay", r_bool), O("prefix", r_str))

static bool r_images(struct sc *c, yaml_node_t *n)
{
	return str_map(c, n, r_image_url, true);
}

static bool r_persistent_nfs(struct sc *c, yaml_node_t *n)
{
	return FIELDS(c, n, R("address", r_str), O("install_overlay", r_bool));
}

static bool r_monitor(struct sc *c, yaml_node_t *n)
{
	return is_lit(n, "monitor") || fail(c, "not monitor");
}

static bool r_ssh(struct sc *c, yaml_node_t *n)
{
	return is_lit(n, "ssh") || fail(c, "not ssh");
}

/* What every deploy takes (lava_common.schemas.deploy.schema()). */
static const struct field deploy_keys[] = {
	O("os", r_str), O("authorize", r_ssh),
};

static bool r_lit_tmpfs(struct sc *c, yaml_node_t *n)
{
	return is_lit(n, "tmpfs") || fail(c, "not tmpfs");
}

static bool r_lit_tftp(struct sc *c, yaml_node_t *n)
{
	return is_lit(n, "tftp") || fail(c, "not tftp");
}

static bool deploy_tmpfs(struct sc *c, yaml_node_t *n)
{
	return FIELDS2(c, n, action_keys, deploy_keys, R("to", r_lit_tmpfs), R("images", r_images),
		       O("type", r_monitor), O("uefi", r_url_plain));
}

static bool deploy_tftp(struct sc *c, yaml_node_t *n)
{
	if (lava_yaml_get(c->d, n, "nfsrootfs") && lava_yaml_get(c->d, n, "persistent_nfs"))
		return fail(c, "both nfsrootfs and persistent_nfs");
	return FIELDS2(c, n, action_keys, deploy_keys, R("to", r_lit_tftp), R("kernel", r_kernel_url),
		       O("dtb", r_url_plain), O("modules", r_url_plain), O("preseed", r_url_plain),
		       O("ramdisk", r_ramdisk_url), O("nfsrootfs", r_nfs_url),
		       O("persistent_nfs", r_persistent_nfs), O("tee", r_url_plain));
}

/* ---- boot ------------------------------------------------------------------------------ */

static bool r_boot_params(struct sc *c, yaml_node_t *n)
{
	return FIELDS(c, n, O("kernel-start-message", r_str), O("shutdown-message", r_str));
}

static bool r_prompts(struct sc *c, yaml_node_t *n)
{
	if (ytype(n) == Y_SEQ)
		return list_of(c, n, r_str1);
	return r_str1(c, n);
}

static bool r_transfer_overlay(struct sc *c, yaml_node_t *n)
{
	return FIELDS(c, n, R("download_command", r_str), R("unpack_command", r_str),
		      O("transfer_method", r_str));
}

static bool r_str1s(struct sc *c, yaml_node_t *n)
{
	return list_of(c, n, r_str1);
}

static bool r_auto_login(struct sc *c, yaml_node_t *n)
{
	if (ytype(n) == Y_MAP &&
	    (lava_yaml_get(c->d, n, "password") || lava_yaml_get(c->d, n, "password_prompt")))
		return FIELDS(c, n, R("login_prompt", r_str1), R("username", r_str),
			      R("password_prompt", r_str), R("password", r_str), O("login_commands", r_strs));
	return FIELDS(c, n, R("login_prompt", r_str1), R("username", r_str), O("login_commands", r_str1s));
}

static regex_t docker_re;
static bool docker_re_ready;

static bool r_docker_image(struct sc *c, yaml_node_t *n)
{
	if (!docker_re_ready &&
	    regcomp(&docker_re, "^[a-z0-9]+[a-z0-9._/:-]*[a-z0-9]+(:[a-zA-Z0-9_]+[a-zA-Z0-9._-]*)?$",
		    REG_EXTENDED | REG_NOSUB))
		return fail(c, "out of memory");
	docker_re_ready = true;
	return (is_str(n) && !regexec(&docker_re, (char *)n->data.scalar.value, 0, NULL, 0)) ||
	       fail(c, "not a docker image name");
}

static bool r_docker(struct sc *c, yaml_node_t *n)
{
	return FIELDS(c, n, R("image", r_docker_image), O("local", r_bool), O("container_name", r_str),
		      O("network_from", r_str), O("binary", r_str));
}

/* What every boot takes, and what qemu's and ipxe's share. */
static const struct field boot_keys[] = {
	O("parameters", r_boot_params), O("soft_reboot", r_str_or_strs), O("prompts", r_prompts),
	O("transfer_overlay", r_transfer_overlay), O("auto_login", r_auto_login),
};

static bool r_lit_qemu(struct sc *c, yaml_node_t *n)
{
	return is_lit(n, "qemu") || fail(c, "'method' should be 'qemu'");
}

static bool r_lit_ipxe(struct sc *c, yaml_node_t *n)
{
	return is_lit(n, "ipxe") || fail(c, "'method' should be 'ipxe'");
}

static bool r_lit_serial(struct sc *c, yaml_node_t *n)
{
	return is_lit(n, "serial") || fail(c, "not serial");
}

static bool boot_qemu(struct sc *c, yaml_node_t *n)
{
	return FIELDS2(c, n, action_keys, boot_keys, R("method", r_lit_qemu), O("connection", r_lit_serial),
		       O("media", r_lit_tmpfs), O("docker", r_docker));
}

static bool boot_ipxe(struct sc *c, yaml_node_t *n)
{
	return FIELDS2(c, n, action_keys, boot_keys, R("method", r_lit_ipxe), R("commands", r_str_or_strs),
		       O("use_bootscript", r_bool));
}

/* ---- test definitions ------------------------------------------------------------------ */

static bool r_testdef_format(struct sc *c, yaml_node_t *n)
{
	return is_lit(n, "Lava-Test Test Definition 1.0") || fail(c, "not Lava-Test Test Definition 1.0");
}

static bool r_testdef_meta(struct sc *c, yaml_node_t *n)
{
	return FIELDS(c, n, R("format", r_testdef_format), R("name", r_str), O("description", r_str),
		      O("environment", r_strs), O("devices", r_strs), O("maintainer", r_strs),
		      O("scope", r_strs), O("os", r_strs));
}

static bool r_install(struct sc *c, yaml_node_t *n)
{
	static const char *const known[] = { "deps", "git-repos", "keys", "steps", "sources" };
	yaml_node_pair_t *p;
	size_t i;

	if (ytype(n) != Y_MAP)
		return fail(c, "not a mapping");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = key_of(c, p);

		for (i = 0; i < ARRAY_SIZE(known) && !is_lit(k, known[i]); i++)
			;
		if (i == ARRAY_SIZE(known) &&
		    !(is_str(k) && !strncmp((char *)k->data.scalar.value, "deps-", 5) && k->data.scalar.length > 5))
			return fail(c, "a key LAVA does not know here");
		if (!at(c, (char *)k->data.scalar.value, r_strs, yaml_document_get_node(c->d, p->value)))
			return false;
	}
	return true;
}

static bool r_fixup(struct sc *c, yaml_node_t *n)
{
	return is_lit(n, "pass") || is_lit(n, "fail") || is_lit(n, "skip") || is_lit(n, "unknown") ||
	       fail(c, "not pass, fail, skip or unknown");
}

static bool r_fixupdict(struct sc *c, yaml_node_t *n)
{
	return str_map(c, n, r_fixup, false);
}

static bool r_parse(struct sc *c, yaml_node_t *n)
{
	return FIELDS(c, n, O("fixupdict", r_fixupdict));
}

static bool r_run(struct sc *c, yaml_node_t *n)
{
	return FIELDS(c, n, R("steps", r_strs));
}

static bool r_testdef(struct sc *c, yaml_node_t *n)
{
	return FIELDS(c, n, R("metadata", r_testdef_meta), O("install", r_install),
		      O("parameters", r_dict), O("params", r_dict), O("parse", r_parse), O("run", r_run));
}

static regex_t name_re;
static bool name_re_ready;

static bool r_def_name(struct sc *c, yaml_node_t *n)
{
	if (!name_re_ready && regcomp(&name_re, "^[-_a-zA-Z0-9.]+$", REG_EXTENDED | REG_NOSUB))
		return fail(c, "out of memory");
	name_re_ready = true;
	return (is_str(n) && !regexec(&name_re, (char *)n->data.scalar.value, 0, NULL, 0)) ||
	       fail(c, "not a name of [-_a-zA-Z0-9.]");
}

static bool r_skip_install_item(struct sc *c, yaml_node_t *n)
{
	return is_lit(n, "keys") || is_lit(n, "sources") || is_lit(n, "deps") || is_lit(n, "steps") ||
	       is_lit(n, "git-repos") || is_lit(n, "all") || fail(c, "not keys, sources, deps, steps, git-repos or all");
}

static bool r_skip_install(struct sc *c, yaml_node_t *n)
{
	return list_of(c, n, r_skip_install_item);
}

static bool r_signal(struct sc *c, yaml_node_t *n)
{
	return is_lit(n, "kmsg") || is_lit(n, "stdout") || fail(c, "not kmsg or stdout");
}

/* What every test definition takes. */
static const struct field def_keys[] = {
	R("path", r_str), R("name", r_def_name), O("skip_install", r_skip_install),
	O("lava-signal", r_signal),
};

static bool r_definition(struct sc *c, yaml_node_t *n)
{
	yaml_node_t *from = ytype(n) == Y_MAP ? lava_yaml_get(c->d, n, "from") : NULL;

	if (is_lit(from, "git"))
		return FIELDS1(c, n, def_keys, R("repository", r_str), R("from", r_str),
			       O("branch", r_str), O("history", r_bool), O("revision", r_str),
			       O("parameters", r_dict), O("params", r_dict));
	if (is_lit(from, "url"))
		return FIELDS1(c, n, def_keys, R("repository", r_str), R("from", r_str),
			       R("compression", r_str), O("parameters", r_dict), O("params", r_dict));
	if (is_lit(from, "inline"))
		return FIELDS1(c, n, def_keys, R("repository", r_testdef), R("from", r_str));
	return fail(c, "not a definition from git, url or inline");
}

static bool r_definitions(struct sc *c, yaml_node_t *n)
{
	return list_of(c, n, r_definition);
}

static bool test_definition(struct sc *c, yaml_node_t *n)
{
	return FIELDS1(c, n, action_keys, R("definitions", r_definitions));
}

/* ---- the job ------------------------------------------------------------------------ */

static bool r_job_timeouts(struct sc *c, yaml_node_t *n)
{
	return FIELDS(c, n, R("job", r_timeout), O("action", r_timeout), O("actions", r_timeouts_map),
		      O("connection", r_timeout), O("connections", r_timeouts_map), O("queue", r_timeout));
}

/* An action, checked by its method. */
static bool r_action(struct sc *c, yaml_node_t *n)
{
	yaml_node_t *k, *v, *m;
	yaml_node_pair_t *p;
	const char *kind;

	if (ytype(n) != Y_MAP || n->data.mapping.pairs.start == n->data.mapping.pairs.top)
		return fail(c, "not an action");
	/* {deploy|boot|test|command: mapping}: the first key is the action */
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		k = key_of(c, p);
		kind = is_str(k) ? (char *)k->data.scalar.value : "";
		if (strcmp(kind, "deploy") && strcmp(kind, "boot") && strcmp(kind, "test") &&
		    strcmp(kind, "command"))
			return fail(c, "an action's key that is not deploy, boot, test or command");
		if (!at(c, kind, r_dict, yaml_document_get_node(c->d, p->value)))
			return false;
	}
	k = key_of(c, n->data.mapping.pairs.start);
	v = yaml_document_get_node(c->d, n->data.mapping.pairs.start->value);
	kind = (char *)k->data.scalar.value;
	if (!strcmp(kind, "deploy")) {
		m = lava_yaml_get(c->d, v, "to");
		if (is_lit(m, "tmpfs"))
			return at(c, "deploy", deploy_tmpfs, v);
		if (is_lit(m, "tftp"))
			return at(c, "deploy", deploy_tftp, v);
		return at(c, "deploy.to", r_refused, m);
	}
	if (!strcmp(kind, "boot")) {
		m = lava_yaml_get(c->d, v, "method");
		if (is_lit(m, "qemu"))
			return at(c, "boot", boot_qemu, v);
		if (is_lit(m, "ipxe"))
			return at(c, "boot", boot_ipxe, v);
		return at(c, "boot.method", r_refused, m);
	}
	if (!strcmp(kind, "test") && lava_yaml_get(c->d, v, "definitions") && !lava_yaml_get(c->d, v, "docker"))
		return at(c, "test", test_definition, v);
	return at(c, kind, r_refused, v);
}

static bool r_actions(struct sc *c, yaml_node_t *n)
{
	return list_of(c, n, r_action);
}

static bool job(struct sc *c, yaml_node_t *root)
{
	yaml_node_t *actions;
	yaml_node_item_t *it;
	size_t ns = 0, na = 0;

	if (!FIELDS(c, root, R("job_name", r_name200), R("device_type", r_name200),
		    R("timeouts", r_job_timeouts), R("visibility", r_visibility), O("context", r_context),
		    O("metadata", r_metadata), O("priority", r_priority), O("tags", r_strs),
		    O("secrets", r_dict), O("environment", r_dict), O("protocols", r_refused),
		    O("notify", r_refused), O("reboot_to_fastboot", r_bool), R("actions", r_actions)))
		return false;
	actions = lava_yaml_get(c->d, root, "actions");
	if (!timeouts_within_job(c, root, actions))
		return false;
	/* check_namespace(): one action in a namespace, all of them */
	for (it = actions->data.sequence.items.start; it < actions->data.sequence.items.top; it++) {
		yaml_node_t *a = yaml_document_get_node(c->d, *it);

		na++;
		ns += !!lava_yaml_get(c->d, yaml_document_get_node(c->d, a->data.mapping.pairs.start->value),
				      "namespace");
	}
	return !ns || ns == na || fail(c, "some actions have a namespace, not all");
}

const char *lava_schema_check(yaml_document_t *d, char *buf, size_t len)
{
	size_t nodes = (size_t)(d->nodes.top - d->nodes.start);
	struct sc c = { .d = d, .buf = buf, .len = len };
	bool ok;

	if (!res_init())
		return "out of memory";
	c.seen = calloc(nodes + 1, sizeof(*c.seen));
	if (!c.seen)
		return "out of memory";
	ok = job(&c, yaml_document_get_root_node(d));
	free((void *)c.seen);
	return ok ? NULL : buf;
}
