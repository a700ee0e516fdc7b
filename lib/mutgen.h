/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The mutation operators of iopath mutant generate, over the function
 * bodies lib/ctok.c finds: each site is a byte range of the source and the
 * text that replaces it, and a mutant is that one change as a unified
 * diff. The operators (one family each, named in a mutant's
 * "# Generated: OPERATOR, SEED" line, which lib/mutant.c checks against
 * this list):
 *
 *   negate      the condition of an if or while negated: (c) -> (!(c))
 *   relop       a relational operator replaced: < by <= and >=, <= by <
 *               and >, > by >= and <=, >= by > and <, == by !=, != by ==
 *   off-by-one  an integer constant +1 and -1; the right operand of a shift,
 *               and a length (len, size, count, bytes, nr, length or
 *               *_len, *_size, ...; a member too: iter->count) as an
 *               operand: (x - 1), a shift's (x + 1)
 *   call-void   a call that is a statement of its own removed
 *   call-zero   a call whose value is used replaced by 0
 *   call-arg    ... replaced by its first argument
 *   and-or      && by || and || by &&
 *   drop-stmt   an expression statement (not a call: call-void) removed
 *   flag        a flag bit (an upper-case constant) set instead of cleared
 *               or cleared instead of set: "|= F" <-> "&= ~F", and "| F"
 *               dropped from a value
 */
#ifndef IOPATH_MUTGEN_H
#define IOPATH_MUTGEN_H

#include <stdint.h>
#include <stdio.h>

#include "ctok.h"

enum iop_mutop {
	IOP_MUT_NEGATE,
	IOP_MUT_RELOP,
	IOP_MUT_OFF_BY_ONE,
	IOP_MUT_CALL_VOID,
	IOP_MUT_CALL_ZERO,
	IOP_MUT_CALL_ARG,
	IOP_MUT_AND_OR,
	IOP_MUT_DROP_STMT,
	IOP_MUT_FLAG,
	IOP_MUT_COUNT,
};

/* The operators' names, as "# Generated:" and the listing give them. */
extern const char *const iop_mutop_names[IOP_MUT_COUNT];

/* The operator named @s, or -1. */
int iop_mutop_parse(const char *s, size_t n);

struct iop_mutsite {
	enum iop_mutop op;
	size_t func;		/* index in the ctok's funcs */
	size_t start, end;	/* bytes of the source replaced */
	char *repl;		/* by this (malloc) */
	unsigned int line;
	char what[128];		/* the change, for the "# Bug:" line */
};

/*
 * Every site of every operator in the function bodies of @t, in source
 * order (then operator, then replacement): the enumeration a seed draws
 * from. 0 or -ENOMEM.
 */
int iop_mutgen_sites(const struct iop_ctok *t, struct iop_mutsite **sites, size_t *n);

void iop_mutsites_free(struct iop_mutsite *sites, size_t n);

/*
 * The unified diff of @s on @t's source, as "--- a/PATH" and "+++ b/PATH"
 * with 3 lines of context, to @f: what patch -p1 applies in the tree.
 * -EINVAL for a site in a last line without a newline (not written).
 */
int iop_mutgen_diff(FILE *f, const struct iop_ctok *t, const char *path,
		    const struct iop_mutsite *s);

/*
 * The name of function @f of @t, as the kernel's symbols have it, into
 * @buf: its identifier, but for a system call's body,
 * SYSCALL_DEFINEn(read, ...), which is __do_sys_read (and
 * COMPAT_SYSCALL_DEFINEn's __do_compat_sys_NAME).
 */
void iop_mutgen_func_name(const struct iop_ctok *t, size_t f, char *buf, size_t len);

/* The SplitMix64 generator: the sample is drawn by it, the same on every libc. */
uint64_t iop_splitmix64(uint64_t *state);

/* A uniform draw from [0, @n) (@n > 0), without modulo bias. */
uint64_t iop_uniform(uint64_t *state, uint64_t n);

#endif
