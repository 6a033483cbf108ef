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

echo "== rankmap: build and test (_build/main) =="
build_in "$src/_build/main" --prefix="$src/_build/install"
(cd "$src/_build/main/test" && ctest_split "" -LE 'long|sanitize')

if [ "${RANKMAP_TEST_SANITIZERS:-1}" != 0 ]; then
  echo "== rankmap: sanitizer build and test (_build/sanitize) =="
  build_in "$src/_build/sanitize" --enable-sanitizers --without-mpich --prefix="$src/_build/install-sanitize"
  # less one unit test whose work is eight runs of auto (the main pass has
  # it; under ASan it alone takes a minute, and its paths are those of auto)
  (cd "$src/_build/sanitize/test" && export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     GTEST_FILTER=-Congestion.StartsFromTheLightestOfSeveralAutoRuns && ctest_split '^mpi_')
fi
