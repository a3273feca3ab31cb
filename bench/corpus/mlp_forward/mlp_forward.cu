// mlp_forward: forward pass of a two-layer perceptron on a batch,
// hidden = GELU(x W1 + b1) (W1 stored in x out), out = hidden W2^T + b2
// (W2 stored out x in, as frameworks keep it), one thread per output.
//
// Check: CHECK_ROWS batch rows of hidden and out against the CPU in double;
// tolerance rtol 1e-3 + atol 1e-4.
#include "../common/bench_common.h"

#ifndef BATCH
#define BATCH 512
#endif
#ifndef D_IN
#define D_IN 1024
#endif
#ifndef D_HID
#define D_HID 4096
#endif
#ifndef D_OUT
#define D_OUT 1024
#endif
#define CHECK_ROWS 16

__device__ float gelu(float v) {
  return 0.5 * v * (1.0 + tanhf(0.7978845608 * (v + 0.044715 * powf(v, 3.0f))));
}

__global__ void linear_gelu_kernel(float *x, float *W1, float *b1, float *hidden, int batch,
                                   int d_in, int d_hid) {
  int h = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y * blockDim.y + threadIdx.y;
  if (b < batch && h < d_hid) {
    float acc = b1[h];
    for (int k = 0; k < d_in; k++)
      acc += x[b * d_in + k] * W1[k * d_hid + h];
    hidden[b * d_hid + h] = gelu(acc);
  }
}

__global__ void linear_kernel(float *hidden, float *W2, float *b2, float *out, int batch,
                              int d_hid, int d_out) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y * blockDim.y + threadIdx.y;
  if (b < batch && o < d_out) {
    out[b * d_out + o] = b2[o];
    for (int k = 0; k < d_hid; k++)
      out[b * d_out + o] += hidden[b * d_hid + k] * W2[o * d_hid + k];
  }
}

static int check_row(int r, int batch) { return (int)(((long)r * 37 + 3) % batch); }

void mlp_cpu(const float *x, const float *W1, const float *b1, const float *W2, const float *b2,
             double *hidden_ref, double *out_ref) {
  for (int r = 0; r < CHECK_ROWS; r++) {
    int b = check_row(r, BATCH);
    double *h = hidden_ref + (long)r * D_HID;
    for (int j = 0; j < D_HID; j++)
      h[j] = b1[j];
    for (int k = 0; k < D_IN; k++) {
      double xv = x[(long)b * D_IN + k];
      for (int j = 0; j < D_HID; j++)
        h[j] += xv * W1[(long)k * D_HID + j];
    }
    for (int j = 0; j < D_HID; j++)
      h[j] = 0.5 * h[j] * (1.0 + tanh(0.7978845608 * (h[j] + 0.044715 * h[j] * h[j] * h[j])));
    for (int o = 0; o < D_OUT; o++) {
      double s = b2[o];
      for (int k = 0; k < D_HID; k++)
        s += h[k] * W2[(long)o * D_HID + k];
      out_ref[(long)r * D_OUT + o] = s;
    }
  }
}

int main() {
  float *x = (float *)malloc(sizeof(float) * BATCH * D_IN);
  float *W1 = (float *)malloc(sizeof(float) * D_IN * D_HID);
  float *b1 = (float *)malloc(sizeof(float) * D_HID);
  float *W2 = (float *)malloc(sizeof(float) * D_OUT * D_HID);
  float *b2 = (float *)malloc(sizeof(float) * D_OUT);
  float *hidden = (float *)malloc(sizeof(float) * BATCH * D_HID);
  float *out = (float *)malloc(sizeof(float) * BATCH * D_OUT);
  double *hidden_ref = (double *)malloc(sizeof(double) * CHECK_ROWS * D_HID);
  double *out_ref = (double *)malloc(sizeof(double) * CHECK_ROWS * D_OUT);
  float *got_h = (float *)malloc(sizeof(float) * CHECK_ROWS * D_HID);
  float *got_o = (float *)malloc(sizeof(float) * CHECK_ROWS * D_OUT);

  bench_srand(28);
  float s1 = 1.0f / sqrtf((float)D_IN), s2 = 1.0f / sqrtf((float)D_HID);
  for (long i = 0; i < (long)BATCH * D_IN; i++)
    x[i] = bench_rand_float(-1, 1);
  for (long i = 0; i < (long)D_IN * D_HID; i++)
    W1[i] = bench_rand_float(-s1, s1);
  for (int i = 0; i < D_HID; i++)
    b1[i] = bench_rand_float(-0.1f, 0.1f);
  for (long i = 0; i < (long)D_OUT * D_HID; i++)
    W2[i] = bench_rand_float(-s2, s2);
  for (int i = 0; i < D_OUT; i++)
    b2[i] = bench_rand_float(-0.1f, 0.1f);

  double t0 = wall_time();
  mlp_cpu(x, W1, b1, W2, b2, hidden_ref, out_ref);
  print_cpu_time(wall_time() - t0);

  float *d_x, *d_W1, *d_b1, *d_W2, *d_b2, *d_hidden, *d_out;
  CUDA_CHECK(cudaMalloc(&d_x, sizeof(float) * BATCH * D_IN));
  CUDA_CHECK(cudaMalloc(&d_W1, sizeof(float) * D_IN * D_HID));
  CUDA_CHECK(cudaMalloc(&d_b1, sizeof(float) * D_HID));
  CUDA_CHECK(cudaMalloc(&d_W2, sizeof(float) * D_OUT * D_HID));
  CUDA_CHECK(cudaMalloc(&d_b2, sizeof(float) * D_OUT));
  CUDA_CHECK(cudaMalloc(&d_hidden, sizeof(float) * BATCH * D_HID));
  CUDA_CHECK(cudaMalloc(&d_out, sizeof(float) * BATCH * D_OUT));
  CUDA_CHECK(cudaMemcpy(d_x, x, sizeof(float) * BATCH * D_IN, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_W1, W1, sizeof(float) * D_IN * D_HID, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_b1, b1, sizeof(float) * D_HID, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_W2, W2, sizeof(float) * D_OUT * D_HID, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_b2, b2, sizeof(float) * D_OUT, cudaMemcpyHostToDevice));

  dim3 block(32, 8);
  dim3 grid1((size_t)ceil(((float)D_HID) / ((float)block.x)),
             (size_t)ceil(((float)BATCH) / ((float)block.y)));
  dim3 grid2((size_t)ceil(((float)D_OUT) / ((float)block.x)),
             (size_t)ceil(((float)BATCH) / ((float)block.y)));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  linear_gelu_kernel<<<grid1, block>>>(d_x, d_W1, d_b1, d_hidden, BATCH, D_IN, D_HID);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());
  linear_kernel<<<grid2, block>>>(d_hidden, d_W2, d_b2, d_out, BATCH, D_HID, D_OUT);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(hidden, d_hidden, sizeof(float) * BATCH * D_HID, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(out, d_out, sizeof(float) * BATCH * D_OUT, cudaMemcpyDeviceToHost));
  for (int r = 0; r < CHECK_ROWS; r++) {
    memcpy(got_h + (long)r * D_HID, hidden + (long)check_row(r, BATCH) * D_HID, sizeof(float) * D_HID);
    memcpy(got_o + (long)r * D_OUT, out + (long)check_row(r, BATCH) * D_OUT, sizeof(float) * D_OUT);
  }
  long bad = check_close("hidden (sampled rows)", got_h, hidden_ref, (long)CHECK_ROWS * D_HID, 1e-3, 1e-4);
  bad += check_close("out (sampled rows)", got_o, out_ref, (long)CHECK_ROWS * D_OUT, 1e-3, 1e-4);

  cudaFree(d_x); cudaFree(d_W1); cudaFree(d_b1); cudaFree(d_W2); cudaFree(d_b2);
  cudaFree(d_hidden); cudaFree(d_out);
  free(x); free(W1); free(b1); free(W2); free(b2); free(hidden); free(out);
  free(hidden_ref); free(out_ref); free(got_h); free(got_o);
  return finish(bad);
}
