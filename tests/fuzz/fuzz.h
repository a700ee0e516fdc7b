/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the fuzz targets share: an input handed to iopath as a file that
 * is what iopath reads in real use (a regular file, reached by path), and
 * a subcommand called as the command line would.
 */
#ifndef IOPATH_FUZZ_H
#define IOPATH_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* The target: called once per input (libFuzzer's entry point). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A memfd holding @data; its path "/proc/self/fd/N" goes to @path. -1 on failure. */
int fuzz_file(const uint8_t *data, size_t size, char *path, size_t len);

/* Run the subcommand argv[0] with stdout (and, in the driver, stderr) discarded. */
int fuzz_cmd(int argc, const char *const *argv);

/* The same with stdout into @fd (a fuzz_file() to read back). */
int fuzz_cmd_to(int fd, int argc, const char *const *argv);

/*
 * Abort (a finding) if @len bytes of @fd from offset 0 hold a control
 * character (lib/quote.c's iop_is_control()) other than a newline: what a
 * terminal would obey. @what names the output in the report.
 */
void fuzz_no_control(int fd, const char *what);

/* The same, with the control characters in @allowed let through (a tab). */
void fuzz_no_control_but(int fd, const char *allowed, const char *what);

#endif
