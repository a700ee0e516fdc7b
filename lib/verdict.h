/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The verdict on selftest TAP, for C consumers (export, lava): the one TAP
 * reader is scripts/tap-verdict.awk (it also runs in busybox guests); this
 * runs it and reads back only its machine lines, never the TAP or the
 * notes' prose:
 *   "# IOPATH-CASE: result=pass|fail|skip|known|unfinished program=P name=N lines=A-B[ bug=B]"
 *   "# IOPATH-PROGRAM: result=pass|fail|excused|skip|unfinished program=P[ ended=timeout]"
 * (unfinished: the TAP ended inside that test or program: cut short;
 * ended=timeout: its time limit ended the program). Keys a line holds
 * beyond these are ignored: the awk may add words.
 *   "# <WORD>-RESULT: status=pass|fail passed=N failed=N known=N skipped=N
 *    programs=N programs_failed=N required_missing=N stale_known=N[ seconds=N]"
 * (WORD is IOPATH, IOPATH-VM, ... as the awk's -v result= says).
 */
#ifndef IOPATH_VERDICT_H
#define IOPATH_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

struct iop_case {
	char result[16];	/* pass, fail, skip, known, unfinished */
	char program[128];
	char name[256];		/* fixture.variant.test */
	unsigned int first, last;	/* its lines in the TAP the awk read */
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
	char status[8];		/* pass, fail */
	unsigned int passed, failed, known, skipped, programs, programs_failed;
	unsigned int required_missing, stale_known;
	long seconds;		/* -1: not given */
	/* iop_verdict_run(): the awk's other "# TAG: ..." lines, for people. */
	char **notes;
	size_t nnotes, notes_cap;
};

/* Options of iop_verdict_run_opts(); NULL or 0 members take the defaults. */
struct iop_verdict_opts {
	const char *tag;	/* note prefix, default "iopath" */
	const char *result;	/* result line word, default "IOPATH-RESULT" */
	const char *start, *end;	/* seconds, for the result's seconds= */
	bool coverage;		/* the coverage block among the notes */
};

/* An empty verdict (also what iop_verdict_free() leaves). */
void iop_verdict_init(struct iop_verdict *v);

/*
 * Run "awk -f @top/scripts/tap-verdict.awk @known @req @features @tap"
 * with -v kernel=@kernel and fill @v (iop_verdict_init() first) with its
 * machine lines and notes. NULL @known, @req or @features: /dev/null.
 * 0 when the awk judged the TAP (pass or fail: see v->status); -EINVAL
 * with the awk's one-line reason in @why when an input was malformed or a
 * machine line did not parse; other -errno when the awk could not run.
 */
int iop_verdict_run(const char *top, const char *kernel, const char *known,
		    const char *req, const char *features, const char *tap,
		    struct iop_verdict *v, char *why, size_t len);

int iop_verdict_run_opts(const char *top, const char *kernel, const char *known,
			 const char *req, const char *features, const char *tap,
			 const struct iop_verdict_opts *opts,
			 struct iop_verdict *v, char *why, size_t len);

/*
 * One line (without its newline): 1 if it was a machine line, now in @v;
 * 0 if it is not one; -EINVAL if it is one but malformed; -ENOMEM;
 * -E2BIG past IOP_VERDICT_MAX_CASES. Only the first result line counts.
 */
int iop_verdict_parse_line(const char *line, struct iop_verdict *v);

#define IOP_VERDICT_MAX_CASES (1u << 20)

void iop_verdict_free(struct iop_verdict *v);

#endif
