// floyd_warshall: all-pairs shortest paths of a random directed graph with
// N vertices (integer weights), Floyd-Warshall: one kernel launch per
// intermediate vertex k over the whole N x N distance matrix.
//
// Check: the distance matrix, exactly, against the CPU.
#include "../common/bench_common.h"

#ifndef N
#define N 1024
#endif
#define EDGES_PER_VERTEX 8
#define INF 100000000

__global__ void floyd_warshall_kernel(int *dist, int k, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    if (dist[i * n + k] + dist[k * n + j] < dist[i * n + j])
      dist[i * n + j] = dist[i * n + k] + dist[k * n + j];
  }
}

void run_floyd_warshall(int n, int *dist) {
  int *d_dist;
  CUDA_CHECK(cudaMalloc((void **)&d_dist, sizeof(int) * n * n));
  CUDA_CHECK(cudaMemcpy(d_dist, dist, sizeof(int) * n * n, cudaMemcpyHostToDevice));
  dim3 block(32, 8);
  dim3 grid((size_t)ceil(((float)n) / ((float)block.x)), (size_t)ceil(((float)n) / ((float)block.y)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int k = 0; k < n; k++) {
    floyd_warshall_kernel<<<grid, block>>>(d_dist, k, n);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);
  CUDA_CHECK(cudaMemcpy(dist, d_dist, sizeof(int) * n * n, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_dist));
}

int main() {
  int n = N;
  int *dist = (int *)malloc(sizeof(int) * n * n);
  int *ref = (int *)malloc(sizeof(int) * n * n);
  for (long x = 0; x < (long)n * n; x++)
    dist[x] = INF;
  bench_srand(36);
  for (int i = 0; i < n; i++) {
    dist[i * n + i] = 0;
    for (int e = 0; e < EDGES_PER_VERTEX; e++) {
      int j = bench_rand_u32() % n;
      int w = 1 + bench_rand_u32() % 100;
      if (j != i && w < dist[i * n + j])
        dist[i * n + j] = w;
    }
  }
  memcpy(ref, dist, sizeof(int) * n * n);

  double t0 = wall_time();
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++) {
      int dik = ref[i * n + k];
      for (int j = 0; j < n; j++) {
        int through = dik + ref[k * n + j];
        if (through < ref[i * n + j])
          ref[i * n + j] = through;
      }
    }
  print_cpu_time(wall_time() - t0);

  run_floyd_warshall(n, dist);

  long unreachable = 0;
  for (long x = 0; x < (long)n * n; x++)
    if (ref[x] >= INF)
      unreachable++;
  printf("%ld of %ld pairs unreachable\n", unreachable, (long)n * n);
  long bad = check_equal("distances", dist, ref, (long)n * n);
  free(dist);
  free(ref);
  return finish(bad);
}
