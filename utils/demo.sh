#!/usr/bin/env bash
# README command 1: installs what is needed, builds, and runs cuda-l1-rewrite
# on the bundled example project (examples/saxpy-project).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${CUDAL1_BUILD_DIR:-$ROOT/build}"
"$ROOT/utils/install-deps.sh"
"$ROOT/utils/build.sh" cuda-l1-rewrite
EX="$ROOT/examples/saxpy-project"
echo
echo "\$ cuda-l1-rewrite --list-kernels examples/saxpy-project/*.cu"
cd "$ROOT"
"$BUILD/bin/cuda-l1-rewrite" --list-kernels "$EX"/*.cu
if [ -x "$ROOT/examples/saxpy-project/advise.sh" ]; then "$ROOT/examples/saxpy-project/advise.sh" "$BUILD/bin/cuda-l1-rewrite"; fi
