// Naive transpose: reads coalesced, writes strided (one 32-float row of a
// tile per warp lands in 32 different rows of the output).
#define TILE 32
#define ROWS 8
__global__ void transpose(const float *in, float *out, int n) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < n && y + j < n)
      out[(size_t)x * n + (y + j)] = in[(size_t)(y + j) * n + x];
}
