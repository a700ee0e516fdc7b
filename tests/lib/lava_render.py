#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Render each job's context through lava-server's own device-type
template, as a server does for the job (the device dictionary extends the
device type's template; the job's context is the templates' variables).

tests/lava.sh: print per job one line: for qemu the QEMU command line the
boot action runs (command, options, extra), for x86 the deploy methods and
the ipxe ramdisk commands. .ci/lava-lab (--device OUT, one job): write the
rendered device configuration lava-run takes (lava-run --device OUT).

usage: lava_render.py DEVICE_TYPES_DIR JOB.yaml...
       lava_render.py --device OUT DEVICE_TYPES_DIR JOB.yaml
"""
import sys

import jinja2
import yaml


def main(argv):
    out = None
    if len(argv) == 5 and argv[1] == "--device":
        out, argv = argv[2], argv[:1] + argv[3:]
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(argv[1]), autoescape=False,
                             trim_blocks=True)
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            job = yaml.safe_load(f)
        dt = job["device_type"]
        ctx = job.get("context") or {}
        text = env.get_template(dt + ".jinja2").render(**ctx)
        device = yaml.safe_load(text)
        if out:
            with open(out, "x", encoding="utf-8") as f:
                f.write(text)
            return 0
        if dt == "qemu":
            p = device["actions"]["boot"]["methods"]["qemu"]["parameters"]
            words = [str(p["command"]).strip()] + [str(o) for o in p["options"]]
            words += [str(o) for o in p.get("extra") or []]
            print(" ".join(words))
        elif dt == "x86":
            deploy = sorted(device["actions"]["deploy"]["methods"])
            cmds = device["actions"]["boot"]["methods"]["ipxe"]["ramdisk"]["commands"]
            print("deploy %s; ipxe ramdisk: %s" % (" ".join(m for m in deploy if m == "tftp"),
                                                    "; ".join(cmds)))
        else:
            print("%s: device type %s" % (path, dt), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
