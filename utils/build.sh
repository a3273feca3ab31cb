#!/usr/bin/env bash
# Configures and builds cuda-l1 into build/ (or $CUDAL1_BUILD_DIR).
# Extra arguments are passed to ninja (e.g. a target name).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${CUDAL1_BUILD_DIR:-$ROOT/build}"
JOBS="${CUDAL1_JOBS:-$(nproc)}"
# ccache (when CMake found it) sees paths relative to this folder, so copies
# of the tree (utils/test-add-rule.sh, other worktrees) share its cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release ${CUDA_PATH:+-DCUDAToolkit_ROOT=$CUDA_PATH}
fi
ninja -C "$BUILD" -j "$JOBS" "$@"
