//===- Launcher.cpp - cuda-l1-capture: run an application, capture launches ===//
//
//   cuda-l1-capture [options] -o <dir> -- <app> [args...]
//   cuda-l1-capture --check <dir>
//
// Runs the application with the injection library (CUDA_INJECTION64_PATH),
// forwards its exit status, and finalises and checks the capture
// directory's manifest. Plain C++ (no LLVM): it builds on GPU machines
// without LLVM. Usage and format: docs/capture.md.
//
//===----------------------------------------------------------------------===//
#include "Layout.h"
#include "ManifestCheck.h"
#include "MiniJson.h"
#include "cudal1/Capture/CaptureFormat.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <regex>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#ifndef CUDAL1_CAPTURE_VERSION
#define CUDAL1_CAPTURE_VERSION "unknown"
#endif

using namespace cudal1;
using namespace cudal1::capture;
using capjson::Value;

namespace {

const char *const InjectLibName = "libcudal1-capture-inject.so";

/// Exit status when the application succeeded but the capture did not
/// (no manifest, an invalid one, or no launch captured).
constexpr int ExitCaptureFailed = 3;
constexpr int ExitUsage = 2;

const char *Usage =
    "usage: cuda-l1-capture [options] -o <dir> -- <app> [args...]\n"
    "       cuda-l1-capture --check <dir>\n"
    "       cuda-l1-capture --layouts <model.json>...\n"
    "\n"
    "Runs <app> and records selected kernel launches (launch configuration,\n"
    "parameters, and the device memory they reach before and after the\n"
    "kernel) into <dir>, for replay by cuda-l1-rewrite --capture=<dir>.\n"
    "\n"
    "options:\n"
    "  -o, --output <dir>   capture directory (created; must be empty)\n"
    "  --kernel <regex>     capture only kernels whose mangled or demangled\n"
    "                       name contains a match (ECMAScript syntax)\n"
    "  --launches <n>       launches to capture per kernel (default 1)\n"
    "  --skip <n>           launches of each kernel to let pass first (default 0)\n"
    "  --max-bytes <n>      skip a launch whose allocations and variables hold\n"
    "                       more than n bytes (suffix K, M, G: KiB, MiB, GiB;\n"
    "                       default 1G)\n"
    "  --model <file>       kernel model: the output of\n"
    "                       cuda-l1-rewrite --list-kernels --format=json <sources>\n"
    "                       (parameter layouts of struct parameters, globals)\n"
    "  --force              replace a previous capture in <dir>\n"
    "  --quiet              print only problems\n"
    "  --check <dir>        validate an existing capture directory and exit\n"
    "  --layouts <model>... for each kernel of kernel models: does the demangled\n"
    "                       name give its parameter layout, and does it agree\n"
    "                       with the model? (exit 1 when one disagrees)\n"
    "  --version, --help\n"
    "\n"
    "Exit status: the application's (128+N when killed by signal N); 2 bad\n"
    "usage; 3 the application succeeded but nothing valid was captured;\n"
    "127 the application could not be started.\n";

int usageError(const std::string &Msg) {
  std::fprintf(stderr, "cuda-l1-capture: error: %s\n", Msg.c_str());
  std::fprintf(stderr, "(run 'cuda-l1-capture --help' for usage)\n");
  return ExitUsage;
}

bool parseCount(const std::string &S, uint64_t &Out) {
  if (S.empty() || S[0] == '-' || S[0] == '+')
    return false;
  char *End = nullptr;
  errno = 0;
  unsigned long long V = std::strtoull(S.c_str(), &End, 10);
  if (errno || *End)
    return false;
  Out = V;
  return true;
}

bool parseBytes(const std::string &S, uint64_t &Out) {
  if (S.empty())
    return false;
  std::string Num = S;
  uint64_t Mul = 1;
  char Last = S.back();
  if (Last == 'K' || Last == 'k')
    Mul = 1ULL << 10;
  else if (Last == 'M' || Last == 'm')
    Mul = 1ULL << 20;
  else if (Last == 'G' || Last == 'g')
    Mul = 1ULL << 30;
  if (Mul != 1)
    Num.pop_back();
  uint64_t V;
  if (!parseCount(Num, V) || (V && Mul > ULLONG_MAX / V))
    return false;
  Out = V * Mul;
  return true;
}

std::string absolutePath(const std::string &P) {
  char Buf[PATH_MAX];
  if (::realpath(P.c_str(), Buf))
    return Buf;
  if (!P.empty() && P[0] == '/')
    return P;
  if (::getcwd(Buf, sizeof(Buf)))
    return std::string(Buf) + "/" + P;
  return P;
}

std::string selfDir() {
  char Buf[PATH_MAX];
  ssize_t N = ::readlink("/proc/self/exe", Buf, sizeof(Buf) - 1);
  if (N <= 0)
    return "";
  Buf[N] = 0;
  std::string S(Buf);
  size_t Slash = S.rfind('/');
  return Slash == std::string::npos ? "." : S.substr(0, Slash);
}

bool isDir(const std::string &P) {
  struct stat St;
  return ::stat(P.c_str(), &St) == 0 && S_ISDIR(St.st_mode);
}

bool exists(const std::string &P) {
  struct stat St;
  return ::lstat(P.c_str(), &St) == 0;
}

std::vector<std::string> listDir(const std::string &P) {
  std::vector<std::string> Names;
  DIR *D = ::opendir(P.c_str());
  if (!D)
    return Names;
  while (dirent *E = ::readdir(D)) {
    std::string N = E->d_name;
    if (N != "." && N != "..")
      Names.push_back(N);
  }
  ::closedir(D);
  return Names;
}

/// Removes a tree without following symbolic links; "" or the problem.
std::string removeTree(const std::string &P) {
  struct stat St;
  if (::lstat(P.c_str(), &St) != 0)
    return errno == ENOENT ? "" : P + ": " + std::strerror(errno);
  if (S_ISDIR(St.st_mode)) {
    for (const auto &N : listDir(P)) {
      std::string E = removeTree(P + "/" + N);
      if (!E.empty())
        return E;
    }
    if (::rmdir(P.c_str()) != 0)
      return P + ": " + std::strerror(errno);
    return "";
  }
  if (::unlink(P.c_str()) != 0)
    return P + ": " + std::strerror(errno);
  return "";
}

bool mkdirs(const std::string &P, std::string &Error) {
  if (isDir(P))
    return true;
  size_t Slash = P.rfind('/');
  if (Slash != std::string::npos && Slash > 0 && !mkdirs(P.substr(0, Slash), Error))
    return false;
  if (::mkdir(P.c_str(), 0755) != 0 && errno != EEXIST) {
    Error = "cannot create " + P + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

/// Entries a capture directory may hold (what --force may remove).
bool isCaptureEntry(const std::string &N) {
  return N == CaptureManifestFile || N == "capture.pid" || N == "capture.log" ||
         N == "other-processes.log" || N == "launches" || N == "modules" ||
         N.rfind(std::string(CaptureManifestFile) + ".tmp.", 0) == 0;
}

/// Prepares the output directory; returns "" or the usage error.
std::string prepareOutput(const std::string &Dir, bool Force, bool &Created) {
  Created = false;
  if (exists(Dir) && !isDir(Dir))
    return "output '" + Dir + "' exists and is not a directory";
  if (isDir(Dir)) {
    std::vector<std::string> Entries = listDir(Dir);
    if (!Entries.empty()) {
      if (!Force)
        return "output directory '" + Dir +
               "' exists and is not empty; choose another, or pass --force "
               "to replace the capture it holds";
      bool Capture = false;
      for (const auto &N : Entries) {
        if (!isCaptureEntry(N))
          return "output directory '" + Dir + "' holds '" + N +
                 "', which is not part of a capture: refusing to replace it "
                 "even with --force";
        Capture |= N == CaptureManifestFile || N == "capture.pid";
      }
      if (!Capture)
        return "output directory '" + Dir +
               "' does not hold a capture (no manifest.json): refusing to "
               "replace it even with --force";
      for (const auto &N : Entries) {
        std::string E = removeTree(Dir + "/" + N);
        if (!E.empty())
          return "cannot remove the previous capture: " + E;
      }
    }
    return "";
  }
  std::string E;
  if (!mkdirs(Dir, E))
    return E;
  Created = true;
  return "";
}

std::string humanBytes(uint64_t B) {
  char Buf[64];
  if (B >= (1ULL << 30))
    std::snprintf(Buf, sizeof(Buf), "%.1f GiB", B / double(1ULL << 30));
  else if (B >= (1ULL << 20))
    std::snprintf(Buf, sizeof(Buf), "%.1f MiB", B / double(1ULL << 20));
  else if (B >= 1024)
    std::snprintf(Buf, sizeof(Buf), "%.1f KiB", B / 1024.0);
  else
    std::snprintf(Buf, sizeof(Buf), "%llu bytes", static_cast<unsigned long long>(B));
  return Buf;
}

std::string dimText(const Value &L, const char *Key) {
  uint64_t D[3];
  if (!getDim3(L, Key, D))
    return "?";
  return std::to_string(D[0]) + "x" + std::to_string(D[1]) + "x" +
         std::to_string(D[2]);
}

/// Prints one line per launch and the problems; returns true if valid.
bool report(const std::string &Dir, const Value &Root, bool Quiet, FILE *Out,
            ManifestSummary &Sum) {
  std::vector<std::string> Problems;
  bool Ok = checkManifest(Dir, Root, Problems, Sum);
  if (!Quiet) {
    std::fprintf(Out, "cuda-l1-capture: %s: %u launch%s captured (%s), %u skipped\n",
                 Dir.c_str(), Sum.Captured, Sum.Captured == 1 ? "" : "es",
                 humanBytes(Sum.CapturedBytes).c_str(), Sum.Skipped);
    if (const Value *Ls = Root.get("launches"); Ls && Ls->kind() == Value::Array) {
      for (const auto &L : Ls->elements()) {
        uint64_t Index = 0;
        std::string Kernel, Demangled, Status, Reason;
        getU64(L, "index", Index);
        getStr(L, "kernel", Kernel);
        getStr(L, "demangled", Demangled);
        getStr(L, "status", Status);
        std::fprintf(Out, "  launch %llu: %s\n", static_cast<unsigned long long>(Index),
                     (Demangled.empty() ? Kernel : Demangled).c_str());
        if (Status == "captured") {
          size_t NA = 0;
          if (const Value *As = L.get("allocations"); As && As->kind() == Value::Array)
            NA = As->elements().size();
          std::string Src;
          if (const Value *Lay = L.get("layout"))
            getStr(*Lay, "source", Src);
          std::fprintf(Out, "    grid %s, block %s: %zu allocation%s, layout from %s\n",
                       dimText(L, "grid").c_str(), dimText(L, "block").c_str(), NA,
                       NA == 1 ? "" : "s", Src.c_str());
        } else {
          getStr(L, "reason", Reason);
          std::fprintf(Out, "    skipped: %s\n", Reason.c_str());
        }
      }
    }
    if (const Value *Ps = Root.get("problems"); Ps && Ps->kind() == Value::Array)
      for (const auto &P : Ps->elements())
        if (P.kind() == Value::String)
          std::fprintf(Out, "  note: %s\n", P.str().c_str());
  }
  for (const auto &P : Problems)
    std::fprintf(stderr, "cuda-l1-capture: error: %s\n", P.c_str());
  return Ok;
}

int checkMode(const std::string &Dir, bool Quiet) {
  Value Root;
  std::vector<std::string> Problems;
  if (!readManifest(Dir, Root, Problems)) {
    for (const auto &P : Problems)
      std::fprintf(stderr, "cuda-l1-capture: error: %s\n", P.c_str());
    return ExitUsage;
  }
  ManifestSummary Sum;
  return report(Dir, Root, Quiet, stdout, Sum) ? 0 : ExitUsage;
}

/// --layouts: for each kernel of the models, where a capture would take its
/// parameter layout from, and whether the demangled name and the model
/// agree. Exit 0 unless they disagree somewhere (or a model is unreadable).
int layoutsMode(const std::vector<std::string> &Models, bool Quiet) {
  unsigned Kernels = 0, Demangled = 0, Agree = 0, Disagree = 0;
  bool Bad = false;
  for (const auto &Path : Models) {
    std::string Text, Error;
    Value Root;
    KernelModel M;
    if (!readWholeFile(Path, Text) || !M.loadText(Text, Path, Error) ||
        !capjson::parse(Text, Root, Error)) {
      std::fprintf(stderr, "cuda-l1-capture: error: %s\n",
                   Error.empty() ? (Path + ": cannot read the kernel model").c_str()
                                 : Error.c_str());
      Bad = true;
      continue;
    }
    std::vector<std::string> Names;
    for (const auto &K : Root.get("kernels")->elements()) {
      std::string N;
      if (getStr(K, "mangledName", N) && !N.empty())
        Names.push_back(N);
      if (const Value *Is = K.get("instantiations"); Is && Is->kind() == Value::Array)
        for (const auto &I : Is->elements())
          if (getStr(I, "mangledName", N) && !N.empty() &&
              std::find(Names.begin(), Names.end(), N) == Names.end())
            Names.push_back(N);
    }
    for (const auto &N : Names) {
      ++Kernels;
      std::string D = demangle(N);
      KernelLayout LD, LM;
      std::string WhyD, WhyM;
      bool DOk = layoutFromDemangled(D.empty() ? N : D, LD, WhyD);
      const ModelKernel *MK = M.find(N);
      bool MOk = MK && layoutFromModel(*MK, LM, WhyM);
      Demangled += DOk;
      std::string Verdict;
      if (DOk && MOk) {
        std::vector<uint64_t> O, Sz;
        for (const auto &P : LM.Params) {
          O.push_back(P.Offset);
          Sz.push_back(P.Size);
        }
        std::string Diff = compareLayouts(LD, O, Sz, "the model");
        if (Diff.empty()) {
          ++Agree;
          Verdict = "demangled name and model agree";
        } else {
          ++Disagree;
          Verdict = "DISAGREE: " + Diff;
        }
      } else if (MOk) {
        Verdict = "needs the model: " + WhyD.substr(0, WhyD.find(" (pass --model"));
      } else {
        Verdict = "model: " + (MK ? WhyM : std::string("no such kernel")) +
                  (DOk ? "; demangled name: ok" : "; demangled name: " + WhyD);
      }
      if (!Quiet || Verdict.rfind("DISAGREE", 0) == 0)
        std::printf("%s  %s\n  %s\n", N.c_str(), D.c_str(), Verdict.c_str());
    }
  }
  std::printf("cuda-l1-capture: %u kernels: %u with a layout from the demangled name alone, "
              "%u of them checked against the model: %u agree, %u disagree\n",
              Kernels, Demangled, Agree + Disagree, Agree, Disagree);
  return Bad || Disagree ? 1 : 0;
}

/// Adds the launcher's view to the manifest (command, exit status, time,
/// other processes); "" or the problem.
std::string finalise(const std::string &Dir, Value &Root,
                     const std::vector<std::string> &Command, int WaitStatus,
                     double Seconds) {
  Value Cmd = Value::array();
  for (const auto &A : Command)
    Cmd.push(A);
  Root.set("command", Cmd);
  Value App = Value::object();
  if (WIFEXITED(WaitStatus)) {
    App.set("exitStatus", WEXITSTATUS(WaitStatus));
    App.set("signal", Value());
  } else {
    App.set("exitStatus", Value());
    App.set("signal", WIFSIGNALED(WaitStatus) ? Value(WTERMSIG(WaitStatus)) : Value());
  }
  App.set("wallSeconds", Seconds);
  Root.set("app", App);
  std::string Others;
  Value OP = Value::array();
  if (readWholeFile(Dir + "/other-processes.log", Others)) {
    size_t B = 0;
    while (B < Others.size()) {
      size_t E = Others.find('\n', B);
      if (E == std::string::npos)
        E = Others.size();
      if (E > B)
        OP.push(Others.substr(B, E - B));
      B = E + 1;
    }
  }
  Root.set("otherProcesses", OP);
  std::string Path = Dir + "/" + CaptureManifestFile;
  std::string Tmp = Path + ".tmp.launcher";
  FILE *F = std::fopen(Tmp.c_str(), "wbx");
  if (!F)
    return "cannot write " + Tmp + ": " + std::strerror(errno);
  std::string Text = capjson::write(Root);
  bool Ok = std::fwrite(Text.data(), 1, Text.size(), F) == Text.size();
  Ok &= std::fclose(F) == 0;
  if (!Ok || std::rename(Tmp.c_str(), Path.c_str()) != 0) {
    std::remove(Tmp.c_str());
    return "cannot update " + Path + ": " + std::strerror(errno);
  }
  return "";
}

} // namespace

namespace {

/// What the command line asks for.
struct LaunchRequest {
  std::string Output, KernelRe, Model, Check;
  uint64_t Launches = 1, Skip = 0, MaxBytes = 1ULL << 30;
  bool HaveKernel = false, Force = false, Quiet = false;
  std::vector<std::string> Command, LayoutModels;
};

/// An option's value: "--name=value" or "--name value".
bool optionValue(int &I, int Argc, char **Argv, const std::string &Arg,
                 const std::string &Name, std::string &Out) {
  if (Arg.size() > Name.size() && Arg.compare(0, Name.size() + 1, Name + "=") == 0) {
    Out = Arg.substr(Name.size() + 1);
    return true;
  }
  if (I + 1 >= Argc)
    return false;
  Out = Argv[++I];
  return true;
}

/// One of the options that take a value; -1 to go on, else the exit code.
int valueOption(const std::string &Name, const std::string &V,
                LaunchRequest &R) {
  if (Name == "--output") {
    R.Output = V;
  } else if (Name == "--kernel") {
    R.KernelRe = V;
    R.HaveKernel = true;
  } else if (Name == "--model") {
    R.Model = V;
  } else if (Name == "--check") {
    R.Check = V;
  } else if (Name == "--launches") {
    if (!parseCount(V, R.Launches) || R.Launches == 0)
      return usageError("--launches '" + V + "': expected a positive integer");
  } else if (Name == "--skip") {
    if (!parseCount(V, R.Skip))
      return usageError("--skip '" + V + "': expected a non-negative integer");
  } else if (Name == "--max-bytes") {
    if (!parseBytes(V, R.MaxBytes) || R.MaxBytes == 0)
      return usageError("--max-bytes '" + V +
                        "': expected a positive byte count (suffix K, M or G "
                        "allowed)");
  }
  return -1;
}

/// Parses the command line; -1 to go on, else the exit code (--help,
/// --version, --layouts and usage errors end here).
int parseArgs(int Argc, char **Argv, LaunchRequest &R) {
  auto Is = [](const std::string &Arg, const char *Name) {
    std::string N(Name);
    return Arg == N || Arg.compare(0, N.size() + 1, N + "=") == 0;
  };
  for (int I = 1; I < Argc; ++I) {
    std::string Arg = Argv[I];
    if (Arg == "--") {
      R.Command.assign(Argv + I + 1, Argv + Argc);
      break;
    }
    if (Arg == "--help" || Arg == "-h") {
      std::fputs(Usage, stdout);
      return 0;
    }
    if (Arg == "--version") {
      std::printf("cuda-l1-capture %s (capture format %s version %d)\n",
                  CUDAL1_CAPTURE_VERSION, CaptureFormatName, CaptureFormatVersion);
      return 0;
    }
    if (Arg == "--force" || Arg == "--quiet") {
      (Arg == "--force" ? R.Force : R.Quiet) = true;
      continue;
    }
    if (Arg == "--layouts") {
      for (int J = I + 1; J < Argc; ++J) {
        std::string M = Argv[J];
        if (M == "--quiet")
          R.Quiet = true;
        else if (!M.empty() && M[0] == '-')
          return usageError("--layouts takes kernel model files (and --quiet), not '" + M + "'");
        else
          R.LayoutModels.push_back(M);
      }
      if (R.LayoutModels.empty())
        return usageError("--layouts needs one or more kernel model files");
      return layoutsMode(R.LayoutModels, R.Quiet);
    }
    if (Arg == "-o" || (Arg.rfind("-o", 0) == 0 && Arg.size() > 2 && Arg[2] != '-')) {
      if (Arg == "-o" && I + 1 >= Argc)
        return usageError("-o needs a directory");
      R.Output = Arg == "-o" ? Argv[++I] : Arg.substr(2);
      continue;
    }
    const char *Opts[] = {"--output", "--kernel", "--launches", "--skip",
                          "--max-bytes", "--model", "--check"};
    const char *Found = nullptr;
    for (const char *O : Opts)
      if (Is(Arg, O))
        Found = O;
    if (Found) {
      std::string V;
      if (!optionValue(I, Argc, Argv, Arg, Found, V))
        return usageError(std::string(Found) + " needs a value");
      if (int E = valueOption(Found, V, R); E >= 0)
        return E;
      continue;
    }
    if (!Arg.empty() && Arg[0] == '-')
      return usageError("unknown option '" + Arg + "'");
    // The application starts here (the "--" is optional).
    R.Command.assign(Argv + I, Argv + Argc);
    break;
  }
  return -1;
}

/// Checks the request; -1 to go on, else the exit code.
int validate(LaunchRequest &R) {
  if (R.Output.empty())
    return usageError("no output directory: pass -o <dir>");
  if (R.Command.empty())
    return usageError("no application to run: pass -- <app> [args...]");
  if (R.HaveKernel) {
    if (R.KernelRe.empty())
      return usageError("--kernel needs a non-empty regular expression");
    try {
      std::regex Re(R.KernelRe, std::regex::ECMAScript);
    } catch (const std::regex_error &E) {
      return usageError("--kernel '" + R.KernelRe +
                        "' is not a valid regular expression: " + E.what());
    }
  }
  if (!R.Model.empty()) {
    KernelModel M;
    std::string Error;
    if (!M.load(R.Model, Error))
      return usageError("--model: " + Error);
    R.Model = absolutePath(R.Model);
  }
  if (const char *Inj = std::getenv("CUDA_INJECTION64_PATH"); Inj && *Inj)
    return usageError(std::string("CUDA_INJECTION64_PATH is already set (to '") + Inj +
                      "'): another tool injects into this application; run "
                      "cuda-l1-capture without it");
  return -1;
}

/// The injection library: $CUDAL1_CAPTURE_LIBRARY, else beside the launcher
/// (../lib/cuda-l1/ or the same folder). "" (error printed) when missing.
std::string findInjectionLibrary() {
  std::vector<std::string> Tried;
  if (const char *L = std::getenv("CUDAL1_CAPTURE_LIBRARY"); L && *L) {
    Tried.push_back(L);
    if (fileSize(L) >= 0)
      return absolutePath(L);
  } else {
    std::string Self = selfDir();
    for (const std::string &C : {Self + "/../lib/cuda-l1/" + InjectLibName,
                                 Self + "/" + InjectLibName}) {
      Tried.push_back(C);
      if (fileSize(C) >= 0)
        return absolutePath(C);
    }
  }
  std::string L;
  for (const auto &T : Tried)
    L += "\n  " + T;
  std::fprintf(stderr, "cuda-l1-capture: error: cannot find the injection library; looked at:%s\n",
               L.c_str());
  return "";
}

/// The injection library reads what to capture from the environment.
void setCaptureEnvironment(const LaunchRequest &R, const std::string &Library,
                           const std::string &Dir) {
  ::setenv("CUDA_INJECTION64_PATH", Library.c_str(), 1);
  ::setenv(CaptureEnvDir, Dir.c_str(), 1);
  if (R.HaveKernel)
    ::setenv(CaptureEnvKernel, R.KernelRe.c_str(), 1);
  else
    ::unsetenv(CaptureEnvKernel);
  ::setenv(CaptureEnvLaunches, std::to_string(R.Launches).c_str(), 1);
  ::setenv(CaptureEnvSkip, std::to_string(R.Skip).c_str(), 1);
  ::setenv(CaptureEnvMaxBytes, std::to_string(R.MaxBytes).c_str(), 1);
  if (!R.Model.empty())
    ::setenv(CaptureEnvModel, R.Model.c_str(), 1);
  else
    ::unsetenv(CaptureEnvModel);
  ::setenv(CaptureEnvLauncher, "1", 1);
}

/// Runs the application and waits for it. Returns false (error printed)
/// when it could not be started; \p Status is waitpid's.
bool runApplication(const std::vector<std::string> &CommandIn, int &Status,
                    double &Seconds, int &ExecErrno) {
  // A pipe closed on exec reports exec failures.
  int Pipe[2];
  if (::pipe2(Pipe, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "cuda-l1-capture: error: pipe: %s\n", std::strerror(errno));
    return false;
  }
  std::vector<std::string> Command = CommandIn;
  std::vector<char *> Argv;
  for (auto &A : Command)
    Argv.push_back(&A[0]);
  Argv.push_back(nullptr);
  // While the application runs, Ctrl-C and Ctrl-\ go to it (same process
  // group) and the launcher waits for it, as system() does.
  struct sigaction Ignore, OldInt, OldQuit;
  std::memset(&Ignore, 0, sizeof(Ignore));
  Ignore.sa_handler = SIG_IGN;
  sigemptyset(&Ignore.sa_mask);
  sigaction(SIGINT, &Ignore, &OldInt);
  sigaction(SIGQUIT, &Ignore, &OldQuit);
  auto Start = std::chrono::steady_clock::now();
  pid_t Child = ::fork();
  if (Child < 0) {
    std::fprintf(stderr, "cuda-l1-capture: error: fork: %s\n", std::strerror(errno));
    return false;
  }
  if (Child == 0) {
    sigaction(SIGINT, &OldInt, nullptr);
    sigaction(SIGQUIT, &OldQuit, nullptr);
    ::close(Pipe[0]);
    ::execvp(Argv[0], Argv.data());
    int E = errno;
    ssize_t Ignored = ::write(Pipe[1], &E, sizeof(E));
    (void)Ignored;
    ::_exit(127);
  }
  ::close(Pipe[1]);
  ExecErrno = 0;
  ssize_t N;
  while ((N = ::read(Pipe[0], &ExecErrno, sizeof(ExecErrno))) < 0 && errno == EINTR) {
  }
  ::close(Pipe[0]);
  if (N != static_cast<ssize_t>(sizeof(ExecErrno)))
    ExecErrno = 0;
  while (::waitpid(Child, &Status, 0) < 0) {
    if (errno != EINTR) {
      std::fprintf(stderr, "cuda-l1-capture: error: waitpid: %s\n", std::strerror(errno));
      return false;
    }
  }
  Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  sigaction(SIGINT, &OldInt, nullptr);
  sigaction(SIGQUIT, &OldQuit, nullptr);
  return true;
}

/// After the application: the manifest finalised and summarised. Returns the
/// exit code.
int finishCapture(const LaunchRequest &R, const std::string &Dir,
                  const std::string &Library, int Status, double Seconds) {
  int AppExit = WIFEXITED(Status)     ? WEXITSTATUS(Status)
                : WIFSIGNALED(Status) ? 128 + WTERMSIG(Status)
                                      : 1;
  if (WIFSIGNALED(Status))
    std::fprintf(stderr, "cuda-l1-capture: the application was killed by signal %d\n",
                 WTERMSIG(Status));
  else if (AppExit != 0)
    std::fprintf(stderr, "cuda-l1-capture: the application exited with status %d\n",
                 AppExit);
  Value Root;
  std::vector<std::string> Problems;
  if (fileSize(Dir + "/" + CaptureManifestFile) < 0) {
    std::fprintf(stderr,
                 "cuda-l1-capture: error: no capture was written to %s: the application "
                 "did not initialise CUDA, or the CUDA driver did not load the "
                 "injection library (%s)\n",
                 Dir.c_str(), Library.c_str());
    return AppExit ? AppExit : ExitCaptureFailed;
  }
  if (!readManifest(Dir, Root, Problems)) {
    for (const auto &P : Problems)
      std::fprintf(stderr, "cuda-l1-capture: error: %s\n", P.c_str());
    return AppExit ? AppExit : ExitCaptureFailed;
  }
  std::string E = finalise(Dir, Root, R.Command, Status, Seconds);
  if (!E.empty())
    std::fprintf(stderr, "cuda-l1-capture: error: %s\n", E.c_str());
  ManifestSummary Sum;
  bool Valid = report(Dir, Root, R.Quiet, stderr, Sum);
  if (!Sum.Complete)
    std::fprintf(stderr,
                 "cuda-l1-capture: warning: the application ended before the capture "
                 "library's exit handler ran (crash, _exit or signal): the launches "
                 "listed are complete, later ones are missing\n");
  if (Sum.Captured == 0) {
    std::string Seen;
    if (const Value *Ks = Root.get("kernelsNotSelected"); Ks && Ks->kind() == Value::Array)
      for (const auto &K : Ks->elements()) {
        std::string Name;
        if (getStr(K, "kernel", Name))
          Seen += "\n  " + Name;
      }
    std::fprintf(stderr, "cuda-l1-capture: error: no launch was captured%s%s\n",
                 Seen.empty() ? "" : "; kernels launched but not selected by --kernel:",
                 Seen.c_str());
    Valid = false;
  }
  if (AppExit)
    return AppExit;
  return Valid && E.empty() ? 0 : ExitCaptureFailed;
}

} // namespace

int main(int argc, char **argv) {
  LaunchRequest R;
  if (int E = parseArgs(argc, argv, R); E >= 0)
    return E;
  if (!R.Check.empty()) {
    if (!R.Command.empty() || !R.Output.empty())
      return usageError("--check takes a capture directory and nothing else");
    return checkMode(R.Check, R.Quiet);
  }
  if (int E = validate(R); E >= 0)
    return E;
  std::string Library = findInjectionLibrary();
  if (Library.empty())
    return ExitUsage;
  bool CreatedDir = false;
  std::string Problem = prepareOutput(R.Output, R.Force, CreatedDir);
  if (!Problem.empty())
    return usageError(Problem);
  std::string Dir = absolutePath(R.Output);
  setCaptureEnvironment(R, Library, Dir);
  int Status = 0, ExecErrno = 0;
  double Seconds = 0;
  if (!runApplication(R.Command, Status, Seconds, ExecErrno))
    return 127;
  if (ExecErrno) {
    std::fprintf(stderr, "cuda-l1-capture: error: cannot run '%s': %s\n",
                 R.Command[0].c_str(), std::strerror(ExecErrno));
    // Nothing ran: leave no half-made capture behind.
    if (CreatedDir && listDir(Dir).empty())
      ::rmdir(Dir.c_str());
    return 127;
  }
  return finishCapture(R, Dir, Library, Status, Seconds);
}
