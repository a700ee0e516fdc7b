/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A C tokenizer good enough for kernel code, for the mutant generator
 * (lib/mutgen.c): comments, preprocessor lines (with their continuations)
 * and white space are skipped; string and character literals are tokens
 * of their own, never looked into; identifiers, numbers and punctuators
 * (the longest one, "<<=" before "<<" before "<") are the rest. It does
 * not preprocess: a macro is an identifier like any other.
 *
 * Function bodies are found at file scope: a '{' at brace depth 0 after a
 * ')' whose '(' follows an identifier, the function's name (an attribute
 * macro between the parameter list and the body, "f(x) __releases(l) {",
 * is stepped over: the name is the identifier before the first list).
 */
#ifndef IOPATH_CTOK_H
#define IOPATH_CTOK_H

#include <stdbool.h>
#include <stddef.h>

enum iop_tok_kind {
	IOP_TOK_IDENT,
	IOP_TOK_NUMBER,
	IOP_TOK_PUNCT,
	IOP_TOK_STRING,		/* "..." and '...': never a mutation site */
};

struct iop_tok {
	enum iop_tok_kind kind;
	size_t off, len;	/* bytes of the source */
	unsigned int line;	/* 1-based */
	size_t match;		/* of a bracket: the index of its partner */
};

struct iop_func {
	size_t name;		/* token index of the name */
	size_t open, close;	/* token indexes of the body's braces */
};

struct iop_ctok {
	const char *src;
	size_t n;
	struct iop_tok *toks;
	size_t ntoks;
	struct iop_func *funcs;
	size_t nfuncs;
};

/*
 * Tokenize @src (@n bytes, not NUL-terminated needed) and find its
 * function bodies. 0, or -EINVAL with "<name>:<line>: <what>" in @why
 * (an unterminated comment or literal, a NUL byte, a bracket without its
 * partner), -ENOMEM. iop_ctok_free() in every case.
 */
int iop_ctok_scan(const char *src, size_t n, const char *name, struct iop_ctok *t,
		  char *why, size_t len);

void iop_ctok_free(struct iop_ctok *t);

/* Whether token @i is the punctuator or identifier @s. */
bool iop_tok_is(const struct iop_ctok *t, size_t i, const char *s);

/* Whether identifier token @i is a C keyword. */
bool iop_tok_keyword(const struct iop_ctok *t, size_t i);

#endif
