#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Builds contrib/qemu-plugin/tbcount.c, the QEMU TCG plugin that counts
# each translation block's executions (iopath ab --explain, iopath
# coverage), against the plugin API of the QEMU that is installed: a
# plugin is loaded only by the QEMU whose qemu-plugin.h it was built with
# (QEMU_PLUGIN_VERSION is checked at load, the structures are not), and
# Debian ships no qemu-plugin.h. So the header is taken from Debian's
# qemu source package of exactly the installed version, fetched through a
# private apt state in BUILD/qemu-plugin/apt (deb-src lines for bookworm,
# bookworm-updates and bookworm-security on the machine's own mirrors;
# the machine's apt configuration is never touched), checked against the
# .dsc's SHA-256 and never committed.
#
# usage: scripts/qemu-plugin.sh [--build DIR]
# Prints the plugin's path. Exit 0 built (or up to date), 1 a fetch or
# the compiler failed, 2 bad usage or a source that is not the installed
# version's.
set -u

prog="iopath: qemu-plugin"
top=$(cd "$(dirname "$0")/.." && pwd)
# usage_error, fail, write_file, new_file, host_mirror, esc
# shellcheck source=scripts/lib/common.bash
. "$top/scripts/lib/common.bash"

build=$top/build
while [ $# -gt 0 ]; do
	case $1 in
	--build)
		[ $# -ge 2 ] || usage_error "--build needs a value"
		build=$2
		shift 2 ;;
	-h|--help) echo "usage: scripts/qemu-plugin.sh [--build DIR]: builds BUILD/qemu-plugin/tbcount.so"; exit 0 ;;
	*) usage_error "unknown argument '$(esc "$1")'" ;;
	esac
done
[ -d "$build" ] && [ ! -L "$build" ] || usage_error "--build $(esc "$build"): not a directory"
dir=$build/qemu-plugin
src=$top/contrib/qemu-plugin/tbcount.c
so=$dir/tbcount.so

# The installed QEMU: its source package's version (a binNMU's +bN is
# the binary's, not the source's), or IOPATH_QEMU_INSTALLED for the tests.
installed=${IOPATH_QEMU_INSTALLED:-$(dpkg-query -W -f '${source:Version}' qemu-system-x86 2>/dev/null)}
[ -n "$installed" ] || fail "qemu-system-x86 is not installed (scripts/deps.sh vm)"
[[ $installed =~ ^[0-9A-Za-z.+~:-]+$ ]] || usage_error "installed qemu version '$(esc "$installed")': not a Debian version"
if [ -z "${IOPATH_QEMU_INSTALLED:-}" ]; then
	qemu=$(command -v qemu-system-x86_64) || fail "no qemu-system-x86_64"
	# Without plugin support QEMU has no qemu_plugin_* symbols to export.
	nm -D "$qemu" 2>/dev/null | grep -q ' qemu_plugin_register_vcpu_tb_exec_inline$' ||
		fail "$qemu has no TCG plugin support (no qemu_plugin_register_vcpu_tb_exec_inline)"
fi
upstream=${installed#*:}
upstream=${upstream%-*}
fver=${installed#*:}
mkdir -p -- "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/src" ||
	fail "cannot create $(esc "$dir")"
for d in "$dir" "$dir/apt" "$dir/src"; do
	[ -L "$d" ] && usage_error "$(esc "$d"): a symbolic link"
done

dsc=$dir/src/qemu_${fver}.dsc
if [ ! -f "$dsc" ]; then
	m=${IOPATH_VM_MIRROR:-$(host_mirror debian)}
	s=${IOPATH_VM_SECURITY_MIRROR:-$(host_mirror debian-security)}
	[ -n "$m" ] || fail "no Debian mirror in /etc/apt sources; set IOPATH_VM_MIRROR=URL"
	key=""
	[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] &&
		key="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
	{
		echo "deb-src $key$m bookworm main"
		echo "deb-src $key$m bookworm-updates main"
		[ -z "$s" ] || echo "deb-src $key$s bookworm-security main"
	} | write_file "$dir/apt/sources.list" || exit 1
	o=(-q -o "Dir::Etc::sourcelist=$dir/apt/sources.list" -o Dir::Etc::sourceparts=-
	   -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt/cache"
	   -o "Dir::State::status=/dev/null"
	   -o APT::Sandbox::User=root -o APT::Get::AllowUnauthenticated=false)
	echo "$prog: fetching the source of qemu $installed (the installed version) through $dir/apt" >&2
	new_file "$dir/apt.log" || exit 1
	apt-get "${o[@]}" update >> "$dir/apt.log" 2>&1 ||
		fail "apt-get update failed: $(esc "$(grep -E '^(E|W):' "$dir/apt.log" | head -n 1)")"
	(cd "$dir/src" && apt-get "${o[@]}" source --download-only "qemu=$installed") >> "$dir/apt.log" 2>&1 ||
		fail "no source of qemu $installed in bookworm, bookworm-updates or bookworm-security: $(esc "$(grep -E '^(E|W):' "$dir/apt.log" | head -n 1)")"
fi
[ -f "$dsc" ] && [ ! -L "$dsc" ] || fail "$(esc "$dsc"): not fetched"

# The .dsc must be the installed version's, and the tarball the one it
# names, by its SHA-256: a header of another QEMU builds a plugin that
# loads and then misreads QEMU's structures.
v=$(sed -n 's/^Version: //p' "$dsc" | head -n 1)
[ "$v" = "$installed" ] ||
	usage_error "$(esc "$dsc") is qemu $(esc "$v"), the installed QEMU is $installed: refused"
orig=qemu_${upstream}.orig.tar.xz
sum=$(awk -v f="$orig" '/^Checksums-Sha256:/ { on = 1; next } /^[^ ]/ { on = 0 } on && $3 == f { print $1 }' "$dsc")
[ -n "$sum" ] || usage_error "$(esc "$dsc") names no $orig"
[ -f "$dir/src/$orig" ] || fail "$orig: not fetched"
hdr=$dir/qemu-plugin.h
stamp=$dir/header.version
if [ "$(cat "$stamp" 2>/dev/null)" != "$installed $sum" ] || [ ! -f "$hdr" ]; then
	got=$(sha256sum < "$dir/src/$orig" | cut -d' ' -f1)
	[ "$got" = "$sum" ] || usage_error "$orig: SHA-256 $got, the .dsc says $sum: refused"
	tar -xJOf "$dir/src/$orig" --wildcards '*/include/qemu/qemu-plugin.h' 2>/dev/null |
		write_file "$hdr" || exit 1
	[ -s "$hdr" ] || fail "$orig has no include/qemu/qemu-plugin.h"
	# Debian's patches are applied on top of the tarball; one that
	# changed the plugin API would make the tarball's header wrong.
	deb=$(ls "$dir/src/qemu_${fver}.debian.tar."* 2>/dev/null | head -n 1)
	if [ -n "$deb" ] && tar -xaOf "$deb" --wildcards 'debian/patches/*' 2>/dev/null |
		grep -q '^+++ .*include/qemu/qemu-plugin\.h'; then
		fail "a Debian patch of qemu $installed changes qemu-plugin.h; not handled"
	fi
	echo "$installed $sum" | write_file "$stamp" || exit 1
fi

if [ ! -f "$so" ] || [ "$so" -ot "$src" ] || [ "$so" -ot "$hdr" ]; then
	new_file "$dir/cc.log" || exit 1
	# The header is the only include taken from the source package.
	cc -O2 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden -I"$dir" \
		-o "$dir/.tbcount.so.new" "$src" >> "$dir/cc.log" 2>&1 ||
		fail "the plugin did not compile: $(esc "$(grep -m1 'error' "$dir/cc.log")")"
	mv -T -- "$dir/.tbcount.so.new" "$so" || fail "cannot install $(esc "$so")"
fi
echo "$so"
