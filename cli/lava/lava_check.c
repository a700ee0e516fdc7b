// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The checks of a job (a file iopath wrote, or one given to `iopath lava
 * validate`): what iopath needs of it, the deploy and boot methods of its
 * device type as lava-server's templates offer them (qemu.jinja2: deploy
 * to tmpfs, boot qemu; x86.jinja2: deploy to tftp, boot ipxe with the
 * ramdisk or nfs commands), then LAVA's own schema (lava_schema.c). A job
 * is loaded by iop_yaml_load() (lib/yaml_bound.c: nesting, nodes and
 * anchors bounded before libyaml's loader runs); the loader keeps an alias
 * as a reference, never a copy, and only the nodes named here are visited.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lava.h"
#include "quote.h"
#include "yaml_bound.h"

bool lava_device_type_ok(const char *type)
{
	return !strcmp(type, "qemu") || !strcmp(type, "x86");
}

/* Whether @n is the scalar @s. */
static bool is(yaml_node_t *n, const char *s)
{
	return n && n->type == YAML_SCALAR_NODE && n->data.scalar.length == strlen(s) &&
	       !memcmp(n->data.scalar.value, s, n->data.scalar.length);
}

/* The first key of each action, as "deploy, boot, test". */
static void kinds(yaml_document_t *d, yaml_node_t *actions, char *buf, size_t len)
{
	yaml_node_item_t *it;
	size_t n = 0;

	buf[0] = '\0';
	for (it = actions->data.sequence.items.start; it < actions->data.sequence.items.top; it++) {
		yaml_node_t *a = yaml_document_get_node(d, *it);
		yaml_node_t *k = yaml_document_get_node(d, a->data.mapping.pairs.start->key);

		n += snprintf(buf + n, n < len ? len - n : 0, "%s%.*s", n ? ", " : "",
			      (int)(k->data.scalar.length > 32 ? 32 : k->data.scalar.length),
			      k->data.scalar.value);
		if (n >= len)
			break;
	}
}

static const char *check_doc(yaml_document_t *d, char *buf, size_t len)
{
	static const char *const need[] = { "device_type", "job_name", "timeouts", "actions" };
	yaml_node_t *root = yaml_document_get_root_node(d), *n, *actions, *deploy, *boot;
	yaml_node_item_t *it;
	char k[200], *e;
	size_t i;

	if (!root || root->type != YAML_MAPPING_NODE)
		return "not a YAML mapping";
	for (i = 0; i < 4; i++) {
		if (!lava_yaml_get(d, root, need[i])) {
			snprintf(buf, len, "no %s", need[i]);
			return buf;
		}
	}
	actions = lava_yaml_get(d, root, "actions");
	if (actions->type != YAML_SEQUENCE_NODE)
		return "actions is not a list";
	for (it = actions->data.sequence.items.start; it < actions->data.sequence.items.top; it++) {
		yaml_node_t *a = yaml_document_get_node(d, *it);

		if (!a || a->type != YAML_MAPPING_NODE ||
		    a->data.mapping.pairs.start == a->data.mapping.pairs.top ||
		    yaml_document_get_node(d, a->data.mapping.pairs.start->key)->type !=
		    YAML_SCALAR_NODE)
			return "an action that is not a mapping named by its kind";
	}
	kinds(d, actions, k, sizeof(k));
	if (strncmp(k, "deploy, boot, test", 18) || (k[18] && k[18] != ',')) {
		e = iop_esc_dup(k);
		snprintf(buf, len, "actions are [%s], not deploy, boot, test", e ? e : "?");
		free(e);
		return buf;
	}
	deploy = lava_yaml_get(d, yaml_document_get_node(d, actions->data.sequence.items.start[0]), "deploy");
	boot = lava_yaml_get(d, yaml_document_get_node(d, actions->data.sequence.items.start[1]), "boot");
	n = lava_yaml_get(d, root, "device_type");
	if (is(n, "qemu")) {
		if (!is(lava_yaml_get(d, deploy, "to"), "tmpfs") || !is(lava_yaml_get(d, boot, "method"), "qemu"))
			return "device_type qemu: not a deploy to tmpfs and a qemu boot (qemu.jinja2)";
	} else if (is(n, "x86")) {
		if (!is(lava_yaml_get(d, deploy, "to"), "tftp") || !is(lava_yaml_get(d, boot, "method"), "ipxe") ||
		    (!is(lava_yaml_get(d, boot, "commands"), "ramdisk") && !is(lava_yaml_get(d, boot, "commands"), "nfs")))
			return "device_type x86: not a deploy to tftp and an ipxe boot with the ramdisk or nfs commands (x86.jinja2)";
	} else {
		return "device_type: not " LAVA_DEVICE_TYPES;
	}
	return lava_schema_check(d, buf, len);
}

const char *lava_job_check(const char *text, size_t n, char *buf, size_t len)
{
	yaml_document_t d;
	const char *err;
	int ret;

	if (memchr(text, '\0', n))
		return "not YAML: a NUL byte";
	ret = iop_yaml_load(text, n, &d, buf, len);
	if (ret)
		return buf;
	err = check_doc(&d, buf, len);
	yaml_document_delete(&d);
	return err;
}
