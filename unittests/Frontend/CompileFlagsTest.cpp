//===- CompileFlagsTest.cpp - nvcc -> clang translation -------------------===//
#include "ScratchDir.h"
#include "cudal1/Frontend/CompileFlags.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <algorithm>

using namespace cudal1;

namespace {

bool has(const std::vector<std::string> &V, llvm::StringRef S) {
  return std::find(V.begin(), V.end(), S.str()) != V.end();
}
bool hasPrefix(const std::vector<std::string> &V, llvm::StringRef P) {
  return std::any_of(V.begin(), V.end(), [&](const std::string &A) {
    return llvm::StringRef(A).starts_with(P);
  });
}

TEST(CompileFlags, CMakeNvccCommandLine) {
  // As written by CMake 3.25 for a CUDA target with nvcc.
  std::vector<std::string> Argv = {
      "/usr/local/cuda/bin/nvcc", "-forward-unknown-to-host-compiler",
      "-DUSE_FOO=1", "-I/src/include", "-isystem", "/opt/dep/include",
      "-O3", "-DNDEBUG", "--generate-code=arch=compute_80,code=[compute_80,sm_80]",
      "-Xcompiler=-fPIC", "--expt-relaxed-constexpr", "--extended-lambda",
      "-std=c++17", "-MD", "-MT", "obj/k.cu.o", "-MF", "obj/k.cu.o.d",
      "-x", "cu", "-c", "/src/k.cu", "-o", "obj/k.cu.o"};
  TranslatedCommand T = translateCompileCommand(Argv);
  EXPECT_TRUE(T.WasNvcc);
  EXPECT_EQ(T.Args[0], "clang++");
  EXPECT_TRUE(has(T.Args, "-DUSE_FOO=1"));
  EXPECT_TRUE(has(T.Args, "-I/src/include"));
  EXPECT_TRUE(has(T.Args, "/opt/dep/include"));
  EXPECT_TRUE(has(T.Args, "-fPIC"));
  EXPECT_TRUE(has(T.Args, "-std=c++17"));
  EXPECT_TRUE(has(T.Args, "cuda"));
  EXPECT_FALSE(has(T.Args, "cu"));
  EXPECT_FALSE(has(T.Args, "--expt-relaxed-constexpr"));
  EXPECT_FALSE(has(T.Args, "--extended-lambda"));
  EXPECT_FALSE(has(T.Args, "-forward-unknown-to-host-compiler"));
  EXPECT_FALSE(hasPrefix(T.Args, "--generate-code"));
  ASSERT_EQ(T.GpuArchs.size(), 1u);
  EXPECT_EQ(T.GpuArchs[0], "sm_80");
  EXPECT_TRUE(has(T.Args, "/src/k.cu"));
}

TEST(CompileFlags, GencodeForms) {
  TranslatedCommand T = translateCompileCommand(
      {"nvcc", "-gencode", "arch=compute_70,code=sm_70", "-gencode",
       "arch=compute_90a,code=sm_90a", "-arch=sm_75", "k.cu"});
  ASSERT_EQ(T.GpuArchs.size(), 3u);
  EXPECT_EQ(T.GpuArchs[0], "sm_70");
  EXPECT_EQ(T.GpuArchs[1], "sm_90a");
  EXPECT_EQ(T.GpuArchs[2], "sm_75");
  T = translateCompileCommand({"nvcc", "-arch", "compute_86", "k.cu"});
  ASSERT_EQ(T.GpuArchs.size(), 1u);
  EXPECT_EQ(T.GpuArchs[0], "sm_86");
  T = translateCompileCommand({"nvcc", "-arch=native", "k.cu"});
  EXPECT_TRUE(T.GpuArchs.empty());
  EXPECT_EQ(normalizeGpuArch("100f"), "sm_100f");
  EXPECT_EQ(normalizeGpuArch("all-major"), "");
}

TEST(CompileFlags, DropsNvccOnlyFlagsWithValues) {
  TranslatedCommand T = translateCompileCommand(
      {"nvcc", "-ccbin", "/usr/bin/g++-12", "-Xptxas", "-v,-O3",
       "-maxrregcount=64", "--maxrregcount", "32", "-lineinfo", "-G",
       "--use_fast_math", "-rdc=true", "--default-stream", "per-thread",
       "-Xcudafe", "--diag_suppress=177", "--threads", "4",
       "-Wno-deprecated-gpu-targets", "-res-usage", "-Werror",
       "cross-execution-space-call", "k.cu"});
  EXPECT_FALSE(has(T.Args, "-ccbin"));
  EXPECT_FALSE(has(T.Args, "/usr/bin/g++-12"));
  EXPECT_FALSE(has(T.Args, "-v,-O3"));
  EXPECT_FALSE(has(T.Args, "32"));
  EXPECT_FALSE(has(T.Args, "4"));
  EXPECT_FALSE(has(T.Args, "-lineinfo"));
  EXPECT_FALSE(has(T.Args, "-G"));
  EXPECT_FALSE(has(T.Args, "cross-execution-space-call"));
  EXPECT_TRUE(has(T.Args, "-ffast-math"));
  EXPECT_TRUE(has(T.Args, "-fgpu-rdc"));
  EXPECT_TRUE(has(T.Args, "-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1"));
  EXPECT_TRUE(has(T.Args, "k.cu"));
  // The register cap is kept for the rules as a macro (the last one wins).
  EXPECT_TRUE(has(T.Args, "-D__CUDA_L1_MAXRREGCOUNT__=32"));
  EXPECT_FALSE(has(T.Args, "-D__CUDA_L1_MAXRREGCOUNT__=64"));
  std::string All;
  for (auto &A : T.Args)
    All += A + " ";
  EXPECT_EQ(T.Args.size(), 6u) << All;
  // Given to ptxas (hexadecimal too), it is the same cap.
  TranslatedCommand P = translateCompileCommand(
      {"nvcc", "-Xptxas", "-v,--maxrregcount=0x40", "k.cu"});
  EXPECT_TRUE(has(P.Args, "-D__CUDA_L1_MAXRREGCOUNT__=64"));
}

TEST(CompileFlags, XcompilerListsAreFiltered) {
  TranslatedCommand T = translateCompileCommand(
      {"nvcc", "-Xcompiler", "-fPIC,-Wall,-fopenmp,-rdynamic", "--compiler-options",
       "-O2", "k.cu"});
  EXPECT_TRUE(has(T.Args, "-fPIC"));
  EXPECT_TRUE(has(T.Args, "-Wall"));
  EXPECT_TRUE(has(T.Args, "-fopenmp"));
  EXPECT_TRUE(has(T.Args, "-O2"));
  EXPECT_FALSE(has(T.Args, "-rdynamic"));
  EXPECT_TRUE(has(T.Dropped, "-Xcompiler -rdynamic"));
}

TEST(CompileFlags, LongSpellings) {
  TranslatedCommand T = translateCompileCommand(
      {"nvcc", "--include-path", "inc", "--define-macro", "A=2",
       "--system-include", "/sys", "--std", "c++20", "--optimize", "2",
       "--compile", "--output-file", "k.o", "--relocatable-device-code=false",
       "--gpu-architecture=sm_89", "--x=cu", "k.cu"});
  EXPECT_TRUE(has(T.Args, "-Iinc"));
  EXPECT_TRUE(has(T.Args, "-DA=2"));
  EXPECT_TRUE(has(T.Args, "/sys"));
  EXPECT_TRUE(has(T.Args, "-std=c++20"));
  EXPECT_TRUE(has(T.Args, "-O2"));
  EXPECT_TRUE(has(T.Args, "-c"));
  EXPECT_FALSE(has(T.Args, "-fgpu-rdc"));
  EXPECT_EQ(T.GpuArchs, std::vector<std::string>{"sm_89"});
}

TEST(CompileFlags, OptionsFileFromCMake) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("cudal1-optf", Dir));
  llvm::SmallString<128> Rsp(Dir);
  llvm::sys::path::append(Rsp, "includes_CUDA.rsp");
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Rsp, EC);
    ASSERT_FALSE(EC);
    OS << "-I/proj/include \"-I/path with space\" -isystem /proj/third\n";
  }
  TranslatedCommand T = translateCompileCommand(
      {"nvcc", "--options-file", "includes_CUDA.rsp", "k.cu"}, Dir);
  EXPECT_TRUE(has(T.Args, "-I/proj/include"));
  EXPECT_TRUE(has(T.Args, "-I/path with space"));
  EXPECT_TRUE(has(T.Args, "/proj/third"));
  // A missing options file is reported as dropped, not fatal.
  T = translateCompileCommand({"nvcc", "--options-file", "nope.rsp", "k.cu"},
                              Dir);
  EXPECT_TRUE(has(T.Dropped, "--options-file nope.rsp"));
  llvm::sys::fs::remove_directories(Dir);
}

TEST(CompileFlags, ClangCommandPassesThrough) {
  TranslatedCommand T = translateCompileCommand(
      {"/usr/bin/clang++", "-x", "cuda", "--cuda-gpu-arch=sm_80", "-O2",
       "-Ifoo", "-c", "k.cu"});
  EXPECT_FALSE(T.WasNvcc);
  EXPECT_TRUE(has(T.Args, "-O2"));
  EXPECT_TRUE(has(T.Args, "-Ifoo"));
  EXPECT_EQ(T.GpuArchs, std::vector<std::string>{"sm_80"});
  EXPECT_FALSE(hasPrefix(T.Args, "--cuda-gpu-arch"));
}

TEST(CompileFlags, ParseArgsDefaults) {
  ParseOptions O;
  O.CudaPath = "/usr/local/cuda";
  O.GpuArch = "sm_90";
  O.ResourceDir = "/res";
  auto A = makeParseArgs({}, "/src/k.cu", O);
  EXPECT_EQ(A.front(), "clang++");
  EXPECT_EQ(A.back(), "/src/k.cu");
  EXPECT_TRUE(has(A, "cuda"));
  EXPECT_TRUE(has(A, "--cuda-path=/usr/local/cuda"));
  EXPECT_TRUE(has(A, "--cuda-gpu-arch=sm_90"));
  EXPECT_TRUE(has(A, "--cuda-device-only"));
  EXPECT_TRUE(has(A, "-std=c++17"));
  EXPECT_TRUE(has(A, "-Wno-unknown-cuda-version"));
  EXPECT_TRUE(has(A, "/usr/local/cuda/include/cccl"));
  EXPECT_TRUE(has(A, "-resource-dir=/res"));
  // Headers are CUDA too.
  A = makeParseArgs({}, "/src/k.cuh", O);
  EXPECT_TRUE(has(A, "--cuda-device-only"));
  // Plain C++ is not.
  A = makeParseArgs({}, "/src/host.cpp", O);
  EXPECT_FALSE(has(A, "--cuda-device-only"));
}

TEST(CompileFlags, ParseArgsUseDatabaseArch) {
  ParseOptions O;
  O.CudaPath = "/cuda";
  O.GpuArch = "sm_90";
  auto A = makeParseArgs({"nvcc", "-arch=sm_80", "-std=c++20", "-c", "k.cu"},
                         "k.cu", O);
  EXPECT_TRUE(has(A, "--cuda-gpu-arch=sm_80"));
  EXPECT_TRUE(has(A, "-std=c++20"));
  EXPECT_FALSE(has(A, "-std=c++17"));
  O.GpuArchExplicit = true;
  A = makeParseArgs({"nvcc", "-arch=sm_80", "-c", "k.cu"}, "k.cu", O);
  EXPECT_TRUE(has(A, "--cuda-gpu-arch=sm_90"));
  EXPECT_EQ(std::count(A.begin(), A.end(), "k.cu"), 1);
}

} // namespace

namespace {

TEST(CompileFlags, ArgumentPathsResolveFromTheWorkingFolder) {
  // Folders: always made absolute, joined or separate, short or long.
  std::vector<std::string> R = resolveArgPaths(
      {"-I", "inc", "-Ilib/inc", "-isystem", "sys", "-isystemsys2", "-iquote",
       "q", "--include-directory=d", "--cuda-path=../cuda", "-DX=inc", "-O2",
       "-I/abs", "-I", "=sysrooted", "-std=c++17"},
      "/work/proj");
  std::vector<std::string> Want = {
      "-I", "/work/proj/inc", "-I/work/proj/lib/inc", "-isystem",
      "/work/proj/sys", "-isystem/work/proj/sys2", "-iquote", "/work/proj/q",
      "--include-directory=/work/proj/d", "--cuda-path=/work/cuda", "-DX=inc",
      "-O2", "-I/abs", "-I", "=sysrooted", "-std=c++17"};
  EXPECT_EQ(R, Want);
}

TEST(CompileFlags, IncludedFilesResolveOnlyWhenPresent) {
  llvm::SmallString<128> Dir(cudal1_test::scratchDir("cudal1-args"));
  ASSERT_FALSE(Dir.empty());
  llvm::SmallString<128> Pre(Dir);
  llvm::sys::path::append(Pre, "pre.h");
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Pre, EC);
    ASSERT_FALSE(EC);
    OS << "#define PRE 1\n";
  }
  // pre.h exists in the working folder: absolute; other.h does not: left to
  // clang's include-path search.
  std::vector<std::string> R =
      resolveArgPaths({"-include", "pre.h", "-include", "other.h"}, Dir);
  ASSERT_EQ(R.size(), 4u);
  EXPECT_EQ(R[1], std::string(Pre));
  EXPECT_EQ(R[3], "other.h");
}

} // namespace

// A compilation database cannot load code into the tool: plugin flags are
// dropped, in every spelling, with their arguments; the flags around them
// stay.
TEST(CompileFlags, PluginFlagsFromTheDatabaseAreDropped) {
  ParseOptions O;
  O.CudaPath = "/usr/local/cuda";
  O.GpuArch = "sm_90";
  std::vector<std::string> Db = {
      "clang++", "-DKEEP=1", "-fplugin=/tmp/evil.so",
      "-fpass-plugin=/tmp/evil2.so", "-Xclang", "-load", "-Xclang",
      "/tmp/evil3.so", "-Xclang", "-add-plugin", "-Xclang", "evil",
      "-Xclang", "-plugin-arg-evil", "-Xclang", "x", "-Xclang",
      "-fno-pch-timestamp", "-c", "/src/k.cu"};
  auto A = makeParseArgs(Db, "/src/k.cu", O);
  for (const std::string &S : A)
    EXPECT_EQ(S.find("evil"), std::string::npos) << S;
  EXPECT_FALSE(has(A, "-load"));
  EXPECT_FALSE(has(A, "-add-plugin"));
  EXPECT_TRUE(has(A, "-DKEEP=1"));
  EXPECT_TRUE(has(A, "-fno-pch-timestamp")); // other -Xclang flags stay
  EXPECT_EQ(A.back(), "/src/k.cu");
}
