//===- replay-check.cpp - replay captured launches, require the capture ---===//
//
//   cuda-l1-capture-replay-check <capture-dir> --module <cubin|fatbin|ptx>
//   cuda-l1-capture-replay-check <capture-dir> --captured-module
//       [--kernel <mangled name>] [--repeat <n>]
//
// For every captured launch of the capture directory: loads the kernel
// (from a module built from the application's source, or from the module
// image the capture saved), checks the captured parameter layout against
// the driver's (cuFuncGetParamInfo), recreates every allocation (same
// sizes, pointer offsets preserved) with its "before" bytes, restores the
// module variables, launches with the captured configuration, and requires
// every allocation and variable to equal the captured "after" state bit for
// bit, <n> times (default 2). This is what lib/Verify's GPU job does with
// captured launches, without the main tool: utils/gpu-capture-check.sh runs
// it on a GPU machine with no LLVM.
//
// Exit status: 0 every captured launch reproduced; 1 a launch did not (or
// none could be replayed); 2 bad usage or an unreadable capture.
//
//===----------------------------------------------------------------------===//
#include "ManifestCheck.h"
#include "MiniJson.h"
#include "cudal1/Capture/CaptureFormat.h"

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace cudal1;
using namespace cudal1::capture;
using capjson::Value;

namespace {

std::string cuErr(CUresult R) {
  const char *N = nullptr;
  if (cuGetErrorName(R, &N) != CUDA_SUCCESS || !N)
    return "CUresult " + std::to_string(static_cast<int>(R));
  return N;
}

/// A CUDA call's failure, with the call's text.
struct Failure {
  std::string Msg;
  bool Sticky = false; ///< the context is unusable afterwards
};

#define CHECK_CU(Call)                                                         \
  do {                                                                         \
    CUresult R_ = (Call);                                                      \
    if (R_ != CUDA_SUCCESS) {                                                  \
      F.Msg = std::string(#Call) + " failed: " + cuErr(R_);                    \
      F.Sticky = R_ == CUDA_ERROR_ILLEGAL_ADDRESS ||                           \
                 R_ == CUDA_ERROR_LAUNCH_FAILED ||                             \
                 R_ == CUDA_ERROR_ILLEGAL_INSTRUCTION ||                       \
                 R_ == CUDA_ERROR_MISALIGNED_ADDRESS ||                        \
                 R_ == CUDA_ERROR_HARDWARE_STACK_ERROR ||                      \
                 R_ == CUDA_ERROR_UNKNOWN;                                     \
      return false;                                                            \
    }                                                                          \
  } while (0)

struct Region {
  std::string Name; ///< variables
  uint64_t Size = 0;
  bool Managed = false;
  bool CapturedChange = false;
  std::string Before, After; ///< bytes
  CUdeviceptr Ptr = 0;
};

struct Replay {
  std::string Dir;
  uint64_t Index = 0;
  std::string Kernel;
  uint64_t Grid[3], Block[3];
  uint64_t Smem = 0;
  bool Cooperative = false;
  bool HasCluster = false;
  uint64_t Cluster[3] = {1, 1, 1};
  std::vector<std::pair<uint64_t, uint64_t>> Params; ///< offset, size
  std::string ParamBytes;
  std::vector<Region> Allocs, Globals;
  struct Fix {
    uint64_t ParamOffset, Alloc, Offset;
  };
  std::vector<Fix> Fixups;
  std::string ModuleImage; ///< relative path, if saved
};

bool load(const std::string &Dir, const Value &L, Replay &R, std::string &Why) {
  R.Dir = Dir;
  getU64(L, "index", R.Index);
  getStr(L, "kernel", R.Kernel);
  getDim3(L, "grid", R.Grid);
  getDim3(L, "block", R.Block);
  getU64(L, "sharedMemBytes", R.Smem);
  if (const Value *C = L.get("cooperative"); C && C->kind() == Value::Bool)
    R.Cooperative = C->asBool();
  if (const Value *C = L.get("clusterDim"); C && C->kind() == Value::Array) {
    R.HasCluster = getDim3(L, "clusterDim", R.Cluster);
  }
  const Value *Layout = L.get("layout");
  for (const auto &P : Layout->get("parameters")->elements()) {
    uint64_t Off = 0, Size = 0;
    getU64(P, "offset", Off);
    getU64(P, "size", Size);
    R.Params.push_back({Off, Size});
  }
  std::string Rel;
  getStr(L, "params", Rel);
  if (!readWholeFile(Dir + "/" + Rel, R.ParamBytes)) {
    Why = "cannot read " + Rel;
    return false;
  }
  auto ReadRegion = [&](const Value &V, Region &Out) -> bool {
    getU64(V, "size", Out.Size);
    getStr(V, "name", Out.Name);
    std::string Mem, B, A;
    if (getStr(V, "memory", Mem))
      Out.Managed = Mem == "managed";
    if (const Value *C = V.get("changed"); C && C->kind() == Value::Bool)
      Out.CapturedChange = C->asBool();
    getStr(V, "before", B);
    getStr(V, "after", A);
    if (!readWholeFile(Dir + "/" + B, Out.Before) ||
        !readWholeFile(Dir + "/" + A, Out.After)) {
      Why = "cannot read " + B + " or " + A;
      return false;
    }
    return true;
  };
  for (const auto &A : L.get("allocations")->elements()) {
    Region Rg;
    if (!ReadRegion(A, Rg))
      return false;
    R.Allocs.push_back(std::move(Rg));
  }
  if (const Value *G = L.get("globals"))
    if (const Value *Vs = G->get("variables"); Vs && Vs->kind() == Value::Array)
      for (const auto &V : Vs->elements()) {
        Region Rg;
        if (!ReadRegion(V, Rg))
          return false;
        R.Globals.push_back(std::move(Rg));
      }
  for (const auto &P : L.get("pointers")->elements()) {
    Replay::Fix Fx{0, 0, 0};
    getU64(P, "paramOffset", Fx.ParamOffset);
    getU64(P, "allocation", Fx.Alloc);
    getU64(P, "offset", Fx.Offset);
    R.Fixups.push_back(Fx);
  }
  if (const Value *M = L.get("module"); M && M->kind() == Value::Object)
    getStr(*M, "image", R.ModuleImage);
  return true;
}

/// Bytes that differ between \p A and \p B; the first at \p First.
uint64_t diffBytes(const std::string &A, const std::string &B, uint64_t &First) {
  uint64_t N = 0;
  First = 0;
  for (size_t I = 0; I < A.size() && I < B.size(); ++I)
    if (A[I] != B[I]) {
      if (!N)
        First = I;
      ++N;
    }
  return N;
}

CUfunction findKernel(CUmodule Mod, const std::string &Name, std::string &Note) {
  CUfunction Fn = nullptr;
  CUresult R = cuModuleGetFunction(&Fn, Mod, Name.c_str());
  if (R == CUDA_SUCCESS)
    return Fn;
  Note = "cuModuleGetFunction: " + cuErr(R);
  // Anonymous namespaces get a per-compilation name: compare normalised.
  unsigned Count = 0;
  if (cuModuleGetFunctionCount(&Count, Mod) != CUDA_SUCCESS || !Count)
    return nullptr;
  std::vector<CUfunction> Fns(Count);
  if (cuModuleEnumerateFunctions(Fns.data(), Count, Mod) != CUDA_SUCCESS)
    return nullptr;
  std::string Want = normalizeKernelName(Name);
  for (CUfunction F : Fns) {
    const char *N = nullptr;
    if (cuFuncGetName(&N, F) == CUDA_SUCCESS && N && normalizeKernelName(N) == Want) {
      Note += "; found as " + std::string(N);
      return F;
    }
  }
  return nullptr;
}

bool checkLayout(CUfunction Fn, const Replay &R, std::string &Msg) {
  std::vector<std::pair<uint64_t, uint64_t>> Driver;
  for (size_t I = 0; I < 4096; ++I) {
    size_t Off = 0, Size = 0;
    CUresult E = cuFuncGetParamInfo(Fn, I, &Off, &Size);
    if (E == CUDA_ERROR_INVALID_VALUE)
      break;
    if (E != CUDA_SUCCESS) {
      Msg = "cuFuncGetParamInfo: " + cuErr(E) + " (layout not checked)";
      return true;
    }
    Driver.push_back({Off, Size});
  }
  if (Driver.size() != R.Params.size()) {
    Msg = "the capture's layout has " + std::to_string(R.Params.size()) +
          " parameters, the driver says " + std::to_string(Driver.size());
    return false;
  }
  for (size_t I = 0; I < Driver.size(); ++I)
    if (Driver[I] != R.Params[I]) {
      Msg = "parameter " + std::to_string(I) + ": capture offset " +
            std::to_string(R.Params[I].first) + " size " +
            std::to_string(R.Params[I].second) + ", driver offset " +
            std::to_string(Driver[I].first) + " size " + std::to_string(Driver[I].second);
      return false;
    }
  Msg = "agrees with the driver (" + std::to_string(Driver.size()) + " parameters)";
  return true;
}

/// One run: restore, launch, compare. False on a CUDA failure (F set);
/// \p Mismatch gets what differs (empty when bit-identical).
bool runOnce(CUmodule Mod, CUfunction Fn, Replay &R, std::string &Mismatch,
             uint64_t &Compared, Failure &F) {
  Mismatch.clear();
  Compared = 0;
  for (auto &A : R.Allocs) {
    if (A.Before.size() != A.Size) {
      F.Msg = "allocation data has the wrong size";
      return false;
    }
    CHECK_CU(cuMemcpyHtoD(A.Ptr, A.Before.data(), A.Size));
  }
  for (auto &G : R.Globals) {
    CUdeviceptr P = 0;
    size_t Size = 0;
    CHECK_CU(cuModuleGetGlobal(&P, &Size, Mod, G.Name.c_str()));
    if (Size != G.Size) {
      F.Msg = "variable " + G.Name + " has " + std::to_string(Size) +
              " bytes in this module, " + std::to_string(G.Size) + " in the capture";
      return false;
    }
    G.Ptr = P;
    CHECK_CU(cuMemcpyHtoD(P, G.Before.data(), G.Size));
  }
  std::string Buf = R.ParamBytes;
  for (const auto &Fx : R.Fixups) {
    uint64_t V = R.Allocs[Fx.Alloc].Ptr + Fx.Offset;
    std::memcpy(&Buf[Fx.ParamOffset], &V, 8);
  }
  std::vector<void *> Args;
  for (const auto &P : R.Params)
    Args.push_back(&Buf[P.first]);
  CHECK_CU(cuCtxSynchronize());
  unsigned G[3] = {unsigned(R.Grid[0]), unsigned(R.Grid[1]), unsigned(R.Grid[2])};
  unsigned B[3] = {unsigned(R.Block[0]), unsigned(R.Block[1]), unsigned(R.Block[2])};
  if (R.Smem > 48 * 1024)
    CHECK_CU(cuFuncSetAttribute(Fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                static_cast<int>(R.Smem)));
  if (R.HasCluster) {
    CUlaunchAttribute At[2];
    std::memset(At, 0, sizeof(At));
    At[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    At[0].value.clusterDim.x = unsigned(R.Cluster[0]);
    At[0].value.clusterDim.y = unsigned(R.Cluster[1]);
    At[0].value.clusterDim.z = unsigned(R.Cluster[2]);
    At[1].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    At[1].value.cooperative = R.Cooperative;
    CUlaunchConfig C;
    std::memset(&C, 0, sizeof(C));
    C.gridDimX = G[0], C.gridDimY = G[1], C.gridDimZ = G[2];
    C.blockDimX = B[0], C.blockDimY = B[1], C.blockDimZ = B[2];
    C.sharedMemBytes = unsigned(R.Smem);
    C.attrs = At;
    C.numAttrs = 2;
    CHECK_CU(cuLaunchKernelEx(&C, Fn, Args.data(), nullptr));
  } else if (R.Cooperative) {
    CHECK_CU(cuLaunchCooperativeKernel(Fn, G[0], G[1], G[2], B[0], B[1], B[2],
                                       unsigned(R.Smem), nullptr, Args.data()));
  } else {
    CHECK_CU(cuLaunchKernel(Fn, G[0], G[1], G[2], B[0], B[1], B[2], unsigned(R.Smem),
                            nullptr, Args.data(), nullptr));
  }
  CHECK_CU(cuCtxSynchronize());
  auto Compare = [&](Region &Rg, CUdeviceptr P, const std::string &What) -> bool {
    std::string Got(Rg.Size, '\0');
    CHECK_CU(cuMemcpyDtoH(&Got[0], P, Rg.Size));
    uint64_t First;
    uint64_t N = diffBytes(Got, Rg.After, First);
    Compared += Rg.Size;
    if (N) {
      char Buf[160];
      std::snprintf(Buf, sizeof(Buf),
                    "%s: %llu of %llu bytes differ, first at byte %llu (captured 0x%02x, "
                    "replayed 0x%02x)",
                    What.c_str(), static_cast<unsigned long long>(N),
                    static_cast<unsigned long long>(Rg.Size),
                    static_cast<unsigned long long>(First),
                    static_cast<unsigned char>(Rg.After[First]),
                    static_cast<unsigned char>(Got[First]));
      Mismatch += std::string(Mismatch.empty() ? "" : "; ") + Buf;
    }
    return true;
  };
  for (size_t I = 0; I < R.Allocs.size(); ++I)
    if (!Compare(R.Allocs[I], R.Allocs[I].Ptr, "allocation " + std::to_string(I)))
      return false;
  for (auto &Gv : R.Globals)
    if (!Compare(Gv, Gv.Ptr, "variable " + Gv.Name))
      return false;
  return true;
}

bool allocate(Replay &R, Failure &F) {
  for (auto &A : R.Allocs) {
    if (A.Managed)
      CHECK_CU(cuMemAllocManaged(&A.Ptr, A.Size, CU_MEM_ATTACH_GLOBAL));
    else
      CHECK_CU(cuMemAlloc(&A.Ptr, A.Size));
  }
  return true;
}

void release(Replay &R) {
  for (auto &A : R.Allocs)
    if (A.Ptr) {
      cuMemFree(A.Ptr);
      A.Ptr = 0;
    }
}

int usage(const char *Msg) {
  std::fprintf(stderr,
               "replay-check: error: %s\nusage: cuda-l1-capture-replay-check <capture-dir> "
               "(--module <file> | --captured-module) [--kernel <mangled>] [--repeat <n>]\n",
               Msg);
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  std::string Dir, ModuleFile, OnlyKernel;
  bool Captured = false;
  int Repeat = 2;
  for (int I = 1; I < argc; ++I) {
    std::string A = argv[I];
    if (A == "--module" && I + 1 < argc)
      ModuleFile = argv[++I];
    else if (A == "--captured-module")
      Captured = true;
    else if (A == "--kernel" && I + 1 < argc)
      OnlyKernel = argv[++I];
    else if (A == "--repeat" && I + 1 < argc)
      Repeat = std::atoi(argv[++I]);
    else if (!A.empty() && A[0] != '-' && Dir.empty())
      Dir = A;
    else
      return usage(("unexpected argument '" + A + "'").c_str());
  }
  if (Dir.empty() || (ModuleFile.empty() == !Captured) || Repeat < 1)
    return usage("need a capture directory and exactly one of --module, --captured-module");

  Value Root;
  std::vector<std::string> Problems;
  ManifestSummary Sum;
  if (!readManifest(Dir, Root, Problems) || !checkManifest(Dir, Root, Problems, Sum)) {
    for (const auto &P : Problems)
      std::fprintf(stderr, "replay-check: error: %s\n", P.c_str());
    return 2;
  }

  Failure F;
  auto Fatal = [&](const char *What, CUresult R) {
    std::fprintf(stderr, "replay-check: error: %s failed: %s\n", What, cuErr(R).c_str());
    return 2;
  };
  CUresult R = cuInit(0);
  if (R != CUDA_SUCCESS)
    return Fatal("cuInit", R);
  CUdevice Dev;
  if ((R = cuDeviceGet(&Dev, 0)) != CUDA_SUCCESS)
    return Fatal("cuDeviceGet", R);
  CUcontext Ctx;
  if ((R = cuDevicePrimaryCtxRetain(&Ctx, Dev)) != CUDA_SUCCESS)
    return Fatal("cuDevicePrimaryCtxRetain", R);
  if ((R = cuCtxSetCurrent(Ctx)) != CUDA_SUCCESS)
    return Fatal("cuCtxSetCurrent", R);
  char Name[256] = {0};
  cuDeviceGetName(Name, sizeof(Name) - 1, Dev);
  std::printf("replay-check: %s on %s (%s)\n", Dir.c_str(), Name,
              Captured ? "kernels from the captured module images"
                       : ("kernels from " + ModuleFile).c_str());

  std::map<std::string, CUmodule> Modules;
  auto GetModule = [&](const std::string &Path, CUmodule &M) -> CUresult {
    auto It = Modules.find(Path);
    if (It != Modules.end()) {
      M = It->second;
      return CUDA_SUCCESS;
    }
    CUresult E = cuModuleLoad(&M, Path.c_str());
    if (E == CUDA_SUCCESS)
      Modules[Path] = M;
    return E;
  };

  unsigned Pass = 0, Fail = 0, Skipped = 0;
  for (const auto &L : Root.get("launches")->elements()) {
    std::string Status, Kernel;
    uint64_t Index = 0;
    getStr(L, "status", Status);
    getStr(L, "kernel", Kernel);
    getU64(L, "index", Index);
    if (!OnlyKernel.empty() && Kernel != OnlyKernel)
      continue;
    if (Status != "captured") {
      ++Skipped;
      continue;
    }
    std::string Tag = "launch " + std::to_string(Index) + " " + Kernel;
    Replay Rp;
    std::string Why;
    if (!load(Dir, L, Rp, Why)) {
      std::printf("%s: FAIL: %s\n", Tag.c_str(), Why.c_str());
      ++Fail;
      continue;
    }
    std::string ModPath = ModuleFile;
    if (Captured) {
      if (Rp.ModuleImage.empty()) {
        std::printf("%s: FAIL: the capture saved no module image for this launch\n",
                    Tag.c_str());
        ++Fail;
        continue;
      }
      ModPath = Dir + "/" + Rp.ModuleImage;
    }
    CUmodule Mod;
    if ((R = GetModule(ModPath, Mod)) != CUDA_SUCCESS) {
      std::printf("%s: FAIL: cuModuleLoad(%s): %s\n", Tag.c_str(), ModPath.c_str(),
                  cuErr(R).c_str());
      ++Fail;
      continue;
    }
    std::string Note;
    CUfunction Fn = findKernel(Mod, Kernel, Note);
    if (!Fn) {
      std::printf("%s: FAIL: kernel not in %s (%s)\n", Tag.c_str(), ModPath.c_str(),
                  Note.c_str());
      ++Fail;
      continue;
    }
    std::string LayoutMsg;
    bool LayoutOk = checkLayout(Fn, Rp, LayoutMsg);
    std::printf("%s: layout %s\n", Tag.c_str(), LayoutMsg.c_str());
    if (!LayoutOk) {
      std::printf("%s: FAIL: parameter layout\n", Tag.c_str());
      ++Fail;
      continue;
    }
    unsigned Changed = 0;
    for (const auto &A : Rp.Allocs)
      Changed += A.CapturedChange;
    for (const auto &G : Rp.Globals)
      Changed += G.CapturedChange;
    bool Ok = allocate(Rp, F);
    std::string Mismatch;
    uint64_t Compared = 0;
    int Run = 0;
    for (; Ok && Run < Repeat; ++Run) {
      if (!runOnce(Mod, Fn, Rp, Mismatch, Compared, F)) {
        Ok = false;
        break;
      }
      if (!Mismatch.empty())
        break;
    }
    release(Rp);
    if (!Ok) {
      std::printf("%s: FAIL: %s\n", Tag.c_str(), F.Msg.c_str());
      ++Fail;
      if (F.Sticky) {
        std::printf("replay-check: the context is unusable after this error; stopping\n");
        break;
      }
      continue;
    }
    if (!Mismatch.empty()) {
      std::printf("%s: FAIL (run %d of %d): %s\n", Tag.c_str(), Run + 1, Repeat,
                  Mismatch.c_str());
      ++Fail;
      continue;
    }
    std::printf("%s: PASS x%d: %zu allocation%s and %zu variable%s (%llu bytes) equal the "
                "captured after-state bit for bit; %u of them changed by the kernel%s\n",
                Tag.c_str(), Repeat, Rp.Allocs.size(), Rp.Allocs.size() == 1 ? "" : "s",
                Rp.Globals.size(), Rp.Globals.size() == 1 ? "" : "s",
                static_cast<unsigned long long>(Compared), Changed,
                Changed ? "" : " (WARNING: nothing changed: the comparison proves little)");
    ++Pass;
  }
  for (auto &M : Modules)
    cuModuleUnload(M.second);
  cuDevicePrimaryCtxRelease(Dev);
  std::printf("replay-check: %u PASS, %u FAIL (%u launches skipped in the capture)\n", Pass,
              Fail, Skipped);
  return Fail == 0 && Pass > 0 ? 0 : 1;
}
