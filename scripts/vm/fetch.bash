# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# scripts/vm.sh: fetching and unpacking Debian kernel packages into the
# cache; resolve_kernel sets vmlinuz, moddir and kdesc.

apt_setup() {
	local m s key=""
	[ -f "$apt_dir/sources.list" ] && return 0
	m=${IOPATH_VM_MIRROR:-$(host_mirror debian)}
	s=${IOPATH_VM_SECURITY_MIRROR:-$(host_mirror debian-security)}
	[ -n "$m" ] || fail "no Debian mirror in /etc/apt sources; set IOPATH_VM_MIRROR=URL"
	[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] &&
		key="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
	{
		echo "deb $key$m bookworm main"
		echo "deb $key$m bookworm-updates main"
		[ -n "$s" ] && echo "deb $key$s bookworm-security main"
		echo "deb $key$m sid main"
	} > "$apt_dir/sources.list.new"
	mv "$apt_dir/sources.list.new" "$apt_dir/sources.list"
}

apt_opts() {
	printf '%s\n' -q -o "Dir::Etc::sourcelist=$apt_dir/sources.list" \
		-o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$apt_dir/lists" \
		-o "Dir::Cache=$apt_dir/cache" \
		-o APT::Sandbox::User=root -o APT::Get::AllowUnauthenticated=false
}

apt_update() {
	local -a o
	mapfile -t o < <(apt_opts)
	echo "$prog: updating the package lists of the private apt state in $apt_dir" >&2
	apt-get "${o[@]}" update > "$tmp/apt-update.log" 2>&1 ||
		fail "apt-get update failed: $(grep -E '^(E|W):' "$tmp/apt-update.log" | head -n 1)"
	touch "$tmp/apt-updated"
}

# fetch_deb NAME[/SUITE]: print the path of the cached .deb, downloading it
# (newest candidate) if needed. Exit 2 if no suite has it.
fetch_deb() {
	local name=$1 ver file dl
	local -a o
	mapfile -t o < <(apt_opts)
	apt_setup
	# Refresh lists older than a day: old lists point at removed files.
	if [ ! -f "$tmp/apt-updated" ] &&
	   [ -z "$(find "$apt_dir/lists" -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -n 1)" ]; then
		apt_update
	fi
	ver=$(apt-cache "${o[@]}" show --no-all-versions "$name" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
	if [ -z "$ver" ] && [ ! -f "$tmp/apt-updated" ]; then
		apt_update
		ver=$(apt-cache "${o[@]}" show --no-all-versions "$name" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
	fi
	[ -n "$ver" ] || usage_error "--kernel: no package '$name' in bookworm, bookworm-updates, bookworm-security or sid"
	file=$(ls "$cache/debs/${name%%/*}_${ver//:/%3a}_"*.deb 2>/dev/null | head -n 1)
	if [ -z "$file" ]; then
		echo "$prog: downloading $name $ver" >&2
		dl=$tmp/dl
		rm -rf "$dl"
		mkdir -p "$dl"
		(cd "$dl" && apt-get "${o[@]}" download "$name" > "$tmp/apt-download.log" 2>&1) ||
			fail "apt-get download $name failed: $(grep -E '^(E|W):' "$tmp/apt-download.log" | head -n 1)"
		file=$(ls "$dl"/*.deb | head -n 1)
		mv "$file" "$cache/debs/"
		file=$cache/debs/$(basename "$file")
	fi
	echo "$file"
}

# The kernel-image parts a .deb depends on: a meta package
# (linux-image-amd64) names the real image package, Debian's 7.x
# linux-image-* names linux-binary-* and linux-modules-*.
deb_kernel_deps() {
	dpkg-deb -f "$1" Depends | tr ',|' '\n\n' | sed 's/(.*//; s/[[:space:]]//g' |
		grep -E '^linux-(image|binary|modules)-' || true
}

# collect_debs (NAME | FILE): every .deb that makes up the kernel, one a line.
collect_debs() {
	local want=("$1") seen=" " item deb dep sib
	while [ ${#want[@]} -gt 0 ]; do
		item=${want[0]}
		want=("${want[@]:1}")
		case $seen in *" $item "*) continue ;; esac
		seen="$seen$item "
		if [ -f "$item" ]; then
			deb=$item
		else
			deb=$(fetch_deb "$item") || exit $?
		fi
		echo "$deb"
		for dep in $(deb_kernel_deps "$deb"); do
			# A .deb given as a file: its parts may sit next to it.
			sib=$(ls "$(dirname "$item")/${dep}_"*.deb 2>/dev/null | head -n 1)
			if [ -f "$item" ] && [ -n "$sib" ]; then
				want+=("$sib")
			else
				want+=("$dep")
			fi
		done
	done
}

# unpack_kernel DEB...: unpack into the cache once (keyed by the .deb names),
# run depmod there; prints the directory.
unpack_kernel() {
	local key dir d ver base debs=()
	# Meta and documentation-only packages (linux-image-amd64, Debian
	# 7.x's linux-image-*) carry nothing to boot: leave them out of the key,
	# so a kernel reached through different names is unpacked once.
	for d in "$@"; do
		[ "$(dpkg-deb -f "$d" Installed-Size 2>/dev/null || echo 0)" -ge 1000 ] && debs+=("$d")
	done
	[ ${#debs[@]} -gt 0 ] || debs=("$@")
	set -- "${debs[@]}"
	key=$(for d in "$@"; do basename "$d" .deb; done | sort | md5sum | cut -c1-12)
	key=$(basename "$1" .deb | sed 's/_amd64$//')-$key
	dir=$cache/kernels/$key
	if [ ! -f "$dir/.done" ]; then
		echo "$prog: unpacking $(for d in "$@"; do basename "$d"; done | tr '\n' ' ')" >&2
		rm -rf "$dir.tmp"
		mkdir -p "$dir.tmp/root"
		for d in "$@"; do
			dpkg-deb -x "$d" "$dir.tmp/root" || fail "$(basename "$d"): not a valid .deb"
		done
		for base in "$dir.tmp/root" "$dir.tmp/root/usr"; do
			for d in "$base"/lib/modules/*/kernel; do
				[ -d "$d" ] || continue
				ver=$(basename "$(dirname "$d")")
				depmod -b "$base" "$ver" 2>/dev/null ||
					fail "depmod failed on the modules of $ver"
			done
		done
		rm -rf "$dir"
		mv "$dir.tmp" "$dir"
		touch "$dir/.done"
	fi
	echo "$dir"
}

vmlinuz=""
moddir=""	# lib/modules/VERSION with modules.dep, or empty
kdesc=""

resolve_kernel() {
	local k=$1 debs list dir d resolved
	if [ -f "$k" ] && [[ $k != *.deb ]]; then
		vmlinuz=$(cd "$(dirname "$k")" && pwd)/$(basename "$k")
		kdesc=$(basename "$k")
		[ -n "$modules_dir" ] && moddir=$(cd "$modules_dir" && pwd)
		return 0
	fi
	# Two runs may fetch and unpack the same kernel at once. The lock is the
	# cache directory: a lock file could be a link ('>' truncates its target).
	exec 9< "$cache"
	flock 9
	# What a name resolved to is kept until the package lists change, so a
	# cached kernel costs no apt-cache run (seconds each on sid's lists).
	resolved=$cache/resolved/${k//\//_}
	if [ ! -f "$k" ] && [ -f "$resolved" ] && [ ! "$apt_dir/lists" -nt "$resolved" ] &&
	   xargs -r ls < "$resolved" >/dev/null 2>&1; then
		mapfile -t debs < "$resolved"
	else
		list=$(collect_debs "$k") || exit $?
		mapfile -t debs <<< "$list"
		if [ ! -f "$k" ]; then
			mkdir -p "$cache/resolved"
			printf '%s\n' "${debs[@]}" | write_file "$resolved" || exit 1
		fi
	fi
	dir=$(unpack_kernel "${debs[@]}") || exit $?
	exec 9>&-
	vmlinuz=$(ls "$dir"/root/boot/vmlinuz-* "$dir"/root/usr/lib/modules/*/vmlinuz \
		  "$dir"/root/lib/modules/*/vmlinuz 2>/dev/null | head -n 1)
	[ -n "$vmlinuz" ] || usage_error "--kernel $k: the package holds no kernel image (vmlinuz)"
	for d in "$dir"/root/lib/modules/* "$dir"/root/usr/lib/modules/*; do
		[ -f "$d/modules.dep" ] && moddir=$d && break
	done
	kdesc=${moddir:+$(basename "$moddir")}
	kdesc=${kdesc:-$(basename "$vmlinuz")}
}

