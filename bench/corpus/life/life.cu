// life: Conway's Game of Life on an N x N torus (wrap-around edges),
// GENERATIONS steps (one kernel each, grids swapped on the host), and the
// number of live cells counted with atomics every 10 generations.
//
// Check: the final board and the counts, exactly, against the CPU.
#include "../common/bench_common.h"

#ifndef N
#define N 2048
#endif
#ifndef GENERATIONS
#define GENERATIONS 50
#endif
#define BLOCK_SIZE_X 32
#define BLOCK_SIZE_Y 8

__global__ void life_step_kernel(int *board, int *next, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n) {
    int neighbours = 0;
    for (int dy = -1; dy <= 1; dy++) {
      for (int dx = -1; dx <= 1; dx++) {
        if (dx == 0 && dy == 0)
          continue;
        int xx = (x + dx + n) % n;
        int yy = (y + dy + n) % n;
        neighbours += board[yy * n + xx];
      }
    }
    int alive = board[y * n + x];
    if (alive == 1 && (neighbours < 2 || neighbours > 3))
      next[y * n + x] = 0;
    else if (alive == 0 && neighbours == 3)
      next[y * n + x] = 1;
    else
      next[y * n + x] = alive;
  }
}

__global__ void count_alive_kernel(int *board, int *count, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n && board[y * n + x] == 1)
    atomicAdd(count, 1);
}

void life_cpu(int n, int generations, int *board, int *counts) {
  int *next = (int *)malloc(sizeof(int) * n * n);
  for (int g = 0; g < generations; g++) {
    for (int y = 0; y < n; y++)
      for (int x = 0; x < n; x++) {
        int nb = 0;
        for (int dy = -1; dy <= 1; dy++)
          for (int dx = -1; dx <= 1; dx++)
            if (dx || dy)
              nb += board[((y + dy + n) % n) * n + (x + dx + n) % n];
        int a = board[y * n + x];
        next[y * n + x] = (a && (nb == 2 || nb == 3)) || (!a && nb == 3);
      }
    int *t = board;
    board = next;
    next = t;
    if ((g + 1) % 10 == 0) {
      int c = 0;
      for (long i = 0; i < (long)n * n; i++)
        c += board[i];
      counts[g / 10] = c;
    }
  }
  // the result must end up in the caller's array
  if (generations % 2 == 1) {
    memcpy(next, board, sizeof(int) * n * n);
    free(board);
  } else {
    free(next);
  }
}

int main() {
  int n = N;
  int *board = (int *)malloc(sizeof(int) * n * n);
  int *ref = (int *)malloc(sizeof(int) * n * n);
  int counts[GENERATIONS / 10 + 1], ref_counts[GENERATIONS / 10 + 1];
  bench_srand(2);
  for (long i = 0; i < (long)n * n; i++)
    board[i] = (bench_rand_u32() % 100) < 30 ? 1 : 0;
  memcpy(ref, board, sizeof(int) * n * n);

  double t0 = wall_time();
  life_cpu(n, GENERATIONS, ref, ref_counts);
  print_cpu_time(wall_time() - t0);

  int *d_board, *d_next, *d_count;
  CUDA_CHECK(cudaMalloc(&d_board, sizeof(int) * n * n));
  CUDA_CHECK(cudaMalloc(&d_next, sizeof(int) * n * n));
  CUDA_CHECK(cudaMalloc(&d_count, sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_board, board, sizeof(int) * n * n, cudaMemcpyHostToDevice));

  dim3 block(BLOCK_SIZE_X, BLOCK_SIZE_Y);
  dim3 grid((size_t)ceil((float)n / BLOCK_SIZE_X), (size_t)ceil((float)n / BLOCK_SIZE_Y));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int g = 0; g < GENERATIONS; g++) {
    life_step_kernel<<<grid, block>>>(d_board, d_next, n);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
    int *tmp = d_board;
    d_board = d_next;
    d_next = tmp;
    if ((g + 1) % 10 == 0) {
      CUDA_CHECK(cudaMemset(d_count, 0, sizeof(int)));
      count_alive_kernel<<<grid, block>>>(d_board, d_count, n);
      CUDA_CHECK_KERNEL();
      CUDA_CHECK(cudaMemcpy(&counts[g / 10], d_count, sizeof(int), cudaMemcpyDeviceToHost));
      printf("generation %d: %d cells alive\n", g + 1, counts[g / 10]);
    }
  }
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);
  CUDA_CHECK(cudaMemcpy(board, d_board, sizeof(int) * n * n, cudaMemcpyDeviceToHost));

  long bad = check_equal("board", board, ref, (long)n * n);
  bad += check_equal("alive counts", counts, ref_counts, GENERATIONS / 10);

  cudaFree(d_board);
  cudaFree(d_next);
  cudaFree(d_count);
  free(board);
  free(ref);
  return finish(bad);
}
