#!/usr/bin/env bash
# The structural rules on a GPU machine, in one go (issue 7):
#   1. utils/bench-structural.sh: original vs rewritten, 4096x4096 floats
#      (skipped with BENCH=0, as utils/gpu-check.sh runs it);
#   2. the verifier (cuda-l1-rewrite --verify=run) on each rewrite, at 4096
#      and at guard/tail sizes (test/Structural/Inputs), with the verdict
#      each must get; the rewrites that change the launch (thread-mapping
#      swap, warp per row) are launched with the shape their rewritten launch
#      site gives. Exit status 1 when a verdict is not the expected one.
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
[ -e "$REW" ] && REW="$(cd "$(dirname "$REW")" && pwd)/$(basename "$REW")"
LIMIT="${VERIFY_LIMIT:-35}"
G="$ROOT/utils/bench-structural"
I="$ROOT/test/Structural/Inputs"

FAILS=0
if [ "${BENCH:-1}" = 1 ]; then
  OUT=/tmp/bench-structural "$ROOT/utils/bench-structural.sh" "${SAMPLES:-50}" 2>&1 | tee "$OUT/bench.log"
fi

# verify <harness> <kernel> <file> <exactness> <expect> [options...]
# expect: "accepted" (the verifier accepts it: correct and faster) or
# "correct" (correct on every input set; accepted or rejected as not faster).
verify() {
  local h="$1" k="$2" f="$3" ex="$4" want="$5"
  shift 5
  echo "=== verify $k ($h.yaml, $f, $ex; expect $want)"
  local log
  log="$(timeout "$LIMIT" "$REW" --verify=run --kernel="$k" \
    --candidate="$G/gen/$f.rewritten.cu" --harness="$I/$h.yaml" \
    --verify-exactness="$ex" --verify-rtol=1e-3 --verify-samples=30 \
    --verify-timeout=25 "$@" "$G/$f.cu" 2>&1)"
  local rc=$?
  echo "$log" | grep -E "note: .*launched with its own|the candidate is launched" | head -2
  echo "$log" | tail -8
  echo "exit: $rc"
  local ok=0
  case "$want" in
    accepted) echo "$log" | grep -q "ACCEPTED" && ok=1 ;;
    correct) echo "$log" | grep -qE "ACCEPTED|\[not-faster\]" && ok=1 ;;
  esac
  if [ "$ok" = 1 ]; then echo "RESULT $k/$f/$h: as expected ($want)"; else
    echo "RESULT $k/$f/$h: NOT AS EXPECTED ($want)"; FAILS=$((FAILS + 1)); fi
}
# fixrun <name> <file> <harness> <rules> [<rule>]: `--fix --verify=run` with
# the rules (comma-separated) on a copy of utils/bench-structural/<file>.cu
# (or test/Structural/Inputs/<file>.cu); the fix of <rule> (default: the one
# rule) must be verified, applied and annotated (launch-changing rules
# included).
fixrun() {
  local name="$1" f="$2" h="$3" rules="$4" rule="${5:-$4}" d="$OUT/fix-$1"
  local src="$G/$f.cu"
  [ -e "$src" ] || src="$I/$f.cu"
  echo "=== --fix --verify=run [$rules] on $f.cu ($h.yaml; expect $rule applied)"
  rm -rf "$d" && mkdir -p "$d" && cp "$src" "$d/"
  ( cd "$d" && timeout "$LIMIT" "$REW" --fix --verify=run --rules="-*,$rules" \
      --harness="$I/$h.yaml" --verify-rtol=1e-3 --verify-atol=1e-2 \
      --verify-samples=30 --verify-timeout=25 "$f.cu" > fix.log 2>&1 )
  echo "exit: $?"
  grep -E "ACCEPTED|rejected|applied|overlap" "$d/fix.log" | head -6
  grep -B1 -A4 "^// cuda-l1:" "$d/$f.cu" | head -8
  if grep -q "^// cuda-l1: applied $rule;" "$d/$f.cu"; then
    echo "RESULT fix/$name: as expected (applied)"
  else
    echo "RESULT fix/$name: NOT AS EXPECTED (applied)"; FAILS=$((FAILS + 1))
  fi
}
if [ -x "$REW" ]; then
  {
    # guards and tails (odd sizes): correct; faster is not required
    verify matvec_odd matvec staging bitwise correct
    verify matvec_odd matvec wpr reassociating correct --verify-atol=1e-2
    verify scale2d_odd scale2d swap bitwise correct
    verify matvec_rmw_odd matvec_rmw ra bitwise correct
    verify transpose_odd transpose transpose bitwise correct
    verify transpose32x8_odd transpose32x8 transpose32x8 bitwise correct
    verify total_odd total warpatomic reassociating correct
    verify axpy_odd axpy vectorize bitwise correct
    verify scale_cols_odd scale_cols hoist bitwise correct
    verify matmul_odd matmul matmul bitwise correct
    verify gemm_rmw_odd gemm_rmw matmul bitwise correct
    # 4096 x 4096: the rewrites that should pay off must be accepted
    verify matvec matvec staging bitwise accepted
    verify matvec matvec wpr reassociating accepted --verify-atol=1e-2
    verify scale2d scale2d swap bitwise accepted
    verify matvec_rmw matvec_rmw ra bitwise correct
    verify transpose transpose transpose bitwise accepted
    verify transpose32x8 transpose32x8 transpose32x8 bitwise accepted
    verify reduce0 reduce0 seqred reassociating accepted --verify-atol=1e-2
    verify total total warpatomic reassociating accepted
    # matrix products at 1024^3 (gemm_rmw: register accumulation + tile)
    verify matmul1024 matmul matmul bitwise accepted
    verify gemm_rmw1024 gemm_rmw matmul bitwise accepted
    verify scale_cols scale_cols hoist bitwise correct
    # dot products of mixed-sign data: some of the 1M outputs cancel to ~0, so
    # the error is judged against the output's scale (docs/verify.md)
    verify dot_scaled dot_scaled factor reassociating accepted --verify-scale-rtol=1e-4
    fixrun wpr wpr matvec coalescing-warp-per-row
    fixrun swap swap scale2d coalescing-thread-mapping-swap
    fixrun staging staging matvec coalescing-smem-staging
    fixrun factor factor dot_scaled algebraic-invariant-factor
    # two fixes for one loop whose edits overlap: the GPU picks the faster
    fixrun pick matvec_restrict matvec coalescing-smem-staging,coalescing-warp-per-row coalescing-warp-per-row
    echo "structural verifications not as expected: $FAILS"
  } 2>&1 | tee "$OUT/verify.log"
  grep -q "not as expected: 0$" "$OUT/verify.log" || exit 1
else
  echo "no $REW: verifications skipped" | tee "$OUT/verify.log"
  exit 1
fi
