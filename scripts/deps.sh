#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Make sure what iopath needs is on this machine. Each line below names a
# Debian package and a file that only that package provides; a present file
# means nothing to do, so a machine that has everything pays a few stat()s.
#
# usage: deps.sh [--check] [GROUP...]
#   GROUP: build (compile everything: make, make install), run (what the
#   tests and benchmarks run: mkfs, fio, gnuplot; make run, check, bench,
#   kselftest, repro), base (both, the default), vm (iopath vm),
#   initramfs (what vm needs but QEMU: iopath lava jobs only stages a
#   kernel and an initramfs), mutate
#   (kernel builds for iopath mutate), patch (applying a patch to a kernel
#   tree), clang (fuzzing), check (what make check's own tests run), lava
#   (lava-run for make lava-run; never by make check), fresh (debootstrap,
#   for scripts/fresh-root.sh)
# As root on Debian/Ubuntu, missing packages are installed with apt-get.
# Otherwise, and always with --check, the exact install command is printed
# and the exit status is 1: a command that needs a group runs
# `deps.sh --check GROUP` before it starts.
#
# For tests only: IOPATH_DEPS_ROOT=DIR looks for the files under DIR
# instead of /, so that a test sees a machine that lacks them (an empty DIR
# lacks everything); with it nothing is ever installed, as with --check.
set -eu

check_only=0
root=${IOPATH_DEPS_ROOT:-}
[ -z "$root" ] || check_only=1
if [ "${1:-}" = "--check" ]; then
	check_only=1
	shift
fi
groups=${*:-base}

# The kselftest harness comes from linux-source; rsync installs the
# collection (lib.mk's install).
pkgs_build="
build-essential:/usr/bin/gcc
make:/usr/bin/make
pkg-config:/usr/bin/pkg-config
liburing-dev:/usr/include/liburing.h
libnuma-dev:/usr/include/numa.h
libjansson-dev:/usr/include/jansson.h
libyaml-dev:/usr/include/yaml.h
libgsl-dev:/usr/include/gsl/gsl_cdf.h
rsync:/usr/bin/rsync
linux-source-6.12:/usr/src/linux-source-6.12.tar.xz
xz-utils:/usr/bin/xz
"
pkgs_run="
numactl:/usr/bin/numactl
xfsprogs:/sbin/mkfs.xfs
e2fsprogs:/sbin/mkfs.ext4
util-linux:/sbin/losetup
gnuplot-nox:/usr/bin/gnuplot
fio:/usr/bin/fio
"
pkgs_initramfs="
busybox-static:/bin/busybox
cpio:/usr/bin/cpio
kmod:/sbin/depmod
xfsprogs:/sbin/mkfs.xfs
e2fsprogs:/sbin/mkfs.ext4
util-linux:/sbin/losetup
"
pkgs_vm="
qemu-system-x86:/usr/bin/qemu-system-x86_64
$pkgs_initramfs"
pkgs_clang="
clang:/usr/bin/clang
libclang-rt-dev:/usr/share/doc/libclang-rt-dev/copyright
"
# make check: the lint and reproducer tests run shellcheck, which must not
# quietly skip on a fresh machine; the statistics are recomputed in python3;
# tests/lava.sh renders the LAVA jobs through lava-server's own Jinja2
# device-type templates (python3-yaml, python3-jinja2), tests/lava_lab.sh
# validates them with LAVA's own schema (lava-common: python3-voluptuous
# and python3-yaml only; not lava-dispatcher, which pulls in gawk and
# libguestfs) and KCIDB reports are validated with jsonschema. iopath
# itself runs no Python. jq reads the
# records and JSON reports in the tests; iopath reads them itself (iopath
# records check, compare --format verdict) and runs no jq.
pkgs_check="
shellcheck:/usr/bin/shellcheck
jq:/usr/bin/jq
python3:/usr/bin/python3
python3-yaml:/usr/lib/python3/dist-packages/yaml/__init__.py
python3-jinja2:/usr/lib/python3/dist-packages/jinja2/__init__.py
python3-jsonschema:/usr/lib/python3/dist-packages/jsonschema/__init__.py
lava-common:/usr/lib/python3/dist-packages/lava_common/schemas/__init__.py
"
# Running LAVA jobs locally (make lava-run): lava-run and lava_common.
pkgs_lava="
lava-dispatcher:/usr/bin/lava-run
"
# A fresh Debian root for CI (scripts/fresh-root.sh).
pkgs_fresh="
debootstrap:/usr/sbin/debootstrap
git:/usr/bin/git
"
# Building a kernel for iopath mutate.
pkgs_mutate="
flex:/usr/bin/flex
bison:/usr/bin/bison
bc:/usr/bin/bc
libelf-dev:/usr/include/libelf.h
libssl-dev:/usr/include/openssl/ssl.h
"
# Applying and reverting patches in a kernel tree (iopath mutate and ab,
# whatever builds the kernel; make check runs both with fakes).
pkgs_patch="
patch:/usr/bin/patch
"

missing=""
for g in $groups; do
	case $g in
	build) list=$pkgs_build ;;
	run) list=$pkgs_run ;;
	base) list="$pkgs_build $pkgs_run" ;;
	vm) list=$pkgs_vm ;;
	initramfs) list=$pkgs_initramfs ;;
	clang) list=$pkgs_clang ;;
	mutate) list="$pkgs_mutate $pkgs_patch" ;;
	patch) list=$pkgs_patch ;;
	fresh) list=$pkgs_fresh ;;
	check) list=$pkgs_check ;;
	lava) list=$pkgs_lava ;;
	*) echo "deps: unknown group '$g' (build, run, base, vm, initramfs, clang, mutate, patch, check, lava, fresh)" >&2; exit 2 ;;
	esac
	for e in $list; do
		pkg=${e%%:*}
		file=${e#*:}
		# usrmerge: /sbin and /bin may only exist under /usr
		if [ ! -e "$root$file" ] && [ ! -e "$root/usr$file" ]; then
			# A kernel tree given as KSRC replaces linux-source.
			case $pkg in linux-source-*) [ -n "${KSRC:-}${KSFT_SRC:-}" ] && continue ;; esac
			# once, though two groups name it (mutate and patch)
			case "$missing " in *" $pkg "*) continue ;; esac
			missing="$missing $pkg"
		fi
	done
done

[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$check_only" = 1 ]; then
	echo "deps: missing:$missing; install with: sudo $cmd" >&2
	exit 1
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: missing packages; install them with: sudo $cmd" >&2
	exit 1
fi
echo "deps: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# An index older than the archive gives 404s; refresh it once and retry.
if ! apt-get install -y -q --no-install-recommends $missing >&2; then
	apt-get update -q >&2
	apt-get install -y -q --no-install-recommends $missing >&2
fi
