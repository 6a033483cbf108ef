#!/usr/bin/env bash
# maint/fresh-check.sh ROOT [COMMAND...] -- run the README's commands on a
# fresh Debian bookworm machine, here: a new root made by
#   debootstrap --variant=minbase bookworm ROOT
# (nothing installed beyond the minimal base), with this machine's
# /etc/hosts and /etc/resolv.conf copied in (a real machine has both; MPICH's
# TCP netmod needs the host name to resolve), /proc, /sys, /dev and a fresh
# /dev/shm mounted, a clone of this repository's HEAD in ROOT/root/rankmap,
# and then COMMAND (default: bash maint/demo.sh) run there as root in an
# empty environment, timed.  This is how a missing install step shows up
# that CI on a development machine, where the packages are already
# installed, cannot see.
#
#   maint/fresh-check.sh /srv/fresh                          # the demo
#   maint/fresh-check.sh /srv/fresh bash maint/test.sh       # the test suite
#   maint/fresh-check.sh --umount /srv/fresh                 # undo the mounts
#
# ROOT must not exist yet (or be a root this script made: it is reused as it
# is, packages and builds included, with the clone updated to HEAD).  Needs
# root, the network to Debian's mirror and the Debian package debootstrap
# (installed with apt-get when missing).  Takes ~10 minutes for the demo on
# 2 cores (apt-get ~2.5 min, rankmap, MPICH from Debian's source package).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)

umount_root() {
  local r=$1 m
  # deepest first (the recursive /dev and /sys binds have mounts below them)
  for m in $(awk -v r="$r" '$2 == r || index($2, r "/") == 1 {print $2}' /proc/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
}

if [ "${1:-}" = --umount ]; then
  [ -n "${2:-}" ] || { echo "usage: fresh-check.sh --umount ROOT" >&2; exit 2; }
  umount_root "$(realpath "$2")"
  exit 0
fi
[ $# -ge 1 ] || { echo "usage: fresh-check.sh ROOT [COMMAND...] | --umount ROOT" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "fresh-check.sh: needs root (chroot, mount)" >&2; exit 1; }
root=$(realpath -m "$1"); shift
[ $# -gt 0 ] || set -- bash maint/demo.sh
mirror=$(awk '$1 == "URIs:" {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || { echo "fresh-check.sh: no bookworm entry in this machine's apt sources to take the mirror from" >&2; exit 1; }

if [ ! -e "$root" ]; then
  command -v debootstrap >/dev/null || { apt-get update -qq; apt-get install -y -qq debootstrap >/dev/null; }
  echo "fresh-check.sh: debootstrap --variant=minbase bookworm $root"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 \
    || { tail -20 "$root.debootstrap.log"; exit 1; }
elif [ ! -x "$root/usr/bin/apt-get" ]; then
  echo "fresh-check.sh: $root exists and is not a Debian root" >&2; exit 1
fi
grep -qs " $root/proc " /proc/mounts || mount -t proc proc "$root/proc"
grep -qs " $root/sys " /proc/mounts || mount --rbind /sys "$root/sys"
grep -qs " $root/dev " /proc/mounts || mount --rbind /dev "$root/dev"
grep -qs " $root/dev/shm tmpfs" /proc/mounts || mount -t tmpfs -o size=8g tmpfs "$root/dev/shm"
cp /etc/hosts /etc/resolv.conf "$root/etc/"
if [ -d "$root/root/rankmap/.git" ]; then
  git -C "$root/root/rankmap" fetch -q "$src" HEAD && git -C "$root/root/rankmap" checkout -q --detach FETCH_HEAD
else
  git clone -q "$src" "$root/root/rankmap"
fi
echo "fresh-check.sh: $root at $(git -C "$root/root/rankmap" log --oneline -1): $*"
start=$(date +%s)
set +e
env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb \
  chroot "$root" /bin/bash -c 'cd /root/rankmap && "$@"' fresh-check "$@"
rc=$?
set -e
echo "fresh-check.sh: exit $rc after $(( $(date +%s) - start )) s wall"
exit $rc
