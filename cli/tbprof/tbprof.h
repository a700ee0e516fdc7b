/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iopath tbprof: the host side of the block-counting QEMU plugin
 * (contrib/qemu-plugin/tbcount.c). Reading its counts, a kernel's
 * System.map and a list of static basic blocks; attributing executed
 * blocks to functions. cli/tbprof/tbprof_read.c reads, cli/tbprof/cmd_tbprof.c reports.
 */
#ifndef IOPATH_TBPROF_H
#define IOPATH_TBPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One executed translation block: [start, end), insns, times run, and
 * times run inside the benchmark's marked windows (lib/window.h).
 */
struct tb_block {
	uint64_t start, end;
	uint64_t insns, count, window;
};

struct tb_dump {
	struct tb_block *b;
	size_t n;
	uint64_t total;		/* the plugin's "# total-insns" */
	uint64_t windows;	/* marked windows closed ("# windows") */
};

/* Interned names: one id per distinct name, shared by every map. */
struct tb_names {
	char **name;
	size_t n, cap;
	size_t *slot;		/* open addressing: id + 1, 0 empty */
	size_t nslot;
};

/* A kernel's text symbols, sorted by address; each with its name's id. */
struct tb_sym {
	uint64_t addr;
	size_t id;
};

struct tb_map {
	struct tb_sym *s;
	size_t n;
};

/* A static basic block of a function of a file (iopath tbprof coverage). */
struct tb_sblock {
	uint64_t start, end;
	size_t file, func;	/* name ids */
};

struct tb_sblocks {
	struct tb_sblock *b;
	size_t n;
};

/*
 * Readers: 0, or 2 with "PATH:LINE: what" in @why (bad input: a line
 * that is not of the format, a file that is not a regular one, too big),
 * or 1 for memory.
 */
int tb_read_dump(const char *path, struct tb_dump *d, char *why, size_t len);
int tb_read_map(const char *path, struct tb_names *names, struct tb_map *m, char *why,
		size_t len);
int tb_read_sblocks(const char *path, struct tb_names *names, struct tb_sblocks *sb,
		    char *why, size_t len);

/* Room for @need elements of @size in *@p (capacity *@cap): 0 or -ENOMEM. */
int tb_grow(void **p, size_t *cap, size_t need, size_t size);
/* @n (1 to 16) lowercase hex digits at @s, all of them, into *@v. */
bool tb_hex(const char *s, size_t n, uint64_t *v);

/* The id of @name, added if new; (size_t)-1 when out of memory. */
size_t tb_intern(struct tb_names *names, const char *name);
/* The id of @name, or (size_t)-1 if it was never interned. */
size_t tb_lookup(const struct tb_names *names, const char *name);

/*
 * The symbol a block starting at @addr belongs to: the last at or below
 * it, or NULL below the first and more than 1 MiB past the last.
 */
const struct tb_sym *tb_sym_of(const struct tb_map *m, uint64_t addr);

/*
 * Instructions of dump @d by function name id into @insns (names->n
 * entries, added to); with @win, only those run inside the windows.
 * Blocks that run past the next symbol are counted to the function they
 * start in; their instructions are added to *@crossing.
 * Blocks no symbol takes are added to *@unknown.
 */
void tb_attribute(const struct tb_dump *d, const struct tb_map *m, bool win, double *insns,
		  double *crossing, double *unknown);

/* Whether @m has a symbol of name @id ((size_t)-1: none). */
bool tb_entry_named(const struct tb_map *m, size_t id);

/* Executions (@win: inside the windows) of the blocks of @d that start at @id's address in @m. */
double tb_entries(const struct tb_dump *d, const struct tb_map *m, size_t id, bool win);

/* iopath tbprof coverage (cli/tbprof/tbprof_cover.c): argv[0] is "coverage". */
int tb_coverage(int argc, char **argv);
/* iopath tbprof blocks (cli/tbprof/tbprof_blocks.c): argv[0] is "blocks". */
int tb_blocks(int argc, char **argv);

/* iopath tbprof lines (cli/tbprof/tbprof_lines.c): argv[0] is "lines". */
int tb_lines(int argc, char **argv);

void tb_dump_free(struct tb_dump *d);
void tb_map_free(struct tb_map *m);
void tb_names_free(struct tb_names *names);
void tb_sblocks_free(struct tb_sblocks *sb);

#endif
