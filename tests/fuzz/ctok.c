// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the C tokenizer and the mutation operators of iopath
 * mutant generate (lib/ctok.c, lib/mutgen.c). The input is a C file. A
 * finding is a crash, a sanitizer report, a token outside the input or
 * out of order, a bracket whose partner is not its partner, a function
 * body that is not a pair of braces, a site outside its function's body,
 * or a diff that is not a unified diff of one hunk.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctok.h"
#include "fuzz.h"
#include "mutgen.h"

static void finding(const char *what)
{
	fprintf(stderr, "ctok: %s\n", what);
	abort();
}

static void check_tokens(const struct iop_ctok *t, size_t size)
{
	for (size_t i = 0; i < t->ntoks; i++) {
		const struct iop_tok *k = &t->toks[i];

		if (!k->len || k->off + k->len > size)
			finding("a token outside the input");
		if (i && k->off < t->toks[i - 1].off + t->toks[i - 1].len)
			finding("tokens out of order");
		if (k->match != (size_t)-1 &&
		    (k->match >= t->ntoks || t->toks[k->match].match != i))
			finding("a bracket's partner is not its partner");
	}
	for (size_t f = 0; f < t->nfuncs; f++) {
		const struct iop_func *fn = &t->funcs[f];

		if (fn->open >= fn->close || fn->close >= t->ntoks || !iop_tok_is(t, fn->open, "{") ||
		    !iop_tok_is(t, fn->close, "}") || t->toks[fn->open].match != fn->close ||
		    fn->name >= fn->open || t->toks[fn->name].kind != IOP_TOK_IDENT)
			finding("a function body that is not a pair of braces after a name");
	}
}

static void check_diff(const char *d, size_t n)
{
	const char *l, *end = d + n, *nl;

	if (n < 24 || strncmp(d, "--- a/x.c\n+++ b/x.c\n@@ -", 24))
		finding("a diff without its file lines and hunk header");
	if (d[n - 1] != '\n')
		finding("a diff not ending with a newline");
	nl = memchr(d + 20, '\n', n - 20);
	for (l = nl + 1; l < end; l = nl + 1) {
		if (*l != ' ' && *l != '-' && *l != '+')
			finding("a diff line that is neither context, removed nor added");
		nl = memchr(l, '\n', (size_t)(end - l));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iop_mutsite *sites;
	struct iop_ctok t;
	size_t n;
	char why[256];

	if (iop_ctok_scan((const char *)data, size, "x.c", &t, why, sizeof(why)) ||
	    iop_mutgen_sites(&t, &sites, &n)) {
		iop_ctok_free(&t);
		return 0;
	}
	check_tokens(&t, size);
	for (size_t i = 0; i < n && i < 256; i++) {
		const struct iop_func *fn = &t.funcs[sites[i].func];
		char *d = NULL;
		size_t dn = 0;
		FILE *f;

		if (sites[i].start <= t.toks[fn->open].off || sites[i].end > t.toks[fn->close].off ||
		    sites[i].start > sites[i].end)
			finding("a site outside its function's body");
		f = open_memstream(&d, &dn);
		if (!f)
			continue;
		if (!iop_mutgen_diff(f, &t, "x.c", &sites[i]) && !fclose(f))
			check_diff(d, dn);
		else
			fclose(f);
		free(d);
	}
	iop_mutsites_free(sites, n);
	iop_ctok_free(&t);
	return 0;
}
