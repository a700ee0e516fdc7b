/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The iopath command: one subcommand per file in cli/, each registering
 * itself with IOP_COMMAND(). Adding a subcommand touches one file.
 *
 * Exit codes: 0 success, 1 failure (a test failed, a run aborted),
 * 2 bad usage or bad input, 4 skipped (kselftest's KSFT_SKIP).
 * stdout carries results; diagnostics go to stderr.
 */
#ifndef IOPATH_CLI_H
#define IOPATH_CLI_H

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

/* Directory of the running binary's project (for configs/, scripts/). */
const char *iop_src_dir(void);

#endif
