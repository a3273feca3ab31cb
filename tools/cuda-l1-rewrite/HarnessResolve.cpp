//===- HarnessResolve.cpp - the harness of a kernel for --verify=run ------===//
#include "HarnessResolve.h"
#include "cudal1/Analysis/Config.h"
#include "cudal1/Verify/HarnessSelect.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <map>

using namespace llvm;

namespace cudal1 {

namespace {
cl::Option *registered(const std::string &Name) {
  auto &Opts = cl::getRegisteredOptions();
  auto It = Opts.find(Name);
  return It == Opts.end() ? nullptr : It->second;
}

/// Configurations read so far (path -> parsed, or the error).
struct ParsedConfig {
  bool Ok = false;
  AnalysisConfig C;
  std::string Error;
};
std::map<std::string, ParsedConfig> &configCache() {
  static std::map<std::string, ParsedConfig> Cache;
  return Cache;
}

const ParsedConfig *configFor(const std::string &SourceFile) {
  std::string Path = registeredString("config-file");
  if (Path.empty()) {
    SmallString<256> Dir(SourceFile);
    sys::fs::make_absolute(Dir);
    sys::path::remove_filename(Dir);
    Path = findConfigFile(Dir);
  }
  if (Path.empty())
    return nullptr;
  auto It = configCache().find(Path);
  if (It != configCache().end())
    return &It->second;
  ParsedConfig &P = configCache()[Path];
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf) {
    P.Error = Path + ": cannot read the configuration: " +
              Buf.getError().message();
  } else {
    P.Ok = parseConfig((*Buf)->getBuffer(), Path, P.C, P.Error);
    // parseConfig's errors read "<file>:<l>:<c>: error: ...".
    size_t E = P.Error.find(": error: ");
    if (E != std::string::npos)
      P.Error.erase(E, 7);
  }
  return &P;
}

HarnessAnswer fromSpec(const std::string &Text, const std::string &FileName,
                       const std::string &Entry, const HarnessQuery &Q) {
  HarnessAnswer A;
  std::string E;
  if (!parseHarnessSpec(Text, FileName, Entry, Q.Params, Q.Env, A.H, E)) {
    A.Status = HarnessStatus::Error;
    A.Message = E;
    return A;
  }
  A.Status = HarnessStatus::Found;
  return A;
}
} // namespace

std::string registeredString(const std::string &Name,
                             const std::string &Default) {
  if (auto *O = registered(Name))
    return static_cast<cl::opt<std::string> *>(O)->getValue();
  return Default;
}
double registeredDouble(const std::string &Name, double Default) {
  if (auto *O = registered(Name))
    return static_cast<cl::opt<double> *>(O)->getValue();
  return Default;
}
unsigned registeredUnsigned(const std::string &Name, unsigned Default) {
  if (auto *O = registered(Name))
    return static_cast<cl::opt<unsigned> *>(O)->getValue();
  return Default;
}
bool registeredFlag(const std::string &Name) {
  if (auto *O = registered(Name))
    return O->getNumOccurrences() > 0 &&
           static_cast<cl::opt<bool> *>(O)->getValue();
  return false;
}
std::vector<std::string> registeredList(const std::string &Name) {
  std::vector<std::string> Out;
  if (auto *O = registered(Name)) {
    auto *L = static_cast<cl::list<std::string> *>(O);
    Out.assign(L->begin(), L->end());
  }
  return Out;
}

HarnessAnswer harnessFromConfig(const HarnessQuery &Q) {
  HarnessAnswer A;
  const ParsedConfig *P = configFor(Q.SourceFile);
  if (!P || (P->Ok && !P->C.Harness))
    return A; // Missing
  if (!P->Ok) {
    A.Status = HarnessStatus::Error;
    A.Message = P->Error;
    return A;
  }
  const ConfigHarness &CH = *P->C.Harness;
  const std::string &Config = P->C.Source;
  std::string Where = Config + ":" + std::to_string(CH.Line);
  if (!CH.SpecFile.empty()) {
    auto Buf = MemoryBuffer::getFile(CH.SpecFile);
    if (!Buf) {
      A.Status = HarnessStatus::Error;
      A.Message = Config + ":" + std::to_string(CH.Line) + ":" +
                  std::to_string(CH.Column) + ": Harness: " + CH.SpecFile +
                  ": " + Buf.getError().message();
      return A;
    }
    std::string Text = (*Buf)->getBuffer().str();
    auto Entry = harnessSpecEntry(Text, Q.Kernel);
    if (!Entry) {
      A.Message = CH.SpecFile + " (Harness: of " + Where +
                  ") has no entry for kernel '" + Q.Kernel + "'";
      return A;
    }
    A = fromSpec(Text, CH.SpecFile, *Entry, Q);
    A.Source = CH.SpecFile + " (Harness: in " + Where + ")";
    return A;
  }
  auto Entry = harnessSpecEntry(CH.SpecText, Q.Kernel);
  if (!Entry) {
    A.Message = "the Harness: in " + Where + " has no entry for kernel '" +
                Q.Kernel + "'";
    return A;
  }
  A = fromSpec(CH.SpecText, Config, *Entry, Q);
  if (A.Status == HarnessStatus::Error)
    A.Message = configHarnessError(A.Message, Config);
  A.Source = "Harness: in " + Where;
  return A;
}

LaunchFacts launchFacts(const LaunchSite &LS) {
  LaunchFacts F;
  F.Grid = LS.Grid.Dim;
  F.Block = LS.Block.Dim;
  F.GridText = LS.Grid.Text;
  F.BlockText = LS.Block.Text;
  if (LS.SharedMem.Present)
    F.SharedMem = LS.SharedMem.Value;
  F.ArgTexts = LS.Args;
  if (auto Buf = MemoryBuffer::getFile(LS.Loc.File))
    F.SourceText = (*Buf)->getBuffer().str();
  return F;
}

HarnessAnswer resolveHarness(const HarnessQuery &Q) {
  HarnessAnswer A;
  // 1. --harness, when it has an entry for this kernel.
  if (!Q.CommandLineSpec.empty()) {
    auto Buf = MemoryBuffer::getFile(Q.CommandLineSpec);
    if (!Buf) {
      A.Status = HarnessStatus::Error;
      A.Message = Q.CommandLineSpec + ": " + Buf.getError().message();
      return A;
    }
    std::string Text = (*Buf)->getBuffer().str();
    if (auto Entry = harnessSpecEntry(Text, Q.Kernel)) {
      A = fromSpec(Text, Q.CommandLineSpec, *Entry, Q);
      A.Source = Q.CommandLineSpec;
      return A;
    }
  }
  // 2. .cuda-l1.yaml.
  A = harnessFromConfig(Q);
  if (A.Status != HarnessStatus::Missing)
    return A;
  std::string ConfigWhy = A.Message;
  // 3. A launch site with constant values (or --define'd ones).
  std::string Simple = simpleKernelName(Q.Kernel);
  std::string Why = "no launch site of '" + Q.Kernel + "' in the files given";
  LaunchFacts Last;
  bool HaveLast = false;
  for (const LaunchSite &LS : Q.Launches) {
    LaunchFacts F = launchFacts(LS);
    Last = F;
    HaveLast = true;
    Harness H;
    std::string W;
    if (inferHarness(Simple, Q.Params, F, Q.Env, H, W)) {
      A = HarnessAnswer();
      A.Status = HarnessStatus::Found;
      A.H = std::move(H);
      A.Source = "inferred from the launch at " + LS.Loc.str();
      return A;
    }
    Why = W;
  }
  A = HarnessAnswer();
  A.Status = HarnessStatus::Missing;
  A.Message = "no harness for kernel '" + Q.Kernel + "': " + Why;
  if (!ConfigWhy.empty())
    A.Message += "; " + ConfigWhy;
  A.Template = harnessTemplate(Simple, Q.Params,
                               HaveLast && !Last.GridText.empty() ? &Last
                                                                  : nullptr);
  return A;
}

} // namespace cudal1
