// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lib/record_view.c: the typed view of a record holds what the JSON says
 * (bench, rep, params, env, run facts, each metric with its samples) and
 * refuses, with one line naming the field, a record whose field has the
 * wrong type. Catches a view that takes a field from the wrong place
 * (env.kernel.cmdline's seed, run.pairing's cycle default), one that
 * accepts a string where a number belongs, and one that leaks or crashes
 * on a record refused half way through its metrics. For export and lava:
 * the fields they also read, each refused when of the wrong type, and a
 * metric without a finite value kept and marked by iop_rec_parse_keep()
 * (export skips it with a note), the record itself left as it was. What
 * compare and plot read: the parameters as text and as paired (1 and 1.0
 * one key), the environment as compared (the cmdline without the words
 * that name the boot), the untrusted reasons, the file layout, and the
 * values a measurement cannot have refused only where asked
 * (IOP_REC_MEASURED).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "array_size.h"
#include "record_view.h"

#define WHOLE "{\"schema\":1,\"bench\":\"pread\",\"rep\":3,\"time\":\"2026-12-06T08:00:00Z\"," \
	"\"params\":{\"bs\":4096}," \
	"\"env\":{\"kernel\":{\"release\":\"6.18.0\"," \
	"\"boot_id\":\"0123456789abcdef0123456789abcdef0123\"," \
	"\"cmdline\":\"console=ttyS0 iopath.seed=beef quiet\"},\"clock\":{\"domain\":\"instructions\"}," \
	"\"fs\":{\"type\":\"ext4\"}}," \
	"\"run\":{\"invocation\":\"inv1\",\"main_metric\":\"iops\",\"pairing\":{\"id\":\"p\",\"round\":4}}," \
	"\"metrics\":[{\"name\":\"iops\",\"unit\":\"ops/s\",\"better\":\"higher\",\"agg\":\"hmean\"," \
	"\"value\":100.5,\"samples\":[100,101],\"quantum\":0.01}," \
	"{\"name\":\"lat\",\"better\":\"lower\",\"agg\":\"median\",\"value\":7,\"samples\":[7]}]}"

static int parse(const char *text, struct iop_rec *r, char *what, size_t len)
{
	json_t *j = json_loads(text, 0, NULL);
	int ret;

	if (!j)
		return -999;
	ret = iop_rec_parse(j, r, what, len);
	json_decref(j);
	return ret;
}

TEST(record_view_holds_every_field)
{
	const struct iop_rec_metric *m;
	struct iop_rec r;
	char what[256] = "";

	ASSERT_EQ(0, parse(WHOLE, &r, what, sizeof(what))) TH_LOG("%s", what);
	EXPECT_STREQ("pread", r.bench);
	EXPECT_TRUE(r.has_rep);
	EXPECT_EQ(3, r.rep);
	EXPECT_STREQ("2026-12-06T08:00:00Z", r.time);
	EXPECT_EQ(4096, json_integer_value(json_object_get(r.params, "bs")));
	EXPECT_STREQ("6.18.0", r.env.release);
	EXPECT_STREQ("0123456789abcdef0123456789abcdef0123", r.env.boot_id);
	EXPECT_STREQ("beef", r.env.seed);
	EXPECT_STREQ("instructions", r.env.clock_domain);
	EXPECT_STREQ("ext4", r.env.fs_type);
	EXPECT_STREQ("inv1", r.run.invocation);
	EXPECT_STREQ("iops", r.run.main_metric);
	EXPECT_STREQ("p", r.run.pairing_id);
	EXPECT_TRUE(r.run.has_round);
	EXPECT_EQ(4, r.run.round);
	EXPECT_EQ(2, r.run.cycle);
	EXPECT_FALSE(r.untrusted);
	ASSERT_EQ(2, r.nmetrics);
	m = iop_rec_metric(&r, "iops");
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("ops/s", m->unit);
	EXPECT_EQ(IOP_HIGHER_IS_BETTER, m->better);
	EXPECT_STREQ("hmean", m->agg);
	EXPECT_EQ(100.5, m->value);
	ASSERT_EQ(2, m->nsamples);
	EXPECT_EQ(101, m->samples[1]);
	EXPECT_EQ(0.01, m->quantum);
	m = iop_rec_metric(&r, "lat");
	ASSERT_NE(NULL, m);
	EXPECT_EQ(NULL, m->unit);
	EXPECT_EQ(IOP_LOWER_IS_BETTER, m->better);
	EXPECT_EQ(NULL, iop_rec_metric(&r, "nope"));
	iop_rec_free(&r);
}

TEST(record_view_defaults_of_a_bare_record)
{
	struct iop_rec r;
	char what[256] = "";

	ASSERT_EQ(0, parse("{\"schema\":1,\"bench\":\"b\",\"metrics\":[],\"status\":\"untrusted\"}",
			   &r, what, sizeof(what))) TH_LOG("%s", what);
	EXPECT_FALSE(r.has_rep);
	EXPECT_STREQ("wall", r.env.clock_domain);
	EXPECT_STREQ("", r.env.seed);
	EXPECT_EQ(NULL, r.env.boot_id);
	EXPECT_FALSE(r.run.has_round);
	EXPECT_TRUE(r.untrusted);
	EXPECT_EQ(0, r.nmetrics);
	iop_rec_free(&r);
}

/* Each: a record with one field of the wrong type, and the words that name it. */
static const struct {
	const char *text, *words;
} bad[] = {
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[],\"rep\":\"3\"}", "\"rep\" is not an integer" },
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[],\"time\":5}", "\"time\" is not a string" },
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[],\"env\":{\"kernel\":{\"boot_id\":1}}}",
	  "env.kernel.boot_id" },
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[],\"env\":{\"clock\":{\"domain\":\"tsc\"}}}",
	  "env.clock.domain is neither" },
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[],\"run\":{\"pairing\":[]}}",
	  "\"run.pairing\" is not an object" },
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[{\"name\":\"m\",\"better\":\"higher\","
	  "\"agg\":\"median\",\"value\":\"1\",\"samples\":[1]}]}", "no numeric \"value\"" },
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[{\"name\":\"m\",\"better\":\"up\","
	  "\"agg\":\"median\",\"value\":1,\"samples\":[1]}]}", "\"better\" must be" },
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[{\"name\":\"m\",\"better\":\"lower\","
	  "\"agg\":\"mean\",\"value\":1,\"samples\":[1]}]}", "\"agg\" must be" },
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[{\"name\":\"m\",\"better\":\"lower\","
	  "\"agg\":\"median\",\"value\":1,\"samples\":[1],\"quantum\":1}]}", "\"quantum\" must be" },
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[{\"name\":\"m\",\"better\":\"lower\","
	  "\"agg\":\"median\",\"value\":1,\"samples\":[1],\"unit\":2}]}", "\"unit\" is not a string" },
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[{\"name\":\"m\",\"better\":\"lower\","
	  "\"agg\":\"median\",\"value\":1,\"samples\":[1,2]},{\"name\":\"m\",\"better\":\"lower\","
	  "\"agg\":\"median\",\"value\":1,\"samples\":[1]}]}", "appears twice" },
	{ "{\"schema\":2,\"bench\":\"b\",\"metrics\":[]}", "schema 2" },
};

TEST(record_view_refuses_a_field_of_the_wrong_type)
{
	struct iop_rec r;
	char what[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		what[0] = '\0';
		EXPECT_EQ(-EINVAL, parse(bad[i].text, &r, what, sizeof(what)))
			TH_LOG("accepted: %s", bad[i].text);
		EXPECT_NE(NULL, strstr(what, bad[i].words))
			TH_LOG("\"%s\" does not say \"%s\"", what, bad[i].words);
		iop_rec_free(&r);
	}
}

/* ---- what export and lava also read (cli/export, cli/lava) ---------------- */

#define EXPORTED "{\"schema\":1,\"bench\":\"pread\",\"status\":\"untrusted\"," \
	"\"untrusted\":[\"cv 3.4% > 2%\"]," \
	"\"env\":{\"fs\":{\"type\":\"xfs\",\"mkfs_opts\":\"-b size=4096\",\"mnt\":\"/m\"}," \
	"\"machine\":{\"arch\":\"aarch64\"}}," \
	"\"metrics\":[{\"name\":\"iops\",\"better\":\"higher\",\"agg\":\"hmean\",\"value\":9," \
	"\"samples\":[9],\"n\":1,\"cv\":0.25}," \
	"{\"name\":\"lat\",\"better\":\"lower\",\"agg\":\"median\",\"value\":7,\"samples\":[7]," \
	"\"cv\":null}]}"

TEST(record_view_holds_what_export_reads)
{
	const struct iop_rec_metric *m;
	struct iop_rec r;
	char what[256] = "";

	ASSERT_EQ(0, parse(EXPORTED, &r, what, sizeof(what))) TH_LOG("%s", what);
	EXPECT_STREQ("untrusted", r.status);
	ASSERT_TRUE(json_is_array(r.untrusted_why));
	EXPECT_STREQ("cv 3.4% > 2%", json_string_value(json_array_get(r.untrusted_why, 0)));
	EXPECT_STREQ("-b size=4096", r.env.mkfs_opts);
	EXPECT_STREQ("aarch64", r.env.arch);
	EXPECT_STREQ("/m", json_string_value(json_object_get(r.env.fs, "mnt")));
	m = iop_rec_metric(&r, "iops");
	ASSERT_NE(NULL, m);
	EXPECT_FALSE(m->no_value);
	EXPECT_TRUE(m->has_n);
	EXPECT_EQ(1, m->n);
	EXPECT_TRUE(m->has_cv);
	EXPECT_EQ(0.25, m->cv);
	m = iop_rec_metric(&r, "lat");
	ASSERT_NE(NULL, m);
	EXPECT_FALSE(m->has_n);
	EXPECT_FALSE(m->has_cv);
	iop_rec_free(&r);

	ASSERT_EQ(0, parse("{\"schema\":1,\"bench\":\"b\",\"metrics\":[]}", &r, what,
			   sizeof(what)));
	EXPECT_EQ(NULL, r.status);
	EXPECT_EQ(NULL, r.untrusted_why);
	EXPECT_EQ(NULL, r.env.mkfs_opts);
	EXPECT_EQ(NULL, r.env.arch);
	EXPECT_EQ(NULL, r.env.fs);
	iop_rec_free(&r);
}

static const struct {
	const char *text, *words;
} bad_export[] = {
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[],\"env\":{\"fs\":[]}}",
	  "\"env.fs\" is not an object" },
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[],\"env\":{\"fs\":{\"mkfs_opts\":5}}}",
	  "\"env.fs.mkfs_opts\" is not a string" },
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[],\"env\":{\"machine\":\"x86_64\"}}",
	  "\"env.machine\" is not an object" },
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[],\"env\":{\"machine\":{\"arch\":64}}}",
	  "\"env.machine.arch\" is not a string" },
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[],\"status\":true}",
	  "\"status\" is not a string" },
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[],\"untrusted\":[\"cv\",3]}",
	  "untrusted[1] is not a string" },
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[{\"name\":\"m\",\"better\":\"lower\","
	  "\"agg\":\"median\",\"value\":1,\"samples\":[1],\"n\":1.5}]}",
	  "metric \"m\": \"n\" is not an integer" },
	{ "{\"schema\":1,\"bench\":\"b\",\"metrics\":[{\"name\":\"m\",\"better\":\"lower\","
	  "\"agg\":\"median\",\"value\":1,\"samples\":[1],\"cv\":\"2%\"}]}",
	  "metric \"m\": \"cv\" is not a number" },
};

TEST(record_view_refuses_an_export_field_of_the_wrong_type)
{
	struct iop_rec r;
	char what[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_export); i++) {
		what[0] = '\0';
		EXPECT_EQ(-EINVAL, parse(bad_export[i].text, &r, what, sizeof(what)))
			TH_LOG("accepted: %s", bad_export[i].text);
		EXPECT_NE(NULL, strstr(what, bad_export[i].words))
			TH_LOG("\"%s\" does not say \"%s\"", what, bad_export[i].words);
		iop_rec_free(&r);
	}
}

#define VALUELESS "{\"schema\":1,\"bench\":\"b\",\"params\":{\"bs\":4096},\"metrics\":[" \
	"{\"name\":\"a\",\"better\":\"lower\",\"agg\":\"median\",\"value\":true,\"samples\":[1]}," \
	"{\"name\":\"b\",\"better\":\"higher\",\"agg\":\"hmean\",\"value\":2,\"samples\":[2]," \
	"\"n\":1}," \
	"{\"name\":\"c\",\"better\":\"lower\",\"agg\":\"median\",\"value\":null,\"samples\":[],\"n\":0}]}"

/*
 * A metric without a finite value: refused by iop_rec_parse(), kept and
 * marked by iop_rec_parse_keep(), which leaves the record as it was and
 * checks the rest of that metric as any other's.
 */
TEST(record_view_keep_marks_a_metric_without_a_value)
{
	const struct iop_rec_metric *m;
	json_t *j = json_loads(VALUELESS, 0, NULL);
	struct iop_rec r;
	char what[256] = "";
	char *before, *after;

	ASSERT_NE(NULL, j);
	EXPECT_EQ(-EINVAL, iop_rec_parse(j, &r, what, sizeof(what)));
	EXPECT_NE(NULL, strstr(what, "metric \"a\" has no numeric \"value\"")) TH_LOG("%s", what);
	iop_rec_free(&r);

	before = json_dumps(j, JSON_SORT_KEYS);
	ASSERT_EQ(0, iop_rec_parse_keep(j, &r, what, sizeof(what))) TH_LOG("%s", what);
	EXPECT_EQ(j, r.json);
	ASSERT_EQ(3, r.nmetrics);
	EXPECT_TRUE(r.metrics[0].no_value);
	EXPECT_TRUE(isnan(r.metrics[0].value));
	EXPECT_STREQ("a", r.metrics[0].name);
	EXPECT_FALSE(r.metrics[1].no_value);
	EXPECT_EQ(2, r.metrics[1].value);
	EXPECT_TRUE(r.metrics[1].has_n);
	EXPECT_TRUE(r.metrics[2].no_value);
	EXPECT_TRUE(r.metrics[2].has_n);
	EXPECT_EQ(0, r.metrics[2].n);
	EXPECT_EQ(4096, json_integer_value(json_object_get(r.params, "bs")));
	m = iop_rec_metric(&r, "c");
	ASSERT_NE(NULL, m);
	EXPECT_EQ(IOP_LOWER_IS_BETTER, m->better);
	after = json_dumps(j, JSON_SORT_KEYS);
	EXPECT_STREQ(before, after);
	free(before);
	free(after);
	json_decref(j);
	/* The view holds the record: its strings outlive the caller's reference. */
	EXPECT_STREQ("b", r.bench);
	EXPECT_STREQ("c", r.metrics[2].name);
	iop_rec_free(&r);

	/* The rest of a metric without a value is checked as any other's. */
	j = json_loads("{\"schema\":1,\"bench\":\"b\",\"metrics\":[{\"name\":\"a\","
		       "\"better\":\"up\",\"agg\":\"median\",\"value\":null,\"samples\":[]}]}",
		       0, NULL);
	ASSERT_NE(NULL, j);
	EXPECT_EQ(-EINVAL, iop_rec_parse_keep(j, &r, what, sizeof(what)));
	EXPECT_NE(NULL, strstr(what, "\"better\" must be")) TH_LOG("%s", what);
	iop_rec_free(&r);
	json_decref(j);
}

#define SHOWN "{\"schema\":1,\"bench\":\"b\",\"metrics\":[]," \
	"\"params\":{\"mode\":\"keep\",\"bs\":4096,\"rt\":1.5,\"o\":{\"z\":1,\"a\":2}}," \
	"\"untrusted\":[\"cpu hot\",\"throttled\"]," \
	"\"run\":{\"facts\":{\"file_layout\":\"0+8@100\"}}," \
	"\"env\":{\"kernel\":{\"cmdline\":\"BOOT_IMAGE=/v a=1 iopath.seed=ab  initrd=/i b\"}," \
	"\"clock\":{\"accel\":\"tcg\"},\"machine\":{\"cpu_model\":\"cpu\",\"cpus_online\":4," \
	"\"nodes\":1},\"placement\":{\"cpus\":\"2\"},\"device\":{\"backing\":\"loop\"," \
	"\"name\":\"loop7\",\"queue\":{\"z\":1,\"a\":null}},\"fs\":{\"type\":\"xfs\",\"mnt\":\"/m\"," \
	"\"mkfs_opts\":null}}}"

static const char *env_cmp(const struct iop_rec *r, const char *field)
{
	for (size_t i = 0; i < IOP_REC_NENV; i++)
		if (!strcmp(iop_rec_env_compared[i], field))
			return r->env.cmp[i];
	return "(not a compared field)";
}

TEST(record_view_holds_what_compare_and_plot_read)
{
	const struct iop_rec_param *p;
	struct iop_rec r;
	char what[256] = "";

	ASSERT_EQ(0, parse(SHOWN, &r, what, sizeof(what))) TH_LOG("%s", what);
	ASSERT_EQ(4, r.nparams);
	EXPECT_STREQ("mode", r.param_list[0].name);
	EXPECT_TRUE(r.param_list[0].is_str);
	EXPECT_STREQ("keep", r.param_list[0].text);
	EXPECT_STREQ("\"keep\"", r.param_list[0].key);
	p = iop_rec_param(r.param_list, r.nparams, "bs");
	ASSERT_NE(NULL, p);
	EXPECT_FALSE(p->is_str);
	EXPECT_STREQ("4096", p->text);
	EXPECT_STREQ("4096.0", p->key);
	p = iop_rec_param(r.param_list, r.nparams, "o");
	ASSERT_NE(NULL, p);
	EXPECT_STREQ("{\"z\":1,\"a\":2}", p->text);
	EXPECT_STREQ("{\"a\":2,\"z\":1}", p->key);
	EXPECT_EQ(NULL, iop_rec_param(r.param_list, r.nparams, "fs"));
	ASSERT_EQ(2, r.nuntrusted_reasons);
	EXPECT_STREQ("throttled", r.untrusted_reasons[1]);
	EXPECT_TRUE(r.untrusted);
	EXPECT_STREQ("0+8@100", r.run.file_layout);
	EXPECT_STREQ("tcg", r.env.clock_accel);
	EXPECT_STREQ("cpu", r.env.cpu_model);
	EXPECT_EQ(NULL, r.env.cpus_online);
	EXPECT_TRUE(r.env.has_ncpus_online);
	EXPECT_EQ(4, r.env.ncpus_online);
	EXPECT_STREQ("2", r.env.placement_cpus);
	EXPECT_STREQ("loop", r.env.backing);
	EXPECT_STREQ("loop7", r.env.dev_name);
	EXPECT_STREQ("/m", r.env.fs_mnt);
	EXPECT_STREQ("ab", r.env.seed);
	EXPECT_STREQ("\"a=1 b\"", env_cmp(&r, "kernel.cmdline"));
	EXPECT_STREQ("4", env_cmp(&r, "machine.cpus_online"));
	EXPECT_STREQ("\"xfs\"", env_cmp(&r, "fs.type"));
	EXPECT_STREQ("{\"a\":null,\"z\":1}", env_cmp(&r, "device.queue"));
	EXPECT_EQ(NULL, env_cmp(&r, "fs.mkfs_opts"));
	EXPECT_EQ(NULL, env_cmp(&r, "iopath.version"));
	iop_rec_free(&r);
}

/* A negative rate and a subnormal sample: records, but no measurements. */
static const struct {
	const char *metric, *words;
} unmeasured[] = {
	{ "{\"name\":\"iops\",\"unit\":\"ops/s\",\"better\":\"higher\",\"agg\":\"hmean\","
	  "\"value\":-5,\"samples\":[1]}", "metric \"iops\": value -5 is impossible for a rate in ops/s" },
	{ "{\"name\":\"lat\",\"unit\":\"us\",\"better\":\"lower\",\"agg\":\"median\","
	  "\"value\":1,\"samples\":[1,1e-300]}",
	  "metric \"lat\": sample 2 (1e-300) is out of range (0, or 1e-150 to 1e+150 in magnitude)" },
};

TEST(record_view_refuses_what_no_measurement_gives_when_asked)
{
	struct iop_rec r;
	char text[512], what[256];
	json_t *j;

	for (size_t i = 0; i < ARRAY_SIZE(unmeasured); i++) {
		snprintf(text, sizeof(text), "{\"schema\":1,\"bench\":\"b\",\"metrics\":[%s]}",
			 unmeasured[i].metric);
		j = json_loads(text, 0, NULL);
		ASSERT_NE(NULL, j);
		what[0] = '\0';
		EXPECT_EQ(0, iop_rec_parse(j, &r, what, sizeof(what))) TH_LOG("%s", what);
		iop_rec_free(&r);
		EXPECT_EQ(-EINVAL,
			  iop_rec_parse_flags(j, &r, IOP_REC_MEASURED, what, sizeof(what)));
		EXPECT_STREQ(unmeasured[i].words, what);
		iop_rec_free(&r);
		json_decref(j);
	}
}

TEST_HARNESS_MAIN
