#!/usr/bin/env bash
# Builds the pipeline fuzzer with clang (libFuzzer + ASan + UBSan) into the
# build directory, seeds it with the conformance vectors and runs it.
#   run_fuzz.sh <source root> <output dir> <vector_runner> [seconds]
# Exit 77 (meson: skipped) when clang or libFuzzer is missing.
set -euo pipefail
SRC=$1
OUT=$2
RUNNER=$3
SECS=${4:-${FUZZ_SECONDS:-60}}
CXX=${FUZZ_CXX:-clang++-14}

if ! command -v "$CXX" >/dev/null; then
  echo "fuzz: $CXX not found (scripts/deps.sh installs clang-14 and libfuzzer-14-dev)"
  exit 77
fi

mkdir -p "$OUT/corpus" "$OUT/seeds"
BIN=$OUT/pipeline_fuzz
# The switch program and the protocol it speaks.
SOURCES=("$SRC"/pipeline/src/*.cpp "$SRC"/protocol/src/*.cpp "$SRC"/tests/fuzz/pipeline_fuzz.cpp)
# Rebuild only when a source is newer than the binary.
if [[ ! -x $BIN ]] || [[ -n $(find "${SOURCES[@]}" "$SRC"/pipeline/include "$SRC"/pipeline/src \
    "$SRC"/protocol/include "$SRC"/protocol/src -newer "$BIN" 2>/dev/null | head -1) ]]; then
  echo "fuzz: building $BIN"
  "$CXX" -std=c++17 -g -O1 -march=x86-64-v2 \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$SRC/protocol/include" -I"$SRC/pipeline/include" -I"$SRC/pipeline/src" \
    "${SOURCES[@]}" $(pkg-config --libs libisal libcrypto) -o "$BIN.tmp"
  mv "$BIN.tmp" "$BIN"
fi

"$RUNNER" --dump-seeds "$OUT/seeds" "$SRC/tests/vectors"

echo "fuzz: running for ${SECS}s"
status=0
"$BIN" -max_total_time="$SECS" -max_len=4096 -timeout=10 -rss_limit_mb=1024 \
  -print_final_stats=1 -artifact_prefix="$OUT/" \
  "$OUT/corpus" "$OUT/seeds" >"$OUT/fuzz.log" 2>&1 || status=$?
grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|ERROR|SUMMARY|invariant|stat::number_of_executed_units|^Done' "$OUT/fuzz.log" || true
if [[ $status -ne 0 ]]; then
  echo "fuzz: FAILED (exit $status); log $OUT/fuzz.log, crash input in $OUT/"
  tail -40 "$OUT/fuzz.log"
  exit 1
fi
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/fuzz.log")
echo "fuzz: ok, ${execs:-?} executions in ${SECS}s"
