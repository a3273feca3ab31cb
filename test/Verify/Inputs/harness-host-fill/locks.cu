// Lock, slot and flag arrays the host fills with one value before the
// launch: the harness takes that value; the accumulator keeps random ones.
#include "kernels.cuh"

int main() {
  int *d_key, *d_locks, *d_keys, *d_table, *d_flags, *d_winner;
  float *d_sum, *d_x, *d_acc;
  std::vector<int> h_key(N);
  for (int i = 0; i < N; ++i) h_key[i] = i * 7;
  std::vector<int> h_locks(256, 0);
  int h_flags[16] = {0};
  cudaMalloc(&d_key, N * sizeof(int));
  cudaMalloc(&d_sum, 256 * sizeof(float));
  cudaMalloc(&d_locks, 256 * sizeof(int));
  cudaMalloc(&d_keys, N * sizeof(int));
  cudaMalloc(&d_table, 8192 * sizeof(int));
  cudaMalloc(&d_flags, 16 * sizeof(int));
  cudaMalloc(&d_winner, 16 * sizeof(int));
  cudaMalloc(&d_x, N * sizeof(float));
  cudaMalloc(&d_acc, N * sizeof(float));
  cudaMemcpy(d_key, h_key.data(), N * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_keys, h_key.data(), N * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_sum, 0, 256 * sizeof(float));
  cudaMemcpy(d_locks, h_locks.data(), 256 * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_table, 0xff, 8192 * sizeof(int));
  cudaMemcpy(d_flags, &h_flags[0], sizeof(h_flags), cudaMemcpyHostToDevice);
  cudaMemset(d_acc, 0, N * sizeof(float));
  add_locked<<<N / 256, 256>>>(d_key, d_sum, d_locks, N);
  insert<<<N / 256, 256>>>(d_keys, d_table, N, 8192);
  claim<<<N / 256, 256>>>(d_flags, d_winner, N);
  accumulate<<<N / 256, 256>>>(d_x, d_acc, N);
  return 0;
}
