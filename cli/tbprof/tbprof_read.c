// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath tbprof's readers: the block counts the QEMU plugin writes
 * (contrib/qemu-plugin/tbcount.c), a kernel's System.map and the static
 * basic blocks scripts/coverage.sh lists, each through lib/input.c
 * (regular files, bounded lines), and the attribution of executed blocks
 * to functions by address. Every file is another program's output and
 * read as hostile: a line out of format is refused with its number.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "tbprof.h"

#define LINE_MAX_BYTES 1024
#define NAME_MAX_BYTES 255
/* A block this far past the last symbol is no function's. */
#define PAST_LAST (1u << 20)

int tb_grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 1024;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	q = reallocarray(*p, c, size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

bool tb_hex(const char *s, size_t n, uint64_t *v)
{
	size_t i;

	if (!n || n > 16)
		return false;
	*v = 0;
	for (i = 0; i < n; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			*v = *v << 4 | (uint64_t)(s[i] - '0');
		else if (s[i] >= 'a' && s[i] <= 'f')
			*v = *v << 4 | (uint64_t)(s[i] - 'a' + 10);
		else
			return false;
	}
	return true;
}

static size_t str_hash(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

size_t tb_lookup(const struct tb_names *names, const char *name)
{
	size_t k;

	if (!names->nslot)
		return (size_t)-1;
	for (k = str_hash(name) & (names->nslot - 1); names->slot[k];
	     k = (k + 1) & (names->nslot - 1))
		if (!strcmp(names->name[names->slot[k] - 1], name))
			return names->slot[k] - 1;
	return (size_t)-1;
}

static int rehash(struct tb_names *names)
{
	size_t nslot = names->nslot ? names->nslot * 2 : 4096, i, k;
	size_t *slot = calloc(nslot, sizeof(*slot));

	if (!slot)
		return -1;
	for (i = 0; i < names->n; i++) {
		for (k = str_hash(names->name[i]) & (nslot - 1); slot[k]; k = (k + 1) & (nslot - 1))
			;
		slot[k] = i + 1;
	}
	free(names->slot);
	names->slot = slot;
	names->nslot = nslot;
	return 0;
}

size_t tb_intern(struct tb_names *names, const char *name)
{
	size_t id = tb_lookup(names, name), k;

	if (id != (size_t)-1)
		return id;
	if ((names->n + 1) * 2 > names->nslot && rehash(names))
		return (size_t)-1;
	if (tb_grow((void **)&names->name, &names->cap, names->n + 1, sizeof(*names->name)))
		return (size_t)-1;
	names->name[names->n] = strdup(name);
	if (!names->name[names->n])
		return (size_t)-1;
	for (k = str_hash(name) & (names->nslot - 1); names->slot[k]; k = (k + 1) & (names->nslot - 1))
		;
	names->slot[k] = ++names->n;
	return names->n - 1;
}

/* "PATH:LINE: what" into @why; returns 2 (bad input). */
static int bad(char *why, size_t len, const struct iop_input *in, const char *what)
{
	snprintf(why, len, "%s:%zu: %s", in->path, in->lineno, what);
	return 2;
}

static bool parse_hex(const char *s, uint64_t *v)
{
	return tb_hex(s, strlen(s), v);
}

static bool parse_dec(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || strlen(s) > 20 || strspn(s, "0123456789") != strlen(s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

/*
 * Split @line at single spaces into at most @max fields; the number of
 * fields, or -1 for an empty field or a byte out of the printable ASCII
 * range (names here are the kernel's symbols and source paths).
 */
static int split(char *line, size_t len, char **f, int max)
{
	int n = 0;
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)line[i] <= ' ' && line[i] != ' ')
			return -1;
		else if ((unsigned char)line[i] > '~')
			return -1;
	while (n < max) {
		char *sp = strchr(line, ' ');

		f[n++] = line;
		if (!*line || line == sp)
			return -1;
		if (!sp)
			return n;
		*sp = '\0';
		line = sp + 1;
	}
	return -1;
}

/* Open, and the per-line loop's common refusals; 0 or the exit code. */
static int next_line(struct iop_input *in, char **line, size_t *n, char *why, size_t len)
{
	bool term;
	ssize_t r = iop_input_line(in, line, &term, why, len);

	if (r == -ENODATA)
		return -1;
	if (r < 0)
		return 2;
	if (!term)
		return bad(why, len, in, "the last line has no newline (a file cut short?)");
	if (strlen(*line) != (size_t)r)
		return bad(why, len, in, "a NUL byte in the line");
	*n = (size_t)r;
	return 0;
}

int tb_read_dump(const char *path, struct tb_dump *d, char *why, size_t len)
{
	struct iop_input in;
	uint64_t sum = 0, total;
	size_t cap = 0, n;
	bool ended = false;
	char *line, *f[5];
	int rc;

	memset(d, 0, sizeof(*d));
	if (iop_input_open(&in, path, LINE_MAX_BYTES, why, len))
		return 2;
	for (;;) {
		struct tb_block b;

		rc = next_line(&in, &line, &n, why, len);
		if (rc)
			break;
		if (in.lineno == 1) {
			if (strcmp(line, "# iopath-tbcount 1")) {
				rc = bad(why, len, &in, "not block counts of the tbcount plugin (no '# iopath-tbcount 1' first)");
				break;
			}
			continue;
		}
		if (in.lineno == 2) {
			if (strncmp(line, "# windows ", 10) || !parse_dec(line + 10, &d->windows)) {
				rc = bad(why, len, &in, "expected '# windows N' second");
				break;
			}
			continue;
		}
		if (ended) {
			rc = bad(why, len, &in, "a line after '# total-insns'");
			break;
		}
		if (!strncmp(line, "# total-insns ", 14)) {
			if (!parse_dec(line + 14, &total) || total != sum) {
				rc = bad(why, len, &in, "'# total-insns' is not the sum of the blocks' instructions");
				break;
			}
			d->total = total;
			ended = true;
			continue;
		}
		if (split(line, n, f, 5) != 5 || !parse_hex(f[0], &b.start) || !parse_hex(f[1], &b.end) ||
		    !parse_dec(f[2], &b.insns) || !parse_dec(f[3], &b.count) ||
		    !parse_dec(f[4], &b.window) || b.end <= b.start || !b.insns ||
		    b.insns > b.end - b.start || !b.count || b.window > b.count) {
			rc = bad(why, len, &in, "expected 'START END INSNS COUNT WINDOW' (hex, hex, instructions, executions, inside windows)");
			break;
		}
		if (b.count > UINT64_MAX / b.insns || sum + b.count * b.insns < sum) {
			rc = bad(why, len, &in, "counts overflow 64 bits");
			break;
		}
		sum += b.count * b.insns;
		if (tb_grow((void **)&d->b, &cap, d->n + 1, sizeof(*d->b))) {
			snprintf(why, len, "%s: out of memory", path);
			rc = 1;
			break;
		}
		d->b[d->n++] = b;
	}
	if (rc < 0 && !ended) {
		snprintf(why, len, "%s: no '# total-insns' line at the end: the plugin did not finish it", path);
		rc = 2;
	}
	iop_input_close(&in);
	if (rc > 0) {
		tb_dump_free(d);
		return rc;
	}
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct tb_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Aliases: the first in the file names the address (qsort is not stable). */
	return x->id < y->id ? -1 : x->id > y->id;
}

int tb_read_map(const char *path, struct tb_names *names, struct tb_map *m, char *why,
		size_t len)
{
	struct iop_input in;
	size_t cap = 0, n, i, k;
	char *line, *f[3];
	int rc;

	memset(m, 0, sizeof(*m));
	if (iop_input_open(&in, path, LINE_MAX_BYTES, why, len))
		return 2;
	while (!(rc = next_line(&in, &line, &n, why, len))) {
		struct tb_sym s;

		if (split(line, n, f, 3) != 3 || !parse_hex(f[0], &s.addr) || strlen(f[1]) != 1 ||
		    strlen(f[2]) > NAME_MAX_BYTES) {
			rc = bad(why, len, &in, "expected a System.map line 'ADDRESS TYPE NAME'");
			break;
		}
		if (!strchr("tTwW", f[1][0]))
			continue;
		s.id = tb_intern(names, f[2]);
		if (s.id == (size_t)-1 || tb_grow((void **)&m->s, &cap, m->n + 1, sizeof(*m->s))) {
			snprintf(why, len, "%s: out of memory", path);
			rc = 1;
			break;
		}
		m->s[m->n++] = s;
	}
	iop_input_close(&in);
	if (rc > 0) {
		tb_map_free(m);
		return rc;
	}
	if (!m->n) {
		snprintf(why, len, "%s: no text symbols (not a System.map?)", path);
		return 2;
	}
	qsort(m->s, m->n, sizeof(*m->s), sym_cmp);
	for (i = k = 0; i < m->n; i++)
		if (!k || m->s[k - 1].addr != m->s[i].addr)
			m->s[k++] = m->s[i];
	m->n = k;
	return 0;
}

int tb_read_sblocks(const char *path, struct tb_names *names, struct tb_sblocks *sb,
		    char *why, size_t len)
{
	struct iop_input in;
	size_t cap = 0, n;
	char *line, *f[4];
	int rc;

	memset(sb, 0, sizeof(*sb));
	if (iop_input_open(&in, path, LINE_MAX_BYTES, why, len))
		return 2;
	while (!(rc = next_line(&in, &line, &n, why, len))) {
		struct tb_sblock b;

		if (split(line, n, f, 4) != 4 || !parse_hex(f[0], &b.start) || !parse_hex(f[1], &b.end) ||
		    b.end <= b.start || strlen(f[2]) > NAME_MAX_BYTES || strlen(f[3]) > NAME_MAX_BYTES) {
			rc = bad(why, len, &in, "expected 'START END FILE FUNCTION' (a static basic block)");
			break;
		}
		b.file = tb_intern(names, f[2]);
		b.func = tb_intern(names, f[3]);
		if (b.file == (size_t)-1 || b.func == (size_t)-1 ||
		    tb_grow((void **)&sb->b, &cap, sb->n + 1, sizeof(*sb->b))) {
			snprintf(why, len, "%s: out of memory", path);
			rc = 1;
			break;
		}
		sb->b[sb->n++] = b;
	}
	iop_input_close(&in);
	if (rc > 0) {
		tb_sblocks_free(sb);
		return rc;
	}
	if (!sb->n) {
		snprintf(why, len, "%s: no blocks", path);
		return 2;
	}
	return 0;
}

const struct tb_sym *tb_sym_of(const struct tb_map *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	if (!m->n || addr < m->s[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->s[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (lo == m->n - 1 && addr - m->s[lo].addr > PAST_LAST)
		return NULL;
	return &m->s[lo];
}

void tb_attribute(const struct tb_dump *d, const struct tb_map *m, bool win, double *insns,
		  double *crossing, double *unknown)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		const struct tb_block *b = &d->b[i];
		const struct tb_sym *s = tb_sym_of(m, b->start);
		double v = (double)b->insns * (double)(win ? b->window : b->count);

		if (!s) {
			*unknown += v;
			continue;
		}
		insns[s->id] += v;
		if (s + 1 < m->s + m->n && b->end > s[1].addr)
			*crossing += v;
	}
}

bool tb_entry_named(const struct tb_map *m, size_t id)
{
	size_t j;

	for (j = 0; j < m->n; j++)
		if (m->s[j].id == id)
			return true;
	return false;
}

double tb_entries(const struct tb_dump *d, const struct tb_map *m, size_t id, bool win)
{
	double n = 0;
	size_t i, j;

	for (j = 0; j < m->n; j++) {
		if (m->s[j].id != id)
			continue;
		for (i = 0; i < d->n; i++)
			if (d->b[i].start == m->s[j].addr)
				n += (double)(win ? d->b[i].window : d->b[i].count);
	}
	return n;
}

void tb_dump_free(struct tb_dump *d)
{
	free(d->b);
	memset(d, 0, sizeof(*d));
}

void tb_map_free(struct tb_map *m)
{
	free(m->s);
	memset(m, 0, sizeof(*m));
}

void tb_names_free(struct tb_names *names)
{
	size_t i;

	for (i = 0; i < names->n; i++)
		free(names->name[i]);
	free(names->name);
	free(names->slot);
	memset(names, 0, sizeof(*names));
}

void tb_sblocks_free(struct tb_sblocks *sb)
{
	free(sb->b);
	memset(sb, 0, sizeof(*sb));
}
