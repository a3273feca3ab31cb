#!/bin/bash
# A/B on the GPU: each program as written (orig), rewritten by the tool at
# f2d4493 (old) and at 35b2bca (new), both with --fix --allow-unverified on
# the CPU; built with nvcc -O3 -arch=sm_90; run 5 times interleaved; the
# program's own "GPU time" line and check.
cd "$(dirname "$0")"
P="correlation covariance gemm gemm_chain gram_schmidt kmeans layernorm mlp_forward row_moments softmax syrk"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
for p in $P; do
  for v in orig old new; do
    nvcc -O3 -arch=sm_90 -Icommon -o $v/$p/bin $v/$p/$p.cu 2> $v/$p/build.log || echo "$p $v BUILD FAILED"
  done
done
for p in $P; do
  declare -A T
  for v in orig old new; do T[$v]=""; done
  for r in 1 2 3 4 5; do
    for v in orig old new; do
      out=$(./$v/$p/bin 2>&1)
      t=$(echo "$out" | sed -n 's/.*GPU time: \([0-9.]*\) ms.*/\1/p' | tail -1)
      c=$(echo "$out" | grep -E '^(PASS|FAIL)' | tail -1)
      T[$v]="${T[$v]} $t"; echo "$p $v run$r $t $c"
    done
  done
  med() { echo $1 | tr ' ' '\n' | grep . | sort -g | sed -n 3p; }
  o=$(med "${T[orig]}"); a=$(med "${T[old]}"); b=$(med "${T[new]}")
  echo "SUMMARY $p orig=$o old=$a new=$b old_speedup=$(python3 -c "print(round($o/$a,3))") new_speedup=$(python3 -c "print(round($o/$b,3))") new_vs_old=$(python3 -c "print(round($a/$b,3))")"
done
