// Sizes kept in namespace-scope variables that main() sets before calling
// the function that launches (HeCBench blockScan, base64e and others).
#include <cstdlib>

int grid_size = 1;         // set by main from the command line
int block_size = 64;       // set by main from a constant
int elems = 1000;          // set by main, then again by reset(): two modifiers
int late = 512;            // set by main only after the launch
int steps = 8;             // doubled by main in a loop after each launch
size_t work;               // no initialiser; set by main from others
int cnt = 16;              // set by setup_and_run(), not main: not followed
extern int ext_n;          // set by main, then through this redeclaration
int ext_n = 1;             //   by reset_ext(): two modifiers
int alias_n = 100;         // written through alias_p by bump()
int *alias_p = &alias_n;

__global__ void scan(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}
__global__ void fill(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f;
}
__global__ void tail(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3.0f;
}
__global__ void stepk(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 4.0f;
}
__global__ void workk(float *out, size_t n) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 5.0f;
}

__global__ void cntk(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 6.0f;
}
__global__ void extk(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 7.0f;
}
__global__ void aliask(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 8.0f;
}
void run_cnt() {
  float *d;
  cudaMalloc(&d, sizeof(float) * cnt);
  cntk<<<1, 64>>>(d, cnt);
  cudaFree(d);
}
void setup_and_run() {
  cnt = 64;
  run_cnt();
}
void reset_ext() { ext_n = 0; }
void run_ext() {
  float *d;
  cudaMalloc(&d, sizeof(float) * 64);
  extk<<<1, 64>>>(d, ext_n);
  cudaFree(d);
}
void bump() { *alias_p = 7; }
void run_alias() {
  float *d;
  cudaMalloc(&d, sizeof(float) * 256);
  aliask<<<1, 256>>>(d, alias_n);
  cudaFree(d);
}

void run_scan() {
  float *d;
  cudaMalloc(&d, sizeof(float) * grid_size * block_size);
  scan<<<grid_size, block_size>>>(d, grid_size * block_size);
  cudaFree(d);
}
void run_fill() {
  float *d;
  cudaMalloc(&d, sizeof(float) * elems);
  fill<<<(elems + 255) / 256, 256>>>(d, elems);
  cudaFree(d);
}
void reset() { elems = 0; }
void run_tail() {
  float *d;
  cudaMalloc(&d, sizeof(float) * late);
  tail<<<(late + 127) / 128, 128>>>(d, late);
  cudaFree(d);
}
void run_steps() {
  float *d;
  cudaMalloc(&d, sizeof(float) * steps);
  stepk<<<1, 32>>>(d, steps);
  cudaFree(d);
}
void run_work() {
  float *d;
  cudaMalloc(&d, sizeof(float) * work);
  workk<<<(work + 255) / 256, 256>>>(d, work);
  cudaFree(d);
}

int main(int argc, char **argv) {
  grid_size = atoi(argv[1]);
  block_size = 128;
  run_scan();
  elems = 4096;
  run_fill();
  reset();
  run_tail();
  late = 1;
  for (int r = 0; r < 3; r++) {
    run_steps();
    steps = steps * 2;
  }
  work = (size_t)block_size * 10;
  run_work();
  setup_and_run();
  ext_n = 5;
  reset_ext();
  run_ext();
  alias_n = 200;
  bump();
  run_alias();
  return 0;
}
