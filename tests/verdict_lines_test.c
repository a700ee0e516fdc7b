// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lib/verdict.c: the machine lines of the verdict engine (lib/tap.c) read
 * back exactly, malformed ones refused rather than skipped, notes and TAP
 * left alone, and the engine run on a real TAP and known-failures list. Catches a
 * parser that takes a line that merely starts like a machine line, loses
 * the bug of a known failure or the line range of a case, lets a later
 * result line replace the first, or reports a malformed known-failures
 * list as a verdict.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "tap.h"
#include "verdict.h"

TEST(case_line_read_whole)
{
	struct iop_verdict v;

	iop_verdict_init(&v);
	ASSERT_EQ(1, iop_verdict_parse_line("# IOPATH-CASE: result=known program=fb_test "
					    "name=fb.xfs_1k.dio_past_eof lines=6-10 bug=xfs-1k-dio",
					    &v));
	ASSERT_EQ(1, iop_verdict_parse_line("# IOPATH-CASE: result=pass program=fb_test "
					    "name=fb.xfs.other lines=11-13", &v));
	ASSERT_EQ(1, iop_verdict_parse_line("# IOPATH-CASE: result=unfinished program=fb_test "
					    "name=fb.xfs.cut lines=14-15", &v));
	ASSERT_EQ(3, v.ncases);
	EXPECT_STREQ("unfinished", v.cases[2].result);
	EXPECT_STREQ("known", v.cases[0].result);
	EXPECT_STREQ("fb_test", v.cases[0].program);
	EXPECT_STREQ("fb.xfs_1k.dio_past_eof", v.cases[0].name);
	EXPECT_EQ(6, v.cases[0].first);
	EXPECT_EQ(10, v.cases[0].last);
	EXPECT_STREQ("xfs-1k-dio", v.cases[0].bug);
	EXPECT_STREQ("", v.cases[1].bug);
	iop_verdict_free(&v);
}

TEST(program_ended_by_its_time_limit)
{
	struct iop_verdict v;

	iop_verdict_init(&v);
	ASSERT_EQ(1, iop_verdict_parse_line("# IOPATH-PROGRAM: result=fail program=a_test "
					    "ended=timeout", &v));
	/* Words a later reader adds are ignored, not an error. */
	ASSERT_EQ(1, iop_verdict_parse_line("# IOPATH-PROGRAM: result=fail program=b_test "
					    "ended=signal more=1", &v));
	ASSERT_EQ(1, iop_verdict_parse_line("# IOPATH-PROGRAM: result=fail program=c_test", &v));
	ASSERT_EQ(3, v.nprogs);
	EXPECT_TRUE(v.progs[0].timed_out);
	EXPECT_FALSE(v.progs[1].timed_out);
	EXPECT_FALSE(v.progs[2].timed_out);
	iop_verdict_free(&v);
}

TEST(program_and_result_lines)
{
	struct iop_verdict v;

	iop_verdict_init(&v);
	ASSERT_EQ(1, iop_verdict_parse_line("# IOPATH-PROGRAM: result=excused program=fb_test", &v));
	ASSERT_EQ(1, iop_verdict_parse_line("# IOPATH-VM-RESULT: status=pass passed=14 failed=0 "
					    "known=1 skipped=2 programs=8 programs_failed=0 "
					    "required_missing=0 stale_known=0 seconds=12", &v));
	/* Only the first result line counts. */
	ASSERT_EQ(1, iop_verdict_parse_line("# IOPATH-RESULT: status=fail passed=0 failed=1 "
					    "known=0 skipped=0 programs=1 programs_failed=1 "
					    "required_missing=0 stale_known=0", &v));
	ASSERT_EQ(1, v.nprogs);
	EXPECT_STREQ("excused", v.progs[0].result);
	ASSERT_TRUE(v.have_result);
	EXPECT_STREQ("IOPATH-VM-RESULT", v.result_word);
	EXPECT_STREQ("pass", v.status);
	EXPECT_EQ(14, v.passed);
	EXPECT_EQ(1, v.known);
	EXPECT_EQ(2, v.skipped);
	EXPECT_EQ(8, v.programs);
	EXPECT_EQ(12, v.seconds);
	iop_verdict_free(&v);
}

TEST(malformed_machine_lines_refused)
{
	static const char *const bad[] = {
		"# IOPATH-CASE: result=pass program=a name=b",
		"# IOPATH-CASE: result=ok program=a name=b lines=1-2",
		"# IOPATH-CASE: result=pass program=a name=b lines=2-1",
		"# IOPATH-CASE: result=pass program=a name=b lines=1-2 ",
		"# IOPATH-CASE: result=pass program=a name=b c lines=1-2",
		"# IOPATH-CASE: result=pass program=a name=b\x1b[2J lines=1-2",
		"# IOPATH-CASE: result=known program=a name=b lines=1-2",
		"# IOPATH-CASE: result=pass program=a name=b lines=1-2 bug=x",
		"# IOPATH-CASE: result=pass program=a name=b lines=-1-2",
		"# IOPATH-PROGRAM: result=pass",
		"# IOPATH-RESULT: status=pass passed=1",
		"# IOPATH-RESULT: status=maybe passed=1 failed=0 known=0 skipped=0 programs=1 "
		"programs_failed=0 required_missing=0 stale_known=0",
		"# IOPATH-RESULT: status=pass passed=99999999999 failed=0 known=0 skipped=0 "
		"programs=1 programs_failed=0 required_missing=0 stale_known=0",
	};
	struct iop_verdict v;
	size_t i;

	iop_verdict_init(&v);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_EQ(-EINVAL, iop_verdict_parse_line(bad[i], &v))
			TH_LOG("accepted case %zu", i);
	EXPECT_EQ(0, v.ncases);
	EXPECT_EQ(0, v.nprogs);
	EXPECT_FALSE(v.have_result);
	iop_verdict_free(&v);
}

TEST(other_lines_are_not_machine_lines)
{
	static const char *const other[] = {
		"ok 1 selftests: iopath: fb_test",
		"# ok 2 fb.xfs.other",
		"# iopath: known failure on 6.1: fb.x: b: r",
		"# IOPATH-CASES: result=pass",
		"# RESULTS: status=pass",
		"#IOPATH-CASE: result=pass program=a name=b lines=1-2",
		"",
	};
	struct iop_verdict v;
	size_t i;

	iop_verdict_init(&v);
	for (i = 0; i < ARRAY_SIZE(other); i++)
		EXPECT_EQ(0, iop_verdict_parse_line(other[i], &v)) TH_LOG("took case %zu", i);
	iop_verdict_free(&v);
}

static int write_tmp(char *path, const char *text)
{
	int fd = mkstemp(path);
	size_t len = strlen(text);

	if (fd < 0)
		return -1;
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return close(fd);
}

TEST(engine_run_gives_cases_and_known_bug)
{
	char tap[] = "/tmp/iopath-verdict-tap.XXXXXX";
	char known[] = "/tmp/iopath-verdict-known.XXXXXX", why[256] = "";
	struct iop_verdict v;
	int ret;

	ASSERT_EQ(0, write_tmp(known, "^6\\.1\\.0-57-amd64$  ^fb\\.xfs_1k\\.dio_past_eof$  "
				"cached byte [0-9]+ is 0x53  xfs-1k-dio  tail survives\n"));
	ASSERT_EQ(0, write_tmp(tap, "TAP version 13\n1..1\n# selftests: iopath: fb_test\n"
			       "# TAP version 13\n# 1..2\n"
			       "# #  RUN           fb.xfs_1k.dio_past_eof ...\n"
			       "# # fb_test.c:417:dio_past_eof:Expected 0 (0) == r (-117)\n"
			       "# # fb_test.c:417:dio_past_eof:cached byte 1000 is 0x53\n"
			       "# #          FAIL  fb.xfs_1k.dio_past_eof\n"
			       "# not ok 1 fb.xfs_1k.dio_past_eof\n"
			       "# #  RUN           fb.xfs.other ...\n"
			       "# #            OK  fb.xfs.other\n"
			       "# ok 2 fb.xfs.other\n"
			       "# # Totals: pass:1 fail:1 xfail:0 xpass:0 skip:0 error:0\n"
			       "not ok 1 selftests: iopath: fb_test # exit=1\n"));
	iop_verdict_init(&v);
	ret = iop_verdict_run("6.1.0-57-amd64", known, NULL, NULL, tap, &v, why, sizeof(why));
	EXPECT_EQ(0, ret) TH_LOG("%s", why);
	ASSERT_EQ(2, v.ncases);
	EXPECT_STREQ("known", v.cases[0].result);
	EXPECT_STREQ("xfs-1k-dio", v.cases[0].bug);
	EXPECT_EQ(6, v.cases[0].first);
	EXPECT_EQ(10, v.cases[0].last);
	EXPECT_STREQ("pass", v.cases[1].result);
	ASSERT_EQ(1, v.nprogs);
	EXPECT_STREQ("excused", v.progs[0].result);
	EXPECT_STREQ("pass", v.status);
	EXPECT_EQ(1, v.known);
	EXPECT_LT(0, v.nnotes);
	iop_verdict_free(&v);

	/* Another kernel: the same failure is not excused. */
	iop_verdict_init(&v);
	ASSERT_EQ(0, iop_verdict_run("6.12.1", known, NULL, NULL, tap, &v, why, sizeof(why)));
	EXPECT_STREQ("fail", v.cases[0].result);
	EXPECT_STREQ("fail", v.status);
	iop_verdict_free(&v);

	/* A malformed list is an error with the engine's reason, not a verdict. */
	unlink(known);
	strcpy(known, "/tmp/iopath-verdict-known.XXXXXX");
	ASSERT_EQ(0, write_tmp(known, "^6\\.1$ one-field-only\n"));
	iop_verdict_init(&v);
	EXPECT_EQ(-EINVAL, iop_verdict_run("6.1", known, NULL, NULL, tap, &v, why,
					   sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "KERNEL-ERE")) TH_LOG("%s", why);
	EXPECT_EQ(NULL, strchr(why, '\n'));
	iop_verdict_free(&v);
	unlink(known);
	unlink(tap);
}

TEST_HARNESS_MAIN
