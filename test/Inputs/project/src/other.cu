#include "proj/common.cuh"

// A second translation unit using the header kernel with another type.
void run_half_precision(int *out, const int *in, int n) {
  proj::Params p{n, 3.0f, 0.0f};
  proj::scale_kernel<int><<<(n + 127) / 128, 128>>>(out, in, p);
}

void run_float_again(float *out, const float *in, int n) {
  proj::Params p{n, 1.0f, 0.0f};
  proj::scale_kernel<float><<<n / 64, 64>>>(out, in, p);
}
