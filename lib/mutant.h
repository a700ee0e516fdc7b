/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The header of a mutant (configs/mutants/, configs/mutants/tool/,
 * configs/mutants/perf/): the "# Key: value" lines before the diff, which
 * say what the mutant plants and which tests can see it. This is the one
 * reader of those headers; iopath mutant hands its fields to the scripts
 * (scripts/lib/common.bash), the kill matrix and the LAVA jobs take them
 * from here.
 *
 * The header is every line before the first one starting with "--- ". A
 * line of it is a field ("# Key: value", the key [A-Za-z][A-Za-z0-9-]*,
 * the value trimmed and not empty), a comment (any other line starting
 * with '#'), an empty line, or a "diff " or "index " line of git's. A key
 * given twice is an error, but for Filter ("program=options"), given once
 * per program. A control character (a tab, a carriage return, an escape)
 * anywhere in the header is an error: values end up on terminals, in
 * tables and in command lines. The diff is there if a "+++ " line follows
 * the header's "--- " line; nothing after it is read.
 */
#ifndef IOPATH_MUTANT_H
#define IOPATH_MUTANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IOP_MUTANT_LINE_MAX	4096	/* bytes in a header line */
#define IOP_MUTANT_FIELDS_MAX	64	/* fields in a header */
#define IOP_MUTANT_KEY_MAX	32	/* bytes in a key */

struct iop_mutant_field {
	char key[IOP_MUTANT_KEY_MAX + 1];
	char *value;
	unsigned int line;
};

struct iop_mutant {
	struct iop_mutant_field *fields;	/* in the order of the file */
	size_t nfields;
	unsigned int diff_line;		/* line of the "+++ " after the header; 0: no diff */
};

/*
 * Read the header of the mutant at @path (a regular file). 0, or -errno
 * with "<path>:<line>: <what>" (or "<path>: <what>") in @why; @m is empty
 * on failure. iop_mutant_free() in every case.
 */
int iop_mutant_read(const char *path, struct iop_mutant *m, char *why, size_t len);

/* The value of @key (the first, for Filter), or NULL. */
const char *iop_mutant_get(const struct iop_mutant *m, const char *key);

/*
 * What every mutant of iopath mutate and mutate-tool needs: Function, Bug
 * and Tests ("all" alone: the whole collection), a well-formed Generated
 * if there is one, and a diff after the header. 0, or -EINVAL with the
 * reason, naming @path, in @why.
 */
int iop_mutant_check(const struct iop_mutant *m, const char *path, char *why, size_t len);

/*
 * A generated mutant's "# Generated: OPERATOR, SEED" (iopath mutant
 * generate): the operator, an index of lib/mutgen.h's iop_mutop_names,
 * into *@op and the seed into *@seed. 1 if the header has that line, 0
 * if not (a mutant written by hand), -EINVAL with the reason, naming
 * @path, in @why if the line is not of that form.
 */
int iop_mutant_generated(const struct iop_mutant *m, const char *path, int *op, uint64_t *seed,
			 char *why, size_t len);

/* Whether "# Tests:" says "all": every program of the collection, unfiltered. */
int iop_mutant_all_tests(const struct iop_mutant *m);

void iop_mutant_free(struct iop_mutant *m);

/*
 * The mutants of @dir (*.patch, in name order) into @names (malloc, the
 * names without .patch): each name [A-Za-z0-9._-], each header read and
 * checked (iop_mutant_check()). 0, or -errno with one line in @why.
 */
int iop_mutant_scan(const char *dir, char ***names, size_t *count, char *why, size_t len);

void iop_mutant_names_free(char **names, size_t count);

/* Whether @s is a mutant's name: [A-Za-z0-9][A-Za-z0-9._-]*. */
bool iop_mutant_name_ok(const char *s);

#endif
