#!/usr/bin/env python3
"""check_gpu_output.py FILE: the rewritten transpose.cu of gpu-search.test
holds the verified tiled kernel (Inputs/replies/faster.md) under a well-formed
annotation naming the model and round, and nothing of the rejected replies."""
import re
import sys

text = open(sys.argv[1]).read()
lines = text.splitlines()
k = next(i for i, l in enumerate(lines) if l.startswith("__global__ void transpose("))
l1, l2 = lines[k - 2], lines[k - 1]
assert re.match(r"^// cuda-l1: [0-9.]+x faster on .+ \(sm_[0-9a-z]+\): [0-9.]+ us -> [0-9.]+ us, "
                r"median of [0-9]+ \(95% CI [0-9.]+x-[0-9.]+x\)$", l1), l1
assert re.match(r"^// cuda-l1: applied llm-proposal \(proposed by test-model, round 1\); "
                r"verified within tolerance on [0-9]+ input sets$", l2), l2
assert float(re.search(r"([0-9.]+)x faster", l1).group(1)) >= 1.05, l1
assert "__shared__ float tile[TILE][TILE + 1];" in text
assert "out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];" in text
assert "= tile[threadIdx.y + j][threadIdx.x];" not in text  # wrong.md
assert "blockIdx.x < blockIdx.y" not in text                 # stale.md
assert text.count("// cuda-l1:") == 2, text
assert "transpose<<<grid, block, 0, s>>>(in, out, n);" in text  # launch kept
print("ok")
