#!/usr/bin/env bash
# maint/mpich/build-mpich.sh -- build and install the patched MPICH 4.0.2.
#
#   build-mpich.sh --prefix P --rankmap-build BUILDDIR --rankmap-src SRCDIR
#                  [--with-mpich-src DIR] [--config vendor|dev]
#                  [--cache-dir DIR] [--destdir DIR] [--jobs N] [--no-install]
#                  [--print-key]
#
# --config vendor (the default): Debian's configuration of its libmpich12
#    (ch4:ucx, Fortran "all", Slurm, no yaksa, hydra, library names
#    libmpich/libmpichfort/libmpichcxx), so every entry point, datatype and op
#    of Debian's build exists in this one.  --config dev: ch3:nemesis without
#    Fortran, a few minutes faster, for a developer's own loop.
#
# 1. Source: Debian's source package (`apt-get source mpich`; deb-src entries
#    are derived from the machine's own apt sources when missing), or the
#    tree given with --with-mpich-src.  The pristine tree is kept in the cache.
# 2. The build tree lives in $CACHE/mpich-<key>, where <key> hashes the patch
#    series, the configuration, the source and the rankmap files compiled into
#    MPICH (include/rankmap_mpi.h, include/mpix_rankmap.h, src/mpich/*, the
#    generated settings; headers without their comments): a second run with
#    the same inputs only installs.  The MPI layer itself (src/mpilayer) is
#    not in the key: libmpich links librankmap-mpi, so changing the layer
#    rebuilds rankmap, not MPICH.  The tree is configured for the prefix
#    /opt/rankmap and relocated at install (text files rewritten, libmpich
#    finds librankmap through $ORIGIN), so the key does not depend on where
#    the caller installs.
# 3. rankmap's files copied into the tree, patches from maint/mpich/patches
#    (in the order of the series file), the settings written
#    (src/mpi/topo/rankmap_cvars.c, maint/gen-cvars.py), the C bindings and
#    the CVAR tables regenerated with MPICH's own maint/gen_binding_c.py and
#    maint/extractcvars (no autogen), configure, make (libmpi linked with
#    BUILDDIR/.libs/librankmap-mpi and librankmap, rpath P/lib).
# 4. make install (into DESTDIR if given) and relocation to P, plus
#    libmpi.so* -> libmpich.so* (the names upstream MPICH builds use).
# Exit status is non-zero with a message naming the failing step.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
prefix= rm_build= rm_src= mpich_src= config=vendor destdir= install=yes print_key=no
build_prefix=/opt/rankmap
cache=${RANKMAP_CACHE_DIR:-/var/cache/rankmap}
jobs=${RANKMAP_MPICH_JOBS:-2}
MPICH_VERSION=4.0.2

die() { echo "build-mpich.sh: error: $*" >&2; exit 1; }
note() { echo "build-mpich.sh: $*" >&2; }

while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#*=}; shift ;;
    --rankmap-build) rm_build=$2; shift 2 ;;
    --rankmap-build=*) rm_build=${1#*=}; shift ;;
    --rankmap-src) rm_src=$2; shift 2 ;;
    --rankmap-src=*) rm_src=${1#*=}; shift ;;
    --with-mpich-src) mpich_src=$2; shift 2 ;;
    --with-mpich-src=*) mpich_src=${1#*=}; shift ;;
    --config) config=$2; shift 2 ;;
    --config=*) config=${1#*=}; shift ;;
    --cache-dir) cache=$2; shift 2 ;;
    --cache-dir=*) cache=${1#*=}; shift ;;
    --destdir) destdir=$2; shift 2 ;;
    --destdir=*) destdir=${1#*=}; shift ;;
    --jobs) jobs=$2; shift 2 ;;
    --jobs=*) jobs=${1#*=}; shift ;;
    --no-install) install=no; shift ;;
    --print-key) print_key=yes; shift ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[ -n "$prefix" ] || die "--prefix is required"
[ -n "$rm_build" ] || die "--rankmap-build is required (the rankmap build tree)"
[ -n "$rm_src" ] || die "--rankmap-src is required (the rankmap source tree)"
case $prefix in /*) ;; *) die "--prefix must be absolute: $prefix" ;; esac
case $config in vendor|dev) ;; *) die "--config must be vendor or dev, not '$config'" ;; esac
rm_build=$(cd "$rm_build" && pwd) || die "--rankmap-build $rm_build: no such directory"
rm_src=$(cd "$rm_src" && pwd) || die "--rankmap-src $rm_src: no such directory"
# rankmap's files compiled into MPICH (the cache key hashes them)
rm_files=("$rm_src/include/rankmap_mpi.h" "$rm_src/include/mpix_rankmap.h"
          "$rm_src/src/mpich/mpir_rankmap.h" "$rm_src/src/mpich/rankmap_mpich.c")
for f in "${rm_files[@]}" "$rm_src/maint/gen-cvars.py"; do
  [ -f "$f" ] || die "$f not found (--rankmap-src)"
done
ls "$rm_build"/.libs/librankmap-mpi.so* >/dev/null 2>&1 ||
  die "$rm_build/.libs/librankmap-mpi.so not found: build it first (make librankmap-mpi.la)"
mkdir -p "$cache" || die "cannot create the cache directory $cache (set RANKMAP_CACHE_DIR)"
cache=$(cd "$cache" && pwd)

# ---- build dependencies ------------------------------------------------------
missing=()
command -v gcc >/dev/null || missing+=(gcc)
command -v g++ >/dev/null || missing+=(g++)
command -v make >/dev/null || missing+=(make)
command -v perl >/dev/null || missing+=(perl)
command -v python3 >/dev/null || missing+=(python3)
command -v patch >/dev/null || missing+=(patch)
command -v flock >/dev/null || missing+=(util-linux)
command -v chrpath >/dev/null || missing+=(chrpath)
[ -f /usr/include/hwloc.h ] || missing+=(libhwloc-dev)
if [ -z "$mpich_src" ]; then command -v dpkg-source >/dev/null || missing+=(dpkg-dev); fi
if [ "$config" = vendor ]; then
  command -v gfortran >/dev/null || missing+=(gfortran)
  [ -f /usr/include/ucp/api/ucp.h ] || missing+=(libucx-dev)
  [ -f /usr/include/slurm/slurm.h ] || missing+=(libslurm-dev)
  [ -f /usr/include/rdma/fabric.h ] || missing+=(libfabric-dev)
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    note "installing build dependencies: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2 ||
      die "apt-get install ${missing[*]} failed"
  else
    die "missing build dependencies: ${missing[*]} (apt-get install them, as root)"
  fi
fi

# ---- the source tree -------------------------------------------------------------
# Derive deb-src entries from the machine's own apt sources (no host name is
# written anywhere but /etc/apt on this machine).
enable_deb_src() {
  local out=/etc/apt/sources.list.d/rankmap-deb-src
  [ "$(id -u)" = 0 ] || die "apt-get source needs deb-src entries; run as root or give --with-mpich-src=DIR"
  local f
  : >"$out.sources.tmp"
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    case $f in "$out.sources") continue ;; esac
    # deb822: every stanza whose Types has "deb" gets a "deb-src" twin
    awk 'BEGIN { RS = ""; ORS = "\n\n" }
         /(^|\n)Types:[^\n]*(^|[ \t])deb([ \t]|$|\n)/ && !/(^|\n)Enabled:[ \t]*no/ {
           sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f" >>"$out.sources.tmp"
  done
  : >"$out.list.tmp"
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    case $f in "$out.list") continue ;; esac
    sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >>"$out.list.tmp"
  done
  [ -s "$out.sources.tmp" ] && mv "$out.sources.tmp" "$out.sources" || rm -f "$out.sources.tmp"
  [ -s "$out.list.tmp" ] && mv "$out.list.tmp" "$out.list" || rm -f "$out.list.tmp"
  [ -f "$out.sources" ] || [ -f "$out.list" ] || die "no apt source entries to derive deb-src from"
  note "derived deb-src entries in $out.*; apt-get update"
  apt-get update -q >&2 || die "apt-get update failed"
}

pristine=
source_id=
if [ -n "$mpich_src" ]; then
  pristine=$(cd "$mpich_src" && pwd) || die "--with-mpich-src $mpich_src: no such directory"
  source_id="dir:$pristine"
else
  pristine=$cache/src/mpich-$MPICH_VERSION-debian
  source_id="debian:mpich-$MPICH_VERSION"
  if [ ! -f "$pristine/.rankmap-complete" ]; then
    (
      flock 9
      if [ ! -f "$pristine/.rankmap-complete" ]; then
        # grep without -q: it reads all of apt-cache's output, so no
        # SIGPIPE fails the pipeline under pipefail when the version is there.
        apt-cache showsrc mpich 2>/dev/null | grep "^Version: $MPICH_VERSION" >/dev/null || enable_deb_src
        tmp=$(mktemp -d "$cache/src-XXXXXX")
        note "apt-get source mpich (into $tmp)"
        (cd "$tmp" && apt-get source -q mpich >&2) || die "apt-get source mpich failed"
        d=$(ls -d "$tmp"/mpich-*/ 2>/dev/null | head -1)
        [ -n "$d" ] || die "apt-get source mpich produced no source tree"
        rm -rf "$pristine"
        mkdir -p "$cache/src"
        mv "$d" "$pristine" || die "cannot move the source to $pristine"
        rm -rf "$tmp"
        touch "$pristine/.rankmap-complete"
      fi
    ) 9>"$cache/src.lock"
  fi
fi
[ -f "$pristine/configure" ] && [ -f "$pristine/maint/extractcvars.in" ] ||
  die "$pristine is not an MPICH source tree (configure, maint/extractcvars.in)"
ver=$(sed -n "s/^PACKAGE_VERSION='\(.*\)'/\1/p" "$pristine/configure" | head -1)
[ "$ver" = "$MPICH_VERSION" ] || die "$pristine is MPICH $ver; the patches are for $MPICH_VERSION"

# ---- cache key -------------------------------------------------------------------
series=$here/patches/series
[ -f "$series" ] || die "$series not found"
patches=()
while read -r p; do
  case $p in ''|'#'*) continue ;; esac
  [ -f "$here/patches/$p" ] || die "patch $p (listed in $series) not found"
  patches+=("$here/patches/$p")
done <"$series"

# rankmap's version, shown by MPI_Get_library_version and mpichversion
rm_version=$(sed -n 's/^AC_INIT(\[rankmap\], *\[\([^]]*\)\].*/\1/p' "$rm_src/configure.ac")
[ -n "$rm_version" ] || die "no version in $rm_src/configure.ac (AC_INIT)"
# vendor: the options of Debian's debian/rules for amd64 (mpichversion of
# libmpich12 prints them), less the install paths, which are ours; the
# variables below are the environment debian/rules exports.
case $config in
  vendor)
    conf_opts=(--prefix="$build_prefix" --with-libfabric=/usr --with-slurm=/usr --with-ucx=/usr
               --with-device=ch4:ucx --with-pm=hydra --with-hwloc-prefix=/usr
               --with-wrapper-dl-type=none --enable-shared --without-yaksa --enable-fortran=all
               --disable-static "--with-custom-version-string=rankmap $rm_version")
    gf_flags="-fallow-invalid-boz -fallow-argument-mismatch"
    conf_env=(MPILIBNAME=mpich FC=gfortran F77=gfortran TZ=UTC+0
              "MPICHLIB_CFLAGS=-g -O2 -fstack-protector-strong -Wformat -Werror=format-security"
              "MPICHLIB_CXXFLAGS=-g -O2 -fstack-protector-strong -Wformat -Werror=format-security"
              "MPICHLIB_FFLAGS=-g -O2 -fstack-protector-strong $gf_flags"
              "MPICHLIB_FCFLAGS=-g -O2 -fstack-protector-strong -cpp $gf_flags"
              "FFLAGS=-O2 -fstack-protector-strong $gf_flags" "FCFLAGS=-O2 -fstack-protector-strong $gf_flags"
              CPPFLAGS= CFLAGS= CXXFLAGS= BASH_SHELL=/bin/bash) ;;
  dev)
    conf_opts=(--prefix="$build_prefix" --with-device=ch3:nemesis --with-pm=hydra --with-hwloc=/usr
               --disable-fortran --disable-cxx --enable-fast=O2 --enable-shared --disable-static
               --with-datatype-engine=dataloop "--with-custom-version-string=rankmap $rm_version")
    conf_env=(MPILIBNAME=mpich) ;;
esac

key=$( {
  echo "build-mpich v3"
  echo "$source_id"
  printf '%s\n' "${conf_opts[@]}" "${conf_env[@]}"
  for p in "${patches[@]}"; do basename "$p"; cat "$p"; done
  # rankmap's files MPICH compiles, without their comments (a comment edit
  # rebuilds nothing), and the settings it is built with
  for f in "${rm_files[@]}"; do
    cpp -fpreprocessed -dD -E -P - <"$f" 2>/dev/null || cat "$f"
  done
  python3 "$rm_src/maint/gen-cvars.py" --list
} | sha256sum | cut -c1-16)
tree=$cache/mpich-$key
[ $print_key = no ] || { echo "$tree"; exit 0; }
# librankmap is found through LIBRARY_PATH (not -L), so no build directory
# ends up in libmpich's RUNPATH or in its libtool relink command; at run time
# libmpich finds it beside itself ($ORIGIN), wherever the prefix is
link_vars=('RANKMAP_LDFLAGS=-Wl,-rpath,\$$ORIGIN' 'RANKMAP_LIBS=-lrankmap-mpi -lrankmap')
LIBRARY_PATH=$rm_build/.libs${LIBRARY_PATH:+:$LIBRARY_PATH}
export LIBRARY_PATH

# ---- build (once per key) --------------------------------------------------------
exec 8>"$tree.lock"
flock 8
if [ -f "$tree/.rankmap-built" ]; then
  note "using the cached build $tree"
else
  if [ ! -f "$tree/.rankmap-configured" ]; then
    rm -rf "$tree"
    note "copying $pristine to $tree"
    cp -a "$pristine" "$tree.tmp.$$" && mv "$tree.tmp.$$" "$tree" || die "cannot copy the MPICH source"
    # rankmap's files: the layer's and the MPIX headers, MPICH's operations
    cp "$rm_src/include/rankmap_mpi.h" "$rm_src/include/mpix_rankmap.h" \
       "$rm_src/src/mpich/mpir_rankmap.h" "$tree/src/include/"
    cp "$rm_src/src/mpich/rankmap_mpich.c" "$tree/src/mpi/topo/"
    for p in "${patches[@]}"; do
      note "applying $(basename "$p")"
      patch -d "$tree" -p1 --forward --quiet <"$p" || die "patch $(basename "$p") does not apply to $pristine"
    done
    # the settings: their CVAR block and getter, from rankmap's one source
    python3 "$rm_src/maint/gen-cvars.py" --mpich "$tree/src/mpi/topo/rankmap_cvars.c" ||
      die "maint/gen-cvars.py failed"
    # regenerate the C bindings (the hooks of patch 0002) with MPICH's own
    # generator, as autogen.sh would
    (cd "$tree" && python3 maint/gen_binding_c.py >/dev/null) || die "maint/gen_binding_c.py failed"
    # the patches and the generator touch Makefile.am's neighbours: keep the
    # shipped Makefile.in newer than its sources so make never calls automake-1.15
    find "$tree" -name Makefile.in -exec touch {} +
    # regenerate the CVAR tables (src/include/mpir_cvars.h, src/util/mpir_cvars.c,
    # README.envvar) with MPICH's own extractor, as autogen.sh would
    sed "s|@abs_srcdir@|$tree/maint|g" "$tree/maint/extractcvars.in" >"$tree/maint/extractcvars.rankmap"
    dirs=$(sed "s|@abs_srcdir@|$tree/maint|g" "$tree/maint/cvardirs.in")
    (cd "$tree" && perl maint/extractcvars.rankmap --dirs="$dirs" >&2) || die "maint/extractcvars failed"
    grep -q MPIR_CVAR_RANKMAP_TOPOLOGY "$tree/src/include/mpir_cvars.h" || die "the RANKMAP CVARs were not extracted"
    note "configure ($config) ${conf_opts[*]}"
    (cd "$tree" && env "${conf_env[@]}" ./configure "${conf_opts[@]}" >configure.rankmap.log 2>&1) ||
      { tail -30 "$tree/configure.rankmap.log" >&2; die "MPICH configure failed (log: $tree/configure.rankmap.log)"; }
    touch "$tree/.rankmap-configured"
  fi
  note "make -j$jobs in $tree (log: $tree/make.rankmap.log)"
  (cd "$tree" && make -j"$jobs" "${link_vars[@]}" >make.rankmap.log 2>&1) ||
    { grep -E -B2 -A6 'error|Error' "$tree/make.rankmap.log" | tail -40 >&2; die "MPICH make failed (log: $tree/make.rankmap.log)"; }
  touch "$tree/.rankmap-built"
fi

# ---- install --------------------------------------------------------------------
[ $install = yes ] || { echo "$tree"; exit 0; }
note "make install${destdir:+ DESTDIR=$destdir} (prefix $prefix)"
# install into a scratch root, then move to DESTDIR/PREFIX and rewrite the
# build prefix in the text files that carry it (wrappers, .pc, .la, mpichversion's
# configure line is in the binary and stays as built)
[ -z "$destdir" ] || mkdir -p "$destdir" || die "cannot create $destdir"
scratch=$(mktemp -d "${destdir:-/tmp}/.mpich-install-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
(cd "$tree" && make install DESTDIR="$scratch" "${link_vars[@]}" >install.rankmap.log 2>&1) ||
  { tail -30 "$tree/install.rankmap.log" >&2; die "MPICH make install failed (log: $tree/install.rankmap.log)"; }
root=$destdir$prefix
mkdir -p "$root"
(cd "$scratch$build_prefix" && cp -pPR . "$root/") || die "cannot copy the installed MPICH into $root"
if [ "$prefix" != "$build_prefix" ]; then
  dirs=()
  for d in bin lib include etc share/man; do [ -d "$root/$d" ] && dirs+=("$root/$d"); done
  # grep -I: text files only (wrappers, .pc, .la, mpif.h paths); exit 1 = none
  texts=$(grep -rlI -F "$build_prefix" "${dirs[@]}") || [ $? = 1 ] || die "cannot scan $root for the build prefix"
  if [ -n "$texts" ]; then
    echo "$texts" | while read -r f; do sed -i "s|$build_prefix|$prefix|g" "$f"; done ||
      die "cannot relocate the wrappers to $prefix"
  fi
fi
# the wrappers of Debian's configuration add no run path (--with-wrapper-dl-type=none:
# /usr/lib needs none); under a prefix, programs built with them find the
# prefix's libmpich through a RUNPATH, so no LD_LIBRARY_PATH is needed
if [ "$config" = vendor ]; then
  for w in "$root"/bin/mpi*; do
    [ -f "$w" ] && [ ! -L "$w" ] && grep -qs '^with_wrapper_dl_type=none$' "$w" || continue
    sed -i 's/^with_wrapper_dl_type=none$/with_wrapper_dl_type=runpath/' "$w"
  done
fi
# run paths: the libraries find each other and librankmap beside themselves,
# the programs in ../lib, wherever the prefix is (libtool also recorded the
# build prefix and the rankmap build tree's libdir, which must not leak)
for f in "$root"/bin/* "$root"/lib/*.so.*; do
  [ -f "$f" ] && [ ! -L "$f" ] || continue
  rp=$( (chrpath -l "$f" 2>/dev/null || true) | sed -n 's/.*R\(UN\)\{0,1\}PATH=//p')
  [ -n "$rp" ] || continue
  case $f in "$root"/bin/*) want='$ORIGIN/../lib' ;; *) want='$ORIGIN' ;; esac
  [ "$rp" = "$want" ] || chrpath -r "$want" "$f" >/dev/null || die "chrpath -r $want $f failed"
done
lib=$root/lib
[ -f "$lib/libmpich.so.12" ] || die "$lib/libmpich.so.12 missing after make install"
# the names upstream MPICH builds use (the tests and the benchmarks link -lmpi)
ln -sf libmpich.so.12 "$lib/libmpi.so.12"
ln -sf libmpich.so "$lib/libmpi.so"
[ -f "$root/include/mpix_rankmap.h" ] || die "mpix_rankmap.h was not installed"
# a staged install records its build tree (the MPI tests compile MPICH's own
# test/mpi/topo from it); the record sits outside $prefix, so it is not installed
[ -z "$destdir" ] || echo "$tree" >"$destdir/mpich-tree"
note "patched MPICH ($config) installed in $root (build tree $tree)"
