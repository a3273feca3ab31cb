//===- Nvrtc.cpp - NVRTC, loaded with dlopen ------------------------------===//
#include "cudal1/Compile/Nvrtc.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <nvrtc.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;

namespace cudal1 {

namespace {

struct NvrtcApi {
  void *Handle = nullptr;
  std::string Path, LoadError;
#define CUDAL1_NVRTC(Field, Sym) decltype(&::Sym) Field = nullptr;
#include "NvrtcFunctions.def"
  bool ok() const { return Handle != nullptr; }
};

bool loadFrom(const std::string &Path, NvrtcApi &A, std::string &Why) {
  void *H = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!H) {
    const char *E = dlerror();
    Why = E ? E : "dlopen failed";
    return false;
  }
  std::string Missing;
#define CUDAL1_NVRTC(Field, Sym)                                               \
  A.Field = reinterpret_cast<decltype(A.Field)>(dlsym(H, #Sym));               \
  if (!A.Field)                                                                \
    Missing += (Missing.empty() ? "" : ", ") + std::string(#Sym);
#include "NvrtcFunctions.def"
  if (!Missing.empty()) {
    Why = Path + ": not a usable NVRTC library (lacks " + Missing +
          "; CUBIN output needs CUDA 11.1 or newer)";
    dlclose(H);
    return false;
  }
  A.Handle = H;
  A.Path = Path;
  return true;
}

/// Candidate library paths: <cuda>/lib64/libnvrtc.so*, then the default
/// search path (LD_LIBRARY_PATH, ld.so.cache).
std::vector<std::string> candidates(StringRef CudaPath) {
  std::vector<std::string> C;
  if (!CudaPath.empty()) {
    for (const char *Sub : {"lib64", "lib", "targets/x86_64-linux/lib",
                            "targets/sbsa-linux/lib"}) {
      SmallString<256> Dir(CudaPath);
      sys::path::append(Dir, Sub);
      // Unversioned first, then versioned names (runtime-only installs).
      SmallString<256> Plain(Dir);
      sys::path::append(Plain, "libnvrtc.so");
      if (sys::fs::exists(Plain))
        C.push_back(std::string(Plain));
      std::error_code EC;
      std::vector<std::string> Versioned;
      for (sys::fs::directory_iterator It(Dir, EC), End; !EC && It != End;
           It.increment(EC)) {
        StringRef Name = sys::path::filename(It->path());
        if (Name.starts_with("libnvrtc.so."))
          Versioned.push_back(It->path());
      }
      std::sort(Versioned.rbegin(), Versioned.rend());
      C.insert(C.end(), Versioned.begin(), Versioned.end());
    }
  }
  for (const char *N :
       {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"})
    C.push_back(N);
  return C;
}

std::mutex LoadMutex;
std::map<std::string, NvrtcApi> Loaded; // by CUDA path; never unloaded

const NvrtcApi &getApi(StringRef CudaPath) {
  std::lock_guard<std::mutex> L(LoadMutex);
  auto It = Loaded.find(CudaPath.str());
  if (It != Loaded.end())
    return It->second;
  NvrtcApi &A = Loaded[CudaPath.str()];
  std::string Tried;
  for (const std::string &P : candidates(CudaPath)) {
    std::string Why;
    if (loadFrom(P, A, Why))
      return A;
    if (!Tried.empty())
      Tried += "; ";
    Tried += Why;
  }
  A.LoadError = "NVRTC (libnvrtc.so) could not be loaded" +
                (CudaPath.empty() ? std::string()
                                  : " from " + CudaPath.str() + "/lib64") +
                " or the library search path; install the CUDA toolkit or "
                "pass --cuda-path (tried: " +
                Tried + ")";
  return A;
}

std::string errorText(const NvrtcApi &A, nvrtcResult R) {
  const char *S = A.GetErrorString ? A.GetErrorString(R) : nullptr;
  return S ? S : ("NVRTC error " + std::to_string(R));
}

} // namespace

std::vector<std::string> nvrtcCommandOptions(const NvrtcOptions &Opts) {
  std::vector<std::string> O;
  O.push_back("-arch=" +
              (Opts.GpuArch.empty() ? std::string("sm_90") : Opts.GpuArch));
  O.push_back("-std=c++17");
  // Extracted sources are device code: unannotated (constexpr) functions
  // and namespace-scope constants are device entities (NVRTC rejects host
  // entities in JIT mode).
  if (Opts.DefaultDevice)
    O.push_back("-default-device");
  for (const auto &D : Opts.IncludeDirs)
    O.push_back("-I" + D);
  if (!Opts.CudaPath.empty()) {
    O.push_back("-I" + Opts.CudaPath + "/include");
    SmallString<256> Cccl(Opts.CudaPath);
    sys::path::append(Cccl, "include", "cccl");
    if (sys::fs::is_directory(Cccl))
      O.push_back("-I" + std::string(Cccl));
  }
  for (const auto &E : Opts.ExtraOptions)
    O.push_back(E);
  return O;
}

bool nvrtcAvailable(StringRef CudaPath, std::string *Where) {
  const NvrtcApi &A = getApi(CudaPath);
  if (Where)
    *Where = A.ok() ? A.Path : A.LoadError;
  return A.ok();
}

std::string nvrtcVersion(StringRef CudaPath) {
  const NvrtcApi &A = getApi(CudaPath);
  int Major = 0, Minor = 0;
  if (!A.ok() || A.Version(&Major, &Minor) != 0)
    return "";
  return std::to_string(Major) + "." + std::to_string(Minor);
}

static NvrtcResult compileHere(StringRef Source, StringRef FileName,
                             ArrayRef<std::string> NameExpressions,
                             const NvrtcOptions &Opts) {
  NvrtcResult R;
  const NvrtcApi &A = getApi(Opts.CudaPath);
  if (!A.ok()) {
    R.Error = FileName.str() + ": " + A.LoadError;
    return R;
  }
  std::string Src = Source.str(), Name = FileName.str();
  nvrtcProgram Prog = nullptr;
  nvrtcResult Rc =
      A.CreateProgram(&Prog, Src.c_str(), Name.c_str(), 0, nullptr, nullptr);
  if (Rc != 0) {
    R.Error = Name + ": nvrtcCreateProgram failed: " + errorText(A, Rc);
    return R;
  }
  for (const std::string &E : NameExpressions) {
    Rc = A.AddNameExpression(Prog, E.c_str());
    if (Rc != 0) {
      R.Error =
          Name + ": name expression '" + E + "' rejected: " + errorText(A, Rc);
      A.DestroyProgram(&Prog);
      return R;
    }
  }
  std::vector<std::string> Options = nvrtcCommandOptions(Opts);
  std::vector<const char *> Argv;
  for (const auto &O : Options)
    Argv.push_back(O.c_str());
  Rc = A.CompileProgram(Prog, int(Argv.size()), Argv.data());
  size_t LogSize = 0;
  if (A.GetProgramLogSize(Prog, &LogSize) == 0 && LogSize > 1) {
    std::string Log(LogSize, '\0');
    if (A.GetProgramLog(Prog, Log.data()) == 0) {
      while (!Log.empty() && (Log.back() == '\0' || Log.back() == '\n'))
        Log.pop_back();
      R.Log = Log;
    }
  }
  if (Rc != 0) {
    R.Error = Name + ": NVRTC compilation failed (" + errorText(A, Rc) + ")";
    if (!R.Log.empty())
      R.Error += ":\n" + R.Log;
    A.DestroyProgram(&Prog);
    return R;
  }
  for (const std::string &E : NameExpressions) {
    const char *Lowered = nullptr;
    Rc = A.GetLoweredName(Prog, E.c_str(), &Lowered);
    if (Rc != 0 || !Lowered) {
      R.Error = Name + ": no lowered name for '" + E + "': " + errorText(A, Rc);
      A.DestroyProgram(&Prog);
      return R;
    }
    R.LoweredNames.emplace_back(E, Lowered);
  }
  size_t CubinSize = 0;
  Rc = A.GetCUBINSize(Prog, &CubinSize);
  if (Rc != 0 || CubinSize == 0) {
    R.Error = Name + ": NVRTC produced no CUBIN (" + errorText(A, Rc) +
              "); is the architecture a real one (sm_XX, not compute_XX)?";
    A.DestroyProgram(&Prog);
    return R;
  }
  R.Cubin.resize(CubinSize);
  Rc = A.GetCUBIN(Prog, R.Cubin.data());
  A.DestroyProgram(&Prog);
  if (Rc != 0) {
    R.Cubin.clear();
    R.Error = Name + ": nvrtcGetCUBIN failed: " + errorText(A, Rc);
    return R;
  }
  R.Ok = true;
  return R;
}

// --- compiling in a child process --------------------------------------
//
// NVRTC 13 loads and initialises the CUDA driver while it compiles
// (measured on the H200 machine: utils/experiments/nvrtc-fork.cu). A process
// that has initialised the driver cannot hand it to children it forks later:
// their cuInit fails with CUDA_ERROR_NOT_INITIALIZED. The verifier runs each
// GPU job in a forked child, so the tool itself must never compile with
// NVRTC in its own process: each compilation runs in a short-lived child
// (which also keeps an NVRTC crash from taking the tool down), except in a
// process that uses the GPU itself (the verifier's child), which compiles
// in place.

namespace {
std::atomic<bool> CompileInProcess{false};

void putBytes(std::string &Out, const char *P, size_t N) {
  uint64_t L = N;
  Out.append(reinterpret_cast<const char *>(&L), sizeof(L));
  Out.append(P, N);
}

bool getBytes(const std::string &In, size_t &Pos, std::string &Out) {
  uint64_t L = 0;
  if (Pos + sizeof(L) > In.size())
    return false;
  std::memcpy(&L, In.data() + Pos, sizeof(L));
  Pos += sizeof(L);
  if (L > In.size() - Pos)
    return false;
  Out.assign(In.data() + Pos, L);
  Pos += L;
  return true;
}

std::string serialize(const NvrtcResult &R) {
  std::string Out(1, R.Ok ? '1' : '0');
  putBytes(Out, R.Log.data(), R.Log.size());
  putBytes(Out, R.Error.data(), R.Error.size());
  putBytes(Out, R.Cubin.data(), R.Cubin.size());
  std::string N = std::to_string(R.LoweredNames.size());
  putBytes(Out, N.data(), N.size());
  for (const auto &KV : R.LoweredNames) {
    putBytes(Out, KV.first.data(), KV.first.size());
    putBytes(Out, KV.second.data(), KV.second.size());
  }
  return Out;
}

bool deserialize(const std::string &In, NvrtcResult &R) {
  if (In.empty())
    return false;
  R.Ok = In[0] == '1';
  size_t Pos = 1;
  std::string Cubin, N;
  if (!getBytes(In, Pos, R.Log) || !getBytes(In, Pos, R.Error) ||
      !getBytes(In, Pos, Cubin) || !getBytes(In, Pos, N))
    return false;
  R.Cubin.assign(Cubin.begin(), Cubin.end());
  unsigned long Count = std::strtoul(N.c_str(), nullptr, 10);
  for (unsigned long I = 0; I < Count; ++I) {
    std::string A, B;
    if (!getBytes(In, Pos, A) || !getBytes(In, Pos, B))
      return false;
    R.LoweredNames.push_back({A, B});
  }
  return Pos == In.size();
}

bool writeAll(int Fd, const std::string &S) {
  size_t Done = 0;
  while (Done < S.size()) {
    ssize_t W = ::write(Fd, S.data() + Done, S.size() - Done);
    if (W < 0 && errno == EINTR)
      continue;
    if (W <= 0)
      return false;
    Done += size_t(W);
  }
  return true;
}
} // namespace

void nvrtcCompileInThisProcess(bool InProcess) {
  CompileInProcess = InProcess;
}

NvrtcResult compileWithNvrtc(StringRef Source, StringRef FileName,
                             ArrayRef<std::string> NameExpressions,
                             const NvrtcOptions &Opts) {
  if (CompileInProcess || Opts.InProcess)
    return compileHere(Source, FileName, NameExpressions, Opts);
  // NVRTC loaded here (loading it does not touch the driver; compiling
  // does), so each child starts with the library in place.
  getApi(Opts.CudaPath);
  // One fork at a time: the child copies only the forking thread.
  static std::mutex ForkMutex;
  std::lock_guard<std::mutex> Lock(ForkMutex);
  NvrtcResult R;
  int Fds[2];
  if (::pipe(Fds) != 0) {
    R.Error = FileName.str() + ": cannot start the NVRTC compilation: pipe: " +
              std::strerror(errno);
    return R;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t Pid = ::fork();
  if (Pid < 0) {
    ::close(Fds[0]);
    ::close(Fds[1]);
    R.Error = FileName.str() + ": cannot start the NVRTC compilation: fork: " +
              std::strerror(errno);
    return R;
  }
  if (Pid == 0) {
    ::close(Fds[0]);
    NvrtcResult C = compileHere(Source, FileName, NameExpressions, Opts);
    bool Ok = writeAll(Fds[1], serialize(C));
    ::close(Fds[1]);
    ::_exit(Ok ? 0 : 1);
  }
  ::close(Fds[1]);
  std::string Buf;
  char Tmp[65536];
  for (;;) {
    ssize_t N = ::read(Fds[0], Tmp, sizeof(Tmp));
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break;
    Buf.append(Tmp, size_t(N));
  }
  ::close(Fds[0]);
  int St = 0;
  while (::waitpid(Pid, &St, 0) < 0 && errno == EINTR) {
  }
  if (deserialize(Buf, R))
    return R;
  R = NvrtcResult();
  if (WIFSIGNALED(St))
    R.Error = FileName.str() + ": NVRTC crashed while compiling it (signal " +
              std::to_string(WTERMSIG(St)) + ")";
  else
    R.Error = FileName.str() +
              ": the NVRTC compilation ended without a result (exit status " +
              std::to_string(WIFEXITED(St) ? WEXITSTATUS(St) : -1) + ")";
  return R;
}

} // namespace cudal1
