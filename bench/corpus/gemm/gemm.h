#ifndef GEMM_H
#define GEMM_H

/* C (NI x NJ) = alpha * A (NI x NK) * B (NK x NJ) + beta * C */
#ifndef NI
#define NI 2048
#endif
#ifndef NJ
#define NJ 2048
#endif
#ifndef NK
#define NK 2048
#endif

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

#define ALPHA 1.5f
#define BETA 0.5f

#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

/* rows of C checked against the CPU (the whole product takes minutes there) */
#define CHECK_ROWS 24

#endif
