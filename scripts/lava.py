#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""iopath lava: the selftests, iopath mutate and the benchmarks as LAVA jobs,
and the verdict on what came back.

  iopath lava jobs --kernel K [--kernel K...] --out DIR [-- run_kselftest.sh args]
  iopath lava mutate [--work DIR] --out DIR
  iopath lava bench --kernel K --out DIR [--profile NAME] [--boots N] [-- bench args]
  iopath lava ab --a K --b K --out DIR [--boots N] [--profile NAME | -- bench args]
  iopath lava validate JOB.yaml...
  iopath lava run JOB.yaml...       (lava-run here, on configs/lava/qemu-local.yaml)
  iopath lava verdict LOG

A job boots the kernel with the initramfs of `scripts/vm.sh --lava-out`
and runs /iopath/lava/run (scripts/vm/lava-guest.sh) in a LAVA test shell.
`verdict` reads the job's log (lava-run's stderr, or a lab's
`lavacli jobs logs --raw`), takes the TAP the guest wrote on the console,
checks it against the LAVA test cases, and judges it with
scripts/tap-verdict.awk, as `iopath vm` does: the same counts, the same
known failures and required coverage. docs/fleet.md.

Python because the job files and the log are YAML, and the job schema is
lava_common's (a Python package). Exit: 0 passed or written, 1 failed,
2 bad usage or input.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROG = "iopath: lava"
# A log line longer than this is not a line LAVA wrote: the log is refused.
MAX_LINE = 1 << 16
# The guest's console protocol (scripts/vm/lava-guest.sh).
MARK = "IOPATH-LAVA:"


class Bad(Exception):
    """Bad usage or input: one line, exit 2."""


class Parser(argparse.ArgumentParser):
    """argparse whose bad usage is one line and exit 2, as for every iopath
    command, not a usage block (subcommands' parsers are of this class too)."""

    def error(self, message):
        print("iopath: %s: %s (%s --help)" % (self.prog.split(" ", 1)[-1], printable(message), self.prog),
              file=sys.stderr)
        sys.exit(2)


def die(msg, code=1):
    print("%s: %s" % (PROG, printable(msg)), file=sys.stderr)
    sys.exit(code)


def printable(s, limit=400):
    """Text from elsewhere, safe to print: control characters escaped,
    length bounded."""
    s = str(s)
    out = []
    for ch in s[:limit]:
        o = ord(ch)
        if o < 0x20 and ch != "\t" or 0x7f <= o < 0xa0:
            out.append("\\x%02x" % o)
        else:
            out.append(ch)
    if len(s) > limit:
        out.append("...")
    return "".join(out)


def shell_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


# ---- job definitions --------------------------------------------------------

SLUG_RE = re.compile(r"[^A-Za-z0-9._+-]+")
URL_RE = re.compile(r"^(file|https?)://[^\s\"'\\{}<>`$]+$")


def slug(s):
    return SLUG_RE.sub("_", s).strip("._") or "kernel"


def minutes(v, what):
    if not re.fullmatch(r"[1-9][0-9]{0,3}", v or ""):
        raise Bad("%s '%s': expected minutes, 1 to 9999" % (what, v))
    return int(v)


def render(template, values):
    """The template with each ${NAME} replaced by its value as a quoted
    YAML scalar (JSON strings and numbers are YAML)."""
    with open(template, encoding="utf-8") as f:
        text = f.read()

    def sub(m):
        name = m.group(1)
        if name not in values:
            raise Bad("%s: no value for ${%s}" % (template, name))
        return json.dumps(values[name])

    return re.sub(r"\$\{([A-Z0-9_]+)\}", sub, text)


def write_new(path, text):
    """Write a file under a temporary name, rename it into place."""
    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=".new.", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.rename(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def lava_common_validate(text):
    """None if valid, the error if not; raises ImportError without
    lava_common."""
    import yaml
    from lava_common.schemas import validate
    import voluptuous

    try:
        validate(yaml.safe_load(text))
    except voluptuous.Invalid as e:
        return str(e)
    except Exception as e:  # noqa: BLE001
        # lava_common's own checks raise on some values its schema let
        # through (a timeout of "five" minutes: TypeError); a server
        # refuses the job the same way.
        return "lava_common cannot check it: %s: %s" % (type(e).__name__, e)
    return None


def own_checks(text):
    """What this tool needs of a job, lava_common or not."""
    import yaml

    try:
        job = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        return "not YAML: %s%s" % ("line %d: " % (mark.line + 1) if mark else "",
                                   getattr(e, "problem", None) or "unparsable")
    if not isinstance(job, dict):
        return "not a YAML mapping"
    for k in ("device_type", "job_name", "timeouts", "actions"):
        if k not in job:
            return "no %s" % k
    kinds = [next(iter(a)) for a in job["actions"] if isinstance(a, dict) and a]
    if kinds[:3] != ["deploy", "boot", "test"]:
        return "actions are %s, not deploy, boot, test" % kinds
    return None


def stage_kernel(args, kernel, dest, ksft_args, env):
    """scripts/vm.sh --lava-out: the kernel and its initramfs into dest."""
    if os.path.lexists(dest) and not os.path.isdir(dest):
        raise Bad("%s exists and is not a directory (the kernel's artefacts go there)" % dest)
    os.makedirs(dest, exist_ok=True)
    cmd = [os.path.join(TOP, "scripts", "vm.sh"), "--kernel", kernel, "--build", args.build,
           "--lava-out", dest]
    if args.known_failures:
        cmd += ["--known-failures", args.known_failures]
    for e in env:
        cmd += ["--env", e]
    if ksft_args:
        cmd += ["--"] + ksft_args
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    if r.returncode == 2:
        raise Bad("scripts/vm.sh refused kernel %s" % kernel)
    if r.returncode != 0:
        die("scripts/vm.sh --lava-out failed for %s" % kernel)
    return read_sums(dest)


def read_sums(dest):
    sums = {}
    with open(os.path.join(dest, "sha256"), encoding="utf-8") as f:
        for line in f:
            h, name = line.split()
            sums[name] = h
    return sums


def url_of(args, rel):
    if args.url_base:
        return args.url_base.rstrip("/") + "/" + rel
    return "file://" + os.path.join(os.path.abspath(args.out), rel)


def write_job(args, name, kernel_desc, kind, ksft_args, env, append, artefacts=None, run=None, rel=None,
              ramdisk=None):
    """Stage one kernel (into OUT/REL, default NAME) and write OUT/NAME.yaml;
    returns its path. RUN is the test shell's command (default the
    selftests). RAMDISK (a directory under OUT): take the initramfs staged
    there and only copy the kernel into OUT/REL."""
    rel = rel or name
    dest = os.path.join(args.out, rel)
    ramdisk_rel = rel
    if ramdisk is not None:
        if os.path.lexists(dest) and not os.path.isdir(dest):
            raise Bad("%s exists and is not a directory (the kernel's artefacts go there)" % dest)
        os.makedirs(dest, exist_ok=True)
        copy_new(artefacts or kernel_desc, os.path.join(dest, "vmlinuz"))
        sums = {"vmlinuz": sha256_file(os.path.join(dest, "vmlinuz")),
                "initrd.cpio.gz": read_sums(os.path.join(args.out, ramdisk))["initrd.cpio.gz"]}
        ramdisk_rel = ramdisk
    elif os.path.isfile(os.path.join(dest, "sha256")) and rel != name:
        sums = read_sums(dest)
    else:
        sums = stage_kernel(args, artefacts or kernel_desc, dest, ksft_args, env)
    cmdline = "console=ttyS0 panic=-1 rdinit=/init loglevel=5"
    if append:
        cmdline += " " + append
    values = {
        "DEVICE_TYPE": args.device_type,
        "JOB_NAME": "iopath %s %s" % (kind, name),
        "JOB_MINUTES": int(args.job_timeout),
        "BOOT_MINUTES": int(args.boot_timeout),
        "TEST_MINUTES": int(args.test_timeout),
        "KIND": kind,
        "KERNEL_DESC": kernel_desc,
        "ARGS_DESC": " ".join(env + ksft_args) if run is None else run,
        "RUN": run or "/iopath/lava/run",
        "DESCRIPTION": ("iopath benchmarks" if run and "--bench" in run
                        else "iopath selftests through run_kselftest.sh"),
        "KERNEL_ARG": '-kernel {kernel} -append "%s"' % cmdline,
        "KERNEL_URL": getattr(args, "kernel_url", "") or url_of(args, rel + "/vmlinuz"),
        "KERNEL_SHA256": sums["vmlinuz"],
        "RAMDISK_URL": url_of(args, ramdisk_rel + "/initrd.cpio.gz"),
        "RAMDISK_SHA256": sums["initrd.cpio.gz"],
    }
    text = render(args.template, values)
    err = own_checks(text)
    if err:
        die("%s: the job written from %s is wrong: %s" % (name, args.template, err))
    try:
        err = lava_common_validate(text)
        if err:
            die("%s: lava_common rejects the job: %s" % (name, err))
    except ImportError:
        pass
    path = os.path.join(args.out, name + ".yaml")
    write_new(path, text)
    print(path)
    return path


def sha256_file(path):
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def copy_new(src, dst):
    """Copy a file under a temporary name and rename it into place."""
    import shutil

    d = os.path.dirname(dst)
    fd, tmp = tempfile.mkstemp(prefix=".new.", dir=d)
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        os.chmod(tmp, 0o644)
        os.rename(tmp, dst)
    except BaseException:
        os.unlink(tmp)
        raise


def guest_command(env, ksft_args):
    """The test shell's command for these programs and filters, each word
    quoted for the guest's sh."""
    words = ["/iopath/lava/run"]
    for e in env:
        words += ["--env", e]
    words.append("--")
    words += ksft_args
    return " ".join(w if re.fullmatch(r"[A-Za-z0-9_./:=+-]+", w) else shell_quote(w) for w in words)


def check_job_args(args):
    for o in ("job_timeout", "boot_timeout", "test_timeout"):
        minutes(getattr(args, o), "--" + o.replace("_", "-"))
    if getattr(args, "kernel_url", "") and not URL_RE.match(args.kernel_url):
        raise Bad("--kernel-url '%s': expected an http(s):// or file:// URL without blanks or quotes"
                  % args.kernel_url)
    if args.url_base and not URL_RE.match(args.url_base):
        raise Bad("--url-base '%s': expected an http(s):// or file:// URL without blanks or quotes"
                  % args.url_base)
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", args.device_type):
        raise Bad("--device-type '%s': a LAVA device type name" % args.device_type)
    if not os.path.isfile(args.template):
        raise Bad("--template %s: no such file" % args.template)
    if args.append and not re.fullmatch(r"[A-Za-z0-9_.,=/:+ -]*", args.append):
        raise Bad("--append '%s': kernel parameters are [A-Za-z0-9_.,=/:+ -]" % args.append)
    for e in args.env:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", e):
            raise Bad("--env '%s': expected NAME=VALUE" % e)
    if not os.path.isdir(args.out):
        raise Bad("--out %s: no such directory" % args.out)
    args.build = os.path.abspath(args.build)
    args.out = os.path.abspath(args.out)


def cmd_jobs(args):
    check_job_args(args)
    if not args.kernel:
        raise Bad("--kernel is required (a bzImage, a .deb or a Debian package name)")
    if args.kernel_url and len(args.kernel) != 1:
        raise Bad("--kernel-url goes with one --kernel (the same kernel, for its modules and sha256)")
    names = set()
    for k in args.kernel:
        name = slug(os.path.basename(k) if os.path.exists(k) else k)
        if name in names:
            raise Bad("--kernel %s: given twice" % k)
        names.add(name)
    for k in args.kernel:
        name = slug(os.path.basename(k) if os.path.exists(k) else k)
        write_job(args, name, k, "selftests", args.ksft_args, args.env, args.append)
    return 0


BENCH_ARG_RE = re.compile(r"[A-Za-z0-9_.,=:/+-]{1,200}")


def cmd_bench(args):
    """Benchmark jobs on one kernel: one job per boot (--boots N), all
    booting the same kernel and initramfs, each running iopath bench with
    the profile; records come back in the log (iopath lava verdict
    --records), with the boot_id that tells boots apart in iopath compare."""
    check_job_args(args)
    if len(args.kernel) != 1:
        raise Bad("--kernel: exactly one kernel for benchmark jobs")
    run = bench_command(args)
    k = args.kernel[0]
    base = slug(os.path.basename(k) if os.path.exists(k) else k)
    for b in range(1, int(args.boots) + 1):
        write_job(args, "bench-%s-%s-boot%d" % (args.profile, base, b), k, "bench", [], args.env,
                  args.append, run=run, rel=base)
    return 0


def cmd_ab(args):
    """iopath ab as LAVA jobs: kernels A and B, one benchmark job per boot
    (--boots per side), listed A B A B so that a lab that runs them in
    order interleaves the sides as iopath ab does. The verdict: each job's
    records (iopath lava verdict --records), then iopath compare of A's
    against B's, the boot as the unit (docs/compare.md)."""
    check_job_args(args)
    if not args.a or not args.b:
        raise Bad("--a and --b are required (two kernels, as iopath ab takes them)")
    args.kernel = [args.a]
    run = bench_command(args)
    for b in range(1, int(args.boots) + 1):
        for side, k in (("a", args.a), ("b", args.b)):
            write_job(args, "ab-%s-boot%d" % (side, b), k, "ab", [], args.env, args.append, run=run,
                      rel="ab-" + side)
    return 0


def bench_command(args):
    """The test shell's command for iopath bench, its arguments checked."""
    if args.profile != "none" and (not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", args.profile) or not os.path.isfile(
            os.path.join(TOP, "configs", "bench", args.profile + ".conf"))):
        raise Bad("--profile '%s': no configs/bench/%s.conf" % (args.profile, args.profile))
    if args.profile == "none" and not args.ksft_args:
        raise Bad("--profile none: name the benchmark after -- (iopath bench arguments)")
    if not re.fullmatch(r"[1-9][0-9]?", args.boots):
        raise Bad("--boots '%s': 1 to 99" % args.boots)
    for a in args.ksft_args:
        if not BENCH_ARG_RE.fullmatch(a):
            raise Bad("benchmark argument '%s': [A-Za-z0-9_.,=:/+-] only" % a)
    profile = [] if args.profile == "none" else [
        "--profile", "/iopath/bench/configs/bench/%s.conf" % args.profile]
    return " ".join(["/iopath/lava/run", "--bench"] + profile + args.ksft_args)


def patch_header(path, key):
    r = subprocess.run(["bash", "-c", '. "$1/scripts/lib/common.bash"; patch_header "$2" "$3"',
                        "-", TOP, path, key], stdout=subprocess.PIPE, text=True)
    return r.stdout.strip()


def mutant_filters(path):
    """'# Filter: prog=harness options' lines as KSELFTEST_<PROG>_ARGS."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("--- "):
                break
            if line.startswith("# Filter: "):
                p, _, o = line[len("# Filter: "):].rstrip("\n").partition("=")
                out.append("KSELFTEST_%s_ARGS=%s" % (p.upper(), o))
    return out


def cmd_mutate(args):
    """One job per mutant kernel of iopath mutate's work directory (and the
    pristine kernel), each running the programs its header names, as
    scripts/mutate.sh runs them. The kernels have what they need built in
    (configs/kernel/iopath.config), so they share one initramfs
    (OUT/initramfs-mutate), and each job says its programs and filters in
    its test shell command."""
    check_job_args(args)
    kdir = args.kernels or os.path.join(args.work, "kernels")
    pristine = args.pristine or os.path.join(args.work, "obj", "arch", "x86", "boot", "bzImage")
    mutants = sorted(f[:-len(".patch")] for f in os.listdir(args.mutants) if f.endswith(".patch"))
    want = set(args.names)
    unknown = want - set(mutants) - {"pristine"}
    if unknown:
        raise Bad("no mutant %s in %s" % (", ".join(sorted(unknown)), args.mutants))
    # mutate.sh's no_timer_check: the timer check fails at random under TCG.
    append = ("no_timer_check " + args.append).strip()
    n = 0
    union = set()
    for m in mutants:
        union.update(patch_header(os.path.join(args.mutants, m + ".patch"), "Tests").split())
    jobs = []
    if (not want or "pristine" in want) and os.path.isfile(pristine):
        ksft = []
        for p in sorted(union):
            ksft += ["-t", "iopath:" + p]
        jobs.append(("pristine", pristine, ksft, []))
    for m in mutants:
        k = os.path.join(kdir, m)
        if (want and m not in want) or not os.path.isfile(k):
            continue
        f = os.path.join(args.mutants, m + ".patch")
        ksft = []
        for p in patch_header(f, "Tests").split():
            ksft += ["-t", "iopath:" + p]
        jobs.append((m, k, ksft, mutant_filters(f)))
    if jobs:
        stage_kernel(args, jobs[0][1], os.path.join(args.out, "initramfs-mutate"), [], [])
    for name, k, ksft, env in jobs:
        write_job(args, name, name, "mutate", ksft, env, append, k, run=guest_command(env, ksft),
                  ramdisk="initramfs-mutate")
        n += 1
    if n == 0:
        die("no kernels: neither %s nor any mutant in %s (run iopath mutate first)" % (pristine, kdir))
    return 0


def cmd_validate(args):
    bad = 0
    try:
        import lava_common.schemas  # noqa: F401
        have = True
    except ImportError:
        have = False
        print("%s: lava_common is not installed: own checks only" % PROG, file=sys.stderr)
    for j in args.jobs:
        try:
            with open(j, encoding="utf-8", errors="replace") as f:
                text = f.read((1 << 20) + 1)
        except OSError as e:
            raise Bad("%s: %s" % (j, e.strerror))
        if len(text) > 1 << 20:
            # Not a job iopath wrote; its first MiB alone could validate.
            print("%s: %s: invalid: larger than 1 MiB" % (PROG, j), file=sys.stderr)
            bad = 1
            continue
        err = own_checks(text) or (lava_common_validate(text) if have else None)
        if err:
            print("%s: %s: invalid: %s" % (PROG, j, printable(err)), file=sys.stderr)
            bad = 1
    return bad

# ---- the verdict on a job's log ----------------------------------------------


class LogError(Exception):
    """The log cannot be judged: a named failure, exit 1."""


RELEASE_RE = re.compile(r"[A-Za-z0-9._+~-]{1,100}")
CASE_RE = re.compile(r"[A-Za-z0-9_.-]{1,200}")


def log_entries(path):
    """(line number, entry) for each line of a LAVA log: lava-run's stderr
    (one YAML flow mapping a line) or a lab's log (the same as a YAML list,
    "- {...}"). Every line is bounded; anything else is refused by line."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        f = open(path, "rb")
    except OSError as e:
        raise Bad("%s: %s" % (path, e.strerror))
    with f:
        n = 0
        while True:
            raw = f.readline(MAX_LINE + 1)
            if not raw:
                break
            n += 1
            if len(raw) > MAX_LINE:
                raise LogError("malformed LAVA log: line %d is longer than %d bytes" % (n, MAX_LINE))
            line = raw.decode("utf-8", "replace").strip()
            if line.startswith("- "):
                line = line[2:]
            if not line or line in ("---", "..."):
                continue
            try:
                e = yaml.load(line, Loader=loader)
            except yaml.YAMLError:
                raise LogError("malformed LAVA log: line %d is not a YAML mapping" % n)
            if not isinstance(e, dict) or "lvl" not in e or "msg" not in e:
                raise LogError("malformed LAVA log: line %d has no lvl and msg" % n)
            yield n, e


def tap_cases(tap):
    """{test case: pass|fail|skip} as the guest reports them from its TAP
    (scripts/vm/lava-guest.sh: harness tests, then program.NAME)."""
    cases = {}
    for line in tap:
        m = re.match(r"# (not )?ok [0-9]+ (.*)", line)
        if m:
            st = "fail" if m.group(1) else "pass"
            name = m.group(2)
            if re.search(r"# *SKIP", name):
                st = "skip"
            name = re.sub(r" *#.*", "", name)
            if CASE_RE.fullmatch(name):
                cases[name] = st
            continue
        # "not ok 4 selftests: iopath: NAME # exit=1": the name, not the
        # note; "ok 4 selftests: iopath: NAME # SKIP": skipped whole
        m = re.match(r"(not )?ok [0-9]+ selftests: .* (\S+)$", re.sub(r" *#.*", "", line))
        if m:
            cases["program." + m.group(2)] = ("fail" if m.group(1) else
                                              "skip" if re.search(r"# *SKIP", line) else "pass")
    return cases


def read_job(path):
    """What the guest and LAVA said: a dict of release, features, tap,
    console, end, cases, job (LAVA's job result), failures (LAVA's
    failed actions)."""
    job = {"release": None, "features": [], "tap": [], "console": [], "end": None,
           "cases": {}, "job": None, "failures": [], "guest_verdict": None, "entries": 0,
           "records": [], "bench_exit": None, "bench": []}
    for n, e in log_entries(path):
        job["entries"] += 1
        lvl, msg = e["lvl"], e["msg"]
        if lvl == "target":
            if not isinstance(msg, str):
                raise LogError("malformed LAVA log: line %d: a target line that is not text" % n)
            # LAVA writes every '"' of the console as '\"' (ShellLogger's
            # "escape double quotes for YAML syntax"): undone, so that the
            # TAP and the records are the guest's.
            msg = msg.replace('\\"', '"')
            if not msg.startswith(MARK):
                job["console"].append(printable(msg, MAX_LINE))
                continue
            chan, _, text = msg[len(MARK):].partition(": ")
            text = printable(text, MAX_LINE)
            if chan == "tap":
                job["tap"].append(text)
            elif chan == "feature":
                job["features"].append(text)
            elif chan == "kernel":
                if not RELEASE_RE.fullmatch(text):
                    raise LogError("malformed LAVA log: line %d: kernel release '%s'" % (n, text))
                job["release"] = text
            elif chan == "end":
                job["end"] = text
            elif chan == "guest-verdict":
                job["guest_verdict"] = text
            elif chan == "guest-note":
                # The guest's own verdict's notes: the host's verdict
                # writes its own, by its known-failures list.
                pass
            elif chan == "record":
                job["records"].append((n, msg[len(MARK):].partition(": ")[2]))
            elif chan == "bench-exit":
                job["bench_exit"] = text
            elif chan == "bench":
                job["bench"].append(text)
        elif lvl == "results":
            if not isinstance(msg, dict) or "definition" not in msg or "case" not in msg:
                raise LogError("malformed LAVA log: line %d: a result without definition and case" % n)
            # Only scalars are read: a structure (YAML aliases can make one
            # exponentially large) is never turned into text.
            for k in ("definition", "case", "result", "error_msg", "error_type"):
                if not isinstance(msg.get(k, ""), (str, int, float)):
                    raise LogError("malformed LAVA log: line %d: a result whose %s is not text" % (n, k))
            d, c, r = str(msg["definition"]), str(msg["case"]), str(msg.get("result", ""))
            if d == "lava":
                if r == "fail":
                    job["failures"].append("%s: %s" % (c, printable(msg.get("error_msg", "failed"), 300)))
                if c == "job":
                    job["job"] = (r, printable(msg.get("error_type", ""), 40),
                                  printable(msg.get("error_msg", ""), 300))
            elif d.endswith("_iopath"):
                if c in job["cases"] and c not in ("iopath-verdict",):
                    raise LogError("malformed LAVA log: line %d: test case %s reported twice" % (n, printable(c)))
                job["cases"][c] = r
    return job


def awk_verdict(job, known_failures):
    """scripts/tap-verdict.awk on the guest's TAP, as the guest's /init
    runs it in iopath vm: the notes, the coverage block, the result line."""
    with tempfile.TemporaryDirectory(prefix="iopath-lava.") as d:
        feat = os.path.join(d, "features")
        tap = os.path.join(d, "tap")
        with open(feat, "x", encoding="utf-8") as f:
            f.write("".join(x + "\n" for x in job["features"]))
        with open(tap, "x", encoding="utf-8") as f:
            f.write("".join(x + "\n" for x in job["tap"]))
        start, end = "", ""
        if job["end"] and re.fullmatch(r"[0-9.]+ [0-9.]+", job["end"]):
            start, end = job["end"].split()
        r = subprocess.run(["awk", "-v", "kernel=" + job["release"], "-v", "tag=iopath-vm",
                            "-v", "result=IOPATH-VM-RESULT", "-v", "coverage=1",
                            "-v", "start=" + start, "-v", "end=" + end,
                            "-f", os.path.join(TOP, "scripts", "tap-verdict.awk"),
                            known_failures, os.path.join(TOP, "selftests", "requirements"), feat, tap],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode == 2:
        raise Bad("scripts/tap-verdict.awk: %s" % r.stderr.strip().split("\n")[0])
    return r.stdout.splitlines()


def kernel_log_findings(console, build):
    """The console lines scripts/vm/verdict.bash calls kernel bug reports
    (iopath kmsg scan, lib/kmsg_patterns.h), by that same function."""
    with tempfile.TemporaryDirectory(prefix="iopath-lava.") as d:
        f = os.path.join(d, "console")
        with open(f, "x", encoding="utf-8") as out:
            out.write("".join(x + "\n" for x in console))
        env = dict(os.environ)
        installed = os.path.join(TOP, "..", "..", "bin", "iopath")
        if not os.access(os.path.join(build, "iopath"), os.X_OK) and os.access(installed, os.X_OK):
            # make install: PREFIX/share/iopath is TOP, PREFIX/bin/iopath the tool.
            env.setdefault("IOPATH_BIN", os.path.abspath(installed))
        r = subprocess.run(["bash", "-c", 'top=$1 build=$2 console=$3; . "$top/scripts/vm/verdict.bash"; '
                            'kernel_log_findings', "-", TOP, build, f],
                           stdout=subprocess.PIPE, text=True, env=env)
    return [x for x in r.stdout.splitlines() if x]


def judge(job):
    """The reasons the job cannot be judged at all, in order."""
    if job["entries"] == 0:
        return "malformed LAVA log: no entries"
    if job["job"] is None:
        return "malformed LAVA log: no job result (the log is cut short)"
    timed = [f for f in job["failures"] if "timed out" in f or "timeout" in f.lower()]
    if timed:
        return "the LAVA job timed out: %s" % timed[0]
    if job["release"] is None:
        return "the guest never started the run (no kernel line)%s" % (
            ": " + job["failures"][0] if job["failures"] else "")
    if job["end"] is None:
        return "the guest's run did not finish (no end line)%s" % (
            ": " + job["failures"][0] if job["failures"] else "")
    return None


def bench_verdict(args, job):
    """A benchmark job: iopath bench's exit status and its records, each a
    JSON object of schema 1 (docs/records.md), written to --records."""
    recs = []
    reason = None
    for n, r in job["records"]:
        try:
            rec = json.loads(r)
        except (ValueError, RecursionError):
            reason = "malformed LAVA log: line %d: a record that is not JSON" % n
            break
        if not isinstance(rec, dict) or rec.get("schema") != 1 or not isinstance(rec.get("bench"), str):
            reason = "malformed LAVA log: line %d: a record that is not of schema 1" % n
            break
        recs.append(json.dumps(rec, separators=(",", ":")))
    for x in job["bench"][-20:]:
        print("# bench: " + x)
    if reason is None and job["bench_exit"] != "0":
        reason = "iopath bench exited %s in the guest" % job["bench_exit"]
    if reason is None and not recs:
        reason = "iopath bench wrote no record"
    if args.records and recs:
        write_new(args.records, "".join(r + "\n" for r in recs))
    if reason is not None:
        print("%s: %s" % (PROG, printable(reason)), file=sys.stderr)
        return 1
    nm = sum(len(json.loads(r).get("metrics") or []) for r in recs)
    print("lava: bench: %d records, %d metrics on %s (LAVA job %s)%s" % (
        len(recs), nm, job["release"], job["job"][0],
        "; records in " + args.records if args.records else ""), file=sys.stderr)
    return 0


def cmd_verdict(args):
    if not os.path.isfile(args.known_failures) and args.known_failures != "/dev/null":
        raise Bad("--known-failures %s: no such file" % args.known_failures)
    out_lines = []
    reason = None
    try:
        job = read_job(args.log)
        if job["bench_exit"] is not None or job["records"]:
            # A benchmark job ends with its exit line, not an end line.
            job["end"] = job["end"] or "bench"
            reason = judge(job)
            if reason is None:
                return bench_verdict(args, job)
        else:
            reason = judge(job)
    except LogError as e:
        job = None
        reason = str(e)
    if job is not None and job["release"] is not None:
        out_lines.append("# iopath-vm: kernel %s (LAVA job log %s)" % (job["release"], os.path.basename(args.log)))
    if job is not None:
        out_lines += job["tap"]
    status = "fail"
    result = None
    if job is not None and job["release"] is not None and job["end"] is not None:
        verdict = awk_verdict(job, args.known_failures)
        out_lines += verdict
        result = next((x for x in verdict if x.startswith("# IOPATH-VM-RESULT: ")), None)
    if reason is None and job is not None:
        # LAVA's test cases must be the TAP's, one for one.
        want = tap_cases(job["tap"])
        got = {c: r for c, r in job["cases"].items() if c != "iopath-verdict"}
        for c in sorted(set(want) | set(got)):
            if want.get(c) != got.get(c):
                reason = ("LAVA's test cases and the TAP disagree: %s is %s in the TAP, %s in the test cases"
                          % (c, want.get(c, "absent"), got.get(c, "absent")))
                break
    if args.console and job is not None:
        write_new(args.console, "".join(x + "\n" for x in job["console"]))
    if reason is not None:
        # Like a guest that stopped without a result: the result line goes.
        out_lines = [x for x in out_lines if not x.startswith("# IOPATH-VM-RESULT: ")]
        result = None
    out = "".join(x + "\n" for x in out_lines)
    if args.tap:
        write_new(args.tap, out)
    sys.stdout.write(out)
    sys.stdout.flush()
    if reason is not None:
        print("%s: %s" % (PROG, printable(reason)), file=sys.stderr)
        return 1
    f = dict(re.findall(r"(\w+)=(\S+)", result or ""))
    status = f.get("status", "fail")
    bad = kernel_log_findings(job["console"], getattr(args, "build", os.path.join(TOP, "build")))
    print("lava: %s passed, %s failed,%s %s skipped (%s programs on %s; LAVA job %s)" % (
        f.get("passed"), f.get("failed"), " %s known," % f["known"] if f.get("known", "0") != "0" else "",
        f.get("skipped"), f.get("programs"), job["release"], job["job"][0]), file=sys.stderr)
    if bad:
        print("%s: the kernel console shows a kernel bug report (lib/kmsg_patterns.h):" % PROG, file=sys.stderr)
        for x in bad[:5]:
            print("  | " + printable(x), file=sys.stderr)
        status = "fail"
    if job["job"][0] != "pass":
        # The run finished and is judged; what failed after it is LAVA's.
        print("%s: note: LAVA reports the job %s: %s" % (PROG, job["job"][0], job["job"][2] or job["job"][1]),
              file=sys.stderr)
    # The durations differ: the guest's runner times the programs, the
    # host the runner (its probe included) from the end line.
    def counts(v):
        return re.sub(r" seconds=\S+", "", v or "")
    if job["guest_verdict"] and counts(job["guest_verdict"]) != counts(result):
        print("%s: note: the guest's own verdict differs: %s" % (PROG, job["guest_verdict"]), file=sys.stderr)
    for x in out_lines:
        if x.startswith("# iopath-vm: coverage: "):
            print("coverage: " + x[len("# iopath-vm: coverage: "):], file=sys.stderr)
    print("coverage: kernel console of the whole run (loglevel=5): %s" % ("FAIL" if bad else "ran, clean"),
          file=sys.stderr)
    return 0 if status == "pass" else 1


def cmd_run(args):
    """Each job in turn with lava-run on the local QEMU device (one QEMU at
    a time), then its verdict; JOB.log and JOB.tap beside the job."""
    import shutil

    if not shutil.which("lava-run"):
        die("lava-run not found: scripts/deps.sh lava installs lava-dispatcher "
            "(apt-get install --no-install-recommends lava-dispatcher)")
    if os.geteuid() != 0:
        raise Bad("lava-run needs root")
    for j in args.jobs:
        if not os.path.isfile(j) or not j.endswith(".yaml"):
            raise Bad("%s: not a job file (*.yaml)" % j)
    if not os.path.isfile(args.device):
        raise Bad("--device %s: no such file" % args.device)
    worst = 0
    for i, j in enumerate(args.jobs):
        base = j[:-len(".yaml")]
        # A job id of its own: lava-run works in /var/lib/lava/dispatcher/tmp/ID.
        job_id = str(os.getpid() * 100 + i)
        with tempfile.TemporaryDirectory(prefix="iopath-lava-run.") as d:
            fd = os.open(base + ".log.new", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
            print("%s: running %s (lava-run job %s)" % (PROG, j, job_id), file=sys.stderr)
            r = subprocess.run(["lava-run", "--job-id", job_id, "--output-dir", d,
                                "--device", args.device, j], stdout=subprocess.DEVNULL, stderr=fd)
            os.close(fd)
            os.rename(base + ".log.new", base + ".log")
        v = argparse.Namespace(log=base + ".log", known_failures=args.known_failures,
                               tap=base + ".tap", console=base + ".console", records=base + ".jsonl",
                               build=os.path.join(TOP, "build"))
        rc = cmd_verdict(v)
        print("%s: %s: lava-run exit %d, verdict exit %d" % (PROG, j, r.returncode, rc), file=sys.stderr)
        worst = max(worst, rc)
    return worst


# ---- main ---------------------------------------------------------------------


def job_options(p):
    p.add_argument("--out", required=True, help="directory for the jobs and their artefacts")
    p.add_argument("--build", default=os.path.join(TOP, "build"), help="iopath build directory")
    p.add_argument("--url-base", default="",
                   help="URL the lab fetches OUT's artefacts from (default file:// paths)")
    p.add_argument("--device-type", default="qemu", help="LAVA device type (default qemu)")
    p.add_argument("--template", default=os.path.join(TOP, "configs", "lava", "selftests.yaml"))
    p.add_argument("--job-timeout", default="90", help="minutes (default 90)")
    p.add_argument("--boot-timeout", default="5", help="minutes (default 5)")
    p.add_argument("--test-timeout", default="75", help="minutes (default 75)")
    p.add_argument("--known-failures", default="", help="for the guest's own verdict")
    p.add_argument("--append", default="", help="more kernel command line")
    p.add_argument("--env", action="append", default=[], help="NAME=VALUE in the guest")


def main(argv):
    ksft_args = []
    if "--" in argv:
        i = argv.index("--")
        argv, ksft_args = argv[:i], argv[i + 1:]
    ap = Parser(prog="iopath lava", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("jobs", help="one job per kernel: the selftests")
    p.add_argument("--kernel", action="append", default=[])
    p.add_argument("--kernel-url", default="",
                   help="where the lab fetches the kernel (a build's URL); --kernel is the same kernel, "
                        "for its modules and sha256")
    job_options(p)
    p = sub.add_parser("mutate", help="one job per mutant kernel of iopath mutate")
    p.add_argument("--work", default="/var/cache/iopath/mutate")
    p.add_argument("--kernels", default="", help="mutant kernels (default WORK/kernels)")
    p.add_argument("--pristine", default="", help="pristine bzImage (default WORK/obj/...)")
    p.add_argument("--mutants", default=os.path.join(TOP, "configs", "mutants"))
    p.add_argument("names", nargs="*", help="mutants (default: every one with a kernel)")
    job_options(p)
    p = sub.add_parser("bench", help="benchmark jobs on one kernel, one per boot")
    p.add_argument("--kernel", action="append", default=[])
    p.add_argument("--profile", default="quick",
                   help="configs/bench/NAME.conf (default quick; none: the benchmark is named after --)")
    p.add_argument("--boots", default="1", help="jobs, one boot each (default 1)")
    job_options(p)
    p = sub.add_parser("ab", help="iopath ab as jobs: kernels A and B, one job per boot")
    p.add_argument("--a", default="", help="kernel A (as iopath ab --a takes it)")
    p.add_argument("--b", default="", help="kernel B")
    p.add_argument("--profile", default="none",
                   help="configs/bench/NAME.conf (default none: the benchmark is named after --)")
    p.add_argument("--boots", default="3", help="boots per side (default 3)")
    job_options(p)
    p = sub.add_parser("validate", help="validate job files")
    p.add_argument("jobs", nargs="+")
    p = sub.add_parser("run", help="run jobs with lava-run here, then their verdict")
    p.add_argument("jobs", nargs="+")
    p.add_argument("--device", default=os.path.join(TOP, "configs", "lava", "qemu-local.yaml"))
    p.add_argument("--known-failures", default=os.path.join(TOP, "configs", "known-failures"))
    p = sub.add_parser("verdict", help="the verdict on a job's log")
    p.add_argument("log")
    p.add_argument("--known-failures", default=os.path.join(TOP, "configs", "known-failures"))
    p.add_argument("--tap", default="", help="also write the TAP and verdict there")
    p.add_argument("--console", default="", help="write the guest's console there")
    p.add_argument("--records", default="", help="a benchmark job's records (JSON Lines) there")
    p.add_argument("--build", default=os.path.join(TOP, "build"),
                   help="iopath build directory (its iopath checks the console)")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    args.ksft_args = ksft_args
    try:
        if args.cmd == "jobs":
            return cmd_jobs(args)
        if args.cmd == "mutate":
            return cmd_mutate(args)
        if args.cmd == "bench":
            return cmd_bench(args)
        if args.cmd == "ab":
            return cmd_ab(args)
        if args.cmd == "validate":
            return cmd_validate(args)
        if args.cmd == "verdict":
            return cmd_verdict(args)
        if args.cmd == "run":
            return cmd_run(args)
    except Bad as e:
        print("%s: %s" % (PROG, printable(e)), file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
