#!/usr/bin/env bash
# maint/debian/check-debs.sh ROOT DEBDIR -- the packages on a fresh bookworm
# root (maint/fresh-check.sh makes ROOT: debootstrap --variant=minbase):
# maint/debian/in-root-check.sh there, then the result with date, commit and
# times in bench/results/packages.md.  `make check-debs` builds the packages
# (maint/debian/build-debs.sh) and runs this; run it when the patch series or
# the packaging changes.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
root=$(realpath -m "${1:?usage: check-debs.sh ROOT DEBDIR}")
debs=$(realpath "${2:?usage: check-debs.sh ROOT DEBDIR}")
ls "$debs"/libmpich12_*.deb "$debs"/librankmap0_*.deb >/dev/null 2>&1 || { echo "check-debs.sh: no packages in $debs" >&2; exit 1; }
start=$(date +%s)
# a new root every time: the check is about a machine that never saw rankmap
if [ -e "$root" ]; then
  bash "$src/maint/fresh-check.sh" --umount "$root"
  rm -rf --one-file-system "$root"
fi
bash "$src/maint/fresh-check.sh" "$root" true >/dev/null
rm -rf "$root/root/debs" && cp -r "$debs" "$root/root/debs"
log=$(mktemp)
set +e
bash "$src/maint/fresh-check.sh" "$root" bash maint/debian/in-root-check.sh /root/debs 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
bash "$src/maint/fresh-check.sh" --umount "$root"
secs=$(( $(date +%s) - start ))
commit=$(cat "$debs/SOURCE" 2>/dev/null || (cd "$src" && git rev-parse --short HEAD))
{
  echo "> date: $(date -u +%Y-%m-%d) ($(date -u +%H:%M) UTC) · commit: $commit ·"
  echo "> machine: $(nproc) cores, fresh Debian bookworm root (debootstrap --variant=minbase, chroot) ·"
  echo "> command: \`make check-debs\` (maint/debian/check-debs.sh: packages from maint/debian/build-debs.sh)"
  echo
  echo "- packages: $(cd "$debs" && ls *.deb | tr '\n' ' ')"
  # the packages' build time: from build-debs.sh's SOURCE file (written at
  # its start) to the newest package
  if [ -f "$debs/SOURCE" ]; then
    last=$(ls -t "$debs"/*.deb | head -1)
    echo "- build: \`make debs\` took $(( ($(stat -c %Y "$last") - $(stat -c %Y "$debs/SOURCE")) / 60 )) min wall clock (rankmap's and MPICH's packages, from build-debs.sh's start to its last package)"
  fi
  echo "- result: $([ "$rc" = 0 ] && echo pass || echo FAIL) in $secs s (fresh root, apt-get included)"
  echo
  echo '```'
  sed -n 's/^RESULT //p' "$log"
  echo '```'
} >"$src/bench/results/packages.md"
rm -f "$log"
echo "check-debs.sh: recorded in bench/results/packages.md"
exit "$rc"
