#!/bin/sh
# installed.sh PREFIX -- what `make install` leaves under PREFIX for a user:
# the manual pages (rankmap(1), rankmap-settings(7) with one link per
# MPIR_CVAR_*, MPIX_*(3)), the module file and the pkg-config file.  With
# man-db installed each page is also opened with man -M PREFIX/share/man.
p=$1
[ -x "$p/bin/rankmap" ] || { echo "SKIP: nothing installed in $p (make install first)"; exit 77; }
fail=0
check() { if [ -s "$1" ]; then echo "ok   $1"; else echo "FAIL $1 missing or empty"; fail=1; fi; }
check "$p/share/man/man1/rankmap.1"
check "$p/share/man/man7/rankmap-settings.7"
check "$p/share/man/man7/MPIR_CVAR_RANKMAP_TOPOLOGY.7"
check "$p/share/man/man7/MPIR_CVAR_RANKMAP_DIST_GRAPH.7"
for f in MPIX_Torus_ndims MPIX_Torus_dims MPIX_Rank2torus MPIX_Torus2rank MPIX_Rankmap_distance MPIX_Rankmap_last_report; do
  check "$p/share/man/man3/$f.3"
done
v=$(ls "$p/share/modulefiles/rankmap/" 2>/dev/null | head -1)
check "$p/share/modulefiles/rankmap/$v"
grep -q "^set root $p\$" "$p/share/modulefiles/rankmap/$v" 2>/dev/null ||
  { echo "FAIL the module file does not point to $p"; fail=1; }
check "$p/lib/pkgconfig/rankmap.pc"
if command -v pkg-config >/dev/null; then
  flags=$(PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config --cflags --libs rankmap | xargs) &&
    [ "$flags" = "-I$p/include -L$p/lib -lrankmap" ] && echo "ok   pkg-config rankmap: $flags" ||
    { echo "FAIL pkg-config rankmap: '$flags'"; fail=1; }
fi
if command -v man >/dev/null; then
  for page in rankmap MPIX_Rank2torus rankmap-settings MPIR_CVAR_RANKMAP_TOPOLOGY; do
    if MANPAGER=cat man -M "$p/share/man" "$page" 2>/dev/null | grep -q "$page\|RANKMAP"; then echo "ok   man $page"
    else echo "FAIL man $page"; fail=1; fi
  done
else
  echo "note: no man command (apt-get install man-db): the pages were not opened"
fi
exit $fail
