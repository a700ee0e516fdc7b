/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The iopath command: each subcommand registers itself with IOP_COMMAND()
 * in its cmd_NAME.c, in cli/ or, for a command of several files, in the
 * folder of its family (cli/NAME/). Adding a subcommand touches one file.
 *
 * Exit codes: 0 success, 1 failure (a test failed, a run aborted),
 * 2 bad usage or bad input, 4 skipped (kselftest's KSFT_SKIP).
 * stdout carries results; diagnostics go to stderr.
 */
#ifndef IOPATH_CLI_H
#define IOPATH_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "record.h"
#include "stats.h"

struct iop_cmd {
	const char *name;
	const char *summary;	/* one line for `iopath help` */
	int (*run)(int argc, char **argv);	/* argv[0] is the subcommand */
	struct iop_cmd *next;
};

void iop_cmd_register(struct iop_cmd *cmd);
/* The registered commands, sorted by name; one by name, or NULL. */
const struct iop_cmd *iop_cmd_first(void);
const struct iop_cmd *iop_cmd_find(const char *name);

#define IOP_COMMAND(_name, _summary, _fn)				\
	static struct iop_cmd iop_cmd_##_fn = {				\
		.name = _name, .summary = _summary, .run = _fn,		\
	};								\
	static void __attribute__((constructor)) iop_cmd_reg_##_fn(void) \
	{								\
		iop_cmd_register(&iop_cmd_##_fn);			\
	}

/* "iopath: <subcommand>: <message>" on stderr; returns 2 (bad usage). */
int iop_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * getopt_long() for a subcommand, with its own error lines: "iopath: CMD:
 * unknown option '--x'" and "iopath: CMD: --x needs a value". Set optind
 * to 0 before the first call. Options and operands mix in any order unless
 * @shortopts starts with '+' (stop at the first operand); "--" ends the
 * options. Returns the option, -1 at the end, or '?' after printing the
 * error (the caller returns 2).
 */
int iop_getopt(int argc, char **argv, const char *cmd, const char *shortopts,
	       const struct option *longopts);

/* Directory of the running binary's project (for configs/, scripts/). */
const char *iop_src_dir(void);
/*
 * The build directory: the checkout's build/, or in a `make install` tree
 * (no build/ beside share/iopath) PREFIX/libexec/iopath, which holds the
 * installed collection as kselftest/, as a build does.
 */
const char *iop_build_dir(void);

/*
 * For a subcommand that is a script: exec scripts/@script of iop_src_dir()
 * with argv[1..] as its arguments, so that the exit status is the
 * script's. Returns (1, the error printed) only if that fails.
 */
int iop_exec_script(const char *cmd, const char *script, int argc, char **argv);

#endif
