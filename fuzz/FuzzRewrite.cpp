//===- FuzzRewrite.cpp - libFuzzer: analyse and rewrite any source --------===//
// Any bytes as a .cu file (in memory): every rule runs, every fix offered is
// applied to the text, and the result is analysed again; never a crash, and
// fixes of one finding never overlap one another or leave the file.
#include "cudal1/Config.h"
#include "cudal1/Driver/Pipeline.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

using namespace cudal1;

static const char *const Path = "/fuzz/k.cu";

static AnalysisRun analyse(const std::string &Text) {
  Options O;
  O.Files = {Path};
  O.Overlay[Path] = Text;
  O.CudaPath = CUDAL1_DEFAULT_CUDA_PATH;
  O.ResourceDir = CUDAL1_CLANG_RESOURCE_DIR;
  O.Quiet = true;
  Pipeline P(O);
  return P.analyze(/*CollectKernels=*/false);
}

/// The text with the edits of every finding that has a fix, skipping a
/// finding whose edits overlap an earlier one's (as --fix does).
static std::string applyAll(const std::string &Text,
                            const std::vector<Finding> &Findings) {
  std::vector<TextEdit> Taken;
  for (const Finding &F : Findings) {
    if (!F.Fix)
      continue;
    bool Clash = false;
    for (const TextEdit &E : F.Fix->Edits) {
      if (E.File != Path)
        continue;
      if (E.Offset > Text.size() || E.Length > Text.size() - E.Offset)
        __builtin_trap(); // an edit outside the file
      for (const TextEdit &T : Taken)
        if (E.Offset < T.Offset + T.Length && T.Offset < E.Offset + E.Length)
          Clash = true;
    }
    if (Clash)
      continue;
    for (const TextEdit &E : F.Fix->Edits)
      if (E.File == Path)
        Taken.push_back(E);
  }
  std::sort(Taken.begin(), Taken.end(), [](const TextEdit &A, const TextEdit &B) {
    return A.Offset > B.Offset;
  });
  std::string Out = Text;
  for (const TextEdit &E : Taken)
    Out.replace(E.Offset, E.Length, E.Replacement);
  return Out;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size > 64 * 1024)
    return 0; // keep each run short; huge files are tested by the stress test
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  AnalysisRun Run = analyse(Text);
  std::string Fixed = applyAll(Text, Run.Findings);
  if (Fixed != Text)
    (void)analyse(Fixed);
  return 0;
}
