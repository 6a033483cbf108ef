# maint/common.sh -- sourced by maint/test.sh and maint/demo.sh: dependency
# install, autotools regeneration and one configured build directory.
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$src"
bash maint/deps.sh
if [ ! -x configure ] || [ ! -f Makefile.in ] || [ configure.ac -nt configure ] \
   || [ -n "$(find . -path ./_build -prune -o \( -name '*.mk' -o -name 'Makefile.am' -o -name '*.m4' \) -newer Makefile.in -print | head -1)" ]; then
  autoreconf -fi >/dev/null
fi

# build_in DIR [configure args...] [-- TARGET]: configure once, then
# make + make install, or with "-- TARGET" only make TARGET (no install).
build_in() {
  local dir=$1; shift
  local conf=() target=
  while [ $# -gt 0 ]; do
    if [ "$1" = -- ]; then target=$2; break; fi
    conf+=("$1"); shift
  done
  mkdir -p "$dir"
  (
    cd "$dir"
    if [ ! -f config.status ]; then
      "$src/configure" "${conf[@]}" >configure.log 2>&1 || { tail -30 configure.log; exit 1; }
    fi
    make -j"$(nproc)" $target >make.log 2>&1 || { tail -60 make.log; echo "rankmap: build failed, see $dir/make.log"; exit 1; }
    [ -n "$target" ] && exit 0
    make install >install.log 2>&1 || { tail -30 install.log; echo "rankmap: install failed, see $dir/install.log"; exit 1; }
  )
}
