# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Sourced by scripts/mutate.sh and scripts/ab.sh: the kernel they build.
# The source (Debian unstable's newest linux-source-7.x, or the user's
# tree), the small configuration (tinyconfig plus
# configs/kernel/iopath.config), a patch checked and applied in a tree of
# the build's own, and the incremental build of OBJ/arch/x86/boot/bzImage.
#
# The source the user gives is never written. Each build (and the
# configuration) sees it at WORK/tree, an overlay in a private mount
# namespace (unshare --mount): the user's tree, bound read-only, is its
# lower layer, and WORK/tree.upper takes the patch and whatever else is
# written there. The mounts belong to the namespace and go with its last
# process, however it ends (SIGKILL too); the upper layer is removed after
# each build and before the next. There is nothing to restore, so nothing
# restores and nothing watches.
#
# Why an overlay: a hardlink farm shares inodes with the user's tree (a
# touch or an in-place write through it changes the user's file), cp
# --reflink needs btrfs or XFS and walks the whole tree (some 90,000
# names) per build, a git worktree needs a git tree. An overlay costs two
# mounts per build, copies only the files that change, and its lower
# layer cannot be written through it.
#
# The caller sets prog, top, ksrc, work, obj, logs, jobs, state, builder (a
# command "BUILDER SRC OBJ JOBS" replacing make, or empty) and child (""),
# calls kbuild_state, and defines note.
#
# Root runs this in a work directory a user may have prepared: no file in
# it is opened with a plain '>' or cp (they follow a planted link); each
# is written by write_file or made by new_file first (scripts/lib/common.bash),
# and work_refusal refuses links there before anything starts.

apt_dir=""

# Debian unstable's newest linux-source-7.x, unpacked into WORK/src, through
# a private apt state (the machine's apt configuration is never touched).
fetch_source() {
	apt_dir=$work/apt
	local m key="" pkg deb tarball dir
	local -a o=()
	m=${IOPATH_VM_MIRROR:-$(host_mirror debian)}
	[ -n "$m" ] || fail "no Debian mirror in /etc/apt sources; set IOPATH_VM_MIRROR=URL or KSRC=DIR"
	[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] &&
		key="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
	work_mkdir "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$work/debs" || exit 1
	echo "deb $key$m sid main" | write_file "$apt_dir/sources.list" || exit 1
	o=(-q -o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o Dir::Etc::sourceparts=-
	   -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
	   -o APT::Sandbox::User=root -o APT::Get::AllowUnauthenticated=false)
	if [ -z "$(find "$apt_dir/lists" -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -n 1)" ]; then
		note "updating the package lists of the private apt state in $apt_dir"
		new_file "$work/apt-update.log" || exit 1
		apt-get "${o[@]}" update >> "$work/apt-update.log" 2>&1 ||
			fail "apt-get update failed: $(grep -E '^(E|W):' "$work/apt-update.log" | head -n 1)"
	fi
	pkg=$(apt-cache "${o[@]}" pkgnames linux-source-7. 2>/dev/null | sort -V | tail -n 1)
	[ -n "$pkg" ] || fail "no linux-source-7.x in sid"
	dir=$work/src/${pkg}
	if [ ! -f "$dir/.iopath-unpacked" ]; then
		deb=$(ls "$work/debs/${pkg}"_*.deb 2>/dev/null | head -n 1)
		if [ -z "$deb" ]; then
			note "downloading $pkg"
			new_file "$work/apt-download.log" || exit 1
			(cd "$work/debs" && apt-get "${o[@]}" download "$pkg" >> "$work/apt-download.log" 2>&1) ||
				fail "apt-get download $pkg failed: $(grep -E '^(E|W):' "$work/apt-download.log" | head -n 1)"
			deb=$(ls "$work/debs/${pkg}"_*.deb | head -n 1)
		fi
		note "unpacking $(basename "$deb")"
		rm -rf "$work/unpack" "$dir"
		dpkg-deb -x "$deb" "$work/unpack" || fail "$deb: not a valid .deb"
		tarball=$(ls "$work"/unpack/usr/src/linux-source-*.tar.* | head -n 1)
		work_mkdir "$work/src" || exit 1
		tar -C "$work/src" -xaf "$tarball" || fail "cannot unpack $tarball"
		rm -rf "$work/unpack"
		new_file "$dir/.iopath-unpacked" || exit 1
	fi
	echo "$dir"
}

# patch_names FILE [COPY]: the names of the tree FILE touches, as patch
# -p1 takes them, sorted, once each, from iopath patch check (lib/patch.c,
# the one reader of the patches applied here: it refuses, in one line on
# stderr and status 2, a patch that is anything but changes to regular
# files inside the tree, read whole before anything is applied); with
# COPY, the text patch(1) is to apply, made only of what was read, is
# written there. Nothing else reads a patch's names.
patch_names() {
	if [ -n "${2:-}" ]; then
		"$(iopath_bin)" patch check --out "$2" -- "$1"
	else
		"$(iopath_bin)" patch check -- "$1"
	fi
}

# tree_name_ok NAME: NAME, read from the state or a patch, is a relative
# name with no '.', '..' or empty component.
tree_name_ok() {
	case /$1/ in //*|*//*|*/./*|*/../*) return 1 ;; esac
}

# tree_path_ok ROOT NAME: tree_name_ok NAME, and no symbolic link at
# ROOT/NAME or on the way to it: a path inside ROOT.
tree_path_ok() {
	local p=$1 rest=$2 c
	tree_name_ok "$2" || return 1
	while [ -n "$rest" ]; do
		c=${rest%%/*}
		rest=${rest#"$c"}
		rest=${rest#/}
		p=$p/$c
		[ -L "$p" ] && return 1
	done
	return 0
}

# patch_refusal FILE [COPY]: why FILE may not be applied to the tree, or
# nothing: what iopath patch check refuses (patch_names: its line, which
# names FILE, escaped), then every name it touches must be a path inside
# the tree, and a regular file there or none (a file the patch adds).
# With COPY, the copy to apply is written there (patch_names).
patch_refusal() {
	local f out
	if ! out=$(patch_names "$1" "${2:-}" 2>&1); then
		echo "${out#iopath: patch: }"
		return
	fi
	while IFS= read -r f; do
		if ! tree_path_ok "$ksrc" "$f"; then
			echo "$(esc "$1"): '$f' is not a name inside the tree, or is one through a symbolic link"
			return
		fi
		if [ -e "$ksrc/$f" ] && [ ! -f "$ksrc/$f" ]; then
			echo "$(esc "$1"): '$f' is not a regular file in the tree"
			return
		fi
	done <<< "$out"
}

# check_patch FILE COPY: FILE checked before anything applies it: 2 when
# it is refused (patch_refusal) or does not apply to the tree (patch
# --dry-run, which writes nothing), why in the first line of
# STATE/patch.log; 1 after one line on stderr when the log cannot be
# made. COPY is what iopath patch check read of FILE, the text a build
# applies (build_kernel): FILE is read once, and no later change to it
# reaches a build.
check_patch() {
	local why
	rm -f -- "$2"
	new_file "$state/patch.log" || return 1
	why=$(patch_refusal "$1" "$2")
	if [ -n "$why" ]; then
		echo "$why" >> "$state/patch.log"
		return 2
	fi
	patch -d "$ksrc" -p1 -s -f --dry-run < "$2" >> "$state/patch.log" 2>&1 || return 2
}

# work_refusal: why $work may not be used, or nothing. Everything in it
# is written as root and its state is read back to decide what is copied
# where: WORK and the directories in it must be the caller's own and not
# writable by anyone else (who could plant a link or rewrite the state);
# state, logs and kernels hold nothing of anyone else's and no symbolic
# link. Used by ab and mutate alike.
work_refusal() {
	local d n l uid
	uid=$(id -u)
	# A work directory still to be made: below a directory.
	d=$work
	while [ ! -e "$d" ] && [ ! -L "$d" ]; do
		d=$(dirname -- "$d")
	done
	if [ "$d" != "$work" ] && [ ! -d "$d" ]; then
		echo "--work $work: $d is not a directory"
		return
	fi
	for d in "$work" "$work"/{state,logs,kernels,obj,src,apt,debs,tree,tree.lower,tree.upper,tree.work}; do
		[ -e "$d" ] || [ -L "$d" ] || continue
		n=${d#"$work"}
		n=${n#/}
		if [ -L "$d" ] || [ ! -d "$d" ] || [ ! -O "$d" ]; then
			echo "--work $work: ${n:+$n }not a directory of yours"
			return
		fi
		if [ -n "$(find "$d" -maxdepth 0 -perm /022)" ]; then
			echo "--work $work: ${n:+$n: }others can write to it (chmod go-w)"
			return
		fi
	done
	for d in "$work"/{state,logs,kernels}; do
		[ -d "$d" ] || continue
		l=$(find "$d" -type l -print -quit)
		if [ -n "$l" ]; then
			echo "--work $work: $l is a symbolic link (refused: it would be followed)"
			return
		fi
		l=$(find "$d" \( ! -user "$uid" -o -type d -perm /022 \) -print -quit)
		if [ -n "$l" ]; then
			echo "--work $work: $l is not yours, or others can write to it"
			return
		fi
	done
}

# work_mkdir DIR...: the directories of WORK, made writable by their owner
# only (work_refusal refuses them otherwise on the next run).
work_mkdir() {
	(umask "$(printf '%03o' $((0$(umask) | 022)))" && mkdir -p -- "$@")
}

# check_ksrc: $ksrc, a kernel source tree, made absolute; anything else is
# refused (usage_error) before anything is built.
check_ksrc() {
	[ -f "$ksrc/Makefile" ] && [ -d "$ksrc/fs/iomap" ] ||
		usage_error "--ksrc: $(esc "$ksrc") is not a kernel source tree (no Makefile or fs/iomap)"
	ksrc=$(cd "$ksrc" && pwd)
}

# kbuild_deps PATCH BUILD BOOT (each 0 or 1): what the run needs from the
# machine, checked before anything is created; what is missing is named
# with its install command in one line by scripts/deps.sh --check (status
# 1). PATCH: patches are applied in the build's own tree (patch, whatever
# builds the kernel). BUILD: the kernel is built (flex, bison, libelf ...),
# unless $builder replaces make. BOOT: guests are booted by iopath vm (the
# caller passes 0 when a VM command given in the environment replaces it).
kbuild_deps() {
	local -a need=()
	[ "$1" = 1 ] && need+=(patch)
	[ "$2" = 1 ] && [ -z "$builder" ] && need+=(mutate)
	[ "$3" = 1 ] && need+=(vm)
	[ ${#need[@]} = 0 ] || "$top/scripts/deps.sh" --check "${need[@]}"
}

# The build's own tree (see the top of this file) and OBJ's dirty names.
kbuild_state() {
	tree=$work/tree
	dirty=$state/obj.dirty
}

# configure: tinyconfig plus the fragment, again whenever the fragment
# changes, in the build's own tree.
configure() {
	local frag=$top/configs/kernel/iopath.config sum
	[ -n "$builder" ] && return 0
	sum=$(md5sum < "$frag" | cut -c1-32)
	[ -f "$obj/.config" ] && [ "$(cat "$obj/.iopath-config" 2>/dev/null)" = "$sum" ] && return 0
	work_mkdir "$obj" || exit 1
	note "configuring $obj: tinyconfig + $(basename "$frag")"
	# shellcheck disable=SC2016 # expanded by sh -c
	in_tree "$logs/configure.log" "" sh -c 'make -s -C "$1" O="$2" tinyconfig &&
		"$1/scripts/kconfig/merge_config.sh" -m -O "$2" "$2/.config" "$3" &&
		make -s -C "$1" O="$2" olddefconfig' sh "$tree" "$obj" "$frag" ||
		fail "kernel configuration failed ($logs/configure.log)"
	echo "$sum" | write_file "$obj/.iopath-config" || exit 1
}

# run_child OUT ERR CMD...: CMD in the background, waited for, so that a
# signal is handled at once (bash runs traps only between commands, and
# "wait" is interruptible); the trap stops the child (stop_child). OUT and
# ERR are made by new_file: 1 when either cannot be.
run_child() {
	local out=$1 err=$2 rc
	shift 2
	new_file "$out" && new_file "$err" || return 1
	"$@" >> "$out" 2>> "$err" &
	child=$!
	wait "$child"
	rc=$?
	child=""
	return $rc
}

# stop_child: the child run_child is waiting for, stopped and waited for.
# A build (in_tree: child_ns=1) is stopped whole: make passes a SIGTERM on
# to none of the sub-makes and compilers it started, which would go on
# building after the run had ended. They are all in the tree's mount
# namespace, which nothing else has, so every process still in it is
# stopped, until none is left. The child stays in our process group, so
# that a signal to the group (a CI runner's SIGKILL) reaches it too.
stop_child() {
	local ns="" p i left
	[ -n "${child:-}" ] || return 0
	[ "${child_ns:-0}" = 1 ] && ns=$(readlink "/proc/$child/ns/mnt" 2>/dev/null)
	# not yet in a namespace of its own: then there is nothing to sweep
	[ "$ns" = "$(readlink /proc/$$/ns/mnt)" ] && ns=""
	kill -TERM "$child" 2>/dev/null
	wait "$child"
	[ -n "$ns" ] || return 0
	for ((i = 0; i < 100; i++)); do
		left=()
		for p in /proc/[0-9]*; do
			[ "$(readlink "$p/ns/mnt" 2>/dev/null)" = "$ns" ] && left+=("${p#/proc/}")
		done
		[ "${#left[@]}" = 0 ] && return 0
		kill -TERM "${left[@]}" 2>/dev/null
		sleep 0.1
	done
}

# ---- the build's own tree ----------------------------------------------------
#
# Mtimes: a file the last build patched comes back, in the next overlay,
# with the mtime it has in the user's tree, older than the object built
# from the patched text, and make would keep that object. STATE/obj.dirty
# names the files whose objects in OBJ may be built from another text
# than the user's: every build adds its patch's names to it before it
# starts, touches each in its overlay (a copy-up with a new mtime: make
# rebuilds what depends on it) and, once the kernel is built, leaves only
# its patch's names there. A build killed at any point leaves the names.

# tree_clear: the upper layer of the last build, gone (a killed run's too).
tree_clear() {
	rm -rf -- "$tree.upper" "$tree.work"
}

# tree_open PATCH: the directories of an empty overlay, and OBJ's dirty
# names with PATCH's, recorded before anything is built from it.
tree_open() {
	local names=""
	if [ -n "$1" ]; then
		names=$(patch_names "$1") || return 1
	fi
	tree_clear
	work_mkdir "$tree" "$tree.lower" "$tree.upper" "$tree.work" || return 1
	{ [ ! -f "$dirty" ] || cat -- "$dirty"; [ -z "$names" ] || printf '%s\n' "$names"; } |
		LC_ALL=C sort -u | write_file "$dirty"
}

# tree_enter WORK KSRC DIRTY PATCH CMD...: the first process of a private
# mount namespace (in_tree). KSRC bound read-only at WORK/tree.lower, the
# overlay mounted at WORK/tree, DIRTY's files touched there, PATCH applied
# there, then CMD exec'd in its place: the namespace, and the mounts with
# it, lasts as long as CMD and its children.
tree_enter() {
	local work=$1 ksrc=$2 dirty=$3 p=$4 f
	shift 4
	# Relative names: the overlay's options are split at ',' and ':',
	# which a path may hold.
	cd -- "$work" || exit 1
	if ! mount --bind -- "$ksrc" tree.lower || ! mount -o remount,bind,ro tree.lower ||
	   ! mount -t overlay overlay -o lowerdir=tree.lower,upperdir=tree.upper,workdir=tree.work tree; then
		echo "cannot mount an overlay of the source tree at $work/tree" >&2
		exit 1
	fi
	# DIRTY is state: only regular files inside the tree are touched.
	if [ -f "$dirty" ]; then
		while IFS= read -r f; do
			[ -n "$f" ] && tree_path_ok tree "$f" && [ -f "tree/$f" ] || continue
			touch -c -- "tree/$f" || exit 1
		done < "$dirty"
	fi
	if [ -n "$p" ]; then
		patch -d tree -p1 -s -f --no-backup-if-mismatch < "$p" || exit 1
	fi
	cd / && exec "$@"
}

# in_tree LOG PATCH CMD...: CMD run in a tree of its own, the source tree
# with PATCH (or as it is), at $tree, as run_child runs it (the trap's
# $child is CMD itself), its stderr after its stdout in LOG; the upper
# layer removed after. CMD's exit status.
in_tree() {
	local log=$1 p=$2 rc
	shift 2
	tree_open "$p" || return 1
	child_ns=1
	# shellcheck disable=SC2016 # expanded by bash -c
	run_child "$log" "$log.err" unshare --mount --propagation private -- \
		bash -c '. "$0" && tree_enter "$@"' "$top/scripts/lib/kbuild.bash" "$work" "$ksrc" "$dirty" "$p" "$@"
	rc=$?
	child_ns=0
	cat "$log.err" >> "$log" && rm -f "$log.err"
	tree_clear
	return $rc
}

# tree_probe: can this machine build in a tree of its own? One line and
# exit 1 when it cannot (a user without CAP_SYS_ADMIN, a kernel without
# overlayfs, WORK on a filesystem that cannot be an upper layer), before
# anything is built.
tree_probe() {
	local log=$state/tree-probe.log
	in_tree "$log" "" true ||
		fail "cannot build in a tree of its own (an overlay in a private mount namespace): $(esc_line "$(tail -n 1 "$log")")"
}

# build_kernel LOG [PATCH]: the tree with PATCH (a copy check_patch
# wrote), built in its own tree; the builder's exit status, the seconds
# taken in last_s.
build_kernel() {
	local log=$1 p=${2:-} t0=$SECONDS rc names=""
	if [ -n "$builder" ]; then
		in_tree "$log" "$p" "$builder" "$tree" "$obj" "$jobs"
	else
		in_tree "$log" "$p" make -s -C "$tree" O="$obj" -j"$jobs" bzImage
	fi
	rc=$?
	if [ "$rc" = 0 ]; then
		# Each dirty name was touched and its objects rebuilt: only the
		# patch's are built from another text than the user's now.
		[ -z "$p" ] || names=$(patch_names "$p") || rc=1
		if [ "$rc" = 0 ]; then
			{ [ -z "$names" ] || printf '%s\n' "$names"; } | write_file "$dirty" || rc=1
		fi
	fi
	last_s=$((SECONDS - t0))
	return $rc
}
