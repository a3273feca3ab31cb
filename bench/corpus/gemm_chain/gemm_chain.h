#ifndef GEMM_CHAIN_H
#define GEMM_CHAIN_H

/* D (NI x NL) = alpha * A (NI x NK) * B (NK x NJ) * C (NJ x NL) + beta * D */
#ifndef NI
#define NI 1024
#endif
#ifndef NJ
#define NJ 1024
#endif
#ifndef NK
#define NK 1024
#endif
#ifndef NL
#define NL 1024
#endif

#ifndef DATA_TYPE
#define DATA_TYPE float
#endif

#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

#define CHECK_ROWS 24

#endif
