//===- HarnessResolve.cpp - the harness of a kernel for --verify=run ------===//
#include "HarnessResolve.h"
#include "cudal1/Analysis/Config.h"
#include "cudal1/Verify/HarnessSelect.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <map>

using namespace llvm;

namespace cudal1 {

namespace {
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

bool parseDefines(const std::vector<std::string> &Defines, ExprEnv &Env) {
  for (const std::string &D : Defines) {
    std::string E;
    if (!parseDefine(D, Env, E)) {
      reportError(E);
      return false;
    }
  }
  return true;
}

HarnessAnswer harnessFromConfig(const HarnessQuery &Q, ConfigStore &Configs) {
  HarnessAnswer A;
  const ConfigStore::Entry &P = Configs.forFile(Q.SourceFile);
  if (P.Ok && !P.Config.Harness)
    return A; // Missing
  if (!P.Ok) {
    A.Status = HarnessStatus::Error;
    A.Message = P.message();
    return A;
  }
  const ConfigHarness &CH = *P.Config.Harness;
  const std::string &Config = P.Config.Source;
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

HarnessAnswer resolveHarness(const HarnessQuery &Q, ConfigStore &Configs) {
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
  A = harnessFromConfig(Q, Configs);
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
