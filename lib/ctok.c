// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The C tokenizer of the mutant generator (see ctok.h). One pass over the
 * bytes; brackets are matched on a stack as they come, so a brace or a
 * parenthesis without its partner is found here and the file refused.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array_size.h"
#include "ctok.h"
#include "why.h"

static const char *const puncts3[] = { "<<=", ">>=", "..." };
static const char *const puncts2[] = {
	"->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	"*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##",
};

static const char *const keywords[] = {
	"auto", "break", "case", "char", "const", "continue", "default", "do",
	"double", "else", "enum", "extern", "float", "for", "goto", "if",
	"inline", "int", "long", "register", "restrict", "return", "short",
	"signed", "sizeof", "static", "struct", "switch", "typedef", "union",
	"unsigned", "void", "volatile", "while", "_Bool", "bool", "typeof",
	"__typeof__", "_Static_assert", "static_assert", "asm", "__asm__",
	"_Alignof", "alignof", "__alignof__", "offsetof",
};

struct scan {
	struct iop_ctok *t;
	size_t cap, i;
	unsigned int line;
	const char *name;
	char *why;
	size_t len;
};

static bool ident_char(char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$')
		return true;
	return !first && c >= '0' && c <= '9';
}

static int bad(struct scan *s, unsigned int line, const char *what)
{
	iop_why(s->why, s->len, "%s:%u: %s", s->name, line, what);
	return -EINVAL;
}

static int add(struct scan *s, enum iop_tok_kind kind, size_t off, size_t n, unsigned int line)
{
	struct iop_ctok *t = s->t;

	if (t->ntoks == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		struct iop_tok *nt = realloc(t->toks, cap * sizeof(*nt));

		if (!nt) {
			iop_why(s->why, s->len, "%s: %s", s->name, strerror(ENOMEM));
			return -ENOMEM;
		}
		t->toks = nt;
		s->cap = cap;
	}
	t->toks[t->ntoks++] = (struct iop_tok){ .kind = kind, .off = off, .len = n,
						.line = line, .match = (size_t)-1 };
	return 0;
}

/* Past the comment at s->i ("/ *" or "//"); the line count kept. */
static int skip_comment(struct scan *s)
{
	const char *p = s->t->src;
	size_t n = s->t->n;
	unsigned int start = s->line;

	if (p[s->i + 1] == '/') {
		while (s->i < n && p[s->i] != '\n')
			s->i++;
		return 0;
	}
	for (s->i += 2; s->i + 1 < n && !(p[s->i] == '*' && p[s->i + 1] == '/'); s->i++)
		if (p[s->i] == '\n')
			s->line++;
	if (s->i + 1 >= n)
		return bad(s, start, "a comment that never ends");
	s->i += 2;
	return 0;
}

/* Past the literal at s->i, quoted by @q; a newline inside is an error. */
static int skip_literal(struct scan *s, char q)
{
	const char *p = s->t->src;
	size_t n = s->t->n;

	for (s->i++; s->i < n && p[s->i] != q; s->i++) {
		if (p[s->i] == '\\' && s->i + 1 < n) {
			s->i++;
			if (p[s->i] == '\n')
				s->line++;
		} else if (p[s->i] == '\n') {
			break;
		}
	}
	if (s->i >= n || p[s->i] != q)
		return bad(s, s->line, q == '"' ? "a string that never ends" :
			   "a character literal that never ends");
	s->i++;
	return 0;
}

/* Past a preprocessor line at s->i ('#' first on its line), continuations included. */
static int skip_directive(struct scan *s)
{
	const char *p = s->t->src;
	size_t n = s->t->n;
	int ret;

	while (s->i < n && p[s->i] != '\n') {
		if (p[s->i] == '\\' && s->i + 1 < n && p[s->i + 1] == '\n') {
			s->i += 2;
			s->line++;
		} else if (p[s->i] == '/' && s->i + 1 < n && (p[s->i + 1] == '*' || p[s->i + 1] == '/')) {
			ret = skip_comment(s);
			if (ret)
				return ret;
		} else if (p[s->i] == '"' || p[s->i] == '\'') {
			ret = skip_literal(s, p[s->i]);
			if (ret)
				return ret;
		} else {
			s->i++;
		}
	}
	return 0;
}

static size_t punct_len(const char *p, size_t left)
{
	for (size_t k = 0; k < ARRAY_SIZE(puncts3); k++)
		if (left >= 3 && !memcmp(p, puncts3[k], 3))
			return 3;
	for (size_t k = 0; k < ARRAY_SIZE(puncts2); k++)
		if (left >= 2 && !memcmp(p, puncts2[k], 2))
			return 2;
	return 1;
}

static int tokenize(struct scan *s)
{
	const char *p = s->t->src;
	size_t n = s->t->n;
	bool line_start = true;
	int ret;

	while (s->i < n) {
		char c = p[s->i];
		size_t start = s->i;

		if (c == '\n') {
			s->line++;
			s->i++;
			line_start = true;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			s->i++;
			continue;
		}
		if (c == '\\' && s->i + 1 < n && p[s->i + 1] == '\n') {
			s->i++;
			continue;
		}
		if (c == '/' && s->i + 1 < n && (p[s->i + 1] == '*' || p[s->i + 1] == '/')) {
			ret = skip_comment(s);
			if (ret)
				return ret;
			continue;
		}
		if (c == '#' && line_start) {
			ret = skip_directive(s);
			if (ret)
				return ret;
			continue;
		}
		line_start = false;
		if (c == '"' || c == '\'') {
			unsigned int line = s->line;

			ret = skip_literal(s, c);
			if (!ret)
				ret = add(s, IOP_TOK_STRING, start, s->i - start, line);
		} else if (ident_char(c, true)) {
			while (s->i < n && ident_char(p[s->i], false))
				s->i++;
			ret = add(s, IOP_TOK_IDENT, start, s->i - start, s->line);
		} else if ((c >= '0' && c <= '9') ||
			   (c == '.' && s->i + 1 < n && p[s->i + 1] >= '0' && p[s->i + 1] <= '9')) {
			for (s->i++; s->i < n; s->i++) {
				char d = p[s->i];

				if ((d == '+' || d == '-') && strchr("eEpP", p[s->i - 1]))
					continue;
				if (!ident_char(d, false) && d != '.')
					break;
			}
			ret = add(s, IOP_TOK_NUMBER, start, s->i - start, s->line);
		} else {
			s->i += punct_len(p + s->i, n - s->i);
			ret = add(s, IOP_TOK_PUNCT, start, s->i - start, s->line);
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* Brackets paired: each one's partner in .match; one without is an error. */
static int pair(struct scan *s)
{
	struct iop_ctok *t = s->t;
	size_t *stack, depth = 0;
	int ret = 0;

	stack = malloc((t->ntoks + 1) * sizeof(*stack));
	if (!stack) {
		iop_why(s->why, s->len, "%s: %s", s->name, strerror(ENOMEM));
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->ntoks && !ret; i++) {
		const char *open = "([{", *close = ")]}", *o, *c;
		char ch = t->src[t->toks[i].off];

		if (t->toks[i].kind != IOP_TOK_PUNCT || t->toks[i].len != 1)
			continue;
		o = strchr(open, ch);
		c = strchr(close, ch);
		if (o && ch) {
			stack[depth++] = i;
		} else if (c && ch) {
			size_t j;

			if (!depth) {
				ret = bad(s, t->toks[i].line, "a closing bracket without its opening one");
				break;
			}
			j = stack[--depth];
			if (t->src[t->toks[j].off] != open[c - close]) {
				ret = bad(s, t->toks[i].line, "a closing bracket that does not match the one opened");
				break;
			}
			t->toks[i].match = j;
			t->toks[j].match = i;
		}
	}
	if (!ret && depth)
		ret = bad(s, t->toks[stack[depth - 1]].line, "a bracket never closed");
	free(stack);
	return ret;
}

bool iop_tok_is(const struct iop_ctok *t, size_t i, const char *s)
{
	size_t n = strlen(s);

	return i < t->ntoks && t->toks[i].kind != IOP_TOK_STRING && t->toks[i].len == n &&
	       !memcmp(t->src + t->toks[i].off, s, n);
}

bool iop_tok_keyword(const struct iop_ctok *t, size_t i)
{
	if (i >= t->ntoks || t->toks[i].kind != IOP_TOK_IDENT)
		return false;
	for (size_t k = 0; k < ARRAY_SIZE(keywords); k++)
		if (iop_tok_is(t, i, keywords[k]))
			return true;
	return false;
}

/* The function bodies at file scope. */
static int find_funcs(struct scan *s)
{
	struct iop_ctok *t = s->t;
	size_t cap = 0;

	for (size_t i = 0; i < t->ntoks; i++) {
		size_t open = i, k, name = (size_t)-1;
		struct iop_func *nf;

		if (!iop_tok_is(t, i, "{")) {
			/* another bracket pair at file scope: stepped over whole */
			if (t->toks[i].match != (size_t)-1 && t->toks[i].match > i)
				i = t->toks[i].match;
			continue;
		}
		k = i;
		while (k > 0 && iop_tok_is(t, k - 1, ")")) {
			size_t lp = t->toks[k - 1].match;

			if (!lp || t->toks[lp - 1].kind != IOP_TOK_IDENT || iop_tok_keyword(t, lp - 1))
				break;
			name = lp - 1;
			k = lp - 1;
		}
		i = t->toks[open].match;
		if (name == (size_t)-1)
			continue;
		if (t->nfuncs == cap) {
			cap = cap ? cap * 2 : 64;
			nf = realloc(t->funcs, cap * sizeof(*nf));
			if (!nf) {
				iop_why(s->why, s->len, "%s: %s", s->name, strerror(ENOMEM));
				return -ENOMEM;
			}
			t->funcs = nf;
		}
		t->funcs[t->nfuncs++] = (struct iop_func){ .name = name, .open = open, .close = i };
	}
	return 0;
}

int iop_ctok_scan(const char *src, size_t n, const char *name, struct iop_ctok *t,
		  char *why, size_t len)
{
	struct scan s = { .t = t, .line = 1, .name = name, .why = why, .len = len };
	int ret;

	const char *nul = memchr(src, '\0', n);

	memset(t, 0, sizeof(*t));
	t->src = src;
	t->n = n;
	/* anywhere, a comment and a directive too: a diff carries the bytes */
	if (nul) {
		for (const char *p = src; p < nul; p++)
			s.line += *p == '\n';
		return bad(&s, s.line, "a NUL byte");
	}
	ret = tokenize(&s);
	if (!ret)
		ret = pair(&s);
	if (!ret)
		ret = find_funcs(&s);
	return ret;
}

void iop_ctok_free(struct iop_ctok *t)
{
	free(t->toks);
	free(t->funcs);
	memset(t, 0, sizeof(*t));
}
