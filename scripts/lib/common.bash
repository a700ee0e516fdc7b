# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Sourced by scripts/vm.sh, scripts/mutate.sh and scripts/mutate-tool.sh:
# their one-line errors, the files they write, the machine's Debian mirror,
# and the mutants and their headers. The caller sets prog ("iopath: vm").

# usage_error MESSAGE: bad usage or input, exit 2.
usage_error() {
	echo "$prog: $*" >&2
	exit 2
}

# fail MESSAGE: anything else that stops the run, exit 1.
fail() {
	echo "$prog: $*" >&2
	exit 1
}

# esc TEXT: TEXT with each control character (C0, DEL, C1, the line
# separators and the bidirectional controls) and each byte that is not
# UTF-8 as \xHH and a backslash as \\, printed by iopath esc: iop_esc() of
# lib/quote.c, the one escaper for the terminal. A name or value from the
# command line or a file, put in a message, can neither forge a line nor
# reach the terminal raw. Without an iopath binary (not built yet) every
# byte outside printable ASCII is a '?': a mask, so that nothing raw gets
# through on that path either.
esc() {
	local bin s
	bin=$(iopath_bin)
	if [ -x "$bin" ] && s=$("$bin" esc -- "$1"); then
		printf '%s' "$s"
	else
		local LC_ALL=C
		printf '%s' "${1//[!\ -~]/?}"
	fi
}

# esc_line LINE: LINE, a line of a message that may be escaped already (of
# iopath's own stderr, which escaped what it names), as iopath esc --line
# prints it: as it is unless something in it needs escaping, so that a
# name in it is escaped once, not twice (a\\x0ab). Without an iopath
# binary, the mask of esc().
esc_line() {
	local bin s
	bin=$(iopath_bin)
	if [ -x "$bin" ] && s=$("$bin" esc --line -- "$1"); then
		printf '%s' "$s"
	else
		local LC_ALL=C
		printf '%s' "${1//[!\ -~]/?}"
	fi
}

# ---- files the scripts write: the rule of lib/outfile.c ----------------------
# Root writes where a user points (--log, --work): a name must never be
# opened if someone planted a link there.

# has_control TEXT: TEXT holds what iop_is_control() of lib/quote.c flags
# (a control character, C1, a bidirectional control, a byte that is not
# UTF-8): asked of iopath esc, which escapes exactly those, so that the
# scripts' check of output names is lib/outfile.c's. Without an iopath
# binary, anything past printable ASCII counts (esc's own mask).
has_control() {
	local bin e
	bin=$(iopath_bin)
	if [ -x "$bin" ] && e=$("$bin" esc -- "$1" && echo .); then
		[ "${e%$'\n.'}" != "${1//\\/\\\\}" ]
	else
		local LC_ALL=C
		[[ $1 == *[!\ -~]* ]]
	fi
}

# out_refusal FINAL: why FINAL may not be written (a control character in
# its name, which every message would print raw, a symbolic link, or not
# a regular file), or nothing. The one check of write_file and new_file.
out_refusal() {
	if has_control "$1"; then
		echo "$(esc "$1"): a control character in the name (refused: it would be printed raw)"
	elif [ -L "$1" ]; then
		echo "$1: is a symbolic link (refused: it would be replaced, not followed)"
	elif [ -e "$1" ] && [ ! -f "$1" ]; then
		echo "$1: is not a regular file"
	fi
}

# write_file FINAL: standard input into FINAL, through a new file that
# mktemp makes (O_EXCL: never opened through a link) in FINAL's directory,
# then mv -T over FINAL (rename(2): a link planted meanwhile is replaced,
# not followed). A link or anything but a regular file at FINAL is
# refused. The mode is 0644 less the umask, or the permission bits of a
# FINAL we own, never set-id bits. 1 after one line on stderr.
write_file() {
	local final=$1 why dir tmp mode
	why=$(out_refusal "$final")
	if [ -n "$why" ]; then
		echo "$prog: $why" >&2
		return 1
	fi
	dir=$(dirname -- "$final")
	mode=$(printf '%o' $((0644 & ~0$(umask))))
	if [ -f "$final" ] && [ -O "$final" ]; then
		mode=$(printf '%o' $((0$(stat -c %a -- "$final") & 0777)))
	fi
	if ! tmp=$(mktemp -- "$dir/.$(basename -- "$final").XXXXXX"); then
		echo "$prog: $final: cannot create a file in $dir" >&2
		return 1
	fi
	if ! cat > "$tmp" || ! chmod "$mode" -- "$tmp" || ! mv -T -- "$tmp" "$final"; then
		rm -f -- "$tmp"
		echo "$prog: $final: cannot be written" >&2
		return 1
	fi
}

# out_dir OPT DIR: DIR, a directory the script writes into, checked by the
# rule of the C commands (lib/outfile.c's iop_out_dir_check() through
# iopath outdir: no control character, no symbolic link, a directory or
# absent below one) and made if missing, never its parents; its absolute
# path on stdout. Refused: one line naming OPT, exit 2 (the caller's
# $(...) || exit passes it on).
out_dir() {
	local bin r rc
	bin=$(iopath_bin)
	[ -x "$bin" ] || fail "$1: $bin is not built (make cli): it checks output directories"
	r=$("$bin" outdir -- "$2" 2>&1)
	rc=$?
	case $rc in
	0) printf '%s\n' "$r" ;;
	2) usage_error "$1 ${r#iopath: outdir: }" ;;
	*) fail "$1 ${r#iopath: outdir: }" ;;
	esac
}

# new_file FILE: FILE a new empty regular file, for the caller's '>>' (a
# log written as it grows, a child's stderr). A link or anything but a
# regular file at FILE is refused; FILE is removed and created again with
# O_EXCL (noclobber on a name that is not there), so a link planted after
# the check is not followed either. 1 after one line on stderr.
new_file() {
	local why
	why=$(out_refusal "$1")
	if [ -n "$why" ]; then
		echo "$prog: $why" >&2
		return 1
	fi
	if ! rm -f -- "$1" || ! (set -C; : > "$1") 2>/dev/null; then
		echo "$prog: $1: cannot be created" >&2
		return 1
	fi
}

# pick_accel: what --accel ($accel: tcg, kvm or auto) means on this
# machine, tcg or kvm. vm runs its guests with it, ab chooses its clock
# domain by it.
pick_accel() {
	case $accel in
	tcg|kvm) echo "$accel" ;;
	auto)
		# A hardware KVM boots stock kernels; a software one (PVM on a
		# nested host) does not, and TCG is the safe choice.
		if [ -w /dev/kvm ] && { [ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]; } &&
		   grep -qwE 'vmx|svm' /proc/cpuinfo; then
			echo kvm
		else
			echo tcg
		fi ;;
	esac
}

# host_mirror PATH: the first URI of the machine's apt sources whose path
# ends in /PATH (debian, debian-security).
host_mirror() {
	{
		grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources |
			awk '{ for (i = 2; i <= NF; i++) print $i }'
		grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
			sed 's/\[[^]]*\]//' | awk '{ print $2 }'
	} | grep -E "/$1/?\$" | head -n 1
}

# iopath_bin: the iopath binary the scripts hand their parsing to:
# IOPATH_BIN (iopath sets it when it runs a script), else the one in the
# caller's iopath build directory ($build), else in the tree's build/.
common_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
iopath_bin() {
	if [ -n "${IOPATH_BIN:-}" ]; then
		echo "$IOPATH_BIN"
	elif [ -n "${build:-}" ] && [ -x "$build/iopath" ]; then
		echo "$build/iopath"
	else
		echo "$common_top/build/iopath"
	fi
}

# mutant_cmd ARGS...: iopath mutant ARGS (lib/mutant.c, the one reader of
# mutant headers). A header it cannot read is bad input: its one line,
# and exit 2.
mutant_cmd() {
	local rc
	"$(iopath_bin)" mutant "$@"
	rc=$?
	[ "$rc" = 0 ] && return 0
	[ "$rc" = 2 ] && exit 2
	fail "iopath mutant $1 failed (exit $rc; is $(iopath_bin) built?)"
}

# patch_header FILE KEY: the value of "# KEY: ..." in a mutant's header
# (each, one a line, for a key given once per program: Filter).
patch_header() {
	mutant_cmd header "$1" "$2"
}

# patch_expects FILE: the globs of a mutant's "# Expect: a, b*", one a line.
patch_expects() {
	mutant_cmd expects "$1"
}

# load_mutants DIR CHECK [WANT...]: the mutants of DIR (*.patch, in file name
# order) into the caller's mfile (NAME -> file, declared -A) and mnames, then
# only the WANT ones if any are given. iopath mutant list refuses a header
# without Function, Bug and Tests or without a unified diff after it, and
# "CHECK FILE" refuses (usage_error) what else the caller does not take:
# its test program names, for one.
load_mutants() {
	local dir=$1 check=$2 n names
	shift 2
	mfile=()
	mnames=()
	names=$(mutant_cmd list "$dir" "$@") || exit
	for n in $names; do
		mfile[$n]=$dir/$n.patch
		mnames+=("$n")
	done
	for n in "${mnames[@]}"; do
		"$check" "${mfile[$n]}"
	done
	[ $# -eq 0 ] || mnames=("$@")
}

# check_value OPTION KIND VALUE: usage_error unless iopath value takes
# VALUE for OPTION as KIND (count:MIN:MAX[:UNIT], percent, date,
# utc-time): ranges and dates are checked by the C parsers the commands
# use (lib/number.c, lib/date.c), never by a pattern in a script.
check_value() {
	local err
	err=$("$(iopath_bin)" value "$@" 2>&1 >/dev/null) || usage_error "${err#iopath: value: }"
}
