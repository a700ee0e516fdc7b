// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The mutation operators (see mutgen.h): sites found token by token in
 * each function body, and one site written as a unified diff. A site
 * whose change would not compile is still a site (the campaign classifies
 * it "did not build"); the rules below only keep out what is certain not
 * to be a change of behaviour (likely(x) -> x) or a declaration.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array_size.h"
#include "mutgen.h"

const char *const iop_mutop_names[IOP_MUT_COUNT] = {
	"negate", "relop", "off-by-one", "call-void", "call-zero", "call-arg",
	"and-or", "drop-stmt", "flag",
};

int iop_mutop_parse(const char *s, size_t n)
{
	for (int k = 0; k < IOP_MUT_COUNT; k++)
		if (strlen(iop_mutop_names[k]) == n && !memcmp(s, iop_mutop_names[k], n))
			return k;
	return -1;
}

uint64_t iop_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t iop_uniform(uint64_t *state, uint64_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, v;

	do
		v = iop_splitmix64(state);
	while (v >= limit);
	return v % n;
}

struct gen {
	const struct iop_ctok *t;
	size_t func;
	struct iop_mutsite *sites;
	size_t n, cap;
};

#define TOK(g, i)	(&(g)->t->toks[i])
#define IS(g, i, s)	iop_tok_is((g)->t, (i), (s))

static bool is_ident(const struct gen *g, size_t i)
{
	return i < g->t->ntoks && TOK(g, i)->kind == IOP_TOK_IDENT && !iop_tok_keyword(g->t, i);
}

/* Whether identifier @i is an upper-case constant: a flag's name. */
static bool is_const_name(const struct gen *g, size_t i)
{
	const char *s = g->t->src + TOK(g, i)->off;
	bool letter = false;

	if (!is_ident(g, i) || TOK(g, i)->len < 2)
		return false;
	for (size_t k = 0; k < TOK(g, i)->len; k++) {
		if (s[k] >= 'a' && s[k] <= 'z')
			return false;
		letter |= s[k] >= 'A' && s[k] <= 'Z';
	}
	return letter;
}

static int add(struct gen *g, enum iop_mutop op, size_t start, size_t end, const char *repl,
	       size_t rlen, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));

static int add(struct gen *g, enum iop_mutop op, size_t start, size_t end, const char *repl,
	       size_t rlen, unsigned int line, const char *fmt, ...)
{
	struct iop_mutsite *s;
	va_list ap;

	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 256;

		s = realloc(g->sites, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		g->sites = s;
		g->cap = cap;
	}
	s = &g->sites[g->n];
	s->repl = strndup(repl, rlen);
	if (!s->repl)
		return -ENOMEM;
	s->op = op;
	s->func = g->func;
	s->start = start;
	s->end = end;
	s->line = line;
	va_start(ap, fmt);
	vsnprintf(s->what, sizeof(s->what), fmt, ap);
	va_end(ap);
	/* the Bug line is one line of printable text */
	for (char *p = s->what; *p; p++)
		if ((unsigned char)*p < ' ' || (unsigned char)*p >= 0x7f)
			*p = ' ';
	g->n++;
	return 0;
}

/* The end (byte after) of token @i. */
static size_t tok_end(const struct gen *g, size_t i)
{
	return TOK(g, i)->off + TOK(g, i)->len;
}

static int negate(struct gen *g, size_t i)
{
	size_t lp = i + 1, rp;
	const char *src = g->t->src;
	char *r;
	int ret;

	if (!IS(g, lp, "("))
		return 0;
	rp = TOK(g, lp)->match;
	if (asprintf(&r, "(!(%.*s))", (int)(TOK(g, rp)->off - tok_end(g, lp)),
		     src + tok_end(g, lp)) < 0)
		return -ENOMEM;
	ret = add(g, IOP_MUT_NEGATE, TOK(g, lp)->off, tok_end(g, rp), r, strlen(r),
		  TOK(g, i)->line, "the condition of '%.*s' negated", (int)TOK(g, i)->len,
		  src + TOK(g, i)->off);
	free(r);
	return ret;
}

static int relop(struct gen *g, size_t i)
{
	static const char *const alt[][3] = {
		{ "<", "<=", ">=" }, { "<=", "<", ">" }, { ">", ">=", "<=" },
		{ ">=", ">", "<" }, { "==", "!=", NULL }, { "!=", "==", NULL },
	};

	for (size_t k = 0; k < ARRAY_SIZE(alt); k++) {
		if (!IS(g, i, alt[k][0]))
			continue;
		for (size_t r = 1; r < 3 && alt[k][r]; r++)
			if (add(g, IOP_MUT_RELOP, TOK(g, i)->off, tok_end(g, i), alt[k][r],
				strlen(alt[k][r]), TOK(g, i)->line, "'%s' replaced by '%s'",
				alt[k][0], alt[k][r]))
				return -ENOMEM;
	}
	return 0;
}

/* An integer constant: +1, and -1 unless 0, in its own base and suffix. */
static int constant(struct gen *g, size_t i)
{
	const char *s = g->t->src + TOK(g, i)->off;
	size_t n = TOK(g, i)->len, digits = 0;
	bool hex = n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	char text[64], *end, r[96];
	unsigned long long v;

	if (n >= sizeof(text))
		return 0;
	memcpy(text, s, n);
	text[n] = '\0';
	if (!hex && n > 1 && s[0] == '0')
		return 0;	/* octal: rare in the fast path, left alone */
	errno = 0;
	v = strtoull(text, &end, hex ? 16 : 10);
	digits = (size_t)(end - text);
	if (errno || !digits || strspn(end, "uUlL") != strlen(end))
		return 0;
	for (int d = 1; d >= -1; d -= 2) {
		if (d < 0 && !v)
			break;
		if (d > 0 && v == ULLONG_MAX)
			continue;
		snprintf(r, sizeof(r), hex ? "0x%llx%s" : "%llu%s", v + (unsigned long long)d, end);
		if (add(g, IOP_MUT_OFF_BY_ONE, TOK(g, i)->off, tok_end(g, i), r, strlen(r),
			TOK(g, i)->line, "constant %s replaced by %s", text, r))
			return -ENOMEM;
	}
	return 0;
}

static bool length_name(const char *s, size_t n)
{
	static const char *const names[] = { "len", "length", "size", "count", "bytes", "nr" };

	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		size_t l = strlen(names[k]);

		if (n == l && !memcmp(s, names[k], l))
			return true;
		if (n > l + 1 && s[n - l - 1] == '_' && !memcmp(s + n - l, names[k], l))
			return true;
	}
	return false;
}

/* Tokens after which an operand is written to, not read. */
static bool written_next(const struct gen *g, size_t i)
{
	static const char *const ops[] = {
		"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--",
		"(", "[", ".", "->",
	};

	for (size_t k = 0; k < ARRAY_SIZE(ops); k++)
		if (IS(g, i, ops[k]))
			return true;
	return false;
}

/*
 * A length as an operand, ending at token @i (a variable, or a member:
 * a->b.len): (x - 1); the right operand of a shift: (x + 1).
 */
static int operand(struct gen *g, size_t i, size_t open)
{
	const struct iop_tok *t = TOK(g, i);
	const char *src = g->t->src;
	size_t first = i;
	bool shift;
	char *r;
	int ret;

	if (!is_ident(g, i) || written_next(g, i + 1))
		return 0;
	while (first >= open + 3 && (IS(g, first - 1, "->") || IS(g, first - 1, ".")) &&
	       is_ident(g, first - 2))
		first -= 2;
	if (IS(g, first - 1, "->") || IS(g, first - 1, ".") || IS(g, first - 1, ")") ||
	    IS(g, first - 1, "]") || IS(g, first - 1, "&") || IS(g, first - 1, "++") ||
	    IS(g, first - 1, "--") || is_ident(g, first - 1) ||
	    (iop_tok_keyword(g->t, first - 1) && !IS(g, first - 1, "return") &&
	     !IS(g, first - 1, "case")))
		return 0;
	shift = IS(g, first - 1, "<<") || IS(g, first - 1, ">>");
	if (!shift && !length_name(src + t->off, t->len))
		return 0;
	if (asprintf(&r, "(%.*s %c 1)", (int)(tok_end(g, i) - TOK(g, first)->off),
		     src + TOK(g, first)->off, shift ? '+' : '-') < 0)
		return -ENOMEM;
	ret = add(g, IOP_MUT_OFF_BY_ONE, TOK(g, first)->off, tok_end(g, i), r, strlen(r), t->line,
		  "%s '%.*s' replaced by %s", shift ? "shift" : "length",
		  (int)(tok_end(g, i) - TOK(g, first)->off), src + TOK(g, first)->off, r);
	free(r);
	return ret;
}

static bool stmt_start(const struct gen *g, size_t i)
{
	return IS(g, i - 1, ";") || IS(g, i - 1, "{") || IS(g, i - 1, "}");
}

/* The first argument of the call whose '(' is @lp: tokens [@lp + 1, *@last]. */
static bool first_arg(const struct gen *g, size_t lp, size_t *last)
{
	size_t rp = TOK(g, lp)->match, k = lp + 1;

	if (k == rp)
		return false;
	while (k < rp && !IS(g, k, ",")) {
		if (TOK(g, k)->match != (size_t)-1 && TOK(g, k)->match > k)
			k = TOK(g, k)->match;
		*last = k++;
	}
	return TOK(g, lp + 1)->kind != IOP_TOK_STRING;
}

static int call(struct gen *g, size_t i)
{
	static const char *const value_prev[] = { "=", "return", "(", "!", "&&", "||", ",", "?" };
	static const char *const same[] = {
		"likely", "unlikely", "READ_ONCE", "data_race", "WARN_ON", "WARN_ON_ONCE", "WARN",
		"WARN_ONCE",
	};
	const char *src = g->t->src, *name = src + TOK(g, i)->off;
	int nlen = (int)TOK(g, i)->len;
	size_t lp = i + 1, rp, last = lp;
	bool value = false;

	if (!is_ident(g, i) || !IS(g, lp, "(") || IS(g, i - 1, ".") || IS(g, i - 1, "->") ||
	    is_ident(g, i - 1))
		return 0;
	rp = TOK(g, lp)->match;
	if (stmt_start(g, i) && IS(g, rp + 1, ";")) {
		if (!strncmp(name, "DEFINE_", 7) || !strncmp(name, "DECLARE_", 8))
			return 0;
		return add(g, IOP_MUT_CALL_VOID, TOK(g, i)->off, tok_end(g, rp + 1), "", 0,
			   TOK(g, i)->line, "the call of %.*s() removed", nlen, name) ? -ENOMEM : 0;
	}
	for (size_t k = 0; k < ARRAY_SIZE(value_prev); k++)
		value |= IS(g, i - 1, value_prev[k]);
	if (!value || IS(g, rp + 1, ".") || IS(g, rp + 1, "->") || IS(g, rp + 1, "[") ||
	    IS(g, rp + 1, "(") || IS(g, rp + 1, "{"))
		return 0;
	if (add(g, IOP_MUT_CALL_ZERO, TOK(g, i)->off, tok_end(g, rp), "0", 1, TOK(g, i)->line,
		"the value of %.*s() replaced by 0", nlen, name))
		return -ENOMEM;
	for (size_t k = 0; k < ARRAY_SIZE(same); k++)
		if (IS(g, i, same[k]))
			return 0;
	if (!first_arg(g, lp, &last))
		return 0;
	return add(g, IOP_MUT_CALL_ARG, TOK(g, i)->off, tok_end(g, rp), src + TOK(g, lp + 1)->off,
		   tok_end(g, last) - TOK(g, lp + 1)->off, TOK(g, i)->line,
		   "the value of %.*s() replaced by its first argument", nlen, name) ? -ENOMEM : 0;
}

/* A declaration starts with a type: a type keyword, or "T x", "T *x". */
static bool declaration(const struct gen *g, size_t i)
{
	static const char *const types[] = {
		"const", "struct", "union", "enum", "unsigned", "signed", "int", "long", "char",
		"short", "bool", "_Bool", "void", "static", "volatile", "typeof", "__typeof__",
		"register", "extern", "double", "float",
	};

	for (size_t k = 0; k < ARRAY_SIZE(types); k++)
		if (IS(g, i, types[k]))
			return true;
	if (!is_ident(g, i))
		return false;
	if (is_ident(g, i + 1))
		return true;
	return IS(g, i + 1, "*") && is_ident(g, i + 2) &&
	       (IS(g, i + 3, "=") || IS(g, i + 3, ";") || IS(g, i + 3, ",") || IS(g, i + 3, "["));
}

static int drop_stmt(struct gen *g, size_t i, size_t close)
{
	static const char *const not_expr[] = {
		"return", "break", "continue", "goto", "if", "else", "for", "while", "do",
		"switch", "case", "default", "asm", "__asm__", "_Static_assert", "static_assert",
	};
	size_t k = i;

	if (!stmt_start(g, i) || IS(g, i, ";") || IS(g, i, "{") || IS(g, i, "}") ||
	    declaration(g, i) || IS(g, i + 1, ":"))
		return 0;
	for (size_t j = 0; j < ARRAY_SIZE(not_expr); j++)
		if (IS(g, i, not_expr[j]))
			return 0;
	/* a call of its own is call-void's */
	if (is_ident(g, i) && IS(g, i + 1, "(") && IS(g, TOK(g, i + 1)->match + 1, ";"))
		return 0;
	while (k < close && !IS(g, k, ";")) {
		if (IS(g, k, "{") || IS(g, k, "}"))
			return 0;
		if (TOK(g, k)->match != (size_t)-1 && TOK(g, k)->match > k)
			k = TOK(g, k)->match;
		k++;
	}
	if (k >= close)
		return 0;
	return add(g, IOP_MUT_DROP_STMT, TOK(g, i)->off, tok_end(g, k), "", 0, TOK(g, i)->line,
		   "the statement '%.*s' removed",
		   (int)(tok_end(g, k) - TOK(g, i)->off > 60 ? 60 : tok_end(g, k) - TOK(g, i)->off),
		   g->t->src + TOK(g, i)->off) ? -ENOMEM : 0;
}

static int flag(struct gen *g, size_t i)
{
	const char *src = g->t->src;
	const struct iop_tok *t = TOK(g, i);

	if (IS(g, i, "|=") && is_const_name(g, i + 1) && IS(g, i + 2, ";"))
		return add(g, IOP_MUT_FLAG, t->off, TOK(g, i + 1)->off, "&= ~", 4, t->line,
			   "%.*s cleared instead of set", (int)TOK(g, i + 1)->len,
			   src + TOK(g, i + 1)->off) ? -ENOMEM : 0;
	if (IS(g, i, "&=") && IS(g, i + 1, "~") && is_const_name(g, i + 2) && IS(g, i + 3, ";"))
		return add(g, IOP_MUT_FLAG, t->off, TOK(g, i + 2)->off, "|= ", 3, t->line,
			   "%.*s set instead of cleared", (int)TOK(g, i + 2)->len,
			   src + TOK(g, i + 2)->off) ? -ENOMEM : 0;
	if (IS(g, i, "|") && is_const_name(g, i + 1) && !written_next(g, i + 2))
		return add(g, IOP_MUT_FLAG, tok_end(g, i - 1), tok_end(g, i + 1), "", 0, t->line,
			   "%.*s left out of the flags", (int)TOK(g, i + 1)->len,
			   src + TOK(g, i + 1)->off) ? -ENOMEM : 0;
	if (is_const_name(g, i) && IS(g, i + 1, "|") && !written_next(g, i + 1) &&
	    (IS(g, i - 1, "=") || IS(g, i - 1, "(") || IS(g, i - 1, ",") || IS(g, i - 1, "return")))
		return add(g, IOP_MUT_FLAG, t->off, TOK(g, i + 2)->off, "", 0, t->line,
			   "%.*s left out of the flags", (int)t->len, src + t->off) ? -ENOMEM : 0;
	return 0;
}

static int body(struct gen *g, const struct iop_func *f)
{
	int ret = 0;

	for (size_t i = f->open + 1; i < f->close && !ret; i++) {
		const struct iop_tok *t = TOK(g, i);

		if (t->kind == IOP_TOK_STRING)
			continue;
		if (IS(g, i, "if") || IS(g, i, "while"))
			ret = negate(g, i);
		if (!ret)
			ret = relop(g, i);
		if (!ret && t->kind == IOP_TOK_NUMBER)
			ret = constant(g, i);
		if (!ret)
			ret = operand(g, i, f->open);
		if (!ret)
			ret = call(g, i);
		if (!ret && (IS(g, i, "&&") || IS(g, i, "||")))
			ret = add(g, IOP_MUT_AND_OR, t->off, tok_end(g, i), IS(g, i, "&&") ? "||" : "&&",
				  2, t->line, "'%s' replaced by '%s'", IS(g, i, "&&") ? "&&" : "||",
				  IS(g, i, "&&") ? "||" : "&&") ? -ENOMEM : 0;
		if (!ret)
			ret = drop_stmt(g, i, f->close);
		if (!ret)
			ret = flag(g, i);
	}
	return ret;
}

int iop_mutgen_sites(const struct iop_ctok *t, struct iop_mutsite **sites, size_t *n)
{
	struct gen g = { .t = t };
	int ret = 0;

	for (size_t f = 0; f < t->nfuncs && !ret; f++) {
		g.func = f;
		ret = body(&g, &t->funcs[f]);
	}
	if (ret) {
		iop_mutsites_free(g.sites, g.n);
		g.sites = NULL;
		g.n = 0;
	}
	*sites = g.sites;
	*n = g.n;
	return ret;
}

void iop_mutsites_free(struct iop_mutsite *sites, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(sites[i].repl);
	free(sites);
}

void iop_mutgen_func_name(const struct iop_ctok *t, size_t f, char *buf, size_t len)
{
	const struct iop_tok *n = &t->toks[t->funcs[f].name], *a = n + 2;
	const char *s = t->src + n->off;
	bool compat = n->len > 7 && !memcmp(s, "COMPAT_", 7);
	const char *rest = compat ? s + 7 : s;
	size_t rlen = compat ? n->len - 7 : n->len;

	if (rlen == 15 && !memcmp(rest, "SYSCALL_DEFINE", 14) && rest[14] >= '0' &&
	    rest[14] <= '6' && t->funcs[f].name + 2 < t->ntoks && a->kind == IOP_TOK_IDENT) {
		snprintf(buf, len, "__do_%ssys_%.*s", compat ? "compat_" : "", (int)a->len,
			 t->src + a->off);
		return;
	}
	snprintf(buf, len, "%.*s", (int)n->len, s);
}

/* Whether @s[0, n) is only white space. */
static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr(" \t\r\f\v\n", s[i]))
			return false;
	return true;
}

static unsigned int count_lines(const char *s, size_t n)
{
	unsigned int c = 0;

	for (size_t i = 0; i < n; i++)
		c += s[i] == '\n';
	return c;
}

static void prefixed(FILE *f, char c, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t l = (size_t)(nl - (s + i)) + 1;

		fputc(c, f);
		fwrite(s + i, 1, l, f);
		i += l;
	}
}

int iop_mutgen_diff(FILE *f, const struct iop_ctok *t, const char *path,
		    const struct iop_mutsite *s)
{
	const char *src = t->src;
	size_t n = t->n, ls = s->start, le = s->end > s->start ? s->end - 1 : s->start;
	size_t cs, ce, nlen;
	unsigned int before = 0, after = 0, a, olines, nlines;
	char *nw;

	while (ls > 0 && src[ls - 1] != '\n')
		ls--;
	while (le < n && src[le] != '\n')
		le++;
	if (le >= n)
		return -EINVAL;
	le++;
	/* the new lines: the old ones with the range replaced; nothing if blank */
	if (asprintf(&nw, "%.*s%s%.*s", (int)(s->start - ls), src + ls, s->repl,
		     (int)(le - s->end), src + s->end) < 0)
		return -ENOMEM;
	nlen = strlen(nw);
	if (blank(nw, nlen))
		nlen = 0;
	cs = ls;
	while (cs > 0 && before < 3) {
		cs--;
		while (cs > 0 && src[cs - 1] != '\n')
			cs--;
		before++;
	}
	ce = le;
	while (ce < n && after < 3) {
		const char *nl = memchr(src + ce, '\n', n - ce);

		if (!nl)
			break;
		ce = (size_t)(nl - src) + 1;
		after++;
	}
	a = count_lines(src, cs) + 1;
	olines = count_lines(src + ls, le - ls);
	nlines = count_lines(nw, nlen);
	fprintf(f, "--- a/%s\n+++ b/%s\n", path, path);
	fprintf(f, "@@ -%u,%u +%u,%u @@\n", a, before + olines + after,
		before + nlines + after ? a : a - 1, before + nlines + after);
	prefixed(f, ' ', src + cs, ls - cs);
	prefixed(f, '-', src + ls, le - ls);
	prefixed(f, '+', nw, nlen);
	prefixed(f, ' ', src + le, ce - le);
	free(nw);
	return 0;
}
