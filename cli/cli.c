// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the subcommands share: the command registry, the usage-error line,
 * option parsing, where the project's files are and how a subcommand that
 * is a script runs it. main.c dispatches; the
 * fuzz targets in tests/fuzz call the subcommands through the same table.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "quote.h"

static struct iop_cmd *commands;

const struct iop_cmd *iop_cmd_first(void)
{
	return commands;
}

const struct iop_cmd *iop_cmd_find(const char *name)
{
	for (const struct iop_cmd *c = commands; c; c = c->next)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

void iop_cmd_register(struct iop_cmd *cmd)
{
	struct iop_cmd **p = &commands;

	/* Keep the list sorted so `iopath help` is stable. */
	while (*p && strcmp((*p)->name, cmd->name) < 0)
		p = &(*p)->next;
	cmd->next = *p;
	*p = cmd;
}

/*
 * The message names what was given (an argument, a path, a line of a
 * file): printed by iop_esc_line(), so it stays one line and reaches the
 * terminal as text, and one already escaped where the text came in is
 * not escaped twice.
 */
int iop_usage_error(const char *cmd, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "iopath: %s: ", cmd);
	if (n < 0)
		fputs("(no memory for the message)", stderr);
	else
		iop_esc_line(stderr, msg);
	fputc('\n', stderr);
	free(msg);
	return 2;
}

int iop_getopt(int argc, char **argv, const char *cmd, const char *shortopts,
	       const struct option *longopts)
{
	char opts[64];
	bool long_opt;
	int opt, idx;

	/* A leading ':' reports a missing value apart from an unknown option. */
	if (shortopts[0] == '+')
		snprintf(opts, sizeof(opts), "+:%s", shortopts + 1);
	else
		snprintf(opts, sizeof(opts), ":%s", shortopts);
	opterr = 0;
	idx = -1;
	opt = getopt_long(argc, argv, opts, longopts, &idx);
	if (idx >= 0 && opt != ':' && opt != '?') {
		/* No abbreviations: "--force" must not mean "--force-mkfs". */
		const char *typed = argv[optind - 1];
		size_t nl = strlen(longopts[idx].name);

		if (optarg && optarg == argv[optind - 1] && optind >= 2)
			typed = argv[optind - 2];
		if (strncmp(typed, "--", 2) || strncmp(typed + 2, longopts[idx].name, nl) ||
		    (typed[2 + nl] && typed[2 + nl] != '=')) {
			iop_usage_error(cmd, "unknown option '%s' (iopath %s --help)", typed, cmd);
			return '?';
		}
	}
	if (opt != ':' && opt != '?')
		return opt;
	/* A long option is named as typed; a short one by its letter. */
	long_opt = optind > 0 && optind <= argc && !strncmp(argv[optind - 1], "--", 2);
	if (opt == ':' && long_opt)
		iop_usage_error(cmd, "%s needs a value", argv[optind - 1]);
	else if (opt == ':')
		iop_usage_error(cmd, "-%c needs a value", optopt);
	else if (long_opt)
		iop_usage_error(cmd, "unknown option '%s' (iopath %s --help)",
				argv[optind - 1], cmd);
	else
		iop_usage_error(cmd, "unknown option '-%c' (iopath %s --help)", optopt, cmd);
	return '?';
}

const char *iop_src_dir(void)
{
	static char dir[PATH_MAX + 32];
	char exe[PATH_MAX], probe[PATH_MAX + 32];
	const char *env = getenv("IOPATH_SRC");
	ssize_t n;
	char *slash;

	if (env)
		return env;
	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return ".";
	exe[n] = '\0';
	/* build/iopath -> the checkout; PREFIX/bin/iopath -> PREFIX/share/iopath */
	for (int up = 0; up < 2; up++) {
		slash = strrchr(exe, '/');
		if (!slash)
			break;
		*slash = '\0';
		snprintf(probe, sizeof(probe), "%s/configs", exe);
		if (access(probe, R_OK) == 0) {
			snprintf(dir, sizeof(dir), "%s", exe);
			return dir;
		}
		snprintf(probe, sizeof(probe), "%s/share/iopath/configs", exe);
		if (access(probe, R_OK) == 0) {
			snprintf(dir, sizeof(dir), "%s/share/iopath", exe);
			return dir;
		}
	}
	return ".";
}

const char *iop_build_dir(void)
{
	static char dir[PATH_MAX + 64];
	char probe[PATH_MAX + 96];
	struct stat st;

	if (dir[0])
		return dir;
	snprintf(dir, sizeof(dir), "%s/build", iop_src_dir());
	if (!stat(dir, &st) && S_ISDIR(st.st_mode))
		return dir;
	snprintf(probe, sizeof(probe), "%s/../../libexec/iopath/kselftest/kselftest-list.txt",
		 iop_src_dir());
	if (!access(probe, R_OK))
		snprintf(dir, sizeof(dir), "%s/../../libexec/iopath", iop_src_dir());
	return dir;
}

int iop_exec_script(const char *cmd, const char *script, int argc, char **argv)
{
	char path[PATH_MAX], self[PATH_MAX];
	char **args;
	int n;

	n = snprintf(path, sizeof(path), "%s/scripts/%s", iop_src_dir(), script);
	if (n < 0 || (size_t)n >= sizeof(path))
		return iop_usage_error(cmd, "source directory path too long");
	if (access(path, X_OK)) {
		fprintf(stderr, "iopath: %s: %s: %s (set IOPATH_SRC to the iopath source tree)\n",
			cmd, path, strerror(errno));
		return 1;
	}
	/* argv[0] (the subcommand) becomes the script path; the rest is passed as is. */
	args = calloc((size_t)argc + 1, sizeof(*args));
	if (!args) {
		fprintf(stderr, "iopath: %s: %s\n", cmd, strerror(ENOMEM));
		return 1;
	}
	args[0] = path;
	for (int i = 1; i < argc; i++)
		args[i] = argv[i];
	/* The script runs this binary (scratch filesystems, kmsg scan). */
	n = (int)readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		if (setenv("IOPATH_BIN", self, 0)) {
			fprintf(stderr, "iopath: %s: %s\n", cmd, strerror(errno));
			free(args);
			return 1;
		}
	}
	fflush(NULL);
	execv(path, args);
	fprintf(stderr, "iopath: %s: cannot run %s: %s\n", cmd, path, strerror(errno));
	free(args);
	return 1;
}
