// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tbcount: a QEMU TCG plugin that counts how often each translation block
 * of the guest runs, and writes the counts when QEMU exits. iopath ab
 * --explain attributes the blocks to kernel functions (instructions per
 * operation, A against B), and iopath coverage marks the basic blocks of
 * the fast-path files that ran (the readers are in cli/tbprof/).
 *
 * Under -icount the guest clock is the instruction count, so the plugin
 * must not change what the guest executes: the count is a TCG inline add
 * on the block's own counter (QEMU_PLUGIN_INLINE_ADD_U64), emitted after
 * the block's icount check, so no helper call, no guest instruction and no
 * change to the icount budget. Inline adds are not atomic in QEMU 7.2:
 * exact with one TCG thread (thread=single, as iopath vm runs it).
 *
 * A block is keyed by its first instruction's address, the address after
 * its last one and its instruction count: QEMU translates one address
 * again with fewer instructions when the icount budget ends inside the
 * block, and those executions are counted under their own key.
 *
 * Windows: a benchmark marks the start and the end of each measured
 * repetition with a marker instruction (iop_window_mark(), lib/window.h:
 * a 7-byte NOP, nopl 0x494f50NN(%rax), NN 01 start, 02 end; one guest
 * instruction like any other, the same in A and B). The plugin finds the
 * markers when it translates a block, user space included, and calls back
 * on their execution (a helper call, no guest instruction): at a start it
 * notes every block's count, at an end it adds what each block ran since
 * to the block's window count. So boot, mkfs and file fills, which a
 * benchmark runs outside its repetitions, stay out of the window counts.
 *
 * Arguments: out=FILE (required; created with O_EXCL|O_NOFOLLOW, never
 * an existing file), min=ADDR (hex: count only blocks at ADDR and above,
 * e.g. ffffffff80000000 for the kernel's text; default all).
 *
 * Output, one machine line each:
 *   # iopath-tbcount 1
 *   # windows N                  (start/end pairs seen)
 *   START END INSNS COUNT WINDOW (hex, hex, decimal, decimal, decimal)
 *   # total-insns N              (sum of INSNS * COUNT over the lines)
 *
 * Built by scripts/qemu-plugin.sh against the installed QEMU's
 * qemu-plugin.h, taken from its Debian source package.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct tb_entry {
	uint64_t start;
	uint64_t end;
	uint64_t count;		/* the inline add's target: never moves */
	uint64_t mark;		/* count at the open window's start */
	uint64_t window;	/* executions inside closed windows */
	uint32_t insns;
	struct tb_entry *next;	/* hash chain */
};

/* Entries come from chunks that are never moved or freed while QEMU runs. */
#define CHUNK_ENTRIES 4096

struct chunk {
	struct chunk *next;
	unsigned int used;
	struct tb_entry e[CHUNK_ENTRIES];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct chunk *chunks;
static struct tb_entry **table;
static size_t table_size;
static size_t n_entries;
static char *out_path;
static uint64_t min_addr;
static bool window_open;
static uint64_t windows;

/* nopl 0x494f50NN(%rax): NN 01 opens a window, 02 closes it. */
static const unsigned char marker[6] = { 0x0f, 0x1f, 0x80, 0x00, 0x50, 0x4f };
#define MARK_OPEN 0x01
#define MARK_CLOSE 0x02

static void window_mark(unsigned int vcpu, void *what)
{
	bool open = (uintptr_t)what == MARK_OPEN;
	struct chunk *c;
	unsigned int i;

	(void)vcpu;
	pthread_mutex_lock(&lock);
	/* A start inside a window or an end outside one is ignored: unpaired. */
	if (open != window_open) {
		for (c = chunks; c; c = c->next)
			for (i = 0; i < c->used; i++) {
				struct tb_entry *e = &c->e[i];

				if (open)
					e->mark = e->count;
				else
					e->window += e->count - e->mark;
			}
		/* Blocks first seen inside the window start from 0. */
		window_open = open;
		windows += !open;
	}
	pthread_mutex_unlock(&lock);
}

/* Marker instructions of @tb get a callback (any address: user space too). */
static void find_markers(struct qemu_plugin_tb *tb, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const unsigned char *b = qemu_plugin_insn_data(insn);

		if (qemu_plugin_insn_size(insn) != 7 || b[0] != marker[0] || b[1] != marker[1] ||
		    b[2] != marker[2] || b[4] != marker[4] || b[5] != marker[5] || b[6] != 0x49 ||
		    (b[3] != MARK_OPEN && b[3] != MARK_CLOSE))
			continue;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, window_mark, QEMU_PLUGIN_CB_NO_REGS,
						       (void *)(uintptr_t)b[3]);
	}
}

static size_t hash(uint64_t start, uint64_t end, uint32_t insns)
{
	uint64_t h = start * 0x9e3779b97f4a7c15ULL;

	h ^= (end + insns) * 0xc2b2ae3d27d4eb4fULL;
	return (size_t)(h ^ (h >> 29));
}

static int grow(void)
{
	size_t size = table_size ? table_size * 2 : 65536, i;
	struct tb_entry **t = calloc(size, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i < table_size; i++) {
		struct tb_entry *e = table[i], *next;

		for (; e; e = next) {
			size_t k = hash(e->start, e->end, e->insns) & (size - 1);

			next = e->next;
			e->next = t[k];
			t[k] = e;
		}
	}
	free(table);
	table = t;
	table_size = size;
	return 0;
}

/* The entry of a block, made on first sight; NULL when out of memory. */
static struct tb_entry *lookup(uint64_t start, uint64_t end, uint32_t insns)
{
	struct tb_entry *e;
	size_t k;

	if (n_entries >= table_size && grow())
		return NULL;
	k = hash(start, end, insns) & (table_size - 1);
	for (e = table[k]; e; e = e->next)
		if (e->start == start && e->end == end && e->insns == insns)
			return e;
	if (!chunks || chunks->used == CHUNK_ENTRIES) {
		struct chunk *c = calloc(1, sizeof(*c));

		if (!c)
			return NULL;
		c->next = chunks;
		chunks = c;
	}
	e = &chunks->e[chunks->used++];
	e->start = start;
	e->end = end;
	e->insns = insns;
	/* Seen first inside an open window: its count so far is 0. */
	e->mark = 0;
	e->next = table[k];
	table[k] = e;
	n_entries++;
	return e;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t start = qemu_plugin_tb_vaddr(tb), end;
	struct qemu_plugin_insn *last;
	struct tb_entry *e;

	(void)id;
	if (!n)
		return;
	find_markers(tb, n);
	if (start < min_addr)
		return;
	last = qemu_plugin_tb_get_insn(tb, n - 1);
	end = qemu_plugin_insn_vaddr(last) + qemu_plugin_insn_size(last);
	pthread_mutex_lock(&lock);
	e = lookup(start, end, (uint32_t)n);
	pthread_mutex_unlock(&lock);
	if (!e) {
		/* Counting on with a block missing would under-count it. */
		fprintf(stderr, "tbcount: out of memory; exiting\n");
		exit(1);
	}
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &e->count, 1);
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

/* The counts, once, when QEMU exits; a failure is said on stderr. */
static void at_exit(qemu_plugin_id_t id, void *p)
{
	char line[128];
	uint64_t total = 0;
	struct chunk *c;
	unsigned int i;
	int fd, len, err = 0;

	(void)id;
	(void)p;
	fd = open(out_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "tbcount: %s: %s\n", out_path, strerror(errno));
		return;
	}
	len = snprintf(line, sizeof(line), "# iopath-tbcount 1\n# windows %" PRIu64 "\n", windows);
	err |= write_all(fd, line, (size_t)len);
	for (c = chunks; c && !err; c = c->next) {
		for (i = 0; i < c->used && !err; i++) {
			struct tb_entry *e = &c->e[i];

			if (!e->count)
				continue;
			total += e->count * e->insns;
			len = snprintf(line, sizeof(line),
				       "%" PRIx64 " %" PRIx64 " %" PRIu32 " %" PRIu64 " %" PRIu64 "\n",
				       e->start, e->end, e->insns, e->count, e->window);
			err |= write_all(fd, line, (size_t)len);
		}
	}
	len = snprintf(line, sizeof(line), "# total-insns %" PRIu64 "\n", total);
	if (!err)
		err |= write_all(fd, line, (size_t)len);
	if (close(fd) || err)
		fprintf(stderr, "tbcount: %s: cannot be written\n", out_path);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	if (!info->system_emulation) {
		fprintf(stderr, "tbcount: system emulation only\n");
		return -1;
	}
	for (i = 0; i < argc; i++) {
		char *end;

		if (!strncmp(argv[i], "out=", 4) && argv[i][4]) {
			out_path = strdup(argv[i] + 4);
		} else if (!strncmp(argv[i], "min=", 4) && argv[i][4]) {
			errno = 0;
			min_addr = strtoull(argv[i] + 4, &end, 16);
			if (errno || *end) {
				fprintf(stderr, "tbcount: min=%s: not a hex address\n", argv[i] + 4);
				return -1;
			}
		} else {
			fprintf(stderr, "tbcount: unknown argument '%s' (out=FILE, min=ADDR)\n", argv[i]);
			return -1;
		}
	}
	if (!out_path) {
		fprintf(stderr, "tbcount: out=FILE is required\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
