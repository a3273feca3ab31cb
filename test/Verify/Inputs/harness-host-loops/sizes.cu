// Sizes multiplied by a loop over a constant local array; a constant whose
// address is passed on (it cannot change), and a variable whose address is
// passed to a function that may change it.
#include <cstdint>
#include <cstdlib>

void describe(const int64_t *dims, int rank);
void adjust(int64_t *value);

__global__ void fill(float *out, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}

__global__ void zero(float *out, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = 0.0f;
}

int main(int argc, char **argv) {
  const int64_t nrow = atol(argv[1]);
  const int64_t ncol = atol(argv[2]);
  const int64_t sizes[2] = {nrow, ncol};
  describe(&nrow, 1);
  int64_t numel = 1;
  for (int i = 0; i < 2; i++) numel *= sizes[i];
  float *out;
  cudaMalloc(&out, numel * sizeof(float));
  fill<<<(numel + 255) / 256, 256>>>(out, numel);

  int64_t other = ncol;
  adjust(&other);
  int64_t total = 1;
  int64_t dims[2] = {nrow, other};
  for (int i = 0; i < 2; i++) total *= dims[i];
  zero<<<(total + 255) / 256, 256>>>(out, total);
  cudaDeviceSynchronize();
  return 0;
}
