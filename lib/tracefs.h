/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A private tracefs instance: events are enabled and read there, so the
 * global trace buffer and anyone else's tracing are left alone. The instance
 * is named "iopath-<pid>-<n>" so iop_cleanup() recognises a leftover. If
 * tracefs is not mounted anywhere, it is mounted under IOP_RUN_DIR for the
 * lifetime of the instance and unmounted again.
 */
#ifndef IOPATH_TRACEFS_H
#define IOPATH_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iop_trace;

/*
 * An O_PATH fd on the tracefs root: a mount that is already there, or a
 * private one that is detached at once (the fd keeps it reachable).
 * -ENOENT: no tracefs in this kernel; -EACCES: not root.
 */
int iop_tracefs_root(void);

/* -ENOENT: no tracefs in this kernel; -EACCES: not root. */
int iop_trace_open(struct iop_trace **out);
void iop_trace_close(struct iop_trace *t);

/* Is events/<system>/<event> present? */
bool iop_trace_has_event(struct iop_trace *t, const char *system, const char *event);

/* Enable one event with an optional filter ("dev == 265289728"). */
int iop_trace_enable(struct iop_trace *t, const char *system, const char *event,
		     const char *filter);

/* Empty the buffer and turn tracing on / off in this instance. */
int iop_trace_start(struct iop_trace *t);
int iop_trace_stop(struct iop_trace *t);

/* One parsed line of the instance's "trace" file. */
struct iop_trace_event {
	const char *event;	/* "iomap_iter_dstmap" */
	const char *fields;	/* the text after "event: " */
	int pid;
	uint64_t ts_ns;
};

/*
 * Value of "name=value" in a line's fields: numbers in decimal or 0x hex;
 * -ENOENT if absent. iop_trace_field_str copies the raw text (up to the
 * next space) into @buf.
 */
int iop_trace_field_u64(const struct iop_trace_event *ev, const char *name, uint64_t *val);
int iop_trace_field_str(const struct iop_trace_event *ev, const char *name, char *buf, size_t len);

/*
 * Read what the instance holds, calling @cb per event in order. Returns the
 * number of events, or -errno. @cb returning non-zero stops the read.
 */
int iop_trace_read(struct iop_trace *t,
		   int (*cb)(const struct iop_trace_event *ev, void *arg), void *arg);

/* The dev_t value trace events print for a block device's filesystem. */
uint64_t iop_trace_devno(unsigned int major, unsigned int minor);

#endif
