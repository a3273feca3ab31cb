// Cheat: uses the (const) input as scratch space and leaves it changed.
#define TILE 32
#define ROWS 8
__global__ void transpose(const float *in, float *out, int n) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < n && y + j < n) {
      float v = in[(size_t)(y + j) * n + x];
      out[(size_t)x * n + (y + j)] = v;
      const_cast<float *>(in)[(size_t)(y + j) * n + x] = 0.0f;
    }
}
