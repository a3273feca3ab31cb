// kmeans: Lloyd's k-means on NPOINTS points of DIM integer coordinates
// (0..31, stored point by point), K clusters, ITERATIONS rounds of three
// kernels: assignment (one thread per point, all centroids), accumulation of
// the cluster sums and counts with atomics, and the centroid update.
//
// Check: against the same rounds on the CPU (float distances). Sums of
// integer coordinates are exact in float in any order, but a point almost
// equidistant from two centroids may be assigned differently when the GPU
// fuses multiply-adds; so at most 0.1% of the memberships may differ and
// centroids must agree within atol 0.05.
#include "../common/bench_common.h"

#ifndef NPOINTS
#define NPOINTS (128 * 1024)
#endif
#ifndef K
#define K 32
#endif
#ifndef DIM
#define DIM 16
#endif
#ifndef ITERATIONS
#define ITERATIONS 10
#endif

__global__ void assign_kernel(float *points, float *centroids, int *membership, int npoints,
                              int k, int dim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < npoints) {
    int best = 0;
    float best_dist = 1e30;
    for (int c = 0; c < k; c++) {
      float dist = 0.0;
      for (int f = 0; f < dim; f++) {
        float diff = points[i * dim + f] - centroids[c * dim + f];
        dist += diff * diff;
      }
      if (dist < best_dist) {
        best_dist = dist;
        best = c;
      }
    }
    membership[i] = best;
  }
}

__global__ void accumulate_kernel(float *points, int *membership, float *sums, int *counts,
                                  int npoints, int dim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < npoints) {
    int c = membership[i];
    atomicAdd(&counts[c], 1);
    for (int f = 0; f < dim; f++)
      atomicAdd(&sums[c * dim + f], points[i * dim + f]);
  }
}

__global__ void update_kernel(float *centroids, float *sums, int *counts, int k, int dim) {
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  if (c < k && f < dim && counts[c] > 0)
    centroids[c * dim + f] = sums[c * dim + f] / counts[c];
}

void kmeans_cpu(int npoints, int k, int dim, int iterations, const float *points,
                float *centroids, int *membership) {
  float *sums = (float *)malloc(sizeof(float) * k * dim);
  int *counts = (int *)malloc(sizeof(int) * k);
  for (int it = 0; it < iterations; it++) {
    for (int i = 0; i < npoints; i++) {
      int best = 0;
      float best_dist = 1e30f;
      for (int c = 0; c < k; c++) {
        float dist = 0;
        for (int f = 0; f < dim; f++) {
          float diff = points[(long)i * dim + f] - centroids[c * dim + f];
          dist += diff * diff;
        }
        if (dist < best_dist) {
          best_dist = dist;
          best = c;
        }
      }
      membership[i] = best;
    }
    memset(sums, 0, sizeof(float) * k * dim);
    memset(counts, 0, sizeof(int) * k);
    for (int i = 0; i < npoints; i++) {
      counts[membership[i]]++;
      for (int f = 0; f < dim; f++)
        sums[membership[i] * dim + f] += points[(long)i * dim + f];
    }
    for (int c = 0; c < k; c++)
      if (counts[c] > 0)
        for (int f = 0; f < dim; f++)
          centroids[c * dim + f] = sums[c * dim + f] / counts[c];
  }
  free(sums);
  free(counts);
}

int main() {
  int npoints = NPOINTS, k = K, dim = DIM;
  float *points = (float *)malloc(sizeof(float) * npoints * dim);
  float *centroids = (float *)malloc(sizeof(float) * k * dim);
  float *centroids_ref = (float *)malloc(sizeof(float) * k * dim);
  int *membership = (int *)malloc(sizeof(int) * npoints);
  int *membership_ref = (int *)malloc(sizeof(int) * npoints);
  // clustered data: points around K hidden centres
  bench_srand(35);
  int centres[K][DIM];
  for (int c = 0; c < k; c++)
    for (int f = 0; f < dim; f++)
      centres[c][f] = 4 + bench_rand_u32() % 24;
  for (int i = 0; i < npoints; i++) {
    int c = bench_rand_u32() % k;
    for (int f = 0; f < dim; f++) {
      int v = centres[c][f] + (int)(bench_rand_u32() % 9) - 4;
      points[(long)i * dim + f] = (float)(v < 0 ? 0 : (v > 31 ? 31 : v));
    }
  }
  // initial centroids: the first K points
  for (int c = 0; c < k; c++)
    for (int f = 0; f < dim; f++)
      centroids[c * dim + f] = centroids_ref[c * dim + f] = points[(long)c * dim + f];

  double t0 = wall_time();
  kmeans_cpu(npoints, k, dim, ITERATIONS, points, centroids_ref, membership_ref);
  print_cpu_time(wall_time() - t0);

  float *d_points, *d_centroids, *d_sums;
  int *d_membership, *d_counts;
  CUDA_CHECK(cudaMalloc(&d_points, sizeof(float) * npoints * dim));
  CUDA_CHECK(cudaMalloc(&d_centroids, sizeof(float) * k * dim));
  CUDA_CHECK(cudaMalloc(&d_sums, sizeof(float) * k * dim));
  CUDA_CHECK(cudaMalloc(&d_membership, sizeof(int) * npoints));
  CUDA_CHECK(cudaMalloc(&d_counts, sizeof(int) * k));
  CUDA_CHECK(cudaMemcpy(d_points, points, sizeof(float) * npoints * dim, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_centroids, centroids, sizeof(float) * k * dim, cudaMemcpyHostToDevice));

  dim3 block(256);
  dim3 grid((size_t)ceil(((float)npoints) / ((float)block.x)));
  dim3 block2(16, 16);
  dim3 grid2((size_t)ceil(((float)dim) / ((float)block2.x)), (size_t)ceil(((float)k) / ((float)block2.y)));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int it = 0; it < ITERATIONS; it++) {
    assign_kernel<<<grid, block>>>(d_points, d_centroids, d_membership, npoints, k, dim);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemset(d_sums, 0, sizeof(float) * k * dim));
    CUDA_CHECK(cudaMemset(d_counts, 0, sizeof(int) * k));
    accumulate_kernel<<<grid, block>>>(d_points, d_membership, d_sums, d_counts, npoints, dim);
    CUDA_CHECK(cudaDeviceSynchronize());
    update_kernel<<<grid2, block2>>>(d_centroids, d_sums, d_counts, k, dim);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);
  CUDA_CHECK(cudaMemcpy(centroids, d_centroids, sizeof(float) * k * dim, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(membership, d_membership, sizeof(int) * npoints, cudaMemcpyDeviceToHost));

  long differ = 0;
  for (int i = 0; i < npoints; i++)
    if (membership[i] != membership_ref[i])
      differ++;
  printf("check membership: %ld of %d points assigned differently (at most %d allowed)\n", differ,
         npoints, npoints / 1000);
  long bad = differ > npoints / 1000 ? differ : 0;
  bad += check_close("centroids", centroids, centroids_ref, (long)k * dim, 0.0, 0.05);

  cudaFree(d_points); cudaFree(d_centroids); cudaFree(d_sums); cudaFree(d_membership); cudaFree(d_counts);
  free(points); free(centroids); free(centroids_ref); free(membership); free(membership_ref);
  return finish(bad);
}
