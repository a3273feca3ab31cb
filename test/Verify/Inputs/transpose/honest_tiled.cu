// Honest: shared-memory tile (padded against bank conflicts); reads and writes
// coalesced; same bits.
#define TILE 32
#define ROWS 8
__global__ void transpose(const float *in, float *out, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < n && y + j < n)
      tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < n && y + j < n)
      out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
