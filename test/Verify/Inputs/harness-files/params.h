// Sizes and the interface between the files of this program (harness
// inference across files: test/Verify/harness-files.test).
#ifndef HARNESS_FILES_PARAMS_H
#define HARNESS_FILES_PARAMS_H

#define IMG_W 640
#define IMG_H 480
#define BLOCK_DIM 16
#define SIGNAL_LEN (1 << 14)
typedef float real_t;

// Defined in filters.cu, called from main.cu.
void blur_rows(real_t *d_dst, const real_t *d_src, int width, int height,
               real_t weight);
void blur_rows(double *d_dst, const double *d_src, int width, int height,
               double weight);
void smooth_signal(real_t *d_sig, int len, int passes);
// Defined in filters.cu, called from host.cpp (no CUDA there).
void histogram_gpu(const unsigned *h_values, int count, int bins);
// Defined in filters.cu, called from main.cu with a size read from argv.
void normalise(real_t *d_v, int n);

#endif
