# SPDX-License-Identifier: GPL-2.0-or-later
"""
The calls of a jansson or libyaml function whose failure return is thrown
away: the call is a statement of its own (after ';', '{', '}', 'else',
'do', the ')' of an if/for/while/switch or a *_foreach macro, or a (void)
cast). Such a call fails in silence: json_string() of bytes that are not
UTF-8 is NULL, json_object_set_new() of NULL fails, and the value is gone
from the output while everything else carries on (mutant matrix said
"killed":2 and listed one mutant).

A call whose value is used (if, return, an assignment, an operand, an
argument) passes: what the caller does with it is the compiler's and the
reviewer's to judge; this finds the ones nobody looks at.

usage: python3 unchecked_calls.py FILE...   (one line per finding; exit 1 if any)
"""
import re
import sys

FUNCS = [
    # jansson: -1 or NULL on failure (out of memory, a NULL value, bad UTF-8)
    "json_object_set", "json_object_set_new", "json_object_set_nocheck",
    "json_object_set_new_nocheck", "json_object_setn", "json_object_setn_new",
    "json_object_setn_nocheck", "json_object_setn_new_nocheck",
    "json_object_update", "json_object_update_existing", "json_object_update_missing",
    "json_object_update_recursive", "json_object_update_new",
    "json_object_update_existing_new", "json_object_update_missing_new",
    "json_array_append", "json_array_append_new", "json_array_insert",
    "json_array_insert_new", "json_array_set", "json_array_set_new", "json_array_extend",
    "json_dumps", "json_dumpb", "json_dumpf", "json_dumpfd", "json_dump_file",
    "json_dump_callback", "json_pack", "json_pack_ex", "json_vpack_ex", "json_unpack",
    "json_unpack_ex", "json_vunpack_ex", "json_string_set", "json_string_set_nocheck",
    "json_integer_set", "json_real_set", "json_number_value_set",
    # libyaml: 0 on failure (the void ones, *_delete and *_set_*, are left out)
    "yaml_parser_initialize", "yaml_parser_parse", "yaml_parser_scan", "yaml_parser_load",
    "yaml_emitter_initialize", "yaml_emitter_emit", "yaml_emitter_open",
    "yaml_emitter_close", "yaml_emitter_dump", "yaml_emitter_flush",
    "yaml_stream_start_event_initialize", "yaml_stream_end_event_initialize",
    "yaml_document_start_event_initialize", "yaml_document_end_event_initialize",
    "yaml_alias_event_initialize", "yaml_scalar_event_initialize",
    "yaml_sequence_start_event_initialize", "yaml_sequence_end_event_initialize",
    "yaml_mapping_start_event_initialize", "yaml_mapping_end_event_initialize",
    "yaml_document_initialize", "yaml_document_add_scalar", "yaml_document_add_sequence",
    "yaml_document_add_mapping", "yaml_document_append_sequence_item",
    "yaml_document_append_mapping_pair",
]
CALL = re.compile(r"\b(" + "|".join(FUNCS) + r")\s*\(")
CONTROL = {"if", "for", "while", "switch"}


def blank(src):
    """@src with comments, string and character literals as spaces (lines kept)."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", src[i + 1:j - 1]) + c)
            i = j
        elif c == "#" and (i == 0 or src[i - 1] == "\n"):
            # a preprocessor line (and its continuations) holds no statement
            j = i
            while True:
                j = src.find("\n", j)
                if j < 0 or src[j - 1] != "\\":
                    break
                j += 1
            j = n if j < 0 else j
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def word_before(s, i):
    """The identifier that ends just before @i (after blanks), and where it starts."""
    j = i
    while j > 0 and s[j - 1].isspace():
        j -= 1
    k = j
    while k > 0 and (s[k - 1].isalnum() or s[k - 1] == "_"):
        k -= 1
    return s[k:j], k


def discarded(s, start):
    """Whether the call at @start is a statement of its own."""
    j = start
    while j > 0 and s[j - 1].isspace():
        j -= 1
    if j == 0:
        return True
    prev = s[j - 1]
    if prev in ";{}":
        return True
    word, _ = word_before(s, j)
    if word in ("else", "do"):
        return True
    if prev != ")":
        return False
    # the ')' of a control statement, of a foreach macro, or of a cast
    depth, k = 0, j - 1
    while k >= 0:
        if s[k] == ")":
            depth += 1
        elif s[k] == "(":
            depth -= 1
            if depth == 0:
                break
        k -= 1
    if k < 0:
        return False
    inner = s[k + 1:j - 1].strip()
    word, _ = word_before(s, k)
    if inner == "void":
        return True
    return word in CONTROL or word.endswith("_foreach") or word.endswith("_foreach_safe")


def main(paths):
    found = 0
    for path in paths:
        try:
            src = open(path, encoding="utf-8", errors="replace").read()
        except OSError as e:
            print(f"{path}: {e.strerror}", file=sys.stderr)
            return 2
        s = blank(src)
        for m in CALL.finditer(s):
            if discarded(s, m.start()):
                line = s.count("\n", 0, m.start()) + 1
                print(f"{path}:{line}: {m.group(1)}(): its failure return is not checked")
                found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
