/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The verdict on selftest TAP, for C consumers (export, lava, mutant, run):
 * the one TAP reader is the engine of lib/tap.c (also the guests'
 * iopath_verdict); consumers read only its machine lines, never the TAP
 * or the notes' prose:
 *   "# IOPATH-CASE: result=pass|fail|skip|known|unfinished program=P name=N lines=A-B[ bug=B]"
 *   "# IOPATH-PROGRAM: result=pass|fail|excused|skip|unfinished program=P[ ended=timeout]"
 * (unfinished: the TAP ended inside that test or program: cut short;
 * ended=timeout: its time limit ended the program). Keys a line holds
 * beyond these are ignored: the engine may add words.
 *   "# <WORD>-RESULT: status=pass|fail passed=N failed=N known=N skipped=N
 *    programs=N programs_failed=N required_missing=N stale_known=N[ seconds=N]"
 * (WORD is IOPATH, IOPATH-VM, ... as the engine's --result says).
 */
#ifndef IOPATH_VERDICT_H
#define IOPATH_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

struct iop_case {
	char result[16];	/* pass, fail, skip, known, unfinished */
	char program[128];
	char name[256];		/* fixture.variant.test */
	unsigned int first, last;	/* its lines in the TAP the engine read */
	char bug[64];		/* known: the docs/kernel-bugs/ name */
};

struct iop_program {
	char result[16];	/* pass, fail, excused, skip, unfinished */
	char program[128];
	bool timed_out;		/* ended=timeout: its time limit ended it */
};

struct iop_verdict {
	struct iop_case *cases;
	size_t ncases, cases_cap;
	struct iop_program *progs;
	size_t nprogs, progs_cap;
	/* The first result line; have_result false when there was none. */
	bool have_result;
	char result_word[32];	/* "IOPATH-RESULT", "IOPATH-VM-RESULT", ... */
	/*
	 * Set after iop_verdict_init() to take only the result line of this
	 * word: another word's is checked, then passed over.
	 */
	char want_word[32];
	char status[8];		/* pass, fail */
	unsigned int passed, failed, known, skipped, programs, programs_failed;
	unsigned int required_missing, stale_known;
	long seconds;		/* -1: not given */
	/* iop_verdict_run(): the engine's "# TAG: ..." notes, for people. */
	char **notes;
	size_t nnotes, notes_cap;
};

/* An empty verdict (also what iop_verdict_free() leaves). */
void iop_verdict_init(struct iop_verdict *v);

/*
 * The machine lines, written (malloc'ed into *@line; 0 or -ENOMEM): the
 * one writer of their format. A program or name is written as one word,
 * '?' for a byte outside [A-Za-z0-9_.:+-]; @bug NULL: no bug= key.
 */
int iop_verdict_fmt_case(char **line, const char *result, const char *program, const char *name,
			 unsigned long first, unsigned long last, const char *bug);
int iop_verdict_fmt_program(char **line, const char *result, const char *program, bool timed_out);
/* From v's result_word, status, counts and seconds (-1: none). */
int iop_verdict_fmt_result(char **line, const struct iop_verdict *v);

/*
 * One line (without its newline): 1 if it was a machine line, now in @v;
 * 0 if it is not one; -EINVAL if it is one but malformed; -ENOMEM;
 * -E2BIG past IOP_VERDICT_MAX_CASES. Only the first result line counts.
 */
int iop_verdict_parse_line(const char *line, struct iop_verdict *v);

#define IOP_VERDICT_MAX_CASES (1u << 20)

/* A line of a file of machine lines longer than this is an input error. */
#define IOP_VERDICT_MAX_LINE (1u << 20)

enum iop_verdict_kind { IOP_VERDICT_CASE, IOP_VERDICT_PROGRAM, IOP_VERDICT_RESULT };

/*
 * The one reader of a file's machine lines (a runner's output, a guest's
 * TAP, the engine's output): each line of @path (a regular file, read
 * within the size it had when opened) through iop_verdict_parse_line()
 * into @v, in order; a trailing CR (a serial console's) is not part of a
 * line, and the other lines are not looked at. @each, when not NULL, is
 * called after each line taken, with its kind. 0, or -EINVAL with
 * "PATH:LINE: ..." in @why for a malformed machine line, other -errno
 * (-E2BIG: more than IOP_VERDICT_MAX_CASES) with the reason.
 */
int iop_verdict_read(const char *path, struct iop_verdict *v,
		     void (*each)(void *arg, const struct iop_verdict *v,
				  enum iop_verdict_kind kind),
		     void *arg, char *why, size_t len);

void iop_verdict_free(struct iop_verdict *v);

/*
 * Room for element @n of the array *@arr of *@cap elements of @size bytes,
 * doubling it; -E2BIG past IOP_VERDICT_MAX_CASES, -ENOMEM.
 */
int iop_verdict_grow(void **arr, size_t *cap, size_t n, size_t size);

#endif
