// Launches inside loops (a timing loop, a time-stepping loop with ping-pong
// buffers) take the values of their first run; an enum and a typedef'd
// element type are passed as their underlying types.
#include <cuda_runtime.h>
#include <utility>

typedef float real_t;
enum class Op { Add = 1, Max = 2 };

#define LEN 4096
#define TPB 128
#define REPEAT 10

__global__ void combine(real_t *acc, const real_t *v, int shift, Op op,
                        int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < len) {
    real_t x = v[(i + shift) % len];
    acc[i] = op == Op::Add ? acc[i] + x : (acc[i] > x ? acc[i] : x);
  }
}

__global__ void relax(real_t *next, const real_t *cur, real_t w, int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < len - 1)
    next[i] = (1 - w) * cur[i] + w * 0.5f * (cur[i - 1] + cur[i + 1]);
}

int main() {
  real_t *acc, *v, *a, *b;
  cudaMalloc(&acc, LEN * sizeof(real_t));
  cudaMalloc(&v, LEN * sizeof(real_t));
  cudaMalloc(&a, LEN * sizeof(real_t));
  cudaMalloc(&b, LEN * sizeof(real_t));
  const Op op = Op::Max;
  // The counter is an argument: its middle iteration's value.
  for (int r = 0; r < REPEAT; r++)
    combine<<<LEN / TPB, TPB>>>(acc, v, r % 32, op, LEN);
  // Buffers swapped and the weight changed after each launch: the first
  // run's.
  real_t w = 0.8f;
  int steps = 0;
  while (steps < 100) {
    relax<<<(LEN + TPB - 1) / TPB, TPB>>>(b, a, w, LEN);
    std::swap(a, b);
    w *= 0.9f;
    steps++;
  }
  cudaDeviceSynchronize();
  return 0;
}
