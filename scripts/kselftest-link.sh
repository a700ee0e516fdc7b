#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Make iopath a collection of a kernel tree: tools/testing/selftests/iopath.
#
# The directory is a real one holding a two-line Makefile that includes
# selftests/Makefile from this checkout, plus links to `config` and
# `settings`. A plain symlink to selftests/ would not do: make -C resolves
# it, and `..` would then point into this checkout instead of the kernel's
# selftests directory, where lib.mk lives.
#
# usage: kselftest-link.sh /path/to/linux
#   then: make -C /path/to/linux/tools/testing/selftests TARGETS=iopath run_tests
set -eu

ksrc=${1:?usage: kselftest-link.sh /path/to/linux}
sel=$ksrc/tools/testing/selftests
if [ ! -f "$sel/lib.mk" ]; then
	echo "kselftest-link: $ksrc is not a kernel tree (no tools/testing/selftests/lib.mk)" >&2
	exit 1
fi
top=$(cd "$(dirname "$0")/.." && pwd)
dst=$sel/iopath
if [ -e "$dst" ] && [ ! -f "$dst/.iopath-link" ]; then
	echo "kselftest-link: $dst exists and was not made by this script" >&2
	exit 1
fi
mkdir -p "$dst"
cat > "$dst/Makefile" <<MK
# SPDX-License-Identifier: GPL-2.0-or-later
IOPATH_SRC := $top
include \$(IOPATH_SRC)/selftests/Makefile
MK
ln -sf "$top/selftests/config" "$dst/config"
ln -sf "$top/selftests/settings" "$dst/settings"
echo "$top" > "$dst/.iopath-link"
echo "$dst -> $top/selftests"
