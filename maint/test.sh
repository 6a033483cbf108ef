#!/usr/bin/env bash
# maint/test.sh -- the whole test suite, from a fresh Debian bookworm
# machine: installs the Debian packages, builds rankmap (and the patched
# MPICH, cached under /var/cache/rankmap) in _build/main, runs every test
# through CTest, then repeats the engine tests in a sanitizer build
# (--enable-sanitizers: AddressSanitizer + UndefinedBehaviorSanitizer).
# The suites labelled "long" (the full MPICH broadcast suite, every root and
# size of the torus broadcast, every communicator at 32 and 64 ranks) run
# with `make check-long` instead, which records its result in
# bench/results/long-suites.md; this run checks that the record matches the
# current patch series and tests.  Tests labelled "sanitize" (the libFuzzer
# smoke test, itself an ASan build) run in the sanitizer pass only.
#   RANKMAP_TEST_SANITIZERS=0  skip the sanitizer pass
source "$(dirname "$0")/common.sh"

# ctest_split EXCLUDE ARGS...: the single-process tests (engine, CLI,
# documents) two at a time, then the rest one at a time (each MPI test
# oversubscribes both cores; two at once only slow each other down); tests
# matching the regex EXCLUDE ("" for none) do not run
single='^(unit_|cli$|docs_results$|hier_|discover_unit$|profile_reader$|profile_cache$|simgrid_bad_input$)'
ctest_split() {
  local ex=$1 rc=0; shift
  ctest --output-on-failure -j2 -R "$single" ${ex:+-E "$ex"} "$@" || rc=1
  ctest --output-on-failure -E "$single${ex:+|$ex}" "$@" || rc=1
  return $rc
}

sanitizers=${RANKMAP_TEST_SANITIZERS:-1}
# the sanitizer build (engine and plugin, no MPICH) beside the main one: it
# fills the core that the serial steps of the main build (configure scripts,
# links) leave idle; the tests start once both builds are done
if [ "$sanitizers" != 0 ]; then
  echo "== rankmap: sanitizer build (_build/sanitize), in the background =="
  build_in "$src/_build/sanitize" --enable-sanitizers --without-mpich --prefix="$src/_build/install-sanitize" &
  sanitize_build=$!
fi
echo "== rankmap: build (_build/main) =="
build_in "$src/_build/main" --prefix="$src/_build/install"
if [ "$sanitizers" != 0 ] && ! wait "$sanitize_build"; then
  echo "rankmap: the sanitizer build failed (above)"; exit 1
fi
echo "== rankmap: test (_build/main) =="
(cd "$src/_build/main/test" && ctest_split "" -LE 'long|sanitize')

if [ "$sanitizers" != 0 ]; then
  echo "== rankmap: sanitizer test (_build/sanitize) =="
  # less one unit test whose work is eight runs of auto (the main pass has
  # it; under ASan it alone takes a minute, and its paths are those of auto)
  (cd "$src/_build/sanitize/test" && export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     GTEST_FILTER=-Congestion.StartsFromTheLightestOfSeveralAutoRuns && ctest_split '^mpi_')
fi
