// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath_probe: which of the features selftests/requirements names the
 * running kernel has, one line each: "FEATURE yes" or "FEATURE no REASON".
 * The runners (make check, make kselftest, iopath run, iopath vm) run it
 * once per kernel and hand its output to iopath_verdict (lib/tap.c), which
 * fails a run in which a test skipped although every feature it needs is
 * here. Installed with the collection; not a test itself.
 */
#include <stdio.h>

#include "probe.h"

int main(void)
{
	char why[256];
	int i, ret;

	for (i = 0; iop_probe_features[i]; i++) {
		ret = iop_probe(iop_probe_features[i], why, sizeof(why));
		printf("%s %s%s%s\n", iop_probe_features[i], ret > 0 ? "yes" : "no",
		       ret > 0 ? "" : " ", ret > 0 ? "" : why);
	}
	return 0;
}
