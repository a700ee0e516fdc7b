/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The verdict engine's state, shared by its notes (tap_note.c), its
 * coverage rule (tap_cov.c: requirements, features, the coverage block)
 * and its walk over the TAP (tap.c), in that order of layers: each file
 * calls only the ones before it. Nothing outside lib/tap*.c includes it.
 */
#ifndef IOPATH_TAP_INT_H
#define IOPATH_TAP_INT_H

#include "tap.h"

/* A TAP line longer than this is an input error, not a line to read. */
#define TAP_MAX_LINE (1u << 20)

struct req {
	char *seed, *test, *features;
	regex_t re;
	unsigned int pass, fail, known, skip, absent;	/* of the seed's first line */
	char *why;
};

struct iop_tap {
	const struct iop_tap_opts *o;
	const char *kernel, *tag;
	const struct iop_kf *kf;
	bool *covers;		/* per entry: the kernel is one it excuses */
	struct iop_verdict *v;
	FILE *out;
	int err;
	unsigned long fnr;
	/* the program */
	char *prog;
	bool prog_open, ptotals;
	unsigned int pknown, punknown;
	double pfail;
	/* the test */
	unsigned long tfirst;
	char *tname;
	char **atext;
	size_t nassert, acap;
	const char *ended_by;
	bool postfail;
	const char *why_not;
	char *why_buf;
	/* the run */
	unsigned int tpass, tfail, tknown, tskip, progs, progs_failed, reqbad, stale;
	unsigned int fsck_ran, fsck_not, kmsg_ran, kmsg_not;
	char *failed_progs;
	struct req *req;
	size_t nreq;
	char **feat;		/* "NAME VALUE" pairs: name, then value */
	size_t nfeat;
	char *probe_failed;
};

/* tap_note.c: the first error, the notes, an ERE's match. */
void iop_tap_set_err(struct iop_tap *t, int err);
void iop_tap_note(struct iop_tap *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool iop_tap_match(const regex_t *re, const char *s);

/* tap_cov.c: a test's result against the requirements, counted for its seed path. */
void iop_tap_required(struct iop_tap *t, const char *name, bool notok, bool skip, long excused,
		      const char *reason);
/* The coverage block, one note per seed path and post-test check. */
void iop_tap_coverage(struct iop_tap *t);
/* The requirements and features @t holds, freed. */
void iop_tap_cov_free(struct iop_tap *t);

#endif
