# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# Sourced by the EOF-tail reproducers (reproducers/*.sh): their argument,
# their test file and their verdict, so each reproducer holds only its
# xfs_io steps. Not a reproducer itself: it lives below reproducers/lib/
# where iopath repro does not look for bugs.
#
# Sets dir (the script's DIR argument) and f ($dir/NAME.PID, NAME the
# reproducer's), or exits 2 when DIR is missing or xfs_io is not installed.

dir=${1:?usage: $0 DIR (a directory on the filesystem to test)}
# shellcheck disable=SC2034 # used by the reproducers that source this
f=$dir/$(basename "$0" .sh).$$
command -v xfs_io >/dev/null || { echo "xfs_io not found (xfsprogs)"; exit 2; }

# count_s OFF LEN [-d]: bytes of 'S' (0x53) in [OFF, OFF+LEN) of $f.
count_s() {
	xfs_io ${3:+"$3"} -c "pread -v $1 $2" "$f" |
		awk '/^[0-9a-f]+:/ { for (i = 2; i <= 17; i++) if ($i == "53") n++ } END { print n + 0 }'
}

# expect WHAT: the expected outcome, then the heading of the actual one.
expect() {
	echo "expected: $1"
	echo "actual:"
}

# verdict COUNT...: remove $f; exit 1 ("reproduced") when any COUNT is
# above zero, else 0 ("not reproduced").
verdict() {
	rm -f "$f"
	for c in "$@"; do
		if [ "$c" -gt 0 ]; then
			echo reproduced
			exit 1
		fi
	done
	echo "not reproduced"
	exit 0
}

# verdict_s OFF LEN: verdict on the bytes of 'S' in [OFF, OFF+LEN).
verdict_s() {
	n=$(count_s "$1" "$2")
	echo "bytes of 'S' in [$1, $(($1 + $2))): $n"
	verdict "$n"
}
