// softmax: row-wise softmax of a ROWS x COLS matrix of logits (one thread per
// row: maximum, sum of exponentials, normalisation), then the mean negative
// log-likelihood of one label per row (atomics). REPS times.
//
// Check: probabilities (rtol 1e-4 + atol 1e-7) and the loss (rtol 1e-4)
// against the CPU in double.
#include "../common/bench_common.h"

#ifndef ROWS
#define ROWS 8192
#endif
#ifndef COLS
#define COLS 2048
#endif
#ifndef REPS
#define REPS 4
#endif

__global__ void softmax_kernel(float *logits, float *probs, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float maxval = -INFINITY;
    for (int c = 0; c < cols; c++)
      maxval = fmaxf(maxval, logits[row * cols + c]);
    float sum = 0.0f;
    for (int c = 0; c < cols; c++)
      sum += expf(logits[row * cols + c] - maxval);
    for (int c = 0; c < cols; c++)
      probs[row * cols + c] = expf(logits[row * cols + c] - maxval) / sum;
  }
}

__global__ void nll_loss_kernel(float *probs, int *labels, float *loss, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows)
    atomicAdd(loss, -logf(probs[row * cols + labels[row]]) / rows);
}

void softmax_cpu(int rows, int cols, const float *logits, const int *labels, double *probs,
                 double *loss) {
  *loss = 0;
  for (int r = 0; r < rows; r++) {
    const float *x = logits + (long)r * cols;
    double mx = x[0];
    for (int c = 1; c < cols; c++)
      mx = x[c] > mx ? x[c] : mx;
    double s = 0;
    for (int c = 0; c < cols; c++)
      s += exp(x[c] - mx);
    for (int c = 0; c < cols; c++)
      probs[(long)r * cols + c] = exp(x[c] - mx) / s;
    *loss += -log(probs[(long)r * cols + labels[r]]) / rows;
  }
}

void run_softmax(int rows, int cols, float *logits, int *labels, float *probs, float *loss) {
  float *d_logits, *d_probs, *d_loss;
  int *d_labels;
  CUDA_CHECK(cudaMalloc(&d_logits, sizeof(float) * rows * cols));
  CUDA_CHECK(cudaMalloc(&d_probs, sizeof(float) * rows * cols));
  CUDA_CHECK(cudaMalloc(&d_labels, sizeof(int) * rows));
  CUDA_CHECK(cudaMalloc(&d_loss, sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_logits, logits, sizeof(float) * rows * cols, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_labels, labels, sizeof(int) * rows, cudaMemcpyHostToDevice));

  dim3 block(256);
  dim3 grid((size_t)ceil(((float)rows) / ((float)block.x)));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int rep = 0; rep < REPS; rep++) {
    CUDA_CHECK(cudaMemset(d_loss, 0, sizeof(float)));
    softmax_kernel<<<grid, block>>>(d_logits, d_probs, rows, cols);
    CUDA_CHECK_KERNEL();
    nll_loss_kernel<<<grid, block>>>(d_probs, d_labels, d_loss, rows, cols);
    CUDA_CHECK_KERNEL();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  print_gpu_time(ms);

  CUDA_CHECK(cudaMemcpy(probs, d_probs, sizeof(float) * rows * cols, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(loss, d_loss, sizeof(float), cudaMemcpyDeviceToHost));
  cudaFree(d_logits);
  cudaFree(d_probs);
  cudaFree(d_labels);
  cudaFree(d_loss);
}

int main() {
  int rows = ROWS, cols = COLS;
  long total = (long)rows * cols;
  float *logits = (float *)malloc(sizeof(float) * total);
  float *probs = (float *)malloc(sizeof(float) * total);
  double *probs_ref = (double *)malloc(sizeof(double) * total);
  int *labels = (int *)malloc(sizeof(int) * rows);
  bench_srand(26);
  for (long i = 0; i < total; i++)
    logits[i] = bench_rand_float(-8, 8);
  for (int r = 0; r < rows; r++)
    labels[r] = bench_rand_u32() % cols;

  double loss_ref;
  double t0 = wall_time();
  softmax_cpu(rows, cols, logits, labels, probs_ref, &loss_ref);
  print_cpu_time(wall_time() - t0);

  float loss;
  run_softmax(rows, cols, logits, labels, probs, &loss);
  printf("loss: %f (cpu %f)\n", loss, loss_ref);

  long bad = check_close("probs", probs, probs_ref, total, 1e-4, 1e-7);
  bad += check_close("loss", &loss, &loss_ref, 1, 1e-4, 0.0);
  free(logits);
  free(probs);
  free(probs_ref);
  free(labels);
  return finish(bad);
}
