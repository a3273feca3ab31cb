#!/usr/bin/env bash
# Installs everything cuda-l1 needs to build and test (Debian 12 / bookworm),
# then checks the CUDA toolkit. Idempotent: safe to run again.
set -euo pipefail

PKGS=(
  build-essential cmake ninja-build ccache pkg-config python3 file xz-utils
  clang-22 libclang-22-dev llvm-22-dev llvm-22-tools clang-tools-22
  libcurl4-openssl-dev libgtest-dev googletest zlib1g-dev libzstd-dev bc
  # Clients of the language server, the pre-commit hooks and the SARIF
  # schema check (test/LSP/nvim.test, test/PreCommit, test/Analysis/sarif*).
  neovim git pre-commit python3-jsonschema
  # Sanitizer runtimes and libFuzzer for utils/check-sanitize.sh (issue 18).
  libclang-rt-22-dev libfuzzer-22-dev
  # omp.h in clang's resource headers: CUDA programs whose host code uses
  # OpenMP (omp_get_wtime, #pragma omp) parse with it (nvcc finds gcc's).
  libomp-22-dev
)

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "install-deps: all packages present"
fi

# --- CUDA toolkit (not a Debian package: NVIDIA's installer) -----------------
CUDA="${CUDA_PATH:-/usr/local/cuda}"
problems=()
[ -x "$CUDA/bin/nvcc" ] || problems+=("nvcc ($CUDA/bin/nvcc)")
[ -f "$CUDA/include/nvrtc.h" ] || problems+=("NVRTC header ($CUDA/include/nvrtc.h)")
ls "$CUDA"/lib64/libnvrtc.so* >/dev/null 2>&1 || ls "$CUDA"/targets/*/lib/libnvrtc.so* >/dev/null 2>&1 \
  || problems+=("NVRTC library ($CUDA/lib64/libnvrtc.so)")
[ -f "$CUDA/include/cupti.h" ] || [ -f "$CUDA/extras/CUPTI/include/cupti.h" ] \
  || problems+=("CUPTI headers ($CUDA/include/cupti.h or $CUDA/extras/CUPTI/include)")
[ -f "$CUDA/include/cuda_runtime.h" ] || problems+=("CUDA runtime headers ($CUDA/include/cuda_runtime.h)")
if [ ${#problems[@]} -gt 0 ]; then
  echo "install-deps: the CUDA toolkit at $CUDA is missing:" >&2
  for p in "${problems[@]}"; do echo "  - $p" >&2; done
  echo "Install the CUDA toolkit (12.x or 13.x, from NVIDIA) and point the build at it:" >&2
  echo "  export CUDA_PATH=/path/to/cuda    # or cmake -DCUDAToolkit_ROOT=/path/to/cuda" >&2
  exit 1
fi
echo "install-deps: CUDA toolkit OK at $CUDA ($("$CUDA/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'))"
