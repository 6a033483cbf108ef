#!/usr/bin/env bash
# maint/long-suites.sh -- the suites too long for every CI run.
#
#   long-suites.sh run BUILD_DIR     runs CTest's "long" label in BUILD_DIR/test
#                                    (full MPICH broadcast suite, the 32- and
#                                    64-rank broadcast runs on every
#                                    communicator) and records the result in
#                                    bench/results/long-suites.md
#   long-suites.sh check             exit 1 when that record is missing, failed,
#                                    or was made for other inputs (`make
#                                    check-long` must run again after a change
#                                    of the patch series or of these tests)
#
# The inputs are hashed: the patch series, the MPICH build script, MPICH's
# operations for the layer, the torus broadcast (the layer's rule and the
# executor) and the long tests (broadcast, distributed graphs at 64 ranks).  `make check-long` in a build tree calls `run`; the default
# CTest run calls `check` (test long_suites_recorded).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
record=$src/bench/results/long-suites.md

inputs_hash() {
  (cd "$src" && cat maint/mpich/patches/series maint/mpich/patches/*.patch maint/mpich/build-mpich.sh \
     src/mpich/*.[ch] src/mpilayer/bcast.c src/coll/bcast_exec.c \
     test/coll/CTestTestfile.cmake.in test/coll/*.sh test/coll/*.c \
     test/compat/tests.cmake test/compat/dist_keep* | sha256sum | cut -c1-16)
}

case ${1:-} in
  run)
    build=$(cd "${2:?usage: long-suites.sh run BUILD_DIR}" && pwd)
    [ -f "$build/test/CTestTestfile.cmake" ] || { echo "long-suites.sh: $build is not a configured build tree" >&2; exit 1; }
    log=$build/long-suites.log
    start=$(date +%s)
    set +e
    (cd "$build/test" && ctest -L long --output-on-failure) 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    set -e
    secs=$(( $(date +%s) - start ))
    commit=$(cd "$src" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
    dirty=$(cd "$src" && git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo " (with uncommitted changes)" || true)
    {
      echo "> date: $(date -u +%Y-%m-%d) ($(date -u +%H:%M) UTC) · commit: $commit$dirty ·"
      echo "> machine: $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB, $(. /etc/os-release && echo "$PRETTY_NAME") ·"
      echo "> command: \`make check-long\` (maint/long-suites.sh run: CTest label \"long\")"
      echo
      echo "- inputs: $(inputs_hash)"
      echo "- result: $([ "$rc" = 0 ] && echo pass || echo FAIL) in $secs s"
      echo
      echo '```'
      grep -E '^ *[0-9]+/[0-9]+ Test|tests passed|Total Test time' "$log" || true
      echo '```'
    } >"$record"
    echo "long-suites.sh: recorded in $record"
    exit "$rc" ;;
  check)
    [ -f "$record" ] || { echo "FAIL: $record missing: run make check-long"; exit 1; }
    want=$(inputs_hash)
    have=$(sed -n 's/^- inputs: //p' "$record")
    result=$(sed -n 's/^- result: //p' "$record")
    case $result in pass*) ;; *) echo "FAIL: the last make check-long failed ($result): see $record"; exit 1 ;; esac
    [ "$have" = "$want" ] || {
      echo "FAIL: $record was recorded for inputs $have; the patch series or the broadcast tests changed ($want): run make check-long"
      exit 1; }
    echo "PASS: long suites passed for these inputs ($result, $(sed -n 's/^> date: \(.*\) ·$/\1/p' "$record"))" ;;
  *) echo "usage: long-suites.sh run BUILD_DIR | check" >&2; exit 2 ;;
esac
