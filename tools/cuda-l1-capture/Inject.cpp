//===- Inject.cpp - cuda-l1-capture's injection library ------------------===//
//
// Loaded into the user's application by the CUDA driver through
// CUDA_INJECTION64_PATH (cuda-l1-capture sets it), this library subscribes
// to CUPTI's driver-API callbacks for kernel launches and, for the launches
// selected by the launcher's options, records the launch configuration, the
// parameter buffer and the bytes of every device allocation (and module
// variable) the parameters reach, before and after the kernel. The format
// is described in docs/capture.md.
//
// It runs inside someone else's process, so: no LLVM, no exceptions out of
// any entry point, every CUDA and CUPTI call checked and reported (in the
// manifest and in capture.log), never a write outside the capture
// directory, and an application that behaves as without it (apart from
// synchronisation and time): it only reads device memory.
//
//===----------------------------------------------------------------------===//
#include "cudal1/Capture/CubinSymbols.h"
#include "Layout.h"
#include "MiniJson.h"
#include "cudal1/Capture/CaptureFormat.h"

#include <cuda.h>
#include <cupti.h>

#include <chrono>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>
#include <vector>

#ifndef CUDAL1_CAPTURE_VERSION
#define CUDAL1_CAPTURE_VERSION "unknown"
#endif

using namespace cudal1;
using namespace cudal1::capture;
using capjson::Value;

namespace {

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

std::string cuErr(CUresult R) {
  const char *Name = nullptr;
  if (cuGetErrorName(R, &Name) != CUDA_SUCCESS || !Name)
    return "CUresult " + std::to_string(static_cast<int>(R));
  return Name;
}

std::string cuptiErr(CUptiResult R) {
  const char *S = nullptr;
  if (cuptiGetResultString(R, &S) != CUPTI_SUCCESS || !S)
    return "CUptiResult " + std::to_string(static_cast<int>(R));
  return S;
}

std::string hex(uint64_t V) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "0x%llx", static_cast<unsigned long long>(V));
  return Buf;
}

Value dim3Json(unsigned X, unsigned Y, unsigned Z) {
  Value A = Value::array();
  A.push(X);
  A.push(Y);
  A.push(Z);
  return A;
}

std::string utcNow() {
  std::time_t T = std::time(nullptr);
  std::tm TM;
  gmtime_r(&T, &TM);
  char Buf[32];
  std::strftime(Buf, sizeof(Buf), "%Y-%m-%dT%H:%M:%SZ", &TM);
  return Buf;
}

bool envU64(const char *Name, uint64_t Default, uint64_t &Out,
            std::string &Error) {
  const char *S = std::getenv(Name);
  if (!S || !*S) {
    Out = Default;
    return true;
  }
  char *End = nullptr;
  errno = 0;
  unsigned long long V = std::strtoull(S, &End, 10);
  if (errno || *End || S[0] == '-') {
    Error = std::string(Name) + "='" + S + "' is not a non-negative integer";
    return false;
  }
  Out = V;
  return true;
}

/// Writes \p Size bytes to a new file (never replaces one); "" or the error.
std::string writeNewFile(const std::string &Path, const void *Data,
                         size_t Size) {
  int FD = ::open(Path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (FD < 0)
    return "cannot create " + Path + ": " + std::strerror(errno);
  const char *P = static_cast<const char *>(Data);
  size_t Left = Size;
  while (Left) {
    ssize_t N = ::write(FD, P, Left);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0) {
      std::string E = "cannot write " + Path + ": " + std::strerror(errno);
      ::close(FD);
      ::unlink(Path.c_str());
      return E;
    }
    P += N;
    Left -= static_cast<size_t>(N);
  }
  if (::close(FD) != 0)
    return "cannot write " + Path + ": " + std::strerror(errno);
  return "";
}

/// Atomically replaces \p Path with \p Text (temp file + rename).
std::string replaceFile(const std::string &Path, const std::string &Text) {
  std::string Tmp = Path + ".tmp." + std::to_string(::getpid());
  ::unlink(Tmp.c_str());
  std::string E = writeNewFile(Tmp, Text.data(), Text.size());
  if (!E.empty())
    return E;
  if (::rename(Tmp.c_str(), Path.c_str()) != 0) {
    E = "cannot rename " + Tmp + " to " + Path + ": " + std::strerror(errno);
    ::unlink(Tmp.c_str());
    return E;
  }
  return "";
}

void removeTree(const std::string &Dir, const std::vector<std::string> &Files) {
  for (const auto &F : Files)
    ::unlink((Dir + "/" + F).c_str());
  ::rmdir(Dir.c_str());
}

std::vector<std::string> processCommandLine() {
  std::vector<std::string> Args;
  FILE *F = std::fopen("/proc/self/cmdline", "rb");
  if (!F)
    return Args;
  std::string Cur;
  int C;
  while ((C = std::fgetc(F)) != EOF) {
    if (C == 0) {
      Args.push_back(Cur);
      Cur.clear();
    } else {
      Cur += static_cast<char>(C);
    }
  }
  if (!Cur.empty())
    Args.push_back(Cur);
  std::fclose(F);
  return Args;
}

std::string nvidiaDriverVersion() {
  FILE *F = std::fopen("/proc/driver/nvidia/version", "r");
  if (!F)
    return "";
  char Line[512];
  std::string Version;
  while (std::fgets(Line, sizeof(Line), F)) {
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun ..."
    const char *K = std::strstr(Line, "Kernel Module");
    if (!K)
      continue;
    K += std::strlen("Kernel Module");
    while (*K == ' ' || *K == '\t')
      ++K;
    while (*K && *K != ' ' && *K != '\t' && *K != '\n')
      Version += *K++;
    break;
  }
  std::fclose(F);
  return Version;
}

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

struct Options {
  std::string Dir; ///< absolute
  std::string KernelRegex;
  std::regex Re;
  bool HasRegex = false;
  uint64_t Launches = 1, Skip = 0, MaxBytes = 1ULL << 30;
  std::string ModelPath;
  bool DriverLayout = true;
};

struct ModuleInfo {
  uint32_t Id = 0;
  CUcontext Ctx = nullptr;
  size_t ImageSize = 0;
  bool Elf = false;
  std::string SymbolError;
  CubinSymbols Symbols;
  std::vector<char> Image; ///< kept when it holds a kernel to capture
  std::string ImageNote;
  std::string SavedPath; ///< relative, once written
};

struct KernelState {
  bool Matches = false;
  std::string Demangled;
  uint64_t Seen = 0, Slots = 0, Captured = 0, Skipped = 0;
  std::string LayoutSource;
};

struct LaunchArgs {
  const char *Api = "";
  CUfunction F = nullptr;
  unsigned Grid[3] = {1, 1, 1}, Block[3] = {1, 1, 1};
  unsigned SharedMem = 0;
  CUstream Stream = nullptr;
  bool PerThread = false;
  void **KernelParams = nullptr;
  void **Extra = nullptr;
  bool Cooperative = false;
  bool HasCluster = false;
  unsigned Cluster[3] = {1, 1, 1};
  std::vector<int> OtherAttributes;
};

struct RegionCapture {
  std::string Name; ///< globals only
  std::string Kind; ///< "device"/"managed" (allocations), "constant"/"device" (globals)
  CUdeviceptr Base = 0;
  size_t Size = 0;
  int DeviceOrdinal = -1;
  std::vector<uint8_t> Before;
  std::string BeforeFile, AfterFile; ///< relative to the capture directory
  bool Changed = false;
};

struct Pending {
  Value Entry;
  uint64_t Index = 0;
  std::string KernelName;
  std::string RelDir; ///< "launches/<index>"
  std::vector<std::string> Files; ///< names inside RelDir, for cleanup
  std::vector<RegionCapture> Allocations, Globals;
  std::chrono::steady_clock::time_point Start;
};

class Capture {
public:
  bool init(std::string &Error);
  void onCallback(CUpti_CallbackDomain Domain, CUpti_CallbackId Cbid,
                  const void *Data);
  void finish();
  /// True once this process owns the capture directory (capture.pid).
  bool ownsDirectory() const { return Owner; }
  void logError(const std::string &E) { log("error: %s", E.c_str()); }

private:
  // Callbacks.
  void onModuleLoaded(const CUpti_ResourceData *RD);
  void onLaunchEnter(CUpti_CallbackId Cbid, const CUpti_CallbackData *CB);
  void onLaunchExit(const CUpti_CallbackData *CB);

  // Steps of a captured launch (return "" or why the launch is skipped).
  std::string resolveLayout(const LaunchArgs &A, const std::string &Name,
                            const std::string &Demangled, KernelLayout &L,
                            Value &LayoutJson);
  std::string packParams(const LaunchArgs &A, const KernelLayout &L,
                         std::vector<uint8_t> &Buf);
  std::string mapPointers(const KernelLayout &L, const std::vector<uint8_t> &Buf,
                          Pending &P, Value &Pointers, Value &HostPointers);
  void findGlobals(const LaunchArgs &A, const std::string &Name, CUcontext Ctx, Pending &P,
                   uint64_t Budget, Value &GlobalsJson, Value &ModuleJson);
  std::string copyRegions(std::vector<RegionCapture> &Rs, bool After,
                          Pending &P, const char *Prefix);

  void recordSkipped(std::unique_ptr<Pending> P, const std::string &Reason);
  void record(std::unique_ptr<Pending> P, bool Captured);
  void noteDevice(CUcontext Ctx, int &Ordinal);
  std::string kernelNameOf(CUfunction F);
  KernelState &kernelState(const std::string &Name);
  void writeManifestLocked(bool Complete);
  void log(const char *Fmt, ...);

  Options Opt;
  KernelModel Model;
  bool HaveModel = false;
  std::string ModelError;

  std::mutex StateMutex;   ///< everything below
  std::mutex CaptureMutex; ///< held from a captured launch's enter to exit
  std::unordered_map<std::string, KernelState> Kernels;
  std::vector<std::string> KernelOrder;
  std::vector<ModuleInfo> Modules;
  Value Launches = Value::array();
  Value Devices = Value::array();
  std::vector<int> DeviceOrdinals;
  Value Problems = Value::array();
  uint64_t NextIndex = 0, LaunchesSeen = 0;
  bool Disabled = false;
  std::string DisabledReason;
  std::string Created;
  int CudaVersion = 0;
  std::string DriverVersion;
  FILE *Log = nullptr;
  bool Owner = false;
  CUpti_SubscriberHandle Subscriber = nullptr;
};

Capture *TheCapture = nullptr; ///< receives the callbacks
/// The captured launch whose exit callback this thread awaits (launch
/// calls do not nest on a thread; CUPTI's correlationData is checked too).
thread_local Pending *ThreadPending = nullptr;
Capture *ExitWriter = nullptr; ///< writes the final manifest at exit
thread_local bool InsideCapture = false;

/// Releases the capture mutex when a launch's work ends, unless the launch
/// was handed to its exit callback (release()).
struct CaptureLock {
  std::mutex &M;
  bool Held = true;
  explicit CaptureLock(std::mutex &M) : M(M) {}
  ~CaptureLock() {
    if (Held)
      M.unlock();
  }
  void release() { Held = false; }
};

struct InsideGuard {
  bool Was;
  InsideGuard() : Was(InsideCapture) { InsideCapture = true; }
  ~InsideGuard() { InsideCapture = Was; }
};

void CUPTIAPI callbackTrampoline(void *, CUpti_CallbackDomain Domain,
                                 CUpti_CallbackId Cbid, const void *Data) {
  if (!TheCapture)
    return;
  try {
    TheCapture->onCallback(Domain, Cbid, Data);
  } catch (const std::exception &E) {
    std::fprintf(stderr, "cuda-l1-capture: internal error: %s\n", E.what());
  } catch (...) {
    std::fprintf(stderr, "cuda-l1-capture: internal error\n");
  }
}

void finishAtExit() {
  if (ExitWriter)
    ExitWriter->finish();
}

//===----------------------------------------------------------------------===//
// Initialisation
//===----------------------------------------------------------------------===//

void Capture::log(const char *Fmt, ...) {
  if (!Log)
    return;
  va_list Args;
  va_start(Args, Fmt);
  std::vfprintf(Log, Fmt, Args);
  va_end(Args);
  std::fputc('\n', Log);
  std::fflush(Log);
}

bool Capture::init(std::string &Error) {
  const char *Dir = std::getenv(CaptureEnvDir);
  if (!Dir || !*Dir) {
    Error = std::string(CaptureEnvDir) +
            " is not set (run the application through cuda-l1-capture)";
    return false;
  }
  Opt.Dir = Dir;
  if (Opt.Dir[0] != '/') {
    char Cwd[4096];
    if (!::getcwd(Cwd, sizeof(Cwd))) {
      Error = "cannot resolve the capture directory: getcwd failed";
      return false;
    }
    Opt.Dir = std::string(Cwd) + "/" + Opt.Dir;
  }
  while (Opt.Dir.size() > 1 && Opt.Dir.back() == '/')
    Opt.Dir.pop_back();
  struct stat St;
  if (::stat(Opt.Dir.c_str(), &St) != 0 || !S_ISDIR(St.st_mode)) {
    Error = "capture directory " + Opt.Dir + " does not exist";
    return false;
  }
  if (!envU64(CaptureEnvLaunches, 1, Opt.Launches, Error) ||
      !envU64(CaptureEnvSkip, 0, Opt.Skip, Error) ||
      !envU64(CaptureEnvMaxBytes, 1ULL << 30, Opt.MaxBytes, Error))
    return false;
  if (const char *K = std::getenv(CaptureEnvKernel); K && *K) {
    Opt.KernelRegex = K;
    try {
      Opt.Re = std::regex(Opt.KernelRegex, std::regex::ECMAScript);
      Opt.HasRegex = true;
    } catch (const std::regex_error &E) {
      Error = std::string(CaptureEnvKernel) + ": invalid regular expression '" +
              K + "': " + E.what();
      return false;
    }
  }
  if (const char *N = std::getenv("CUDAL1_CAPTURE_NO_DRIVER_LAYOUT"); N && *N == '1')
    Opt.DriverLayout = false;

  // One process owns the directory: applications that start CUDA
  // processes of their own (or fork after cuInit) leave a note instead.
  std::string Pid = std::to_string(::getpid());
  int FD = ::open((Opt.Dir + "/capture.pid").c_str(),
                  O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (FD < 0) {
    std::string Note = "pid " + Pid + " (";
    auto Cmd = processCommandLine();
    for (size_t I = 0; I < Cmd.size(); ++I)
      Note += (I ? " " : "") + Cmd[I];
    Note += ") initialised CUDA too: not captured (one process per capture "
            "directory)\n";
    int NF = ::open((Opt.Dir + "/other-processes.log").c_str(),
                    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (NF >= 0) {
      ssize_t Ignored = ::write(NF, Note.data(), Note.size());
      (void)Ignored;
      ::close(NF);
    }
    Error = "another process owns " + Opt.Dir + " (capture.pid exists)";
    return false;
  }
  ssize_t Ignored = ::write(FD, Pid.data(), Pid.size());
  (void)Ignored;
  ::close(FD);
  Owner = true;

  Log = std::fopen((Opt.Dir + "/capture.log").c_str(), "ae");
  Created = utcNow();
  log("cuda-l1-capture %s: pid %s, capturing into %s", CUDAL1_CAPTURE_VERSION,
      Pid.c_str(), Opt.Dir.c_str());

  if (const char *M = std::getenv(CaptureEnvModel); M && *M) {
    Opt.ModelPath = M;
    if (Model.load(Opt.ModelPath, ModelError)) {
      HaveModel = true;
      log("kernel model %s: %zu kernels", M, Model.size());
    } else {
      log("kernel model: %s", ModelError.c_str());
      Problems.push("kernel model not used: " + ModelError);
    }
  }
  DriverVersion = nvidiaDriverVersion();

  TheCapture = this;
  CUptiResult R = cuptiSubscribe(&Subscriber, callbackTrampoline, nullptr);
  if (R != CUPTI_SUCCESS) {
    TheCapture = nullptr;
    Error = "cuptiSubscribe failed: " + cuptiErr(R) +
            (R == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                 ? " (another CUPTI client, e.g. a profiler, is attached)"
                 : "");
    Problems.push(Error);
    std::lock_guard<std::mutex> Lock(StateMutex);
    writeManifestLocked(false);
    return false;
  }
  const CUpti_CallbackId LaunchIds[] = {
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz};
  for (CUpti_CallbackId Id : LaunchIds) {
    R = cuptiEnableCallback(1, Subscriber, CUPTI_CB_DOMAIN_DRIVER_API, Id);
    if (R != CUPTI_SUCCESS) {
      TheCapture = nullptr;
      Error = "cuptiEnableCallback(driver API " + std::to_string(Id) +
              ") failed: " + cuptiErr(R);
      Problems.push(Error);
      std::lock_guard<std::mutex> Lock(StateMutex);
      writeManifestLocked(false);
      return false;
    }
  }
  R = cuptiEnableCallback(1, Subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                          CUPTI_CBID_RESOURCE_MODULE_LOADED);
  if (R != CUPTI_SUCCESS) {
    log("module-loaded callback not available (%s): module variables will "
        "come from the model only",
        cuptiErr(R).c_str());
    Problems.push("CUPTI module-loaded callback unavailable: " + cuptiErr(R));
  }
  std::lock_guard<std::mutex> Lock(StateMutex);
  writeManifestLocked(false);
  return true;
}

//===----------------------------------------------------------------------===//
// Manifest
//===----------------------------------------------------------------------===//

void Capture::writeManifestLocked(bool Complete) {
  Value Root = Value::object();
  Root.set("format", CaptureFormatName);
  Root.set("version", CaptureFormatVersion);
  Root.set("tool", std::string("cuda-l1-capture ") + CUDAL1_CAPTURE_VERSION);
  Root.set("created", Created);
  Value Proc = Value::object();
  Proc.set("pid", static_cast<long>(::getpid()));
  Value Cmd = Value::array();
  for (const auto &A : processCommandLine())
    Cmd.push(A);
  Proc.set("commandLine", Cmd);
  char Cwd[4096];
  Proc.set("workingDirectory", ::getcwd(Cwd, sizeof(Cwd)) ? Value(Cwd) : Value());
  Proc.set("complete", Complete);
  Root.set("process", Proc);

  Value Options = Value::object();
  Options.set("kernel", Opt.HasRegex ? Value(Opt.KernelRegex) : Value());
  Options.set("launches", static_cast<unsigned long long>(Opt.Launches));
  Options.set("skip", static_cast<unsigned long long>(Opt.Skip));
  Options.set("maxBytes", static_cast<unsigned long long>(Opt.MaxBytes));
  Options.set("model", Opt.ModelPath.empty() ? Value() : Value(Opt.ModelPath));
  Options.set("driverLayout", Opt.DriverLayout);
  Root.set("options", Options);

  Value Driver = Value::object();
  Driver.set("version", DriverVersion.empty() ? Value() : Value(DriverVersion));
  Driver.set("cudaVersion", CudaVersion ? Value(CudaVersion) : Value());
  Root.set("driver", Driver);
  Root.set("devices", Devices);

  Value Ks = Value::array();
  for (const auto &Name : KernelOrder) {
    const KernelState &K = Kernels[Name];
    if (!K.Matches || !K.Seen)
      continue;
    Value KJ = Value::object();
    KJ.set("kernel", Name);
    KJ.set("demangled", K.Demangled);
    KJ.set("launchesSeen", static_cast<unsigned long long>(K.Seen));
    KJ.set("captured", static_cast<unsigned long long>(K.Captured));
    KJ.set("skipped", static_cast<unsigned long long>(K.Skipped));
    KJ.set("layoutSource", K.LayoutSource.empty() ? Value() : Value(K.LayoutSource));
    Ks.push(KJ);
  }
  Root.set("kernels", Ks);
  Value Others = Value::array();
  for (const auto &Name : KernelOrder) {
    const KernelState &K = Kernels[Name];
    if (K.Matches || !K.Seen)
      continue;
    Value KJ = Value::object();
    KJ.set("kernel", Name);
    KJ.set("launchesSeen", static_cast<unsigned long long>(K.Seen));
    Others.push(KJ);
  }
  Root.set("kernelsNotSelected", Others);
  Root.set("launchesSeen", static_cast<unsigned long long>(LaunchesSeen));
  Root.set("launches", Launches);
  Value Probs = Problems;
  if (Disabled)
    Probs.push("capture stopped: " + DisabledReason);
  Root.set("problems", Probs);
  std::string E = replaceFile(Opt.Dir + "/" + CaptureManifestFile,
                              capjson::write(Root));
  if (!E.empty()) {
    log("manifest: %s", E.c_str());
    std::fprintf(stderr, "cuda-l1-capture: %s\n", E.c_str());
  }
}

void Capture::finish() {
  std::lock_guard<std::mutex> Lock(StateMutex);
  writeManifestLocked(true);
  uint64_t Captured = 0, Skipped = 0;
  for (const auto &KV : Kernels) {
    Captured += KV.second.Captured;
    Skipped += KV.second.Skipped;
  }
  log("done: %llu launches seen, %llu captured, %llu skipped",
      static_cast<unsigned long long>(LaunchesSeen),
      static_cast<unsigned long long>(Captured),
      static_cast<unsigned long long>(Skipped));
  if (Log) {
    std::fclose(Log);
    Log = nullptr;
  }
}

//===----------------------------------------------------------------------===//
// Callbacks
//===----------------------------------------------------------------------===//

void Capture::onCallback(CUpti_CallbackDomain Domain, CUpti_CallbackId Cbid,
                         const void *Data) {
  if (Domain == CUPTI_CB_DOMAIN_RESOURCE) {
    if (Cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED)
      onModuleLoaded(static_cast<const CUpti_ResourceData *>(Data));
    return;
  }
  if (Domain != CUPTI_CB_DOMAIN_DRIVER_API)
    return;
  const auto *CB = static_cast<const CUpti_CallbackData *>(Data);
  if (CB->callbackSite == CUPTI_API_ENTER) {
    if (InsideCapture)
      return; // never capture from inside our own work
    onLaunchEnter(Cbid, CB);
  } else {
    onLaunchExit(CB);
  }
}

KernelState &Capture::kernelState(const std::string &Name) {
  auto It = Kernels.find(Name);
  if (It != Kernels.end())
    return It->second;
  KernelState K;
  K.Demangled = demangle(Name);
  if (K.Demangled.empty())
    K.Demangled = Name;
  K.Matches = !Opt.HasRegex || std::regex_search(Name, Opt.Re) ||
              std::regex_search(K.Demangled, Opt.Re);
  KernelOrder.push_back(Name);
  return Kernels.emplace(Name, std::move(K)).first->second;
}

void Capture::onModuleLoaded(const CUpti_ResourceData *RD) {
  if (!RD || !RD->resourceDescriptor)
    return;
  const auto *MD =
      static_cast<const CUpti_ModuleResourceData *>(RD->resourceDescriptor);
  ModuleInfo M;
  M.Id = MD->moduleId;
  M.Ctx = RD->context;
  M.ImageSize = MD->cubinSize;
  M.Elf = looksLikeElf64(MD->pCubin, MD->cubinSize);
  if (M.Elf) {
    if (!readCubinSymbols(MD->pCubin, MD->cubinSize, M.Symbols, M.SymbolError))
      M.SymbolError = "module image unreadable: " + M.SymbolError;
  } else {
    M.SymbolError = MD->pCubin ? "module image is not an ELF cubin"
                               : "no module image in the callback";
  }
  std::lock_guard<std::mutex> Lock(StateMutex);
  bool Wanted = false;
  for (const auto &K : M.Symbols.Kernels)
    if (kernelState(K).Matches) {
      Wanted = true;
      break;
    }
  // kernelState() registered the module's kernels; the manifest lists
  // kernels once they are launched.
  constexpr size_t MaxImage = 64u << 20;
  if (Wanted && M.Elf && MD->cubinSize <= MaxImage)
    M.Image.assign(MD->pCubin, MD->pCubin + MD->cubinSize);
  else if (Wanted && M.Elf)
    M.ImageNote = "module image of " + std::to_string(MD->cubinSize) +
                  " bytes not kept (over 64 MiB)";
  log("module %u loaded: %zu bytes, %s, %zu kernels, %zu variables%s%s", M.Id,
      M.ImageSize, M.Elf ? "ELF" : "not ELF", M.Symbols.Kernels.size(),
      M.Symbols.Globals.size(), M.SymbolError.empty() ? "" : ": ",
      M.SymbolError.c_str());
  Modules.push_back(std::move(M));
}

std::string Capture::kernelNameOf(CUfunction F) {
  const char *Name = nullptr;
  if (cuFuncGetName(&Name, F) == CUDA_SUCCESS && Name)
    return Name;
  Name = nullptr;
  if (cuKernelGetName(&Name, reinterpret_cast<CUkernel>(F)) == CUDA_SUCCESS &&
      Name)
    return Name;
  return "";
}

bool extractArgs(CUpti_CallbackId Cbid, const void *Params, LaunchArgs &A) {
  if (!Params)
    return false;
  switch (Cbid) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
    const auto *P = static_cast<const cuLaunchKernel_params *>(Params);
    A.Api = Cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ? "cuLaunchKernel"
                                                           : "cuLaunchKernel_ptsz";
    A.F = P->f;
    A.Grid[0] = P->gridDimX, A.Grid[1] = P->gridDimY, A.Grid[2] = P->gridDimZ;
    A.Block[0] = P->blockDimX, A.Block[1] = P->blockDimY,
    A.Block[2] = P->blockDimZ;
    A.SharedMem = P->sharedMemBytes;
    A.Stream = P->hStream;
    A.KernelParams = P->kernelParams;
    A.Extra = P->extra;
    A.PerThread = Cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
    const auto *P = static_cast<const cuLaunchCooperativeKernel_params *>(Params);
    A.Api = Cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel
                ? "cuLaunchCooperativeKernel"
                : "cuLaunchCooperativeKernel_ptsz";
    A.F = P->f;
    A.Grid[0] = P->gridDimX, A.Grid[1] = P->gridDimY, A.Grid[2] = P->gridDimZ;
    A.Block[0] = P->blockDimX, A.Block[1] = P->blockDimY,
    A.Block[2] = P->blockDimZ;
    A.SharedMem = P->sharedMemBytes;
    A.Stream = P->hStream;
    A.KernelParams = P->kernelParams;
    A.Cooperative = true;
    A.PerThread = Cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
    return true;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
    const auto *P = static_cast<const cuLaunchKernelEx_params *>(Params);
    A.Api = Cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx
                ? "cuLaunchKernelEx"
                : "cuLaunchKernelEx_ptsz";
    A.F = P->f;
    A.KernelParams = P->kernelParams;
    A.Extra = P->extra;
    A.PerThread = Cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
    const CUlaunchConfig *C = P->config;
    if (!C)
      return false;
    A.Grid[0] = C->gridDimX, A.Grid[1] = C->gridDimY, A.Grid[2] = C->gridDimZ;
    A.Block[0] = C->blockDimX, A.Block[1] = C->blockDimY,
    A.Block[2] = C->blockDimZ;
    A.SharedMem = C->sharedMemBytes;
    A.Stream = C->hStream;
    for (unsigned I = 0; C->attrs && I < C->numAttrs; ++I) {
      const CUlaunchAttribute &At = C->attrs[I];
      switch (At.id) {
      case CU_LAUNCH_ATTRIBUTE_IGNORE:
        break;
      case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
        A.Cooperative = At.value.cooperative != 0;
        break;
      case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
        A.HasCluster = true;
        A.Cluster[0] = At.value.clusterDim.x;
        A.Cluster[1] = At.value.clusterDim.y;
        A.Cluster[2] = At.value.clusterDim.z;
        break;
      default:
        A.OtherAttributes.push_back(static_cast<int>(At.id));
      }
    }
    return true;
  }
  default:
    return false;
  }
}

void Capture::noteDevice(CUcontext Ctx, int &Ordinal) {
  Ordinal = -1;
  CUdevice Dev;
  if (cuCtxGetDevice(&Dev) != CUDA_SUCCESS)
    return;
  Ordinal = static_cast<int>(Dev);
  (void)Ctx;
  std::lock_guard<std::mutex> Lock(StateMutex);
  for (int O : DeviceOrdinals)
    if (O == Ordinal)
      return;
  DeviceOrdinals.push_back(Ordinal);
  Value D = Value::object();
  D.set("ordinal", Ordinal);
  char Name[256] = {0};
  CUresult R = cuDeviceGetName(Name, sizeof(Name) - 1, Dev);
  D.set("name", R == CUDA_SUCCESS ? Value(Name) : Value("unknown: " + cuErr(R)));
  int Major = 0, Minor = 0;
  if (cuDeviceGetAttribute(&Major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                           Dev) == CUDA_SUCCESS &&
      cuDeviceGetAttribute(&Minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                           Dev) == CUDA_SUCCESS)
    D.set("computeCapability", std::to_string(Major) + "." + std::to_string(Minor));
  else
    D.set("computeCapability", Value());
  size_t Total = 0;
  D.set("totalMemoryBytes", cuDeviceTotalMem(&Total, Dev) == CUDA_SUCCESS
                                ? Value(static_cast<unsigned long long>(Total))
                                : Value());
  CUuuid U;
  if (cuDeviceGetUuid(&U, Dev) == CUDA_SUCCESS) {
    char Buf[64];
    const unsigned char *B = reinterpret_cast<const unsigned char *>(U.bytes);
    std::snprintf(Buf, sizeof(Buf),
                  "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                  B[0], B[1], B[2], B[3], B[4], B[5], B[6], B[7], B[8], B[9],
                  B[10], B[11], B[12], B[13], B[14], B[15]);
    D.set("uuid", Buf);
  } else {
    D.set("uuid", Value());
  }
  Devices.push(D);
  int V = 0;
  if (!CudaVersion && cuDriverGetVersion(&V) == CUDA_SUCCESS)
    CudaVersion = V;
}

//===----------------------------------------------------------------------===//
// A captured launch
//===----------------------------------------------------------------------===//

/// Offsets and sizes from the driver, when it answers for this handle.
bool driverParamInfo(CUfunction F, std::vector<uint64_t> &Offsets,
                     std::vector<uint64_t> &Sizes, std::string &Api,
                     std::string &Note) {
  auto Query = [&](bool Kernel) -> int { // 1 ok, 0 not applicable
    Offsets.clear();
    Sizes.clear();
    for (size_t I = 0; I < 4096; ++I) {
      size_t Off = 0, Size = 0;
      CUresult R = Kernel ? cuKernelGetParamInfo(reinterpret_cast<CUkernel>(F),
                                                 I, &Off, &Size)
                          : cuFuncGetParamInfo(F, I, &Off, &Size);
      if (R == CUDA_SUCCESS) {
        Offsets.push_back(Off);
        Sizes.push_back(Size);
        continue;
      }
      if (R == CUDA_ERROR_INVALID_VALUE)
        return 1; // past the last parameter (or none)
      Note += std::string(Kernel ? "cuKernelGetParamInfo" : "cuFuncGetParamInfo") +
              ": " + cuErr(R) + "; ";
      return 0;
    }
    return 1;
  };
  if (Query(false)) {
    Api = "cuFuncGetParamInfo";
    return true;
  }
  if (Query(true)) {
    Api = "cuKernelGetParamInfo";
    return true;
  }
  return false;
}

std::string Capture::resolveLayout(const LaunchArgs &A, const std::string &Name,
                                   const std::string &Demangled,
                                   KernelLayout &L, Value &LayoutJson) {
  std::string Why, ModelWhy;
  bool Have = false;
  if (HaveModel) {
    if (const ModelKernel *MK = Model.find(Name))
      Have = layoutFromModel(*MK, L, ModelWhy);
    else
      ModelWhy = "the kernel model has no kernel " + Name;
  }
  if (!Have)
    Have = layoutFromDemangled(Demangled, L, Why);
  std::vector<uint64_t> Offsets, Sizes;
  std::string Api, Note;
  bool Driver = Opt.DriverLayout && driverParamInfo(A.F, Offsets, Sizes, Api, Note);
  if (Driver && Offsets.empty() && Have && !L.Params.empty()) {
    // "No parameter 0" from a call that may not understand this handle:
    // inconclusive, not a contradiction.
    Driver = false;
    Note += Api + " reported no parameters; not used";
  }
  if (!Have && Driver) {
    // Offsets and sizes only: parameters of 8 bytes or more are searched
    // for addresses word by word, like struct parameters.
    L = KernelLayout();
    L.Source = "driver";
    for (size_t I = 0; I < Offsets.size(); ++I) {
      ParamLayout P;
      P.Index = static_cast<unsigned>(I);
      P.Offset = Offsets[I];
      P.Size = Sizes[I];
      P.Align = 1;
      P.Kind = Sizes[I] >= 8 ? ParamKind::Aggregate : ParamKind::Scalar;
      L.Params.push_back(P);
      L.Bytes = std::max<uint64_t>(L.Bytes, Offsets[I] + Sizes[I]);
    }
    Have = true;
  }
  LayoutJson = Value::object();
  LayoutJson.set("source", Have ? Value(L.Source) : Value());
  LayoutJson.set("checkedByDriver", Have && Driver && L.Source != "driver");
  LayoutJson.set("driverApi", Driver ? Value(Api) : Value());
  while (Note.size() >= 2 && Note.compare(Note.size() - 2, 2, "; ") == 0)
    Note.resize(Note.size() - 2);
  if (!Note.empty() || !ModelWhy.empty())
    LayoutJson.set("note", ModelWhy + (ModelWhy.empty() || Note.empty() ? "" : "; ") + Note);
  if (!Have)
    return "parameter layout unknown: " + (ModelWhy.empty() ? "" : ModelWhy + "; ") +
           Why;
  if (Driver && L.Source != "driver") {
    std::string Mismatch = compareLayouts(L, Offsets, Sizes);
    if (!Mismatch.empty())
      return "parameter layout disagrees with the driver: " + Mismatch +
             (L.Source == "model" ? " (is the kernel model stale?)" : "");
  }
  LayoutJson.set("bytes", static_cast<unsigned long long>(L.Bytes));
  Value Ps = Value::array();
  for (const auto &P : L.Params) {
    Value PJ = Value::object();
    PJ.set("index", P.Index);
    PJ.set("type", P.Type);
    PJ.set("kind", paramKindName(P.Kind));
    PJ.set("offset", static_cast<unsigned long long>(P.Offset));
    PJ.set("size", static_cast<unsigned long long>(P.Size));
    PJ.set("align", static_cast<unsigned long long>(P.Align));
    Ps.push(PJ);
  }
  LayoutJson.set("parameters", Ps);
  return "";
}

std::string Capture::packParams(const LaunchArgs &A, const KernelLayout &L,
                                std::vector<uint8_t> &Buf) {
  Buf.assign(L.Bytes, 0);
  if (A.KernelParams) {
    for (const auto &P : L.Params) {
      if (!A.KernelParams[P.Index])
        return "kernelParams[" + std::to_string(P.Index) + "] is null";
      std::memcpy(Buf.data() + P.Offset, A.KernelParams[P.Index], P.Size);
    }
    return "";
  }
  if (A.Extra) {
    void *Ptr = nullptr;
    size_t *SizePtr = nullptr;
    for (size_t I = 0; I < 64 && A.Extra[I] != CU_LAUNCH_PARAM_END; I += 2) {
      if (A.Extra[I] == CU_LAUNCH_PARAM_BUFFER_POINTER)
        Ptr = A.Extra[I + 1];
      else if (A.Extra[I] == CU_LAUNCH_PARAM_BUFFER_SIZE)
        SizePtr = static_cast<size_t *>(A.Extra[I + 1]);
    }
    if (!Ptr || !SizePtr)
      return "the launch passes 'extra' without a parameter buffer and size";
    if (*SizePtr < L.Bytes)
      return "the launch's parameter buffer has " + std::to_string(*SizePtr) +
             " bytes, the layout needs " + std::to_string(L.Bytes);
    Buf.assign(static_cast<uint8_t *>(Ptr),
               static_cast<uint8_t *>(Ptr) + *SizePtr);
    return "";
  }
  if (L.Bytes)
    return "the launch passes no parameters but the kernel has " +
           std::to_string(L.Params.size());
  return "";
}

namespace {
struct AddressInfo {
  enum Class { None, Device, Managed, Host, Unknown } Kind = None;
  CUdeviceptr Base = 0;
  size_t Size = 0;
  int Ordinal = -1;
  std::string Note;
};
} // namespace

AddressInfo classifyAddress(uint64_t V) {
  AddressInfo AI;
  unsigned long long MemType = 0, IsManaged = 0, RangeStart = 0, RangeSize = 0;
  long long Ordinal = -1;
  CUpointer_attribute Attrs[] = {
      CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
      CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
      CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  // Every slot is 8 bytes and zeroed: attributes narrower than that
  // (unsigned int, bool, int) land in the low bytes (little endian).
  void *Data[] = {&MemType, &IsManaged, &RangeStart, &RangeSize, &Ordinal};
  Ordinal = 0;
  CUresult R = cuPointerGetAttributes(5, Attrs, Data, static_cast<CUdeviceptr>(V));
  if (R != CUDA_SUCCESS) {
    AI.Kind = AddressInfo::Unknown;
    AI.Note = "cuPointerGetAttributes: " + cuErr(R);
    return AI;
  }
  unsigned MT = static_cast<unsigned>(MemType & 0xffffffffu);
  AI.Ordinal = static_cast<int>(Ordinal & 0xffffffff);
  if (MT == 0 && !(IsManaged & 0xff))
    return AI; // not a CUDA address
  if (MT == CU_MEMORYTYPE_HOST && !(IsManaged & 0xff)) {
    AI.Kind = AddressInfo::Host;
    return AI;
  }
  AI.Kind = (IsManaged & 0xff) ? AddressInfo::Managed : AddressInfo::Device;
  CUdeviceptr Base = 0;
  size_t Size = 0;
  R = cuMemGetAddressRange(&Base, &Size, static_cast<CUdeviceptr>(V));
  if (R == CUDA_SUCCESS && Size) {
    AI.Base = Base;
    AI.Size = Size;
    return AI;
  }
  if (RangeSize) {
    AI.Base = static_cast<CUdeviceptr>(RangeStart);
    AI.Size = static_cast<size_t>(RangeSize);
    return AI;
  }
  AI.Kind = AddressInfo::Unknown;
  AI.Note = "cuMemGetAddressRange: " + cuErr(R) + " and no range attribute";
  return AI;
}

std::string Capture::mapPointers(const KernelLayout &L,
                                 const std::vector<uint8_t> &Buf, Pending &P,
                                 Value &Pointers, Value &HostPointers) {
  std::string Skip;
  auto Consider = [&](const ParamLayout &Param, uint64_t Off, bool Declared) {
    uint64_t V;
    std::memcpy(&V, Buf.data() + Off, 8);
    if (!V)
      return;
    AddressInfo AI = classifyAddress(V);
    if (AI.Kind == AddressInfo::None && !Declared)
      return; // plain data in a struct
    if (AI.Kind == AddressInfo::None || AI.Kind == AddressInfo::Host ||
        AI.Kind == AddressInfo::Unknown) {
      Value H = Value::object();
      H.set("parameter", Param.Index);
      H.set("paramOffset", static_cast<unsigned long long>(Off));
      H.set("value", hex(V));
      const char *What = AI.Kind == AddressInfo::Host
                             ? "host"
                             : AI.Kind == AddressInfo::None ? "not-cuda" : "unknown";
      H.set("memory", What);
      if (!AI.Note.empty())
        H.set("note", AI.Note);
      HostPointers.push(H);
      if (Skip.empty())
        Skip = "parameter " + std::to_string(Param.Index) + " (byte " +
               std::to_string(Off) + ") holds " + hex(V) +
               (AI.Kind == AddressInfo::Host
                    ? ", host memory (cudaHostAlloc/cudaHostRegister, "
                      "mapped): not captured"
                    : AI.Kind == AddressInfo::None
                          ? ", which is in no CUDA allocation (system memory, "
                            "or a module variable's address): not captured"
                          : ", an address the driver could not place (" +
                                AI.Note + ")");
      return;
    }
    unsigned Index = 0;
    for (; Index < P.Allocations.size(); ++Index)
      if (P.Allocations[Index].Base == AI.Base)
        break;
    if (Index == P.Allocations.size()) {
      RegionCapture R;
      R.Kind = AI.Kind == AddressInfo::Managed ? "managed" : "device";
      R.Base = AI.Base;
      R.Size = AI.Size;
      R.DeviceOrdinal = AI.Ordinal;
      P.Allocations.push_back(std::move(R));
    }
    Value J = Value::object();
    J.set("parameter", Param.Index);
    J.set("paramOffset", static_cast<unsigned long long>(Off));
    J.set("value", hex(V));
    J.set("allocation", Index);
    J.set("offset", static_cast<unsigned long long>(V - AI.Base));
    Pointers.push(J);
  };
  for (const auto &Param : L.Params) {
    if (Param.Kind == ParamKind::Pointer) {
      if (Param.Size == 8)
        Consider(Param, Param.Offset, true);
      continue;
    }
    if (Param.Kind != ParamKind::Aggregate)
      continue;
    for (uint64_t Off = (Param.Offset + 7) / 8 * 8;
         Off + 8 <= Param.Offset + Param.Size && Off + 8 <= Buf.size(); Off += 8)
      Consider(Param, Off, false);
  }
  return Skip;
}

void Capture::findGlobals(const LaunchArgs &A, const std::string &Name, CUcontext Ctx,
                          Pending &P, uint64_t Budget, Value &GlobalsJson,
                          Value &ModuleJson) {
  GlobalsJson = Value::object();
  ModuleJson = Value::object();
  // A module handle for cuModuleGetGlobal: the function's own module, or
  // (runtime launches pass CUkernel handles) its library's module in this
  // context; asking for it loads a lazily loaded module, so its image
  // reaches onModuleLoaded first.
  CUmodule Mod = nullptr;
  std::string Lookup, LookupNote;
  CUresult R = cuFuncGetModule(&Mod, A.F);
  if (R == CUDA_SUCCESS && Mod) {
    Lookup = "cuFuncGetModule";
  } else {
    LookupNote = "cuFuncGetModule: " + cuErr(R);
    CUlibrary Lib = nullptr;
    R = cuKernelGetLibrary(&Lib, reinterpret_cast<CUkernel>(A.F));
    if (R == CUDA_SUCCESS && Lib) {
      R = cuLibraryGetModule(&Mod, Lib);
      if (R == CUDA_SUCCESS && Mod)
        Lookup = "cuKernelGetLibrary+cuLibraryGetModule";
      else
        LookupNote += "; cuLibraryGetModule: " + cuErr(R);
    } else {
      LookupNote += "; cuKernelGetLibrary: " + cuErr(R);
    }
  }
  // Which variables: every one of the module (from its image), else those
  // the kernel model says the kernel uses.
  struct Want {
    std::string Name, Kind;
    uint64_t Size;
  };
  std::vector<Want> Wanted;
  std::string Source, Note;
  {
    std::lock_guard<std::mutex> Lock(StateMutex);
    ModuleInfo *Found = nullptr;
    unsigned Matches = 0;
    // The module of this context that has the kernel (modules load once
    // per context); the latest load wins.
    for (int SameContext = 1; SameContext >= 0 && !Found; --SameContext)
      for (auto &M : Modules) {
        if (SameContext && M.Ctx != Ctx)
          continue;
        for (const auto &K : M.Symbols.Kernels)
          if (K == Name) {
            Found = &M;
            ++Matches;
          }
      }
    if (Found) {
      ModuleJson.set("id", Found->Id);
      ModuleJson.set("imageBytes", static_cast<unsigned long long>(Found->ImageSize));
      if (Found->SavedPath.empty() && !Found->Image.empty()) {
        std::string Rel = "modules/module-" + std::to_string(Found->Id) + ".cubin";
        ::mkdir((Opt.Dir + "/modules").c_str(), 0755);
        std::string E = writeNewFile(Opt.Dir + "/" + Rel, Found->Image.data(),
                                     Found->Image.size());
        if (E.empty()) {
          Found->SavedPath = Rel;
          Found->Image.clear();
          Found->Image.shrink_to_fit();
        } else {
          Found->ImageNote = E;
        }
      }
      ModuleJson.set("image", Found->SavedPath.empty() ? Value() : Value(Found->SavedPath));
      if (!Found->ImageNote.empty())
        ModuleJson.set("note", Found->ImageNote);
      if (Matches > 1)
        ModuleJson.set("note", "the kernel's name is in " + std::to_string(Matches) +
                                   " loaded modules; the latest is used");
      if (Found->SymbolError.empty()) {
        Source = "module image";
        for (const auto &G : Found->Symbols.Globals)
          Wanted.push_back({G.Name, G.isConstant() ? "constant" : "device", G.Size});
      } else {
        Note = Found->SymbolError;
      }
    } else {
      ModuleJson = Value();
      Note = "no module image with this kernel was seen (CUPTI module-loaded "
             "callback)";
    }
  }
  if (Source.empty() && HaveModel) {
    if (const ModelKernel *MK = Model.find(Name)) {
      Source = "model";
      for (const auto &G : MK->Globals) {
        if (G.Symbol.empty()) {
          Note += std::string(Note.empty() ? "" : "; ") + "variable " +
                  G.QualifiedName + ": its device symbol name is unknown";
          continue;
        }
        Wanted.push_back({G.Symbol, G.Kind, 0});
      }
    }
  }
  GlobalsJson.set("source", Source.empty() ? Value() : Value(Source));
  GlobalsJson.set("lookup", Lookup.empty() ? Value() : Value(Lookup));
  Value Missing = Value::array();
  uint64_t Used = 0;
  bool Partial = false;
  for (const auto &W : Wanted) {
    if (!Mod) {
      Missing.push(Value::object());
      Missing.elements().back().set("name", W.Name);
      Missing.elements().back().set("error", "no module handle (" + LookupNote + ")");
      Partial = true;
      continue;
    }
    CUdeviceptr Ptr = 0;
    size_t Size = 0;
    R = cuModuleGetGlobal(&Ptr, &Size, Mod, W.Name.c_str());
    if (R != CUDA_SUCCESS) {
      Value M = Value::object();
      M.set("name", W.Name);
      M.set("error", "cuModuleGetGlobal: " + cuErr(R));
      Missing.push(M);
      Partial = true;
      continue;
    }
    if (Used + Size > Budget) {
      Value M = Value::object();
      M.set("name", W.Name);
      M.set("error", "over --max-bytes (" + std::to_string(Size) + " bytes)");
      Missing.push(M);
      Partial = true;
      continue;
    }
    Used += Size;
    RegionCapture RC;
    RC.Name = W.Name;
    RC.Kind = W.Kind;
    RC.Base = Ptr;
    RC.Size = Size;
    P.Globals.push_back(std::move(RC));
  }
  const char *Status = Source.empty() ? "unknown"
                       : Wanted.empty() ? "none"
                       : Partial        ? "partial"
                                        : "captured";
  GlobalsJson.set("status", Status);
  if (Source.empty())
    Note += std::string(Note.empty() ? "" : "; ") +
            "__device__/__constant__ variables (if any) were not captured";
  if (!Note.empty())
    GlobalsJson.set("note", Note);
  if (!Missing.elements().empty())
    GlobalsJson.set("missing", Missing);
}

std::string Capture::copyRegions(std::vector<RegionCapture> &Rs, bool After,
                                 Pending &P, const char *Prefix) {
  for (size_t I = 0; I < Rs.size(); ++I) {
    RegionCapture &R = Rs[I];
    std::vector<uint8_t> Bytes(R.Size);
    CUresult E = R.Size ? cuMemcpyDtoH(Bytes.data(), R.Base, R.Size) : CUDA_SUCCESS;
    if (E != CUDA_SUCCESS)
      return std::string("cuMemcpyDtoH of ") + Prefix + " " + std::to_string(I) +
             " (" + hex(R.Base) + ", " + std::to_string(R.Size) +
             " bytes) " + (After ? "after" : "before") + " the launch failed: " +
             cuErr(E);
    std::string File = std::string(Prefix) + "-" + std::to_string(I) +
                       (After ? ".after.bin" : ".before.bin");
    std::string W =
        writeNewFile(Opt.Dir + "/" + P.RelDir + "/" + File, Bytes.data(), Bytes.size());
    if (!W.empty())
      return W;
    P.Files.push_back(File);
    (After ? R.AfterFile : R.BeforeFile) = P.RelDir + "/" + File;
    if (After) {
      R.Changed = Bytes != R.Before;
      R.Before.clear();
      R.Before.shrink_to_fit();
    } else {
      R.Before = std::move(Bytes);
    }
  }
  return "";
}

void Capture::recordSkipped(std::unique_ptr<Pending> P, const std::string &Reason) {
  if (!P->RelDir.empty())
    removeTree(Opt.Dir + "/" + P->RelDir, P->Files);
  P->Entry.set("status", "skipped");
  P->Entry.set("reason", Reason);
  log("launch %llu (%s): skipped: %s", static_cast<unsigned long long>(P->Index),
      P->KernelName.c_str(), Reason.c_str());
  record(std::move(P), false);
}

void Capture::record(std::unique_ptr<Pending> P, bool Captured) {
  double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              P->Start)
                    .count();
  P->Entry.set("captureSeconds", Secs);
  std::lock_guard<std::mutex> Lock(StateMutex);
  KernelState &K = kernelState(P->KernelName);
  (Captured ? K.Captured : K.Skipped)++;
  // Keep the manifest's launches ordered by index.
  auto &Es = Launches.elements();
  size_t Pos = Es.size();
  while (Pos > 0) {
    uint64_t Prev = 0;
    const Value *I = Es[Pos - 1].get("index");
    if (I && I->getUInt(Prev) && Prev < P->Index)
      break;
    --Pos;
  }
  Es.insert(Es.begin() + static_cast<long>(Pos), std::move(P->Entry));
  writeManifestLocked(false);
}

void Capture::onLaunchEnter(CUpti_CallbackId Cbid, const CUpti_CallbackData *CB) {
  LaunchArgs A;
  if (!extractArgs(Cbid, CB->functionParams, A))
    return;
  std::string Name = CB->symbolName ? CB->symbolName : "";
  if (Name.empty()) {
    InsideGuard G;
    Name = kernelNameOf(A.F);
  }
  if (Name.empty())
    Name = "<unnamed kernel>";

  auto P = std::make_unique<Pending>();
  std::string Demangled;
  uint64_t KernelOrdinal, ProcessOrdinal;
  {
    std::lock_guard<std::mutex> Lock(StateMutex);
    KernelState &K = kernelState(Name);
    ProcessOrdinal = LaunchesSeen++;
    KernelOrdinal = K.Seen++;
    if (Disabled || !K.Matches || KernelOrdinal < Opt.Skip || K.Slots >= Opt.Launches)
      return;
    ++K.Slots;
    P->Index = NextIndex++;
    Demangled = K.Demangled;
  }
  InsideGuard G;
  // One captured launch at a time, from here to its exit callback.
  CaptureMutex.lock();
  CaptureLock Held(CaptureMutex);
  if (CB->correlationData)
    *CB->correlationData = 0;
  P->Start = std::chrono::steady_clock::now();
  P->KernelName = Name;
  Value &E = P->Entry = Value::object();
  E.set("index", static_cast<unsigned long long>(P->Index));
  E.set("status", "pending");
  E.set("kernel", Name);
  E.set("demangled", Demangled);
  E.set("api", A.Api);
  E.set("kernelLaunchOrdinal", static_cast<unsigned long long>(KernelOrdinal));
  E.set("processLaunchOrdinal", static_cast<unsigned long long>(ProcessOrdinal));
  int Ordinal = -1;
  noteDevice(CB->context, Ordinal);
  E.set("device", Ordinal);
  E.set("grid", dim3Json(A.Grid[0], A.Grid[1], A.Grid[2]));
  E.set("block", dim3Json(A.Block[0], A.Block[1], A.Block[2]));
  E.set("sharedMemBytes", A.SharedMem);
  E.set("stream", hex(reinterpret_cast<uintptr_t>(A.Stream)));
  E.set("perThreadDefaultStream", A.PerThread && !A.Stream);
  E.set("cooperative", A.Cooperative);
  E.set("clusterDim", A.HasCluster ? dim3Json(A.Cluster[0], A.Cluster[1], A.Cluster[2])
                                   : Value());
  if (!A.OtherAttributes.empty()) {
    Value At = Value::array();
    for (int Id : A.OtherAttributes)
      At.push(Id);
    E.set("otherLaunchAttributes", At);
  }
  auto Skip = [&](const std::string &Reason) {
    recordSkipped(std::move(P), Reason);
  };

  KernelLayout L;
  Value LayoutJson;
  std::string Why = resolveLayout(A, Name, Demangled, L, LayoutJson);
  E.set("layout", LayoutJson);
  if (!Why.empty())
    return Skip(Why);
  {
    std::lock_guard<std::mutex> Lock(StateMutex);
    Kernels[Name].LayoutSource = L.Source;
  }
  std::vector<uint8_t> Buf;
  if (!(Why = packParams(A, L, Buf)).empty())
    return Skip(Why);

  Value Pointers = Value::array(), HostPointers = Value::array();
  Why = mapPointers(L, Buf, *P, Pointers, HostPointers);
  E.set("pointers", Pointers);
  if (!HostPointers.elements().empty())
    E.set("unresolvedPointers", HostPointers);
  if (!Why.empty())
    return Skip(Why);

  CUstream Effective = A.PerThread && !A.Stream ? CU_STREAM_PER_THREAD : A.Stream;
  CUstreamCaptureStatus CS = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult R = cuStreamIsCapturing(Effective, &CS);
  if (R != CUDA_SUCCESS)
    log("launch %llu: cuStreamIsCapturing: %s", static_cast<unsigned long long>(P->Index),
        cuErr(R).c_str());
  else if (CS != CU_STREAM_CAPTURE_STATUS_NONE)
    return Skip("the launch is being recorded into a CUDA graph (stream capture): "
                "it does not run now");

  uint64_t Total = 0;
  for (const auto &Al : P->Allocations)
    Total += Al.Size;
  if (Total > Opt.MaxBytes)
    return Skip("its allocations hold " + std::to_string(Total) +
                " bytes, more than --max-bytes " + std::to_string(Opt.MaxBytes));

  // Everything queued before this launch must have finished before its
  // "before" state is read: synchronise the whole context (other streams
  // may write the same allocations).
  R = cuCtxSynchronize();
  if (R != CUDA_SUCCESS) {
    std::string Reason = "cuCtxSynchronize before the launch failed: " + cuErr(R) +
                         " (earlier work of the application failed)";
    {
      std::lock_guard<std::mutex> Lock(StateMutex);
      Disabled = true;
      DisabledReason = Reason;
    }
    return Skip(Reason);
  }
  Value GlobalsJson, ModuleJson;
  findGlobals(A, Name, CB->context, *P, Opt.MaxBytes - Total, GlobalsJson, ModuleJson);
  E.set("module", ModuleJson);

  P->RelDir = "launches/" + std::to_string(P->Index);
  ::mkdir((Opt.Dir + "/launches").c_str(), 0755);
  if (::mkdir((Opt.Dir + "/" + P->RelDir).c_str(), 0755) != 0) {
    std::string Reason = "cannot create " + Opt.Dir + "/" + P->RelDir + ": " +
                         std::strerror(errno);
    P->RelDir.clear();
    return Skip(Reason);
  }
  std::string W = writeNewFile(Opt.Dir + "/" + P->RelDir + "/params.bin",
                               Buf.data(), Buf.size());
  if (!W.empty())
    return Skip(W);
  P->Files.push_back("params.bin");
  E.set("params", P->RelDir + "/params.bin");
  E.set("paramsBytes", static_cast<unsigned long long>(Buf.size()));
  if (!(Why = copyRegions(P->Allocations, false, *P, "alloc")).empty() ||
      !(Why = copyRegions(P->Globals, false, *P, "global")).empty())
    return Skip(Why);
  E.set("globals", GlobalsJson);
  E.set("directory", P->RelDir);
  ThreadPending = P.release();
  if (CB->correlationData)
    *CB->correlationData = reinterpret_cast<uint64_t>(ThreadPending);
  Held.release(); // CaptureMutex stays locked until onLaunchExit

}

void Capture::onLaunchExit(const CUpti_CallbackData *CB) {
  if (!ThreadPending)
    return;
  if (CB->correlationData &&
      *CB->correlationData != reinterpret_cast<uint64_t>(ThreadPending))
    return; // not the captured call's exit
  std::unique_ptr<Pending> P(ThreadPending);
  ThreadPending = nullptr;
  if (CB->correlationData)
    *CB->correlationData = 0;
  InsideGuard G;
  CaptureLock Held(CaptureMutex); // locked since onLaunchEnter
  CUresult LaunchResult = CB->functionReturnValue
                              ? *static_cast<const CUresult *>(CB->functionReturnValue)
                              : CUDA_SUCCESS;
  if (LaunchResult != CUDA_SUCCESS) {
    recordSkipped(std::move(P), "the launch itself failed: " + cuErr(LaunchResult));
    return;
  }
  CUresult R = cuCtxSynchronize();
  if (R != CUDA_SUCCESS) {
    std::string Reason = "the kernel failed: " + cuErr(R) +
                         " (its before state is kept out of the capture)";
    {
      std::lock_guard<std::mutex> Lock(StateMutex);
      Disabled = true;
      DisabledReason = "a captured kernel failed: " + cuErr(R);
    }
    recordSkipped(std::move(P), Reason);
    return;
  }
  std::string Why;
  if (!(Why = copyRegions(P->Allocations, true, *P, "alloc")).empty() ||
      !(Why = copyRegions(P->Globals, true, *P, "global")).empty()) {
    recordSkipped(std::move(P), Why);
    return;
  }
  Value Allocs = Value::array();
  uint64_t Bytes = 0;
  for (size_t I = 0; I < P->Allocations.size(); ++I) {
    const RegionCapture &R = P->Allocations[I];
    Value J = Value::object();
    J.set("index", static_cast<unsigned long long>(I));
    J.set("base", hex(R.Base));
    J.set("size", static_cast<unsigned long long>(R.Size));
    J.set("memory", R.Kind);
    J.set("deviceOrdinal", R.DeviceOrdinal);
    J.set("before", R.BeforeFile);
    J.set("after", R.AfterFile);
    J.set("changed", R.Changed);
    Allocs.push(J);
    Bytes += R.Size;
  }
  Value Vars = Value::array();
  for (const auto &R : P->Globals) {
    Value J = Value::object();
    J.set("name", R.Name);
    J.set("kind", R.Kind);
    J.set("address", hex(R.Base));
    J.set("size", static_cast<unsigned long long>(R.Size));
    J.set("before", R.BeforeFile);
    J.set("after", R.AfterFile);
    J.set("changed", R.Changed);
    Vars.push(J);
    Bytes += R.Size;
  }
  P->Entry.set("allocations", Allocs);
  if (Value *Gs = P->Entry.get("globals"))
    Gs->set("variables", Vars);
  P->Entry.set("capturedBytes", static_cast<unsigned long long>(Bytes));
  P->Entry.set("status", "captured");
  log("launch %llu (%s): captured, %zu allocations, %zu variables, %llu bytes",
      static_cast<unsigned long long>(P->Index), P->KernelName.c_str(),
      P->Allocations.size(), P->Globals.size(),
      static_cast<unsigned long long>(Bytes));
  record(std::move(P), true);
}

} // namespace

/// Called by the CUDA driver (CUDA_INJECTION64_PATH) during cuInit.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static bool Done = false;
  if (Done)
    return 1;
  Done = true;
  try {
    auto *C = new Capture();
    std::string Error;
    bool Ok = C->init(Error);
    if (C->ownsDirectory()) {
      // The manifest is final at exit, with or without a capture.
      ExitWriter = C;
      std::atexit(finishAtExit);
    }
    if (!Ok) {
      std::fprintf(stderr, "cuda-l1-capture: capture disabled: %s\n", Error.c_str());
      if (C->ownsDirectory())
        C->logError(Error);
      // The application still runs, uncaptured.
      return 1;
    }
  } catch (const std::exception &E) {
    std::fprintf(stderr, "cuda-l1-capture: capture disabled: %s\n", E.what());
  }
  return 1;
}
