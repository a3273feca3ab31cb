#ifndef MATVEC_BOTH_H
#define MATVEC_BOTH_H

/* problem size: A is N x N */
#ifndef N
#define N 8192
#endif

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

/* thread block */
#define DIM_THREAD_BLOCK_X 256
#define DIM_THREAD_BLOCK_Y 1

#endif
