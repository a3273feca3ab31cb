// Cheat (or bug): never finishes (waits for a flag nobody sets).
__device__ volatile int never_set = 0;
__global__ void transpose(const float *in, float *out, int n) {
  while (never_set == 0)
    __nanosleep(1000);
  out[0] = in[0];
}
