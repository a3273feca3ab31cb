#!/usr/bin/env bash
# README command 1: installs what is needed, builds, and runs cuda-l1-rewrite
# on the bundled example (examples/naive-kernels/kernels.cu): the kernel
# listing, the diagnostics (advise mode), and the rewrite it would make
# (--diff; only fixes proven bit-exact are applied without a GPU).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${CUDAL1_BUILD_DIR:-$ROOT/build}"
"$ROOT/utils/install-deps.sh"
"$ROOT/utils/build.sh"
TOOL="$BUILD/bin/cuda-l1-rewrite"
cd "$ROOT"
EX=examples/naive-kernels/kernels.cu
echo; echo "\$ cuda-l1-rewrite --list-kernels $EX"
"$TOOL" --list-kernels "$EX"
echo; echo "\$ cuda-l1-rewrite $EX          # advise: diagnostics with fix-its"
"$TOOL" "$EX" || true
echo; echo "\$ cuda-l1-rewrite --diff $EX   # the verified-safe rewrite, as a patch"
"$TOOL" --diff "$EX" || true
