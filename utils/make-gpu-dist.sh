#!/usr/bin/env bash
# Packs what utils/gpu-check.sh needs on a GPU machine without LLVM into
# dist/gpu/ (git-ignored): the statically linked GPU test driver, the CPU
# unit tests, the portable cuda-l1-rewrite and cuda-l1-lsp, clang's resource headers
# (without other targets' intrinsics headers), all stripped, and lit.
#   utils/make-gpu-dist.sh [build-dir]     (default: build/)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
B="${1:-$ROOT/build}"
D="$ROOT/dist/gpu"
ninja -C "$B" cudal1-verify-gpu-tests cuda-l1-rewrite-portable cuda-l1-lsp-portable
rm -rf "$D"; mkdir -p "$D/bin" "$D/lib/cuda-l1/clang"
cp "$B/bin/cudal1-verify-gpu-tests" "$B/portable/bin/cuda-l1-rewrite" "$B/portable/bin/cuda-l1-lsp" "$D/bin/"
strip "$D/bin/"*
cp -r /usr/lib/llvm-22/lib/clang/22/include "$D/lib/cuda-l1/clang/"
# The prompt templates (model proposals) where the binary looks for them.
mkdir -p "$D/share/cuda-l1" && cp -r "$ROOT/share/cuda-l1/prompts" "$D/share/cuda-l1/"
# The YAML rewrite rules, where the binary looks first (bin/../share/cuda-l1/
# rewrite-rules): without them it falls back to this checkout's path, which a
# GPU machine's copy of the tree does not have, and the YAML rules are lost.
cp -r "$ROOT/rewrite-rules" "$D/share/cuda-l1/"
# libcurl and what it needs (not libc), for a GPU machine without libcurl
# (model proposals dlopen it; utils/gpu-lit.sh points the tool at this copy
# only when the machine has none).
CURL="$(ldconfig -p | awk '/libcurl.so.4 / && !f {print $NF; f = 1}')"
if [ -n "$CURL" ]; then
  mkdir -p "$D/lib/curl"
  cp -L "$CURL" "$D/lib/curl/libcurl.so.4"
  ldd "$CURL" | awk '$3 ~ /^\// {print $1, $3}' | while read -r name path; do
    case "$name" in libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libresolv.so*|ld-linux*) continue ;; esac
    cp -L "$path" "$D/lib/curl/$name"
  done
fi
# lit (pure Python, ~1 MB) for utils/gpu-lit.sh: the REQUIRES: gpu lit tests.
mkdir -p "$D/lit" && cp -r /usr/lib/llvm-22/utils/lit/lit "$D/lit/"
find "$D/lit" -name __pycache__ -prune -exec rm -rf {} +
# FileCheck for those tests: the GPU machine has no LLVM, so the small Python
# one (the directives the GPU tests use; test/Driver/filecheck-lite.test keeps
# it in agreement with LLVM's).
cp "$ROOT/utils/filecheck-lite.py" "$D/bin/FileCheck" && chmod +x "$D/bin/FileCheck"
( cd "$D/lib/cuda-l1/clang/include" && rm -rf arm_* hexagon* altivec.h vecintrin.h opencl-c* \
    ppc_wrappers riscv_* sanitizer sifive_* lasx* lsx* htm* s390* msa.h wasm_* llvm_libc_wrappers )
du -sh "$D"
