#!/usr/bin/env bash
# Experiment: why does CUPTI time copy_scalar ~10% above ncu while three other
# kernels agree? Runs VerifyGpu.CuptiTimesForNcuComparison (CUPTI timing of
# copy_scalar/copy_vec4, transpose_naive/tiled) back to back as usual, and
# with an idle gap between the L2 flush and every timed launch (CUDAL1_SAMPLE_GAP_US, as ncu's
# per-launch overhead makes), sampling SM clock and power every 50 ms.
#   utils/experiments/cupti-ncu-diag.sh [dist-dir]    (writes under $OUT)
set -uo pipefail
DIST="${1:-dist/gpu}"
D="${OUT:-/tmp}/diag"
mkdir -p "$D"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu \
  --format=csv,noheader -lms 50 > "$D/clk.csv" &
SMI=$!
for mode in ${MODES:-normal gap3ms gap50us nocdp}; do
  mkdir -p "$D/$mode"
  echo "$mode start $(date -u +%H:%M:%S.%N)" >> "$D/phases.txt"
  GAP=0; [ "$mode" = gap3ms ] && GAP=3000; [ "$mode" = gap50us ] && GAP=50
  CDP=1; [ "$mode" = nocdp ] && CDP=0
  CUDAL1_CUPTI_CDP=$CDP CUDAL1_SAMPLE_GAP_US=$GAP CUDAL1_GPU_OUT="$D/$mode" "$DIST/bin/cudal1-verify-gpu-tests" \
    --gtest_filter=VerifyGpu.CuptiTimesForNcuComparison > "$D/$mode/log.txt" 2>&1
  echo "$mode end $(date -u +%H:%M:%S.%N)" >> "$D/phases.txt"
  echo "== $mode: $(cat "$D/$mode/cupti_medians.json")"
  grep -ho 'SM clock after timing [0-9]* MHz' "$D/$mode/"cupti_for_ncu*.json
done
kill $SMI
cat "$D/phases.txt"
python3 - "$D/clk.csv" <<'PY'
import sys, statistics
rows = [l.split(", ") for l in open(sys.argv[1]) if l.count(",") >= 4]
sm = [int(r[1].split()[0]) for r in rows if r[1].split()[0].isdigit()]
pw = [float(r[3].split()[0]) for r in rows if r[3].split()[0].replace('.', '').isdigit()]
print("samples", len(sm), "SM MHz min/median/max", min(sm), statistics.median(sm), max(sm))
print("power W min/median/max", min(pw), statistics.median(pw), max(pw))
busy = [(s, p) for s, p in zip(sm, pw) if p > 200]
if busy:
    print("while > 200 W:", len(busy), "samples; SM MHz min/median", min(s for s, _ in busy), statistics.median(s for s, _ in busy))
PY
