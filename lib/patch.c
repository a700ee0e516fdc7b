// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The patches applied to a source tree (see patch.h): one pass over the
 * lines, a state per place in a unified diff. patch(1) reads far more
 * than this: context, normal and ed diffs anywhere in the text, headers
 * indented or nested, git's rename, copy, mode and binary headers, a
 * symbolic link made from a hunk's text. A dry run of it shows none of
 * that (it makes no link), so nothing of it is left to patch(1): every
 * line is placed here or the patch is refused, and patch(1) gets the
 * copy written from what was placed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "patch.h"
#include "quote.h"
#include "why.h"

enum where {
	W_TEXT,		/* before a file's diff, or between two */
	W_GIT,		/* after "diff --git", in git's extended header */
	W_OLD,		/* after "---": "+++" must follow */
	W_HUNKS,	/* after "+++" or a hunk: a hunk, or the file's end */
	W_BODY,		/* in a hunk: lines still to come */
};

struct reader {
	enum where at;
	const char *reason;	/* why the patch is refused; NULL: not */
	/* the file being read */
	bool git, git_new, git_deleted;
	char git_mode[8];
	char *git_name;		/* the -p1 name of its "diff --git" line */
	size_t hunks;
	uint64_t old_left, new_left;
	bool after_body;	/* the last line was a hunk's: "\ ..." may follow */
	/* the copy for patch(1), written only once all is read */
	char *out;
	size_t out_len, out_cap;
	bool out_failed;
	struct iop_patch *p;
	size_t names_cap;
};

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static void emit(struct reader *r, const char *s, size_t n)
{
	if (r->out_failed)
		return;
	if (r->out_len + n + 1 > r->out_cap) {
		size_t cap = (r->out_len + n + 1) * 2;
		char *b = realloc(r->out, cap);

		if (!b) {
			r->out_failed = true;
			return;
		}
		r->out = b;
		r->out_cap = cap;
	}
	memcpy(r->out + r->out_len, s, n);
	r->out_len += n;
}

static void emits(struct reader *r, const char *s)
{
	emit(r, s, strlen(s));
}

/*
 * A name of a "---", "+++" or "diff --git" line, @n bytes at @s, as
 * patch -p1 takes it (the first component stripped) in a new string;
 * NULL for /dev/null. Sets r->reason for a name that is not a relative
 * path of plain components inside the tree.
 */
static char *tree_name(struct reader *r, const char *s, size_t n)
{
	const char *rest, *c;
	char *name;

	if (n == 9 && !memcmp(s, "/dev/null", 9))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (iop_is_control(s, i) || s[i] == ' ') {
			r->reason = "a file name with a blank or a control character";
			return NULL;
		}
	}
	if (n && s[0] == '"') {
		r->reason = "a quoted file name (git quotes names with unusual bytes)";
		return NULL;
	}
	if (n && s[0] == '/') {
		r->reason = "an absolute path";
		return NULL;
	}
	rest = memchr(s, '/', n);
	if (!rest) {
		r->reason = "a file name without a directory to strip (patch -p1)";
		return NULL;
	}
	rest++;
	n -= (size_t)(rest - s);
	/* every component: not empty, not '.', not '..' */
	for (c = rest; c <= rest + n; ) {
		const char *e = memchr(c, '/', (size_t)(rest + n - c));
		size_t k = e ? (size_t)(e - c) : (size_t)(rest + n - c);

		if (!k || (k == 1 && c[0] == '.') || (k == 2 && c[0] == '.' && c[1] == '.')) {
			r->reason = "a path with an empty, '.' or '..' component";
			return NULL;
		}
		c += k + 1;
	}
	name = strndup(rest, n);
	if (!name)
		r->reason = "out of memory";
	return name;
}

static void add_name(struct reader *r, char *name)
{
	struct iop_patch *p = r->p;

	if (p->nnames == r->names_cap) {
		size_t cap = r->names_cap ? r->names_cap * 2 : 16;
		char **v = realloc(p->names, cap * sizeof(*v));

		if (!v) {
			free(name);
			r->reason = "out of memory";
			return;
		}
		p->names = v;
		r->names_cap = cap;
	}
	p->names[p->nnames++] = name;
}

/* The mode of a git header: a regular file's, or the reason it is not. */
static bool regular_mode(struct reader *r, const char *m)
{
	if (!strcmp(m, "100644") || !strcmp(m, "100755"))
		return true;
	if (!strcmp(m, "120000"))
		r->reason = "a symbolic link (mode 120000)";
	else if (!strcmp(m, "160000"))
		r->reason = "a submodule (mode 160000)";
	else
		r->reason = "a file mode other than 100644 or 100755";
	return false;
}

static bool is_binary_line(const char *l, size_t n)
{
	return starts(l, "GIT binary patch") ||
	       (starts(l, "Binary files ") && n >= 7 && !strcmp(l + n - 7, " differ"));
}

/* "diff --git a/N b/N": the name once, the same on both sides. */
static void git_start(struct reader *r, const char *l)
{
	const char *names = l + 11, *blank = strchr(names, ' ');
	char *a, *b;

	r->git = true;
	r->git_new = false;
	r->git_deleted = false;
	r->git_mode[0] = '\0';
	r->hunks = 0;
	if (!blank || strchr(blank + 1, ' ')) {
		r->reason = "a \"diff --git\" line without two names (or with a blank in a name)";
		return;
	}
	a = tree_name(r, names, (size_t)(blank - names));
	if (r->reason)
		return;
	b = tree_name(r, blank + 1, strlen(blank + 1));
	if (!r->reason && (!a || !b || strcmp(a, b)))
		r->reason = "a \"diff --git\" line naming two files (a rename or a copy)";
	free(b);
	if (r->reason) {
		free(a);
		return;
	}
	r->git_name = a;
	r->at = W_GIT;
}

/* A line of git's extended header (after "diff --git", before "---"). */
static void git_header(struct reader *r, const char *l, size_t n)
{
	const char *m;

	if (starts(l, "index ")) {
		m = l + 6 + strspn(l + 6, "0123456789abcdef");
		if (m == l + 6 || !starts(m, "..") || !strspn(m + 2, "0123456789abcdef")) {
			r->reason = "an index line that is not HASH..HASH [MODE]";
			return;
		}
		m += 2 + strspn(m + 2, "0123456789abcdef");
		if (*m == ' ')
			regular_mode(r, m + 1);
		else if (*m)
			r->reason = "an index line that is not HASH..HASH [MODE]";
	} else if (starts(l, "new file mode ") && !r->git_new && !r->git_deleted) {
		if (regular_mode(r, l + 14)) {
			r->git_new = true;
			strcpy(r->git_mode, l + 14);
		}
	} else if (starts(l, "deleted file mode ") && !r->git_new && !r->git_deleted) {
		if (regular_mode(r, l + 18)) {
			r->git_deleted = true;
			strcpy(r->git_mode, l + 18);
		}
	} else if (starts(l, "old mode ") || starts(l, "new mode ")) {
		r->reason = "a mode change";
	} else if (starts(l, "rename ") || starts(l, "copy ") || starts(l, "similarity index ")) {
		r->reason = "a rename or a copy";
	} else if (is_binary_line(l, n)) {
		r->reason = "a binary patch";
	} else if (starts(l, "--- ")) {
		r->at = W_OLD;
	} else {
		r->reason = "a line git's header of a file does not have";
	}
}

/*
 * Between two files' diffs: any text (a commit message, a mutant's
 * header), but nothing patch(1) would take for a diff of its own, even
 * indented: a line this reader cannot place is refused, not skipped.
 */
static void text_line(struct reader *r, const char *l, size_t n)
{
	const char *s = l + strspn(l, " \tX");
	const char *d;

	if (is_binary_line(l, n)) {
		r->reason = "a binary patch";
		return;
	}
	if (starts(l, "old mode ") || starts(l, "new mode ") || starts(l, "new file mode ") ||
	    starts(l, "deleted file mode ") || starts(l, "rename from ") || starts(l, "rename to ") ||
	    starts(l, "copy from ") || starts(l, "copy to ") || starts(l, "similarity index ") ||
	    (starts(l, "index ") && strspn(l + 6, "0123456789abcdef") &&
	     starts(l + 6 + strspn(l + 6, "0123456789abcdef"), ".."))) {
		r->reason = "a line of git's header of a file out of place";
		return;
	}
	if (starts(s, "--- ") || starts(s, "+++ ") || starts(s, "*** ") || starts(s, "@@ ") ||
	    starts(s, "diff --git ") || starts(s, "- --- ")) {
		r->reason = "a diff line out of place (a hunk or a header without its file, or indented)";
		return;
	}
	/* a normal or ed diff's command: 5a, 1,3d, 2c4 */
	d = s + strspn(s, "0123456789");
	if (d > s) {
		d += strspn(d, "0123456789,");
		if (*d == 'a' || *d == 'c' || *d == 'd') {
			d++;
			d += strspn(d, "0123456789,");
			if (!*d)
				r->reason = "a line of a normal or ed diff (only unified diffs are read)";
		}
	}
}

/* "+++ NAME": the file's names and its header in the copy. */
static void new_name(struct reader *r, const char *l, char *old)
{
	const char *s = l + 4, *tab = strchr(s, '\t');
	char *new = tree_name(r, s, tab ? (size_t)(tab - s) : strlen(s));
	char *name;

	if (r->reason)
		goto free_old;
	if (!old && !new) {
		r->reason = "both names /dev/null";
		goto free_old;
	}
	if (old && new && strcmp(old, new)) {
		r->reason = "a diff between two names (a rename)";
		goto free_new;
	}
	name = old ? old : new;
	if (r->git && (strcmp(name, r->git_name) || r->git_new != !old || r->git_deleted != !new)) {
		r->reason = "\"---\" and \"+++\" not as the \"diff --git\" header says";
		goto free_new;
	}
	if (r->git) {
		emits(r, "diff --git a/");
		emits(r, name);
		emits(r, " b/");
		emits(r, name);
		emits(r, "\n");
		if (r->git_mode[0]) {
			emits(r, r->git_new ? "new file mode " : "deleted file mode ");
			emits(r, r->git_mode);
			emits(r, "\n");
		}
	}
	emits(r, old ? "--- a/" : "--- /dev/null");
	emits(r, old ? old : "");
	emits(r, new ? "\n+++ b/" : "\n+++ /dev/null");
	emits(r, new ? new : "");
	emits(r, "\n");
	/* the name for the caller: one of the two, the other freed */
	if (old && new)
		free(new);
	add_name(r, name);
	r->git_new = !old;
	r->git_deleted = !new;
	r->hunks = 0;
	r->at = W_HUNKS;
	return;
free_new:
	free(new);
free_old:
	free(old);
}

/* A number of an "@@" line: at most 10^9, which no source file reaches. */
static const char *hunk_num(const char *s, uint64_t *v)
{
	const char *e = s + strspn(s, "0123456789");

	if (e == s || e - s > 10)
		return NULL;
	*v = strtoull(s, NULL, 10);
	return *v <= 1000000000 ? e : NULL;
}

/* "@@ -A[,B] +C[,D] @@[ text]": the counts of the hunk's lines. */
static void hunk_start(struct reader *r, const char *l)
{
	uint64_t a, b = 1, c, d = 1;
	const char *s = l + 4;
	char line[96];

	s = hunk_num(s, &a);
	if (s && *s == ',')
		s = hunk_num(s + 1, &b);
	if (s && starts(s, " +"))
		s = hunk_num(s + 2, &c);
	else
		s = NULL;
	if (s && *s == ',')
		s = hunk_num(s + 1, &d);
	if (!s || !starts(s, " @@") || (s[3] && s[3] != ' ')) {
		r->reason = "an \"@@\" line that is not \"@@ -A,B +C,D @@\"";
		return;
	}
	if (!b && !d) {
		r->reason = "an empty hunk";
		return;
	}
	if ((r->git_new && (a || b)) || (r->git_deleted && (c || d))) {
		r->reason = "a hunk of an added or deleted file that is not all added or all deleted";
		return;
	}
	snprintf(line, sizeof(line), "@@ -%llu,%llu +%llu,%llu @@\n", (unsigned long long)a,
		 (unsigned long long)b, (unsigned long long)c, (unsigned long long)d);
	emits(r, line);
	r->old_left = b;
	r->new_left = d;
	r->hunks++;
	r->at = W_BODY;
}

/* A line of a hunk: its counts, and the line in the copy. */
static void body_line(struct reader *r, const char *l, size_t n)
{
	bool old = false, new = false;

	switch (l[0]) {
	case ' ':
	case '\0':	/* a blank context line whose blank was stripped */
		old = true;
		new = true;
		break;
	case '-':
		old = true;
		break;
	case '+':
		new = true;
		break;
	case '\\':
		if (!r->after_body || !starts(l, "\\ "))
			r->reason = "a \"\\\" line that follows no line of a hunk";
		r->after_body = false;
		emits(r, "\\ No newline at end of file\n");
		return;
	default:
		r->reason = "the hunk ends before its \"@@\" line says";
		return;
	}
	if ((old && !r->old_left) || (new && !r->new_left)) {
		r->reason = "a hunk longer than its \"@@\" line says";
		return;
	}
	r->old_left -= old;
	r->new_left -= new;
	if (!n)
		emit(r, " ", 1);
	emit(r, l, n);
	emit(r, "\n", 1);
	r->after_body = true;
	if (!r->old_left && !r->new_left)
		r->at = W_HUNKS;
}

/* The end of a file's diff (another begins, or the patch ends). */
static void file_end(struct reader *r)
{
	if (r->at == W_GIT)
		r->reason = "a git diff without a hunk (an empty file, or a mode change alone)";
	else if (r->at == W_OLD)
		r->reason = "a \"---\" line without its \"+++\"";
	else if (r->at == W_BODY)
		r->reason = "the hunk ends before its \"@@\" line says";
	else if (r->at == W_HUNKS && !r->hunks)
		r->reason = "a file's diff without a hunk";
	free(r->git_name);
	r->git_name = NULL;
	r->git = false;
	r->at = W_TEXT;
}

static void line(struct reader *r, const char *l, size_t n, char **old)
{
	const char *tab;

	if (strlen(l) != n) {
		r->reason = "a NUL byte";
		return;
	}
	if (r->at == W_BODY) {
		body_line(r, l, n);
		return;
	}
	if (r->at == W_HUNKS) {
		if (starts(l, "@@ ")) {
			hunk_start(r, l);
			return;
		}
		if (l[0] == '\\' && r->hunks) {
			body_line(r, l, n);
			return;
		}
		/*
		 * A line of a hunk right after it ("-- " ends a mail, "---"
		 * starts the next file): patch(1) would skip it, the author
		 * meant it to be applied.
		 */
		if (r->hunks && (l[0] == '+' || l[0] == ' ' || l[0] == '-') && strcmp(l, "-- ") &&
		    !starts(l, "--- ")) {
			r->reason = "a hunk longer than its \"@@\" line says";
			return;
		}
		file_end(r);
		if (r->reason)
			return;
	}
	r->after_body = false;
	if (r->at == W_OLD) {
		if (!starts(l, "+++ ")) {
			r->reason = "a \"---\" line without its \"+++\"";
			return;
		}
		new_name(r, l, *old);
		*old = NULL;
		return;
	}
	if (r->at == W_GIT && !starts(l, "diff --git ")) {
		git_header(r, l, n);
		if (r->at != W_OLD)
			return;
	} else if (starts(l, "diff --git ")) {
		file_end(r);
		if (!r->reason)
			git_start(r, l);
		return;
	} else if (starts(l, "--- ")) {
		r->git = false;
		r->at = W_OLD;
	} else {
		text_line(r, l, n);
		return;
	}
	/* "---": the old name, kept for "+++" */
	tab = strchr(l + 4, '\t');
	*old = tree_name(r, l + 4, tab ? (size_t)(tab - l - 4) : n - 4);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names sorted, each once. */
static void unique_names(struct iop_patch *p)
{
	size_t k = 0;

	qsort(p->names, p->nnames, sizeof(*p->names), cmp_names);
	for (size_t i = 0; i < p->nnames; i++) {
		if (k && !strcmp(p->names[k - 1], p->names[i]))
			free(p->names[i]);
		else
			p->names[k++] = p->names[i];
	}
	p->nnames = k;
}

int iop_patch_read(const char *path, struct iop_patch *p, char *why, size_t len)
{
	struct reader r = { .at = W_TEXT, .p = p };
	struct iop_input in;
	char *l, *old = NULL;
	bool terminated;
	ssize_t n = 0;
	int err;

	memset(p, 0, sizeof(*p));
	err = iop_input_open(&in, path, IOP_PATCH_MAX_LINE, why, len);
	if (err)
		return err;
	while (!r.reason && (n = iop_input_line(&in, &l, &terminated, why, len)) >= 0)
		line(&r, l, (size_t)n, &old);
	free(old);
	if (!r.reason && n != -ENODATA) {
		err = (int)n;
		goto close_input;
	}
	if (!r.reason)
		file_end(&r);
	if (!r.reason && !p->nnames)
		r.reason = "no unified diff in it";
	if (!r.reason && r.out_failed)
		r.reason = "out of memory";
	if (r.reason) {
		iop_why(why, len, "%s:%zu: %s", path, in.lineno, r.reason);
		err = -EINVAL;
		goto close_input;
	}
	unique_names(p);
	p->text = r.out;
	p->text_len = r.out_len;
	r.out = NULL;
close_input:
	iop_input_close(&in);
	free(r.git_name);
	free(r.out);
	if (err)
		iop_patch_free(p);
	return err;
}

void iop_patch_free(struct iop_patch *p)
{
	for (size_t i = 0; i < p->nnames; i++)
		free(p->names[i]);
	free(p->names);
	free(p->text);
	memset(p, 0, sizeof(*p));
}
