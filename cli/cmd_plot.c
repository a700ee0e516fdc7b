// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath plot BASE NEW -o out.svg|out.png: the per-second samples of one
 * metric of both runs, over time (repetitions back to back) and as a
 * distribution (box plot with every sample), drawn by gnuplot.
 *
 * For people who would rather look than read: a drift within a run, one
 * bad repetition or a bimodal distribution is obvious in a picture and
 * invisible in a mean. The verdict itself comes from `iopath compare`; this
 * command does no statistics beyond what gnuplot draws.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "iopath.h"
#include "shared_recset.h"

#define MAX_WHERE 16

struct plot_opts {
	const char *out;
	const char *metric;	/* "name" or "bench.name" */
	const char *where[MAX_WHERE];	/* "key=value" filters on params */
	int nwhere;
	bool png;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: iopath plot BASE NEW -o OUT.svg|OUT.png [--metric [BENCH.]NAME] [--where KEY=VALUE]...\n"
		   "Draw the per-second samples of one metric of two runs: over time and as a\n"
		   "distribution. Default: the first metric of the first benchmark both files have;\n"
		   "--where picks among parameter sets (e.g. --where fs=xfs). Needs gnuplot.\n");
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * "iopath: plot: <message>" on stderr. Messages carry parameter values,
 * kernel releases and paths from records made elsewhere: their control
 * characters are escaped by iop_esc(), as compare does, so none reaches
 * the terminal raw and no newline forges a line.
 */
static void say(const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&msg, fmt, ap);
	va_end(ap);
	fputs("iopath: plot: ", stderr);
	if (ret < 0) {
		fputs("out of memory\n", stderr);
		return;
	}
	iop_esc_line(stderr, msg);
	fputc('\n', stderr);
	free(msg);
}

/* iop_esc_dup() of a string made by asprintf(@fmt), or NULL. */
static char *esc_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *esc_printf(const char *fmt, ...)
{
	va_list ap;
	char *s, *e;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return NULL;
	e = iop_esc_dup(s);
	free(s);
	return e;
}

/* --where KEY=VALUE: a string as it is, any other value as compact JSON. */
static bool param_matches(const struct iop_rs_group *g, const char *kv)
{
	const char *eq = strchr(kv, '=');
	const struct iop_rec_param *p;
	char key[128];

	if (!eq || (size_t)(eq - kv) >= sizeof(key))
		return false;
	snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
	p = iop_rec_param(g->params, g->nparams, key);
	return p && !strcmp(p->text, eq + 1);
}

static bool metric_matches(const char *bench, const char *name, const char *want)
{
	size_t bl = strlen(bench);

	if (!want)
		return true;
	if (!strcmp(name, want))
		return true;
	return !strncmp(want, bench, bl) && want[bl] == '.' && !strcmp(want + bl + 1, name);
}

/* A gnuplot single-quoted string: only ' needs escaping, as ''. */
static void gp_str(FILE *gp, const char *s)
{
	fputc('\'', gp);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', gp);
		if (*s != '\n')
			fputc(*s, gp);
	}
	fputc('\'', gp);
}

/*
 * One data block per side: "x value" lines, a blank line between
 * repetitions so that lines break there. x counts seconds from the start
 * of the first repetition, warm-up and dropped intervals not counted.
 */
static void gp_data(FILE *gp, const char *name, struct iop_rs_group *g, int side,
		    const char *metric, size_t *count)
{
	size_t x = 0;

	fprintf(gp, "$%s << EOD\n", name);
	for (size_t i = 0; i < g->n[side]; i++) {
		const struct iop_rec_metric *m = iop_rec_metric(g->recs[side][i], metric);

		if (!m)
			continue;
		if (m->nsamples) {
			for (size_t j = 0; j < m->nsamples; j++)
				fprintf(gp, "%zu %.10g\n", ++x, m->samples[j]);
		} else {
			fprintf(gp, "%zu %.10g\n", ++x, m->value);
		}
		fprintf(gp, "\n");
	}
	fprintf(gp, "EOD\n");
	*count = x;
}

/* gnuplot reading its script from the returned stream, its stdout on @out. */
static FILE *spawn_gnuplot(int out, pid_t *pid)
{
	int pfd[2];
	FILE *gp;

	if (pipe2(pfd, O_CLOEXEC))
		return NULL;
	*pid = fork();
	if (*pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return NULL;
	}
	if (!*pid) {
		dup2(pfd[0], STDIN_FILENO);
		dup2(out, STDOUT_FILENO);
		execlp("gnuplot", "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(pfd[0]);
	gp = fdopen(pfd[1], "w");
	if (!gp) {
		close(pfd[1]);
		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
	}
	return gp;
}

static int draw(const struct plot_opts *o, struct iop_rs_group *groups, size_t ngroups,
		struct iop_rs_group *g, const char *metric, const char *paths[2], int fd)
{
	const struct iop_rec_metric *m = iop_rec_metric(g->recs[0][0], metric);
	const char *unit = m ? m->unit : NULL;
	const char *kb = g->recs[0][0]->env.release;
	const char *kn = g->recs[1][0]->env.release;
	char *label = iop_rs_group_label(groups, ngroups, g), *title = NULL, *lb = NULL, *ln = NULL;
	size_t nb = 0, nn = 0;
	void (*old)(int sig);
	FILE *gp;
	int st, ret = -ENOMEM;
	pid_t pid;

	/* escaped once: the picture shows what the messages say */
	if (!label)
		goto out;
	title = esc_printf("%s: %s", label, metric);
	lb = esc_printf("base: %s (%s)", paths[0], kb ? kb : "?");
	ln = esc_printf("new: %s (%s)", paths[1], kn ? kn : "?");
	if (!title || !lb || !ln)
		goto out;

	/*
	 * gnuplot writes the image to its stdout, which is @fd: it never opens
	 * a path itself, so nothing it does can follow a symlink or create a
	 * file after a signal removed ours. It may die on a bad script: report
	 * that, not SIGPIPE.
	 */
	old = signal(SIGPIPE, SIG_IGN);
	gp = spawn_gnuplot(fd, &pid);
	if (!gp) {
		ret = -errno;
		signal(SIGPIPE, old);
		goto out;
	}
	if (o->png)
		fprintf(gp, "set terminal pngcairo size 1200,480 font 'sans,10' noenhanced\n");
	else
		fprintf(gp, "set terminal svg size 1200,480 dynamic font 'sans,11' noenhanced background rgb 'white'\n");
	gp_data(gp, "base", g, 0, metric, &nb);
	gp_data(gp, "new", g, 1, metric, &nn);
	fprintf(gp, "set multiplot layout 1,2 title ");
	gp_str(gp, title);
	fprintf(gp, "\nset grid ytics\nset key at screen 0.5,0.9 center top horizontal\nset tmargin 6\nset offsets graph 0.02, graph 0.02, 0, 0\nset format y '%%.7g'\n"
		    "set ylabel ");
	gp_str(gp, unit ? unit : metric);
	fprintf(gp, "\nset title 'per-second samples, repetitions back to back'\n"
		    "set xlabel 'second'\n"
		    "plot $base using 1:2 with linespoints pt 7 ps 0.5 lc rgb '#1f77b4' title ");
	gp_str(gp, lb);
	fprintf(gp, ", \\\n     $new using 1:2 with linespoints pt 7 ps 0.5 lc rgb '#d62728' title ");
	gp_str(gp, ln);
	fprintf(gp, "\nset title 'distribution of the samples (box: quartiles, line: median)'\n"
		    "unset xlabel\nset offsets 0, 0, 0, 0\nset xtics ('base' 1, 'new' 2)\nset xrange [0.4:2.6]\n"
		    "set style fill transparent solid 0.2 noborder\n"
		    "set style boxplot nooutliers\nset boxwidth 0.5\n"
		    "set jitter overlap first 1 spread 0.4\n"
		    "plot $base using (1):2 with boxplot lc rgb '#1f77b4' notitle, \\\n"
		    "     $new using (2):2 with boxplot lc rgb '#d62728' notitle, \\\n"
		    "     $base using (1):2 with points pt 7 ps 0.4 lc rgb '#1f77b4' notitle, \\\n"
		    "     $new using (2):2 with points pt 7 ps 0.4 lc rgb '#d62728' notitle\n"
		    "unset multiplot\n");
	fclose(gp);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	signal(SIGPIPE, old);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
		say("gnuplot not found (Debian: apt-get install gnuplot-nox)");
		ret = -ENOENT;
	} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		say("gnuplot failed (status %d)", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		ret = -EIO;
	} else {
		/* @title is escaped already: printed as it is, like in the picture */
		fprintf(stderr, "iopath: plot: %s: %zu base and %zu new samples\n", title, nb, nn);
		ret = 0;
	}
out:
	free(label);
	free(title);
	free(lb);
	free(ln);
	return ret;
}

/* Options and the two files into @o and @paths; -1 to go on, else the exit status. */
static int parse_opts(int argc, char **argv, struct plot_opts *o, const char *paths[2])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "output", required_argument, NULL, 'o' },
		{ "metric", required_argument, NULL, 'm' },
		{ "where", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 }
	};
	char why[PATH_MAX + 128];
	const char *ext;
	int opt;

	optind = 0;
	while ((opt = iop_getopt(argc, argv, "plot", "ho:", longopts)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		case 'o':
			o->out = optarg;
			break;
		case 'm':
			o->metric = optarg;
			break;
		case 'w':
			if (o->nwhere == MAX_WHERE)
				return iop_usage_error("plot",
						       "at most %d --where filters", MAX_WHERE);
			if (!strchr(optarg, '='))
				return iop_usage_error("plot",
						       "--where wants KEY=VALUE, not '%s'", optarg);
			o->where[o->nwhere++] = optarg;
			break;
		default:
			return 2;
		}
	}
	if (argc - optind > 2)
		return iop_usage_error("plot", "takes exactly two record files, BASE and NEW");
	if (argc - optind != 2)
		return iop_usage_error("plot", "need BASE and NEW record files (iopath plot --help)");
	paths[0] = argv[optind];
	paths[1] = argv[optind + 1];
	if (!o->out)
		return iop_usage_error("plot", "need -o OUT.svg or -o OUT.png");
	ext = strrchr(o->out, '.');
	if (ext && !strcasecmp(ext, ".png"))
		o->png = true;
	else if (!ext || strcasecmp(ext, ".svg"))
		return iop_usage_error("plot", "output '%s' must end in .svg or .png", o->out);
	if (iop_out_check(o->out, why, sizeof(why)))
		return iop_usage_error("plot", "%s", why);
	return -1;
}

/*
 * The first paired group that passes every --where and has the metric
 * (--metric, else its first) on both sides, into *@pick and *@metric;
 * *@matches counts the groups that have it. Returns how many are paired.
 */
static size_t pick_group(struct iop_rs_group *groups, size_t ngroups, const struct plot_opts *o,
			 struct iop_rs_group **pick, const char **metric, size_t *matches)
{
	size_t paired = 0;

	for (size_t i = 0; i < ngroups; i++) {
		struct iop_rs_group *g = &groups[i];
		const struct iop_rec *first;
		int w;

		if (!g->n[0] || !g->n[1])
			continue;
		paired++;
		first = g->recs[0][0];
		for (w = 0; w < o->nwhere; w++)
			if (!param_matches(g, o->where[w]))
				break;
		if (w < o->nwhere)
			continue;
		for (size_t j = 0; j < first->nmetrics; j++) {
			const char *name = first->metrics[j].name;

			if (!metric_matches(g->bench, name, o->metric) ||
			    !iop_rec_metric(g->recs[1][0], name))
				continue;
			if (!(*matches)++) {
				*pick = g;
				*metric = name;
			}
			if (!o->metric)
				break;
		}
		if (!o->metric && *pick)
			break;
	}
	return paired;
}

static int cmd_plot(int argc, char **argv)
{
	struct plot_opts o = { 0 };
	const char *paths[2] = { NULL, NULL };
	struct iop_rs_file f[2] = { 0 };
	struct iop_rs_group *groups = NULL, *pick = NULL;
	const char *metric = NULL;
	size_t ngroups = 0, matches = 0, paired = 0;
	char why[512], tmp[PATH_MAX];
	int loaded = 0, ret, fd;

	ret = parse_opts(argc, argv, &o, paths);
	if (ret >= 0)
		return ret;
	ret = 2;
	for (; loaded < 2; loaded++) {
		if (iop_rs_load(&f[loaded], paths[loaded], why, sizeof(why)) < 0) {
			say("%s", why);
			goto out;
		}
	}
	if (iop_rs_pair(&f[0], &f[1], &groups, &ngroups)) {
		say("out of memory");
		ret = 1;
		goto out;
	}
	if (iop_rs_check(groups, ngroups, paths[0], paths[1], why, sizeof(why))) {
		say("%s", why);
		goto out;
	}
	paired = pick_group(groups, ngroups, &o, &pick, &metric, &matches);
	if (!pick) {
		if (!paired)
			say("%s and %s have no benchmark with the same parameters in common",
			    paths[0], paths[1]);
		else
			say("no metric%s%s in a benchmark that %s and %s share%s",
			    o.metric ? " " : "", o.metric ? o.metric : "", paths[0], paths[1],
			    o.nwhere ? " (with these --where filters)" : "");
		goto out;
	}
	if (matches > 1)
		say("%zu parameter sets have %s; plotting the first (--where KEY=VALUE picks another)",
		    matches, o.metric);

	/*
	 * Draw into a temporary file: a failed plot leaves OUT as it was. The
	 * handler that removes it is in place before it exists.
	 */
	iop_tmp_cleanup_signals();
	fd = iop_tmp_create(o.out, iop_out_mode(o.out), tmp, sizeof(tmp));
	if (fd < 0) {
		say("cannot write %s: %s", o.out, strerror(-fd));
		ret = 1;
		goto out;
	}
	ret = draw(&o, groups, ngroups, pick, metric, paths, fd);
	close(fd);
	if (ret) {
		iop_tmp_discard(tmp);
		if (ret == -ENOMEM)
			say("out of memory");
		ret = 1;
		goto out;
	}
	ret = iop_tmp_commit(tmp, o.out);
	if (ret) {
		say("%s: %s", o.out, strerror(-ret));
		ret = 1;
	}
out:
	iop_rs_groups_free(groups, ngroups);
	for (int i = 0; i < loaded; i++)
		iop_rs_free(&f[i]);
	return ret;
}

IOP_COMMAND("plot", "draw the per-second samples of two runs (SVG or PNG, with gnuplot)", cmd_plot)
