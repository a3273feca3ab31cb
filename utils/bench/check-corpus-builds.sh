#!/usr/bin/env bash
# Builds every program of the naive-style corpus with nvcc as the benchmark
# does (the manifest's flags: -arch=sm_90 -O3), plus -Xcompiler -Wall,-Wextra,
# and fails when one does not compile or prints anything (a warning).
#   utils/bench/check-corpus-builds.sh [--compile-only] [--nvcc PATH] [-j N] [--corpus DIR]
# --compile-only: nvcc -c (no link), as test/Bench/corpus-builds.test does.
# No GPU needed. Exit status 1 when a program fails or warns.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CORPUS="$ROOT/bench/corpus"
NVCC="${CUDA_PATH:-/usr/local/cuda}/bin/nvcc"
JOBS="$(nproc 2>/dev/null || echo 1)"
MODE=link
while [ $# -gt 0 ]; do
  case "$1" in
    --compile-only) MODE=compile ;;
    --nvcc) NVCC="$2"; shift ;;
    -j) JOBS="$2"; shift ;;
    --corpus) CORPUS="$2"; shift ;;
    *) echo "usage: $0 [--compile-only] [--nvcc PATH] [-j N] [--corpus DIR]" >&2; exit 2 ;;
  esac
  shift
done
OUTDIR="$(mktemp -d)"
trap 'rm -rf "$OUTDIR"' EXIT

# name <TAB> flags <TAB> sources, from the manifest
python3 - "$CORPUS" > "$OUTDIR/list" <<'PY'
import json, os, sys
corpus = sys.argv[1]
m = json.load(open(os.path.join(corpus, "manifest.json")))
d = m.get("defaults", {})
for p in m["programs"]:
    flags = d.get("nvcc_flags", ["-arch=sm_90", "-O3"]) + p.get("nvcc_flags", [])
    print("\t".join([p["name"], " ".join(flags), " ".join(p["sources"])]))
PY

build_one() {
  local name="$1" flags="$2" sources="$3" log="$OUTDIR/$1.log"
  local dir="$CORPUS/$name" rc
  if [ "$MODE" = compile ]; then
    rc=0
    for s in $sources; do
      # shellcheck disable=SC2086
      (cd "$dir" && "$NVCC" $flags -Xcompiler -Wall,-Wextra -c "$s" -o "$OUTDIR/$name-${s%.cu}.o") >> "$log" 2>&1 || rc=1
    done
  else
    # shellcheck disable=SC2086
    (cd "$dir" && "$NVCC" $flags -Xcompiler -Wall,-Wextra -o "$OUTDIR/$name" $sources) > "$log" 2>&1
    rc=$?
  fi
  if [ "$rc" != 0 ]; then
    echo "$name: FAILED"
  elif [ -s "$log" ]; then
    echo "$name: warnings"
  else
    echo "$name: ok"
  fi
  [ -s "$log" ] && sed 's/^/    /' "$log" | head -20
  return 0
}
export -f build_one
export CORPUS NVCC MODE OUTDIR

tr '\t' '\037' < "$OUTDIR/list" | xargs -d '\n' -P "$JOBS" -I{} bash -c 'IFS=$'"'"'\037'"'"' read -r n f s <<< "{}"; build_one "$n" "$f" "$s"' > "$OUTDIR/report"
cat "$OUTDIR/report"
total=$(wc -l < "$OUTDIR/list")
failed=$(grep -c ': FAILED$' "$OUTDIR/report")
warned=$(grep -c ': warnings$' "$OUTDIR/report")
echo "check-corpus-builds: $total programs, $failed failed, $warned with warnings ($MODE)"
[ "$failed" = 0 ] && [ "$warned" = 0 ]
