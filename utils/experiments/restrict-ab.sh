#!/usr/bin/env bash
# A/B of `__restrict__` on HeCBench programs whose memory-restrict findings
# have no fix the tool applies (template kernels, pointers it reports but
# does not rewrite) or whose fix was never measured: each program is built
# twice from prepared copies, <dir>/<prog>/orig and <dir>/<prog>/restrict
# (the second with the reported parameters qualified), and the two binaries
# run alternately, ROUNDS times each, printing the program's own timing and
# check lines side by side.
#
#   utils/experiments/restrict-ab.sh DIR "prog:args" ["prog:args" ...]
#
# Environment: ROUNDS (default 3), ARCH (default sm_90), OUT (default .),
# RUN_TIMEOUT (seconds per run, default 60), B (the second copy's folder
# name, default restrict: B=fixed for copies rewritten with every fix).
# When both copies' runs write output.txt (myocyte), the largest relative
# difference between the numbers of the two files is printed.
# The copies are made on the CPU machine (the programs are data, see
# ../shared/corpus/README.md); nothing here depends on the corpus path.
set -uo pipefail
DIR="$1"
shift
ROUNDS="${ROUNDS:-3}"
ARCH="${ARCH:-sm_90}"
OUT="${OUT:-.}"
B="${B:-restrict}"
mkdir -p "$OUT"
export PATH="${CUDA_PATH:-/usr/local/cuda}/bin:$PATH"
for spec in "$@"; do
  prog="${spec%%:*}"
  args="${spec#*:}"
  for v in orig "$B"; do
    d="$DIR/$prog/$v"
    mkdir -p "$d/bin"
    arch="$ARCH"
    # Some Makefiles prepend "sm_" themselves.
    grep -q 'sm_\$(ARCH)' "$d/Makefile" && arch="${ARCH#sm_}"
    if ! make -C "$d" -s ARCH="$arch" CC=nvcc CUDA_PATH="${CUDA_PATH:-/usr/local/cuda}" \
        >"$OUT/$prog-$v-build.log" 2>&1; then
      echo "== $prog $v: build failed"; tail -5 "$OUT/$prog-$v-build.log"
      continue 2
    fi
  done
  # The binary: the Makefile's run target names it.
  bin="$(sed -n '/^run:/,/^$/p' "$DIR/$prog/orig/Makefile" | grep -o '\./[^ ]*' | head -1)"
  bin="${bin//\$(program)/$(sed -n 's/^program *:\?= *//p' "$DIR/$prog/orig/Makefile")}"
  bin="${bin//\$(OBJ_DIR)/bin}"
  bin="${bin//\$(EXEC_NAME)/$(sed -n 's/^EXEC_NAME *:\?= *//p' "$DIR/$prog/orig/Makefile")}"
  echo "== $prog: $bin $args"
  for r in $(seq "$ROUNDS"); do
    for v in orig "$B"; do
      (cd "$DIR/$prog/$v" && timeout "${RUN_TIMEOUT:-60}" $bin $args) >"$OUT/$prog-$v-$r.log" 2>&1
      echo "-- $prog $v round $r (exit $?)"
      grep -iE -A1 'time|pass|fail|error|correct|ms|us\b' "$OUT/$prog-$v-$r.log" | grep -v '^--$' | head -12
    done
  done
  if [ -f "$DIR/$prog/orig/output.txt" ] && [ -f "$DIR/$prog/$B/output.txt" ]; then
    python3 - "$DIR/$prog/orig/output.txt" "$DIR/$prog/$B/output.txt" <<'PY'
import re, sys
num = re.compile(r'[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?')
a, b = (num.findall(open(f).read()) for f in sys.argv[1:3])
if len(a) != len(b):
    print(f"-- output.txt: {len(a)} vs {len(b)} numbers")
else:
    rel = lambda x, y: abs(x - y) / max(abs(x), abs(y)) if x or y else 0.0
    worst = max((rel(float(x), float(y)), i) for i, (x, y) in enumerate(zip(a, b)))
    print(f"-- output.txt: {len(a)} numbers, largest relative difference "
          f"{worst[0]:.3g} (number {worst[1]})")
PY
  fi
done
