# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Sourced by scripts/vm.sh, scripts/mutate.sh and scripts/mutate-tool.sh:
# their one-line errors, the machine's Debian mirror and a mutant's
# header. The caller sets prog ("iopath: vm").

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

# patch_header FILE KEY: the value of "# KEY: ..." in a mutant's header.
patch_header() {
	sed -n "/^--- /q; s/^# $2: //p" "$1" | head -n 1
}
