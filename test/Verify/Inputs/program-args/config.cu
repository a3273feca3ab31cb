// Options parsed into the members of a structure (returned by a parser, or
// local to main), and a helper that returns a count parsed from argv.
#include <cstdio>
#include <cstdlib>
#include <cstring>

struct Options {
  char mode[16];
  int rows;
  int cols;
  float alpha;
  bool twice;
};

static Options parse_options(int argc, char **argv) {
  Options o;
  strcpy(o.mode, "scale");
  o.rows = 64;
  o.cols = 32;
  o.alpha = 1.0f;
  o.twice = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--mode") && i + 1 < argc) strncpy(o.mode, argv[++i], 15);
    else if (!strcmp(argv[i], "--name") && i + 1 < argc) strcpy(o.mode, argv[++i]);
    else if (!strcmp(argv[i], "--rows") && i + 1 < argc) o.rows = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--cols") && i + 1 < argc) o.cols = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--alpha") && i + 1 < argc) o.alpha = atof(argv[++i]);
    else if (!strcmp(argv[i], "--twice")) o.twice = true;
    else if (!strcmp(argv[i], "--count")) ++i;
    else { printf("usage: %s\n", argv[0]); exit(1); }
  }
  return o;
}

static int parse_count(int argc, char **argv) {
  int count = 8;
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "--count")) count = atoi(argv[i + 1]);
  return count;
}

__global__ void scale(float *out, const float *in, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = alpha * in[i];
}

__global__ void fill(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

int main(int argc, char **argv) {
  Options opt = parse_options(argc, argv);
  int n = opt.rows * opt.cols * (opt.twice ? 2 : 1);
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  scale<<<(n + 127) / 128, 128>>>(out, in, n, opt.alpha);

  int count = parse_count(argc, argv);
  int *idx;
  cudaMalloc(&idx, count * sizeof(int));
  fill<<<1, 64>>>(idx, count);
  cudaDeviceSynchronize();
  return 0;
}
