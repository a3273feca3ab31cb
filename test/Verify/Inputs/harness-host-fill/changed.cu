// Fills the launch does not start from: a vector changed before its copy,
// a memset of half the table, a vector of two values, a fill in a loop
// after the first copy. The harness keeps its default values.
#include "kernels.cuh"

int main() {
  int *d_key, *d_locks, *d_keys, *d_table, *d_flags, *d_winner;
  float *d_sum;
  std::vector<int> h_key(N, 3);
  std::vector<int> h_locks(256, 0);
  h_locks[3] = 1;
  std::vector<int> h_flags(16, 0);
  cudaMalloc(&d_key, N * sizeof(int));
  cudaMalloc(&d_sum, 256 * sizeof(float));
  cudaMalloc(&d_locks, 256 * sizeof(int));
  cudaMalloc(&d_keys, N * sizeof(int));
  cudaMalloc(&d_table, 8192 * sizeof(int));
  cudaMalloc(&d_flags, 16 * sizeof(int));
  cudaMalloc(&d_winner, 16 * sizeof(int));
  cudaMemcpy(d_key, h_key.data(), N * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_keys, h_key.data(), N * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_locks, h_locks.data(), 256 * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_table, 0xff, 4096 * sizeof(int));
  for (int r = 0; r < 2; ++r) {
    cudaMemcpy(d_flags, h_flags.data(), 16 * sizeof(int), cudaMemcpyHostToDevice);
    h_flags[r] = 1;
    claim<<<N / 256, 256>>>(d_flags, d_winner, N);
  }
  add_locked<<<N / 256, 256>>>(d_key, d_sum, d_locks, N);
  insert<<<N / 256, 256>>>(d_keys, d_table, N, 8192);
  return 0;
}
