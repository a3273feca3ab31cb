//===- LlmWriteBack.cpp - the accepted variant as a finding with a fix ----===//
//
// The fastest accepted variant of a kernel is written back like a rule fix
// (docs/llm.md, "Writing back"): a finding "llm-proposal" whose fix replaces
// the kernel's definition, adds the device headers the variant includes,
// rewrites the kernel's <<<...>>> launch sites when the variant changes the
// launch, and writes the annotation above the kernel. Pipeline::applyFixes
// applies it through lib/Rules/ApplyFixes with every safety a rule fix has
// (file unchanged since parsed, rewritten file compiles, atomic writes).
//
//===----------------------------------------------------------------------===//
#include "LlmSearch.h"
#include "cudal1/Verify/FixCandidate.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cctype>

using namespace llvm;

namespace cudal1 {

namespace {
/// \p Expr with the identifier \p Name replaced by \p With (whole words).
std::string substitute(StringRef Expr, StringRef Name, StringRef With) {
  auto Word = [](char C) { return isalnum((unsigned char)C) || C == '_'; };
  std::string Out;
  for (size_t I = 0; I < Expr.size();) {
    if (Word(Expr[I])) {
      size_t J = I;
      while (J < Expr.size() && Word(Expr[J]))
        ++J;
      StringRef W = Expr.slice(I, J);
      Out += W == Name ? With.str() : W.str();
      I = J;
    } else {
      Out += Expr[I++];
    }
  }
  return Out;
}

/// The edits rewriting the grid and block of every launch site of \p K to
/// the variant's launch change. False with \p Why when a site is not a
/// <<<...>>> launch or its text cannot be found.
bool launchEdits(const LlmKernel &K, const AcceptedVariant &A,
                 std::vector<TextEdit> &Edits, std::string &Why) {
  for (const LaunchSite &LS : K.KS->Launches) {
    if (LS.Form != "chevron") {
      Why = "its launch change cannot be written to the launch at " +
            LS.Loc.str() + " (" + LS.Form + "): only <<<...>>> launches are "
            "rewritten";
      return false;
    }
    std::string Text = K.FileText;
    if (LS.Loc.File != K.File) {
      auto B = MemoryBuffer::getFile(LS.Loc.File);
      if (!B) {
        Why = LS.Loc.File + ": " + B.getError().message();
        return false;
      }
      Text = (*B)->getBuffer().str();
    }
    size_t At = offsetOfLineColumn(Text, LS.Loc.Line, LS.Loc.Column);
    size_t Chev = Text.find("<<<", At);
    size_t G = Chev == std::string::npos ? Chev : Text.find(LS.Grid.Text, Chev);
    size_t B = G == std::string::npos
                   ? G
                   : Text.find(LS.Block.Text, G + LS.Grid.Text.size());
    if (Chev == std::string::npos || Chev > At + 4096 ||
        G == std::string::npos || B == std::string::npos) {
      Why = "the launch at " + LS.Loc.str() + " is not found as written";
      return false;
    }
    if (A.GridExpr)
      Edits.push_back({LS.Loc.File, unsigned(G), unsigned(LS.Grid.Text.size()),
                       substitute(*A.GridExpr, "grid",
                                  "dim3(" + LS.Grid.Text + ")")});
    if (A.BlockExpr)
      Edits.push_back({LS.Loc.File, unsigned(B),
                       unsigned(LS.Block.Text.size()),
                       substitute(*A.BlockExpr, "block",
                                  "dim3(" + LS.Block.Text + ")")});
  }
  return true;
}

/// Where new #include lines go: before the file's first #include (else at
/// its start).
size_t includeOffset(StringRef Text) {
  for (size_t At = 0; At < Text.size();) {
    StringRef Line = Text.substr(At).split('\n').first;
    StringRef T = Line.ltrim(" \t");
    if (T.starts_with("#") && T.drop_front().ltrim(" \t").starts_with("include"))
      return At;
    At += Line.size() + 1;
  }
  return 0;
}
} // namespace

std::optional<Finding> LlmSearch::writeBack(const LlmKernel &K,
                                            std::string &Why) const {
  const AcceptedVariant &A = *K.Best;
  if (!A.Verdict.Timing) {
    Why = "it has no timing";
    return std::nullopt;
  }
  std::string By = formatv("proposed by {0}, round {1}", A.V.Model, A.V.Round);
  Finding F;
  F.RuleId = "llm-proposal";
  F.Severity = "note";
  F.Kernel = K.Name;
  F.Loc = K.KS->K.KernelRange.Begin;
  F.Offset = K.KernelOffset;
  F.Message = formatv("kernel '{0}' replaced by a variant {1}: {2:f2}x faster",
                      K.Name, By, *A.V.Speedup);
  FixIt Fix;
  Fix.Description = "the variant " + By;
  Fix.Exact = A.Verdict.Exact;
  Fix.Proven = true;
  // The definition, with the original's trailing white space.
  StringRef Def = StringRef(A.Definition).ltrim("\r\n").rtrim();
  StringRef Orig = K.KernelText;
  std::string Tail = Orig.substr(Orig.rtrim().size()).str();
  Fix.Edits.push_back({K.File, unsigned(K.KernelOffset),
                       unsigned(K.KernelText.size()), Def.str() + Tail});
  if (!A.NewIncludes.empty()) {
    std::string Lines;
    for (const std::string &I : A.NewIncludes)
      Lines += "#include " + I + "\n";
    Fix.Edits.push_back(
        {K.File, unsigned(includeOffset(K.FileText)), 0, Lines});
  }
  if ((A.GridExpr || A.BlockExpr) && !launchEdits(K, A, Fix.Edits, Why))
    return std::nullopt;
  std::string Annotation =
      formatAnnotation(Gpus.front(), *A.Verdict.Timing, "llm-proposal (" + By + ")",
                       A.Verdict.Exact, A.Verdict.InputSets.size());
  Fix.Edits.push_back(
      annotationEdit(K.FileText, K.File, K.KernelOffset, Annotation));
  F.Fix = std::move(Fix);
  return F;
}

double LlmSearch::ruleFixSpeedup(const LlmKernel &K) const {
  double Best = 0;
  if (!RuleFixes)
    return Best;
  for (auto &KV : RuleFixes->Decisions)
    if (KV.second.Apply && KV.second.Speedup &&
        Run.Findings[KV.first].Kernel == K.Name)
      Best = std::max(Best, *KV.second.Speedup);
  return Best;
}

} // namespace cudal1
