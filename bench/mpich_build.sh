#!/usr/bin/env bash
# bench/mpich_build.sh [--config vendor|dev] [--cold] [--note TEXT]
# How long the patched MPICH takes to build, cold and from the cache, written
# to bench/results/mpich-build.md.
#
#   cold   the cached tree's own timestamps: created (copy of the source,
#          patches), configured (.rankmap-configured), built (.rankmap-built);
#          with --cold a new build into a scratch cache first (an hour on 2 cores)
#   warm   measured here: build-mpich.sh run again with the tree in the
#          cache (key check, install into a scratch stage, relocation)
# --note describes the machine's load during the cold build (the timestamps
# cannot tell whether other work ran beside it).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
config=vendor cold=no note=
while [ $# -gt 0 ]; do
  case $1 in
    --config) config=$2; shift 2 ;;
    --cold) cold=yes; shift ;;
    --note) note=$2; shift 2 ;;
    *) echo "usage: bench/mpich_build.sh [--config vendor|dev] [--cold] [--note TEXT]" >&2; exit 2 ;;
  esac
done
rmbuild=$(ls -d "$src"/_build/*/.libs 2>/dev/null | head -1)
[ -n "$rmbuild" ] || { echo "mpich_build.sh: no built librankmap under $src/_build (run make first)" >&2; exit 1; }
rmbuild=$(dirname "$rmbuild")
scratch=$(mktemp -d /var/tmp/mpich-build-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
cache=${RANKMAP_CACHE_DIR:-/var/cache/rankmap}
[ $cold = no ] || cache=$scratch/cache
args=(--prefix /opt/rankmap --rankmap-build "$rmbuild" --rankmap-src "$src" --config "$config" --cache-dir "$cache")
tree=$(bash "$src/maint/mpich/build-mpich.sh" "${args[@]}" --print-key)
tree=$(readlink -f "$tree")
if [ $cold = yes ]; then
  bash "$src/maint/mpich/build-mpich.sh" "${args[@]}" --destdir "$scratch/stage0" >/dev/null
fi
[ -f "$tree/.rankmap-built" ] || { echo "mpich_build.sh: $tree is not built (run make, or --cold)" >&2; exit 1; }
created=$(stat -c %W "$tree"); configured=$(stat -c %Y "$tree/.rankmap-configured"); built=$(stat -c %Y "$tree/.rankmap-built")
[ "$created" -gt 0 ] || { echo "mpich_build.sh: the file system does not record $tree's creation time" >&2; exit 1; }
t0=$(date +%s.%N)
bash "$src/maint/mpich/build-mpich.sh" "${args[@]}" --destdir "$scratch/stage" >/dev/null 2>&1
t1=$(date +%s.%N)
out=$src/bench/results/mpich-build.md
{
  echo "> date: $(date -u +%Y-%m-%d) · commit: $(cd "$src" && git rev-parse --short HEAD) ·"
  echo "> machine: $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB, $(. /etc/os-release && echo "$PRETTY_NAME"), make -j${RANKMAP_MPICH_JOBS:-2}${note:+; $note} ·"
  echo "> command: \`bench/mpich_build.sh --config $config${cold/no/}\` (cold: the timestamps of the cached tree $(basename "$tree"), built $(date -u -d @"$built" +%Y-%m-%dT%H:%M)Z; warm: measured)"
  echo
  echo "| configuration | step | minutes |"
  echo "|---|---|---:|"
  awk -v c="$config" -v a="$created" -v b="$configured" -v d="$built" -v w0="$t0" -v w1="$t1" 'BEGIN {
    printf "| %s | cold: copy, patches, generated files, configure | %.1f |\n", c, (b - a) / 60
    printf "| %s | cold: make | %.1f |\n", c, (d - b) / 60
    printf "| %s | cold: total | %.1f |\n", c, (d - a) / 60
    printf "| %s | warm: from the cache (key, install, relocation) | %.2f |\n", c, (w1 - w0) / 60 }'
} >"$out"
echo "mpich_build.sh: wrote $out"
cat "$out"
