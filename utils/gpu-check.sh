#!/usr/bin/env bash
# Runs every GPU test of cuda-l1 on a machine with an NVIDIA GPU, and keeps
# the output: lib/Verify's GPU tests (anti-cheating candidates, an honest
# speedup, hang isolation), the end-to-end CLI check
# (cuda-l1-rewrite --verify=run), the structural rewrites through the
# verifier (utils/structural-gpu-run.sh, without its benchmark), and the
# CUPTI-vs-Nsight-Compute agreement check. Writes logs under $OUT (default ./gpu-check-out).
#
#   utils/gpu-check.sh [dist-dir]
#   CAPTURE=0 utils/gpu-check.sh [dist-dir]   (without the capture step,
#     utils/gpu-capture-check.sh, 2-4 minutes)
#   STRUCTURAL=0 utils/gpu-check.sh [dist-dir]   (without the structural
#     step, e.g. to stay under a 10-minute limit per command; then run
#     utils/structural-gpu-run.sh on its own)
#   NCU=0 utils/gpu-check.sh [dist-dir]   (without the CUPTI-vs-Nsight-Compute
#     agreement check, about 2 minutes; say so when reporting the run)
#
# dist-dir holds prebuilt binaries (bin/cudal1-verify-gpu-tests, bin/
# cuda-l1-rewrite with lib/cuda-l1/clang/include beside it), for GPU
# machines without LLVM; utils/make-gpu-dist.sh makes it. Without it, the
# binaries of $CUDAL1_BUILD_DIR (default build/) are used.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIST="${1:-}"
OUT="${OUT:-$ROOT/gpu-check-out}"
mkdir -p "$OUT/verdicts" "$OUT/ncu-verdicts" "$OUT/cli"
if [ -n "$DIST" ]; then
  BIN="$(cd "$DIST" && pwd)/bin"
else
  BIN="${CUDAL1_BUILD_DIR:-$ROOT/build}/bin"
fi
export CUDA_PATH="${CUDA_PATH:-/usr/local/cuda}"
export PATH="$CUDA_PATH/bin:$PATH"
export CUDAL1_VERIFY_INPUTS="$ROOT/test/Verify/Inputs"
T="$ROOT/test/Verify/Inputs/transpose"
FAIL=0
step() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }

step environment
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu --format=csv; nvcc --version | tail -2; uname -r; } 2>&1 | tee "$OUT/env.txt"

step "lib/Verify GPU tests"
CUDAL1_GPU_OUT="$OUT/verdicts" "$BIN/cudal1-verify-gpu-tests" \
  --gtest_filter='VerifyGpu.*:-VerifyGpu.CuptiTimesForNcuComparison' 2>&1 | tee "$OUT/gtest-gpu.log"
[ "${PIPESTATUS[0]}" = 0 ] || FAIL=1

step "CLI: cuda-l1-rewrite --verify=run"
if [ -x "$BIN/cuda-l1-rewrite" ]; then
  "$BIN/cuda-l1-rewrite" --verify=run --kernel=transpose --verify-exactness=bitwise \
    --candidate="$T/honest_tiled.cu" --candidate="$T/cheat_partial.cu" \
    --candidate="$T/cheat_modify_input.cu" --harness="$T/harness.yaml" \
    -o "$OUT/cli" "$T/original.cu" 2>&1 | tee "$OUT/cli.log"
  echo "exit status: ${PIPESTATUS[0]} (0: a candidate was accepted)" | tee -a "$OUT/cli.log"
  grep -q "ACCEPTED" "$OUT/cli.log" || FAIL=1
  step "CLI: no harness -> template"
  "$BIN/cuda-l1-rewrite" --verify=run --kernel=transpose --candidate="$T/honest_tiled.cu" \
    "$T/original.cu" 2>&1 | tee "$OUT/cli-template.log"
  echo "exit status: ${PIPESTATUS[0]} (2 expected)" | tee -a "$OUT/cli-template.log"
  step "CLI: harness inferred from a constant launch site"
  S="$ROOT/test/Verify/Inputs"
  "$BIN/cuda-l1-rewrite" --verify=run --kernel=scale --verify-exactness=bitwise \
    --candidate="$S/scale/scale_candidate.cu" "$S/scale/scale_launch.cu" 2>&1 | tee "$OUT/cli-inferred.log"
  echo "exit status: ${PIPESTATUS[0]} (1: verified, not faster)" | tee -a "$OUT/cli-inferred.log"
  "$BIN/cuda-l1-rewrite" --verify=run --kernel=saxpy \
    --candidate="$S/saxpy/saxpy_candidate.cu" "$S/saxpy/saxpy_launch.cu" 2>&1 | tee -a "$OUT/cli-inferred.log"
  echo "exit status: ${PIPESTATUS[0]} (2: y is in/out, the inferred harness poisons it)" | tee -a "$OUT/cli-inferred.log"
else
  echo "no cuda-l1-rewrite in $BIN: skipped" | tee "$OUT/cli.log"
fi

step "structural rewrites through the verifier (utils/structural-gpu-run.sh)"
if [ "${STRUCTURAL:-1}" = 0 ]; then
  echo "skipped (STRUCTURAL=0): run utils/structural-gpu-run.sh on its own"
elif [ -x "$BIN/cuda-l1-rewrite" ]; then
  BENCH=0 CUDAL1_REWRITE="$BIN/cuda-l1-rewrite" OUT="$OUT/structural" \
    "$ROOT/utils/structural-gpu-run.sh" > "$OUT/structural.log" 2>&1 || FAIL=1
  grep -E "^RESULT|not as expected" "$OUT/structural.log"
else
  echo "no cuda-l1-rewrite in $BIN: skipped"; FAIL=1
fi

step "lit tests marked REQUIRES: gpu (utils/gpu-lit.sh; e.g. --fix --verify=run)"
OUT="$OUT" "$ROOT/utils/gpu-lit.sh" "$(dirname "$BIN")" 2>&1 | tee "$OUT/lit-gpu.log"
[ "${PIPESTATUS[0]}" = 0 ] || FAIL=1

step "CUPTI vs Nsight Compute gpu__time_duration"
if [ "${NCU:-1}" = 0 ]; then
  echo "skipped (NCU=0)"
else
CUDAL1_GPU_OUT="$OUT/verdicts" "$BIN/cudal1-verify-gpu-tests" \
  --gtest_filter=VerifyGpu.CuptiTimesForNcuComparison > "$OUT/cupti-run.log" 2>&1 || FAIL=1
if command -v ncu >/dev/null; then
  # The verifier runs its timing loop under ncu too (CUDAL1_UNDER_NCU=1), so
  # ncu times the same launches CUPTI times: the last 30 of each kernel, each
  # after the verifier's own L2 flush (hence --cache-control none). A second
  # ncu run with its default cache control (flush before every launch) over
  # all launches is kept for reference.
  ncu_run() { # <cache-control> <csv>
    CUDAL1_UNDER_NCU=1 CUDAL1_GPU_OUT="$OUT/ncu-verdicts" timeout 300 ncu --clock-control none \
      --cache-control "$1" --target-processes all \
      --metrics gpu__time_duration.sum --csv -k "regex:transpose_|copy_" \
      "$BIN/cudal1-verify-gpu-tests" --gtest_filter=VerifyGpu.CuptiTimesForNcuComparison \
      > "$2" 2> "$2.err"
    echo "ncu --cache-control $1 exit: $?"
  }
  ncu_run none "$OUT/ncu.csv"
  echo "-- same launches (the 30 timed samples, verifier's L2 flush, ncu cache control none):"
  python3 "$ROOT/utils/compare-cupti-ncu.py" "$OUT/verdicts/cupti_medians.json" "$OUT/ncu.csv" 0.05 30 \
    | tee "$OUT/cupti-vs-ncu.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || FAIL=1
  ncu_run all "$OUT/ncu-flushall.csv"
  echo "-- reference, not a check: every launch, ncu flushing caches before each:"
  python3 "$ROOT/utils/compare-cupti-ncu.py" "$OUT/verdicts/cupti_medians.json" "$OUT/ncu-flushall.csv" 0.05 \
    | tee "$OUT/cupti-vs-ncu-flushall.txt"
else
  echo "ncu not found: skipped"
fi
fi

step "cuda-l1-capture: capture and bit-exact replay of sample applications (utils/gpu-capture-check.sh)"
if [ "${CAPTURE:-1}" = 0 ]; then
  echo "skipped (CAPTURE=0): run utils/gpu-capture-check.sh on its own"
else
  OUT="$OUT/capture" "$ROOT/utils/gpu-capture-check.sh" "$DIST" > "$OUT/capture.log" 2>&1 || FAIL=1
  grep -E ': FAIL|^gpu-capture-check:' "$OUT/capture.log"
fi

step "summary"
grep -hE '^\[ *(OK|FAILED|SKIPPED) *\]|=> ' "$OUT/gtest-gpu.log" | tee "$OUT/summary.txt"
echo "gpu-check: $([ $FAIL = 0 ] && echo PASS || echo FAIL)" | tee -a "$OUT/summary.txt"
# Everything in one archive too (verdict JSON per candidate, CLI results).
tar -C "$OUT" -czf "$OUT/gpu-check-details.tgz" verdicts ncu-verdicts cli 2>/dev/null || true
exit $FAIL
