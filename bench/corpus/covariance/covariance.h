#ifndef COVARIANCE_H
#define COVARIANCE_H

/* data: M observations (rows) of N variables (columns) */
#ifndef M
#define M 2048
#endif
#ifndef N
#define N 1024
#endif

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

#define DIM_THREAD_BLOCK_KERNEL_1_X 256
#define DIM_THREAD_BLOCK_KERNEL_1_Y 1
#define DIM_THREAD_BLOCK_KERNEL_2_X 32
#define DIM_THREAD_BLOCK_KERNEL_2_Y 8
#define DIM_THREAD_BLOCK_KERNEL_3_X 256
#define DIM_THREAD_BLOCK_KERNEL_3_Y 1

#define CHECK_ROWS 48

#endif
