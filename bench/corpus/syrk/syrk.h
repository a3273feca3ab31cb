#ifndef SYRK_H
#define SYRK_H

/* C (N x N, lower triangle) = alpha * A * A^T + beta * C, A is N x M */
#ifndef N
#define N 1536
#endif
#ifndef M
#define M 1536
#endif

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

#define CHECK_ROWS 32

#endif
