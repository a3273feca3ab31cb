//===- Verdict.h - results of verifying candidates --------------*- C++ -*-===//
//
// What a verification run found, as plain data: per candidate, whether it
// compiled, its comparison per input set, its timings, the speedup and the
// reason for rejecting it. Also the outputs: results JSON, the annotation
// comment written above accepted kernels (format fixed by DESIGN.md), and the
// summary table.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_VERIFY_VERDICT_H
#define CUDAL1_VERIFY_VERDICT_H

#include "cudal1/Model/Rewrite.h"
#include "cudal1/Verify/Compare.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace cudal1 {


struct GpuInfo {
  bool Ok = false;
  std::string Error; ///< "no CUDA driver (libcuda.so.1 not found)" ...
  std::string Name;
  int CcMajor = 0, CcMinor = 0;
  std::string Arch; ///< "sm_90"
  int DriverVersion = 0;
  std::string DriverVersionText; ///< NVML's "580.159.04" when available
  int SmCount = 0;
  int64_t L2Bytes = 0;
  int64_t MemBytes = 0;
  int SmClockMHzMax = 0, MemClockMHzMax = 0, BusWidthBits = 0;
  int SmClockMHzNow = 0, MemClockMHzNow = 0; ///< NVML, before timing
  double PeakBandwidthGBs = 0; ///< from memory clock and bus width
  int DeviceCount = 0; ///< GPUs the process sees (CUDA_VISIBLE_DEVICES)
  int Device = 0;      ///< the one described (VerifyOptions::Device)
};

struct InputSetResult {
  unsigned Index = 0;
  std::string Description; ///< "seed 1234: x=uniform(-1,1), ..."
  bool Ok = false;
  std::vector<BufferDiff> Diffs; ///< one per writable buffer
  std::vector<std::string> Problems; ///< guard/read-only/poison findings
};

struct TimingResult {
  bool Ok = false;
  unsigned Samples = 0, Warmup = 0;
  std::vector<double> OriginalUs, CandidateUs; ///< per sample
  double OriginalMedianUs = 0, CandidateMedianUs = 0;
  double Speedup = 0, CiLow = 0, CiHigh = 0;
  unsigned OriginalKernelsPerSample = 0, CandidateKernelsPerSample = 0;
  double OriginalWindowUs = 0, CandidateWindowUs = 0; ///< host window medians
  double FloorUs = 0; ///< fastest the memory system allows
  uint64_t MinBytes = 0;
  bool Flagged = false; ///< > 10x: review
  int SmClockAfterMHz = 0; ///< NVML, right after the samples
  std::string Note;
};

/// The verdict on one candidate.
struct CandidateVerdict {
  std::string Name;   ///< candidate file or rule ids
  std::string Origin; ///< "hand-written", "rule:...", "llm:round 1 #2"
  Exactness Exact = Exactness::Reassociating;
  bool Compiled = false;
  std::string CompileLog;
  std::vector<InputSetResult> InputSets;
  bool Correct = false;
  std::optional<TimingResult> Timing;
  bool Accepted = false;
  /// Category of the rejection: "compile", "mismatch", "unwritten-output",
  /// "read-only-modified", "out-of-bounds-write", "timeout", "fault",
  /// "crash", "hidden-work", "too-fast", "not-faster", "harness", "no-gpu",
  /// "original-nondeterministic" (a note, not a rejection).
  std::string RejectKind;
  std::string Reason; ///< one readable sentence
  std::vector<std::string> Notes;
  double Seconds = 0; ///< wall time of the job
};

struct KernelReport {
  std::string Kernel;
  std::string File;
  std::string HarnessSource; ///< spec file, "inferred from <loc>", ...
  bool OriginalDeterministic = true;
  double OriginalSpread = 0; ///< max rel diff between two original runs
  std::vector<CandidateVerdict> Candidates;
};

struct VerifyReport {
  GpuInfo Gpu;
  std::string Date; ///< UTC, ISO 8601
  std::string ToolVersion;
  double MinSpeedup = 1.05;
  std::vector<KernelReport> Kernels;
};

llvm::json::Value toJson(const GpuInfo &G);
llvm::json::Value toJson(const TimingResult &T);
llvm::json::Value toJson(const CandidateVerdict &V);
llvm::json::Value toJson(const VerifyReport &R);
bool fromJson(const llvm::json::Value &V, GpuInfo &G);
bool fromJson(const llvm::json::Value &V, CandidateVerdict &C);

/// "sm_90" from compute capability 9.0 ("sm_90a" is not used).
std::string archFromCc(int Major, int Minor);

/// The two annotation lines written above an accepted kernel:
/// // cuda-l1: 4.31x faster on NVIDIA H200 (sm_90): 812.4 us -> 188.5 us,
///    median of 50 (95% CI 4.22x-4.40x)
/// // cuda-l1: applied <what>; verified bitwise on 3 input sets
std::string formatAnnotation(const GpuInfo &G, const TimingResult &T,
                             const std::string &Applied, Exactness E,
                             unsigned InputSets);
/// Parses an annotation back (speedup, GPU, times); false if not one.
struct ParsedAnnotation {
  double Speedup = 0, OriginalUs = 0, CandidateUs = 0, CiLow = 0, CiHigh = 0;
  unsigned Samples = 0, InputSets = 0;
  std::string Gpu, Arch, Applied, Exactness;
};
bool parseAnnotation(const std::string &Text, ParsedAnnotation &Out);

/// Time in the unit that reads best: "812.4 us", "1.25 ms", "37.0 ns".
std::string formatTime(double Us);

/// Decides acceptance from correctness and timing; fills Accepted,
/// RejectKind and Reason when the candidate so far passed.
void decideAcceptance(CandidateVerdict &V, double MinSpeedup);

/// The readable table printed at the end of a run.
void printSummaryTable(const VerifyReport &R, llvm::raw_ostream &OS);

} // namespace cudal1

#endif
