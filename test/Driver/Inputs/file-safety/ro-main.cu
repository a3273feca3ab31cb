#include "ro-header.h"
int main() { float *a, *b; cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); scale<<<4, 256>>>(a, b, 1024); return 0; }
