// Same arithmetic, restrict-qualified pointers.
__global__ void scale(const float *__restrict__ x, float *__restrict__ y,
                      float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i];
}
