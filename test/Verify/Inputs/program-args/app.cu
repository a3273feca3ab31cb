// Sizes read from the command line in the ways real programs read them:
// atoi after an argc check, a table indexed by an argument, std::stoi of a
// std::string, a helper given argv, atof for a scalar, an optional argument
// with a default, strtol with a base.
#include <cstdio>
#include <cstdlib>
#include <string>

__global__ void scale_rows(float *out, const float *in, float s, int rows,
                           int cols) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows && c < cols)
    out[r * cols + c] = s * in[r * cols + c];
}

__global__ void fill(int *v, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = value;
}

static int rows_from(char **args) { return atoi(args[1]); }

int main(int argc, char *argv[]) {
  if (argc != 5 && argc != 6) {
    printf("usage: %s <rows> <size class> <scale> <fill hex> [repeat]\n",
           argv[0]);
    return 1;
  }
  const int classes[] = {256, 1024, 4096};
  int rows = rows_from(argv);
  int cols = classes[std::stoi(std::string(argv[2]))];
  float s = atof(argv[3]);
  int value = (int)strtol(argv[4], NULL, 16);
  int repeat = 1;
  if (argc > 5)
    repeat = atoi(argv[5]);

  float *in, *out;
  int *v;
  cudaMalloc(&in, sizeof(float) * rows * cols);
  cudaMalloc(&out, sizeof(float) * rows * cols);
  cudaMalloc(&v, sizeof(int) * repeat * cols);
  dim3 block(32, 8);
  dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
  scale_rows<<<grid, block>>>(out, in, s, rows, cols);
  fill<<<(repeat * cols + 255) / 256, 256>>>(v, repeat * cols, value);
  cudaDeviceSynchronize();
  return 0;
}
