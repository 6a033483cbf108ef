#!/usr/bin/env bash
# maint/mpich/patch-tree.sh -- edit the patch series as git commits.
#
#   patch-tree.sh import DIR   DIR = a git repository of Debian's MPICH source
#                              (the pristine tree build-mpich.sh keeps in its
#                              cache, or --src SRC) with one commit per patch
#                              of maint/mpich/patches/series on top
#   patch-tree.sh export DIR   writes the commits above DIR's "pristine" tag
#                              back into maint/mpich/patches (same file names,
#                              in series order; the commit count must match)
#
# Edit in between with ordinary git (commit --fixup + rebase --autosquash,
# reword, a new commit for a new patch after adding its name to the series).
# Rebasing onto another MPICH version: import onto that version's tree (--src),
# resolve with `git am` as usual, export, and update MPICH_VERSION in
# build-mpich.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
series=$here/patches/series
cache=${RANKMAP_CACHE_DIR:-/var/cache/rankmap}
die() { echo "patch-tree.sh: error: $*" >&2; exit 1; }
git_id=(-c user.name=rankmap -c user.email=rankmap@localhost)

[ $# -ge 2 ] || die "usage: patch-tree.sh import|export DIR [--src SRC]"
cmd=$1 dir=$2; shift 2
src=$cache/src/mpich-4.0.2-debian
while [ $# -gt 0 ]; do
  case $1 in --src) src=$2; shift 2 ;; *) die "unknown option '$1'" ;; esac
done
names=()
while read -r p; do
  case $p in ''|'#'*) continue ;; esac
  names+=("$p")
done <"$series"

case $cmd in
  import)
    [ -f "$src/configure" ] || die "$src is not an MPICH source tree (run make once, or give --src)"
    [ ! -e "$dir" ] || die "$dir exists"
    cp -a "$src" "$dir"
    cd "$dir"
    # MPICH's .gitignore files hide generated files the patches touch (Makefile.in)
    find . -name .gitignore -delete
    git init -q
    git add -A -f
    git "${git_id[@]}" commit -q -m "pristine $(basename "$src")"
    git tag pristine
    for p in "${names[@]}"; do
      git "${git_id[@]}" am -q --committer-date-is-author-date "$here/patches/$p" || die "$p does not apply"
    done
    echo "$dir: $(git rev-list --count pristine..HEAD) patches on tag pristine" ;;
  export)
    cd "$dir"
    n=$(git rev-list --count pristine..HEAD)
    [ "$n" = ${#names[@]} ] || die "$dir has $n commits above pristine, the series lists ${#names[@]}"
    tmp=$(mktemp -d)
    git format-patch -q --zero-commit --no-signature -o "$tmp" pristine
    i=0
    for f in "$tmp"/*.patch; do
      # no index lines: the patches then change only where the code does
      grep -v '^index [0-9a-f]*\.\.[0-9a-f]*' "$f" >"$here/patches/${names[$i]}"
      i=$((i + 1))
    done
    rm -rf "$tmp"
    echo "exported $i patches to $here/patches" ;;
  *) die "unknown command '$cmd' (import or export)" ;;
esac
