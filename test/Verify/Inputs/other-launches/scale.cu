// One kernel launched with several sizes: 4096 elements (a whole number of
// blocks), 1000 (the last block partly outside), and 4096 again through a
// helper (the same values: not a third harness). waste() only wastes
// time: sqrtf(v * v) is |v| exactly for every v whose square is normal (a
// NaN leaves at once).
#define BIG 4096
#define SMALL 1000
__device__ float waste(float v) {
  if (v != v)
    return v;
  for (int k = 0; k < 1024; k++)
    v = sqrtf(v * v);
  return v;
}
__global__ void scale(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    // The wasted loop is in a function that may return before it: the
    // division below is reported (it would be outweighed by a loop that
    // runs on every call).
    v = waste(v);
    out[i] = v / 2.0f;
  }
}

void run(const float *in, float *out, int n) {
  scale<<<(n + 255) / 256, 256>>>(in, out, n);
}

int main() {
  float *d_in, *d_out, *s_in, *s_out;
  cudaMalloc(&d_in, sizeof(float) * BIG);
  cudaMalloc(&d_out, sizeof(float) * BIG);
  scale<<<BIG / 256, 256>>>(d_in, d_out, BIG);
  cudaMalloc(&s_in, sizeof(float) * SMALL);
  cudaMalloc(&s_out, sizeof(float) * SMALL);
  scale<<<(SMALL + 255) / 256, 256>>>(s_in, s_out, SMALL);
  run(d_in, d_out, BIG);
  return 0;
}
