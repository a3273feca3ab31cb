#!/usr/bin/env bash
# Benchmark (not a test): times `cuda-l1-rewrite --list-kernels` over every
# .cu file of a folder against `clang++-22 -fsyntax-only` with exactly the same
# flags (taken from --print-commands), and prints the ratio.
#   utils/bench-list-kernels.sh [folder] [repeats]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TOOL="${CUDAL1_TOOL:-$ROOT/build/bin/cuda-l1-rewrite}"
DIR="${1:-$ROOT/test/Inputs}"
REPEATS="${2:-3}"
CLANG="${CLANG:-clang++-22}"
mapfile -t FILES < <(find "$DIR" -name '*.cu' | sort)
[ ${#FILES[@]} -gt 0 ] || { echo "no .cu files under $DIR" >&2; exit 2; }

now() { date +%s.%N; }
best_tool=""; best_clang=""
for r in $(seq "$REPEATS"); do
  t0=$(now)
  "$TOOL" --list-kernels "${FILES[@]}" >/dev/null 2>&1 || true
  t1=$(now)
  for f in "${FILES[@]}"; do
    # Same command line as the tool uses, minus argv[0], plus -fsyntax-only.
    cmd=$("$TOOL" --print-commands "$f" | sed 's/^[^:]*: clang++ //')
    eval "$CLANG -fsyntax-only $cmd" >/dev/null 2>&1 || true
  done
  t2=$(now)
  tt=$(echo "$t1 - $t0" | bc); tc=$(echo "$t2 - $t1" | bc)
  if [ -z "$best_tool" ] || [ "$(echo "$tt < $best_tool" | bc)" = 1 ]; then best_tool=$tt; fi
  if [ -z "$best_clang" ] || [ "$(echo "$tc < $best_clang" | bc)" = 1 ]; then best_clang=$tc; fi
done
echo "files: ${#FILES[@]} under $DIR (best of $REPEATS runs, $(nproc) cores, one file at a time)"
printf "cuda-l1-rewrite --list-kernels : %8.2f s\n" "$best_tool"
printf "%s -fsyntax-only      : %8.2f s\n" "$CLANG" "$best_clang"
printf "ratio (tool / clang)           : %8.2f\n" "$(echo "$best_tool / $best_clang" | bc -l)"
