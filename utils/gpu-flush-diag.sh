#!/usr/bin/env bash
# Diagnostic: how lib/Verify's L2 flush mode changes CUPTI kernel times, and
# how they compare with Nsight Compute with and without its cache control.
# Run on a GPU machine:  utils/gpu-flush-diag.sh dist/gpu   (logs in $OUT)
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$(cd "${1:-$ROOT/build}" && pwd)/bin"
OUT="${OUT:-$ROOT/gpu-diag-out}"
export CUDA_PATH="${CUDA_PATH:-/usr/local/cuda}" PATH="${CUDA_PATH:-/usr/local/cuda}/bin:$PATH"
export CUDAL1_VERIFY_INPUTS="$ROOT/test/Verify/Inputs"
F=VerifyGpu.CuptiTimesForNcuComparison
for mode in read memset none read; do
  mkdir -p "$OUT/$mode"
  CUDAL1_L2_FLUSH=$mode CUDAL1_GPU_OUT="$OUT/$mode" "$BIN/cudal1-verify-gpu-tests" --gtest_filter=$F > "$OUT/$mode.log" 2>&1
  echo "flush=$mode: $(cat "$OUT/$mode/cupti_medians.json")"
done
for cc in all none; do
  mkdir -p "$OUT/ncu-$cc"
  CUDAL1_UNDER_NCU=1 CUDAL1_GPU_OUT="$OUT/ncu-$cc" timeout 300 ncu --clock-control none --cache-control $cc \
    --target-processes all --metrics gpu__time_duration.sum --csv -k "regex:transpose_|copy_" \
    "$BIN/cudal1-verify-gpu-tests" --gtest_filter=$F > "$OUT/ncu-$cc.csv" 2>/dev/null
  echo "== ncu --cache-control $cc vs CUPTI (flush=read)"
  python3 "$ROOT/utils/compare-cupti-ncu.py" "$OUT/read/cupti_medians.json" "$OUT/ncu-$cc.csv" 0.05
done
