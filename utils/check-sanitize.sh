#!/usr/bin/env bash
# The sanitizer and fuzzing run (issue 18): builds the project with clang-22,
# AddressSanitizer + UndefinedBehaviorSanitizer and the libFuzzer targets into
# build-san/, runs the CPU test suite there, then every fuzzer for a while.
#   utils/check-sanitize.sh [fuzz seconds per target (default 60)] [lit subset...]
# With lit subset folders (e.g. Driver Frontend), only those lit folders run;
# CI does not run it (docs/reliability.md says why). Leak checking is off: Clang keeps its AST
# and other objects to the end of the process on purpose.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
B="${CUDAL1_SAN_BUILD_DIR:-$ROOT/build-san}"
SECS="${1:-60}"; shift || true
"$ROOT/utils/install-deps.sh" >/dev/null || exit 1
if [ ! -f "$B/build.ninja" ]; then
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$ROOT" -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCUDAL1_SANITIZE=address,undefined -DCUDAL1_FUZZ=ON >/dev/null || exit 1
fi
ninja -C "$B" -j "${CUDAL1_JOBS:-$(nproc)}" || { echo "check-sanitize: build failed" >&2; exit 1; }
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:detect_odr_violation=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
LOG="$B/test-logs"; mkdir -p "$LOG"
echo "== unit tests under ASan+UBSan (ctest) =="
ctest --test-dir "$B" --output-on-failure -j "$(nproc)" -E '^lit$' 2>&1 | tee "$LOG/ctest.log" | tail -3
c_rc=${PIPESTATUS[0]}
LIT="$(command -v lit-22 || command -v lit)"
DIRS=()
for d in "$@"; do DIRS+=("$B/test/$d"); done
[ ${#DIRS[@]} -eq 0 ] && DIRS=("$B/test")
echo "== lit tests under ASan+UBSan: ${*:-all} =="
"$LIT" -sv "${DIRS[@]}" 2>&1 | tee "$LOG/lit.log" | grep -E "^(FAIL|  (Passed|Failed|Unsupported))" 
l_rc=${PIPESTATUS[0]}
echo "== fuzzers, ${SECS} s each =="
"$ROOT/utils/fuzz.sh" "$SECS" "$B"; f_rc=$?
echo "sanitizer run: ctest rc=$c_rc, lit rc=$l_rc, fuzz rc=$f_rc"
[ $c_rc -eq 0 ] && [ $l_rc -eq 0 ] && [ $f_rc -eq 0 ]
