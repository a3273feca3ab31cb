#!/usr/bin/env bash
# Builds the portable release of cuda-l1-rewrite and cuda-l1-lsp: Clang/LLVM linked
# statically (-static-libstdc++ -static-libgcc), stripped, with clang's CUDA
# resource headers and the shipped rewrite rules beside it. The result runs
# on x86-64 Linux with glibc >= 2.36-era ABI and needs only libc, libz and
# libzstd (e.g. Ubuntu 24.04 with a CUDA toolkit, no LLVM installed).
#
#   utils/build-portable.sh [outdir]     (default: dist/)
# Produces <outdir>/cuda-l1-<version>-linux-x86_64/ and a .tar.xz of it.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${CUDAL1_BUILD_DIR:-$ROOT/build}"
OUT="${1:-$ROOT/dist}"
"$ROOT/utils/build.sh" cuda-l1-rewrite-portable cuda-l1-lsp-portable
VER=$(sed -n 's/^project(cuda-l1 VERSION \([0-9.]*\).*/\1/p' "$ROOT/CMakeLists.txt")
PKG="$OUT/cuda-l1-$VER-linux-x86_64"
rm -rf "$PKG"
mkdir -p "$PKG/bin" "$PKG/lib/cuda-l1/clang"
cp "$BUILD/portable/bin/cuda-l1-rewrite" "$PKG/bin/"
strip "$PKG/bin/cuda-l1-rewrite"
# Any other portable tools built next to it (e.g. GPU test drivers).
for f in "$BUILD"/portable/bin/*; do
  [ "$(basename "$f")" = cuda-l1-rewrite ] && continue
  [ -f "$f" ] && cp "$f" "$PKG/bin/" && strip "$PKG/bin/$(basename "$f")" || true
done
RES="$(ls -d /usr/lib/llvm-22/lib/clang/22 2>/dev/null || true)"
cp -r "$RES/include" "$PKG/lib/cuda-l1/clang/"
if [ -d "$ROOT/rewrite-rules" ]; then cp -r "$ROOT/rewrite-rules" "$PKG/lib/cuda-l1/"; fi
# The rule pages that diagnostics and SARIF link to by default.
mkdir -p "$PKG/share/doc/cuda-l1"
cp -r "$ROOT/docs/rules" "$PKG/share/doc/cuda-l1/"
cp "$ROOT/README.md" "$PKG/" 2>/dev/null || true
echo "needs: $(readelf -d "$PKG/bin/cuda-l1-rewrite" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
tar -C "$OUT" -cJf "$PKG.tar.xz" "$(basename "$PKG")"
du -sh "$PKG/bin/cuda-l1-rewrite" "$PKG.tar.xz"
