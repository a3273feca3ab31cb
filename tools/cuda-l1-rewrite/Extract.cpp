//===- Extract.cpp - --extract=<kernel|all> -o <dir> ----------------------===//
#include "Tool.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cudal1 {

static json::Value toJson(const ExtractResult::Item &It) {
  auto Strings = [](const std::vector<std::string> &V) {
    return json::Array(std::vector<json::Value>(V.begin(), V.end()));
  };
  if (!It.Problems.empty())
    return json::Object{{"kernel", It.Kernel},
                        {"definition", It.Definition.str()},
                        {"problems", Strings(It.Problems)}};
  json::Object O{{"kernel", It.Kernel},
                 {"source", It.SourcePath},
                 {"manifest", It.ManifestPath},
                 {"name_expressions", Strings(It.NameExprs)}};
  if (It.Compiles)
    O["nvrtc"] = *It.Compiles ? "ok" : "failed";
  return O;
}

int runExtract(Pipeline &P, const std::string &Selector) {
  const Options &O = P.options();
  if (O.OutputDir.empty()) {
    reportError("--extract writes files: give the output folder with -o <dir> "
                "(the input files are never modified)");
    return 2;
  }
  if (Selector.empty()) {
    reportError("--extract needs a kernel name or 'all'");
    return 2;
  }
  if (O.Verify == VerifyLevel::Run) {
    reportError("--extract checks with --verify=compile (NVRTC); running "
                "needs a candidate: use --verify=run --kernel=<name> "
                "--candidate=<file>");
    return 2;
  }
  if (O.Format == OutputFormat::Sarif) {
    reportError("--format=sarif is for findings; --extract writes text or "
                "json");
    return 2;
  }
  ExtractResult R = P.extract(Selector);
  if (R.Items.empty())
    return 2;
  if (O.Format == OutputFormat::Json) {
    json::Array A;
    for (const auto &It : R.Items)
      if (!It.SourcePath.empty() || !It.Problems.empty())
        A.push_back(toJson(It));
    printJson(json::Value(std::move(A)), outs());
  } else if (!O.Quiet) {
    for (const auto &It : R.Items) {
      if (It.SourcePath.empty())
        continue;
      outs() << It.Kernel << " -> " << It.SourcePath << " (" << It.Pieces
             << " pieces";
      if (It.NameExprs.size() > 1)
        outs() << ", " << It.NameExprs.size() << " instantiations";
      if (It.Compiles)
        outs() << ", " << (*It.Compiles ? "compiles" : "does not compile")
               << " with NVRTC";
      outs() << ")\n";
    }
    outs() << "extracted " << R.Written << " of " << R.Items.size()
           << " kernel" << (R.Items.size() == 1 ? "" : "s") << " to "
           << O.OutputDir;
    if (O.Verify == VerifyLevel::Compile)
      outs() << "; NVRTC (" << (O.GpuArch.empty() ? "sm_90" : O.GpuArch)
             << "): " << R.Compiled << " compiled, " << R.CompileFailed
             << " failed";
    outs() << "\n";
  }
  return R.Exit ? R.Exit : P.inputStatus();
}

} // namespace cudal1
