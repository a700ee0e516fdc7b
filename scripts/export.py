#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""iopath export --kcidb: a run's results as KernelCI report data (KCIDB v5.3).

  iopath export --kcidb [options] INPUT

INPUT is one of:
  - the TAP of a selftest run (make kselftest, the selftests.tap of make
    check), of `iopath vm` (its stdout) or of `iopath lava verdict`;
  - a mutation matrix (iopath mutate's matrix.json);
  - benchmark records (iopath bench's JSON Lines, docs/records.md).

It writes one JSON object: the checkout (the kernel source), the build (the
kernel release, its config and image hash) and the tests: one per harness
test, path "iopath.FIXTURE.VARIANT.TEST", status PASS, FAIL or SKIP, a
known kernel bug that excused a failure in misc, the failure's harness
lines as log_excerpt; one per program ("iopath.PROGRAM") and one for the
whole run ("iopath", the verdict of scripts/tap-verdict.awk). A matrix gives
one build per mutant and a test "iopath.mutate.NAME" each: PASS when the
selftests killed the mutant, FAIL when it survived. Records give a test
"iopath.bench.BENCH.METRIC" per metric, status DONE with the value in
number.

The output is validated against configs/kcidb/kcidb-io.schema.v5.3.json
with python3-jsonschema before it is written; an input with no test result
is a failure, never an empty report. Exit: 0 written, 1 failed, 2 bad usage
or input. Submitting needs credentials from KernelCI; producing the JSON
does not.
"""
import argparse
import hashlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lava  # noqa: E402  (tap_cases, awk_verdict, printable, write_new, Bad)

TOP = lava.TOP
PROG = "iopath: export"
SCHEMA = os.path.join(TOP, "configs", "kcidb", "kcidb-io.schema.v5.3.json")
VERSION = {"major": 5, "minor": 3}
MAX_INPUT = 64 << 20
MAX_EXCERPT = 16384
ORIGIN_RE = re.compile(r"[a-z0-9_]{1,64}")
PATH_PART_RE = re.compile(r"[^a-zA-Z0-9_-]+")


class Failed(Exception):
    """A named failure: exit 1."""


def text(s, limit=4096):
    """A string from the input, safe for the report: no NUL, bounded."""
    return lava.printable(s, limit)


def path_part(s):
    return PATH_PART_RE.sub("_", s).strip("_") or "unnamed"


class Report:
    def __init__(self, args, digest):
        self.origin = args.origin
        self.run = digest[:16]
        self.args = args
        self.checkouts, self.builds, self.tests = [], [], []

    def ident(self, kind, *parts):
        return "%s:%s-%s%s" % (self.origin, kind, self.run,
                               "".join("-" + path_part(p) for p in parts))

    def checkout(self, release, source):
        c = {"id": self.ident("c"), "origin": self.origin, "valid": True,
             "misc": {"kernel_release": release, "source": source}}
        if self.args.tree_name:
            c["tree_name"] = self.args.tree_name
        if self.args.git_url:
            c["git_repository_url"] = self.args.git_url
        if self.args.git_commit:
            c["git_commit_hash"] = self.args.git_commit
        self.checkouts.append(c)
        return c["id"]

    def build(self, checkout_id, release, name="", status="PASS", misc=None):
        b = {"id": self.ident("b", name) if name else self.ident("b"), "origin": self.origin,
             "checkout_id": checkout_id, "architecture": "x86_64", "status": status,
             "misc": {"kernel_release": release}}
        if self.args.config:
            b["config_name"] = os.path.basename(self.args.config)
            b["misc"]["config_sha256"] = sha256_file(self.args.config)
        if self.args.image:
            b["misc"]["image_sha256"] = sha256_file(self.args.image)
            b["output_files"] = [{"name": os.path.basename(self.args.image),
                                  "url": "file://" + os.path.abspath(self.args.image)}]
        if misc:
            b["misc"].update(misc)
        self.builds.append(b)
        return b["id"]

    def test(self, build_id, path, status, misc=None, excerpt=None, number=None):
        t = {"id": self.ident("t", str(len(self.tests))), "origin": self.origin,
             "build_id": build_id, "path": path, "status": status}
        if misc:
            t["misc"] = misc
        if excerpt:
            t["log_excerpt"] = excerpt[-MAX_EXCERPT:]
        if number is not None:
            t["number"] = number
        self.tests.append(t)

    def json(self):
        return {"version": VERSION, "checkouts": self.checkouts, "builds": self.builds,
                "tests": self.tests}


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# ---- the inputs -----------------------------------------------------------------


def from_tap(rep, lines, args):
    """A selftest, VM or LAVA run: its TAP, judged by scripts/tap-verdict.awk
    if it does not carry the verdict already."""
    release = args.kernel_release
    for x in lines:
        m = re.match(r"# iopath-vm: kernel (\S+)", x)
        if m and not release:
            release = m.group(1)
    if not release:
        release = os.uname().release
    if not lava.RELEASE_RE.fullmatch(release):
        raise lava.Bad("kernel release '%s' is not a uname -r" % text(release, 100))
    result = next((x for x in lines if re.match(r"# IOPATH(-VM)?-RESULT: ", x)), None)
    notes = lines
    unfinished = None
    if result is None and any(x.startswith("# iopath-vm: kernel ") for x in lines):
        # An iopath vm or iopath lava verdict run: its result line is
        # written when the run ended and was judged, and taken out when
        # it was not (a guest that hung, a LAVA job that timed out, test
        # cases that disagree with the TAP). Judged afresh, what TAP
        # there is could pass.
        unfinished = ("the run has no result line: it did not finish, or iopath lava verdict "
                      "refused it (its stderr says why)")
    if result is None:
        job = {"release": release, "features": [], "tap": lines, "end": None}
        if args.features:
            with open(args.features, encoding="utf-8", errors="replace") as f:
                job["features"] = [x.rstrip("\n") for x in f]
        notes = lava.awk_verdict(job, args.known_failures)
        result = next((x for x in notes if x.startswith("# IOPATH-VM-RESULT: ")), None)
    cases = lava.tap_cases(lines)
    if not any(not c.startswith("program.") for c in cases):
        # A program that ran no test (its plan 1..0, or skipped whole)
        # passes in run_kselftest.sh's TAP: counted, it would make a
        # green report of zero tests.
        raise Failed("no test results in the input (%s): a KCIDB report of a run with zero tests "
                     "would read as nothing wrong" % (
                         "%d programs, none with a harness test" % len(cases) if cases else "no program ran"))
    known = {}
    for x in notes:
        m = re.match(r"# [a-z-]+: known failure on [^:]+: ([^:]+): ([^:]+): (.*)", x)
        if m:
            known[m.group(1)] = {"bug": m.group(2), "reason": text(m.group(3), 1000),
                                 "doc": "docs/kernel-bugs/%s.md" % m.group(2)}
    failed_progs = set()
    for x in notes:
        m = re.match(r"# [a-z-]+: failed programs: (.*)", x)
        if m:
            failed_progs.update(m.group(1).split())
    excerpts = harness_excerpts(lines)
    cid = rep.checkout(release, args.source or "kernel %s" % release)
    bid = rep.build(cid, release)
    for name, st in cases.items():
        if name.startswith("program."):
            path = "iopath." + path_part(name[len("program."):])
        else:
            path = "iopath." + ".".join(path_part(p) for p in name.split("."))
        status = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}[st]
        misc = None
        if name in known:
            misc = {"known_bug": known[name], "excused": True}
        elif name.startswith("program.") and st == "fail" and name[len("program."):] not in failed_progs:
            # Failed only in known kernel bugs: the verdict excused it.
            misc = {"excused": True}
        exc = excerpts.get(name) if status != "PASS" else None
        rep.test(bid, path, status, misc, exc)
    f = dict(re.findall(r"(\w+)=(\S+)", result or ""))
    run_status = "PASS" if f.get("status") == "pass" and not unfinished else "FAIL"
    misc = {k: int(v) if v.isdigit() else v for k, v in f.items()}
    why = [x for x in notes if re.match(r"# [a-z-]+: (required|known failure did not|failed programs|not excused)", x)]
    if unfinished:
        misc = {"status": "fail", "reason": unfinished}
        why = [unfinished]
        print("%s: %s" % (PROG, unfinished), file=sys.stderr)
    rep.test(bid, "iopath", run_status, misc,
             None if run_status == "PASS" else "\n".join(why)[:MAX_EXCERPT])


def harness_excerpts(lines):
    """{test: its harness lines} from "#  RUN name" to its result."""
    out, cur, buf = {}, None, []
    for x in lines:
        m = re.match(r"# # +RUN +(\S+)", x)
        if m:
            cur, buf = m.group(1), [x[2:]]
            continue
        if cur is None:
            continue
        if re.match(r"# (not )?ok [0-9]+ ", x):
            buf.append(x[2:])
            out[cur] = "\n".join(buf)[-MAX_EXCERPT:]
            cur = None
        elif x.startswith("# "):
            if sum(len(b) for b in buf) < 4 * MAX_EXCERPT:
                buf.append(x[2:])
    return out


def from_matrix(rep, m, args):
    muts = m.get("mutants")
    if not isinstance(muts, list):
        raise lava.Bad("a matrix without a mutants list")
    if not muts:
        raise Failed("no mutants in the matrix: a KCIDB report of a campaign with zero tests "
                     "would read as nothing wrong")
    release = args.kernel_release or "mutate"
    src = text(m.get("kernel_source") or args.source or "", 1000)
    cid = rep.checkout(release, src or "iopath mutate")
    status_of = {"killed": "PASS", "crash": "PASS", "survived": "FAIL", "equivalent": "SKIP",
                 "no-build": "ERROR", "unstable": "ERROR", "not run": "MISS"}
    for mu in muts:
        if not isinstance(mu, dict) or not isinstance(mu.get("name"), str):
            raise lava.Bad("a mutant without a name in the matrix")
        name = mu["name"]
        cls = str(mu.get("class", "not run"))
        if cls not in status_of:
            raise lava.Bad("mutant %s: unknown class '%s'" % (text(name, 100), text(cls, 40)))
        bstatus = "FAIL" if cls == "no-build" else ("MISS" if cls == "not run" else "PASS")
        bid = rep.build(cid, release, name, bstatus,
                        {"mutant": text(name, 200), "function": text(mu.get("function", ""), 200),
                         "build_s": mu.get("build_s")})
        misc = {"class": cls, "killed_by": [text(k, 300) for k in mu.get("killed_by", [])][:100],
                "detail": text(mu.get("detail", ""), 2000), "run_s": mu.get("run_s")}
        rep.test(bid, "iopath.mutate." + path_part(name), status_of[cls], misc,
                 text(mu.get("detail", ""), MAX_EXCERPT) if status_of[cls] != "PASS" else None)


def from_records(rep, recs, args):
    n = 0
    builds = {}
    for r in recs:
        if r.get("schema") != 1 or not isinstance(r.get("bench"), str):
            raise lava.Bad("a record that is not schema 1 with a bench name")
        env = r.get("env") if isinstance(r.get("env"), dict) else {}
        kern = env.get("kernel") if isinstance(env.get("kernel"), dict) else {}
        release = args.kernel_release or str(kern.get("release") or "unknown")
        if release not in builds:
            cid = rep.checkout(release, args.source or "kernel %s" % text(release, 100))
            builds[release] = rep.build(cid, release, "" if not builds else release)
        for met in r.get("metrics") or []:
            if not isinstance(met, dict) or not isinstance(met.get("value"), (int, float)):
                continue
            num = {"value": met["value"]}
            if isinstance(met.get("unit"), str) and met["unit"]:
                num["unit"] = text(met["unit"], 40)
            misc = {"rep": r.get("rep"), "params": r.get("params"), "record_status": r.get("status"),
                    "untrusted": r.get("untrusted"), "agg": met.get("agg"), "better": met.get("better"),
                    "n": met.get("n"), "cv": met.get("cv"), "boot_id": kern.get("boot_id")}
            rep.test(builds[release], "iopath.bench.%s.%s" % (path_part(r["bench"]), path_part(str(met.get("name")))),
                     "DONE", {k: v for k, v in misc.items() if v is not None}, None, num)
            n += 1
    if n == 0:
        raise Failed("no benchmark metric in the records: a KCIDB report of zero tests "
                     "would read as nothing wrong")


def read_input(path):
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_INPUT + 1)
    except OSError as e:
        raise lava.Bad("%s: %s" % (path, e.strerror))
    if len(data) > MAX_INPUT:
        raise lava.Bad("%s: larger than %d MiB" % (path, MAX_INPUT >> 20))
    return data


def validate(report):
    try:
        import jsonschema
    except ImportError:
        raise Failed("python3-jsonschema is not installed: the report cannot be validated "
                     "(apt-get install python3-jsonschema)")
    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    v = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    errs = sorted(v.iter_errors(report), key=lambda e: list(e.path))
    if errs:
        e = errs[0]
        raise Failed("the report does not validate against %s: %s at %s" % (
            os.path.basename(SCHEMA), text(e.message, 300), "/".join(str(p) for p in e.path)))


def main(argv):
    ap = lava.Parser(prog="iopath export", description=__doc__.split("\n")[0])
    ap.add_argument("--kcidb", action="store_true", required=True, help="KCIDB v5.3 JSON")
    ap.add_argument("input")
    ap.add_argument("-o", "--output", default="", help="write here (default stdout)")
    ap.add_argument("--origin", default="iopath", help="the CI system's name in KCIDB ([a-z0-9_])")
    ap.add_argument("--kernel-release", default="", help="uname -r of the kernel tested")
    ap.add_argument("--source", default="", help="where the kernel came from (package, tree)")
    ap.add_argument("--tree-name", default="")
    ap.add_argument("--git-url", default="", help="https:// URL of the kernel tree")
    ap.add_argument("--git-commit", default="", help="its full commit hash")
    ap.add_argument("--config", default="", help="the kernel's .config (its name and sha256)")
    ap.add_argument("--image", default="", help="the kernel image (its sha256)")
    ap.add_argument("--known-failures", default=os.path.join(TOP, "configs", "known-failures"))
    ap.add_argument("--features", default="", help="iopath_probe output for a TAP without a verdict")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    try:
        if not ORIGIN_RE.fullmatch(args.origin):
            raise lava.Bad("--origin '%s': [a-z0-9_], as KCIDB requires" % args.origin)
        if args.git_url and not re.fullmatch(r"https://[^\s\0]+", args.git_url):
            raise lava.Bad("--git-url '%s': an https:// URL" % args.git_url)
        if args.git_commit and not re.fullmatch(r"[0-9a-f]{40}", args.git_commit):
            raise lava.Bad("--git-commit '%s': a full 40-digit hash" % args.git_commit)
        for o in ("config", "image", "features"):
            v = getattr(args, o)
            if v and not os.path.isfile(v):
                raise lava.Bad("--%s %s: no such file" % (o, v))
        data = read_input(args.input)
        rep = Report(args, hashlib.sha256(data).hexdigest())
        stripped = data.lstrip()
        if stripped.startswith(b"{") and b'"schema"' in data[:200] and b'"bench"' in data[:400]:
            recs = []
            for i, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
                if line.strip():
                    try:
                        recs.append(json.loads(line))
                    except (ValueError, RecursionError):
                        raise lava.Bad("%s:%d: not a JSON record" % (args.input, i))
                    if not isinstance(recs[-1], dict):
                        raise lava.Bad("%s:%d: not a JSON object" % (args.input, i))
            from_records(rep, recs, args)
        elif stripped.startswith(b"{"):
            try:
                m = json.loads(data)
            except (ValueError, RecursionError):
                raise lava.Bad("%s: not JSON" % args.input)
            if not isinstance(m, dict) or "mutants" not in m:
                raise lava.Bad("%s: JSON that is neither a matrix nor records" % args.input)
            from_matrix(rep, m, args)
        else:
            lines = [text(x, lava.MAX_LINE) for x in data.decode("utf-8", "replace").splitlines()]
            from_tap(rep, lines, args)
        report = rep.json()
        validate(report)
        out = json.dumps(report, indent=1, sort_keys=True) + "\n"
        if args.output:
            lava.write_new(args.output, out)
        else:
            sys.stdout.write(out)
        print("export: %d tests, %d builds, %d checkouts (KCIDB %d.%d, origin %s, validated)" % (
            len(rep.tests), len(rep.builds), len(rep.checkouts), VERSION["major"], VERSION["minor"],
            args.origin), file=sys.stderr)
        return 0
    except lava.Bad as e:
        print("%s: %s" % (PROG, lava.printable(e)), file=sys.stderr)
        return 2
    except Failed as e:
        print("%s: %s" % (PROG, lava.printable(e)), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
