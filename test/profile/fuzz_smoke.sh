#!/usr/bin/env bash
# fuzz_smoke.sh BUILD SRC HAVE_FUZZ -- builds the libFuzzer targets (make
# fuzz) and runs each 2000 times from its seed corpus: a regression check
# of the parsers, not the 10-minute campaign (make fuzz-run).
set -uo pipefail
B=$1 S=$2
[ "$3" = yes ] || { echo "fuzz_smoke.sh: SKIP: configure found no clang++ with libFuzzer"; exit 77; }
make -C "$B" fuzz >/dev/null || { echo "fuzz_smoke.sh: FAIL: make fuzz"; exit 1; }
dir=$(mktemp -d /tmp/rankmap-fuzz-smoke-XXXXXX)
trap 'rm -rf "$dir"' EXIT
rc=0
for t in topology mapfile graph profile cache; do
  cp "$B/fuzz/fuzz_$t" "$dir/"
  if CPU_SECONDS=0.001 CHUNK_SECONDS=300 "$S/test/profile/fuzz/run-fuzz.sh" "$dir" "$t" -runs=2000 -seed=1; then :; else
    echo "fuzz_smoke.sh: FAIL: fuzz_$t (log follows)"; tail -n 40 "$dir/log-$t.txt"; rc=1
  fi
done
exit $rc
