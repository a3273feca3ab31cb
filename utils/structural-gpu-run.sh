#!/usr/bin/env bash
# The structural rules on a GPU machine, in one go (issue 7):
#   1. utils/bench-structural.sh: original vs rewritten, 4096x4096 floats;
#   2. the verifier (cuda-l1-rewrite --verify=run) on each launch-preserving
#      rewrite, at 4096 and at guard/tail sizes (test/Structural/Inputs).
# Uses the committed rewritten files (utils/bench-structural/gen), so it
# needs nvcc and a cuda-l1-rewrite binary with --verify=run (default:
# dist/gpu/bin, see utils/make-gpu-dist.sh; or $CUDAL1_REWRITE), no LLVM.
# Logs go to $OUT (default ./structural-gpu-out). Each verification is
# limited to $VERIFY_LIMIT seconds (default 35).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${OUT:-$ROOT/structural-gpu-out}"
mkdir -p "$OUT"
export PATH="${CUDA_PATH:-/usr/local/cuda}/bin:$PATH"
REW="${CUDAL1_REWRITE:-$ROOT/dist/gpu/bin/cuda-l1-rewrite}"
LIMIT="${VERIFY_LIMIT:-35}"
G="$ROOT/utils/bench-structural"
I="$ROOT/test/Structural/Inputs"

OUT=/tmp/bench-structural "$ROOT/utils/bench-structural.sh" "${SAMPLES:-50}" 2>&1 | tee "$OUT/bench.log"

verify() { # harness kernel file exactness
  echo "=== verify $2 ($1.yaml, $4)"
  timeout "$LIMIT" "$REW" --verify=run --kernel="$2" \
    --candidate="$G/gen/$3.rewritten.cu" --harness="$I/$1.yaml" \
    --verify-exactness="$4" --verify-rtol=1e-3 --verify-samples=30 \
    --verify-timeout=25 "$G/$3.cu" 2>&1 | tail -8
  echo "exit: ${PIPESTATUS[0]}"
}
if [ -x "$REW" ]; then
  {
    verify matvec_odd matvec staging bitwise
    verify matvec_rmw_odd matvec_rmw ra bitwise
    verify transpose_odd transpose transpose bitwise
    verify total_odd total warpatomic reassociating
    verify axpy_odd axpy vectorize bitwise
    verify matvec matvec staging bitwise
    verify matvec_rmw matvec_rmw ra bitwise
    verify transpose transpose transpose bitwise
    verify reduce0 reduce0 seqred reassociating
    verify total total warpatomic reassociating
  } 2>&1 | tee "$OUT/verify.log"
else
  echo "no $REW: verifications skipped" | tee "$OUT/verify.log"
fi
