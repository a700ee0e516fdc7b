#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/lava_lab.sh only: jobs LAVA's schema judges, made from good jobs
by every change of one kind at every place (none picked by hand): each
mapping key dropped, an unknown key added to each mapping, each scalar
replaced by 0, "x", true and null, each mapping or list replaced by "x".
Each mutant is written to OUT/NNNN.yaml, and one line per mutant goes to
stdout: "NNNN accept|reject WHAT", the verdict of lava-common's own
lava_common.schemas.validate(job, strict=True) (any exception a reject:
that is what a server does with the job).

Files after "--" are judged as they are, not mutated.

usage: lava_mutants.py OUT JOB.yaml... [-- FIXTURE.yaml...]
"""
import copy
import os
import sys

import yaml
from lava_common.schemas import validate

REPLACEMENTS = [("0", 0), ("'x'", "x"), ("true", True), ("null", None)]


def places(node, path=()):
    """Every (path, node) of @node, itself first."""
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from places(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from places(v, path + (i,))


def with_change(job, path, change):
    new = copy.deepcopy(job)
    parent = new
    for p in path[:-1]:
        parent = parent[p]
    change(parent, path[-1] if path else None)
    return new


def mutants(job):
    for path, node in list(places(job)):
        where = ".".join(str(p) for p in path) or "(root)"
        if isinstance(node, dict):
            for k in node:
                yield "drop %s" % ".".join(str(p) for p in path + (k,)), \
                    with_change(job, path + (k,), lambda par, key: par.pop(key))
            if path:
                yield "add x_unknown to %s" % where, \
                    with_change(job, path, lambda par, key: par[key].__setitem__("x_unknown", 1))
        if not path:
            continue
        if isinstance(node, (dict, list)):
            yield "%s = 'x'" % where, with_change(job, path, lambda par, key: par.__setitem__(key, "x"))
            continue
        for name, value in REPLACEMENTS:
            yield "%s = %s" % (where, name), \
                with_change(job, path, lambda par, key, v=value: par.__setitem__(key, v))


def verdict(job):
    try:
        validate(job, strict=True)
    except Exception:  # pylint: disable=broad-except
        return "reject"
    return "accept"


def main(argv):
    out, n, mutate = argv[1], 0, True
    for src in argv[2:]:
        if src == "--":
            mutate = False
            continue
        with open(src, encoding="utf-8") as f:
            job = yaml.safe_load(f)
        some = list(mutants(job)) if mutate else []
        for what, m in [("as it is: %s" % os.path.basename(src), job)] + some:
            n += 1
            name = "%04d" % n
            with open(os.path.join(out, name + ".yaml"), "w", encoding="utf-8") as f:
                yaml.safe_dump(m, f, sort_keys=False)
            print("%s %s %s" % (name, verdict(m), what))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
