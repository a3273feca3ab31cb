//===- GpuJob.cpp - the child side: compile, run, compare, time ----------===//
//
// Runs in a child process (see Runner.cpp). Talks to the parent through one
// file descriptor: "P <progress>" lines, then one "R <json>" line.
//
//===----------------------------------------------------------------------===//
#include "CudaApi.h"
#include "GpuReplay.h"
#include "cudal1/Capture/CubinSymbols.h"
#include "cudal1/Compile/Nvrtc.h"
#include "cudal1/Verify/Budget.h"
#include "cudal1/Verify/Runner.h"
#include "cudal1/Verify/Stats.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unistd.h>

using namespace llvm;

namespace cudal1 {

namespace {

void writeAll(int Fd, const std::string &S) {
  const char *P = S.data();
  size_t N = S.size();
  while (N) {
    ssize_t W = ::write(Fd, P, N);
    if (W <= 0)
      return;
    P += W;
    N -= W;
  }
}

struct Channel {
  int Fd;
  void progress(const std::string &S) {
    std::string L = S;
    std::replace(L.begin(), L.end(), '\n', ' ');
    writeAll(Fd, "P " + L + "\n");
  }
  void result(const json::Value &V) {
    std::string S;
    raw_string_ostream OS(S);
    OS << V;
    OS.flush();
    writeAll(Fd, "R " + S + "\n");
  }
};

// ---- CUPTI activity records ------------------------------------------------
struct KernelRecord {
  uint64_t Start, End;
  uint32_t Stream;
  std::string Name;
};
std::mutex RecordsMutex;
std::vector<KernelRecord> Records;
CuptiApi *ActiveCupti = nullptr;

void CUPTIAPI bufferRequested(uint8_t **Buffer, size_t *Size,
                              size_t *MaxNumRecords) {
  const size_t Bytes = 8 << 20;
  void *P = nullptr;
  if (posix_memalign(&P, 8, Bytes) != 0)
    P = nullptr;
  *Buffer = static_cast<uint8_t *>(P);
  *Size = P ? Bytes : 0;
  *MaxNumRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t *Buffer, size_t,
                              size_t ValidSize) {
  CUpti_Activity *Rec = nullptr;
  if (ActiveCupti && ValidSize) {
    std::lock_guard<std::mutex> L(RecordsMutex);
    while (ActiveCupti->ActivityGetNextRecord(Buffer, ValidSize, &Rec) ==
           CUPTI_SUCCESS) {
      if (Rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
          Rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
        auto *K = reinterpret_cast<CUpti_ActivityKernel10 *>(Rec);
        Records.push_back({K->start, K->end, K->streamId,
                           K->name ? K->name : "?"});
      } else if (Rec->kind == CUPTI_ACTIVITY_KIND_CDP_KERNEL) {
        auto *K = reinterpret_cast<CUpti_ActivityCdpKernel *>(Rec);
        Records.push_back({K->start, K->end, K->streamId,
                           K->name ? K->name : "?"});
      }
    }
  }
  free(Buffer);
}

// ---- GPU facts ---------------------------------------------------------------
void fillGpuInfo(DriverApi &D, CUdevice Dev, GpuInfo &G) {
  char Name[256] = {0};
  D.DeviceGetName(Name, sizeof(Name), Dev);
  G.Name = Name;
  auto Attr = [&](CUdevice_attribute A) {
    int V = 0;
    D.DeviceGetAttribute(&V, A, Dev);
    return V;
  };
  G.CcMajor = Attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  G.CcMinor = Attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  G.Arch = archFromCc(G.CcMajor, G.CcMinor);
  G.SmCount = Attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  G.L2Bytes = Attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  G.SmClockMHzMax = Attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;
  G.MemClockMHzMax = Attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000;
  G.BusWidthBits = Attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  size_t Mem = 0;
  D.DeviceTotalMem(&Mem, Dev);
  G.MemBytes = Mem;
  D.DriverGetVersion(&G.DriverVersion);
  // DDR: two transfers per clock.
  G.PeakBandwidthGBs =
      double(Attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)) * 1e3 * 2.0 *
      (G.BusWidthBits / 8.0) / 1e9;
  NvmlApi N;
  if (N.load()) {
    char Buf[96] = {0};
    if (N.SystemGetDriverVersion(Buf, sizeof(Buf)) == 0)
      G.DriverVersionText = Buf;
    N.clocks(0, G.SmClockMHzNow, G.MemClockMHzNow);
  }
  G.Ok = true;
}

/// Loads the driver and creates the context of GPU \p Index (0: the first
/// the process sees). Sets G.Error on failure.
bool openGpu(DriverApi &D, CUdevice &Dev, CUcontext &Ctx, GpuInfo &G,
             int Index = 0) {
  std::string E;
  if (!D.load(E)) {
    G.Error = E;
    return false;
  }
  CUresult R = D.Init(0);
  if (R != CUDA_SUCCESS) {
    G.Error = "no GPU: cuInit failed: " + D.errorText(R);
    return false;
  }
  int Count = 0;
  D.DeviceGetCount(&Count);
  if (Count == 0) {
    G.Error = "no GPU: the CUDA driver sees no device";
    return false;
  }
  G.DeviceCount = Count;
  if (Index < 0 || Index >= Count) {
    G.Error = formatv("no GPU {0}: the CUDA driver sees {1}", Index, Count)
                  .str();
    return false;
  }
  G.Device = Index;
  D.DeviceGet(&Dev, Index);
  fillGpuInfo(D, Dev, G);
  if ((R = D.DevicePrimaryCtxRetain(&Ctx, Dev)) != CUDA_SUCCESS ||
      (R = D.CtxSetCurrent(Ctx)) != CUDA_SUCCESS) {
    G.Ok = false;
    G.Error = "no GPU: cannot create a context: " + D.errorText(R);
    return false;
  }
  return true;
}

// ---- compiling -----------------------------------------------------------
struct Compiled {
  bool Ok = false;
  std::string Log;
  std::string Cubin;
  std::string Lowered;
  bool NeedsRdc = false;
};

/// A failed compile that device-side launches explain (they need
/// relocatable device code and libcudadevrt).
bool needsRdc(const KernelCode &K, const std::string &Log) {
  return K.Source.find("<<<") != std::string::npos ||
         Log.find("separate compilation") != std::string::npos ||
         Log.find("-rdc") != std::string::npos ||
         Log.find("cudaStreamFireAndForget") != std::string::npos ||
         Log.find("cudaStreamTailLaunch") != std::string::npos;
}

/// Compiles \p K with the one NVRTC loader (cudal1/Compile/Nvrtc.h) or the
/// job's own compiler, for \p Arch with \p Options (shared by original and
/// candidate).
Compiled compileKernel(const VerifyOptions &Opts, const KernelCode &K,
                       const std::string &Arch,
                       const std::vector<std::string> &Options) {
  CompileOutput Out;
  if (Opts.Compiler) {
    Out = Opts.Compiler(K, Arch, Options);
  } else {
    NvrtcOptions NO;
    NO.CudaPath = Opts.CudaPath;
    NO.GpuArch = Arch;
    NO.ExtraOptions = Options;
    NO.DefaultDevice = false;
    NvrtcResult R = compileWithNvrtc(
        K.Source, K.FileName.empty() ? "kernel.cu" : K.FileName,
        {K.NameExpr}, NO);
    Out.Ok = R.Ok;
    Out.Log = R.Ok ? R.Log : R.Error;
    Out.Cubin.assign(R.Cubin.begin(), R.Cubin.end());
    if (!R.LoweredNames.empty())
      Out.LoweredName = R.LoweredNames.front().second;
  }
  Compiled C;
  C.Ok = Out.Ok && !Out.LoweredName.empty();
  C.Log = Out.Log;
  if (Out.Ok && Out.LoweredName.empty())
    C.Log += "\nNVRTC could not resolve the name expression '" + K.NameExpr +
             "'";
  C.Cubin = std::move(Out.Cubin);
  C.Lowered = std::move(Out.LoweredName);
  C.NeedsRdc = !Out.Ok && needsRdc(K, C.Log);
  return C;
}

// ---- buffers and runs ------------------------------------------------------
struct DeviceBuffer {
  const BufferSpec *Spec = nullptr;
  unsigned ArgIndex = 0;
  CUdeviceptr Base = 0; ///< guard + data + guard
  CUdeviceptr Data = 0;
  CUdeviceptr Arg = 0; ///< what the kernel gets: Data + Spec->Before elements
  /// The state every timed sample starts from (inputs, poisoned outputs):
  /// restored before each sample, so no run sees another's results.
  CUdeviceptr Pristine = 0;
  uint64_t Bytes = 0;
  bool IsOutput() const { return !Spec->ReadOnly && Spec->Init.empty(); }
  bool Writable() const { return !Spec->ReadOnly; }
};

struct RunOutcome {
  bool Ok = false;
  std::string Fault; ///< CUDA error during launch/sync
  std::vector<Bytes> Data; ///< per buffer (data part)
  std::vector<std::string> Problems; ///< guard / read-only
  bool OutOfBounds = false, ReadOnlyChanged = false;
  double LaunchSeconds = 0; ///< launch to synchronised (host clock)
};

class Session {
public:
  Session(DriverApi &D, const VerifyJob &J, const VerifyOptions &O, Channel &C)
      : D(D), Job(J), Opts(O), Ch(C) {}

  DriverApi &D;
  const VerifyJob &Job;
  const VerifyOptions &Opts;
  Channel &Ch;
  std::vector<DeviceBuffer> Bufs;
  std::vector<std::vector<uint8_t>> ScalarStore;
  std::vector<void *> ParamPtrs;
  std::vector<Bytes> Inputs; ///< per buffer, current input set (or poison)
  std::vector<Bytes> Poisons;

  /// A __device__ variable of a module with the bytes it had when loaded.
  struct ModuleGlobal {
    std::string Name;
    CUdeviceptr Ptr = 0;
    Bytes Initial;
  };
  /// Per kernel (0 original, 1 candidate): the module's variables. Restored
  /// before every run, so that no state a kernel keeps in them (a counter, a
  /// "done" flag) is carried from one run to the next.
  std::vector<ModuleGlobal> Globals[2];

  /// Finds the writable variables of the module loaded from \p Image and
  /// keeps their initial bytes. The notes say what could not be read.
  void snapshotGlobals(int Which, CUmodule M, const std::string &Image,
                       std::vector<std::string> &Notes) {
    capture::CubinSymbols Syms;
    std::string Err;
    if (!capture::readCubinSymbols(Image.data(), Image.size(), Syms, Err)) {
      Notes.push_back("module variables not reset between runs (" + Err + ")");
      return;
    }
    for (const auto &G : Syms.Globals) {
      if (G.isConstant())
        continue;
      ModuleGlobal MG;
      MG.Name = G.Name;
      size_t Size = 0;
      if (D.ModuleGetGlobal(&MG.Ptr, &Size, M, G.Name.c_str()) !=
              CUDA_SUCCESS ||
          Size == 0)
        continue;
      MG.Initial.resize(Size);
      if (D.MemcpyDtoH(MG.Initial.data(), MG.Ptr, Size) != CUDA_SUCCESS)
        continue;
      Globals[Which].push_back(std::move(MG));
    }
  }

  /// Puts the module variables of kernel \p Which back as they were loaded.
  std::string restoreGlobals(int Which) {
    for (const ModuleGlobal &G : Globals[Which]) {
      std::string E = check(
          D.MemcpyHtoD(G.Ptr, G.Initial.data(), G.Initial.size()),
          "cuMemcpyHtoD (module variable)");
      if (!E.empty())
        return E + " '" + G.Name + "'";
    }
    return "";
  }

  /// The timed samples' starting state: every buffer from its pristine copy
  /// (inputs, in/out values, poisoned outputs), the module's variables as
  /// loaded.
  std::string restoreForTiming(int Which) {
    for (auto &B : Bufs)
      if (B.Bytes) {
        std::string E = check(D.MemcpyDtoD(B.Data, B.Pristine, B.Bytes),
                              "cuMemcpyDtoD (restoring inputs)");
        if (!E.empty())
          return E;
      }
    return restoreGlobals(Which);
  }

  /// Reads every buffer back (data part).
  std::string readBack(std::vector<Bytes> &Out) {
    Out.clear();
    for (auto &B : Bufs) {
      Bytes Data(B.Bytes);
      std::string E = check(D.MemcpyDtoH(Data.data(), B.Data, B.Bytes),
                            "cuMemcpyDtoH");
      if (!E.empty())
        return E;
      Out.push_back(std::move(Data));
    }
    return "";
  }

  std::string check(CUresult R, const char *What) {
    return R == CUDA_SUCCESS ? "" : std::string(What) + ": " + D.errorText(R);
  }

  std::string allocate() {
    const Harness &H = Job.H;
    ScalarStore.resize(H.Args.size());
    ParamPtrs.resize(H.Args.size());
    for (unsigned I = 0; I < H.Args.size(); ++I) {
      const auto &A = H.Args[I];
      if (A.IsBuffer) {
        DeviceBuffer B;
        B.Spec = &A.Buffer;
        B.ArgIndex = I;
        B.Bytes = A.Buffer.total() * A.Buffer.ElemSize;
        std::string E = check(D.MemAlloc(&B.Base, B.Bytes + 2 * GuardBytes),
                              "cuMemAlloc");
        if (!E.empty())
          return E + " (" + std::to_string(B.Bytes) + " bytes for '" +
                 A.Buffer.Param + "')";
        B.Data = B.Base + GuardBytes;
        B.Arg = B.Data + A.Buffer.Before * A.Buffer.ElemSize;
        E = check(D.MemAlloc(&B.Pristine, std::max<uint64_t>(B.Bytes, 1)),
                  "cuMemAlloc");
        if (!E.empty())
          return E;
        Bufs.push_back(B);
      } else {
        ScalarStore[I] = scalarArgBytes(A.Scalar);
      }
    }
    for (auto &B : Bufs)
      ParamPtrs[B.ArgIndex] = &B.Arg;
    for (unsigned I = 0; I < H.Args.size(); ++I)
      if (!H.Args[I].IsBuffer)
        ParamPtrs[I] = ScalarStore[I].data();
    Poisons.clear();
    for (auto &B : Bufs)
      Poisons.push_back(
          poisonBuffer(B.Spec->Kind, B.Spec->ElemSize, B.Spec->total()));
    return "";
  }

  /// Generates input set \p Set on the host.
  std::string makeInputs(unsigned Set) {
    Inputs.clear();
    std::string Desc = formatv("set {0}:", Set).str();
    for (unsigned I = 0; I < Bufs.size(); ++I) {
      const BufferSpec &S = *Bufs[I].Spec;
      if (Bufs[I].IsOutput()) {
        Inputs.push_back(Poisons[I]);
        Desc += " " + S.Param + "=poison";
        continue;
      }
      const Distribution &Dist = S.Init[Set % S.Init.size()];
      uint64_t Seed = (S.Seed ? *S.Seed : Job.H.Seed + 7919 * (I + 1)) +
                      1000003ull * Set;
      Inputs.push_back(fillBuffer(S.Kind, S.ElemSize, S.total(), Dist, Seed));
      Desc += " " + S.Param + "=" + Dist.str() + "@" + std::to_string(Seed);
    }
    return Desc;
  }

  /// Launches \p F with the harness's shape, or with the candidate's own
  /// shape (Harness::CandidateGrid/Block) when \p AsCandidate.
  std::string launch(CUfunction F, bool AsCandidate) {
    const Harness &H = Job.H;
    if (H.SharedMem > 48 * 1024)
      D.FuncSetAttribute(F, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                         int(H.SharedMem));
    const auto &G = AsCandidate && H.CandidateGrid ? *H.CandidateGrid : H.Grid;
    const auto &B =
        AsCandidate && H.CandidateBlock ? *H.CandidateBlock : H.Block;
    return check(D.LaunchKernel(F, G[0], G[1], G[2], B[0], B[1], B[2],
                                H.SharedMem, nullptr, ParamPtrs.data(),
                                nullptr),
                 "cuLaunchKernel");
  }

  /// Uploads the inputs (poisoned outputs), guards; runs; reads back and
  /// checks guards and read-only buffers.
  RunOutcome runOnce(CUfunction F, bool AsCandidate) {
    RunOutcome O;
    O.Fault = restoreGlobals(AsCandidate ? 1 : 0);
    if (!O.Fault.empty())
      return O;
    Bytes Guard = guardPattern(GuardBytes);
    // Guard, data and guard are copied each from where they are: a buffer
    // of several GB is not copied once more on the host first.
    for (unsigned I = 0; I < Bufs.size(); ++I) {
      std::string E = check(D.MemcpyHtoD(Bufs[I].Base, Guard.data(), GuardBytes),
                            "cuMemcpyHtoD");
      if (E.empty() && !Inputs[I].empty())
        E = check(D.MemcpyHtoD(Bufs[I].Base + GuardBytes, Inputs[I].data(),
                               Inputs[I].size()),
                  "cuMemcpyHtoD");
      if (E.empty())
        E = check(D.MemcpyHtoD(Bufs[I].Base + GuardBytes + Inputs[I].size(),
                               Guard.data(), GuardBytes),
                  "cuMemcpyHtoD");
      if (!E.empty()) {
        O.Fault = E;
        return O;
      }
    }
    auto L0 = std::chrono::steady_clock::now();
    O.Fault = launch(F, AsCandidate);
    if (O.Fault.empty())
      O.Fault = check(D.CtxSynchronize(), "kernel execution");
    O.LaunchSeconds = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - L0)
                          .count();
    if (!O.Fault.empty())
      return O;
    for (unsigned I = 0; I < Bufs.size(); ++I) {
      Bytes Before(GuardBytes), After(GuardBytes), Data(Bufs[I].Bytes);
      std::string E =
          check(D.MemcpyDtoH(Before.data(), Bufs[I].Base, GuardBytes),
                "cuMemcpyDtoH");
      if (E.empty() && !Data.empty())
        E = check(D.MemcpyDtoH(Data.data(), Bufs[I].Base + GuardBytes,
                               Data.size()),
                  "cuMemcpyDtoH");
      if (E.empty())
        E = check(D.MemcpyDtoH(After.data(),
                               Bufs[I].Base + GuardBytes + Bufs[I].Bytes,
                               GuardBytes),
                  "cuMemcpyDtoH");
      if (!E.empty()) {
        O.Fault = E;
        return O;
      }
      const std::string &Name = Bufs[I].Spec->Param;
      uint64_t First = 0;
      uint64_t BadBefore = checkGuard(Before.data(), GuardBytes, First);
      if (BadBefore) {
        O.OutOfBounds = true;
        O.Problems.push_back(formatv("out-of-bounds write: {0} bytes of the "
                                     "guard zone before '{1}' changed "
                                     "(nearest at byte {2} before the start)",
                                     BadBefore, Name, GuardBytes - First)
                                 .str());
      }
      uint64_t FirstAfter = 0;
      uint64_t BadAfter = checkGuard(After.data(), GuardBytes, FirstAfter);
      if (BadAfter) {
        O.OutOfBounds = true;
        O.Problems.push_back(formatv("out-of-bounds write: {0} bytes of the "
                                     "guard zone after '{1}' changed (first "
                                     "at byte {2} past the end, element {3})",
                                     BadAfter, Name, FirstAfter,
                                     Bufs[I].Spec->Count +
                                         FirstAfter / Bufs[I].Spec->ElemSize)
                                 .str());
      }
      if (Bufs[I].Spec->ReadOnly && Data != Inputs[I]) {
        uint64_t N = 0, FirstEl = UINT64_MAX;
        unsigned ES = Bufs[I].Spec->ElemSize;
        for (uint64_t E = 0; E < Bufs[I].Spec->total(); ++E)
          if (std::memcmp(&Data[E * ES], &Inputs[I][E * ES], ES)) {
            ++N;
            FirstEl = std::min(FirstEl, E);
          }
        O.ReadOnlyChanged = true;
        O.Problems.push_back(formatv("read-only buffer '{0}' (const) was "
                                     "modified: {1} elements changed, first "
                                     "[{2}]",
                                     Name, N, FirstEl)
                                 .str());
      }
      O.Data.push_back(std::move(Data));
    }
    O.Ok = true;
    return O;
  }
};

/// One timed sample: host timestamps (CUPTI's clock) around one launch.
struct Window {
  int Which; // 0 original, 1 candidate
  uint64_t T0, T1;
};

/// Per window, by original (0) / candidate (1): the span from the first start
/// to the last end of the kernel records that start in it (us; 0 when none),
/// and how many there are.
void kernelTimesPerWindow(const std::vector<KernelRecord> &Recs,
                          const std::vector<Window> &Windows,
                          std::vector<double> Us[2],
                          std::vector<double> Count[2]) {
  for (const auto &W : Windows) {
    uint64_t Lo = UINT64_MAX, Hi = 0;
    unsigned N = 0;
    for (const auto &R : Recs)
      if (R.Start >= W.T0 && R.Start <= W.T1) {
        Lo = std::min(Lo, R.Start);
        Hi = std::max(Hi, R.End);
        ++N;
      }
    Us[W.Which].push_back(N ? (Hi - Lo) / 1000.0 : 0);
    Count[W.Which].push_back(N);
  }
}

/// True when environment variable \p Name is set to \p Value (the
/// diagnostic switches of docs/verify.md).
bool envIs(const char *Name, const char *Value) {
  const char *V = std::getenv(Name);
  return V && std::string(V) == Value;
}

bool bitwiseEqual(const RunOutcome &A, const RunOutcome &B) {
  return A.Data == B.Data;
}

} // namespace

namespace {

/// One verification job, in the child process: the GPU, CUPTI, both
/// kernels compiled and loaded, correctness on every input set, then the
/// timing rounds and the checks drawn from them. Each phase is a method; the
/// verdict and the extra facts accumulate in V and Extra.
class JobRun {
public:
  JobRun(const VerifyJob &Job, const VerifyOptions &Opts, int Fd)
      : Job(Job), Opts(Opts), Ch{Fd}, T0(std::chrono::steady_clock::now()) {
    V.Name = Job.Candidate.Label;
    V.Origin = Job.Origin;
    V.Exact = Job.Exact;
  }

  int run();

private:
  int finish(int Code);
  void reject(const std::string &Kind, const std::string &Reason) {
    if (V.RejectKind.empty()) {
      V.RejectKind = Kind;
      V.Reason = Reason;
    }
  }
  void noteCandidateShape();
  void startCupti();
  /// Returns -1 to go on, else the exit code.
  int compileBoth();
  bool loadModule(Compiled &C, CUfunction &F, CUmodule &M, std::string &Err);
  int checkInputSet(unsigned Set);
  int checkCapturedLaunch(size_t K);
  /// Element kind and size of each allocation of a captured launch, from the
  /// pointer parameters that point into it (bytes when none says).
  std::vector<std::pair<ElemKind, unsigned>>
  allocationKinds(const ReplayLaunch &L) const;
  BufferDiff compareAllocation(const ReplayLaunch &L, size_t A,
                               const std::pair<ElemKind, unsigned> &Kind,
                               const Bytes &Ref, const Bytes &Got,
                               bool Bitwise);
  bool originalLeavesOutputUnwritten(const RunOutcome &Ref);
  void compareCandidate(unsigned Set, const RunOutcome &Ref,
                        const RunOutcome &Got, InputSetResult &IR,
                        const std::map<unsigned, std::vector<double>> *Allow =
                            nullptr);
  /// When a non-bitwise candidate is outside the tolerance on a float
  /// buffer of input set \p Set: the original run again on its inputs
  /// perturbed within rounding, and per buffer the per-element allowance
  /// that gives (conditioningAllowance); empty when not needed or not
  /// measurable.
  std::map<unsigned, std::vector<double>>
  conditioning(unsigned Set, const RunOutcome &Ref, const RunOutcome &Got);
  int correctness();
  int timing();
  void prepareTiming();
  void sample(CUfunction F, int Which, bool Record);
  std::string restoreTimed(int Which);
  std::string launchTimed(CUfunction F, int Which);
  bool checkTimedReplay();
  void round();
  bool checkTimedState();
  int serializedRound(std::vector<double> TUs[2],
                      const std::vector<double> Count[2], std::string &Note);
  void timingFacts(const std::vector<double> &OrigUs,
                   const std::vector<double> &CandUs);
  void antiCheat(double P1Orig, double P1Cand);
  void analyseWindows(const std::vector<KernelRecord> &Recs);
  int profileOnlyResult();

  const VerifyJob &Job;
  const VerifyOptions &Opts;
  Channel Ch;
  std::chrono::steady_clock::time_point T0;
  CandidateVerdict V;
  json::Object Extra;

  DriverApi D;
  CUdevice Dev = 0;
  CUcontext Ctx = nullptr;
  GpuInfo G;
  CuptiApi Cupti;
  std::string CuptiError;
  bool HaveCupti = false;
  Compiled CO, CC;
  bool Rdc = false;
  CUfunction FO = nullptr, FC = nullptr;
  std::unique_ptr<Session> S;
  CUmodule MO = nullptr, MC = nullptr;
  /// Without a harness, the timed samples replay captured launch 0: its
  /// device state, and the original's result on it (the reference).
  std::unique_ptr<ReplayRun> Timed;
  ReplayState TimedRef;
  /// Captured launch 0 was replayed for this candidate (original and
  /// candidate), the original reproduced its captured result bit for bit,
  /// and how long its first replay took (restore, launch, read-back:
  /// seconds, an upper bound of the launch the timing plan is made for).
  bool CaptureReplayed = false, CaptureReproduces = false;
  double CaptureSeconds = 0;
  /// The samples replay captured launch 0: always without a harness; with
  /// one, when the original reproduced the capture (else a replay of state
  /// the capture missed would be timed).
  bool timeOnCapture() const {
    return CaptureReplayed && (!Job.HaveHarness || CaptureReproduces);
  }

  // Correctness facts the timing uses.
  Tolerance Tol;
  /// Tol for buffer \p Param of a launch of \p Threads threads (a reordered
  /// per-thread sum gets its wider rtol; said once in the notes).
  Tolerance tolFor(const std::string &Param, ElemKind K, uint64_t Threads);
  std::set<std::string> GridSumNoted;
  /// Per buffer: the largest absolute difference between the original's two
  /// runs of one input set (a nondeterministic original: float atomics).
  std::map<std::string, double> OrigAbsSpread;
  std::set<std::string> SpreadNoted;
  bool Deterministic = true;
  double Spread = 0;
  /// The shortest run of the original in the correctness runs (seconds;
  /// 0 = not measured): what the timing plan is made for.
  double OriginalSeconds = 0;
  void noteOriginal(const RunOutcome &R) {
    if (R.Ok && R.LaunchSeconds > 0 &&
        (OriginalSeconds == 0 || R.LaunchSeconds < OriginalSeconds))
      OriginalSeconds = R.LaunchSeconds;
  }
  std::vector<Bytes> Set0Pre, Set0Ref; ///< set 0 before / after the original
  /// Set 0's conditioning allowance per buffer (conditioning()): the timed
  /// runs' final state is compared with it too.
  std::map<unsigned, std::vector<double>> Set0Allow;

  // Timing state.
  TimingResult T;
  bool ProfileOnly = false;
  uint64_t FlushBytes = 0;
  CUdeviceptr Flush = 0, Sink = 0;
  CUfunction FlushFn = nullptr;
  std::string FlushMode = "read";
  unsigned Counter = 0, GapUs = 0;
  std::vector<Window> Windows;
  std::string RunErr;
  std::vector<double> KUs[2], WUs[2], Excess[2], Count[2];
  uint64_t Stray = 0;
  int SmNow = 0, MemNow = 0;
};

/// A non-bitwise candidate may differ from the original by this many times
/// the original's own change under inputs perturbed within rounding
/// (JobRun::conditioning): reassociated sums round differently by about as
/// much as the inputs' last bits move the result.
constexpr double ConditioningFactor = 4.0;

/// The kernel records of the timed rounds (not the L2 flush's).
std::vector<KernelRecord> timedRecords() {
  std::lock_guard<std::mutex> L(RecordsMutex);
  std::vector<KernelRecord> Out;
  for (const auto &R : Records)
    if (R.Name != "cudal1_l2_flush")
      Out.push_back(R);
  return Out;
}

int JobRun::finish(int Code) {
  V.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  json::Object O{{"verdict", toJson(V)}};
  for (auto &KV : Extra)
    O[KV.first] = KV.second;
  Ch.result(std::move(O));
  return Code;
}

void JobRun::noteCandidateShape() {
  const Harness &H = Job.H;
  if (!H.CandidateGrid && !H.CandidateBlock)
    return;
  auto Dims = [](const std::array<uint64_t, 3> &A) {
    return formatv("({0}, {1}, {2})", A[0], A[1], A[2]).str();
  };
  V.Notes.push_back(
      "the candidate is launched with its own shape: grid " +
      Dims(H.CandidateGrid ? *H.CandidateGrid : H.Grid) + ", block " +
      Dims(H.CandidateBlock ? *H.CandidateBlock : H.Block) +
      " (the original: grid " + Dims(H.Grid) + ", block " + Dims(H.Block) +
      ")" +
      (H.CandidateLaunchOrigin.empty() ? ""
                                       : "; from " + H.CandidateLaunchOrigin));
}

/// CUPTI first, so it sees every launch.
void JobRun::startCupti() {
  // Diagnostic switch (docs/verify.md): CUDAL1_CUPTI=0 leaves CUPTI out, to
  // see what tracing costs (with CUDAL1_UNDER_NCU=1 the timing loop still
  // runs, timed by host windows only).
  const bool NoCupti = envIs("CUDAL1_CUPTI", "0");
  HaveCupti = Opts.Time && !NoCupti && Cupti.load(Opts.CudaPath, CuptiError);
  if (NoCupti)
    CuptiError = "CUPTI left out (CUDAL1_CUPTI=0)";
  if (!HaveCupti)
    return;
  ActiveCupti = &Cupti;
  CUptiResult CR =
      Cupti.ActivityRegisterCallbacks(bufferRequested, bufferCompleted);
  if (CR == CUPTI_SUCCESS)
    CR = Cupti.ActivityEnable(envIs("CUDAL1_CUPTI_KIND", "kernel")
                                  ? CUPTI_ACTIVITY_KIND_KERNEL
                                  : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (CR != CUPTI_SUCCESS) {
    const char *Msg = nullptr;
    Cupti.GetResultString(CR, &Msg);
    CuptiError = std::string("CUPTI activity API unusable: ") +
                 (Msg ? Msg : "error");
    HaveCupti = false;
    return;
  }
  // Device-side launches (CDP) where supported; not all GPUs are.
  // Diagnostic switch (docs/verify.md): CUDAL1_CUPTI_CDP=0.
  if (!envIs("CUDAL1_CUPTI_CDP", "0"))
    Cupti.ActivityEnable(CUPTI_ACTIVITY_KIND_CDP_KERNEL);
}

/// Compiles both with the same options, for this GPU's arch.
int JobRun::compileBoth() {
  Ch.progress("compiling original and candidate for " + G.Arch);
  if (Job.Original.Cubin.empty() || Job.Candidate.Cubin.empty()) {
    std::vector<std::string> Base = {"-DCUDAL1_VERIFY=1"};
    for (auto &O : Opts.NvrtcOptions)
      Base.push_back(O);
    CO = compileKernel(Opts, Job.Original, G.Arch, Base);
    CC = compileKernel(Opts, Job.Candidate, G.Arch, Base);
    if (CO.NeedsRdc || CC.NeedsRdc) {
      // Device-side launches need relocatable device code; both get it.
      Rdc = true;
      Base.push_back("-rdc=true");
      CO = compileKernel(Opts, Job.Original, G.Arch, Base);
      CC = compileKernel(Opts, Job.Candidate, G.Arch, Base);
      V.Notes.push_back("compiled with -rdc=true (device-side launches) and "
                        "linked with libcudadevrt");
    }
  } else {
    CO.Ok = CC.Ok = true;
    CO.Cubin = Job.Original.Cubin;
    CO.Lowered = Job.Original.LoweredName;
    CC.Cubin = Job.Candidate.Cubin;
    CC.Lowered = Job.Candidate.LoweredName;
  }
  V.CompileLog = CC.Log;
  if (!CO.Ok) {
    reject("harness", "the original does not compile with NVRTC: " + CO.Log);
    return finish(2);
  }
  if (!CC.Ok) {
    reject("compile", "does not compile with NVRTC: " + CC.Log);
    return finish(1);
  }
  V.Compiled = true;
  return -1;
}

bool JobRun::loadModule(Compiled &C, CUfunction &F, CUmodule &M,
                        std::string &Err) {
  const void *Image = C.Cubin.data();
  void *Linked = nullptr;
  CUlinkState LS = nullptr;
  if (Rdc) {
    CUresult R = D.LinkCreate(0, nullptr, nullptr, &LS);
    if (R == CUDA_SUCCESS)
      R = D.LinkAddData(LS, CU_JIT_INPUT_CUBIN, (void *)C.Cubin.data(),
                        C.Cubin.size(), "kernel.cubin", 0, nullptr, nullptr);
    if (R == CUDA_SUCCESS)
      R = D.LinkAddFile(LS, CU_JIT_INPUT_LIBRARY,
                        (Opts.CudaPath + "/lib64/libcudadevrt.a").c_str(), 0,
                        nullptr, nullptr);
    size_t Size = 0;
    if (R == CUDA_SUCCESS)
      R = D.LinkComplete(LS, &Linked, &Size);
    if (R != CUDA_SUCCESS) {
      Err = "linking with libcudadevrt: " + D.errorText(R);
      return false;
    }
    Image = Linked;
  }
  CUresult R = D.ModuleLoadData(&M, Image);
  if (LS)
    D.LinkDestroy(LS);
  if (R != CUDA_SUCCESS) {
    Err = "cuModuleLoadData: " + D.errorText(R);
    return false;
  }
  R = D.ModuleGetFunction(&F, M, C.Lowered.c_str());
  if (R != CUDA_SUCCESS) {
    Err = "cuModuleGetFunction(" + C.Lowered + "): " + D.errorText(R);
    return false;
  }
  return true;
}

/// An output the original leaves entirely NaN (poison) is read before it is
/// written (an in/out buffer) or never written: the harness is wrong.
bool JobRun::originalLeavesOutputUnwritten(const RunOutcome &Ref) {
  for (unsigned I = 0; I < S->Bufs.size(); ++I) {
    const BufferSpec &B = *S->Bufs[I].Spec;
    if (!S->Bufs[I].IsOutput() || !isFloatKind(B.Kind) || B.Count == 0)
      continue;
    BufferDiff Self = compareBuffer(B.Param, B.Kind, B.ElemSize, Ref.Data[I],
                                    S->Poisons[I], {}, false, Tolerance());
    if (Self.ok()) {
      reject("harness",
             formatv("after the original ran, output '{0}' is NaN in every "
                     "element: it is read before it is written (an in/out "
                     "buffer: give it init: in the harness spec) or the "
                     "launch does not cover it",
                     B.Param)
                 .str());
      return true;
    }
  }
  return false;
}

Tolerance JobRun::tolFor(const std::string &Param, ElemKind K,
                         uint64_t Threads) {
  std::string Note;
  Tolerance Out = toleranceForBuffer(Tol, Param, K, Threads, &Note);
  if (!Note.empty() && GridSumNoted.insert(Param).second)
    V.Notes.push_back(Note);
  // A nondeterministic original differs from itself by up to S on this
  // buffer: a candidate within its tolerance plus 2S cannot be told apart
  // from another run of the original (an identical kernel must pass).
  auto It = OrigAbsSpread.find(Param);
  if (It != OrigAbsSpread.end() && isFloatKind(K)) {
    double Atol, Rtol;
    toleranceFor(K, Out, Atol, Rtol);
    setToleranceFor(K, Out, Atol + 2 * It->second, Rtol);
    if (SpreadNoted.insert(Param).second)
      V.Notes.push_back(formatv("'{0}': the original's own two runs differ "
                                "by up to {1:e} (absolute): the candidate is "
                                "allowed twice that on top of the tolerance",
                                Param, It->second)
                            .str());
  }
  return Out;
}

/// The threads of a launch of \p Grid blocks of \p Block.
template <typename A> static uint64_t threadsOf(const A &Grid, const A &Block) {
  uint64_t N = 1;
  for (unsigned I = 0; I < 3; ++I)
    N *= uint64_t(Grid[I]) * uint64_t(Block[I]);
  return N;
}

std::map<unsigned, std::vector<double>>
JobRun::conditioning(unsigned Set, const RunOutcome &Ref,
                     const RunOutcome &Got) {
  std::map<unsigned, std::vector<double>> Out;
  if (Job.Exact == Exactness::Bitwise || !Got.Ok || Got.OutOfBounds ||
      Got.ReadOnlyChanged)
    return Out;
  bool FloatMismatch = false;
  for (unsigned I = 0; I < S->Bufs.size() && !FloatMismatch; ++I) {
    const BufferSpec &B = *S->Bufs[I].Spec;
    if (!S->Bufs[I].Writable() || !isFloatKind(B.Kind))
      continue;
    BufferDiff Dd = compareBuffer(
        B.Param, B.Kind, B.ElemSize, Ref.Data[I], Got.Data[I], S->Inputs[I],
        false, tolFor(B.Param, B.Kind, threadsOf(Job.H.Grid, Job.H.Block)));
    FloatMismatch = !Dd.ok() && !Dd.Unwritten;
  }
  if (!FloatMismatch)
    return Out;
  std::vector<Bytes> Saved = S->Inputs;
  bool Any = false;
  for (unsigned I = 0; I < S->Bufs.size(); ++I) {
    const BufferSpec &B = *S->Bufs[I].Spec;
    // Poisoned outputs are not inputs; only continuous values are moved (a
    // float holding an index, a label or a mask would change class).
    if (S->Bufs[I].IsOutput() || !isFloatKind(B.Kind) || B.Init.empty())
      continue;
    Distribution::Kind DK = B.Init[Set % B.Init.size()].K;
    if (DK != Distribution::Uniform && DK != Distribution::Normal)
      continue;
    perturbWithinRounding(B.Kind, B.ElemSize, S->Inputs[I], Set * 131 + I);
    Any = true;
  }
  if (!Any) {
    S->Inputs = Saved;
    return Out;
  }
  Ch.progress(formatv("input set {0}: original on inputs perturbed within "
                      "rounding",
                      Set + 1)
                  .str());
  RunOutcome P = S->runOnce(FO, false);
  S->Inputs = std::move(Saved);
  if (!P.Ok)
    return Out;
  for (unsigned I = 0; I < S->Bufs.size(); ++I) {
    const BufferSpec &B = *S->Bufs[I].Spec;
    if (!S->Bufs[I].Writable() || !isFloatKind(B.Kind))
      continue;
    std::vector<double> A = conditioningAllowance(
        B.Kind, B.ElemSize, Ref.Data[I], P.Data[I], ConditioningFactor);
    double Max = 0, MaxRef = 0;
    for (double X : A)
      Max = std::max(Max, X);
    if (Max == 0)
      continue;
    BufferDiff Self = compareBuffer(B.Param, B.Kind, B.ElemSize, Ref.Data[I],
                                    Ref.Data[I], {}, false, Tolerance());
    MaxRef = Self.MaxAbsRef;
    V.Notes.push_back(
        formatv("'{0}' on input set {1}: the original itself moves by up to "
                "{2:e} ({3:e} of the largest |value|) when its float inputs "
                "are perturbed by about 32 units of rounding (1 +- 2^-18 for "
                "float, 2^-47 for double; ill-conditioned there): each "
                "element is allowed {4} times its own move on top of the "
                "tolerance",
                B.Param, Set, Max / ConditioningFactor,
                MaxRef > 0 ? Max / ConditioningFactor / MaxRef : 0.0,
                ConditioningFactor)
            .str());
    Out[I] = std::move(A);
  }
  return Out;
}

void JobRun::compareCandidate(unsigned Set, const RunOutcome &Ref,
                              const RunOutcome &Got, InputSetResult &IR,
                              const std::map<unsigned, std::vector<double>>
                                  *Allow) {
  IR.Problems = Got.Problems;
  IR.Ok = Got.Problems.empty();
  if (Got.OutOfBounds)
    reject("out-of-bounds-write", Got.Problems.front());
  if (Got.ReadOnlyChanged)
    for (auto &P : Got.Problems)
      if (P.find("read-only") != std::string::npos) {
        reject("read-only-modified", P);
        break;
      }
  bool Bitwise = Job.Exact == Exactness::Bitwise && Deterministic;
  for (unsigned I = 0; I < S->Bufs.size(); ++I) {
    if (!S->Bufs[I].Writable())
      continue;
    const BufferSpec &B = *S->Bufs[I].Spec;
    auto AI = Allow ? Allow->find(I) : std::map<unsigned,
                                                std::vector<double>>::
                                           const_iterator();
    BufferDiff Dd = compareBuffer(
        B.Param, B.Kind, B.ElemSize, Ref.Data[I], Got.Data[I], S->Inputs[I],
        Bitwise, tolFor(B.Param, B.Kind, threadsOf(Job.H.Grid, Job.H.Block)),
        Allow && AI != Allow->end() ? &AI->second : nullptr);
    if (!Dd.ok()) {
      IR.Ok = false;
      if (Dd.Unwritten)
        reject("unwritten-output",
               formatv("input set {0}: {1}", Set, Dd.str()).str());
      else
        reject("mismatch", formatv("input set {0} ({1}): {2}", Set,
                                   Bitwise ? "bitwise" : "tolerance", Dd.str())
                               .str());
    }
    IR.Diffs.push_back(Dd);
  }
}

/// The original twice (it must reproduce itself), then the candidate.
/// Returns -1 to go on, else the exit code.
int JobRun::checkInputSet(unsigned Set) {
  InputSetResult IR;
  IR.Index = Set;
  IR.Description = S->makeInputs(Set);
  unsigned N = Job.H.InputSets;
  Ch.progress(formatv("input set {0}/{1}: original", Set + 1, N).str());
  RunOutcome RefA = S->runOnce(FO, false);
  if (!RefA.Ok) {
    reject("harness", formatv("the original fails on input set {0}: {1}", Set,
                              RefA.Fault)
                          .str());
    V.Correct = false;
    return finish(2);
  }
  if (!RefA.Problems.empty()) {
    reject("harness", "the original itself " + RefA.Problems.front() +
                          " on input set " + std::to_string(Set) +
                          ": the harness sizes are wrong");
    V.Correct = false;
    return finish(2);
  }
  if (originalLeavesOutputUnwritten(RefA)) {
    V.Correct = false;
    return finish(2);
  }
  RunOutcome RefB = S->runOnce(FO, false);
  noteOriginal(RefA);
  noteOriginal(RefB);
  if (!RefB.Ok) {
    reject("harness", "the original fails on its second run: " + RefB.Fault);
    V.Correct = false;
    return finish(2);
  }
  if (!bitwiseEqual(RefA, RefB)) {
    Deterministic = false;
    for (unsigned I = 0; I < S->Bufs.size(); ++I) {
      const BufferSpec &B = *S->Bufs[I].Spec;
      BufferDiff Dd = compareBuffer(B.Param, B.Kind, B.ElemSize, RefA.Data[I],
                                    RefB.Data[I], {}, false, Tolerance());
      Spread = std::max(Spread, Dd.MaxRelErr);
      if (std::isfinite(Dd.MaxAbsErr) && Dd.MaxAbsErr > 0)
        OrigAbsSpread[B.Param] =
            std::max(OrigAbsSpread[B.Param], Dd.MaxAbsErr);
    }
  }
  if (Set == 0) {
    Set0Pre = S->Inputs;
    Set0Ref = RefA.Data;
  }
  Ch.progress(formatv("input set {0}/{1}: candidate", Set + 1, N).str());
  RunOutcome Got = S->runOnce(FC, true);
  if (!Got.Ok) {
    IR.Problems.push_back("fault: " + Got.Fault);
    V.InputSets.push_back(IR);
    V.Correct = false;
    reject("fault",
           formatv("faults on input set {0}: {1}", Set, Got.Fault).str());
    return finish(1); // the context may be unusable now
  }
  auto Allow = conditioning(Set, RefA, Got);
  compareCandidate(Set, RefA, Got, IR, Allow.empty() ? nullptr : &Allow);
  if (Set == 0)
    Set0Allow = std::move(Allow);
  V.Correct &= IR.Ok;
  Ch.progress(formatv("input set {0}/{1}: {2}", Set + 1, N,
                      IR.Ok ? "ok" : "FAILED")
                  .str());
  V.InputSets.push_back(IR);
  return -1;
}

std::vector<std::pair<ElemKind, unsigned>>
JobRun::allocationKinds(const ReplayLaunch &L) const {
  std::vector<std::pair<ElemKind, unsigned>> Out(L.Allocations.size(),
                                                 {ElemKind::Bytes, 1});
  for (const CapturePointer &F : L.Fixups) {
    if (F.Allocation >= Out.size() || F.Parameter >= Job.Params.size() ||
        Out[F.Allocation].first != ElemKind::Bytes)
      continue;
    const ParamInfo &P = Job.Params[F.Parameter];
    if (!P.IsPointer)
      continue;
    ElemKind K = elemKindFromType(P.ElementType);
    unsigned Size = elemKindSize(K);
    uint64_t Bytes = L.Allocations[F.Allocation].Size;
    if (K != ElemKind::Bytes && Size && Bytes % Size == 0 && F.Offset % Size == 0)
      Out[F.Allocation] = {K, Size};
  }
  return Out;
}

BufferDiff JobRun::compareAllocation(const ReplayLaunch &L, size_t A,
                                     const std::pair<ElemKind, unsigned> &Kind,
                                     const Bytes &Ref, const Bytes &Got,
                                     bool Bitwise) {
  std::string Name = "captured allocation " + std::to_string(A);
  Tolerance T = Tol;
  for (const CapturePointer &F : L.Fixups)
    if (F.Allocation == A && F.Parameter < Job.Params.size()) {
      Name = "'" + Job.Params[F.Parameter].Name + "' (captured allocation " +
             std::to_string(A) + ")";
      T = tolFor(Job.Params[F.Parameter].Name, Kind.first,
                 threadsOf(L.Grid, L.Block));
      break;
    }
  // No poison here: the captured "before" state is the starting point.
  return compareBuffer(Name, Kind.first, Kind.second, Ref, Got,
                       L.Allocations[A].Before, Bitwise || Kind.first ==
                                                              ElemKind::Bytes,
                       T);
}

/// A launch recorded from the real application: the original must reproduce
/// the captured "after" state (else it is reported as not reproducible and
/// how much it differs is measured), the candidate must match the original.
/// Returns -1 to go on, else the exit code.
int JobRun::checkCapturedLaunch(size_t K) {
  const ReplayLaunch &L = Job.Captured[K];
  InputSetResult IR;
  IR.Index = unsigned(V.InputSets.size());
  IR.Description = formatv("{0}: grid ({1},{2},{3}), block ({4},{5},{6}), "
                           "{7} allocations",
                           L.Origin, L.Grid[0], L.Grid[1], L.Grid[2],
                           L.Block[0], L.Block[1], L.Block[2],
                           L.Allocations.size())
                       .str();
  if (Job.H.CandidateGrid || Job.H.CandidateBlock) {
    V.Notes.push_back(L.Origin + ": not replayed (the candidate changes the "
                                 "launch shape; captured launches keep the "
                                 "original's)");
    return -1;
  }
  Ch.progress("captured launch " + std::to_string(K + 1) + "/" +
              std::to_string(Job.Captured.size()) + ": original");
  ReplayRun R(D, L);
  std::string E = R.allocate();
  ReplayState Ref, Again, Got;
  auto RunKernel = [&](int Which, ReplayState &Out) {
    std::string Err = S->restoreGlobals(Which);
    if (Err.empty())
      Err = R.restore(Which ? MC : MO);
    if (Err.empty())
      Err = R.launch(Which ? FC : FO);
    if (Err.empty())
      Err = R.readBack(Which ? MC : MO, Out);
    return Err;
  };
  auto TR0 = std::chrono::steady_clock::now();
  if (E.empty())
    E = RunKernel(0, Ref);
  double RefSeconds = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - TR0)
                          .count();
  if (E.empty())
    E = RunKernel(0, Again);
  if (!E.empty()) {
    reject("harness", "the original fails on " + L.Origin + ": " + E);
    V.Correct = false;
    return finish(2);
  }
  auto Kinds = allocationKinds(L);
  bool Reproduces = true;
  double Off = 0;
  for (size_t A = 0; A < L.Allocations.size(); ++A) {
    if (Ref.Allocations[A] != Again.Allocations[A])
      Deterministic = false;
    if (Ref.Allocations[A] != L.Allocations[A].After) {
      Reproduces = false;
      BufferDiff Dd = compareAllocation(L, A, Kinds[A], L.Allocations[A].After,
                                        Ref.Allocations[A], false);
      Off = std::max(Off, Dd.MaxRelErr);
    }
  }
  if (!Reproduces)
    V.Notes.push_back(formatv("{0}: the original does not reproduce the "
                              "captured result bit for bit (max rel diff "
                              "{1:e}); the candidate is compared with the "
                              "original's own run",
                              L.Origin, Off)
                          .str());
  Ch.progress("captured launch " + std::to_string(K + 1) + ": candidate");
  E = RunKernel(1, Got);
  if (!E.empty()) {
    IR.Problems.push_back("fault: " + E);
    V.InputSets.push_back(IR);
    V.Correct = false;
    reject("fault", "faults on " + L.Origin + ": " + E);
    return finish(1);
  }
  IR.Problems = Got.Problems;
  IR.Ok = Got.Problems.empty();
  if (!Got.Problems.empty())
    reject("out-of-bounds-write", L.Origin + ": " + Got.Problems.front());
  bool Bitwise = Job.Exact == Exactness::Bitwise && Deterministic;
  for (size_t A = 0; A < L.Allocations.size(); ++A) {
    BufferDiff Dd = compareAllocation(L, A, Kinds[A], Ref.Allocations[A],
                                      Got.Allocations[A], Bitwise);
    if (!Dd.ok()) {
      IR.Ok = false;
      reject("mismatch", L.Origin + ": " + Dd.str());
    }
    IR.Diffs.push_back(Dd);
  }
  for (size_t G = 0; G < L.Globals.size(); ++G)
    if (Ref.Variables[G] != Got.Variables[G]) {
      IR.Ok = false;
      reject("mismatch", L.Origin + ": module variable '" + L.Globals[G].Name +
                             "' differs from the original's");
    }
  V.Correct &= IR.Ok;
  V.InputSets.push_back(IR);
  // The first captured launch is what the samples replay (the
  // application's own data), harness or not (timeOnCapture()).
  if (K == 0) {
    TimedRef = Ref;
    CaptureReplayed = true;
    CaptureReproduces = Reproduces;
    CaptureSeconds = RefSeconds;
  }
  return -1;
}

int JobRun::correctness() {
  Tol = Job.H.Tol ? *Job.H.Tol : Opts.Tol;
  V.Correct = true;
  for (unsigned Set = 0; Job.HaveHarness && Set < Job.H.InputSets; ++Set)
    if (int R = checkInputSet(Set); R >= 0)
      return R;
  Extra["original_deterministic"] = Deterministic;
  Extra["original_spread"] = Spread;
  if (!Deterministic) {
    V.Notes.push_back(formatv("the original is not deterministic (two runs "
                              "differ, max rel diff {0:e}): compared within "
                              "tolerance only",
                              Spread)
                          .str());
    if (Job.Exact == Exactness::Bitwise)
      V.Notes.push_back("bitwise exactness could not be checked");
  }
  return -1;
}

/// Inputs of set 0 and the L2 flush: the state every timed sample starts
/// from is kept in each buffer's pristine copy (outputs poisoned, as in a
/// correctness run).
void JobRun::prepareTiming() {
  // Captured launch 0, when it was replayed for this candidate: the samples
  // replay it (the application's own data and launch shape; a harness's
  // generated inputs may exercise other paths, e.g. a count of pixels equal
  // to 255 that uniform random bytes rarely are). Else input set 0.
  if (timeOnCapture()) {
    Timed = std::make_unique<ReplayRun>(D, Job.Captured.front());
    std::string E = Timed->allocate();
    if (!E.empty() && RunErr.empty())
      RunErr = E;
    V.Notes.push_back("timed on " + Job.Captured.front().Origin);
  } else {
    S->makeInputs(0);
    for (unsigned I = 0; I < S->Bufs.size(); ++I)
      if (S->Bufs[I].Bytes) {
        D.MemcpyHtoD(S->Bufs[I].Data, S->Inputs[I].data(), S->Bufs[I].Bytes);
        D.MemcpyHtoD(S->Bufs[I].Pristine, S->Inputs[I].data(),
                     S->Bufs[I].Bytes);
      }
  }
  FlushBytes = std::max<int64_t>(2 * G.L2Bytes, 8 << 20);
  // The L2 is flushed by *reading* a buffer twice its size: that also writes
  // back what earlier runs left dirty, outside the measured window, so the
  // kernel starts with a clean, cold L2 (as Nsight Compute's cache control
  // does). A memset alone would leave the L2 full of dirty lines that the
  // timed kernel then pays to write back.
  // Diagnostic override (docs/verify.md): CUDAL1_L2_FLUSH=read|memset|none.
  if (const char *FM = std::getenv("CUDAL1_L2_FLUSH"))
    FlushMode = FM;
  if (FlushMode == "read") {
    KernelCode FK;
    FK.Source = "extern \"C\" __global__ void cudal1_l2_flush(const int4 *p, "
                "unsigned long long n, int *sink) {\n"
                "  int acc = 0;\n"
                "  for (unsigned long long i = blockIdx.x * (unsigned long "
                "long)blockDim.x + threadIdx.x; i < n; i += (unsigned long "
                "long)gridDim.x * blockDim.x) {\n"
                "    int4 v = p[i]; acc ^= v.x ^ v.y ^ v.z ^ v.w; }\n"
                "  if (acc == 0x7f3a9c21) *sink = acc;\n}\n";
    FK.FileName = "cudal1_l2_flush.cu";
    FK.NameExpr = "cudal1_l2_flush";
    VerifyOptions NoCompiler = Opts;
    NoCompiler.Compiler = nullptr;
    Compiled FlushK = compileKernel(NoCompiler, FK, G.Arch, {});
    CUmodule FM;
    if (FlushK.Ok && D.ModuleLoadData(&FM, FlushK.Cubin.data()) == CUDA_SUCCESS)
      D.ModuleGetFunction(&FlushFn, FM, "cudal1_l2_flush");
  }
  // Diagnostic (docs/verify.md): CUDAL1_SAMPLE_GAP_US=N idles the host N us
  // between the L2 flush and the timed launch, as a profiler's per-launch
  // overhead does.
  if (const char *Gap = std::getenv("CUDAL1_SAMPLE_GAP_US"))
    GapUs = unsigned(std::strtoul(Gap, nullptr, 10));
}

/// One sample: the starting state restored, the L2 flushed, then one launch
/// between two timestamps (CUPTI's clock).
std::string JobRun::restoreTimed(int Which) {
  if (!Timed)
    return S->restoreForTiming(Which);
  std::string E = S->restoreGlobals(Which);
  return E.empty() ? Timed->restore(Which ? MC : MO) : E;
}

std::string JobRun::launchTimed(CUfunction F, int Which) {
  return Timed ? Timed->launch(F) : S->launch(F, Which == 1);
}

void JobRun::sample(CUfunction F, int Which, bool Record) {
  std::string E = RunErr.empty() ? restoreTimed(Which) : RunErr;
  if (FlushMode == "none") {
    // no flush (diagnostics only)
  } else if (FlushFn) {
    unsigned long long N4 = FlushBytes / 16;
    void *Args[] = {&Flush, &N4, &Sink};
    D.LaunchKernel(FlushFn, unsigned(G.SmCount * 4), 1, 1, 512, 1, 1, 0,
                   nullptr, Args, nullptr);
  } else {
    D.MemsetD32Async(Flush, 0x1000 + (Counter++ & 0xff), FlushBytes / 4,
                     nullptr);
  }
  D.CtxSynchronize();
  if (GapUs)
    std::this_thread::sleep_for(std::chrono::microseconds(GapUs));
  uint64_t A = 0, B = 0;
  auto HostNs = [] {
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count());
  };
  if (!ProfileOnly)
    Cupti.GetTimestamp(&A);
  else
    A = HostNs();
  if (E.empty())
    E = launchTimed(F, Which);
  CUresult R = D.CtxSynchronize();
  if (!ProfileOnly)
    Cupti.GetTimestamp(&B);
  else
    B = HostNs();
  if (E.empty() && R != CUDA_SUCCESS)
    E = "kernel execution: " + D.errorText(R);
  if (!E.empty() && RunErr.empty())
    RunErr = E;
  if (Record)
    Windows.push_back({Which, A, B});
}

/// One round: warm-up, then original and candidate interleaved, the order
/// swapped every sample (ABAB / BABA); the last pair runs the candidate last,
/// so that its outputs are still on the device for checkTimedState().
void JobRun::round() {
  for (unsigned I = 0; I < T.Warmup; ++I) {
    sample(FO, 0, false);
    sample(FC, 1, false);
  }
  for (unsigned I = 0; I < T.Samples && RunErr.empty(); ++I) {
    bool OFirst = I % 2 == 0 || I + 1 == T.Samples;
    sample(OFirst ? FO : FC, OFirst ? 0 : 1, true);
    sample(OFirst ? FC : FO, OFirst ? 1 : 0, true);
  }
}

/// The outputs of the candidate's last timed sample must be what a
/// correctness run gives for the same inputs (set 0), and its read-only
/// buffers unchanged: a candidate that behaves differently when timed (skips
/// work it believes done, keeps state between runs) is caught here.
/// checkTimedState() for samples that replay a captured launch.
bool JobRun::checkTimedReplay() {
  ReplayState Now;
  std::string E = Timed->readBack(MC, Now);
  if (!E.empty()) {
    reject("fault", "after timing: " + E);
    return false;
  }
  const ReplayLaunch &L = Timed->launchData();
  auto Kinds = allocationKinds(L);
  bool Bitwise = Job.Exact == Exactness::Bitwise && Deterministic;
  for (size_t A = 0; A < L.Allocations.size(); ++A) {
    BufferDiff Dd = compareAllocation(L, A, Kinds[A], TimedRef.Allocations[A],
                                      Now.Allocations[A], Bitwise);
    if (!Dd.ok()) {
      reject("timed-state",
             "the outputs of its last timed run differ from its correctness "
             "run on the same captured launch (" +
                 Dd.str() + "): it behaves differently when run repeatedly");
      return false;
    }
  }
  return true;
}

bool JobRun::checkTimedState() {
  if (Timed)
    return checkTimedReplay();
  std::vector<Bytes> Now;
  std::string E = S->readBack(Now);
  if (!E.empty()) {
    reject("fault", "after timing: " + E);
    return false;
  }
  bool Bitwise = Job.Exact == Exactness::Bitwise && Deterministic;
  for (unsigned I = 0; I < S->Bufs.size(); ++I) {
    const BufferSpec &B = *S->Bufs[I].Spec;
    if (!S->Bufs[I].Writable()) {
      if (Now[I] != Set0Pre[I]) {
        reject("read-only-modified",
               "read-only buffer '" + B.Param +
                   "' was modified during the timed runs");
        return false;
      }
      continue;
    }
    auto AI = Set0Allow.find(I);
    BufferDiff Dd = compareBuffer(
        B.Param, B.Kind, B.ElemSize, Set0Ref[I], Now[I], Set0Pre[I], Bitwise,
        tolFor(B.Param, B.Kind, threadsOf(Job.H.Grid, Job.H.Block)),
        AI != Set0Allow.end() ? &AI->second : nullptr);
    if (!Dd.ok()) {
      reject("timed-state",
             "the outputs of its last timed run differ from its correctness "
             "run on the same inputs (" +
                 Dd.str() +
                 "): it behaves differently when run repeatedly");
      return false;
    }
  }
  return true;
}

/// Phase 2 of timing: the same round again under serialized kernel tracing
/// (see timing()). Fills \p TUs when its records match phase 1's; returns -1
/// to go on, else the exit code.
int JobRun::serializedRound(std::vector<double> TUs[2],
                            const std::vector<double> Count1[2],
                            std::string &Note) {
  Cupti.ActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  Cupti.ActivityDisable(CUPTI_ACTIVITY_KIND_CDP_KERNEL);
  if (Cupti.ActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL) != CUPTI_SUCCESS) {
    Note = "serialized kernel tracing unavailable: times from concurrent "
           "tracing";
    return -1;
  }
  {
    std::lock_guard<std::mutex> L(RecordsMutex);
    Records.clear();
  }
  std::vector<Window> Phase1Windows;
  Phase1Windows.swap(Windows);
  Ch.progress(formatv("timing: {0} more interleaved samples each, serialized "
                      "kernel tracing",
                      T.Samples)
                  .str());
  round();
  Cupti.ActivityFlushAll(1);
  Cupti.ActivityDisable(CUPTI_ACTIVITY_KIND_KERNEL);
  if (!RunErr.empty()) {
    reject("fault", "fails while being timed: " + RunErr);
    return finish(1);
  }
  if (!checkTimedState())
    return finish(1);
  std::vector<KernelRecord> Recs2 = timedRecords();
  std::vector<double> Count2[2];
  kernelTimesPerWindow(Recs2, Windows, TUs, Count2);
  Windows.swap(Phase1Windows);
  bool SameCounts = median(Count2[0]) == median(Count1[0]) &&
                    median(Count2[1]) == median(Count1[1]);
  unsigned Dropped[2] = {0, 0};
  for (int W = 0; W < 2 && SameCounts; ++W)
    TUs[W] = samplesWithCount(TUs[W], Count2[W], median(Count1[W]),
                              Dropped[W]);
  // Up to a fifth of a side's samples may lack their kernel record; more,
  // and the serialized round is not trusted.
  size_t Least = size_t(T.Samples) * 4 / 5;
  if (SameCounts && TUs[0].size() >= Least && TUs[1].size() >= Least &&
      median(TUs[0]) > 0 && median(TUs[1]) > 0) {
    Note = formatv("times from serialized kernel tracing; checks on "
                   "concurrently traced samples (medians {0:f1} us -> {1:f1} "
                   "us)",
                   median(KUs[0]), median(KUs[1]))
               .str();
    if (Dropped[0] || Dropped[1])
      Note += formatv("; samples left out, their window not recording "
                      "exactly the kernel's launches: {0} of the original's, "
                      "{1} of the candidate's",
                      Dropped[0], Dropped[1])
                  .str();
    Extra["serialized_samples_left_out"] =
        json::Array{int64_t(Dropped[0]), int64_t(Dropped[1])};
  } else if (SameCounts) {
    TUs[0].clear();
    TUs[1].clear();
    Note = formatv("serialized kernel tracing lost the kernel records of {0} "
                   "of the original's and {1} of the candidate's {2} "
                   "samples: times from concurrent tracing",
                   Dropped[0], Dropped[1], T.Samples)
               .str();
  } else {
    TUs[0].clear();
    TUs[1].clear();
    Note = "serialized kernel tracing recorded other kernels than concurrent "
           "tracing: times from concurrent tracing";
  }
  return -1;
}

void JobRun::timingFacts(const std::vector<double> &OrigUs,
                         const std::vector<double> &CandUs) {
  T.OriginalUs = OrigUs;
  T.CandidateUs = CandUs;
  T.OriginalMedianUs = median(OrigUs);
  T.CandidateMedianUs = median(CandUs);
  T.OriginalKernelsPerSample = unsigned(median(Count[0]));
  T.CandidateKernelsPerSample = unsigned(median(Count[1]));
  T.OriginalWindowUs = median(WUs[0]);
  T.CandidateWindowUs = median(WUs[1]);
  RatioCI CI = bootstrapRatioCI(OrigUs, CandUs);
  T.Speedup = CI.Ratio;
  T.CiLow = CI.Low;
  T.CiHigh = CI.High;
  T.Flagged = T.Speedup > 10;
  // The least the kernel must write: the bytes the original changes.
  uint64_t MinBytes = 0;
  if (Timed) {
    const ReplayLaunch &L = Timed->launchData();
    for (size_t A = 0; A < L.Allocations.size(); ++A)
      for (size_t B = 0; B < L.Allocations[A].Before.size(); ++B)
        MinBytes += L.Allocations[A].Before[B] != TimedRef.Allocations[A][B];
  }
  for (unsigned I = 0; !Timed && I < S->Bufs.size(); ++I) {
    if (!S->Bufs[I].Writable())
      continue;
    unsigned ES = S->Bufs[I].Spec->ElemSize;
    for (uint64_t E = 0; E < S->Bufs[I].Spec->Count; ++E)
      if (std::memcmp(&Set0Ref[I][E * ES], &Set0Pre[I][E * ES], ES))
        MinBytes += ES;
  }
  T.MinBytes = MinBytes;
  double BytesPerUs = G.PeakBandwidthGBs * 1e3; // GB/s -> bytes/us
  if (BytesPerUs > 0) {
    // Writes that fit in L2 can finish faster than DRAM allows: be generous.
    double Factor = int64_t(MinBytes) > G.L2Bytes ? 1.25 : 8.0;
    T.FloorUs = MinBytes / (BytesPerUs * Factor);
  }
}

void JobRun::antiCheat(double P1Orig, double P1Cand) {
  if (T.CandidateKernelsPerSample == 0)
    reject("no-work", "CUPTI recorded no kernel execution in the candidate's "
                      "timing windows: it launches no work");
  // Work that escaped the recorded kernels (a side stream, a device-side
  // launch the profiler does not see) shows as host-window time that no
  // kernel record covers. The excess of an honest launch is the launch +
  // synchronisation overhead (about 10 us), about the same for both kernels.
  double OrigExcess = median(Excess[0]), CandExcess = median(Excess[1]);
  double Allowed = std::max(15.0, 0.5 * P1Cand);
  if (CandExcess > OrigExcess + Allowed && CandExcess > 2 * OrigExcess)
    reject("hidden-work",
           formatv("the GPU was busy {0} per candidate sample but its "
                   "recorded kernels cover only {1} (original: {2} of {3}): "
                   "work escaped the timed kernels (another stream or a "
                   "device-side launch)",
                   formatTime(T.CandidateWindowUs), formatTime(P1Cand),
                   formatTime(P1Orig), formatTime(T.OriginalWindowUs))
               .str());
  if (Stray)
    reject("hidden-work",
           formatv("{0} kernel executions started outside the measured "
                   "windows (work left running after the launch returned)",
                   Stray)
               .str());
}

/// Per window: the kernels' span, the host window, what the window spends
/// outside any kernel record; and the records that started outside every
/// window (stray work).
void JobRun::analyseWindows(const std::vector<KernelRecord> &Recs) {
  uint64_t FirstWindow = Windows.empty() ? 0 : Windows.front().T0;
  for (const auto &R : Recs) {
    bool In = false;
    for (const auto &W : Windows)
      In |= R.Start >= W.T0 && R.Start <= W.T1;
    if (!In && R.Start >= FirstWindow)
      ++Stray;
  }
  kernelTimesPerWindow(Recs, Windows, KUs, Count);
  size_t Seen[2] = {0, 0};
  for (const auto &W : Windows) {
    double Win = (W.T1 - W.T0) / 1000.0;
    WUs[W.Which].push_back(Win);
    Excess[W.Which].push_back(Win - KUs[W.Which][Seen[W.Which]++]);
  }
}

/// Under an outside profiler: host windows only, no verdict.
int JobRun::profileOnlyResult() {
  std::vector<double> HW[2];
  for (const auto &W : Windows)
    HW[W.Which].push_back((W.T1 - W.T0) / 1000.0);
  T.OriginalWindowUs = HW[0].empty() ? 0 : median(HW[0]);
  T.CandidateWindowUs = HW[1].empty() ? 0 : median(HW[1]);
  T.Note = "timing loop run for an outside profiler (CUDAL1_UNDER_NCU); no "
           "CUPTI records: " +
           CuptiError +
           formatv("; host windows (median): original {0:f1} us, candidate "
                   "{1:f1} us",
                   T.OriginalWindowUs, T.CandidateWindowUs)
               .str();
  V.Timing = T;
  if (!RunErr.empty())
    reject("fault", "fails while being timed: " + RunErr);
  return finish(1);
}

int JobRun::timing() {
  T.Samples = std::max(30u, Opts.Samples);
  T.Warmup = Opts.Warmup;
  {
    // The time the timing may take: the per-candidate limit, and what the
    // child's own time limit leaves (10 s kept for the rest).
    double Elapsed = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - T0)
                         .count();
    double Seconds = Opts.TimingSeconds;
    double Left = double(Opts.TimeoutSeconds) - Elapsed - 10;
    if (Opts.TimeoutSeconds && (Seconds <= 0 || Left < Seconds))
      Seconds = std::max(Left, 1e-3);
    TimingPlan Plan =
        planTiming(timeOnCapture() ? CaptureSeconds : OriginalSeconds,
                   T.Samples, T.Warmup, Seconds);
    T.Samples = Plan.Samples;
    T.Warmup = Plan.Warmup;
    if (Plan.Reduced) {
      Extra["timing_plan"] = Plan.Note;
      Ch.progress(Plan.Note);
    }
    Extra["original_run_seconds"] = OriginalSeconds;
  }
  // Under an outside profiler (utils/gpu-check.sh runs Nsight Compute with
  // CUDAL1_UNDER_NCU=1), CUPTI belongs to the profiler: the timing loop still
  // runs, launch for launch as below, so that the profiler times the very
  // launches CUPTI times in a normal run; no verdict is drawn from it.
  ProfileOnly = !HaveCupti && std::getenv("CUDAL1_UNDER_NCU");
  if (!HaveCupti && !ProfileOnly) {
    T.Note = CuptiError;
    V.Timing = T;
    decideAcceptance(V, Opts.MinSpeedup);
    return finish(1);
  }
  if (!Job.HaveHarness && !CaptureReplayed) {
    reject("harness", "nothing to time the candidate on: no harness, and "
                      "the first captured launch was not replayed");
    return finish(2);
  }
  prepareTiming();
  if (D.MemAlloc(&Flush, FlushBytes) != CUDA_SUCCESS ||
      D.MemAlloc(&Sink, 64) != CUDA_SUCCESS) {
    T.Note = "cannot allocate the L2 flush buffer";
    V.Timing = T;
    decideAcceptance(V, Opts.MinSpeedup);
    return finish(1);
  }
  D.MemsetD32Async(Flush, 0x5a5a5a5a, FlushBytes / 4, nullptr);
  D.CtxSynchronize();
  Ch.progress(formatv("timing: {0} warm-up + {1} interleaved samples each",
                      T.Warmup, T.Samples)
                  .str());
  round();
  if (ProfileOnly)
    return profileOnlyResult();
  NvmlApi Nv;
  if (Nv.load())
    Nv.clocks(0, SmNow, MemNow);
  Cupti.ActivityFlushAll(1);
  if (!RunErr.empty()) {
    reject("fault", "fails while being timed: " + RunErr);
    return finish(1);
  }
  if (!checkTimedState())
    return finish(1);
  analyseWindows(timedRecords());
  // Phase 1 (above) traced every kernel on every stream concurrently
  // (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL): the checks below (no work,
  // hidden work, stray kernels) use it. That tracing slows some kernels
  // down (measured on an H200: a one-float-per-thread copy of 64 Mi floats
  // ran 216.6 us traced, 197-201 us untraced by CUDA events and Nsight
  // Compute), so the times of the verdict come from a second, identical
  // round of samples under serialized kernel tracing
  // (CUPTI_ACTIVITY_KIND_KERNEL), which agreed with Nsight Compute there.
  // CUDAL1_TIMING=concurrent keeps phase 1's times (diagnostics).
  const double P1Orig = median(KUs[0]), P1Cand = median(KUs[1]);
  std::vector<double> TUs[2];
  std::string PhaseNote = "times from concurrent kernel tracing";
  if (!envIs("CUDAL1_TIMING", "concurrent") && Cupti.ActivityDisable)
    if (int R = serializedRound(TUs, Count, PhaseNote); R >= 0)
      return R;
  Extra["concurrent_traced_original_median_us"] = P1Orig;
  Extra["concurrent_traced_candidate_median_us"] = P1Cand;
  if (TUs[0].empty() || TUs[1].empty()) {
    // Concurrent times, less the windows that did not record exactly the
    // kernel's launches (those are the hidden-work checks' business).
    unsigned Dropped[2] = {0, 0};
    for (int W = 0; W < 2; ++W) {
      std::vector<double> Kept =
          samplesWithCount(KUs[W], Count[W], median(Count[W]), Dropped[W]);
      TUs[W] = Kept.empty() ? KUs[W] : Kept;
    }
    if (Dropped[0] || Dropped[1])
      PhaseNote += formatv(" ({0} of the original's and {1} of the "
                           "candidate's samples left out: their window did "
                           "not record exactly the kernel's launches)",
                           Dropped[0], Dropped[1])
                       .str();
  }
  Extra["timing_phase"] = PhaseNote;
  timingFacts(TUs[0], TUs[1]);
  T.Note = formatv("CUPTI {0}; L2 flush: {4}; SM clock after timing {1} MHz, "
                   "memory {2} MHz; {3} kernel records outside the measured "
                   "windows; every sample starts from the same inputs and "
                   "poisoned outputs; {5}",
                   Cupti.Path, SmNow, MemNow, Stray,
                   FlushMode == "read" && !FlushFn ? "memset (no NVRTC)"
                                                   : FlushMode,
                   PhaseNote)
               .str();
  T.Ok = true;
  T.SmClockAfterMHz = SmNow;
  V.Timing = T;
  Extra["sm_clock_after_mhz"] = SmNow;
  antiCheat(P1Orig, P1Cand);
  decideAcceptance(V, Opts.MinSpeedup);
  return finish(V.Accepted ? 0 : 1);
}

int JobRun::run() {
  if (!openGpu(D, Dev, Ctx, G)) {
    reject("no-gpu", G.Error);
    return finish(3);
  }
  Extra["gpu"] = toJson(G);
  noteCandidateShape();
  startCupti();
  if (int R = compileBoth(); R >= 0)
    return R;
  std::string LE;
  if (!loadModule(CO, FO, MO, LE)) {
    reject("harness", "the original cannot be loaded: " + LE);
    return finish(2);
  }
  if (!loadModule(CC, FC, MC, LE)) {
    reject("compile", "cannot be loaded: " + LE);
    return finish(1);
  }
  S = std::make_unique<Session>(D, Job, Opts, Ch);
  std::string AE = S->allocate();
  if (!AE.empty()) {
    reject("harness", AE);
    return finish(2);
  }
  S->snapshotGlobals(0, MO, CO.Cubin, V.Notes);
  S->snapshotGlobals(1, MC, CC.Cubin, V.Notes);
  if (int R = correctness(); R >= 0)
    return R;
  for (size_t K = 0; K < Job.Captured.size(); ++K)
    if (int R = checkCapturedLaunch(K); R >= 0)
      return R;
  if (!Job.HaveHarness && Job.Captured.empty()) {
    reject("harness", "no input: neither a harness nor captured launches");
    return finish(2);
  }
  if (!V.Correct || !Opts.Time)
    return finish(V.Correct ? 0 : 1);
  return timing();
}

} // namespace

int runVerifyJobInProcess(const VerifyJob &Job, const VerifyOptions &Opts,
                          int Fd) {
  // This process initialises the driver itself: NVRTC may too.
  nvrtcCompileInThisProcess(true);
  JobRun R(Job, Opts, Fd);
  return R.run();
}

/// The probe's child side.
int runProbeInProcess(int Fd, int Device) {
  Channel Ch{Fd};
  DriverApi D;
  CUdevice Dev;
  CUcontext Ctx;
  GpuInfo G;
  openGpu(D, Dev, Ctx, G, Device);
  Ch.result(json::Object{{"gpu", toJson(G)}});
  return G.Ok ? 0 : 3;
}

} // namespace cudal1
