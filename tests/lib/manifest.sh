# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Sourced by the tests of the kernel build (tests/kbuild.sh, tests/ab.sh,
# tests/mutate.sh): what "the source tree as it was" means. Not
# executable, so check.sh does not run it.

# tree_manifest DIR: one line per name under DIR (DIR itself too): its
# type, mode, owner, size, mtime and ctime in ns and a link's target, then
# one line per file with its content's SHA-256; sorted. Two manifests are
# equal when DIR is byte for byte what it was, with its modes and mtimes,
# and nothing was even written and put back (the ctime). Atimes are left
# out: reading the tree changes them.
tree_manifest() {
	(
		cd -- "$1" || exit 1
		find . -printf '%p\t%y\t%m\t%U:%G\t%s\t%T@\t%C@\t%l\n'
		find . -type f -exec sha256sum -- {} +
	) | LC_ALL=C sort
}
