// session-24 experiment: ILP coarsening and grid remapping on the corpus's
// latency-bound kernels (H200). Times each variant with events, 20 reps.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s\n", cudaGetErrorString(e)); return 1; } } while (0)

// ---- jacobi (n = 4096): original and coarsened in y (block (32, 8/R), R rows per thread)
__global__ void jac(int n, const float *__restrict__ A, float *__restrict__ B) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if ((i >= 1) && (i < (n - 1)) && (j >= 1) && (j < (n - 1)))
    B[i * n + j] = 0.2 * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (1 + j)] + A[(1 + i) * n + j] + A[(i - 1) * n + j]);
}
template <int R, bool Inter>
__global__ void jacR(int n, const float *__restrict__ A, float *__restrict__ B) {
#pragma unroll
  for (int r = 0; r < R; r++) {
    int ty = Inter ? threadIdx.y * R + r : threadIdx.y + r * blockDim.y;
    int i = blockIdx.y * (blockDim.y * R) + ty;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i >= 1) && (i < (n - 1)) && (j >= 1) && (j < (n - 1)))
      B[i * n + j] = 0.2 * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (1 + j)] + A[(1 + i) * n + j] + A[(i - 1) * n + j]);
  }
}
// ---- fdtd hz after the swap (block (8, 32)) and remapped (block (32, 8), grid swapped)
__global__ void hz_swap(const float *__restrict__ ex, const float *__restrict__ ey, float *__restrict__ hz, int nx, int ny) {
  int i = blockIdx.x * blockDim.y + threadIdx.y;
  int j = blockIdx.y * blockDim.x + threadIdx.x;
  if ((i < (nx - 1)) && (j < (ny - 1)))
    hz[i * ny + j] = hz[i * ny + j] - 0.7 * (ex[i * ny + (j + 1)] - ex[i * ny + j] + ey[(i + 1) * ny + j] - ey[i * ny + j]);
}
__global__ void hz_remap(const float *__restrict__ ex, const float *__restrict__ ey, float *__restrict__ hz, int nx, int ny) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if ((i < (nx - 1)) && (j < (ny - 1)))
    hz[i * ny + j] = hz[i * ny + j] - 0.7 * (ex[i * ny + (j + 1)] - ex[i * ny + j] + ey[(i + 1) * ny + j] - ey[i * ny + j]);
}
// ---- transpose (4096 x 6144): the tool's 32x8 tile, and a 32x32 tile with 4 rows per thread
__global__ void tr8(const float *__restrict__ in, float *__restrict__ out, int rows, int cols) {
  __shared__ float tile[8][32 + 4];
  { int col = blockIdx.x * blockDim.x + threadIdx.x; int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) tile[threadIdx.y][threadIdx.x] = in[row * cols + col]; }
  __syncthreads();
  { const unsigned l = threadIdx.y * 32 + threadIdx.x; int col = blockIdx.x * blockDim.x + (l / 8); int row = blockIdx.y * blockDim.y + (l % 8);
    if (row < rows && col < cols) out[col * rows + row] = tile[(l % 8)][(l / 8)]; }
}
__global__ void tr32(const float *__restrict__ in, float *__restrict__ out, int rows, int cols) {
  __shared__ float tile[32][33];
  int col = blockIdx.x * 32 + threadIdx.x;
#pragma unroll
  for (int r = 0; r < 4; r++) { int row = blockIdx.y * 32 + threadIdx.y + r * 8;
    if (row < rows && col < cols) tile[threadIdx.y + r * 8][threadIdx.x] = in[row * cols + col]; }
  __syncthreads();
  int orow = blockIdx.y * 32 + threadIdx.x;
#pragma unroll
  for (int r = 0; r < 4; r++) { int ocol = blockIdx.x * 32 + threadIdx.y + r * 8;
    if (orow < rows && ocol < cols) out[ocol * rows + orow] = tile[threadIdx.x][threadIdx.y + r * 8]; }
}
// ---- life (n = 2048), after wrap-modulo: original and coarsened
__device__ __forceinline__ int wrap(int v, int n) { return v < 0 ? v + n : (v >= n ? v - n : v); }
__global__ void life(const int *__restrict__ board, int *__restrict__ next, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x; int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n) { int nb = 0;
    for (int dy = -1; dy <= 1; dy++) for (int dx = -1; dx <= 1; dx++) { if (dx == 0 && dy == 0) continue;
      nb += board[wrap(y + dy, n) * n + wrap(x + dx, n)]; }
    int a = board[y * n + x];
    next[y * n + x] = (a == 1 && (nb < 2 || nb > 3)) ? 0 : (a == 0 && nb == 3) ? 1 : a; }
}
template <int R>
__global__ void lifeR(const int *__restrict__ board, int *__restrict__ next, int n) {
#pragma unroll
  for (int r = 0; r < R; r++) {
  int x = blockIdx.x * blockDim.x + threadIdx.x; int y = blockIdx.y * (blockDim.y * R) + threadIdx.y * R + r;
  if (x < n && y < n) { int nb = 0;
#pragma unroll
    for (int dy = -1; dy <= 1; dy++)
#pragma unroll
      for (int dx = -1; dx <= 1; dx++) { if (dx == 0 && dy == 0) continue;
      nb += board[wrap(y + dy, n) * n + wrap(x + dx, n)]; }
    int a = board[y * n + x];
    next[y * n + x] = (a == 1 && (nb < 2 || nb > 3)) ? 0 : (a == 0 && nb == 3) ? 1 : a; }
  }
}

template <typename F> float timeit(F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int w = 0; w < 3; w++) f();
  cudaEventRecord(a); for (int k = 0; k < 20; k++) f(); cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b); return ms / 20 * 1000;  // us per launch
}
int main() {
  float *A, *B, *C; int n = 4096;
  CK(cudaMalloc(&A, 4ull * 4096 * 6144)); CK(cudaMalloc(&B, 4ull * 4096 * 6144)); CK(cudaMalloc(&C, 4ull * 4096 * 6144));
  cudaMemset(A, 0, 4ull * 4096 * 6144); cudaMemset(B, 0, 4ull * 4096 * 6144); cudaMemset(C, 0, 4ull * 4096 * 6144);
  dim3 g(n / 32, n / 8);
  float t0 = timeit([&] { jac<<<g, dim3(32, 8)>>>(n, A, B); });
  float t1 = timeit([&] { jacR<2, true><<<dim3(n / 32, n / 16), dim3(32, 8)>>>(n, A, B); });
  float t2 = timeit([&] { jacR<4, true><<<dim3(n / 32, n / 32), dim3(32, 8)>>>(n, A, B); });
  float t3 = timeit([&] { jacR<2, false><<<g, dim3(32, 4)>>>(n, A, B); });
  float t4 = timeit([&] { jacR<4, false><<<g, dim3(32, 2)>>>(n, A, B); });
  printf("jacobi n=4096: orig %.1f us; R2 inter grid/2 %.1f (%.2fx); R4 inter grid/4 %.1f (%.2fx); R2 block(32,4) %.1f (%.2fx); R4 block(32,2) %.1f (%.2fx)\n", t0, t1, t0 / t1, t2, t0 / t2, t3, t0 / t3, t4, t0 / t4);
  int nx = 2048, ny = 2048;
  float h0 = timeit([&] { hz_swap<<<dim3(nx / 32, ny / 8), dim3(8, 32)>>>(A, B, C, nx, ny); });
  float h1 = timeit([&] { hz_remap<<<dim3(ny / 32, nx / 8), dim3(32, 8)>>>(A, B, C, nx, ny); });
  printf("fdtd hz 2048^2: swapped (8,32) %.1f us; remapped (32,8) %.1f (%.2fx)\n", h0, h1, h0 / h1);
  int rows = 4096, cols = 6144;
  float r0 = timeit([&] { tr8<<<dim3(cols / 32, rows / 8), dim3(32, 8)>>>(A, B, rows, cols); });
  float r1 = timeit([&] { tr32<<<dim3(cols / 32, rows / 32), dim3(32, 8)>>>(A, B, rows, cols); });
  printf("transpose 4096x6144: 32x8 tile %.1f us; 32x32 tile %.1f (%.2fx)\n", r0, r1, r0 / r1);
  int ln = 2048; int *bd = (int *)A, *nx2 = (int *)B;
  float l0 = timeit([&] { life<<<dim3(ln / 32, ln / 8), dim3(32, 8)>>>(bd, nx2, ln); });
  float l1 = timeit([&] { lifeR<2><<<dim3(ln / 32, ln / 16), dim3(32, 8)>>>(bd, nx2, ln); });
  float l2 = timeit([&] { lifeR<4><<<dim3(ln / 32, ln / 32), dim3(32, 8)>>>(bd, nx2, ln); });
  printf("life 2048: orig %.1f us; R2 %.1f (%.2fx); R4 %.1f (%.2fx)\n", l0, l1, l0 / l1, l2, l0 / l2);
  CK(cudaDeviceSynchronize());
  return 0;
}
