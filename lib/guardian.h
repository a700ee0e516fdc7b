/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to libiopath: the guardian of something that must not outlive
 * its owner (a scratch filesystem, a trace instance). A guardian is a
 * process in its own session, so a harness timeout that SIGKILLs the test's
 * process group does not reach it, and forked twice over, so it is nobody's
 * child here: a caller's wait() for its own children never sees it.
 *
 * Its lifeline is a close-on-exec socket. "done" on it means the owner
 * undid everything itself; end-of-file without it means the owner is gone
 * (exit, crash, SIGKILL, or a teardown that could not finish), and the
 * guardian undoes what is left. Children the owner forks without exec
 * inherit the owner's end, and the guardian then waits for them too.
 */
#ifndef IOPATH_GUARDIAN_H
#define IOPATH_GUARDIAN_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * What the guardian runs when the owner is gone. It runs after a fork from
 * a possibly multi-threaded process: async-signal-safe calls only. @keep_fd
 * is the guardian's copy of the fd given to iop_guardian_start() (-1 if
 * none).
 */
typedef void (*iop_guardian_undo)(void *arg, int keep_fd);

/*
 * Start a guardian called @name (the process name, up to 15 characters)
 * that keeps open only its lifeline and @keep_fd (-1: nothing) and calls
 * @undo(@arg, ...) when the owner goes. Sets *@pid and *@fd (the owner's
 * end of the lifeline). 0 or -errno.
 */
int iop_guardian_start(const char *name, int keep_fd, iop_guardian_undo undo, void *arg,
		       pid_t *pid, int *fd);

/*
 * Close the owner's end of the lifeline *@fd and set it to -1. With @done,
 * tell the guardian first that nothing is left and wait (briefly) until it
 * has exited; without, the guardian runs its undo.
 */
void iop_guardian_release(pid_t pid, int *fd, bool done);

#endif
