#!/bin/sh
# Per kernel of uniform-atomics.cu: the atomic and warp-level instructions in
# its SASS (needs cuobjdump), then the timings on the GPU.
set -e
d=$(mktemp -d)
here=$(dirname "$0")
nvcc -O3 -arch=sm_90 "$here/uniform-atomics.cu" -o $d/ua
cuobjdump -sass $d/ua | awk '/Function :/ {f=$3} /^ +\/\*[0-9a-f]{4}\*\// && /(ATOM|RED|POPC|VOTE|REDUX|SHFL|FLO|MATCH)/ {sub(/^ +\/\*[0-9a-f]+\*\/ +/, ""); sub(/ *;.*/, ""); print f "\t" $0}'
$d/ua
