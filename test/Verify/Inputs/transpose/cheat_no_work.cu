// Cheat: launches, does nothing.
__global__ void transpose(const float *in, float *out, int n) {}
