#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The YAML iopath reads (LAVA job files, the lines of a LAVA job log) is
# bounded before libyaml's loader runs (lib/yaml_bound.c): libyaml is
# quadratic in the nesting of flow collections (1 MiB of '[' was minutes
# of CPU in `iopath lava validate`, 40,000 levels 5.9 s), in its anchors
# and aliases, and in its %TAG directives. Each hostile text below is
# refused with one line and exit 2 (a log line: the log is malformed, exit
# 1) within 10 s, where it took minutes before; lava run refuses such a
# job before it looks for lava-run, which loads jobs with libyaml too.
# A text just within the bounds still loads.
#
# usage: tests/yaml_bound.sh BUILD_DIR   (TAP on stdout)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
. "$top/tests/lib/tap.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/iopath-yaml-bound.XXXXXX") || { echo "Bail out! no temporary directory"; exit 1; }
trap 'rm -rf "$tmp"' EXIT

# hostile NAME: a 1 MiB job file $tmp/NAME.yaml made by python3 from the
# expression on standard input (M is 1 MiB).
hostile() {
	python3 -c "import sys; M = 1 << 20; open(sys.argv[1], 'w').write(eval(sys.stdin.read())[:M])" \
		"$tmp/$1.yaml"
}
hostile deep_flow <<< "'[' * M"
hostile deep_flow_mapping <<< "'{a: ' * M"
hostile tag_directives <<< "''.join('%%TAG !a%d! tag:x,2000:\n' % i for i in range(70000)) + '--- x\n'"
hostile anchors <<< "''.join('- &a%d x\n' % i for i in range(100000))"
hostile nodes <<< "'[' + 'a, ' * M"

# refused NAME WANT-RC WANT-ERE CMD...: exit WANT-RC within 10 s, one line
# on stderr matching WANT-ERE.
refused() {
	local name=$1 want_rc=$2 want=$3 rc t0=$SECONDS
	shift 3
	timeout -s KILL 10 "$@" > /dev/null 2> "$tmp/err" < /dev/null
	rc=$?
	if [ "$rc" = "$want_rc" ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -qE -- "$want" "$tmp/err"; then
		ok "$name ($((SECONDS - t0)) s)"
	else
		[ "$rc" = 137 ] && rc="137, killed after 10 s"
		not_ok "$name" "exit $rc (want $want_rc, one line)" "$(head -c 400 "$tmp/err")"
	fi
}

lava=("$build/iopath" lava)
refused yaml.validate.deep_flow_sequence_refused_at_once 2 'deep_flow.yaml: line 1: nested deeper than 64 levels$' \
	"${lava[@]}" validate "$tmp/deep_flow.yaml"
refused yaml.validate.deep_flow_mapping_refused_at_once 2 'deep_flow_mapping.yaml: line 1: nested deeper than 64 levels$' \
	"${lava[@]}" validate "$tmp/deep_flow_mapping.yaml"
refused yaml.validate.tag_directives_refused_at_once 2 'tag_directives.yaml: line 65: more than 64 directives$' \
	"${lava[@]}" validate "$tmp/tag_directives.yaml"
refused yaml.validate.anchors_refused_at_once 2 'anchors.yaml: line 257: more than 256 anchors and aliases$' \
	"${lava[@]}" validate "$tmp/anchors.yaml"
refused yaml.validate.nodes_refused_at_once 2 'nodes.yaml: line 1: more than 65536 nodes$' \
	"${lava[@]}" validate "$tmp/nodes.yaml"
refused yaml.run.deep_job_refused_before_lava_run 2 'deep_flow.yaml: line 1: nested deeper than 64 levels$' \
	"${lava[@]}" run "$tmp/deep_flow.yaml"

# A log whose entries nest 60,000 deep: each line was seconds.
python3 -c "import sys
line = '- {\"dt\": \"2024-01-01T00:00:00\", \"lvl\": \"target\", \"msg\": ' + '[' * 60000 + '\n'
open(sys.argv[1], 'w').write(line * 8)" "$tmp/deep.log"
refused yaml.verdict.deep_log_line_refused_at_once 1 'malformed LAVA log: line 1 is not a YAML mapping' \
	"${lava[@]}" verdict --build "$build" "$tmp/deep.log"

# Within the bounds: 64 levels, 256 anchors and aliases, 64 directives.
python3 -c "import sys
open(sys.argv[1], 'w').write('%YAML 1.1\n' + ''.join('%%TAG !t%d! tag:x,2000:\n' % i for i in range(63)) +
	'---\nx: ' + '[' * 63 + ']' * 63 + '\ny: [' + ', '.join('&a%d v' % i for i in range(128)) + ']\n' +
	'z: [' + ', '.join('*a%d' % i for i in range(128)) + ']\n')" "$tmp/edge.yaml"
timeout -s KILL 10 "${lava[@]}" validate "$tmp/edge.yaml" > /dev/null 2> "$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -qx 'iopath: lava: .*edge.yaml: invalid: no device_type' "$tmp/err"; then
	ok yaml.validate.text_at_the_bounds_loads
else
	not_ok yaml.validate.text_at_the_bounds_loads "exit $rc (want 1: loaded, then no device_type)" \
		"$(head -c 400 "$tmp/err")"
fi

finish_tap
