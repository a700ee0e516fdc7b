#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# export and lava read a benchmark record only through its typed view
# (lib/record_view.c, issue 53): cli/export/export_bench.c,
# export_report.c, cmd_export.c and cli/lava/lava_verdict.c never look a
# record's field up by name. A lookup is a call of json_object_get,
# json_object_getn, json_object_iter_at or json_object_iter whose key is
# a name of docs/records.md's tables (the record's fields, its metrics',
# env's and run's) or is not a literal at all (a computed name can be any
# of them); json_object_iter takes no key and is a lookup wherever it is.
# A KCIDB object's "id" or a matrix's "mutants" is not a record's field.
#
# Catches: a reader that goes back to the JSON for a field (each such
# file then checks the field's type, or not, in a way of its own, as
# export_bench.c did with 19 lookups and lava_verdict.c with one), and a
# checked file renamed away so that the check passes on nothing.
#
# usage: tests/record_view_export.sh [BUILD_DIR] (the build is not used)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib/tap.sh"

readers="cli/export/export_bench.c cli/export/export_report.c cli/export/cmd_export.c
cli/lava/lava_verdict.c"

# The record's field names: every `name` (or each part of `a.b`) in the
# first column of docs/records.md's tables, one a line.
record_fields() {
	sed -n 's/^| \(`[^|]*\)|.*/\1/p' "$top/docs/records.md" |
		grep -o '`[a-z_][a-z0-9_.]*`' | tr -d '`' | tr '.' '\n' | sort -u
}

# lookups FIELDS FILE: "FILE:LINE: CALL" for each lookup of a record's
# field in the C file FILE (comments and strings in them left out of the
# search, calls spread over lines taken whole).
lookups() {
	awk -v fields="$1" '
	BEGIN { n = split(fields, f, "\n"); for (i = 1; i <= n; i++) field[f[i]] = 1 }
	{ src = src $0 "\n" }
	END {
		# out: comments blanked (newlines kept), as a comment that quotes
		# a lookup is not one; mask: string literals blanked too, where
		# calls are looked for. Both keep every offset of src.
		out = ""; mask = ""; i = 1; len = length(src)
		while (i <= len) {
			c = substr(src, i, 1); d = substr(src, i, 2)
			if (d == "/*" || d == "//") {
				j = index(substr(src, i + 2), d == "/*" ? "*/" : "\n")
				j = j ? i + j + (d == "/*" ? 3 : 1) : len + 1
				t = substr(src, i, j - i); gsub(/[^\n]/, " ", t)
				out = out t; mask = mask t; i = j
			} else if (c == "\"" || c == "\047") {
				j = i + 1
				while (j <= len && substr(src, j, 1) != c)
					j += substr(src, j, 1) == "\\" ? 2 : 1
				t = substr(src, i, j - i + 1)
				out = out t; gsub(/./, " ", t); mask = mask t; i = j + 1
			} else {
				out = out c; mask = mask c; i++
			}
		}
		at = 1
		while (match(substr(mask, at), /json_object_(get|getn|iter_at|iter)[ \t\n]*\(/)) {
			start = at + RSTART - 1
			name = substr(mask, start, RLENGTH)
			sub(/[ \t\n]*\($/, "", name)
			# the last argument, to the parenthesis that closes the call
			p = start + RLENGTH; depth = 1; arg = ""
			while (p <= len && depth) {
				c = substr(mask, p, 1)
				if (c == "(")
					depth++
				if (c == ")")
					depth--
				if (depth == 1 && c == ",")
					arg = ""
				else if (depth)
					arg = arg substr(out, p, 1)
				p++
			}
			key = arg; gsub(/^[ \t\n]+|[ \t\n]+$/, "", key)
			if (name == "json_object_iter" || name == "json_object_getn")
				hit = 1	# no key, or one with a length: a lookup all the same
			else if (key ~ /^"[^"]*"$/)
				hit = (substr(key, 2, length(key) - 2) in field)
			else
				hit = 1
			if (hit) {
				pre = substr(out, 1, start - 1)
				line = 1 + gsub(/\n/, "\n", pre)
				call = substr(out, start, p - start); gsub(/[ \t\n]+/, " ", call)
				printf "%s:%d: %s\n", FILENAME, line, call
			}
			# on past the name only: a lookup in the arguments is one too
			at = start + RLENGTH
		}
	}' "$2"
}

fields=$(record_fields)
# The field list is read from the docs: a table reshaped out of reach of
# the pattern above would leave nothing to look for.
if echo "$fields" | grep -qx value && echo "$fields" | grep -qx boot_id &&
   echo "$fields" | grep -qx metrics; then
	ok record_view.lint.field_names_read_from_docs_records_md
else
	not_ok record_view.lint.field_names_read_from_docs_records_md "fields: ${fields//$'\n'/ }"
fi

# The check itself must be able to fail: a lookup spread over lines, one
# by a computed name and one in a comment or of a KCIDB field.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/iopath-record-view-export.XXXXXX") ||
	{ echo "Bail out! no temporary directory"; exit 1; }
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/probe.c" << 'EOF'
/* json_object_get(rec, "value") in a comment is not a lookup */
static const char *s = "/* json_object_get(rec, \"bench\") */";
x = json_object_get(json_object_get(rec, "env"),
		    "kernel");
y = json_object_get(params, keys[i]);
z = json_string_value(json_object_get(obj, "start_time"));
EOF
got=$(cd "$tmp" && lookups "$fields" probe.c)
want='probe.c:3: json_object_get(json_object_get(rec, "env"), "kernel")
probe.c:3: json_object_get(rec, "env")
probe.c:5: json_object_get(params, keys[i])'
if [ "$got" = "$want" ]; then
	ok record_view.lint.catches_a_lookup_by_name
else
	not_ok record_view.lint.catches_a_lookup_by_name "got: $(echo "$got" | tr '\n' '|')"
fi

for f in $readers; do
	if [ ! -f "$top/$f" ]; then
		not_ok "record_view.export_lava.$(basename "$f" .c).reads_no_record_field_by_name" \
			"$f: no such file: the list above names what export and lava are made of"
		continue
	fi
	bad=$(cd "$top" && lookups "$fields" "$f")
	if [ -z "$bad" ]; then
		ok "record_view.export_lava.$(basename "$f" .c).reads_no_record_field_by_name"
	else
		mapfile -t lines <<< "$bad"
		not_ok "record_view.export_lava.$(basename "$f" .c).reads_no_record_field_by_name" \
			"${lines[@]}"
	fi
done

finish_tap
