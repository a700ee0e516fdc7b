// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath scratch: the scratch filesystems of lib/scratch.c from the shell.
 *
 *   iopath scratch check DEV [--force-mkfs]
 *	the safety checks for a device named as scratch; reads only.
 *   iopath scratch namespace
 *	whether scratch filesystems can be mounted here at all (a mount
 *	namespace of their own, see scratch.h): exit 0, or 1 and the reason.
 *	make check asks once and says it once.
 *   iopath scratch create --fs ext4|xfs [--backing ...] [...] -- CMD ARGS...
 *	make a scratch filesystem, run CMD in it (cwd at the mount,
 *	IOPATH_MNT and IOPATH_DEV in its environment), tear it down, exit with
 *	CMD's status. SIGINT, SIGTERM or SIGHUP to iopath stop CMD, tear down
 *	and exit 128+signal; SIGKILL leaves the teardown to the guardian.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "iopath.h"

/* Seconds CMD gets between SIGTERM and SIGKILL when iopath is told to stop. */
#define STOP_GRACE_S 5

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iopath scratch check DEV [--force-mkfs]\n"
		"       iopath scratch namespace\n"
		"       iopath scratch create --fs ext4|xfs [--backing zram|loop|dev:/dev/X|dir:/path]\n"
		"              [--mkfs-opts OPTS] [--mount-opts OPTS] [--size N[k|m|g]] -- CMD [ARGS...]\n"
		"\n"
		"check:  the safety checks for a device named as scratch (nothing is written);\n"
		"        exit 2 if it is refused. --force-mkfs waives only the check for an\n"
		"        existing filesystem.\n"
		"namespace: exit 0 if scratch filesystems can be mounted here, out of the\n"
		"        host's view; exit 1 with the reason if not (a plain chroot).\n"
		"create: make a scratch filesystem, run CMD with its cwd at the mount and\n"
		"        IOPATH_MNT, IOPATH_DEV set, tear the filesystem down, exit with CMD's\n"
		"        status. Without --backing the environment decides (IOPATH_BACKING,\n"
		"        IOPATH_SCRATCH_DEV, IOPATH_SCRATCH_DIR, IOPATH_SCRATCH_FORCE_MKFS=%s,\n"
		"        IOPATH_SCRATCH_SIZE); the default is zram, or loop without zram.\n",
		IOP_FORCE_MKFS_WORD);
}

static int scratch_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "force-mkfs", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 }
	};
	const char *dev = NULL;
	bool force = false;
	char why[512];
	int ret, opt;

	optind = 0;
	while ((opt = iop_getopt(argc, argv, "scratch check", "", longopts)) != -1) {
		if (opt != 'f')
			return 2;
		force = true;
	}
	for (; optind < argc; optind++) {
		if (dev)
			return iop_usage_error("scratch check", "one device only ('%s' and '%s')",
					       dev, argv[optind]);
		dev = argv[optind];
	}
	if (!dev)
		return iop_usage_error("scratch check", "which device? (iopath scratch --help)");
	ret = iop_scratch_check_device(dev, force, why, sizeof(why));
	if (ret) {
		/* a refusal, like every other: exit 2 (README) */
		fprintf(stderr, "iopath: scratch check: %s\n", why[0] ? why : strerror(-ret));
		return 2;
	}
	printf("%s: ok to format\n", dev);
	return 0;
}

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	if (!stop_sig)
		stop_sig = sig;
}

static void on_child(int sig)
{
	(void)sig;
}

/*
 * Wait for CMD. Signals are blocked outside sigtimedwait(), so a stop
 * request can never slip in between a check and a blocking wait.
 */
static int wait_cmd(pid_t pid, const sigset_t *set)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	struct timespec deadline = { 0, 0 }, now;
	bool termed = false, killed = false;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		siginfo_t si;
		int sig;

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return 1;
		if (stop_sig && !termed) {
			kill(pid, SIGTERM);
			termed = true;
			clock_gettime(CLOCK_MONOTONIC, &deadline);
			deadline.tv_sec += STOP_GRACE_S;
		}
		if (termed && !killed) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > deadline.tv_sec ||
			    (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec)) {
				kill(pid, SIGKILL);
				killed = true;
			}
		}
		sig = sigtimedwait(set, &si, &tick);
		if ((sig == SIGINT || sig == SIGTERM || sig == SIGHUP) && !stop_sig)
			stop_sig = sig;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/*
 * From here on the stop signals (and SIGCHLD) are only ever taken
 * synchronously; a handler is installed as well so that nothing is lost
 * if the mask is changed by a library call. The mask before in @old.
 */
static void block_stops(sigset_t *block, sigset_t *old)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(block);
	sigaddset(block, SIGINT);
	sigaddset(block, SIGTERM);
	sigaddset(block, SIGHUP);
	sigaddset(block, SIGCHLD);
	sigprocmask(SIG_BLOCK, block, old);
}

/* A stop signal pending (blocked since block_stops()), or 0. */
static int stop_pending(void)
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t pending;

	sigpending(&pending);
	for (size_t k = 0; k < ARRAY_SIZE(stops); k++)
		if (sigismember(&pending, stops[k]))
			return stops[k];
	return 0;
}

/* In the child: CMD in the scratch's mount point, with IOPATH_MNT and IOPATH_DEV. */
static void exec_cmd(const struct iop_scratch *s, char **cmd, const sigset_t *old, pid_t parent)
{
	/* CMD must not outlive iopath: it would keep the scratch busy. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != parent)
		_exit(128 + SIGKILL);	/* iopath died before the line above */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_SETMASK, old, NULL);
	if (setenv("IOPATH_MNT", s->mnt, 1) || setenv("IOPATH_DEV", s->dev, 1) ||
	    chdir(s->mnt)) {
		fprintf(stderr, "iopath: scratch create: %s: %s\n", s->mnt, strerror(errno));
		_exit(127);
	}
	execvp(cmd[0], cmd);
	fprintf(stderr, "iopath: scratch create: %s: %s\n", cmd[0], strerror(errno));
	_exit(127);
}

static int scratch_create(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "fs", required_argument, NULL, 'f' },
		{ "backing", required_argument, NULL, 'b' },
		{ "mkfs-opts", required_argument, NULL, 'k' },
		{ "mount-opts", required_argument, NULL, 'm' },
		{ "size", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	struct iop_scratch_opts o = { 0 };
	struct iop_scratch *s = NULL;
	const char *backing = NULL;
	char why[512], **cmd = NULL;
	sigset_t block, old;
	int i, ret, status;
	pid_t pid, parent;

	ret = iop_scratch_opts_from_env(&o, why, sizeof(why));
	if (ret)
		return iop_usage_error("scratch create", "%s", why);
	/* '+': the first operand ends the options; it must follow "--". */
	optind = 0;
	while ((i = iop_getopt(argc, argv, "scratch create", "+", longopts)) != -1) {
		switch (i) {
		case 'h':
			usage(stdout);
			return 0;
		case 'f':
			o.fstype = optarg;
			break;
		case 'b':
			backing = optarg;
			break;
		case 'k':
			o.mkfs_opts = optarg;
			break;
		case 'm':
			o.mount_opts = optarg;
			break;
		case 's':
			if (iop_parse_size(optarg, &o.size))
				return iop_usage_error("scratch create",
						       "--size %s: expected bytes with an optional k, m, g or t suffix",
						       optarg);
			break;
		default:
			return 2;
		}
	}
	if (optind < argc && strcmp(argv[optind - 1], "--"))
		return iop_usage_error("scratch create", "unexpected '%s' (the command goes after --)",
				       argv[optind]);
	if (optind <= argc && !strcmp(argv[optind - 1], "--"))
		cmd = argv + optind;
	if (!o.fstype)
		return iop_usage_error("scratch create", "--fs ext4|xfs is required");
	if (strcmp(o.fstype, "ext4") && strcmp(o.fstype, "xfs"))
		return iop_usage_error("scratch create", "--fs %s: expected ext4 or xfs", o.fstype);
	if (!cmd || !cmd[0])
		return iop_usage_error("scratch create", "no command given after --");
	if (backing && iop_parse_backing(backing, &o, why, sizeof(why)))
		return iop_usage_error("scratch create", "%s", why);
	/* A refused device or a missing IOPATH_SCRATCH_DIR is exit 2, not a skip or a failure. */
	ret = iop_scratch_create_check(&o, why, sizeof(why));
	if (ret == -ENODEV) {
		fprintf(stderr, "iopath: scratch create: %s\n", why);
		return 4;
	}
	if (ret)
		return iop_usage_error("scratch create", "%s", why[0] ? why : strerror(-ret));

	block_stops(&block, &old);
	ret = iop_scratch_create(&o, &s, why, sizeof(why));
	if (!stop_sig)
		stop_sig = stop_pending();
	/* Told to stop meanwhile (a ^C also reaches mkfs): that is the answer. */
	if (stop_sig) {
		iop_scratch_destroy(s);
		return 128 + stop_sig;
	}
	if (ret) {
		fprintf(stderr, "iopath: scratch create: %s\n", why[0] ? why : strerror(-ret));
		if (ret == -EINVAL)
			return 2;
		return ret == -ENODEV || ret == -EOPNOTSUPP || ret == -ENOENT ? 4 : 1;
	}

	parent = getpid();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "iopath: scratch create: fork: %s\n", strerror(errno));
		iop_scratch_destroy(s);
		return 1;
	}
	if (pid == 0)
		exec_cmd(s, cmd, &old, parent);
	status = wait_cmd(pid, &block);
	ret = iop_scratch_destroy(s);
	if (ret)
		fprintf(stderr, "iopath: scratch create: teardown: %s (the guardian finishes it)\n",
			strerror(-ret));
	return stop_sig ? 128 + stop_sig : status;
}

static int scratch_namespace(int argc, char **argv)
{
	char why[256];
	int ret;

	if (argc > 1)
		return iop_usage_error("scratch namespace", "unexpected '%s'", argv[1]);
	ret = iop_scratch_namespace_check(why, sizeof(why));
	if (!ret)
		return 0;
	fprintf(stderr, "iopath: scratch namespace: %s\n", why);
	return 1;
}

static int cmd_scratch(int argc, char **argv)
{
	if (argc < 2)
		return iop_usage_error("scratch", "check or create? (iopath scratch --help)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "namespace"))
		return scratch_namespace(argc - 1, argv + 1);
	if (geteuid() != 0 && strcmp(argv[1], "check")) {
		fprintf(stderr, "iopath: scratch: must run as root\n");
		return 4;
	}
	if (!strcmp(argv[1], "check"))
		return scratch_check(argc - 1, argv + 1);
	if (!strcmp(argv[1], "create"))
		return scratch_create(argc - 1, argv + 1);
	return iop_usage_error("scratch", "unknown subcommand '%s' (check, namespace or create)", argv[1]);
}

IOP_COMMAND("scratch",
	    "check a scratch device, or run a command on a scratch filesystem", cmd_scratch)
