// Cheat (or bug): correct result, but one thread also writes one element
// past the end of the output.
#define TILE 32
#define ROWS 8
__global__ void transpose(const float *in, float *out, int n) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < n && y + j < n)
      out[(size_t)x * n + (y + j)] = in[(size_t)(y + j) * n + x];
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 &&
      threadIdx.y == 0)
    out[(size_t)n * n] = 0.0f;
}
