#!/usr/bin/env bash
# README command 2: installs what is needed, builds, and runs every test that
# can run on this machine (GoogleTest via ctest, then lit), then prints the
# counts. GPU tests are counted as skipped here; utils/gpu-check.sh runs them
# on a machine with an NVIDIA GPU.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${CUDAL1_BUILD_DIR:-$ROOT/build}"

"$ROOT/utils/install-deps.sh" || exit 1
"$ROOT/utils/build.sh" || { echo "check: build failed" >&2; exit 1; }

LOGDIR="$BUILD/test-logs"
mkdir -p "$LOGDIR"

echo "== unit tests (ctest) =="
ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)" -E '^lit$' 2>&1 | tee "$LOGDIR/ctest.log"
ctest_rc=${PIPESTATUS[0]}

echo "== lit tests =="
LIT="$(command -v lit-22 || command -v lit || echo /usr/lib/llvm-22/build/utils/lit/lit.py)"
"$LIT" -sv --show-unsupported "$BUILD/test" 2>&1 | tee "$LOGDIR/lit.log"
lit_rc=${PIPESTATUS[0]}

echo "== utils/add-rule.py (a new rule builds and its generated test passes) =="
addrule_rc=0
if [ "${CUDAL1_SKIP_ADD_RULE_TEST:-0}" = 1 ]; then
  echo "skipped (CUDAL1_SKIP_ADD_RULE_TEST=1)"
else
  "$ROOT/utils/test-add-rule.sh" "$BUILD" > "$LOGDIR/add-rule.log" 2>&1 || addrule_rc=1
  tail -1 "$LOGDIR/add-rule.log"
fi

# Counts: ctest "N% tests passed, F tests failed out of T"; lit "Passed: N" etc.
c_total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$LOGDIR/ctest.log" | tail -1)
c_failed=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed.*/\1/p' "$LOGDIR/ctest.log" | tail -1)
c_total=${c_total:-0}; c_failed=${c_failed:-0}
c_passed=$((c_total - c_failed))
l_passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$LOGDIR/lit.log" | tail -1)
l_failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$LOGDIR/lit.log" | tail -1)
l_unsup=$(sed -n 's/^ *Unsupported *: *\([0-9]*\).*/\1/p' "$LOGDIR/lit.log" | tail -1)
l_xfail=$(sed -n 's/^ *Expectedly Failed *: *\([0-9]*\).*/\1/p' "$LOGDIR/lit.log" | tail -1)
l_passed=${l_passed:-0}; l_failed=${l_failed:-0}; l_unsup=${l_unsup:-0}; l_xfail=${l_xfail:-0}
l_passed=$((l_passed + l_xfail))

echo
echo "unit tests (ctest): $c_passed passed, $c_failed failed"
echo "lit tests: $l_passed passed, $l_failed failed, $l_unsup skipped (GPU tests; run utils/gpu-check.sh on a GPU machine)"
total_p=$((c_passed + l_passed)); total_f=$((c_failed + l_failed))
if [ $((c_total + l_passed + l_failed)) -eq 0 ]; then
  echo "check: no test was executed" >&2
  exit 1
fi
echo "total: $total_p passed, $total_f failed, $l_unsup skipped"
if [ "$addrule_rc" -ne 0 ]; then
  echo "check: utils/test-add-rule.sh failed (log: $LOGDIR/add-rule.log)" >&2
fi
if [ "$ctest_rc" -ne 0 ] || [ "$lit_rc" -ne 0 ] || [ "$total_f" -ne 0 ] || [ "$addrule_rc" -ne 0 ]; then exit 1; fi
exit 0
