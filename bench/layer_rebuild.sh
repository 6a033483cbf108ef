#!/usr/bin/env bash
# bench/layer_rebuild.sh BUILD_DIR [--record FILE]
# What a change to the MPI layer's C costs: in BUILD_DIR (a configured build
# with the patched MPICH, built once), change one line of the safety net
# (src/mpilayer/watchdog.c: the watchdog's wake-up period as a named
# constant), run `make`, and report the wall time and whether MPICH was
# rebuilt (build-mpich.sh says "using the cached build" when its key is
# unchanged); then put the file back and run `make` again.  The layer is not
# in the cache key: libmpich links librankmap-mpi.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: layer_rebuild.sh BUILD_DIR [--record FILE]}" && pwd)
record=
[ "${2:-}" = --record ] && record=${3:?--record FILE}
f=$src/src/mpilayer/watchdog.c
[ -f "$build/mpich-stage/.stamp" ] || { echo "layer_rebuild.sh: $build has no built patched MPICH" >&2; exit 1; }
git -C "$src" diff --quiet -- "$f" || { echo "layer_rebuild.sh: $f has local changes" >&2; exit 1; }
cp "$f" "$f.orig"
trap 'mv -f "$f.orig" "$f"' EXIT
# the change: the tick becomes a named constant (same behaviour, new code)
sed -i 's/tick = limit < 4 ? 0.25 : 1.0;/tick = limit < 4 ? 0.25 : 1.0 * 1;/' "$f"
cmp -s "$f" "$f.orig" && { echo "layer_rebuild.sh: the edit did not apply" >&2; exit 1; }
log=$(mktemp)
t0=$(date +%s.%N)
make -C "$build" -j"$(nproc)" >"$log" 2>&1 || { tail -20 "$log"; exit 1; }
t1=$(date +%s.%N)
cached=$(grep -c "using the cached build" "$log" || true)
rebuilt=$(grep -c "make -j[0-9]* in .*mpich-" "$log" || true)
relinked=$(grep -c "librankmap-mpi.la" "$log" || true)
mv -f "$f.orig" "$f"
trap - EXIT
make -C "$build" -j"$(nproc)" >/dev/null 2>&1
secs=$(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }")
line="| one line of src/mpilayer/watchdog.c changed, then \`make\` | $secs s | $([ "$rebuilt" = 0 ] && echo "no (the cached tree; the stage re-installed: $cached)" || echo "yes") | $([ "$relinked" -gt 0 ] && echo yes || echo no) |"
table="| change | make's wall time | MPICH rebuilt | librankmap-mpi relinked |
|---|---:|---|---|
$line"
echo "$table"
rm -f "$log"
if [ -n "$record" ]; then
  {
    echo "> date: $(date -u +%Y-%m-%d) · commit: $(git -C "$src" rev-parse --short HEAD) ·"
    echo "> machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(. /etc/os-release && echo "$PRETTY_NAME"), make -j$(nproc) ·"
    echo "> command: \`bench/layer_rebuild.sh $(basename "$build") --record $record\` (MPICH configuration: $(sed -n "s/^MPICH_CONFIG = //p" "$build/Makefile"))"
    echo
    echo "$table"
  } >"$src/$record"
fi
