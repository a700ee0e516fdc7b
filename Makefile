# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath: kselftest-format self-tests and microbenchmarks for the Linux file
# I/O fast path. `make help` lists the targets.

BUILD := build
O := $(abspath $(BUILD))
PREFIX ?= /usr/local
DESTDIR ?=

# shq VALUE: VALUE as one shell word, in single quotes (each ' as '\'').
# Every variable a user may set reaches a recipe through it: the shell
# never parses a path (KSRC, O, PREFIX, ...) as code. The *_ARGS lists
# are split at blanks, each word quoted (shq_words): an argument cannot
# hold a blank, and nothing in one is run.
shq = '$(subst ','\'',$(1))'
shq_words = $(foreach w,$(1),$(call shq,$(w)))

# Make cannot name a target with a blank, a colon or a quote in it: such
# a build directory is refused before anything is built into it.
ifneq ($(words $(O))$(shell printf %s $(call shq,$(O)) | LC_ALL=C tr -d '/A-Za-z0-9._+,@=~\200-\377-' | wc -c),10)
$(error O (or BUILD): the build directory must be one path of letters, digits and /._+,@=~- (no blank, quote or shell character))
endif
ifneq ($(LAVA_OUT),)
ifneq ($(words $(LAVA_OUT))$(shell printf %s $(call shq,$(LAVA_OUT)) | LC_ALL=C tr -d '/A-Za-z0-9._+,@=~\200-\377-' | wc -c),10)
$(error LAVA_OUT: the jobs' directory must be one path of letters, digits and /._+,@=~- (no blank, quote or shell character))
endif
endif

CC ?= cc
ifeq ($(origin CC),default)
CC := gcc
endif
AR ?= ar

# A job per CPU unless -j is given (make -j1 builds one thing at a time):
# make check's build is most of a minute in one job.
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)

ifeq ($(V),1)
Q :=
else
Q := @
MAKEFLAGS += --no-print-directory
endif

# SANITIZE=1: AddressSanitizer and UndefinedBehaviorSanitizer everywhere,
# selftests included.
ifeq ($(SANITIZE),1)
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif

WARN := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 $(WARN) $(SAN_FLAGS) -Ilib -Icli -Imicrobench
override LDFLAGS += $(SAN_FLAGS)
LIBS := -luring -lnuma -ljansson -lyaml -lgsl -lgslcblas -lm -lpthread

# The kselftest harness: from KSRC (a kernel tree), KSFT_SRC (a
# linux-source-*.tar.xz) or the newest /usr/src/linux-source-*.tar.xz.
# Evaluated only by the targets that need it.
KSFT_DIR = $(shell KSRC=$(call shq,$(KSRC)) KSFT_SRC=$(call shq,$(KSFT_SRC)) scripts/ksft-harness.sh $(call shq,$(O)) || echo /nonexistent-harness)

LIB_SRCS := $(wildcard lib/*.c)
LIB_HDRS := $(wildcard lib/*.h)
LIB_OBJS := $(LIB_SRCS:%.c=$(O)/%.o)
# cli/: the dispatcher and single-file commands; cli/NAME/: a command's family
CLI_SRCS := $(wildcard cli/*.c cli/*/*.c) $(wildcard microbench/*.c)
CLI_HDRS := $(wildcard cli/*.h cli/*/*.h microbench/*.h)
CLI_OBJS := $(CLI_SRCS:%.c=$(O)/%.o)
UNIT_SRCS := $(wildcard tests/*_test.c)
UNIT_BINS := $(UNIT_SRCS:tests/%.c=$(O)/tests/%)
# Harness binaries the tests/*.sh scripts run (not run by make check itself).
HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPER_BINS := $(HELPER_SRCS:tests/%.c=$(O)/tests/%)

.PHONY: all deps lib cli selftests units run check kselftest kselftest-install \
	kselftest-gen_tar bench install clean help fuzz fuzz-build fuzz-regress

# The installed kselftest tree too: every path starts the selftests from
# it, through scripts/selftest-runner.sh.
all: deps cli selftests units fuzz-regress kselftest-install

# Building needs compilers and -dev packages only; the targets that run
# something (run, check, bench, kselftest, repro) add what they run. Every
# compilation waits for it (order-only, so nothing is rebuilt for it): the
# jobs run at once, and a fresh machine has no headers before it.
deps:
	$(Q)scripts/deps.sh build

lib: $(O)/libiopath.a
cli: $(O)/iopath

$(O)/%.o: %.c $(LIB_HDRS) $(CLI_HDRS) | deps
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -DIOPATH_GIT='"$(or $(shell git describe --always --dirty 2>/dev/null | LC_ALL=C tr -cd 'A-Za-z0-9._+-'),unknown)"' -c $< -o $@

$(O)/libiopath.a: $(LIB_OBJS)
	$(if $(Q),@echo "  AR      $@")
	$(Q)$(AR) rcs $@ $^

$(O)/iopath: $(CLI_OBJS) $(O)/libiopath.a
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LIBS) -o $@

# The suite's own unit tests use the kselftest harness too.
$(O)/tests/%: tests/%.c $(O)/libiopath.a $(LIB_HDRS) | deps
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -isystem $(call shq,$(KSFT_DIR)) $< $(O)/libiopath.a $(LDFLAGS) $(LIBS) -o $@

$(O)/tests/helpers/%: tests/helpers/%.c $(O)/libiopath.a $(LIB_HDRS) $(wildcard selftests/*.h) | deps
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -isystem $(call shq,$(KSFT_DIR)) $< $(O)/libiopath.a $(LDFLAGS) $(LIBS) -o $@

units: $(UNIT_BINS) $(HELPER_BINS)

# ---- fuzzing ------------------------------------------------------------
# tests/fuzz/<target>.c: libFuzzer targets (clang, -fsanitize=fuzzer with
# ASan and UBSan) over the records reader and compare's output, the
# profile parser, the known-failures list and the verdict engine on TAP
# (lib/tap*.c, in process), the shell quoting and escaping of lib/quote.c,
# repro's bug names (through scripts/repro.sh), the machine lines' reader
# (lib/verdict.c), the patches applied to a source tree (lib/patch.c),
# the bounded YAML loader (lib/yaml_bound.c) and the C tokenizer and
# mutation operators of iopath mutant generate. `make fuzz FUZZ_SECONDS=N`
# runs each for N seconds from seeds made of tests/fixtures; the same
# targets built with a plain main() (tests/fuzz/driver.c) run every corpus
# once in make check.
FUZZ_TARGETS ?= records profile known_failures tap quote repro_name verdict_lines mutant_header lava_log export \
	mutant_classify patch_check yaml_bound ctok
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_O := $(O)/fuzz
FUZZ_CFLAGS := -std=gnu11 -g -O1 $(WARN) -Ilib -Icli -Imicrobench -Itests/fuzz \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_SRCS := $(LIB_SRCS) $(filter-out cli/main.c,$(CLI_SRCS)) tests/fuzz/fuzz_common.c
FUZZ_OBJS := $(FUZZ_SRCS:%.c=$(FUZZ_O)/obj/%.o)
REGRESS_OBJS := $(filter-out $(O)/cli/main.o,$(CLI_OBJS)) $(O)/tests/fuzz/fuzz_common.o \
	$(O)/tests/fuzz/driver.o $(O)/libiopath.a

$(FUZZ_O)/obj/%.o: %.c $(LIB_HDRS) $(CLI_HDRS) tests/fuzz/fuzz.h
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -DIOPATH_GIT='"fuzz"' -c $< -o $@

$(FUZZ_O)/bin/%: tests/fuzz/%.c $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  FUZZLD  $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -DFUZZ_TOP='"$(CURDIR)"' -fsanitize=fuzzer $^ $(LIBS) -o $@

$(O)/tests/fuzz/%.o: tests/fuzz/%.c tests/fuzz/fuzz.h $(LIB_HDRS) $(CLI_HDRS) | deps
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -Itests/fuzz -DFUZZ_TOP='"$(CURDIR)"' -c $< -o $@

$(O)/fuzz-regress/%: $(O)/tests/fuzz/%.o $(REGRESS_OBJS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LIBS) -o $@

# No intermediate object is removed: nothing is rebuilt next time, and
# nothing prints after make check's last line.
.SECONDARY:

fuzz-regress: $(FUZZ_TARGETS:%=$(O)/fuzz-regress/%)

fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_O)/bin/%)

fuzz: fuzz-build
	$(Q)scripts/deps.sh clang
	$(Q)scripts/fuzz.sh $(FUZZ_O) $(call shq,$(FUZZ_SECONDS)) $(call shq_words,$(FUZZ_TARGETS))

selftests: deps
	@mkdir -p $(O)/selftests
	$(Q)$(MAKE) -C selftests KSFT_DIR=$(call shq,$(KSFT_DIR)) OUTPUT=$(O)/selftests \
		CC=$(call shq,$(CC)) IOPATH_CFLAGS="$(SAN_FLAGS)" IOPATH_LDFLAGS="$(SAN_FLAGS)" $(if $(Q),,V=1)

# The installed kselftest layout: run_kselftest.sh, kselftest/,
# kselftest-list.txt and the iopath collection with config and settings.
KSFT_INSTALL := $(O)/kselftest
kselftest-install: selftests
	$(Q)scripts/kselftest-install.sh $(call shq,$(KSFT_DIR)) $(O)/selftests $(KSFT_INSTALL)

kselftest: deps kselftest-install
	$(Q)scripts/deps.sh run
	$(Q)scripts/kselftest-run.sh $(KSFT_INSTALL) $(call shq_words,$(KSFT_ARGS))

kselftest-gen_tar: kselftest-install
	$(Q)tar -C $(KSFT_INSTALL) -czf $(O)/kselftest.tar.gz .
	@echo "$(O)/kselftest.tar.gz"

# The selftests in a QEMU guest booting KERNEL: a bzImage, a Debian kernel
# .deb or a Debian package name (docs/vm.md). VM_ARGS go to scripts/vm.sh,
# e.g. VM_ARGS="--timeout 900 -- -t iopath:folio_batch_test".
.PHONY: vm-check
vm-check: kselftest-install
	$(Q)if [ -z $(call shq,$(KERNEL)) ]; then echo "usage: make vm-check KERNEL=<bzImage | .deb | package> [VM_ARGS=...]" >&2; exit 2; fi
	$(Q)scripts/deps.sh vm
	$(Q)scripts/vm.sh --build $(O) --kernel $(call shq,$(KERNEL)) $(call shq_words,$(VM_ARGS))

# LAVA jobs (docs/fleet.md): one per KERNEL (bzImages, .debs or package
# names, blank-separated) into LAVA_OUT, for a lab (LAVA_ARGS="--url-base
# URL --device-type T") or for lava-run here. make lava-run runs them with
# lava-run on configs/lava/qemu-local.yaml, one at a time, and gives each
# job's verdict (JOB.tap, JOB.log beside it). Neither runs in make check.
LAVA_OUT ?= $(O)/lava
# iopath lava jobs checks its arguments, makes LAVA_OUT (not its parent)
# and writes the jobs; the job files it prints are what lava-run runs (no
# list file: one written by the shell would follow a link at its name).
LAVA_JOBS = $(O)/iopath lava jobs --build $(O) --out $(call shq,$(LAVA_OUT)) \
	$(foreach k,$(KERNEL),--kernel $(call shq,$(k))) $(call shq_words,$(LAVA_ARGS))
LAVA_USAGE = if [ -z $(call shq,$(KERNEL)) ]; then \
	echo "usage: make $@ KERNEL=<bzImage | .deb | package>... [LAVA_ARGS=...]" >&2; exit 2; fi
.PHONY: lava-jobs lava-run
lava-jobs: cli kselftest-install
	$(Q)$(LAVA_USAGE)
	$(Q)scripts/deps.sh vm
	$(Q)$(LAVA_JOBS)

# The job names are slugs of the kernels' names, and LAVA_OUT has no
# blank (refused above): the printed paths split into words as they are.
lava-run: cli kselftest-install
	$(Q)$(LAVA_USAGE)
	$(Q)scripts/deps.sh vm
	$(Q)scripts/deps.sh lava
	$(Q)jobs=$$($(LAVA_JOBS)) && $(O)/iopath lava run $$jobs

# The mutation campaign (docs/efficacy.md): build a small kernel from KSRC
# (default: Debian unstable's newest linux-source-7.x), then each mutant of
# configs/mutants/. MUTATE_ARGS go to scripts/mutate.sh, e.g.
# MUTATE_ARGS="01-iter-fbatch-not-released --pristine-runs 1".
.PHONY: mutate
mutate: kselftest-install
	$(Q)scripts/deps.sh vm mutate
	$(Q)scripts/mutate.sh --build $(O) $(if $(KSRC),--ksrc $(call shq,$(KSRC))) $(call shq_words,$(MUTATE_ARGS))

# Kernel A/B (docs/ab.md): two kernels booted interleaved under QEMU, the
# benchmark in each boot, one verdict. AB_ARGS go to scripts/ab.sh, e.g.
# AB_ARGS="--ksrc debian --patch my.patch --profile ab-read-readv".
.PHONY: ab plants ab-calibrate
ab: all
	$(Q)scripts/deps.sh vm mutate
	$(Q)scripts/ab.sh --build $(O) $(call shq_words,$(AB_ARGS))

# The planted changes of iopath ab --calibrate, generated from the one
# template in scripts/plant.sh (tests/plant.sh checks that they are).
plants:
	$(Q)scripts/plant.sh configs/mutants/perf

# iopath ab --calibrate: the planted kernels against the tree as it is,
# for the profile of AB_ARGS (docs/ab.md, "Planted changes").
ab-calibrate: all
	$(Q)scripts/deps.sh vm mutate
	$(Q)scripts/ab.sh --build $(O) --calibrate $(call shq_words,$(AB_ARGS))

# The block-counting QEMU TCG plugin (contrib/qemu-plugin/tbcount.c), built
# against the installed QEMU's qemu-plugin.h from its Debian source package
# (iopath ab --explain, iopath coverage).
.PHONY: qemu-plugin
qemu-plugin:
	$(Q)scripts/deps.sh build vm
	@mkdir -p $(O)
	$(Q)scripts/qemu-plugin.sh --build $(O) >/dev/null

# Which fast-path basic blocks the selftests execute (docs/coverage.md), on
# the kernel built in COVERAGE_ARGS="--obj DIR ...".
.PHONY: coverage
coverage: all kselftest-install qemu-plugin
	$(Q)scripts/deps.sh vm
	$(Q)scripts/coverage.sh --build $(O) $(call shq_words,$(COVERAGE_ARGS))

# Patch series for kernel and fstests maintainers (docs/upstream.md), made
# from this tree into build/upstream/{kselftest,fstests}: against KSRC (a
# kernel tree; else KSFT_SRC or the newest /usr/src/linux-source-*.tar.xz)
# and, for fstests, the checkout FSTESTS if given. Fails unless every
# kernel patch is checkpatch --strict clean.
.PHONY: upstream
upstream: cli
	$(Q)KSRC=$(call shq,$(KSRC)) KSFT_SRC=$(call shq,$(KSFT_SRC)) scripts/upstream.sh --out $(O)/upstream \
		$(if $(FSTESTS),--fstests $(call shq,$(FSTESTS)))

# The tool's own mutants (configs/mutants/tool/): each plants a bug in the
# statistics or the benchmark harness of a copy of this tree, which is
# rebuilt and checked by the tests its header names. MUTATE_TOOL_ARGS go
# to scripts/mutate-tool.sh, e.g. MUTATE_TOOL_ARGS=02-mde-one-sided-alpha.
.PHONY: mutate-tool
mutate-tool:
	$(Q)scripts/deps.sh base check
	$(Q)scripts/mutate-tool.sh $(call shq_words,$(MUTATE_TOOL_ARGS))

run: all
	$(Q)scripts/deps.sh run
	$(Q)$(O)/iopath run $(call shq_words,$(RUN_ARGS))

# The reproducers of the kernel bugs the selftests found (docs/kernel-bugs),
# on the running kernel or, with KERNEL=..., in a QEMU guest booting it.
.PHONY: repro
repro: cli
	$(Q)scripts/deps.sh run
	$(Q)$(O)/iopath repro $(if $(KERNEL),--kernel $(call shq,$(KERNEL))) $(call shq_words,$(REPRO_ARGS))

check: all
	$(Q)scripts/deps.sh run check patch
	$(Q)bash scripts/check.sh $(O)

bench: all
	$(Q)scripts/deps.sh run
	$(Q)$(O)/iopath bench --profile $(call shq,$(or $(PROFILE),quick)) $(call shq_words,$(BENCH_ARGS))

# Where make install puts things, one shell word.
DEST = $(call shq,$(DESTDIR)$(PREFIX))
# What the installed iopath runs and reads, PREFIX/share/iopath: these
# directories whole, each file with its mode (executable or not). The
# subcommands' scripts are found by directory, never listed: a script
# added, or replaced by C and removed, needs no change here
# (tests/install.sh runs every subcommand from the installed tree).
INSTALL_SHARE := scripts configs reproducers selftests/requirements contrib/qemu-plugin
install: all kselftest-install
	install -d $(DEST)/bin $(DEST)/libexec/iopath $(DEST)/share/iopath
	install -m 0755 $(O)/iopath $(DEST)/bin/iopath
	cp -a $(KSFT_INSTALL) $(DEST)/libexec/iopath/
	find $(INSTALL_SHARE) -type f ! -name '*~' ! -name '.*' ! -path '*/__pycache__/*' -exec sh -c \
		'for f; do m=0644; [ ! -x "$$f" ] || m=0755; install -D -m $$m -- "$$f" "$$0/$$f" || exit 1; done' \
		$(DEST)/share/iopath {} +

clean:
	rm -rf $(O)

help:
	@echo "make               build build/iopath, the selftests and the unit tests"
	@echo "sudo make run      scratch ext4 and XFS, all selftests, the quick benchmarks, a summary"
	@echo "sudo make check    the project's own tests (unit tests, selftests, benchmark smoke runs)"
	@echo "sudo make repro    the reproducers of known kernel bugs, one line each (KERNEL=... in a VM)"
	@echo "sudo make kselftest  the selftests through run_kselftest.sh (KSFT_ARGS=... passed on)"
	@echo "sudo make bench    benchmarks of a profile (PROFILE=quick, see configs/bench)"
	@echo "sudo make vm-check KERNEL=<bzImage|.deb|package>  the selftests on another kernel under QEMU"
	@echo "sudo make mutate [KSRC=dir]   kernel mutation campaign: the kill matrix (docs/efficacy.md)"
	@echo "make qemu-plugin   the block-counting QEMU plugin for the installed QEMU (ab --explain, coverage)"
	@echo "sudo make coverage COVERAGE_ARGS='--obj DIR'  fast-path basic blocks the selftests execute"
	@echo "sudo make mutate-tool  the tool's own mutants: what the checks of its statistics catch"
	@echo "make kselftest-gen_tar  build/kselftest.tar.gz, the installed collection for fleet runners"
	@echo "make lava-jobs KERNEL=...  LAVA job definitions for a lab (docs/fleet.md); sudo make lava-run: run them here"
	@echo "sudo make ab-calibrate AB_ARGS='--ksrc debian --profile P'  planted +1..+30 instructions: what ab detects"
	@echo "make fuzz          FUZZ_SECONDS=60: each libFuzzer target (tests/fuzz) for that long"
	@echo "make upstream [KSRC=dir] [FSTESTS=dir]  the kselftest and fstests patch series, in build/upstream"
	@echo "make install       PREFIX="$(call shq,$(PREFIX))" DESTDIR=..."
	@echo "variables: V=1 verbose, SANITIZE=1 ASan+UBSan, CC=clang, KSRC=/path/to/linux, KSFT_SRC=/usr/src/linux-source-6.1.tar.xz"
