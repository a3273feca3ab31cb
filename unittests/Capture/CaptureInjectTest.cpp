//===- CaptureInjectTest.cpp - the injection library on a mock driver -----===//
//
// The capture library, loaded as the CUDA driver loads it, driven through
// CUPTI callbacks on the CPU: a mock libcuda.so.1 (host buffers stand in
// for device allocations; the test answers the parameter-info, module and
// synchronisation calls) and a mock libcupti.so.13 (delivers the
// callbacks) are loaded first, in a child process per scenario; the
// "kernel" is a lambda run between the launch's enter and exit callbacks.
// The parent then reads the capture directory with lib/Capture and the
// launcher's check. What the GPU adds (real handles, real CUPTI, lazy
// loading) is utils/gpu-capture-check.sh's job.
//
//===----------------------------------------------------------------------===//
#include "ManifestCheck.h"
#include "cudal1/Capture/CaptureManifest.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cuda.h>
#include <cupti.h>

#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <functional>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace cudal1;
using namespace llvm;

namespace {

struct Mock {
  void (*addAlloc)(void *, size_t, int);
  void (*setParamInfo)(const size_t *, const size_t *, int, int, int);
  void (*setSyncResult)(int);
  void (*setCapturing)(int);
  void (*addGlobal)(const char *, void *, size_t);
  int (*fire)(int, unsigned, const void *);

  void paramInfo(std::vector<size_t> Off, std::vector<size_t> Size, bool FuncWorks = false,
                 bool KernelWorks = true) {
    setParamInfo(Off.data(), Size.data(), static_cast<int>(Off.size()), FuncWorks,
                 KernelWorks);
  }

  /// One launch: the enter callback, the kernel, the exit callback.
  void launch(const char *Name, CUpti_CallbackId Cbid, const void *Params,
              const std::function<void()> &Kernel, CUresult Result = CUDA_SUCCESS) {
    CUpti_CallbackData CB;
    std::memset(&CB, 0, sizeof(CB));
    uint64_t Correlation = 0;
    CUresult Ret = Result;
    CB.callbackSite = CUPTI_API_ENTER;
    CB.functionName = "cuLaunchKernel";
    CB.functionParams = Params;
    CB.functionReturnValue = &Ret;
    CB.symbolName = Name;
    CB.context = reinterpret_cast<CUcontext>(0x1);
    CB.correlationData = &Correlation;
    if (!fire(CUPTI_CB_DOMAIN_DRIVER_API, Cbid, &CB)) {
      std::fprintf(stderr, "callback %u not enabled\n", Cbid);
      std::_Exit(91);
    }
    if (Kernel && Result == CUDA_SUCCESS)
      Kernel();
    CB.callbackSite = CUPTI_API_EXIT;
    fire(CUPTI_CB_DOMAIN_DRIVER_API, Cbid, &CB);
  }

  void launchKernel(const char *Name, void **Args, unsigned Block,
                    const std::function<void()> &Kernel, CUresult Result = CUDA_SUCCESS,
                    CUpti_CallbackId Cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel) {
    cuLaunchKernel_params P;
    std::memset(&P, 0, sizeof(P));
    P.f = reinterpret_cast<CUfunction>(0x1234);
    P.gridDimX = P.gridDimY = P.gridDimZ = 1;
    P.blockDimX = Block;
    P.blockDimY = P.blockDimZ = 1;
    P.kernelParams = Args;
    launch(Name, Cbid, &P, Kernel, Result);
  }
};

template <typename T> void sym(void *H, const char *Name, T &Out) {
  Out = reinterpret_cast<T>(dlsym(H, Name));
  if (!Out) {
    std::fprintf(stderr, "dlsym %s: %s\n", Name, dlerror());
    std::_Exit(92);
  }
}

/// Removes a test's capture directory, unless CUDAL1_CAPTURE_TEST_KEEP=1
/// (then it says where it is, to look at).
void removeDir(const std::string &Dir) {
  if (const char *K = std::getenv("CUDAL1_CAPTURE_TEST_KEEP"); K && *K == '1') {
    std::printf("kept %s\n", Dir.c_str());
    return;
  }
  sys::fs::remove_directories(Dir);
}

/// A fresh capture directory.
std::string newDir() {
  SmallString<128> D;
  if (sys::fs::createUniqueDirectory("cudal1-inject-test", D))
    return "";
  return std::string(D);
}

/// Runs \p Body in a child process that has loaded the mocks and the
/// injection library (InitializeInjection called with \p Env) and then
/// exits normally (the library's exit handler runs); the child's status.
int runChild(const std::string &Dir, std::vector<std::pair<std::string, std::string>> Env,
             const std::function<void(Mock &)> &Body) {
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t Pid = fork();
  if (Pid < 0)
    return -1;
  if (Pid == 0) {
    setenv(CaptureEnvDir, Dir.c_str(), 1);
    for (const auto &E : Env)
      setenv(E.first.c_str(), E.second.c_str(), 1);
    void *Cuda = dlopen(CUDAL1_MOCK_DIR "/libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    void *Cupti = dlopen(CUDAL1_MOCK_DIR "/libcupti.so.13", RTLD_NOW | RTLD_GLOBAL);
    if (!Cuda || !Cupti) {
      std::fprintf(stderr, "mocks: %s\n", dlerror());
      std::_Exit(93);
    }
    void *Inject = dlopen(CUDAL1_INJECT_LIBRARY, RTLD_NOW);
    if (!Inject) {
      std::fprintf(stderr, "injection library: %s\n", dlerror());
      std::_Exit(94);
    }
    // The mocks must be the ones the library bound to.
    Dl_info Info;
    void *Sub = dlsym(RTLD_DEFAULT, "cuptiSubscribe");
    if (!Sub || !dladdr(Sub, &Info) || !std::strstr(Info.dli_fname, "mock")) {
      std::fprintf(stderr, "cuptiSubscribe does not come from the mock\n");
      std::_Exit(95);
    }
    Mock M;
    sym(Cuda, "mockcuda_add_alloc", M.addAlloc);
    sym(Cuda, "mockcuda_set_param_info", M.setParamInfo);
    sym(Cuda, "mockcuda_set_sync_result", M.setSyncResult);
    sym(Cuda, "mockcuda_set_capturing", M.setCapturing);
    sym(Cuda, "mockcuda_add_global", M.addGlobal);
    sym(Cupti, "mockcupti_fire", M.fire);
    int (*Init)();
    sym(Inject, "InitializeInjection", Init);
    if (Init() != 1)
      std::_Exit(96);
    Body(M);
    std::exit(0);
  }
  int Status = 0;
  if (waitpid(Pid, &Status, 0) != Pid)
    return -1;
  return WIFEXITED(Status) ? WEXITSTATUS(Status) : 100 + WTERMSIG(Status);
}

/// The capture, read and validated by lib/Capture and by the launcher's
/// check (which must agree that it is valid).
CaptureManifest readBoth(const std::string &Dir) {
  Expected<CaptureManifest> M = readCaptureManifest(Dir);
  if (!M) {
    ADD_FAILURE() << toString(M.takeError());
    return CaptureManifest();
  }
  capjson::Value V;
  std::vector<std::string> Problems;
  capture::ManifestSummary Sum;
  EXPECT_TRUE(capture::readManifest(Dir, V, Problems) &&
              capture::checkManifest(Dir, V, Problems, Sum))
      << (Problems.empty() ? "" : Problems.front());
  return std::move(*M);
}

std::string manifestText(const std::string &Dir) {
  auto B = MemoryBuffer::getFile(Dir + "/manifest.json");
  return B ? (*B)->getBuffer().str() : "";
}

std::vector<uint8_t> bytes(const void *P, size_t N) {
  const auto *B = static_cast<const uint8_t *>(P);
  return std::vector<uint8_t>(B, B + N);
}

float *floatsAt(std::vector<uint8_t> &B, size_t ByteOffset) {
  return reinterpret_cast<float *>(B.data() + ByteOffset);
}

const CaptureLaunch *launchOf(const CaptureManifest &M, const std::string &Kernel,
                              unsigned Nth = 0) {
  for (const auto &L : M.Launches)
    if (L.Kernel == Kernel && Nth-- == 0)
      return &L;
  return nullptr;
}

const char *Saxpy = "_Z5saxpyifPKfPf";

/// saxpy(int n, float a, const float *x, float *y) on one 4 KiB arena:
/// x at byte 64, y at byte 2048.
struct SaxpyArgs {
  alignas(64) float Arena[1024];
  int N = 4;
  float A = 2.0f;
  const float *X;
  float *Y;
  void *Args[4];
  SaxpyArgs() {
    for (int I = 0; I < 1024; ++I)
      Arena[I] = float(I);
    X = Arena + 16;
    Y = Arena + 512;
    Args[0] = &N;
    Args[1] = &A;
    Args[2] = &X;
    Args[3] = &Y;
  }
  void run() {
    for (int I = 0; I < N; ++I)
      Y[I] = A * X[I] + Y[I];
  }
};

TEST(CaptureInject, CapturesARuntimeStyleLaunch) {
  std::string Dir = newDir();
  ASSERT_EQ(runChild(Dir, {{CaptureEnvKernel, "saxpy"}}, [](Mock &M) {
              // The facts of CUDA 13: cuFuncGetParamInfo refuses the handle,
              // cuKernelGetParamInfo answers.
              M.paramInfo({0, 4, 8, 16}, {4, 4, 8, 8});
              static SaxpyArgs S;
              M.addAlloc(S.Arena, sizeof(S.Arena), 1);
              M.launchKernel(Saxpy, S.Args, 4, [] { S.run(); });
              M.launchKernel(Saxpy, S.Args, 4, [] { S.run(); }); // past --launches 1
              int Other = 0;
              void *OA[] = {&Other};
              M.paramInfo({0}, {4});
              M.launchKernel("_Z5otheri", OA, 1, nullptr); // not selected
            }),
            0);
  CaptureManifest M = readBoth(Dir);
  EXPECT_TRUE(M.Complete);
  EXPECT_EQ(M.DeviceName, "Mock GPU");
  ASSERT_EQ(M.Launches.size(), 1u);
  const CaptureLaunch &L = M.Launches[0];
  EXPECT_TRUE(L.captured()) << L.Reason;
  EXPECT_EQ(L.Kernel, Saxpy);
  EXPECT_EQ(L.Api, "cuLaunchKernel");
  EXPECT_EQ(L.Block[0], 4u);
  EXPECT_EQ(L.LayoutSource, "demangled");
  EXPECT_TRUE(L.LayoutCheckedByDriver);
  ASSERT_EQ(L.Allocations.size(), 1u); // x and y: one allocation, stored once
  EXPECT_EQ(L.Allocations[0].Size, 4096u);
  EXPECT_EQ(L.Allocations[0].Memory, "device");
  EXPECT_TRUE(L.Allocations[0].Changed);
  ASSERT_EQ(L.Pointers.size(), 2u);
  EXPECT_EQ(L.Pointers[0].ParamOffset, 8u);
  EXPECT_EQ(L.Pointers[0].Offset, 64u);
  EXPECT_EQ(L.Pointers[1].ParamOffset, 16u);
  EXPECT_EQ(L.Pointers[1].Offset, 2048u);
  EXPECT_EQ(L.GlobalsStatus, "unknown"); // no module image, no model

  Expected<ReplayLaunch> R = loadReplayLaunch(M, L);
  ASSERT_TRUE(static_cast<bool>(R)) << toString(R.takeError());
  // Before: the initial arena; after: y = 2x + y on 4 elements.
  float *Before = floatsAt(R->Allocations[0].Before, 2048);
  float *After = floatsAt(R->Allocations[0].After, 2048);
  for (int I = 0; I < 4; ++I) {
    EXPECT_EQ(Before[I], float(512 + I));
    EXPECT_EQ(After[I], 2.0f * float(16 + I) + float(512 + I));
  }
  EXPECT_EQ(floatsAt(R->Allocations[0].After, 2048)[4], 516.0f); // untouched
  int N;
  float A;
  std::memcpy(&N, R->ParamBuffer.data(), 4);
  std::memcpy(&A, R->ParamBuffer.data() + 4, 4);
  EXPECT_EQ(N, 4);
  EXPECT_EQ(A, 2.0f);
  std::vector<uint8_t> P = R->patchedParams({0x10000});
  uint64_t Y;
  std::memcpy(&Y, P.data() + 16, 8);
  EXPECT_EQ(Y, 0x10000u + 2048);

  std::string Text = manifestText(Dir);
  EXPECT_NE(Text.find("\"kernelsNotSelected\": [\n    {\n      \"kernel\": \"_Z5otheri\""),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find("\"launchesSeen\": 3"), std::string::npos);
  EXPECT_NE(Text.find("\"driverApi\": \"cuKernelGetParamInfo\""), std::string::npos);
  EXPECT_NE(Text.find("cuFuncGetParamInfo: CUDA_ERROR_INVALID_HANDLE"), std::string::npos);
  removeDir(Dir);
}

TEST(CaptureInject, SkipLaunchesAndChangingData) {
  std::string Dir = newDir();
  ASSERT_EQ(runChild(Dir, {{CaptureEnvSkip, "1"}, {CaptureEnvLaunches, "2"}},
                     [](Mock &M) {
                       M.paramInfo({0, 4, 8, 16}, {4, 4, 8, 8});
                       static SaxpyArgs S;
                       M.addAlloc(S.Arena, sizeof(S.Arena), 1);
                       for (int I = 0; I < 4; ++I)
                         M.launchKernel(Saxpy, S.Args, 4, [] { S.run(); });
                     }),
            0);
  CaptureManifest M = readBoth(Dir);
  ASSERT_EQ(M.Launches.size(), 2u);
  EXPECT_EQ(M.Launches[0].KernelLaunchOrdinal, 1u);
  EXPECT_EQ(M.Launches[1].KernelLaunchOrdinal, 2u);
  auto R0 = loadReplayLaunch(M, M.Launches[0]);
  auto R1 = loadReplayLaunch(M, M.Launches[1]);
  ASSERT_TRUE(R0 && R1);
  // The second capture starts where the first ended.
  EXPECT_EQ(R1->Allocations[0].Before, R0->Allocations[0].After);
  EXPECT_NE(R1->Allocations[0].Before, R0->Allocations[0].Before);
  removeDir(Dir);
}

TEST(CaptureInject, HostMemoryIsReportedNotCaptured) {
  std::string Dir = newDir();
  ASSERT_EQ(runChild(Dir, {}, [](Mock &M) {
              M.paramInfo({0, 8, 16}, {8, 8, 4});
              static float Host[64], Dev[64];
              static const float *In = Host;
              static float *Out = Dev;
              static int N = 64;
              M.addAlloc(Host, sizeof(Host), 3); // mapped pinned host memory
              M.addAlloc(Dev, sizeof(Dev), 1);
              void *Args[] = {&In, &Out, &N};
              M.launchKernel("_Z6gatherPKfPfi", Args, 64, nullptr);
            }),
            0);
  CaptureManifest M = readBoth(Dir);
  ASSERT_EQ(M.Launches.size(), 1u);
  EXPECT_FALSE(M.Launches[0].captured());
  EXPECT_NE(M.Launches[0].Reason.find("parameter 0 (byte 0) holds 0x"), std::string::npos)
      << M.Launches[0].Reason;
  EXPECT_NE(M.Launches[0].Reason.find("host memory"), std::string::npos);
  EXPECT_NE(manifestText(Dir).find("\"unresolvedPointers\""), std::string::npos);
  EXPECT_FALSE(sys::fs::exists(Dir + "/launches/0"));
  removeDir(Dir);
}

struct Problem {
  const float *A;
  const float *B;
  float *C;
  int N;
  float Alpha;
};
const char *Axpby = "_Z5axpby7Problemf";

void launchAxpby(Mock &M, bool DriverAnswers) {
  M.paramInfo({0, 32}, {32, 4}, false, DriverAnswers);
  static float AB[64], C[40];
  static Problem P{AB, AB + 32, C + 8, 32, 3.0f};
  static float Beta = -1.0f;
  M.addAlloc(AB, sizeof(AB), 1);
  M.addAlloc(C, sizeof(C), 2); // managed
  void *Args[] = {&P, &Beta};
  M.launchKernel(Axpby, Args, 32, [] {
    for (int I = 0; I < P.N; ++I)
      P.C[I] = P.Alpha * P.A[I] + Beta * P.B[I];
  });
}

std::string writeModel(const std::string &Dir, unsigned ProblemSize) {
  std::string Path = Dir + ".model.json";
  std::ofstream(Path) << R"({"kernels": [{"mangledName": "_Z5axpby7Problemf", "parameters": [
      {"name": "p", "type": "Problem", "isPointer": false, "sizeBytes": )"
                      << ProblemSize << R"(, "alignBytes": 8},
      {"name": "beta", "type": "float", "isPointer": false, "sizeBytes": 4, "alignBytes": 4}]}]})";
  return Path;
}

void expectAxpbyPointers(const CaptureLaunch &L) {
  ASSERT_EQ(L.Pointers.size(), 3u);
  EXPECT_EQ(L.Pointers[0].ParamOffset, 0u);
  EXPECT_EQ(L.Pointers[1].ParamOffset, 8u);
  EXPECT_EQ(L.Pointers[1].Offset, 128u);
  EXPECT_EQ(L.Pointers[0].Allocation, L.Pointers[1].Allocation);
  EXPECT_EQ(L.Pointers[2].ParamOffset, 16u);
  EXPECT_EQ(L.Pointers[2].Offset, 32u);
  ASSERT_EQ(L.Allocations.size(), 2u);
  EXPECT_EQ(L.Allocations[L.Pointers[2].Allocation].Memory, "managed");
}

TEST(CaptureInject, StructParametersWithTheModel) {
  std::string Dir = newDir();
  std::string Model = writeModel(Dir, 32);
  ASSERT_EQ(runChild(Dir, {{CaptureEnvModel, Model}}, [](Mock &M) { launchAxpby(M, true); }), 0);
  CaptureManifest M = readBoth(Dir);
  ASSERT_EQ(M.Launches.size(), 1u);
  const CaptureLaunch &L = M.Launches[0];
  ASSERT_TRUE(L.captured()) << L.Reason;
  EXPECT_EQ(L.LayoutSource, "model");
  EXPECT_TRUE(L.LayoutCheckedByDriver);
  EXPECT_EQ(L.Params[0].Kind, "aggregate");
  expectAxpbyPointers(L);
  removeDir(Dir);
  sys::fs::remove(Model);
}

TEST(CaptureInject, StructParametersFromTheDriverAlone) {
  std::string Dir = newDir();
  ASSERT_EQ(runChild(Dir, {}, [](Mock &M) { launchAxpby(M, true); }), 0);
  CaptureManifest M = readBoth(Dir);
  ASSERT_EQ(M.Launches.size(), 1u);
  ASSERT_TRUE(M.Launches[0].captured()) << M.Launches[0].Reason;
  EXPECT_EQ(M.Launches[0].LayoutSource, "driver");
  EXPECT_FALSE(M.Launches[0].LayoutCheckedByDriver);
  expectAxpbyPointers(M.Launches[0]);
  removeDir(Dir);
}

TEST(CaptureInject, StructParametersWithoutALayoutAreRefused) {
  std::string Dir = newDir();
  ASSERT_EQ(runChild(Dir, {}, [](Mock &M) { launchAxpby(M, false); }), 0);
  CaptureManifest M = readBoth(Dir);
  ASSERT_EQ(M.Launches.size(), 1u);
  EXPECT_FALSE(M.Launches[0].captured());
  EXPECT_EQ(M.Launches[0].Reason,
            "parameter layout unknown: parameter 0 has type 'Problem', whose size and "
            "alignment the demangled name does not give (pass --model, the output of "
            "cuda-l1-rewrite --list-kernels --format=json)");
  removeDir(Dir);
}

TEST(CaptureInject, AStaleModelIsCaughtByTheDriver) {
  std::string Dir = newDir();
  std::string Model = writeModel(Dir, 24); // Problem grew since the model
  ASSERT_EQ(runChild(Dir, {{CaptureEnvModel, Model}}, [](Mock &M) { launchAxpby(M, true); }), 0);
  CaptureManifest M = readBoth(Dir);
  ASSERT_EQ(M.Launches.size(), 1u);
  EXPECT_FALSE(M.Launches[0].captured());
  EXPECT_EQ(M.Launches[0].Reason,
            "parameter layout disagrees with the driver: parameter 0 ('Problem'): the model "
            "layout says offset 0 size 24, the driver offset 0 size 32 (is the kernel model "
            "stale?)");
  removeDir(Dir);
  sys::fs::remove(Model);
}

TEST(CaptureInject, ModuleVariablesFromTheModuleImage) {
  std::string Dir = newDir();
  ASSERT_EQ(runChild(Dir, {}, [](Mock &M) {
              std::ifstream In(CUDAL1_CAPTURE_TEST_INPUTS "/cubin/symbols.cubin",
                               std::ios::binary);
              static std::string Image((std::istreambuf_iterator<char>(In)),
                                       std::istreambuf_iterator<char>());
              CUpti_ModuleResourceData MD;
              MD.moduleId = 7;
              MD.cubinSize = Image.size();
              MD.pCubin = Image.data();
              CUpti_ResourceData RD;
              std::memset(&RD, 0, sizeof(RD));
              RD.context = reinterpret_cast<CUcontext>(0x1);
              RD.resourceDescriptor = &MD;
              M.fire(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED, &RD);
              static float Coef[4] = {1, 2, 3, 4};
              static int Counter = 5, Hidden = 0;
              static float Scale = 2.0f;
              M.addGlobal("coef", Coef, sizeof(Coef));
              M.addGlobal("counter", &Counter, sizeof(Counter));
              M.addGlobal("hidden", &Hidden, sizeof(Hidden));
              M.addGlobal("_ZN2ns6scale_E", &Scale, sizeof(Scale));
              static float Out[8];
              static float *P = Out;
              static int N = 3;
              M.addAlloc(Out, sizeof(Out), 1);
              M.paramInfo({0, 8}, {8, 4});
              void *Args[] = {&P, &N};
              M.launchKernel("_Z1kPfi", Args, 1, [] {
                Counter += N;
                Out[1] = Coef[1];
              });
            }),
            0);
  CaptureManifest M = readBoth(Dir);
  ASSERT_EQ(M.Launches.size(), 1u);
  const CaptureLaunch &L = M.Launches[0];
  ASSERT_TRUE(L.captured()) << L.Reason;
  EXPECT_EQ(L.GlobalsStatus, "captured");
  ASSERT_EQ(L.Globals.size(), 4u);
  Expected<ReplayLaunch> R = loadReplayLaunch(M, L);
  ASSERT_TRUE(static_cast<bool>(R)) << toString(R.takeError());
  bool SawCounter = false;
  for (const auto &G : R->Globals) {
    if (G.Name != "counter")
      continue;
    SawCounter = true;
    EXPECT_EQ(G.Kind, "device");
    EXPECT_TRUE(G.Changed);
    int B, A;
    std::memcpy(&B, G.Before.data(), 4);
    std::memcpy(&A, G.After.data(), 4);
    EXPECT_EQ(B, 5);
    EXPECT_EQ(A, 8);
  }
  EXPECT_TRUE(SawCounter);
  // The module image is kept for replays of the application's own code.
  EXPECT_EQ(L.ModuleImage, Dir + "/modules/module-7.cubin");
  auto Saved = MemoryBuffer::getFile(L.ModuleImage);
  ASSERT_TRUE(static_cast<bool>(Saved));
  auto Original = MemoryBuffer::getFile(CUDAL1_CAPTURE_TEST_INPUTS "/cubin/symbols.cubin");
  ASSERT_TRUE(static_cast<bool>(Original));
  EXPECT_EQ((*Saved)->getBuffer(), (*Original)->getBuffer());
  EXPECT_NE(manifestText(Dir).find("\"source\": \"module image\""), std::string::npos);
  removeDir(Dir);
}

TEST(CaptureInject, MaxBytesStreamCaptureAndFailedLaunches) {
  std::string Dir = newDir();
  ASSERT_EQ(runChild(Dir, {{CaptureEnvMaxBytes, "1000"}}, [](Mock &M) {
              M.paramInfo({0, 4, 8, 16}, {4, 4, 8, 8});
              static SaxpyArgs S; // a 4096-byte arena
              M.addAlloc(S.Arena, sizeof(S.Arena), 1);
              M.launchKernel(Saxpy, S.Args, 4, [] { S.run(); });
            }),
            0);
  CaptureManifest M = readBoth(Dir);
  ASSERT_EQ(M.Launches.size(), 1u);
  EXPECT_EQ(M.Launches[0].Reason,
            "its allocations hold 4096 bytes, more than --max-bytes 1000");
  removeDir(Dir);

  Dir = newDir();
  ASSERT_EQ(runChild(Dir, {{CaptureEnvLaunches, "5"}}, [](Mock &M) {
              M.paramInfo({0, 4, 8, 16}, {4, 4, 8, 8});
              static SaxpyArgs S;
              M.addAlloc(S.Arena, sizeof(S.Arena), 1);
              M.setCapturing(1);
              M.launchKernel(Saxpy, S.Args, 4, nullptr);
              M.setCapturing(0);
              M.launchKernel(Saxpy, S.Args, 4, nullptr, CUDA_ERROR_INVALID_VALUE);
              M.launchKernel(Saxpy, S.Args, 4, [&M] {
                M.setSyncResult(CUDA_ERROR_ILLEGAL_ADDRESS); // the kernel faults
              });
              M.launchKernel(Saxpy, S.Args, 4, nullptr); // capture has stopped
            }),
            0);
  M = readBoth(Dir);
  ASSERT_EQ(M.Launches.size(), 3u);
  EXPECT_NE(M.Launches[0].Reason.find("being recorded into a CUDA graph"), std::string::npos)
      << M.Launches[0].Reason;
  EXPECT_EQ(M.Launches[1].Reason, "the launch itself failed: CUDA_ERROR_INVALID_VALUE");
  EXPECT_EQ(M.Launches[2].Reason,
            "the kernel failed: CUDA_ERROR_ILLEGAL_ADDRESS (its before state is kept out of "
            "the capture)");
  EXPECT_FALSE(sys::fs::exists(Dir + "/launches/2"));
  ASSERT_FALSE(M.Problems.empty());
  EXPECT_EQ(M.Problems.back(),
            "capture stopped: a captured kernel failed: CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_NE(manifestText(Dir).find("\"launchesSeen\": 4"), std::string::npos);
  removeDir(Dir);
}

TEST(CaptureInject, LaunchKernelExWithClusterAndAParameterBuffer) {
  std::string Dir = newDir();
  ASSERT_EQ(runChild(Dir, {}, [](Mock &M) {
              M.paramInfo({0, 8, 16}, {8, 8, 4});
              static float In[16], Out[16];
              M.addAlloc(In, sizeof(In), 1);
              M.addAlloc(Out, sizeof(Out), 1);
              // relax(const float*, float*, int) through an 'extra' buffer.
              static struct {
                const float *In;
                float *Out;
                int N;
              } Buf = {In, Out, 16};
              static size_t Size = 20;
              static void *Extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &Buf,
                                      CU_LAUNCH_PARAM_BUFFER_SIZE, &Size, CU_LAUNCH_PARAM_END};
              CUlaunchAttribute At[3];
              std::memset(At, 0, sizeof(At));
              At[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
              At[0].value.clusterDim.x = 2;
              At[0].value.clusterDim.y = 1;
              At[0].value.clusterDim.z = 1;
              At[1].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
              At[1].value.cooperative = 1;
              At[2].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
              CUlaunchConfig C;
              std::memset(&C, 0, sizeof(C));
              C.gridDimX = 4;
              C.gridDimY = C.gridDimZ = 1;
              C.blockDimX = 4;
              C.blockDimY = C.blockDimZ = 1;
              C.sharedMemBytes = 256;
              C.attrs = At;
              C.numAttrs = 3;
              cuLaunchKernelEx_params P;
              P.config = &C;
              P.f = reinterpret_cast<CUfunction>(0x1234);
              P.kernelParams = nullptr;
              P.extra = Extra;
              M.launch("_Z5relaxPKfPfi", CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, &P,
                       [] { Out[3] = 1.0f; });
            }),
            0);
  CaptureManifest M = readBoth(Dir);
  ASSERT_EQ(M.Launches.size(), 1u);
  const CaptureLaunch &L = M.Launches[0];
  ASSERT_TRUE(L.captured()) << L.Reason;
  EXPECT_EQ(L.Api, "cuLaunchKernelEx_ptsz");
  EXPECT_TRUE(L.Cooperative);
  ASSERT_TRUE(L.ClusterDim.has_value());
  EXPECT_EQ((*L.ClusterDim)[0], 2u);
  EXPECT_EQ(L.Grid[0], 4u);
  EXPECT_EQ(L.SharedMemBytes, 256u);
  EXPECT_EQ(L.ParamsBytes, 20u);
  ASSERT_EQ(L.Pointers.size(), 2u);
  ASSERT_EQ(L.Allocations.size(), 2u);
  EXPECT_FALSE(L.Allocations[0].Changed);
  EXPECT_TRUE(L.Allocations[1].Changed);
  std::string Text = manifestText(Dir);
  EXPECT_NE(Text.find("\"otherLaunchAttributes\": [\n        8\n      ]"), std::string::npos)
      << Text;
  EXPECT_NE(Text.find("\"perThreadDefaultStream\": true"), std::string::npos);
  removeDir(Dir);
}

TEST(CaptureInject, AnUnreadableModelIsNotedAndDemangledNamesStillWork) {
  std::string Dir = newDir();
  ASSERT_EQ(runChild(Dir, {{CaptureEnvModel, "/nonexistent/model.json"}},
                     [](Mock &M) {
                       M.paramInfo({0, 4, 8, 16}, {4, 4, 8, 8});
                       static SaxpyArgs S;
                       M.addAlloc(S.Arena, sizeof(S.Arena), 1);
                       M.launchKernel(Saxpy, S.Args, 4, [] { S.run(); });
                     }),
            0);
  CaptureManifest M = readBoth(Dir);
  ASSERT_EQ(M.Launches.size(), 1u);
  EXPECT_TRUE(M.Launches[0].captured());
  ASSERT_FALSE(M.Problems.empty());
  EXPECT_EQ(M.Problems[0],
            "kernel model not used: /nonexistent/model.json: cannot read the kernel model");
  removeDir(Dir);
}

} // namespace
