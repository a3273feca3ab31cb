#!/usr/bin/env bash
# Benchmark of the structural rewrites (issue 7): original vs rewritten
# kernels side by side on 4096x4096 float data, on the GPU of this machine.
#
#   utils/bench-structural.sh [--generate] [samples]
#
# --generate  re-create utils/bench-structural/gen/*.rewritten.cu with the
#             main CLI (build/bin/cuda-l1-rewrite, or $CUDAL1_BIN), --fix on
#             a copy;
#             needs no GPU. Without it the committed files are used, so a GPU
#             machine without LLVM can run the benchmark with nvcc alone.
# samples     timed samples per kernel (default 50, at least 30).
#
# Prints a markdown table: original time, rewritten time (median, us),
# speedup, output comparison. Writes the build and the log under $OUT
# (default /tmp/bench-structural).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
B="$ROOT/utils/bench-structural"
GEN="$B/gen"
OUTDIR="${OUT:-/tmp/bench-structural}"
mkdir -p "$OUTDIR"
SAMPLES=50
GENERATE=0
for a in "$@"; do
  case "$a" in
    --generate) GENERATE=1 ;;
    *) SAMPLES="$a" ;;
  esac
done

if [ "$GENERATE" = 1 ]; then
  BIN="${CUDAL1_BIN:-$ROOT/build/bin}"
  T="$BIN/cuda-l1-rewrite"
  [ -x "$T" ] || { echo "bench-structural: no $T (build it: ninja -C build cuda-l1-rewrite)" >&2; exit 2; }
  mkdir -p "$GEN"
  # The rewrites that are offered for GPU measurement by default are applied
  # too (test/Driver/Inputs/apply-all.yaml).
  CFG="$ROOT/test/Driver/Inputs/apply-all.yaml"
  gen() { # rule input output [config]
    [ "$2" = "$3" ] || cp "$2" "$3"
    "$T" --rules="-*,$1" --config-file="${4:-$CFG}" --fix --allow-unverified "$3" > "$3.log" 2>&1
    grep -q "applied [1-9][0-9]* fix" "$3.log" || { echo "bench-structural: $1 made no fix for $2:" >&2; cat "$3.log" >&2; exit 1; }
    # Keep the file names of the originals out of the committed logs.
    sed -i "s|$ROOT/||g; s|$GEN/||g" "$3.log"
  }
  gen memory-register-accumulation "$B/ra.cu" "$GEN/ra.rewritten.cu"
  gen coalescing-smem-staging "$GEN/ra.rewritten.cu" "$GEN/ra_staging.rewritten.cu"
  gen coalescing-smem-staging "$B/staging.cu" "$GEN/staging.rewritten.cu"
  gen coalescing-warp-per-row "$B/wpr.cu" "$GEN/wpr.rewritten.cu"
  gen coalescing-thread-mapping-swap "$B/swap.cu" "$GEN/swap.rewritten.cu"
  gen coalescing-transpose-tile "$B/transpose.cu" "$GEN/transpose.rewritten.cu"
  gen coalescing-transpose-tile "$B/transpose32x8.cu" "$GEN/transpose32x8.rewritten.cu"
  gen memory-vectorize-float4 "$B/vectorize.cu" "$GEN/vectorize.rewritten.cu"
  gen sync-sequential-reduction "$B/seqred.cu" "$GEN/seqred.rewritten.cu"
  gen sync-warp-atomic-reduction "$B/warpatomic.cu" "$GEN/warpatomic.rewritten.cu"
  gen memory-hoist-invariant-load "$B/hoist.cu" "$GEN/hoist.rewritten.cu"
  gen algebraic-invariant-factor "$B/factor.cu" "$GEN/factor.rewritten.cu"
  gen coalescing-column-split "$B/colsum.cu" "$GEN/colsum.rewritten.cu"
  gen coalescing-column-split "$B/colsum.cu" "$GEN/colsum32.rewritten.cu" "$B/colsplit32.yaml"
  # matmul: tiled in round 1; gemm_rmw: register accumulation in round 1,
  # tiled in round 2 (composition).
  gen memory-register-accumulation,coalescing-matmul-tile "$B/matmul.cu" "$GEN/matmul.rewritten.cu"
  echo "bench-structural: rewritten files in $GEN"
fi

NVCC="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
ARCH="${CUDAL1_BENCH_ARCH:-sm_90}"
"$NVCC" -O3 -std=c++17 -arch="$ARCH" -I"$GEN" -I"$B" "$B/bench_main.cu" \
  -o "$OUTDIR/bench-structural"
echo "bench-structural: built $OUTDIR/bench-structural ($("$NVCC" --version | tail -1))"
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "bench-structural: no GPU here; built only" >&2
  exit 0
fi
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "command: utils/bench-structural.sh $*"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  "$OUTDIR/bench-structural" "$SAMPLES"
} 2>&1 | tee "$OUTDIR/bench-structural.log"
RC="${PIPESTATUS[0]}"

# The matrix products against cuBLAS (fp32, TF32 off; utils/bench/cublas-ref.cu):
# rewritten time / cuBLAS time per size (the issue's goal: within 2x).
if "$NVCC" -O3 -std=c++17 -arch="$ARCH" "$ROOT/utils/bench/cublas-ref.cu" -lcublas \
     -o "$OUTDIR/cublas-ref" 2>"$OUTDIR/cublas-ref.build.log"; then
  {
    echo
    echo "| matrix product | rewritten (us) | cuBLAS sgemm (us) | rewritten / cuBLAS |"
    echo "|---|---:|---:|---:|"
    for S in 1024 4096; do
      J="$(NVIDIA_TF32_OVERRIDE=0 "$OUTDIR/cublas-ref" "gemm:$S:$S:$S" 2>/dev/null | tail -1)"
      CU="$(echo "$J" | sed -n 's/.*"ms": *\([0-9.eE+-]*\).*/\1/p')"
      for K in matmul gemm_rmw; do
        RW="$(awk -F'|' -v k="$K$S" '$2 ~ "^ *"k" *$" { gsub(/ /, "", $6); print $6 }' "$OUTDIR/bench-structural.log")"
        if [ -n "$CU" ] && [ -n "$RW" ]; then
          awk -v k="$K$S" -v r="$RW" -v c="$CU" \
            'BEGIN { printf "| %s | %.1f | %.1f | %.2fx |\n", k, r, c * 1000, r / (c * 1000) }'
        fi
      done
    done
  } 2>&1 | tee -a "$OUTDIR/bench-structural.log"
else
  echo "bench-structural: cublas-ref did not build (see $OUTDIR/cublas-ref.build.log); no cuBLAS ratio" | tee -a "$OUTDIR/bench-structural.log"
fi
exit "$RC"
