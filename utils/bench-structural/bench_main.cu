// Side-by-side benchmark of the structural rewrites (issue 7): the original
// kernels of utils/bench-structural/*.cu against the files cuda-l1 rewrote
// from them (GEN folder, made by utils/bench-structural.sh). 4096x4096 float
// data; per sample the L2 is flushed (256 MiB memset), original and
// rewritten alternate (interleaved, order swapped every sample), CUDA
// events time each launch; warm-up first; median of SAMPLES (>= 30)
// samples. Outputs are compared after poisoning them (0xFF = NaN):
// bitwise rewrites must match bit for bit, reassociating ones are compared
// with a tolerance and against an fp64 host reference.
//
// Build: nvcc -O3 -arch=sm_90 -I<GEN> -I utils/bench-structural bench_main.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,         \
                   cudaGetErrorString(e_));                                    \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// Originals and rewrites, each in its own namespace.
namespace o_ra {
#include "ra.cu"
}
namespace n_ra {
#include "ra.rewritten.cu"
}
namespace n_ra_st {
#include "ra_staging.rewritten.cu"
}
namespace o_st {
#include "staging.cu"
}
namespace n_st {
#include "staging.rewritten.cu"
}
namespace o_wpr {
#include "wpr.cu"
}
namespace n_wpr {
#include "wpr.rewritten.cu"
}
namespace o_sw {
#include "swap.cu"
}
namespace n_sw {
#include "swap.rewritten.cu"
}
namespace o_tr {
#include "transpose.cu"
}
namespace n_tr {
#include "transpose.rewritten.cu"
}
namespace o_v4 {
#include "vectorize.cu"
}
namespace n_v4 {
#include "vectorize.rewritten.cu"
}
namespace o_sr {
#include "seqred.cu"
}
namespace n_sr {
#include "seqred.rewritten.cu"
}
namespace o_hl {
#include "hoist.cu"
}
namespace n_hl {
#include "hoist.rewritten.cu"
}
namespace o_if {
#include "factor.cu"
}
namespace n_if {
#include "factor.rewritten.cu"
}
namespace o_wa {
#include "warpatomic.cu"
}
namespace n_wa {
#include "warpatomic.rewritten.cu"
}
namespace o_cs {
#include "colsum.cu"
}
namespace n_cs {
#include "colsum.rewritten.cu"
}
namespace n_cs32 {
#include "colsum32.rewritten.cu"
}
namespace o_mm {
#include "matmul.cu"
}
namespace n_mm {
#include "matmul.rewritten.cu"
}

static const int N = 4096;
static const size_t NN = size_t(N) * N;

struct Variant {
  std::function<void()> Reset; // untimed, before each launch
  std::function<void()> Launch;
  float *Out;                  // device output
  size_t OutCount;
};

struct Case {
  std::string Kernel, Rule, Exactness;
  Variant Orig, New;
  std::vector<double> Reference; // fp64 host reference ("" = none)
  double Rtol = 0;               // for reassociating rewrites
};

static std::vector<float> fetch(const Variant &V) {
  std::vector<float> H(V.OutCount);
  CK(cudaMemcpy(H.data(), V.Out, V.OutCount * sizeof(float),
                cudaMemcpyDeviceToHost));
  return H;
}

static std::vector<float> runOnce(const Variant &V) {
  CK(cudaMemset(V.Out, 0xFF, V.OutCount * sizeof(float))); // poison
  V.Reset();
  V.Launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  return fetch(V);
}

/// max |A - R| / max |R|: the error relative to the output's scale (a
/// plain relative error explodes on outputs that happen to be near zero).
/// A reference with fewer elements than A holds every (A.size() /
/// R.size())-th output (a sampled reference where fp64 on the host would
/// take too long).
static double scaledErr(const std::vector<float> &A,
                        const std::vector<double> &R) {
  if (R.empty() || A.size() % R.size())
    return NAN; // no reference for this case
  size_t Stride = A.size() / R.size();
  double Scale = 0, M = 0;
  for (double V : R)
    Scale = std::max(Scale, std::fabs(V));
  Scale = std::max(Scale, 1e-30);
  for (size_t I = 0; I < R.size(); ++I)
    M = std::max(M, std::fabs(double(A[I * Stride]) - R[I]));
  return M / Scale;
}

int main(int argc, char **argv) {
  int Samples = argc > 1 ? std::atoi(argv[1]) : 50;
  if (Samples < 30)
    Samples = 30;
  cudaDeviceProp P;
  CK(cudaGetDeviceProperties(&P, 0));
  int Clock = 0;
  cudaDeviceGetAttribute(&Clock, cudaDevAttrClockRate, 0);
  std::printf("GPU: %s (sm_%d%d), %d SMs, L2 %d MiB\n", P.name, P.major,
              P.minor, P.multiProcessorCount, P.l2CacheSize >> 20);

  // Data.
  std::mt19937 Rng(1234);
  std::uniform_real_distribution<float> U(-1.0f, 1.0f);
  std::vector<float> hA(NN), hx(N);
  for (auto &V : hA)
    V = U(Rng);
  for (auto &V : hx)
    V = U(Rng);
  float *A, *x, *yO, *yN, *outO, *outN, *partO, *partN, *sumO, *sumN;
  CK(cudaMalloc(&A, NN * 4));
  CK(cudaMalloc(&x, N * 4));
  CK(cudaMalloc(&yO, N * 4));
  CK(cudaMalloc(&yN, N * 4));
  CK(cudaMalloc(&outO, NN * 4));
  CK(cudaMalloc(&outN, NN * 4));
  CK(cudaMalloc(&partO, NN / 256 * 4));
  CK(cudaMalloc(&partN, NN / 256 * 4));
  CK(cudaMalloc(&sumO, 4));
  CK(cudaMalloc(&sumN, 4));
  CK(cudaMemcpy(A, hA.data(), NN * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(x, hx.data(), N * 4, cudaMemcpyHostToDevice));
  size_t FlushBytes = 256u << 20;
  void *Flush;
  CK(cudaMalloc(&Flush, FlushBytes));

  // fp64 references.
  std::vector<double> RefMv(N), RefPart(NN / 256), RefSum(1, 0.0);
  for (int R = 0; R < N; ++R) {
    double S = 0;
    for (int K = 0; K < N; ++K)
      S += double(hA[size_t(R) * N + K]) * hx[K];
    RefMv[R] = S;
  }
  for (size_t B = 0; B < NN / 256; ++B) {
    double S = 0;
    for (int T = 0; T < 256; ++T)
      S += hA[B * 256 + T];
    RefPart[B] = S;
    RefSum[0] += S;
  }
  // dot_scaled (factor.cu: a = A, b = x, alpha 0.75, n 4096), every 16th
  // output: thread t of block B sums tile[(k+t)&255] * tile[3k&255].
  const size_t DotOut = NN / 16, DotStride = 16;
  std::vector<double> RefDot(DotOut / DotStride);
  for (size_t I = 0; I < RefDot.size(); ++I) {
    size_t Row = I * DotStride, B = Row / 256, T = Row % 256;
    float Tile[256];
    for (int J = 0; J < 256; ++J)
      Tile[J] = hA[B * 256 + J] + hx[J]; // as the kernel rounds it
    double S = 0;
    for (int K = 0; K < 4096; ++K)
      S += 0.75 * double(Tile[(K + T) & 255]) * double(Tile[(3 * K) & 255]);
    RefDot[I] = S;
  }

  auto NoReset = [] {};
  dim3 MvGrid((N + 255) / 256), MvBlock(256);
  std::vector<Case> Cases;
  Cases.push_back({"matvec_rmw", "memory-register-accumulation", "bitwise",
                   {NoReset, [=] { o_ra::matvec_rmw<<<MvGrid, MvBlock>>>(A, x, yO, N, N); }, yO, size_t(N)},
                   {NoReset, [=] { n_ra::matvec_rmw<<<MvGrid, MvBlock>>>(A, x, yN, N, N); }, yN, size_t(N)},
                   RefMv});
  Cases.push_back({"matvec_rmw", "memory-register-accumulation + coalescing-smem-staging", "bitwise",
                   {NoReset, [=] { o_ra::matvec_rmw<<<MvGrid, MvBlock>>>(A, x, yO, N, N); }, yO, size_t(N)},
                   {NoReset, [=] { n_ra_st::matvec_rmw<<<MvGrid, MvBlock>>>(A, x, yN, N, N); }, yN, size_t(N)},
                   RefMv});
  Cases.push_back({"matvec", "coalescing-smem-staging", "bitwise",
                   {NoReset, [=] { o_st::matvec<<<MvGrid, MvBlock>>>(A, x, yO, N, N); }, yO, size_t(N)},
                   {NoReset, [=] { n_st::matvec<<<MvGrid, MvBlock>>>(A, x, yN, N, N); }, yN, size_t(N)},
                   RefMv});
  Cases.push_back({"matvec", "coalescing-warp-per-row", "reassociating",
                   {NoReset, [=] { o_wpr::launch_matvec(A, x, yO); }, yO, size_t(N)},
                   {NoReset, [=] { n_wpr::launch_matvec(A, x, yN); }, yN, size_t(N)},
                   RefMv, 1e-4});
  Cases.push_back({"scale2d", "coalescing-thread-mapping-swap", "bitwise",
                   {NoReset, [=] { o_sw::launch_scale2d(A, outO); }, outO, NN},
                   {NoReset, [=] { n_sw::launch_scale2d(A, outN); }, outN, NN},
                   {}});
  Cases.push_back({"transpose", "coalescing-transpose-tile", "bitwise",
                   {NoReset, [=] { o_tr::transpose<<<dim3(N / 16, N / 16), dim3(16, 16)>>>(A, outO, N, N); }, outO, NN},
                   {NoReset, [=] { n_tr::transpose<<<dim3(N / 16, N / 16), dim3(16, 16)>>>(A, outN, N, N); }, outN, NN},
                   {}});
  Cases.push_back({"axpy", "memory-vectorize-float4", "bitwise",
                   {NoReset, [=] { o_v4::axpy<<<unsigned(NN / 2 / 256), 256>>>(A, A + NN / 2, outO, 2.0f, int(NN / 2)); }, outO, NN / 2},
                   {NoReset, [=] { n_v4::axpy<<<unsigned(NN / 2 / 256), 256>>>(A, A + NN / 2, outN, 2.0f, int(NN / 2)); }, outN, NN / 2},
                   {}});
  Cases.push_back({"reduce0", "sync-sequential-reduction", "reassociating",
                   {NoReset, [=] { o_sr::reduce0<<<unsigned(NN / 256), 256>>>(A, partO); }, partO, NN / 256},
                   {NoReset, [=] { n_sr::reduce0<<<unsigned(NN / 256), 256>>>(A, partN); }, partN, NN / 256},
                   RefPart, 1e-5});
  Cases.push_back({"scale_cols", "memory-hoist-invariant-load", "bitwise",
                   {NoReset, [=] { o_hl::scale_cols<<<MvGrid, MvBlock>>>(A, x, outO, N, N); }, outO, NN},
                   {NoReset, [=] { n_hl::scale_cols<<<MvGrid, MvBlock>>>(A, x, outN, N, N); }, outN, NN},
                   {}});
  Cases.push_back({"dot_scaled", "algebraic-invariant-factor", "reassociating",
                   {NoReset, [=] { o_if::launch_dot_scaled(A, x, outO); }, outO, DotOut},
                   {NoReset, [=] { n_if::launch_dot_scaled(A, x, outN); }, outN, DotOut},
                   RefDot, 1e-4});
  Cases.push_back({"total", "sync-warp-atomic-reduction", "reassociating",
                   {[=] { CK(cudaMemsetAsync(sumO, 0, 4)); }, [=] { o_wa::total<<<unsigned(NN / 256), 256>>>(A, sumO, int(NN)); }, sumO, 1},
                   {[=] { CK(cudaMemsetAsync(sumN, 0, 4)); }, [=] { n_wa::total<<<unsigned(NN / 256), 256>>>(A, sumN, int(NN)); }, sumN, 1},
                   RefSum, 1e-3});

  // Column means (colsum.cu): one thread per column walking every row,
  // split across the block by coalescing-column-split (8 columns per block,
  // the default, and 32 with the option Columns); A viewed as 4096 x 4096
  // and as 8192 rows x 2048 columns.
  for (int Cols : {4096, 2048}) {
    int Rows = int(NN / Cols);
    std::vector<double> RefCol(Cols, 0.0);
    for (int I = 0; I < Rows; ++I)
      for (int J = 0; J < Cols; ++J)
        RefCol[J] += hA[size_t(I) * Cols + J];
    for (double &V : RefCol)
      V /= Rows;
    std::string Sz = std::to_string(Rows) + "x" + std::to_string(Cols);
    Cases.push_back({"colmean" + Sz, "coalescing-column-split", "reassociating",
                     {NoReset, [=] { o_cs::launch_colmean(A, yO, Cols, Rows); }, yO, size_t(Cols)},
                     {NoReset, [=] { n_cs::launch_colmean(A, yN, Cols, Rows); }, yN, size_t(Cols)},
                     RefCol, 1e-4});
    Cases.push_back({"colmean" + Sz, "coalescing-column-split (Columns 32)", "reassociating",
                     {NoReset, [=] { o_cs::launch_colmean(A, yO, Cols, Rows); }, yO, size_t(Cols)},
                     {NoReset, [=] { n_cs32::launch_colmean(A, yN, Cols, Rows); }, yN, size_t(Cols)},
                     RefCol, 1e-4});
    Cases.push_back({"colmean2d_32x8_" + Sz, "coalescing-column-split", "reassociating",
                     {NoReset, [=] { o_cs::launch_colmean2d(A, yO, Cols, Rows); }, yO, size_t(Cols)},
                     {NoReset, [=] { n_cs::launch_colmean2d(A, yN, Cols, Rows); }, yN, size_t(Cols)},
                     RefCol, 1e-4});
  }

  // Matrix products (matmul.cu): C = 1.5 A B + 0.5 C, square, 1024 and
  // 4096; C is reset from C0 before every launch (untimed). gemm_rmw is the
  // same product accumulated in global memory (register accumulation, then
  // the tile: composition).
  float *Bm, *C0;
  CK(cudaMalloc(&Bm, NN * 4));
  CK(cudaMalloc(&C0, NN * 4));
  {
    std::vector<float> hB(NN);
    for (auto &V : hB)
      V = U(Rng);
    CK(cudaMemcpy(Bm, hB.data(), NN * 4, cudaMemcpyHostToDevice));
    for (auto &V : hB)
      V = U(Rng);
    CK(cudaMemcpy(C0, hB.data(), NN * 4, cudaMemcpyHostToDevice));
  }
  for (int S : {1024, 4096}) {
    size_t SS = size_t(S) * S;
    auto ResetO = [=] { CK(cudaMemcpyAsync(outO, C0, SS * 4, cudaMemcpyDeviceToDevice)); };
    auto ResetN = [=] { CK(cudaMemcpyAsync(outN, C0, SS * 4, cudaMemcpyDeviceToDevice)); };
    std::string Sz = std::to_string(S);
    Cases.push_back({"matmul" + Sz, "coalescing-matmul-tile", "bitwise",
                     {ResetO, [=] { o_mm::launch_matmul(A, Bm, outO, S, S, S, 1.5f, 0.5f); }, outO, SS},
                     {ResetN, [=] { n_mm::launch_matmul(A, Bm, outN, S, S, S, 1.5f, 0.5f); }, outN, SS},
                     {}});
    Cases.push_back({"gemm_rmw" + Sz, "memory-register-accumulation + coalescing-matmul-tile", "bitwise",
                     {ResetO, [=] { o_mm::launch_gemm_rmw(S, S, S, 1.5f, 0.5f, A, Bm, outO); }, outO, SS},
                     {ResetN, [=] { n_mm::launch_gemm_rmw(S, S, S, 1.5f, 0.5f, A, Bm, outN); }, outN, SS},
                     {}});
  }

  cudaEvent_t E0, E1;
  CK(cudaEventCreate(&E0));
  CK(cudaEventCreate(&E1));
  auto TimeOne = [&](const Variant &V, int S) {
    CK(cudaMemsetAsync(Flush, S & 0xFF, FlushBytes)); // flush L2
    V.Reset();
    CK(cudaEventRecord(E0));
    V.Launch();
    CK(cudaEventRecord(E1));
    CK(cudaEventSynchronize(E1));
    CK(cudaGetLastError());
    float Ms = 0;
    CK(cudaEventElapsedTime(&Ms, E0, E1));
    return double(Ms) * 1000.0;
  };
  auto Median = [](std::vector<double> V) {
    std::sort(V.begin(), V.end());
    size_t H = V.size() / 2;
    return V.size() % 2 ? V[H] : 0.5 * (V[H - 1] + V[H]);
  };

  std::printf("\n| kernel | rule | exactness | original (us) | rewritten (us) "
              "| speedup | outputs |\n|---|---|---|---:|---:|---:|---|\n");
  bool AllOk = true;
  for (const Case &C : Cases) {
    // Correctness.
    std::vector<float> O = runOnce(C.Orig), O2 = runOnce(C.Orig),
                       R = runOnce(C.New);
    std::string Verdict;
    char Buf[256];
    if (C.Exactness == "bitwise") {
      size_t Diff = 0;
      for (size_t I = 0; I < O.size(); ++I)
        if (std::memcmp(&O[I], &R[I], 4))
          ++Diff;
      bool Det = std::memcmp(O.data(), O2.data(), O.size() * 4) == 0;
      std::snprintf(Buf, sizeof Buf, "%s (%zu of %zu elements differ)%s",
                    Diff ? "MISMATCH" : "bit-identical", Diff, O.size(),
                    Det ? "" : "; original not deterministic");
      if (Diff)
        AllOk = false;
    } else {
      double EO = scaledErr(O, C.Reference), EN = scaledErr(R, C.Reference);
      std::vector<double> OD(O.begin(), O.end());
      double ON = scaledErr(R, OD);
      bool Ok = ON <= C.Rtol;
      std::snprintf(Buf, sizeof Buf,
                    "%s: max diff %.1e of the output scale (tol %.0e); error "
                    "vs fp64: original %.1e, rewritten %.1e",
                    Ok ? "within tolerance" : "OUT OF TOLERANCE", ON, C.Rtol,
                    EO, EN);
      if (!Ok)
        AllOk = false;
    }
    Verdict = Buf;
    // Timing: warm-up, then interleaved samples.
    for (int W = 0; W < 3; ++W) {
      TimeOne(C.Orig, W);
      TimeOne(C.New, W);
    }
    std::vector<double> TO, TN;
    for (int S = 0; S < Samples; ++S) {
      if (S % 2) {
        TO.push_back(TimeOne(C.Orig, S));
        TN.push_back(TimeOne(C.New, S));
      } else {
        TN.push_back(TimeOne(C.New, S));
        TO.push_back(TimeOne(C.Orig, S));
      }
    }
    double MO = Median(TO), MN = Median(TN);
    std::printf("| %s | %s | %s | %.1f | %.1f | %.2fx | %s |\n",
                C.Kernel.c_str(), C.Rule.c_str(), C.Exactness.c_str(), MO, MN,
                MO / MN, Verdict.c_str());
    std::fflush(stdout);
  }
  std::printf("\n%d samples per kernel (median), L2 flushed before each, "
              "original and rewritten interleaved; 4096x4096 float data (matrix products: the size in the name, cubed).\n",
              Samples);
  std::printf("bench-structural: %s\n", AllOk ? "all outputs OK" : "OUTPUT MISMATCH");
  return AllOk ? 0 : 1;
}
