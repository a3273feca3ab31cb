//===- Runner.h - run verification jobs on the GPU, isolated ----*- C++ -*-===//
//
// The GPU side. The CUDA driver, NVRTC, CUPTI and NVML are loaded with dlopen
// inside a child process (the calling process never initialises CUDA), so
// the tool starts anywhere, and a candidate that hangs, faults or corrupts
// its context takes only its child down. Input is plain data: kernel source
// text, an NVRTC name expression, the parameter layout and a harness.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_VERIFY_RUNNER_H
#define CUDAL1_VERIFY_RUNNER_H

#include "cudal1/Capture/CaptureManifest.h"
#include "cudal1/Verify/Harness.h"
#include "cudal1/Verify/Verdict.h"

#include <functional>
#include <string>
#include <vector>

namespace cudal1 {

/// A kernel to run: a self-contained .cu text (or a ready CUBIN) and the name
/// expression NVRTC should resolve ("saxpy", "ns::k<float, 256>").
struct KernelCode {
  std::string Label;    ///< "original", "candidate.cu"
  std::string Source;   ///< self-contained CUDA source
  std::string FileName; ///< for NVRTC messages
  std::string NameExpr;
  /// Optional: compiled elsewhere (e.g. cudal1/Compile/Nvrtc.h). Empty =
  /// compile in the child with NVRTC for the GPU's own arch.
  std::string Cubin;
  std::string LoweredName;
};

/// A compiler for kernel sources (e.g. cudal1/Compile/Nvrtc.h's
/// compileWithNvrtc). Called in the child process with the GPU's arch and the
/// options shared by original and candidate.
struct CompileOutput {
  bool Ok = false;
  std::string Log;
  std::string Cubin;
  std::string LoweredName;
};
using CompileFn = std::function<CompileOutput(
    const KernelCode &Code, const std::string &Arch,
    const std::vector<std::string> &Options)>;

struct VerifyOptions {
  std::string CudaPath = "/usr/local/cuda";
  std::vector<std::string> NvrtcOptions; ///< same for original and candidate
  /// Timed samples per round (--verify-samples; the driver keeps it >= 30).
  /// A long kernel gets fewer (planTiming, cudal1/Verify/Budget.h), down to
  /// MinTimingSamples, so that its timing fits in TimingSeconds.
  unsigned Samples = 50;
  unsigned Warmup = 5;
  /// Seconds the timing of one candidate may take (--verify-candidate-time;
  /// 0 = no limit but the child's own TimeoutSeconds).
  double TimingSeconds = 30;
  unsigned TimeoutSeconds = 120; ///< per job (child killed after)
  double MinSpeedup = 1.05;
  bool AllowFastMath = false;
  Tolerance Tol;
  bool Time = true; ///< false: correctness only
  /// The GPU to run on, an index among those the process sees (0 = the
  /// first); the child sees only that one (CUDA_VISIBLE_DEVICES narrowed
  /// before the driver is loaded), so original and candidate of one job
  /// always run on the same GPU.
  int Device = 0;
  /// Compiler; empty = lib/Verify's own NVRTC loader.
  CompileFn Compiler;
  /// Progress lines ("[kernel] candidate: input set 2/3 ok").
  std::function<void(const std::string &)> Progress;
};

struct VerifyJob {
  std::string Kernel;
  std::vector<ParamInfo> Params;
  /// The generated input sets and the launch shape. False when the job has
  /// only captured launches (then they are timed too).
  bool HaveHarness = true;
  Harness H;
  /// Launches recorded from the real application (cuda-l1-capture): each is
  /// an input set too. The original must reproduce the captured "after"
  /// state; the candidate must match the original.
  std::vector<ReplayLaunch> Captured;
  KernelCode Original;
  KernelCode Candidate;
  Exactness Exact = Exactness::Reassociating;
  std::string Origin = "hand-written";
};

/// Queries the GPU in a child process: driver present, the name, arch, L2
/// and clocks of GPU Opts.Device, and how many GPUs there are
/// (GpuInfo::DeviceCount). Never initialises CUDA in the caller.
GpuInfo probeGpu(const VerifyOptions &Opts);

/// Verifies one candidate against the original in a child process with a
/// time limit. Also fills \p Kernel's determinism facts about the original.
CandidateVerdict runVerifyJob(const VerifyJob &Job, const VerifyOptions &Opts,
                              const GpuInfo &Gpu, KernelReport *Kernel = nullptr);

/// The child side (exposed for tests): runs \p Job in this process and
/// writes progress ("P ...") and the result ("R <json>") lines to \p Fd.
int runVerifyJobInProcess(const VerifyJob &Job, const VerifyOptions &Opts,
                          int Fd);

} // namespace cudal1

#endif
