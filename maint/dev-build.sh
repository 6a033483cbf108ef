#!/usr/bin/env bash
# maint/dev-build.sh BUILD_DIR [configure args...]
# Developer helper: regenerate the autotools files when needed (serialised
# with a lock so several builds may share one source tree), configure an
# out-of-tree build in BUILD_DIR once, and run make there.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: maint/dev-build.sh BUILD_DIR [configure args...]}
shift
(
  flock 9
  cd "$src"
  if [ ! -x configure ] || [ ! -f Makefile.in ] || [ configure.ac -nt configure ] \
     || [ -n "$(find . -path ./_build -prune -o \( -name '*.mk' -o -name 'Makefile.am' -o -name '*.m4' \) -newer Makefile.in -print | head -1)" ]; then
    autoreconf -fi >/dev/null
  fi
) 9>"$src/.autoreconf.lock"
mkdir -p "$build"
cd "$build"
if [ ! -f config.status ]; then
  "$src/configure" --without-mpich "$@" >configure.log
fi
make -j"$(nproc)" ${MAKE_TARGETS:-}
