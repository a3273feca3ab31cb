// Cheat: moves the data as half precision (half the bytes) - wrong beyond
// fp32 tolerance.
#include <cuda_fp16.h>
#define TILE 32
#define ROWS 8
__global__ void transpose(const float *in, float *out, int n) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < n && y + j < n)
      out[(size_t)x * n + (y + j)] =
          __half2float(__float2half(in[(size_t)(y + j) * n + x]));
}
