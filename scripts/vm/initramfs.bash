# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# scripts/vm.sh: the initramfs, busybox, the host's mkfs and fsck tools
# with their libraries, the selftests (or the reproducers), the modules
# and the guest's /init (scripts/vm/init.sh).

# copy_with_libs FILE [DEST]: FILE at DEST (default: the same path) in the
# initramfs, plus every shared library ldd resolves for it.
copy_with_libs() {
	local f=$1 dest=${2:-$1} lib
	mkdir -p "$root$(dirname "$dest")"
	cp -L "$f" "$root$dest"
	ldd "$f" 2>/dev/null | grep -oE '(/[^ ]+)' | while read -r lib; do
		[ -f "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

# The installed kselftest layout: BUILD/kselftest if `make kselftest-install`
# made it, else laid out here from BUILD/selftests and the harness.
stage_selftests() {
	local dst=$root/iopath/kselftest src=$build/kselftest ksft t n=0 fresh=1
	# A selftest rebuilt after the last kselftest-install wins over the
	# installed copy.
	for t in "$build"/selftests/*_test; do
		[ "$t" -nt "$src/kselftest-list.txt" ] && fresh=0
	done
	if [ "$fresh" = 1 ] && [ -x "$src/run_kselftest.sh" ] && [ -f "$src/kselftest-list.txt" ]; then
		mkdir -p "$dst"
		cp -a "$src/." "$dst/"
	else
		[ -d "$build/selftests" ] ||
			fail "no selftests in $build (run 'make selftests' or 'make kselftest-install')"
		ksft=$("$top/scripts/ksft-harness.sh" "$build") || fail "no kselftest harness (scripts/ksft-harness.sh)"
		mkdir -p "$dst/kselftest" "$dst/iopath"
		cp "$ksft/run_kselftest.sh" "$dst/"
		cp "$ksft"/kselftest/* "$dst/kselftest/"
		for t in "$build"/selftests/*_test; do
			[ -x "$t" ] || continue
			cp "$t" "$dst/iopath/"
			echo "iopath:$(basename "$t")"
		done > "$dst/kselftest-list.txt"
		cp "$build/selftests/iopath_probe" "$build/selftests/iopath_verdict" "$dst/iopath/" ||
			fail "no $build/selftests/iopath_probe or iopath_verdict (run 'make selftests')"
		cp "$top/selftests/config" "$top/selftests/settings" "$top/selftests/requirements" "$dst/iopath/"
	fi
	for t in "$dst"/iopath/*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		n=$((n + 1))
		ldd "$t" 2>/dev/null | grep -oE '(/[^ ]+)' | while read -r lib; do
			[ -f "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	done
	[ "$n" -gt 0 ] || fail "no selftest binaries in $dst/iopath (is the selftests build empty?)"
}

# iopath repro in the guest: the runner, the reproducers and the iopath
# binary for its scratch filesystems, in a tree like the checkout's.
stage_repro() {
	local dst=/iopath/repro
	[ -x "$build/iopath" ] || fail "no $build/iopath (run make)"
	copy_with_libs "$build/iopath" "$dst/build/iopath"
	mkdir -p "$root$dst/scripts" "$root$dst/reproducers/lib"
	cp "$top/scripts/repro.sh" "$root$dst/scripts/"
	cp "$top"/reproducers/*.sh "$root$dst/reproducers/"
	cp "$top"/reproducers/lib/*.sh "$root$dst/reproducers/lib/"
	touch "$root/etc/iopath-vm/repro"
}

# iopath bench in the guest: the binary with its libraries and the
# benchmark profiles, laid out as a checkout (BENCH/build/iopath finds
# BENCH/configs), and what the records say about this run: the kernel
# image's hash and the clock domain (lib/record.c reads them).
stage_bench() {
	local dst=/iopath/bench
	copy_with_libs "$build/iopath" "$dst/build/iopath"
	mkdir -p "$root$dst/configs"
	cp -r "$top/configs/bench" "$root$dst/configs/"
	stage_profile_path "$dst/profile.conf"
	{
		echo "export IOPATH_KERNEL_IMAGE_SHA256=$(sha256sum < "$vmlinuz" | cut -d' ' -f1)"
		if [ "$icount" = 1 ]; then
			echo "export IOPATH_CLOCK_DOMAIN=instructions IOPATH_ACCEL=tcg-icount"
		else
			echo "export IOPATH_CLOCK_DOMAIN=wall IOPATH_ACCEL=$acc"
		fi
	} > "$root/etc/iopath-vm/bench"
}

# stage_profile_path GUEST: a profile given by path (--profile FILE, with a
# '/' in it, as iopath bench reads it) is on the host, not in the guest:
# its copy goes to GUEST and the argument names that instead. A profile
# given by name is the guest's own configs/bench/NAME.conf.
stage_profile_path() {
	local i n=${#ksft_args[@]} a v pre
	for ((i = 0; i < n; i++)); do
		a=${ksft_args[i]}
		case $a in
		--profile|-p) [ $((i + 1)) -lt "$n" ] || return 0
			i=$((i + 1)); pre=""; v=${ksft_args[i]} ;;
		--profile=*) pre=--profile=; v=${a#--profile=} ;;
		-p?*) pre=-p; v=${a#-p} ;;
		--) return 0 ;;
		*) continue ;;
		esac
		[[ $v == */* ]] || continue
		cp -- "$v" "$root$1" || fail "cannot copy the profile $(esc "$v") into the guest"
		ksft_args[i]=$pre$1
	done
}

# The modules of VM_MODULES that exist, with their dependencies, dependencies
# first, decompressed into the initramfs; /etc/iopath-vm/modules lists the
# load order.
stage_modules() {
	local ver m rel dep order=() seen=" " dst
	: > "$root/etc/iopath-vm/modules"
	[ -n "$moddir" ] || return 0
	ver=$(basename "$moddir")
	add_module() {	# rel path from modules.dep; dependencies first
		local r=$1 line d
		case $seen in *" $r "*) return ;; esac
		seen="$seen$r "
		line=$(grep -E "^$(printf '%s' "$r" | sed 's/[.+]/\\&/g'):" "$moddir/modules.dep")
		for d in ${line#*:}; do
			add_module "$d"
		done
		order+=("$r")
	}
	for m in $VM_MODULES; do
		rel=$(grep -oE "^[^:]*/$m\\.ko(\\.xz|\\.zst|\\.gz)?:" "$moddir/modules.dep" | head -n 1)
		[ -n "$rel" ] && add_module "${rel%:}"
	done
	for rel in "${order[@]}"; do
		dst=$root/lib/modules/$ver/${rel%.*}
		case $rel in
		*.ko.xz) dst=$root/lib/modules/$ver/${rel%.xz}; mkdir -p "$(dirname "$dst")"; xz -dc "$moddir/$rel" > "$dst" ;;
		*.ko.zst) dst=$root/lib/modules/$ver/${rel%.zst}; mkdir -p "$(dirname "$dst")"; zstd -qdc "$moddir/$rel" > "$dst" ;;
		*.ko.gz) dst=$root/lib/modules/$ver/${rel%.gz}; mkdir -p "$(dirname "$dst")"; gzip -dc "$moddir/$rel" > "$dst" ;;
		*) dst=$root/lib/modules/$ver/$rel; mkdir -p "$(dirname "$dst")"; cp "$moddir/$rel" "$dst" ;;
		esac || fail "cannot decompress $rel"
		echo "${dst#"$root"}" >> "$root/etc/iopath-vm/modules"
	done
	# For request_module() from the guest kernel (busybox modprobe).
	depmod -b "$root" "$ver" 2>/dev/null || true
}

write_init() {
	cp "$top/scripts/vm/init.sh" "$root/init" || fail "cannot copy the guest /init"
	chmod 0755 "$root/init"
}

build_initramfs() {
	local a t p
	mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib,usr/lib64,etc/iopath-vm,proc,sys,dev,run,tmp,root,iopath}
	# usrmerge layout, so a tool found at /sbin or /usr/sbin on the host
	# resolves the same way in the guest.
	ln -s usr/bin "$root/bin"
	ln -s usr/sbin "$root/sbin"
	ln -s usr/lib "$root/lib"
	ln -s usr/lib64 "$root/lib64"
	cp "$busybox_bin" "$root/usr/bin/busybox"
	# A tool left out would turn every test that needs it into a SKIP in
	# the guest: the coverage of a boot without xfsprogs had no XFS in it.
	for t in $VM_TOOLS; do
		p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$t") ||
			fail "no $t on this host: the guest's tests that run it would only skip (scripts/deps.sh initramfs installs it)"
		copy_with_libs "$p" "/usr/${p#/usr}"
		[[ $p == /usr/sbin/* || $p == /sbin/* ]] && [ ! -e "$root/usr/sbin/$t" ] &&
			ln -s "../${p#/usr/}" "$root/usr/sbin/$t" 2>/dev/null
	done
	# Busybox for everything else. /usr/bin/timeout must stay GNU's: the
	# kselftest runner calls it with --foreground.
	for a in $("$root/usr/bin/busybox" --list); do
		[ -e "$root/usr/bin/$a" ] || [ -e "$root/usr/sbin/$a" ] || ln -s busybox "$root/usr/bin/$a"
	done
	[ -f /etc/mke2fs.conf ] && cp /etc/mke2fs.conf "$root/etc/"
	[ -d /usr/share/xfsprogs ] && mkdir -p "$root/usr/share" && cp -a /usr/share/xfsprogs "$root/usr/share/"
	echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
	echo 'root:x:0:' > "$root/etc/group"
	if [ "$repro" = 1 ]; then
		stage_repro
	elif [ "$bench" = 1 ]; then
		stage_bench
	else
		stage_selftests
	fi
	stage_modules
	# Everything runs several times slower under TCG than on hardware:
	# stretch the collection's per-program timeout unless told otherwise.
	local st dst=$root/iopath/kselftest o=()
	if [[ " ${ksft_args[*]} " != *" -o "* && " ${ksft_args[*]} " != *" --override-timeout "* ]] &&
	   grep -qs -- '--override-timeout' "$dst/run_kselftest.sh"; then
		st=$(sed -n 's/^timeout=\([0-9][0-9]*\)$/\1/p' "$dst/iopath/settings" 2>/dev/null | tail -n 1)
		o=(-o "${prog_timeout:-$(( ${st:-45} * 10 ))}")
	elif [ -n "$prog_timeout" ]; then
		echo "$prog: this run_kselftest.sh has no --override-timeout; --test-timeout ignored" >&2
	fi
	printf '%s\n' "${o[@]}" "${ksft_args[@]}" | sed '/^$/d' > "$root/etc/iopath-vm/args"
	local e
	for e in "${guest_env[@]}"; do
		# export NAME='VALUE', single quotes escaped
		printf "export %s='%s'\n" "${e%%=*}" "$(printf '%s' "${e#*=}" | sed "s/'/'\\\\''/g")"
	done > "$root/etc/iopath-vm/env"
	install -m 0755 "$top/scripts/selftest-runner.sh" "$root/etc/iopath-vm/selftest-runner.sh" || return 1
	cp "$known_failures" "$root/etc/iopath-vm/known-failures" || return 1
	if [ -n "$lava_out" ]; then
		touch "$root/etc/iopath-vm/lava"
		mkdir -p "$root/iopath/lava"
		install -m 0755 "$top/scripts/vm/lava-guest.sh" "$root/iopath/lava/run" || return 1
		# The benchmarks too, for a job whose test shell runs them
		# (/iopath/lava/run --bench): iopath in a tree like the checkout's
		# (the build's, or an installed tree's bin/iopath: IOPATH_BIN).
		if [ -x "$(iopath_bin)" ]; then
			copy_with_libs "$(iopath_bin)" /iopath/bench/build/iopath
			mkdir -p "$root/iopath/bench/configs"
			cp -r "$top/configs/bench" "$root/iopath/bench/configs/" || return 1
		fi
	fi
	write_init
	(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$tmp/initrd.gz" ||
		fail "cannot pack the initramfs"
}

