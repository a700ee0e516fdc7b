// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A harness binary for tests/verdict.sh, not a test of its own: one test
 * records a failure and then skips, one only skips. The harness reports
 * the first "ok ... # SKIP" (docs/harness-bugs/skip-after-failed-check.md);
 * the verdict engine (lib/tap.c), the verdict of every iopath runner, must count
 * it as failed and the second as skipped. A third fails an ASSERT, after
 * which the shared teardown runs inside the ASSERT's handler loop: its
 * checks pass and must print no "post-test" line.
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

FIXTURE(after_assert) {
	struct iop_test_fs fs;	/* no filesystem: the kernel log check */
};

FIXTURE_SETUP(after_assert)
{
	memset(&self->fs, 0, sizeof(self->fs));
	iop_test_kmsg_mark(&self->fs);
}

FIXTURE_TEARDOWN(after_assert)
{
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

TEST_F(after_assert, assert_fails_then_teardown_checks)
{
	ASSERT_EQ(1, 2) TH_LOG("the failed assertion");
}

TEST_HARNESS_MAIN
