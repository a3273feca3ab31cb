#!/usr/bin/env bash
# The sanitizer subset CI runs (issue 18; docs/reliability.md says why this
# subset): builds, with clang-22, AddressSanitizer + UndefinedBehaviorSanitizer
# (-fno-sanitize-recover=all: the first report fails) and libFuzzer, only the
# targets that do not need the Clang front end's heavy objects, into
# build-san-ci/, then runs
#   - the unit tests of lib/Verify (comparison, tolerances, harness specs,
#     expressions, statistics, budgets), lib/Rules' YAML rule loader and
#     lib/Analysis, under the sanitizers;
#   - the five light fuzz targets (rule files, harness specs, configuration,
#     compile flags, model replies) over their seeds and every regression
#     input, each input once (-runs=0: deterministic, no new mutations; the
#     bounded random run is utils/fuzz.sh, outside CI).
# The whole suite under the sanitizers is utils/check-sanitize.sh.
#   utils/check-sanitize-ci.sh
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
B="${CUDAL1_SAN_CI_BUILD_DIR:-$ROOT/build-san-ci}"
TESTS="cudal1-verify-tests cudal1-rules-tests cudal1-analysis-tests"
FUZZERS="FuzzRuleFile FuzzHarnessSpec FuzzConfig FuzzCompileFlags FuzzLlmReply"
"$ROOT/utils/install-deps.sh" >/dev/null || exit 1
T0=$(date +%s)
if [ ! -f "$B/build.ninja" ]; then
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$ROOT" -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g0" -DCUDAL1_SANITIZE=address,undefined \
    -DCUDAL1_FUZZ=ON >/dev/null || { echo "check-sanitize-ci: configure failed" >&2; exit 1; }
fi
# shellcheck disable=SC2086
ninja -C "$B" -j "${CUDAL1_JOBS:-$(nproc)}" $TESTS $FUZZERS > "$B/subset-build.log" 2>&1 ||
  { tail -30 "$B/subset-build.log"; echo "check-sanitize-ci: build failed" >&2; exit 1; }
echo "sanitized subset built in $(( $(date +%s) - T0 )) s"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:detect_odr_violation=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
status=0
for T in $TESTS; do
  out=$("$B/bin/$T" --gtest_brief=1 2>&1); rc=$?
  line=$(printf '%s\n' "$out" | grep -E '^\[  PASSED  \]|^\[  FAILED  \]' | head -1)
  echo "$T under ASan+UBSan: ${line:-no gtest summary} (exit $rc)"
  if [ $rc -ne 0 ]; then printf '%s\n' "$out" | tail -40; status=1; fi
done
for F in $FUZZERS; do
  # The seeds as a corpus folder, each input once (-runs=0); then the
  # regression inputs by name (libFuzzer runs inputs given as files once,
  # whole, and exits; it takes files or folders, not both at once).
  mkdir -p "$B/fuzz-crashes/$F"
  n=$(find "$ROOT/fuzz/seeds/$F" -type f | wc -l)
  out=$("$B/fuzz/$F" -runs=0 -timeout=30 -rss_limit_mb=4096 \
    -artifact_prefix="$B/fuzz-crashes/$F/" "$ROOT/fuzz/seeds/$F" 2>&1); rc=$?
  regs=()
  if [ -d "$ROOT/fuzz/regressions/$F" ]; then
    while IFS= read -r -d '' r; do regs+=("$r"); done \
      < <(find "$ROOT/fuzz/regressions/$F" -type f -print0)
  fi
  if [ $rc -eq 0 ] && [ ${#regs[@]} -gt 0 ]; then
    out=$("$B/fuzz/$F" -timeout=30 -rss_limit_mb=4096 \
      -artifact_prefix="$B/fuzz-crashes/$F/" "${regs[@]}" 2>&1); rc=$?
  fi
  n="$n seed and ${#regs[@]} regression"
  echo "$F: $n inputs, each once (exit $rc)"
  if [ $rc -ne 0 ]; then printf '%s\n' "$out" | tail -30; status=1; fi
done
echo "check-sanitize-ci: $([ $status -eq 0 ] && echo PASS || echo FAIL) in $(( $(date +%s) - T0 )) s"
exit $status
