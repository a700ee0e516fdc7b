// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict engine's coverage rule (see tap.h): the requirements a test
 * that skipped is judged by, the kernel's features from iopath_probe and
 * the coverage block. It stands on the notes of tap_note.c; the walk over
 * the TAP (tap.c) calls it, never the other way.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tap_int.h"
#include "why.h"

/* The features a requirement needs, all present: "a, b and c", or NULL. */
static char *have_features(const struct iop_tap *t, const struct req *r)
{
	char *copy = strdup(r->features), *have = NULL, *f, *next, *save = NULL, *s;
	size_t i, n = 0, k;
	bool yes;

	if (!copy)
		return NULL;
	for (f = strtok_r(copy, " ", &save); f; f = strtok_r(NULL, " ", &save))
		n++;
	strcpy(copy, r->features);
	save = NULL;
	for (k = 0, f = strtok_r(copy, " ", &save); f; f = next, k++) {
		next = strtok_r(NULL, " ", &save);
		yes = false;
		/* the last line of a feature wins, as an array assignment would */
		for (i = t->nfeat; i-- > 0;)
			if (!strcmp(t->feat[2 * i], f)) {
				yes = !strcmp(t->feat[2 * i + 1], "yes");
				break;
			}
		if (!yes) {
			free(have);
			free(copy);
			return NULL;
		}
		if (asprintf(&s, "%s%s%s", have ? have : "", !k ? "" : k + 1 == n ? " and " : ", ",
			     f) < 0) {
			free(have);
			free(copy);
			return NULL;
		}
		free(have);
		have = s;
	}
	free(copy);
	return have;
}

/* The requirement line that counts for @seed: the seed's first. */
static struct req *seed_of(struct iop_tap *t, const char *seed)
{
	size_t i;

	for (i = 0; i < t->nreq; i++)
		if (!strcmp(t->req[i].seed, seed))
			return &t->req[i];
	return NULL;
}

void iop_tap_required(struct iop_tap *t, const char *name, bool notok, bool skip, long excused,
		      const char *reason)
{
	struct req *r, *s;
	char *have;
	size_t i;

	for (i = 0; i < t->nreq; i++) {
		r = &t->req[i];
		if (!iop_tap_match(&r->re, name))
			continue;
		s = seed_of(t, r->seed);
		if (notok && excused >= 0) {
			s->known++;
		} else if (notok) {
			s->fail++;
		} else if (skip) {
			s->skip++;
			if (strstr(reason, "absent by kernel"))
				s->absent++;
			if (!s->why && asprintf(&s->why, "%s: %s", name, reason) < 0)
				s->why = NULL;
		} else {
			s->pass++;
		}
		if (skip && !notok) {
			have = have_features(t, r);
			if (have) {
				iop_tap_note(t, "required: %s skipped on a kernel that has %s: %s",
					     name, have, reason);
				t->reqbad++;
				free(have);
			}
		}
		break;
	}
}

/* @line's blank-separated fields, in place; their number. */
static size_t fields(char *line, char **f, size_t max)
{
	char *save = NULL, *w;
	size_t n = 0;

	for (w = strtok_r(line, " \t", &save); w; w = n < max ? strtok_r(NULL, " \t", &save) : NULL)
		f[n++] = w;
	return n;
}

int iop_tap_requirement(struct iop_tap *t, const char *line, char *why, size_t len)
{
	char *copy, *seed, *test, *w, *feat = NULL, *s, *save = NULL;
	struct req *r, *nr;
	int ret = -EINVAL;

	for (w = (char *)line; *w == ' ' || *w == '\t'; w++)
		;
	if (!*w || *w == '#')
		return 0;
	copy = strdup(line);
	if (!copy)
		return -ENOMEM;
	seed = strtok_r(copy, " \t", &save);
	test = seed ? strtok_r(NULL, " \t", &save) : NULL;
	for (w = test ? strtok_r(NULL, " \t", &save) : NULL; w; w = strtok_r(NULL, " \t", &save)) {
		if (asprintf(&s, "%s%s%s", feat ? feat : "", feat ? " " : "", w) < 0) {
			ret = -ENOMEM;
			goto out_feat;
		}
		free(feat);
		feat = s;
	}
	if (!feat) {
		iop_why(why, len, "expected \"SEED-PATH TEST-ERE FEATURE...\"");
		goto out_feat;
	}
	nr = reallocarray(t->req, t->nreq + 1, sizeof(*t->req));
	if (!nr) {
		ret = -ENOMEM;
		goto out_feat;
	}
	t->req = nr;
	r = &t->req[t->nreq];
	memset(r, 0, sizeof(*r));
	if (regcomp(&r->re, test, REG_EXTENDED | REG_NOSUB)) {
		iop_why(why, len, "TEST-ERE '%s' does not compile", test);
		goto out_feat;
	}
	r->seed = strdup(seed);
	r->test = strdup(test);
	r->features = feat;
	t->nreq++;
	free(copy);
	return r->seed && r->test ? 0 : -ENOMEM;
out_feat:
	free(feat);
	free(copy);
	return ret;
}

int iop_tap_feature(struct iop_tap *t, const char *line)
{
	char *copy = strdup(line), *f[2], **nf, *p;
	size_t n;

	if (!copy)
		return -ENOMEM;
	n = fields(copy, f, 2);
	if (n >= 1 && !strcmp(f[0], "probe-failed")) {
		p = strstr(line, "probe-failed") + 12;
		while (*p == ' ')
			p++;
		free(t->probe_failed);
		t->probe_failed = strdup(*p ? p : "no reason given");
		free(copy);
		return t->probe_failed ? 0 : -ENOMEM;
	}
	if (n < 2) {
		free(copy);
		return 0;
	}
	nf = reallocarray(t->feat, 2 * (t->nfeat + 1), sizeof(*t->feat));
	if (!nf) {
		free(copy);
		return -ENOMEM;
	}
	t->feat = nf;
	nf[2 * t->nfeat] = strdup(f[0]);
	nf[2 * t->nfeat + 1] = strdup(f[1]);
	t->nfeat++;
	free(copy);
	return nf[2 * t->nfeat - 2] && nf[2 * t->nfeat - 1] ? 0 : -ENOMEM;
}

void iop_tap_coverage(struct iop_tap *t)
{
	char *known = NULL, *skipped = NULL;
	struct req *r;
	size_t i;

	for (i = 0; i < t->nreq; i++) {
		r = &t->req[i];
		if (seed_of(t, r->seed) != r)
			continue;
		if (r->pass + r->fail + r->known > 0) {
			if (r->known && asprintf(&known, ", %u known", r->known) < 0)
				known = NULL;
			if (r->skip && asprintf(&skipped, ", %u skipped", r->skip) < 0)
				skipped = NULL;
			iop_tap_note(t, "coverage: %s: ran (%u passed, %u failed%s%s)", r->seed,
				     r->pass, r->fail, known ? known : "", skipped ? skipped : "");
			free(known);
			free(skipped);
			known = NULL;
			skipped = NULL;
		} else if (r->skip > 0 && r->absent == r->skip) {
			iop_tap_note(t, "coverage: %s: absent by kernel (%s)", r->seed, r->why ? r->why : "");
		} else if (r->skip > 0) {
			iop_tap_note(t, "coverage: %s: NOT RUN (%u skipped; %s)", r->seed, r->skip,
				     r->why ? r->why : "");
		} else {
			iop_tap_note(t, "coverage: %s: NOT RUN (no test ran)", r->seed);
		}
	}
	if (t->kmsg_not)
		iop_tap_note(t, "coverage: kernel-log check: NOT RUN after %u tests, ran after %u tests",
			     t->kmsg_not, t->kmsg_ran);
	else
		iop_tap_note(t, "coverage: kernel-log check: ran after %u tests", t->kmsg_ran);
	if (t->fsck_not)
		iop_tap_note(t, "coverage: fsck: NOT RUN after %u tests, ran after %u tests", t->fsck_not,
			     t->fsck_ran);
	else
		iop_tap_note(t, "coverage: fsck: ran after %u tests", t->fsck_ran);
}

void iop_tap_cov_free(struct iop_tap *t)
{
	size_t i;

	for (i = 0; i < t->nreq; i++) {
		regfree(&t->req[i].re);
		free(t->req[i].seed);
		free(t->req[i].test);
		free(t->req[i].features);
		free(t->req[i].why);
	}
	free(t->req);
	for (i = 0; i < 2 * t->nfeat; i++)
		free(t->feat[i]);
	free(t->feat);
	free(t->probe_failed);
}
