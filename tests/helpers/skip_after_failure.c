// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A harness binary for tests/verdict.sh, not a test of its own: one test
 * records a failure and then skips, one only skips. Built with the
 * selftests' shared header, whose SKIP() must keep the recorded failure
 * ("not ok"), where the harness's own would report "ok ... # SKIP".
 */
#include "../../selftests/iopath_test.h"

FIXTURE(guard) {
	int unused;
};

FIXTURE_SETUP(guard)
{
	self->unused = 0;
}

FIXTURE_TEARDOWN(guard)
{
}

TEST_F(guard, expect_fails_then_skips)
{
	EXPECT_EQ(1, self->unused + 2) TH_LOG("the recorded failure");
	SKIP(return, "a skip after the failure");
}

TEST_F(guard, skips_only)
{
	SKIP(return, "a plain skip");
}

TEST_HARNESS_MAIN
