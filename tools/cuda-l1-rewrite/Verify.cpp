//===- Verify.cpp - --verify=run --kernel=K --candidate=F original.cu -----===//
//
// Prints what Pipeline::verifyCandidates returns: the summary table (or the
// results JSON with --format=json), and writes <dir>/verify-results.json
// with -o.
//
//===----------------------------------------------------------------------===//
#include "Tool.h"
#include "cudal1/Support/SafeWrite.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cudal1 {

int runVerifyCandidates(Pipeline &P) {
  const Options &O = P.options();
  CandidatesResult R = P.verifyCandidates();
  if (!R.Json)
    return R.Exit;
  if (!O.OutputDir.empty()) {
    sys::fs::create_directories(O.OutputDir);
    SmallString<256> Path(O.OutputDir);
    sys::path::append(Path, "verify-results.json");
    std::string Text;
    raw_string_ostream TS(Text);
    printJson(*R.Json, TS);
    SafeWriteResult W = writeFileSafely(Path, Text);
    if (!W.Ok) {
      reportError(Path.str().str() + ": " + W.Error);
      return 2;
    }
    if (!O.Quiet)
      errs() << "cuda-l1: results written to " << Path << "\n";
  }
  if (O.Format == OutputFormat::Json)
    printJson(*R.Json, outs());
  else
    outs() << R.Summary;
  return R.Exit;
}

} // namespace cudal1
