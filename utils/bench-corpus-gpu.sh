#!/usr/bin/env bash
# The end-to-end benchmark on a GPU machine, in one command (issue 15):
#
#   utils/bench-corpus-gpu.sh [dist-dir] [utils/bench-corpus.py options...]
#
# 1. builds the helpers once (kept in bench/results/.helpers): the CUPTI
#    injection library for kernel times (utils/bench/kernel-times.cpp), the
#    device copy bandwidth probe (copy-bw.cu) and the cuBLAS reference
#    (cublas-ref.cu);
# 2. runs utils/bench-corpus.py on the naive-style corpus (bench/corpus; or
#    HECBENCH=<path to hecbench>) with dist-dir/bin/cuda-l1-rewrite (default
#    dist/gpu, made by utils/make-gpu-dist.sh) for at most $BUDGET seconds
#    (default 480, so that the whole command fits a 10-minute limit).
#    Programs that have a result are skipped: run the same command again
#    until it reports "0 left" (exit status 0; 3 while programs are left);
# 3. writes to $OUT (default ./bench-gpu-out) at most 6 files:
#    bench-results.tgz (every program's JSON, logs, diffs and rewritten
#    files, the summary and refs.json; unpack it into bench/results/ to go
#    on from there on a fresh machine), summary.md, summary.json,
#    speedup.svg, run.log, env.txt.
#
# Environment: OUT, BUDGET, REPEAT (runs of each binary, default 2: the
# kernel times are the median and the spread between runs is reported),
# HECBENCH, CAPTURE (1: build cuda-l1-capture and capture each program's
# launches first; see below), MODE (verify: `--fix --verify=run`,
# the default; proven: `--fix` alone, the proven fixes applied without GPU
# verification and measured here; results in bench/results/<corpus>-proven),
# CUDA_PATH (default /usr/local/cuda), CUDAL1_COMMIT (the commit to record;
# by default the one the tool's --version names, else the copy's git HEAD,
# which on a GPU machine may be older than the binary carried there).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIST="${1:-$ROOT/dist/gpu}"
[ $# -gt 0 ] && shift
OUT="${OUT:-$ROOT/bench-gpu-out}"
BUDGET="${BUDGET:-480}"
export CUDA_PATH="${CUDA_PATH:-/usr/local/cuda}"
export PATH="$CUDA_PATH/bin:$PATH"
H="$ROOT/bench/results/.helpers"
S="$ROOT/utils/bench"
mkdir -p "$H" "$OUT"
T0=$(date +%s)

{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total,temperature.gpu --format=csv 2>&1
  nvcc --version 2>&1 | tail -2
  uname -r
  TOOLC=$("$DIST/bin/cuda-l1-rewrite" --version 2>/dev/null | sed -n 's/.*(git \([^,]*\),.*/\1/p' | head -1)
  [ "$TOOLC" = unknown ] && TOOLC=
  echo "commit: ${CUDAL1_COMMIT:-${TOOLC:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)}}"
  echo "tool: $DIST/bin/cuda-l1-rewrite"
  "$DIST/bin/cuda-l1-rewrite" --version 2>&1 | head -2
  nproc
} > "$OUT/env.txt" 2>&1

# newer(target, sources...): target missing or older than a source
newer() { local t="$1"; shift; [ -e "$t" ] || return 0; for s in "$@"; do [ "$s" -nt "$t" ] && return 0; done; return 1; }
CUPTI_INC="-I$CUDA_PATH/include -I$CUDA_PATH/extras/CUPTI/include"
CUPTI_LIB="-L$CUDA_PATH/lib64 -L$CUDA_PATH/extras/CUPTI/lib64 -Wl,-rpath,$CUDA_PATH/lib64 -Wl,-rpath,$CUDA_PATH/extras/CUPTI/lib64"
if newer "$H/libkernel-times.so" "$S/kernel-times.cpp"; then
  echo "building libkernel-times.so"
  # shellcheck disable=SC2086
  g++ -std=c++17 -O2 -shared -fPIC $CUPTI_INC "$S/kernel-times.cpp" -o "$H/libkernel-times.so" $CUPTI_LIB -lcupti \
    || echo "bench-corpus-gpu: the kernel-times library did not build: no kernel times" | tee -a "$OUT/env.txt"
fi
if newer "$H/copy-bw" "$S/copy-bw.cu"; then
  echo "building copy-bw"
  nvcc -arch=sm_90 -O3 -o "$H/copy-bw" "$S/copy-bw.cu" || echo "bench-corpus-gpu: copy-bw did not build" | tee -a "$OUT/env.txt"
fi
if newer "$H/cublas-ref" "$S/cublas-ref.cu"; then
  echo "building cublas-ref"
  nvcc -arch=sm_90 -O3 -std=c++17 -o "$H/cublas-ref" "$S/cublas-ref.cu" -lcublas \
    || echo "bench-corpus-gpu: cublas-ref did not build" | tee -a "$OUT/env.txt"
fi
# CAPTURE=1: the capture tools (tools/cuda-l1-capture, standalone CMake, no
# LLVM) built here (again when their sources are newer) and put beside the
# rewrite binary, and --capture=on: each program is first run under
# cuda-l1-capture and its kernels are verified and timed on their captured
# launches (the program's own data) as well. Otherwise --capture=off.
CAPOPT=(--capture=off)
if [ "${CAPTURE:-0}" = 1 ]; then
  CAPOPT=(--capture=on)
  if newer "$H/capture/bin/cuda-l1-capture" "$ROOT"/tools/cuda-l1-capture/*.cpp "$ROOT"/tools/cuda-l1-capture/CMakeLists.txt; then
    echo "building the capture tools"
    GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
    cmake ${GEN[@]+"${GEN[@]}"} -S "$ROOT/tools/cuda-l1-capture" -B "$H/capture" -DCMAKE_BUILD_TYPE=Release > "$H/capture.log" 2>&1 &&
      cmake --build "$H/capture" -j "$(nproc)" >> "$H/capture.log" 2>&1 ||
      echo "bench-corpus-gpu: the capture tools did not build (see $H/capture.log)" | tee -a "$OUT/env.txt"
  fi
  # The injection library first: the launcher finds it beside itself.
  if mkdir -p "$DIST/lib/cuda-l1" && cp "$H/capture/lib/cuda-l1/"*.so "$DIST/lib/cuda-l1/" &&
     cp "$H/capture/bin/cuda-l1-capture" "$DIST/bin/"; then
    echo "capture: $DIST/bin/cuda-l1-capture" | tee -a "$OUT/env.txt"
  else
    echo "bench-corpus-gpu: CAPTURE=1 but the capture tools could not be put beside the rewrite binary" | tee -a "$OUT/env.txt"
    exit 2
  fi
fi
echo "helpers ready after $(( $(date +%s) - T0 )) s"

MODE="${MODE:-verify}"
if [ -n "${HECBENCH:-}" ]; then
  NAME=hecbench
  SRC=(--hecbench "$HECBENCH")
else
  NAME=corpus
  SRC=(--corpus "$ROOT/bench/corpus")
fi
[ "$MODE" != verify ] && NAME="$NAME-$MODE"
LEFT=$(( BUDGET - ($(date +%s) - T0) ))
python3 "$ROOT/utils/bench-corpus.py" "${SRC[@]}" --results "$ROOT/bench/results/$NAME" \
  --rewrite "$DIST/bin/cuda-l1-rewrite" --tool-mode "$MODE" --repeat "${REPEAT:-2}" --budget "$LEFT" \
  "${CAPOPT[@]}" "$@" 2>&1 \
  | tee "$OUT/run.log"
RC=${PIPESTATUS[0]}

R="$ROOT/bench/results/$NAME"
# Captured bytes stay here (they can be large); manifests and logs go.
tar czf "$OUT/bench-results.tgz" --exclude='*/capture/launches' --exclude='*/capture/modules' \
  -C "$ROOT/bench/results" "$NAME"
for f in summary.md summary.json speedup.svg; do
  [ -e "$R/$f" ] && cp "$R/$f" "$OUT/$f"
done
echo "bench-corpus-gpu: exit $RC (0: every program has a result; 3: programs left, run the same command again) after $(( $(date +%s) - T0 )) s"
exit $RC
