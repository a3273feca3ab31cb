#!/bin/sh
# Compiles pow2-forms.cu with x / 2^k (as written) and with the shift/mask
# (-DSHIFT), and prints, per kernel, the instruction count of each and
# whether the code differs (needs cuobjdump: run on a machine with the CUDA
# toolkit's binary utilities).
set -e
d=$(mktemp -d)
here=$(dirname "$0")
nvcc -arch=sm_90 -O3 -cubin "$here/pow2-forms.cu" -o $d/div.cubin
nvcc -DSHIFT -arch=sm_90 -O3 -cubin "$here/pow2-forms.cu" -o $d/shift.cubin
for v in div shift; do
  cuobjdump -sass $d/$v.cubin | awk '/Function :/ {f=$3} /^ +\/\*[0-9a-f]{4}\*\// {sub(/^ +\/\*[0-9a-f]+\*\/ +/, ""); sub(/ *;.*/, ""); if ($0 != "NOP") print f "\t" $0}' > $d/$v.txt
done
for f in $(cut -f1 $d/div.txt | sort -u); do
  a=$(grep -c "^$f	" $d/div.txt); b=$(grep -c "^$f	" $d/shift.txt)
  if [ "$(grep "^$f	" $d/div.txt)" = "$(grep "^$f	" $d/shift.txt)" ]; then s=same; else s=DIFFERENT; fi
  printf '%-32s division %3d instructions, shift %3d: %s\n' "$f" "$a" "$b" "$s"
done
if [ -n "$OUT" ]; then cp $d/div.txt $OUT/pow2-div.sass.txt; cp $d/shift.txt $OUT/pow2-shift.sass.txt; fi
