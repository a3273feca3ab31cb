#!/usr/bin/env python3
"""Writes docs/rules/<id>.md for the built-in analysis rules (lib/Analysis).

The text lives here, next to nothing else, so every page has the same four
sections. test/Analysis/rule-docs.test checks that every rule the tool lists
(built-in, C++ transformations, YAML) has a page with those sections.
Usage: utils/gen-analysis-rule-docs.py [docs/rules]
"""
import os
import sys

RULES = [
 ("coalescing-uncoalesced-access",
  "A global load or store whose address moves by a whole row (a symbolic stride such as `N` elements) from one thread to the next along `threadIdx.x`: the thread index is in the slow dimension.",
  "A warp's memory request is served in 32-byte sectors. When 32 consecutive threads read 32 consecutive floats the request touches 4 sectors. When each thread reads a different row, each lane touches its own sector: 32 sectors for 4 sectors' worth of useful data, 8x the DRAM/L2 traffic for 4-byte elements (4x for 8-byte). The analysis computes the sector count from the symbolic address (and from the block shape at the launch sites when it is constant), the static counterpart of Nsight Compute's UncoalescedGlobalAccess.",
  """__global__ void matvec(const float *A, const float *x, float *y, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (int k = 0; k < N; ++k)
    sum += A[row * N + k] * x[k];   // warning: consecutive threads are 'N' elements apart
  y[row] = sum;
}""",
  "Make `threadIdx.x` move along the contiguous dimension: one warp per row with lanes striding the row (`A[row * N + k]` with `k = lane, lane + 32, ...`) and a shuffle reduction; or store the matrix transposed; or stage a tile through shared memory with coalesced loads. The finding's note shows the index as an expression of `threadIdx`/`blockIdx`; the sector count holds when the stride spans at least 32 bytes."),
 ("coalescing-strided-access",
  "A global access whose consecutive threads are a constant stride apart: array-of-structures fields (`p[i].x` with a 12-byte struct), `a[2 * i]`, interleaved data.",
  "With a stride of S elements a warp touches up to S times the sectors it needs and the other bytes are fetched and thrown away. A 3-float struct read one field at a time costs 3x the traffic per field.",
  """struct P { float x, y, z; };
__global__ void scale(P *p, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i].x *= s;           // warning: 3 elements apart, 12 sectors instead of 4
}""",
  "Use a structure of arrays (`float *x, *y, *z`), or load whole structs with vector types (`float4`) and use all fields, or stage through shared memory. When the kernel's accesses with the same base and stride together read every byte of the stride (all fields of a struct, or all iterations of a small constant-trip loop such as `in[t * 8 + j]` for `j < 8`), the sectors are shared through L1 and nothing is reported; when they read part of it, one finding per group gives the fraction of bytes used. Option `MinFactor` (default 2): only report when the traffic is at least this factor above ideal."),
 ("memory-shared-bank-conflict",
  "A shared-memory access whose threads hit different words of the same bank: a column of a `[32][32]` tile, even strides.",
  "Shared memory has 32 banks of 4 bytes. Threads of a warp that access distinct words in the same bank are serialized into separate wavefronts: reading a column of `float tile[32][32]` takes 32 wavefronts instead of 1.",
  """__shared__ float tile[32][32];
...
out[i] = tile[threadIdx.x][threadIdx.y];   // warning: 32-way bank conflict""",
  "Pad the row (`float tile[32][33]`) so consecutive rows start in different banks, or swap the indices so `threadIdx.x` selects the column. Option `MinWays` (default 2)."),
 ("memory-global-accumulation",
  "`out[i] += ...` (or `out[i] = out[i] + ...`) inside a loop whose iterations all use the same element.",
  "Each iteration loads and stores the element in global memory; because the store may alias the loop's other loads (no `__restrict__`), the compiler cannot keep it in a register. That is 2 global accesses per iteration where 0 are needed.",
  """for (int k = 0; k < N; ++k)
  y[row] += A[k * N + row] * x[k];    // warning: read-modify-write on each of N iterations""",
  "Accumulate in a local variable and store once after the loop: `float acc = y[row]; for (...) acc += ...; y[row] = acc;`. Not reported when every pointer parameter is `__restrict__` (the compiler can then promote it itself)."),
 ("memory-invariant-load",
  "A global load whose address does not change in a loop that also stores to global memory.",
  "The compiler may hoist a loop-invariant load only when nothing in the loop can write that memory. A store through another pointer that may alias (no `__restrict__`) forces a reload every iteration.",
  """for (int j = threadIdx.x; j < cols; j += blockDim.x)
  y[row * cols + j] = (x[row * cols + j] - mean[row]) * inv;   // warning: 'mean[row]' re-read every iteration""",
  "Load the value into a register before the loop (`const float m = mean[row];`), or declare the pointers `const float *__restrict__` when they never overlap."),
 ("memory-atomic-contention",
  "A global atomic whose address is the same for every thread of a warp (`atomicAdd(sum, v)`), executed by all lanes.",
  "Atomics to one address are serialized in the L2 atomic unit: a warp issuing 32 of them waits for 32 round trips, and the whole grid contends on one cache line.",
  """if (i < n) atomicAdd(sum, in[i]);   // warning: 32 atomics per warp on one address""",
  "Reduce within the warp first (`__shfl_down_sync`, `cooperative_groups::reduce`), then within the block through shared memory, and issue one atomic per warp or per block. Atomics already guarded to one lane (`if (lane == 0)`) are not reported."),
 ("memory-global-atomic-histogram",
  "Global atomics at data-dependent addresses (`atomicAdd(&hist[data[i]], 1)`).",
  "Every update is an L2 atomic; with skewed data many threads hit the same bins and serialize.",
  """atomicAdd(&hist[data[i]], 1u);   // warning: data-dependent global atomic""",
  "Privatize: a `__shared__` histogram per block (shared-memory atomics are much cheaper), then one global atomic per bin per block."),
 ("memory-const-restrict",
  "A kernel that writes global memory and also reads pointer parameters that it never writes, where those parameters are not `const T *__restrict__`, and where aliasing costs something (the read shares a loop with a store, or follows a store).",
  "Without `__restrict__` the compiler must assume that stores through one pointer can change what another points to: it reloads values after stores, cannot reorder loads across stores, and does not use the read-only (non-coherent) data path for the inputs.",
  """__global__ void k(const float *a, const float *x, float *y, int n);   // warning: 'a', 'x' only read""",
  "Declare read-only inputs `const T *__restrict__` (and outputs `T *__restrict__`) when the buffers never overlap. Notes show, per launch site, whether the arguments are distinct pointer variables (evidence, not proof: `__restrict__` is only correct when the allocations are distinct)."),
 ("unrolling-constant-trip-count",
  "An innermost loop with a small compile-time trip count (2..`MaxTripCount`, default 32), no `#pragma unroll`, that indexes a local array with its induction variable (a register tile such as `float acc[4]`).",
  "Registers cannot be indexed at run time: a local array is kept in registers only when every index is a compile-time constant, which needs the loop fully unrolled. nvcc unrolls small loops heuristically; when it does not, the array goes to local memory (off-chip, cached in L1), each access becomes a load or store, and the register tile's benefit is lost. Loops without such an array are not reported: there nvcc's own unrolling decides only a few instructions.",
  """float acc[4] = {0, 0, 0, 0};
for (int t = 0; t < 8; ++t)
  for (int k = 0; k < 4; ++k)       // warning: indexes 'acc' with 'k'
    acc[k] += h[t] * x[i + k * stride + t];""",
  "Add `#pragma unroll` before the loop (and before the loops that read the array). Option `MaxTripCount` (default 32)."),
 ("launch-partial-warp",
  "A launch whose constant block size is not a multiple of 32.",
  "Threads run in warps of 32; the last warp of every block is partly empty and its idle lanes still occupy issue slots and registers.",
  """kernel<<<blocks, 100>>>(...);   // warning: 28 of 128 lanes wasted""",
  "Use a multiple of 32 (128, 256) and guard the tail with an index check."),
 ("launch-small-grid",
  "A launch whose constant grid has fewer blocks than the GPU has SMs (option `NumSMs`, default 132 for H100/H200 SXM).",
  "A block runs on one SM; the other SMs stay idle for the whole kernel.",
  """reduce<<<1, 256>>>(in, out, n);   // warning: 1 of 132 SMs busy""",
  "Launch at least one block per SM (better several) with a grid-stride loop, or split the work (e.g. a two-pass reduction). Not reported when every integer-literal argument of the launch (the problem size, e.g. `kernel<<<1, 256>>>(p, 256)`) is covered by the threads launched."),
 ("launch-small-block",
  "A launch with fewer than `MinThreads` (default 64) threads per block.",
  "An SM holds at most 32 resident blocks (sm_80 to sm_90); with 32-thread blocks it holds 1024 of its 2048 threads, so occupancy is capped at 50% and latency is poorly hidden.",
  """kernel<<<n / 32, 32>>>(...);   // warning: occupancy at most 50%""",
  "Use 128 to 256 threads per block."),
 ("algebraic-double-literal",
  "A double literal (`0.5`, `1e-5`) combined with float data in device code, which turns the operation into double precision.",
  "The float operand is converted to double, the operation runs in FP64 and the result is converted back: two conversions plus FP64 arithmetic, which runs at 1/2 the FP32 rate on H100/H200 and 1/64 on most GeForce parts.",
  """out[i] = 0.5 * in[i];    // warning: write '0.5f'""",
  "Write float literals (`0.5f`). The rewrite engine's `algebraic-float-literal` rule can apply this (results may change in the last bits)."),
 ("algebraic-double-math",
  "A call of the double version of a math function (`sqrt`, `exp`, `pow`, ...) whose argument is float data converted to double.",
  "The FP64 routine is several times more expensive than the float one and runs at the FP64 rate.",
  """y = sqrt(var + 1e-5);   // warning: 'sqrt' on float data""",
  "Call the float function (`sqrtf`, `expf`) or make the argument float so the float overload is chosen."),
 ("algebraic-pow-small-exponent",
  "`pow`/`powf` with a constant exponent of 1, 2, 3, 4, -1, 0.5 or -0.5.",
  "`powf(x, y)` computes `exp2(y * log2(x))` with special-case handling, about 20 instructions (more for double `pow`).",
  """float r2 = powf(d, 2.0f);   // warning: use d * d""",
  "Multiply (`x * x`, `x * x * x`), or use `sqrtf`/`rsqrtf`/`1.0f / x`. The YAML rules `algebraic-powf-*` rewrite these."),
 ("algebraic-division-invariant",
  "A division or modulo inside a loop whose divisor does not change in the loop while the dividend does.",
  "GPUs have no divide instruction: 32-bit integer division by a run-time value is about 20 instructions; float division about 8 plus a slow-path check.",
  """for (int j = threadIdx.x; j < cols; j += blockDim.x)
  a[r * cols + j] = a[r * cols + j] / d;   // warning: 'd' is loop-invariant""",
  "Float: compute `inv = 1.0f / d` once and multiply (may differ by 1 ulp). Integer: step a second counter instead of dividing, or use power-of-two sizes."),
 ("algebraic-signed-pow2-division",
  "Signed integer division or modulo by a power of two inside a loop, with a dividend that changes in the loop.",
  "For signed values `x / 2^k` must round toward zero, so unless the compiler proves `x >= 0` it emits a shift plus a sign fix-up (3-4 instructions instead of 1).",
  """int q = j / 64;   // warning: signed division by 64""",
  "Use an unsigned type for indices that are never negative, or `>>`/`&` directly."),
 ("sync-divergent-reduction",
  "A tree reduction that picks the active threads with `tid % (2*s) == 0` (or `tid & (2*s-1)`) inside the reduction loop.",
  "Every warp stays resident while only some of its lanes work (half in the first step, 1 in 32 from the sixth), and the modulo by a run-time value costs about 20 instructions per step.",
  """for (unsigned s = 1; s < blockDim.x; s *= 2) {
  if (tid % (2 * s) == 0)           // warning: divergent interleaved reduction
    sdata[tid] += sdata[tid + s];
  __syncthreads();
}""",
  "Sequential addressing: `for (s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sdata[tid] += sdata[tid + s]; __syncthreads(); }`, and warp shuffles (`__shfl_down_sync`) for the last 32 elements."),
]

def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "docs", "rules")
    os.makedirs(out, exist_ok=True)
    for rid, what, why, example, fix in RULES:
        cat = rid.split("-")[0]
        with open(os.path.join(out, rid + ".md"), "w") as f:
            f.write(f"# {rid}\n\n")
            f.write(f"Category: `{cat}` · Exactness: none (finding only) · "
                    "built-in analysis check (lib/Analysis)\n\n")
            f.write(f"## What it detects\n\n{what}\n\n")
            f.write(f"## Why it is slow\n\n{why}\n\n")
            f.write(f"## Example\n\n```cuda\n{example}\n```\n\n")
            f.write(f"## The fix\n\n{fix}\n\n")
            f.write("Suppress with `// NOLINT(" + rid + ")`; see "
                    "[docs/advise.md](../advise.md).\n")
    print(f"wrote {len(RULES)} pages to {out}")

if __name__ == "__main__":
    main()
