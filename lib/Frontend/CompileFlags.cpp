//===- CompileFlags.cpp - nvcc -> clang command-line translation ---------===//
#include "cudal1/Frontend/CompileFlags.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"

using namespace llvm;

namespace cudal1 {

bool isCudaSourceName(StringRef File) {
  StringRef Ext = sys::path::extension(File);
  return Ext.equals_insensitive(".cu") || Ext.equals_insensitive(".cuh");
}

std::string normalizeGpuArch(StringRef Arch) {
  Arch = Arch.trim();
  if (Arch.consume_front("sm_") || Arch.consume_front("compute_") ||
      Arch.consume_front("lto_")) {
  }
  // What remains must be digits with an optional a/f suffix (90a, 100f).
  if (Arch.empty() || !isDigit(Arch.front()))
    return "";
  for (char C : Arch)
    if (!isDigit(C) && C != 'a' && C != 'f')
      return "";
  return ("sm_" + Arch).str();
}

namespace {

bool looksLikeNvcc(StringRef Argv0) {
  StringRef Name = sys::path::filename(Argv0);
  return Name == "nvcc" || Name.starts_with("nvcc.") || Name == "nvcc.exe";
}

/// nvcc flags that take a separate value argument and are dropped with it.
const StringSet<> &droppedWithValue() {
  static const StringSet<> S = {
      "-Xptxas", "--ptxas-options", "-Xnvlink", "--nvlink-options",
      "-Xlinker", "--linker-options", "-Xarchive", "--archive-options",
      "-Xcudafe", "-Xfatbin", "--fatbin-options", "-ccbin",
      "--compiler-bindir", "--keep-dir", "-keep-dir", "-maxrregcount",
      "--maxrregcount", "-t", "--threads", "-split-compile",
      "--split-compile", "-cudart", "--cudart", "-cudadevrt", "--cudadevrt",
      "-time", "--time", "-dopt", "--dopt", "-diag-suppress",
      "--diag-suppress", "-diag-warn", "--diag-warn", "-diag-error",
      "--diag-error", "--dependency-output", "-MF", "-MT", "-MQ",
      "--output-directory", "-odir", "-arch-ls", "--run-args", "-run-args",
      "-Werror", "--Werror", "--generate-dependencies-with-compile",
      "-ptxas-options", "-nvlink-options", "-default-stream",
      "--default-stream", "-fmad", "--fmad", "-ftz", "--ftz", "-prec-div",
      "--prec-div", "-prec-sqrt", "--prec-sqrt", "-lib", "--library",
      "-L", "--library-path", "-l", "-Xptxas=", "--machine", "-m",
      "-code", "--gpu-code", "-gencode", "--generate-code", "-arch",
      "--gpu-architecture", "-o", "--output-file", "-rdc",
      "--relocatable-device-code", "-std", "--std", "-x", "--x",
      "-Xcompiler", "--compiler-options", "-I", "--include-path",
      "-isystem", "--system-include", "-D", "--define-macro", "-U",
      "--undefine-macro", "-include", "--pre-include", "-O", "--optimize",
      "--options-file", "-optf"};
  return S;
}

/// nvcc flags without a value that clang cannot use.
const StringSet<> &droppedAlone() {
  static const StringSet<> S = {
      "--expt-relaxed-constexpr", "-expt-relaxed-constexpr",
      "--expt-extended-lambda", "-expt-extended-lambda", "--extended-lambda",
      "-extended-lambda", "-lineinfo", "--generate-line-info", "-G",
      "--device-debug", "-dlink", "--device-link", "-dw", "-keep", "--keep",
      "-res-usage", "--resource-usage", "-Wno-deprecated-gpu-targets",
      "--Wno-deprecated-gpu-targets", "-Wno-deprecated-declarations-nvcc",
      "--forward-unknown-to-host-compiler", "-forward-unknown-to-host-compiler",
      "--forward-unknown-to-host-linker", "-forward-unknown-to-host-linker",
      "-allow-unsupported-compiler", "--allow-unsupported-compiler",
      "--source-in-ptx", "-src-in-ptx", "-ptx", "--ptx", "-cubin", "--cubin",
      "-fatbin", "--fatbin", "-cuda", "--cuda", "-extensible-whole-program",
      "--extensible-whole-program", "-ewp", "-use_fast_math-host",
      "-Wext-lambda-captures-this", "--Wext-lambda-captures-this",
      "-Wreorder", "--Wreorder", "-Wdefault-stream-launch",
      "-Wmissing-launch-bounds", "-restrict", "--restrict", "-noprof",
      "--dont-use-profile", "-dryrun", "--dryrun", "-v", "--verbose",
      "-dc", "--device-c", "-static-global-template-stub",
      "-pie", "-shared", "--shared", "-dlto", "--dlto", "-lto", "--lto",
      "-MD", "-MMD", "-M", "-MM", "-MP", "--generate-nonsystem-dependencies",
      "--generate-dependencies", "-E", "--preprocess", "-w-nvcc"};
  return S;
}

/// Host-compiler flags (from -Xcompiler) that clang understands well enough
/// to keep; others are dropped so an unknown gcc flag cannot stop the parse.
bool keepHostFlag(StringRef F) {
  if (F.starts_with("-D") || F.starts_with("-U") || F.starts_with("-I") ||
      F.starts_with("-std=") || F.starts_with("-O") || F.starts_with("-W") ||
      F.starts_with("-isystem") || F == "-pthread" || F == "-fopenmp" ||
      F == "-fPIC" || F == "-fpic" || F == "-fPIE" || F == "-m64" ||
      F == "-g" || F == "-fno-exceptions" || F == "-fexceptions" ||
      F == "-fno-rtti" || F == "-frtti" || F == "-ffast-math" || F == "-w")
    return true;
  return false;
}

/// Splits "a,b,c" as nvcc does for list-valued options.
void splitList(StringRef V, SmallVectorImpl<StringRef> &Out) {
  SmallVector<StringRef, 4> Parts;
  V.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef P : Parts)
    Out.push_back(P.trim());
}

/// Extracts the architectures from a -gencode value such as
/// "arch=compute_80,code=[sm_80,compute_80]" or "arch=compute_90,code=sm_90".
void archsFromGencode(StringRef V, std::vector<std::string> &Archs) {
  // Split at top-level commas only (brackets group).
  SmallVector<StringRef, 4> Fields;
  int Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I <= V.size(); ++I) {
    if (I == V.size() || (V[I] == ',' && Depth == 0)) {
      Fields.push_back(V.slice(Start, I));
      Start = I + 1;
    } else if (V[I] == '[') {
      ++Depth;
    } else if (V[I] == ']') {
      --Depth;
    }
  }
  std::vector<std::string> FromArch, FromCode;
  for (StringRef F : Fields) {
    auto [Key, Val] = F.split('=');
    Val = Val.trim().trim("[]\"'");
    SmallVector<StringRef, 4> Items;
    splitList(Val, Items);
    for (StringRef It : Items) {
      std::string A = normalizeGpuArch(It);
      if (A.empty())
        continue;
      if (Key.trim() == "code")
        FromCode.push_back(A);
      else
        FromArch.push_back(A);
    }
  }
  for (auto &A : FromCode.empty() ? FromArch : FromCode)
    if (std::find(Archs.begin(), Archs.end(), A) == Archs.end())
      Archs.push_back(A);
}

/// Expands `--options-file F` / `-optf F` (CMake writes includes there).
bool readOptionsFile(StringRef Path, StringRef Directory,
                     std::vector<std::string> &Out) {
  SmallString<256> Full(Path);
  if (!sys::path::is_absolute(Full) && !Directory.empty()) {
    Full = Directory;
    sys::path::append(Full, Path);
  }
  auto Buf = MemoryBuffer::getFile(Full);
  if (!Buf)
    return false;
  BumpPtrAllocator A;
  StringSaver Saver(A);
  SmallVector<const char *, 32> Toks;
  cl::TokenizeGNUCommandLine((*Buf)->getBuffer(), Saver, Toks);
  for (const char *T : Toks)
    Out.emplace_back(T);
  return true;
}

} // namespace

/// Flags that load code into this process (compiler plugins) are never taken
/// from a compile command (docs/SECURITY.md): -fplugin=, -fpass-plugin=, and
/// -Xclang -load/-plugin/-add-plugin/-plugin-arg-* with their argument.
static void dropPluginFlags(std::vector<std::string> &Argv,
                            std::vector<std::string> &Dropped) {
  std::vector<std::string> Kept;
  for (size_t I = 0; I < Argv.size(); ++I) {
    StringRef A = Argv[I];
    if (A.starts_with("-fplugin") || A.starts_with("-fpass-plugin")) {
      Dropped.push_back(A.str());
      continue;
    }
    if (A == "-Xclang" && I + 1 < Argv.size()) {
      StringRef B = Argv[I + 1];
      if (B == "-load" || B == "-plugin" || B == "-add-plugin" ||
          B.starts_with("-plugin-arg-")) {
        std::string What = "-Xclang " + B.str();
        ++I;
        if (I + 2 < Argv.size() && Argv[I + 1] == "-Xclang") {
          What += " -Xclang " + Argv[I + 2];
          I += 2;
        }
        Dropped.push_back(What);
        continue;
      }
    }
    Kept.push_back(Argv[I]);
  }
  Argv = std::move(Kept);
}

TranslatedCommand translateCompileCommand(ArrayRef<std::string> ArgvIn,
                                          StringRef Directory) {
  TranslatedCommand R;
  if (ArgvIn.empty())
    return R;
  R.WasNvcc = looksLikeNvcc(ArgvIn[0]);
  R.Args.push_back("clang++");
  std::string MaxRRegCount;

  // Expand response/options files first so they are translated like the rest.
  std::vector<std::string> Argv;
  for (size_t I = 1; I < ArgvIn.size(); ++I) {
    StringRef A = ArgvIn[I];
    if ((A == "--options-file" || A == "-optf") && I + 1 < ArgvIn.size()) {
      if (!readOptionsFile(ArgvIn[I + 1], Directory, Argv))
        R.Dropped.push_back(A.str() + " " + ArgvIn[I + 1]);
      ++I;
      continue;
    }
    if (A.consume_front("--options-file=") || A.consume_front("-optf=")) {
      if (!readOptionsFile(A, Directory, Argv))
        R.Dropped.push_back(ArgvIn[I]);
      continue;
    }
    Argv.push_back(ArgvIn[I]);
  }
  dropPluginFlags(Argv, R.Dropped);

  auto Next = [&](size_t &I) -> std::string {
    if (I + 1 < Argv.size())
      return Argv[++I];
    return "";
  };
  auto Emit = [&](StringRef S) { R.Args.push_back(S.str()); };

  for (size_t I = 0; I < Argv.size(); ++I) {
    StringRef A = Argv[I];

    // Split "--flag=value" for the long nvcc options handled below.
    StringRef Flag = A, Value;
    bool HasEq = false;
    if (A.starts_with("-") && A.contains('=') && !A.starts_with("-D") &&
        !A.starts_with("-W") && !A.starts_with("-f") && !A.starts_with("-I") &&
        !A.starts_with("-U") && !A.starts_with("-std=") &&
        !A.starts_with("--cuda") && !A.starts_with("--offload") &&
        !A.starts_with("-isystem") && !A.starts_with("-resource-dir") &&
        !(A.starts_with("-m") && !A.starts_with("-maxrregcount"))) {
      std::tie(Flag, Value) = A.split('=');
      HasEq = true;
    }
    auto Val = [&]() -> std::string {
      return HasEq ? Value.str() : Next(I);
    };

    // --- Architectures --------------------------------------------------
    if (Flag == "-gencode" || Flag == "--generate-code") {
      archsFromGencode(Val(), R.GpuArchs);
      continue;
    }
    if (Flag == "-arch" || Flag == "--gpu-architecture" || Flag == "-code" ||
        Flag == "--gpu-code") {
      SmallVector<StringRef, 4> Items;
      std::string V = Val();
      splitList(V, Items);
      for (StringRef It : Items) {
        std::string Arch = normalizeGpuArch(It);
        if (!Arch.empty() &&
            std::find(R.GpuArchs.begin(), R.GpuArchs.end(), Arch) ==
                R.GpuArchs.end())
          R.GpuArchs.push_back(Arch);
      }
      continue;
    }
    if (A.consume_front("--cuda-gpu-arch=") ||
        A.consume_front("--offload-arch=")) {
      std::string Arch = normalizeGpuArch(A);
      if (!Arch.empty())
        R.GpuArchs.push_back(Arch);
      continue;
    }
    A = Argv[I];

    // --- Language, standard, mode ----------------------------------------
    if (Flag == "-x" || Flag == "--x") {
      std::string V = Val();
      Emit("-x");
      Emit(V == "cu" ? "cuda" : V);
      continue;
    }
    if (A.starts_with("-x") && A.size() > 2 && !HasEq) {
      StringRef V = A.drop_front(2);
      Emit("-x");
      Emit(V == "cu" ? "cuda" : V);
      continue;
    }
    if (Flag == "-std" || Flag == "--std") {
      Emit("-std=" + Val());
      continue;
    }
    if (Flag == "-rdc" || Flag == "--relocatable-device-code") {
      std::string V = Val();
      if (V == "true")
        Emit("-fgpu-rdc");
      continue;
    }
    if (A == "-dc" || A == "--device-c") {
      Emit("-fgpu-rdc");
      Emit("-c");
      continue;
    }
    if (A == "--use_fast_math" || A == "-use_fast_math" ||
        A == "--use-fast-math") {
      Emit("-ffast-math");
      continue;
    }
    if (Flag == "-default-stream" || Flag == "--default-stream") {
      if (Val() == "per-thread")
        Emit("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1");
      continue;
    }
    if (A == "--compile")
      A = "-c";
    if (A == "-w" || A == "--disable-warnings") {
      Emit("-w");
      continue;
    }

    // --- Host compiler pass-through ------------------------------------
    if (Flag == "-Xcompiler" || Flag == "--compiler-options") {
      SmallVector<StringRef, 4> Items;
      std::string V = Val();
      splitList(V, Items);
      for (StringRef It : Items) {
        if (keepHostFlag(It))
          Emit(It);
        else
          R.Dropped.push_back(("-Xcompiler " + It).str());
      }
      continue;
    }

    // --- Paths and macros in nvcc's long spellings -----------------------
    if (Flag == "--include-path") {
      Emit("-I" + Val());
      continue;
    }
    if (Flag == "--system-include") {
      Emit("-isystem");
      Emit(Val());
      continue;
    }
    if (Flag == "--define-macro") {
      Emit("-D" + Val());
      continue;
    }
    if (Flag == "--undefine-macro") {
      Emit("-U" + Val());
      continue;
    }
    if (Flag == "--pre-include") {
      Emit("-include");
      Emit(Val());
      continue;
    }
    if (Flag == "--optimize") {
      Emit("-O" + Val());
      continue;
    }
    if (Flag == "--output-file") {
      Emit("-o");
      Emit(Val());
      continue;
    }
    if (Flag == "--machine") {
      Emit("-m" + Val());
      continue;
    }

    // --- Dropped ---------------------------------------------------------
    if (droppedAlone().contains(A)) {
      R.Dropped.push_back(A.str());
      continue;
    }
    if (R.WasNvcc && droppedWithValue().contains(Flag) &&
        !(Flag == "-I" || Flag == "-D" || Flag == "-U" || Flag == "-O" ||
          Flag == "-o" || Flag == "-isystem" || Flag == "-include" ||
          Flag == "-L" || Flag == "-l" || Flag == "-m" || Flag == "-MF" ||
          Flag == "-MT" || Flag == "-MQ")) {
      std::string V = Val();
      R.Dropped.push_back(A.str() + (HasEq ? "" : " " + V));
      // nvcc's register cap decides which launches run: kept for the
      // rules as a macro of the tool's own (launch-bounds compiles the
      // kernel with it).
      unsigned N;
      if ((Flag == "-maxrregcount" || Flag == "--maxrregcount") &&
          !StringRef(V).getAsInteger(0, N))
        MaxRRegCount = std::to_string(N); // the last one wins, as in nvcc
      // The same passed to ptxas: -Xptxas -maxrregcount=N,-v
      if (Flag == "-Xptxas" || Flag == "--ptxas-options" ||
          Flag == "-ptxas-options") {
        SmallVector<StringRef, 4> Parts;
        StringRef(V).split(Parts, ',');
        for (StringRef P : Parts) {
          P = P.trim();
          if ((P.consume_front("--maxrregcount=") ||
               P.consume_front("-maxrregcount=")) &&
              !P.getAsInteger(0, N))
            MaxRRegCount = std::to_string(N);
        }
      }
      continue;
    }
    if (A.starts_with("-Xptxas") || A.starts_with("-Xcudafe") ||
        A.starts_with("-Xnvlink") || A.starts_with("--diag_suppress") ||
        A.starts_with("--generate-line-info")) {
      R.Dropped.push_back(A.str());
      continue;
    }
    // Linker inputs/flags are never needed for parsing.
    if (A.starts_with("-l") || A.starts_with("-L") || A.starts_with("-Wl,")) {
      R.Dropped.push_back(A.str());
      continue;
    }
    Emit(A);
  }
  if (!MaxRRegCount.empty())
    R.Args.push_back("-D__CUDA_L1_MAXRREGCOUNT__=" + MaxRRegCount);
  return R;
}

namespace {

/// Flags whose value names a folder, given joined (-Iinc) or as the next
/// argument (-I inc).
const StringSet<> &dirFlags() {
  static const StringSet<> S = {"-I",          "-isystem",   "-iquote",
                                "-idirafter",  "-F",         "-iframework",
                                "-cxx-isystem", "-isysroot", "-isystem-after",
                                "--sysroot",   "-B"};
  return S;
}
/// Flags whose value names a file that clang may also find on the include
/// path: resolved only when it exists relative to the working folder.
const StringSet<> &fileFlags() {
  static const StringSet<> S = {"-include", "--include", "-imacros",
                                "--imacros", "-include-pch",
                                "-ivfsoverlay"};
  return S;
}
/// Long flags written "--flag=value" whose value is a folder.
const char *const EqDirFlags[] = {"--include-directory=",
                                  "--include-directory-after=", "--sysroot=",
                                  "--cuda-path=", "-resource-dir=",
                                  "--rocm-path="};

std::string resolveOne(StringRef Value, StringRef WorkingDir, bool IsFile) {
  if (Value.empty() || sys::path::is_absolute(Value) ||
      Value.starts_with("=") || Value.starts_with("-") || Value.starts_with("$SYSROOT"))
    return Value.str();
  SmallString<256> Abs(WorkingDir);
  sys::path::append(Abs, Value);
  sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  if (IsFile && !sys::fs::exists(Abs))
    return Value.str();
  return std::string(Abs);
}

} // namespace

std::vector<std::string> resolveArgPaths(ArrayRef<std::string> Args,
                                         StringRef WorkingDir) {
  std::vector<std::string> Out;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    bool Dir = dirFlags().contains(A), File = fileFlags().contains(A);
    if ((Dir || File) && I + 1 < Args.size()) {
      Out.push_back(A.str());
      Out.push_back(resolveOne(Args[++I], WorkingDir, File));
      continue;
    }
    std::string Done;
    for (const char *Eq : EqDirFlags)
      if (A.starts_with(Eq))
        Done = Eq + resolveOne(A.drop_front(StringRef(Eq).size()), WorkingDir,
                               false);
    // Joined short forms: -Iinc, -isysteminc, -includefoo.h.
    for (const auto &F : dirFlags())
      if (Done.empty() && F.getKey().size() <= 2 && A.size() > 2 &&
          A.starts_with(F.getKey()))
        Done = F.getKey().str() + resolveOne(A.drop_front(2), WorkingDir, false);
    if (Done.empty() && A.starts_with("-isystem") && A.size() > 8)
      Done = "-isystem" + resolveOne(A.drop_front(8), WorkingDir, false);
    Out.push_back(Done.empty() ? A.str() : Done);
  }
  return Out;
}

std::vector<std::string> makeParseArgs(ArrayRef<std::string> DbArgs,
                                       StringRef File,
                                       const ParseOptions &Opts,
                                       StringRef Directory) {
  TranslatedCommand T;
  if (DbArgs.empty()) {
    T.Args = {"clang++", File.str()};
  } else {
    T = translateCompileCommand(DbArgs, Directory);
  }

  std::vector<std::string> Out;
  Out.push_back("clang++");
  bool IsCuda = isCudaSourceName(File);
  bool HasStd = false;
  for (size_t I = 1; I < T.Args.size(); ++I) {
    StringRef A = T.Args[I];
    if (A.starts_with("-std="))
      HasStd = true;
    if (A == "-x" && I + 1 < T.Args.size()) {
      if (StringRef(T.Args[I + 1]) == "cuda")
        IsCuda = true;
      // We place the language flag ourselves (before the file).
      if (IsCuda) {
        ++I;
        continue;
      }
    }
    if (A == "--cuda-host-only" || A == "--cuda-device-only" ||
        A == "--cuda-compile-host-device" || A == "-nocudalib" ||
        A == "-nocudainc" || A.starts_with("--cuda-path=") ||
        A.starts_with("-resource-dir"))
      continue;
    Out.push_back(A.str());
  }

  std::vector<std::string> Pre;
  if (IsCuda) {
    Pre = {"-x", "cuda"};
    Pre.push_back("--cuda-path=" + Opts.CudaPath);
    std::string Arch = Opts.GpuArch;
    if (!Opts.GpuArchExplicit && !T.GpuArchs.empty())
      Arch = T.GpuArchs.front();
    if (Arch.empty())
      Arch = "sm_90";
    Pre.push_back("--cuda-gpu-arch=" + Arch);
    // One pass: the device-side compilation. It parses host code too (clang
    // performs full semantic analysis of host functions on the device side),
    // so kernels, device functions and launch sites are all seen exactly once.
    Pre.push_back("--cuda-device-only");
    std::string Cccl = Opts.CudaPath + "/include/cccl";
    Pre.push_back("-isystem");
    Pre.push_back(Cccl);
  }
  if (!HasStd)
    Pre.push_back("-std=c++17");
  Pre.push_back("-Wno-unknown-cuda-version");
  Pre.push_back("-Qunused-arguments");
  if (!Opts.ShowWarnings)
    Pre.push_back("-w");
  if (!Opts.ResourceDir.empty())
    Pre.push_back("-resource-dir=" + Opts.ResourceDir);
  Out.insert(Out.begin() + 1, Pre.begin(), Pre.end());
  for (const auto &E : Opts.ExtraArgs)
    Out.push_back(E);
  // Every argument list must name the file exactly once, as an absolute
  // path: a database command names it relative to its folder ("-c gemm.cu"),
  // and a second spelling would make the driver compile two inputs (the
  // host-side check then fails with "expected exactly one compiler job").
  // Add it when the database command did not (e.g. an interpolated command).
  auto SameFile = [&](StringRef A) {
    if (A.empty() || A.starts_with("-"))
      return false;
    if (A == File)
      return true;
    SmallString<256> P;
    if (sys::path::is_absolute(A))
      P = A;
    else if (!Directory.empty()) {
      P = Directory;
      sys::path::append(P, A);
    } else
      return false;
    sys::path::remove_dots(P, /*remove_dot_dot=*/true);
    SmallString<256> F(File);
    sys::path::remove_dots(F, /*remove_dot_dot=*/true);
    return P == F;
  };
  bool HasFile = false;
  for (size_t I = 1; I < Out.size(); ++I) {
    if (!SameFile(Out[I]))
      continue;
    // An option's value that happens to name the file ("-o x.cu") is not
    // an input: only standalone arguments after a non-valued flag count.
    StringRef Prev = Out[I - 1];
    if (Prev == "-o" || Prev == "-MF" || Prev == "-MT" || Prev == "-MQ" ||
        Prev == "-include" || Prev == "-x")
      continue;
    if (HasFile) {
      Out.erase(Out.begin() + I);
      --I;
      continue;
    }
    Out[I] = File.str();
    HasFile = true;
  }
  if (!HasFile)
    Out.push_back(File.str());
  return Out;
}

// nvcc's host side has `min`/`max` for every integer and floating pair, and
// `int min(int, int)`, umin, llmin, ullmin and the max ones
// (crt/math_functions.hpp, `__host__ __device__`). clang declares them for
// the device only (its wrapper includes those headers with __CUDA_ARCH__
// set, in the host pass too), so host code that nvcc accepts (`dim3 grid(
// min(BLOCK_WIDTH, blocks))`) fails to parse. Host-only versions, in a header
// included first, restore what nvcc gives; a program that defined the same
// functions would not compile with nvcc either. The same header declares
// nvcc's scoped-atomic built-ins (__nv_atomic_load_n(p, __NV_ATOMIC_RELAXED)
// and kin, CUDA 12.8), which clang does not know.
static const char CudaHostCompatPath[] =
    "/cuda-l1-virtual/cudal1_host_compat.h";
static const char CudaHostCompat[] = R"(// cuda-l1: what nvcc gives host code
#ifndef CUDAL1_HOST_COMPAT_H
#define CUDAL1_HOST_COMPAT_H
#if defined(__CUDA__) && defined(__cplusplus)
#pragma clang system_header
// cooperative_groups declares thread-block clusters (this_cluster(),
// cluster_group, map_shared_rank) for sm_90 and later only under nvcc or
// NVRTC, or when this is set; clang has the intrinsics they use.
#ifndef _CG_CLUSTER_INTRINSICS_AVAILABLE
#define _CG_CLUSTER_INTRINSICS_AVAILABLE 1
#endif
// nvcc's host min/max overloads (crt/math_functions.hpp): clang's headers
// declare them for the device only, in both of its passes.
static inline __attribute__((host)) int min(const int a, const int b) { int x = (int)a, y = (int)b; return x < y ? x : y; }
static inline __attribute__((host)) unsigned int min(const unsigned int a, const unsigned int b) { unsigned int x = (unsigned int)a, y = (unsigned int)b; return x < y ? x : y; }
static inline __attribute__((host)) unsigned int min(const int a, const unsigned int b) { unsigned int x = (unsigned int)a, y = (unsigned int)b; return x < y ? x : y; }
static inline __attribute__((host)) unsigned int min(const unsigned int a, const int b) { unsigned int x = (unsigned int)a, y = (unsigned int)b; return x < y ? x : y; }
static inline __attribute__((host)) long int min(const long int a, const long int b) { long int x = (long int)a, y = (long int)b; return x < y ? x : y; }
static inline __attribute__((host)) unsigned long int min(const unsigned long int a, const unsigned long int b) { unsigned long int x = (unsigned long int)a, y = (unsigned long int)b; return x < y ? x : y; }
static inline __attribute__((host)) unsigned long int min(const long int a, const unsigned long int b) { unsigned long int x = (unsigned long int)a, y = (unsigned long int)b; return x < y ? x : y; }
static inline __attribute__((host)) unsigned long int min(const unsigned long int a, const long int b) { unsigned long int x = (unsigned long int)a, y = (unsigned long int)b; return x < y ? x : y; }
static inline __attribute__((host)) long long int min(const long long int a, const long long int b) { long long int x = (long long int)a, y = (long long int)b; return x < y ? x : y; }
static inline __attribute__((host)) unsigned long long int min(const unsigned long long int a, const unsigned long long int b) { unsigned long long int x = (unsigned long long int)a, y = (unsigned long long int)b; return x < y ? x : y; }
static inline __attribute__((host)) unsigned long long int min(const long long int a, const unsigned long long int b) { unsigned long long int x = (unsigned long long int)a, y = (unsigned long long int)b; return x < y ? x : y; }
static inline __attribute__((host)) unsigned long long int min(const unsigned long long int a, const long long int b) { unsigned long long int x = (unsigned long long int)a, y = (unsigned long long int)b; return x < y ? x : y; }
static inline __attribute__((host)) float min(const float a, const float b) { float x = (float)a, y = (float)b; return x < y ? x : y; }
static inline __attribute__((host)) double min(const double a, const double b) { double x = (double)a, y = (double)b; return x < y ? x : y; }
static inline __attribute__((host)) double min(const float a, const double b) { double x = (double)a, y = (double)b; return x < y ? x : y; }
static inline __attribute__((host)) double min(const double a, const float b) { double x = (double)a, y = (double)b; return x < y ? x : y; }
static inline __attribute__((host)) int max(const int a, const int b) { int x = (int)a, y = (int)b; return x > y ? x : y; }
static inline __attribute__((host)) unsigned int max(const unsigned int a, const unsigned int b) { unsigned int x = (unsigned int)a, y = (unsigned int)b; return x > y ? x : y; }
static inline __attribute__((host)) unsigned int max(const int a, const unsigned int b) { unsigned int x = (unsigned int)a, y = (unsigned int)b; return x > y ? x : y; }
static inline __attribute__((host)) unsigned int max(const unsigned int a, const int b) { unsigned int x = (unsigned int)a, y = (unsigned int)b; return x > y ? x : y; }
static inline __attribute__((host)) long int max(const long int a, const long int b) { long int x = (long int)a, y = (long int)b; return x > y ? x : y; }
static inline __attribute__((host)) unsigned long int max(const unsigned long int a, const unsigned long int b) { unsigned long int x = (unsigned long int)a, y = (unsigned long int)b; return x > y ? x : y; }
static inline __attribute__((host)) unsigned long int max(const long int a, const unsigned long int b) { unsigned long int x = (unsigned long int)a, y = (unsigned long int)b; return x > y ? x : y; }
static inline __attribute__((host)) unsigned long int max(const unsigned long int a, const long int b) { unsigned long int x = (unsigned long int)a, y = (unsigned long int)b; return x > y ? x : y; }
static inline __attribute__((host)) long long int max(const long long int a, const long long int b) { long long int x = (long long int)a, y = (long long int)b; return x > y ? x : y; }
static inline __attribute__((host)) unsigned long long int max(const unsigned long long int a, const unsigned long long int b) { unsigned long long int x = (unsigned long long int)a, y = (unsigned long long int)b; return x > y ? x : y; }
static inline __attribute__((host)) unsigned long long int max(const long long int a, const unsigned long long int b) { unsigned long long int x = (unsigned long long int)a, y = (unsigned long long int)b; return x > y ? x : y; }
static inline __attribute__((host)) unsigned long long int max(const unsigned long long int a, const long long int b) { unsigned long long int x = (unsigned long long int)a, y = (unsigned long long int)b; return x > y ? x : y; }
static inline __attribute__((host)) float max(const float a, const float b) { float x = (float)a, y = (float)b; return x > y ? x : y; }
static inline __attribute__((host)) double max(const double a, const double b) { double x = (double)a, y = (double)b; return x > y ? x : y; }
static inline __attribute__((host)) double max(const float a, const double b) { double x = (double)a, y = (double)b; return x > y ? x : y; }
static inline __attribute__((host)) double max(const double a, const float b) { double x = (double)a, y = (double)b; return x > y ? x : y; }
static inline __attribute__((host)) unsigned int umin(const unsigned int a, const unsigned int b) { return a < b ? a : b; }
static inline __attribute__((host)) long long int llmin(const long long int a, const long long int b) { return a < b ? a : b; }
static inline __attribute__((host)) unsigned long long int ullmin(const unsigned long long int a, const unsigned long long int b) { return a < b ? a : b; }
static inline __attribute__((host)) unsigned int umax(const unsigned int a, const unsigned int b) { return a > b ? a : b; }
static inline __attribute__((host)) long long int llmax(const long long int a, const long long int b) { return a > b ? a : b; }
static inline __attribute__((host)) unsigned long long int ullmax(const unsigned long long int a, const unsigned long long int b) { return a > b ? a : b; }
// nvcc's scoped atomics (CUDA 12.8): compiler built-ins with no declaration
// in the headers; parsed here as clang's __atomic built-ins.
enum { __NV_ATOMIC_RELAXED, __NV_ATOMIC_CONSUME, __NV_ATOMIC_ACQUIRE,
       __NV_ATOMIC_RELEASE, __NV_ATOMIC_ACQ_REL, __NV_ATOMIC_SEQ_CST };
enum { __NV_THREAD_SCOPE_THREAD, __NV_THREAD_SCOPE_BLOCK,
       __NV_THREAD_SCOPE_CLUSTER, __NV_THREAD_SCOPE_DEVICE,
       __NV_THREAD_SCOPE_SYSTEM };
template <class T> __attribute__((device)) inline T __nv_atomic_load_n(const T *p, int o, int = 4) { T r; __atomic_load(p, &r, o); return r; }
template <class T> __attribute__((device)) inline void __nv_atomic_load(const T *p, T *r, int o, int = 4) { __atomic_load(p, r, o); }
template <class T, class U> __attribute__((device)) inline void __nv_atomic_store_n(T *p, U v, int o, int = 4) { T x = v; __atomic_store(p, &x, o); }
template <class T> __attribute__((device)) inline void __nv_atomic_store(T *p, const T *v, int o, int = 4) { T x = *v; __atomic_store(p, &x, o); }
template <class T, class U> __attribute__((device)) inline T __nv_atomic_exchange_n(T *p, U v, int o, int = 4) { T x = v, r; __atomic_exchange(p, &x, &r, o); return r; }
template <class T> __attribute__((device)) inline void __nv_atomic_exchange(T *p, T *v, T *r, int o, int = 4) { __atomic_exchange(p, v, r, o); }
template <class T, class U> __attribute__((device)) inline bool __nv_atomic_compare_exchange_n(T *p, T *e, U d, bool w, int s, int f, int = 4) { T x = d; return __atomic_compare_exchange(p, e, &x, w, s, f); }
template <class T> __attribute__((device)) inline bool __nv_atomic_compare_exchange(T *p, T *e, T *d, bool w, int s, int f, int = 4) { return __atomic_compare_exchange(p, e, d, w, s, f); }
template <class T, class U> __attribute__((device)) inline T __nv_atomic_fetch_add(T *p, U v, int o, int = 4) { return __atomic_fetch_add(p, (T)v, o); }
template <class T, class U> __attribute__((device)) inline T __nv_atomic_fetch_sub(T *p, U v, int o, int = 4) { return __atomic_fetch_sub(p, (T)v, o); }
template <class T, class U> __attribute__((device)) inline T __nv_atomic_fetch_and(T *p, U v, int o, int = 4) { return __atomic_fetch_and(p, (T)v, o); }
template <class T, class U> __attribute__((device)) inline T __nv_atomic_fetch_or(T *p, U v, int o, int = 4) { return __atomic_fetch_or(p, (T)v, o); }
template <class T, class U> __attribute__((device)) inline T __nv_atomic_fetch_xor(T *p, U v, int o, int = 4) { return __atomic_fetch_xor(p, (T)v, o); }
template <class T, class U> __attribute__((device)) inline T __nv_atomic_fetch_min(T *p, U v, int o, int = 4) { return __atomic_fetch_min(p, (T)v, o); }
template <class T, class U> __attribute__((device)) inline T __nv_atomic_fetch_max(T *p, U v, int o, int = 4) { return __atomic_fetch_max(p, (T)v, o); }
__attribute__((device)) inline void __nv_atomic_thread_fence(int o, int = 4) { __atomic_thread_fence(o); }
// nvcc's own macros: clang defines __CUDACC__ but not __NVCC__ or the
// __CUDACC_VER_* version, so code that tests them (`#ifdef __NVCC__` to tell
// nvcc from hipcc, `#if __CUDACC_VER_MAJOR__ >= 9` around __shfl_down_sync)
// was read on the branch nvcc does not compile. CCCL (thrust, CUB, libcu++)
// and <nv/target> choose their compiler from __NVCC__: they are included
// first, so they keep seeing clang. The version is the toolkit's
// (CUDA_VERSION, from cuda.h, which clang's wrapper has included); nvcc's
// build number is not known here: 0.
#if __has_include(<cuda/__cccl_config>)
#include <cuda/__cccl_config>
#endif
#if __has_include(<nv/target>)
#include <nv/target>
#endif
#ifndef __NVCC__
#define __NVCC__ 1
#endif
#if defined(CUDA_VERSION) && !defined(__CUDACC_VER_MAJOR__)
#if CUDA_VERSION / 1000 == 11
#define __CUDACC_VER_MAJOR__ 11
#elif CUDA_VERSION / 1000 == 12
#define __CUDACC_VER_MAJOR__ 12
#elif CUDA_VERSION / 1000 == 13
#define __CUDACC_VER_MAJOR__ 13
#elif CUDA_VERSION / 1000 == 14
#define __CUDACC_VER_MAJOR__ 14
#elif CUDA_VERSION / 1000 == 15
#define __CUDACC_VER_MAJOR__ 15
#else
#define __CUDACC_VER_MAJOR__ (CUDA_VERSION / 1000)
#endif
#if CUDA_VERSION % 1000 / 10 == 0
#define __CUDACC_VER_MINOR__ 0
#elif CUDA_VERSION % 1000 / 10 == 1
#define __CUDACC_VER_MINOR__ 1
#elif CUDA_VERSION % 1000 / 10 == 2
#define __CUDACC_VER_MINOR__ 2
#elif CUDA_VERSION % 1000 / 10 == 3
#define __CUDACC_VER_MINOR__ 3
#elif CUDA_VERSION % 1000 / 10 == 4
#define __CUDACC_VER_MINOR__ 4
#elif CUDA_VERSION % 1000 / 10 == 5
#define __CUDACC_VER_MINOR__ 5
#elif CUDA_VERSION % 1000 / 10 == 6
#define __CUDACC_VER_MINOR__ 6
#elif CUDA_VERSION % 1000 / 10 == 7
#define __CUDACC_VER_MINOR__ 7
#elif CUDA_VERSION % 1000 / 10 == 8
#define __CUDACC_VER_MINOR__ 8
#elif CUDA_VERSION % 1000 / 10 == 9
#define __CUDACC_VER_MINOR__ 9
#else
#define __CUDACC_VER_MINOR__ (CUDA_VERSION % 1000 / 10)
#endif
#define __CUDACC_VER_BUILD__ 0
#endif
#endif
#endif
)";

StringRef cudaHostCompatPath() { return CudaHostCompatPath; }
StringRef cudaHostCompatSource() { return CudaHostCompat; }

} // namespace cudal1
