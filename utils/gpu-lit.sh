#!/usr/bin/env bash
# Runs the lit tests under test/ that are marked `REQUIRES: gpu` on a GPU
# machine, with the binaries of a dist folder (utils/make-gpu-dist.sh: the
# portable cuda-l1-rewrite, and lit itself under dist/gpu/lit) -- no LLVM or
# build folder needed there. A lit site configuration pointing at the dist
# binaries is written under $OUT/lit. Tests that need a tool the dist folder
# lacks (e.g. cuda-l1-capture) are listed as skipped.
#
#   utils/gpu-lit.sh [dist-dir]          (default: dist/gpu)
#   LIT_TESTS="test/Verify/x.test ..." utils/gpu-lit.sh   (other tests)
#   GPU_LIT_JOBS=4 utils/gpu-lit.sh   (tests in parallel; default 1: they
#                                      time kernels on the same GPU)
#
# Called by utils/gpu-check.sh; exit status 0 when every test run passed.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIST="$(cd "${1:-$ROOT/dist/gpu}" && pwd)"
BIN="$DIST/bin"
OUT="${OUT:-$ROOT/gpu-check-out}"
CUDA_PATH="${CUDA_PATH:-/usr/local/cuda}"
LITROOT="$OUT/lit"
mkdir -p "$LITROOT/test"
# libcurl (model proposals, test/LLM): the dist's copy when the system has none.
NEED_CURL=False
if ! ldconfig -p 2>/dev/null | grep 'libcurl.so.4 ' >/dev/null && [ -f "$DIST/lib/curl/libcurl.so.4" ]; then
  NEED_CURL=True
fi
cat > "$LITROOT/test/lit.site.cfg.py" <<CFG
# Written by utils/gpu-lit.sh: the dist binaries instead of a build folder.
import os
config.cudal1_src_root = "$ROOT"
config.cudal1_obj_root = "$LITROOT"
config.cudal1_tools_dir = "$BIN"
config.llvm_tools_dir = "$BIN"
config.cuda_path = "$CUDA_PATH"
if $NEED_CURL:
    config.environment["CUDAL1_LIBCURL"] = "$DIST/lib/curl/libcurl.so.4"
    config.environment["LD_LIBRARY_PATH"] = "$DIST/lib/curl"
lit_config.load_config(config, os.path.join(config.cudal1_src_root, "test", "lit.cfg.py"))
CFG

# lit: the copy in the dist folder, else one installed here.
if [ -d "$DIST/lit/lit" ]; then
  LIT=(python3 -c "import sys; sys.path.insert(0, '$DIST/lit'); from lit.main import main; sys.argv[0] = 'lit'; main()")
elif command -v lit >/dev/null; then
  LIT=(lit)
elif command -v lit-22 >/dev/null; then
  LIT=(lit-22)
else
  echo "gpu-lit: no lit (run utils/make-gpu-dist.sh, which copies it into dist/gpu/lit)"
  exit 1
fi

if [ -n "${LIT_TESTS:-}" ]; then
  TESTS=$LIT_TESTS
else
  TESTS=$(cd "$ROOT" && grep -rlE '^(#|//)? *REQUIRES:.*\bgpu\b|^REQUIRES:.*\bgpu\b' test --include='*.test' --include='*.cu' | grep -v /Inputs/ | sort)
fi
RUN=()
for T in $TESTS; do
  missing=""
  for tool in cuda-l1-capture cuda-l1-lsp; do
    if grep -q "$tool" "$ROOT/$T" && [ ! -x "$BIN/$tool" ]; then missing="$tool"; fi
  done
  if [ -n "$missing" ]; then
    echo "gpu-lit: skipped $T (needs $missing, not in $BIN)"
    continue
  fi
  RUN+=("$LITROOT/${T}")
done
if [ ${#RUN[@]} = 0 ]; then
  echo "gpu-lit: no test to run"
  exit 0
fi
export PATH="$BIN:$CUDA_PATH/bin:$PATH"
# One test at a time by default: the tests time kernels on the one GPU, and
# concurrent tests skew each other's measurements (session 12: app-test-gpu
# failed once among 13 tests run in parallel, and passed alone).
"${LIT[@]}" -v -j "${GPU_LIT_JOBS:-1}" "${RUN[@]}"
