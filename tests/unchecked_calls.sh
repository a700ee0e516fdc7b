#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# No call of a jansson or libyaml function whose failure return is thrown
# away (tests/lib/unchecked_calls.py). Bug caught: mutant matrix ignored
# json_string()'s NULL for bytes that are not UTF-8 and the failure of
# json_object_set_new() and json_array_append_new() that followed, and
# matrix.json said "killed":2 while listing one mutant; a record whose
# "run" could not be packed (a NaN figure) was written without it. The
# check is shown to fail on planted unchecked calls, and to pass the
# forms that use the value.
#
# usage: tests/unchecked_calls.sh [BUILD_DIR]     (prints TAP)
set -u
cd "$(dirname "$0")/.." || exit 1

. tests/lib/tap.sh

lint=tests/lib/unchecked_calls.py
tmp=$(mktemp -d /tmp/iopath-unchecked.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

if ! command -v python3 > /dev/null; then
	not_ok "unchecked_calls.python3_installed" "scripts/deps.sh installs python3 for make check"
	finish_tap
fi

# ---- the tree -------------------------------------------------------------------
mapfile -t files < <(git ls-files '*.c' '*.h')
python3 "$lint" "${files[@]}" > "$tmp/tree" 2>&1
rc=$?
if [ "$rc" = 0 ] && [ ! -s "$tmp/tree" ]; then
	ok "unchecked_calls.none_in_the_tree"
else
	not_ok "unchecked_calls.none_in_the_tree (exit $rc)" "$(head -n 20 "$tmp/tree")"
fi

# ---- planted: each unchecked call found, by its line ---------------------------
cat > "$tmp/planted.c" <<'EOF'
static int planted(json_t *o, json_t *a, FILE *f, yaml_emitter_t *e, yaml_event_t *ev)
{
	const char *k;
	json_t *v;
	int ret = 0;

	json_object_set_new(o, "a", json_string("x"));
	if (o)
		json_array_append_new(a, json_integer(1));
	(void)json_dumpf(o, f, 0);
	yaml_emitter_emit(e, ev);
	json_object_foreach(o, k, v)
		json_object_set(a, k, v);
	if (ret) { ret = 1; } else json_array_extend(a, o);
	json_pack("{s:i}",
		  "n", 1);
	/* checked: */
	if (json_object_set_new(o, "b", json_null()))
		return -1;
	ret = json_array_append_new(a, json_true());
	ret |= json_object_set(o, "c", v);
	if (!yaml_emitter_emit(e, ev) || json_dumpf(o, f, 0))
		return -1;
	v = json_pack("{s:o}", "d", json_pack("[i]", 2));
	/* json_object_set_new(o, "in a comment", v); */
	k = "json_object_set_new(o, \"in a string\", v);";
	return json_object_set_new(o, "e", v) ? -1 : (int)json_array_append(a, v);
}
EOF
python3 "$lint" "$tmp/planted.c" > "$tmp/planted" 2>&1
rc=$?
want="7 json_object_set_new
9 json_array_append_new
10 json_dumpf
11 yaml_emitter_emit
13 json_object_set
14 json_array_extend
15 json_pack"
got=$(sed -nE 's/^[^:]*:([0-9]+): ([a-z_]+)\(\): .*/\1 \2/p' "$tmp/planted")
if [ "$rc" = 1 ] && [ "$got" = "$want" ]; then
	ok "unchecked_calls.planted_unchecked_calls_found_and_checked_ones_passed"
else
	not_ok "unchecked_calls.planted_unchecked_calls_found_and_checked_ones_passed (exit $rc)" \
		"$(cat "$tmp/planted")"
fi

finish_tap
