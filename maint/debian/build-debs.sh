#!/usr/bin/env bash
# maint/debian/build-debs.sh OUTDIR -- Debian packages of the vendor MPI.
#
#   rankmap packages   librankmap0, librankmap-dev, rankmap, rankmap-pmpi:
#                      this source tree with maint/debian/rankmap as debian/
#   MPICH packages     libmpich12, libmpich-dev, mpich: Debian's own source
#                      package of MPICH 4.0.2 (apt-get source mpich) with
#                      rankmap's patch series appended to debian/patches/series,
#                      built by its own debian/rules (Debian's configuration:
#                      ch4:ucx, Fortran, Slurm, hydra), libmpich linked with
#                      librankmap; version 4.0.2-3+rankmapN, which sorts after
#                      Debian's 4.0.2-3+b1, so `apt-get install ./*.deb`
#                      upgrades Debian's MPICH in place.
# The build dependencies are installed with apt-get (as root), librankmap0 and
# librankmap-dev from OUTDIR too (MPICH build-depends on them), and removed
# again at the end.  Takes about
# an hour on 2 cores (MPICH's autogen, configure and build).  Writes OUTDIR/*.deb
# and OUTDIR/build-debs.log.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
here=$src/maint/debian
out=$(realpath -m "${1:?usage: build-debs.sh OUTDIR}")
# the Debian revision of the MPICH packages: bump when the patch series changes
RANKMAP_DEBIAN_REVISION=1
die() { echo "build-debs.sh: error: $*" >&2; exit 1; }
note() { echo "build-debs.sh: $*" >&2; }
[ "$(id -u)" = 0 ] || die "needs root (apt-get build-dep, dpkg -i of librankmap-dev)"
version=$(sed -n 's/^AC_INIT(\[rankmap\], *\[\([^]]*\)\].*/\1/p' "$src/configure.ac")
[ -n "$version" ] || die "no version in configure.ac"
mkdir -p "$out"
rm -f "$out"/*.deb
# the commit the packages are built from, for the result file (check-debs.sh)
(cd "$src" && echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!bench/results' || echo -dirty)") >"$out/SOURCE"
work=$(mktemp -d /var/tmp/rankmap-debs-XXXXXX)
# leave the machine as it was: librankmap's packages are installed only for
# MPICH's build, the build-dependency metapackages are removed
cleanup() {
  dpkg -r librankmap-dev librankmap0 rankmap-build-deps mpich-build-deps >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
export DEBIAN_FRONTEND=noninteractive DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)"
apt-get install -y -qq --no-install-recommends devscripts equivs dpkg-dev quilt >/dev/null ||
  die "apt-get install devscripts equivs dpkg-dev quilt failed"

# ---- rankmap ---------------------------------------------------------------------
note "rankmap $version: source tree and build dependencies"
tree=$work/rankmap-$version
mkdir -p "$tree"
(cd "$src" && git ls-files -z --cached --others --exclude-standard | grep -zv '^debian/' |
   xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$tree"
cp -a "$here/rankmap" "$tree/debian"
cat >"$tree/debian/changelog" <<CL
rankmap ($version) bookworm; urgency=medium

  * rankmap $version (see NEWS).

 -- rankmap developers <rankmap@localhost>  $(date -R)
CL
(cd "$work" && mk-build-deps -i -r -t "apt-get -y -qq --no-install-recommends" "$tree/debian/control" >/dev/null 2>&1) ||
  die "cannot install rankmap's build dependencies (mk-build-deps)"
note "dpkg-buildpackage rankmap (log: $out/build-debs.log)"
(cd "$tree" && dpkg-buildpackage -b -uc -us) >"$out/build-debs.log" 2>&1 ||
  { tail -40 "$out/build-debs.log" >&2; die "rankmap's packages failed to build"; }
cp "$work"/*.deb "$out/"
# MPICH's build needs rankmap.h and librankmap
dpkg -i "$work"/librankmap0_*.deb "$work"/librankmap-dev_*.deb >/dev/null || die "dpkg -i librankmap failed"

# ---- MPICH -----------------------------------------------------------------------
note "apt-get source mpich"
grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/ ||
  die "no deb-src entries: run make once (build-mpich.sh derives them) or add them"
(cd "$work" && apt-get source -q mpich >/dev/null 2>&1) || die "apt-get source mpich failed"
m=$(ls -d "$work"/mpich-*/ | head -1)
[ -n "$m" ] || die "apt-get source mpich produced no tree"
upstream=$(dpkg-parsechangelog -l "$m/debian/changelog" -S Version)
# rankmap's patches, after Debian's own; first the files build-mpich.sh
# copies into the tree (rankmap's MPIX header, MPICH's operations for the
# layer and their header, the settings generated from settings.cvars) as a
# patch of their own: Debian's rules then run autogen, which regenerates the
# bindings and the CVAR tables with the hooks.  rankmap_mpi.h comes from
# librankmap-dev.
files=$work/rankmap-files
mkdir -p "$files/src/include" "$files/src/mpi/topo"
cp "$src/include/mpix_rankmap.h" "$src/src/mpich/mpir_rankmap.h" "$files/src/include/"
cp "$src/src/mpich/rankmap_mpich.c" "$files/src/mpi/topo/"
python3 "$src/maint/gen-cvars.py" --mpich "$files/src/mpi/topo/rankmap_cvars.c" || die "maint/gen-cvars.py failed"
(cd "$files" && for f in src/include/mpix_rankmap.h src/include/mpir_rankmap.h src/mpi/topo/rankmap_mpich.c \
                        src/mpi/topo/rankmap_cvars.c; do
   diff -u /dev/null "$f" | sed -e '1s|.*|--- /dev/null|' -e "2s|.*|+++ b/$f|"
 done) >"$m/debian/patches/rankmap-0000-files.patch" || true
grep -q '^+++ b/src/mpi/topo/rankmap_cvars.c' "$m/debian/patches/rankmap-0000-files.patch" ||
  die "cannot write rankmap-0000-files.patch"
echo "rankmap-0000-files.patch" >>"$m/debian/patches/series"
while read -r p; do
  case $p in ''|'#'*) continue ;; esac
  cp "$src/maint/mpich/patches/$p" "$m/debian/patches/rankmap-$p"
  echo "rankmap-$p" >>"$m/debian/patches/series"
done <"$src/maint/mpich/patches/series"
# debian/rules: libmpich links librankmap (patch 0001 reads RANKMAP_LIBS from
# make's environment), the version string names rankmap, and librankmap-dev
# is a build dependency
sed -i -e '/^export DH_VERBOSE/a export RANKMAP_LIBS=-lrankmap-mpi -lrankmap' \
       -e "s|^\t--with-pm=hydra \\\\|\t--with-pm=hydra '--with-custom-version-string=rankmap $version' \\\\|" "$m/debian/rules"
grep -q "rankmap $version" "$m/debian/rules" || die "cannot add the version string to debian/rules"
sed -i 's|^Build-Depends: debhelper-compat (= 13),|Build-Depends: debhelper-compat (= 13), librankmap-dev (>= '"$version"'),|' "$m/debian/control"
grep -q librankmap-dev "$m/debian/control" || die "cannot add librankmap-dev to debian/control"
newver="$upstream+rankmap$RANKMAP_DEBIAN_REVISION"
(cd "$m" && DEBFULLNAME="rankmap developers" DEBEMAIL=rankmap@localhost \
   dch -b -v "$newver" -D bookworm "rankmap $version: topology-aware reorder (maint/mpich/patches)" >/dev/null 2>&1) ||
  die "dch failed"
note "mpich $newver: build dependencies"
(cd "$work" && mk-build-deps -i -r -t "apt-get -y -qq --no-install-recommends" "$m/debian/control" >/dev/null 2>&1) ||
  die "cannot install MPICH's build dependencies (mk-build-deps)"
note "dpkg-buildpackage mpich $newver (arch-dependent packages; log: $out/build-debs.log)"
(cd "$m" && dpkg-buildpackage -B -uc -us) >>"$out/build-debs.log" 2>&1 ||
  { tail -40 "$out/build-debs.log" >&2; die "MPICH's packages failed to build"; }
for p in libmpich12 libmpich-dev mpich; do
  cp "$work"/${p}_${newver#*:}_*.deb "$out/" || die "no $p package was built"
done
note "packages in $out:"
ls "$out"/*.deb >&2
