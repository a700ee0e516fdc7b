# SPDX-License-Identifier: GPL-2.0-or-later
#
# The static basic blocks of some kernel functions, from objdump -d of the
# vmlinux (scripts/coverage.sh). Input: first the functions, one line each
# "START END NAME" (16 hex digits each, END the address after the last
# byte), sorted by START; a line "--" ends them; then objdump's
# disassembly (--no-show-raw-insn) of a range that holds them.
# Output: "START END FILE NAME" per block, FILE from -v file=.
#
# A block starts at the function's first instruction, at the target of a
# jump inside the function and after a jump, a return or ud2 (a WARN or
# BUG trap); a call does not end one. An indirect jump's targets are not
# known here (a switch's jump table): their blocks are found only as the
# code after another block's end, so a block may be counted larger than
# it is; the count of blocks is a lower bound.
#
# Addresses are compared by their low 32 bits (kernel text lies in one
# 4 GiB window), parsed by hand: mawk has no strtonum, and a double holds
# 32 bits exactly.

function low(s,    v, i, c) {
	v = 0
	s = substr(s, length(s) - 7)
	for (i = 1; i <= 8; i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (c == 0)
			return -1
		v = v * 16 + c - 1
	}
	return v
}

# objdump drops leading zeros (a user-space ELF's 401000): 16 digits.
function pad(s) {
	return substr("0000000000000000", 1, 16 - length(s)) s
}

BEGIN { nf = 0; cur = 0; phase = 1 }

phase == 1 && $0 == "--" { phase = 2; next }
phase == 1 {
	nf++
	fs_s[nf] = $1; fs_e[nf] = $2; fname[nf] = $3
	f_lo[nf] = low($1); f_hi[nf] = low($2)
	ni[nf] = 0
	next
}

# "ffffffff81234567:\tmnemonic operands"
phase == 2 && $1 ~ /^[0-9a-f]+:$/ {
	a = pad(substr($1, 1, length($1) - 1))
	x = low(a)
	while (cur < nf && (cur == 0 || x >= f_hi[cur]))
		cur++
	if (cur == 0 || x < f_lo[cur] || x >= f_hi[cur])
		next
	n = ++ni[cur]
	ia[cur, n] = a
	# Prefixes objdump prints before the mnemonic.
	k = 2
	while ($k ~ /^(cs|ds|notrack|bnd)$/)
		k++
	m = $k
	op = $(k + 1)
	if (op ~ /^[0-9a-f]+$/ && length(op) <= 16)
		op = pad(op)
	# Keyed by the address text: mawk prints a number above 2^31 as
	# %.6g, and addresses would share keys.
	if (n == 1 || after[cur])
		lead[a] = 1
	after[cur] = (m ~ /^(j|ret|ud2)/)
	if (m ~ /^j/ && op ~ /^[0-9a-f]+$/ && length(op) == 16) {
		t = low(op)
		if (t >= f_lo[cur] && t < f_hi[cur])
			lead[op] = 1
	}
}

END {
	for (f = 1; f <= nf; f++) {
		start = ""
		for (i = 1; i <= ni[f]; i++) {
			if (!(ia[f, i] in lead))
				continue
			if (start != "")
				print start, ia[f, i], file, fname[f]
			start = ia[f, i]
		}
		if (start != "")
			print start, fs_e[f], file, fname[f]
	}
}
