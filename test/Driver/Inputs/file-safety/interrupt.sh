#!/usr/bin/env bash
# Interrupted and concurrent runs: $1 = cuda-l1-rewrite, $2 = scratch folder,
# $3 = the input, $4 = the expected rewritten file.
# 1. SIGINT or SIGTERM at 24 moments during `--fix`: afterwards the file is
#    the old one or the new one, never anything else, and no temporary file
#    is left behind.
# 2. Four runs of `--fix` on the same file at once: the file ends rewritten
#    exactly once (the exact fix applied, not twice), each run exits 0 or 2,
#    and no temporary file is left.
set -u
TOOL=$1 D=$2 IN=$3 WANT=$4
rm -rf "$D" && mkdir -p "$D"
bad=0
for n in $(seq 1 24); do
  cp "$IN" "$D/k.cu"
  sig=TERM; [ $((n % 2)) = 0 ] && sig=INT
  # 40 ms .. 960 ms: from parsing to writing (a run takes about 0.5 s).
  delay=$(awk -v n="$n" 'BEGIN { printf "%.3f", 0.04 * n }')
  timeout -s "$sig" "$delay" "$TOOL" --fix --quiet "$D/k.cu" >/dev/null 2>&1
  if ! cmp -s "$D/k.cu" "$IN" && ! cmp -s "$D/k.cu" "$WANT"; then
    echo "interrupt $n ($sig after ${delay}s): file is neither old nor new"; bad=1
  fi
  if ls -a "$D" | grep -q 'cuda-l1-.*\.tmp'; then
    echo "interrupt $n ($sig after ${delay}s): temporary file left"; bad=1
    rm -f "$D"/.*.tmp
  fi
done
echo "interrupts: done"

cp "$IN" "$D/k.cu"
pids=()
for r in 1 2 3 4; do
  "$TOOL" --fix --quiet "$D/k.cu" >"$D/run$r.out" 2>&1 & pids+=($!)
done
for r in 1 2 3 4; do
  wait "${pids[$((r - 1))]}"; rc=$?
  if [ "$rc" != 0 ] && [ "$rc" != 2 ]; then echo "concurrent run $r: exit $rc"; bad=1; fi
  if [ "$rc" = 2 ] && ! grep -q "changed" "$D/run$r.out"; then
    echo "concurrent run $r: exit 2 without saying the file changed"; cat "$D/run$r.out"; bad=1
  fi
done
cmp -s "$D/k.cu" "$WANT" || { echo "concurrent: result differs from one rewrite"; diff "$WANT" "$D/k.cu"; bad=1; }
if ls -a "$D" | grep -q 'cuda-l1-.*\.tmp'; then echo "concurrent: temporary file left"; bad=1; fi
echo "concurrent: done"
exit $bad
