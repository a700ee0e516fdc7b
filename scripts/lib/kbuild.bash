# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Sourced by scripts/mutate.sh and scripts/ab.sh: the kernel they build.
# The source (Debian unstable's newest linux-source-7.x, or the user's
# tree), the small configuration (tinyconfig plus
# configs/kernel/iopath.config), a patch applied to the tree and always
# reverted, and the incremental build of OBJ/arch/x86/boot/bzImage.
#
# The caller sets prog, top, ksrc, work, obj, logs, jobs, state (where the
# applied patch is recorded, so that a killed run is reverted by the next),
# builder (a command "BUILDER SRC OBJ JOBS" replacing make, or empty) and
# child (""), defines note, and on every exit path calls restore_tree.
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

# The state of the patch in the tree (kbuild_state): applied, its name;
# applied.patch, a copy; applied.files, the files it changes or deletes,
# saved in pristine/; applied.new, the files it adds and the directories
# made for them, removed on the way back.

# state_refusal: why the recorded patch's state cannot be trusted, or
# nothing: every file it names as saved must be in the pristine copies,
# and every name must stay inside the tree.
state_refusal() {
	local f
	[ -f "$applied" ] || return 0
	[ -f "$state/applied.files" ] || { echo "$applied without $state/applied.files"; return; }
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		if ! tree_path_ok "$backup" "$f" || [ ! -f "$backup/$f" ]; then
			echo "$state/applied.files names '$f': not a file of the tree saved in $backup"
			return
		fi
	done < "$state/applied.files"
	[ -f "$state/applied.new" ] || return 0
	while IFS= read -r f; do
		[ -z "$f" ] || tree_name_ok "$f" && continue
		echo "$state/applied.new names '$f': not a name inside the tree"
		return
	done < "$state/applied.new"
}

# restore_tree: the recorded patch, if any, reverted; 1 after one line on
# stderr when the tree cannot be restored or the state is not trusted
# (then the state is left as it is, and later calls return 1 quietly).
restore_refused=""
restore_tree() {
	local f p=$state/applied.patch added=$state/applied.new bad=0 why
	[ -f "$applied" ] || return 0
	[ -z "$restore_refused" ] || return 1
	[ -f "$added" ] || added=/dev/null
	why=$(state_refusal)
	if [ -z "$why" ]; then
		while IFS= read -r f; do
			[ -n "$f" ] || continue
			tree_path_ok "$ksrc" "$f" && continue
			why="the state names '$f': a symbolic link on the way in $ksrc"
			break
		done < <(cat "$state/applied.files" "$added")
	fi
	if [ -n "$why" ]; then
		echo "$prog: cannot restore the source tree: $why" >&2
		restore_refused=1
		return 1
	fi
	if [ -f "$p" ] && patch -d "$ksrc" -p1 -R -s -f --dry-run < "$p" > /dev/null 2>&1; then
		patch -d "$ksrc" -p1 -R -s -f --no-backup-if-mismatch < "$p" > /dev/null 2>&1
	fi
	# Whatever the patch did or did not undo, the pristine copies win, and
	# what it added goes (a name's directories after it). A plain copy
	# gives the file a new mtime, so make rebuilds its objects.
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		if [ -d "$ksrc/$f" ]; then
			rmdir -- "$ksrc/$f" 2>/dev/null
		elif [ -e "$ksrc/$f" ]; then
			rm -f -- "$ksrc/$f" || bad=1
		fi
	done < <(LC_ALL=C sort -r "$added")
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		if ! cmp -s "$backup/$f" "$ksrc/$f"; then
			mkdir -p -- "$(dirname "$ksrc/$f")" && cp "$backup/$f" "$ksrc/$f" || bad=1
		fi
	done < "$state/applied.files"
	if [ "$bad" != 0 ]; then
		echo "$prog: cannot restore the source tree from $backup" >&2
		restore_refused=1
		return 1
	fi
	rm -f "$applied" "$state/applied.files" "$state/applied.new" "$p"
	rm -rf "$backup"
}

# apply_patch NAME FILE: FILE applied to the tree, recorded as NAME; 1
# after one line on stderr when the tree cannot be restored first or the
# state not written, 2 when FILE is refused or does not apply (why in the
# first line of STATE/patch.log). What is applied, reverted and recorded
# is the copy iopath patch check wrote of what it read: FILE is read once,
# and no later change to it reaches the tree.
apply_patch() {
	local n=$1 p=$2 f d why copy=$state/applied.patch.new
	restore_tree || return 1
	new_file "$state/patch.log" || return 1
	rm -f -- "$copy"
	why=$(patch_refusal "$p" "$copy")
	if [ -n "$why" ]; then
		echo "$why" >> "$state/patch.log"
		return 2
	fi
	patch -d "$ksrc" -p1 -s -f --dry-run < "$copy" >> "$state/patch.log" 2>&1 || return 2
	rm -rf "$backup"
	new_file "$state/applied.files.new" && new_file "$state/applied.new.new" || return 1
	while IFS= read -r f; do
		if [ -f "$ksrc/$f" ]; then
			if ! work_mkdir "$backup/$(dirname "$f")" 2>/dev/null || ! cp -p "$ksrc/$f" "$backup/$f" 2>/dev/null; then
				echo "$prog: cannot save $ksrc/$f in $backup" >&2
				return 1
			fi
			printf '%s\n' "$f" >> "$state/applied.files.new"
		else
			printf '%s\n' "$f" >> "$state/applied.new.new"
			d=$(dirname "$f")
			while [ "$d" != . ] && [ ! -e "$ksrc/$d" ]; do
				printf '%s\n' "$d" >> "$state/applied.new.new"
				d=$(dirname "$d")
			done
		fi
	done < <(patch_names "$copy")
	if ! mv -T "$state/applied.new.new" "$state/applied.new" || ! mv -T "$state/applied.files.new" "$state/applied.files"; then
		echo "$prog: cannot write the state in $state" >&2
		return 1
	fi
	# The copy reverts it too, whatever becomes of FILE meanwhile.
	mv -T -- "$copy" "$state/applied.patch" || return 1
	# Recorded before the tree changes: any exit from here on reverts.
	echo "$n" | write_file "$applied" || return 1
	new_file "$state/patch.log" || return 1
	patch -d "$ksrc" -p1 -s -f --no-backup-if-mismatch < "$state/applied.patch" >> "$state/patch.log" 2>&1 || return 2
}

# work_refusal: why $work may not be used, or nothing. Everything in it
# is written as root and its state is read back to decide what is copied
# where: WORK and the directories in it must be the caller's own and not
# writable by anyone else (who could plant a link or rewrite the state);
# state, logs and kernels hold nothing of anyone else's and no symbolic
# link; the recorded patch's state names only files of the tree
# (state_refusal). Used by ab, mutate and ab's watcher alike.
work_refusal() {
	local d n l uid state applied backup
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
	for d in "$work" "$work"/{state,logs,kernels,obj,src,apt,debs}; do
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
	state=$work/state
	kbuild_state
	state_refusal
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
# 1). PATCH: patches are applied to the tree and reverted (patch, whatever
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

# The patch in the tree right now, if any, and the pristine copies of the
# files it touches.
kbuild_state() {
	applied=$state/applied
	backup=$state/pristine
}

# configure: tinyconfig plus the fragment, again whenever the fragment
# changes.
configure() {
	local frag=$top/configs/kernel/iopath.config sum
	[ -n "$builder" ] && return 0
	sum=$(md5sum < "$frag" | cut -c1-32)
	[ -f "$obj/.config" ] && [ "$(cat "$obj/.iopath-config" 2>/dev/null)" = "$sum" ] && return 0
	work_mkdir "$obj" || exit 1
	note "configuring $obj: tinyconfig + $(basename "$frag")"
	new_file "$logs/configure.log" || exit 1
	{
		make -s -C "$ksrc" O="$obj" tinyconfig &&
		"$ksrc/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$frag" &&
		make -s -C "$ksrc" O="$obj" olddefconfig
	} >> "$logs/configure.log" 2>&1 || fail "kernel configuration failed ($logs/configure.log)"
	echo "$sum" | write_file "$obj/.iopath-config" || exit 1
}

# run_child OUT ERR CMD...: CMD in the background, waited for, so that a
# signal is handled at once (bash runs traps only between commands, and
# "wait" is interruptible); the trap stops the child. OUT and ERR are made
# by new_file: 1 when either cannot be.
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

# build_kernel LOG: the builder's exit status; the seconds taken in last_s.
build_kernel() {
	local log=$1 t0=$SECONDS rc
	if [ -n "$builder" ]; then
		run_child "$log" "$log.err" "$builder" "$ksrc" "$obj" "$jobs"
	else
		run_child "$log" "$log.err" make -s -C "$ksrc" O="$obj" -j"$jobs" bzImage
	fi
	rc=$?
	cat "$log.err" >> "$log" && rm -f "$log.err"
	last_s=$((SECONDS - t0))
	return $rc
}

# guard_tree: a watcher in a session of its own, so that a SIGKILL of this
# script or of its whole process group leaves the tree pristine too: when
# this shell is gone it takes the work lock (the flock on the work
# directory itself, once whatever holds it, e.g. an orphaned build, is
# done with it) and reverts the patch recorded in the state, if any. On an
# ordinary exit the caller has restored the tree already and the watcher
# finds nothing to do.
guard_tree() {
	KB_OWNER=$$ KB_WORK=$work KB_STATE=$state KB_KSRC=$ksrc KB_PROG=$prog \
		setsid -f bash -c '
		while kill -0 "$KB_OWNER" 2>/dev/null; do
			sleep 0.2
		done
		. "$0" || exit 1
		prog=$KB_PROG work=$KB_WORK state=$KB_STATE ksrc=$KB_KSRC
		kbuild_state
		exec 8< "$work" || exit 1
		flock 8
		[ -f "$applied" ] || exit 0
		[ -z "$(work_refusal)" ] || exit 1
		restore_tree' "$top/scripts/lib/kbuild.bash" < /dev/null > /dev/null 2>&1 8>&-
}
