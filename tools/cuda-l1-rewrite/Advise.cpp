//===- Advise.cpp - the default mode: diagnostics, and fixes on request ---===//
//
// cuda-l1-rewrite [--rules=<globs>] [--format=text|json|sarif] <files...>
// Prints the pipeline's findings clang-style (or as JSON / SARIF 2.1.0);
// with --fix, -o, --diff or --export-fixes the fixes are applied (verified
// on the GPU first with --verify=run). Also --list-rules and --dump-config.
//
//===----------------------------------------------------------------------===//
#include "Tool.h"
#include "cudal1/Analysis/FindingOutput.h"
#include "cudal1/Config.h"
#include "cudal1/Emit/DiagnosticText.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cudal1 {

static void listRules(const std::vector<RuleInfo> &Rules,
                      const GlobList &Enabled, OutputFormat Format) {
  if (Format == OutputFormat::Json) {
    json::Array A;
    for (const RuleInfo &R : Rules) {
      json::Object O = toJSON(R);
      O["enabled"] = Enabled.contains(R.Id);
      A.push_back(std::move(O));
    }
    printJson(json::Object{{"rules", std::move(A)}}, outs());
    return;
  }
  size_t W = 0;
  for (const RuleInfo &R : Rules)
    W = std::max(W, R.Id.size());
  outs() << "Enabled rules:\n";
  for (const RuleInfo &R : Rules) {
    if (!Enabled.contains(R.Id))
      continue;
    outs() << "    " << R.Id << std::string(W + 2 - R.Id.size(), ' ')
           << R.Category << "  " << toString(R.Exactness) << "  " << R.Summary;
    if (R.Origin != "builtin")
      outs() << " (" << R.Origin << ")";
    outs() << "\n";
  }
}

/// --fail-on: a finding at or above \p Level ("never": none).
static bool failsAt(const std::vector<Finding> &Findings, StringRef Level) {
  auto Rank = [](StringRef S) {
    return S == "error" ? 3 : S == "warning" ? 2 : S == "note" ? 1 : 0;
  };
  if (Level == "never")
    return false;
  for (const Finding &F : Findings)
    if (Rank(F.Severity) >= Rank(Level))
      return true;
  return false;
}

static void printFindings(Pipeline &P, const AnalysisRun &Run,
                          const FixVerifyResult &Verified,
                          const ProposalResult &Proposed,
                          const Composition *Composed = nullptr) {
  const Options &O = P.options();
  raw_ostream &OS = O.Diff ? errs() : outs();
  if (O.Format == OutputFormat::Json) {
    json::Value Doc = findingsJson(Run.Findings);
    if (json::Object *Obj = Doc.getAsObject()) {
      if (Verified.Json)
        (*Obj)["verification"] = *Verified.Json;
      if (Proposed.Json)
        (*Obj)["model_proposals"] = *Proposed.Json;
      if (Composed) { // which fixes each kernel's result combines
        json::Value C = Composed->toJson();
        if (Composed->VerifyJson)
          C.getAsObject()->insert({"verification", *Composed->VerifyJson});
        (*Obj)["composition"] = std::move(C);
      }
    }
    printJson(Doc, OS);
  } else if (O.Format == OutputFormat::Sarif) {
    OutputOptions OO;
    OO.RuleDocsBase = O.RuleDocsUrl;
    printJson(findingsSarif(Run.Findings, P.rules(), CUDAL1_VERSION, OO), OS);
  } else {
    printFindingsText(Run.Findings, OS);
  }
  unsigned Errors = Run.errors(), Warnings = Run.warnings();
  if (!O.Quiet && O.Format == OutputFormat::Text && (Errors || Warnings))
    errs() << Warnings << " warning" << (Warnings == 1 ? "" : "s") << " and "
           << Errors << " error" << (Errors == 1 ? "" : "s")
           << " from cuda-l1 rules.\n";
}

int runAdvise(Pipeline &P, const ModeFlags &M) {
  const Options &O = P.options();
  std::vector<RuleInfo> Rules = P.rules();
  AnalysisConfig First;
  if (!P.checkConfigs(&First))
    return 2; // a bad configuration: nothing is parsed
  if (M.ListRules || M.DumpConfig)
    P.warnUnmatchedGlobs(First);
  if (M.ListRules) {
    listRules(Rules, GlobList(P.effectiveRules(First)), O.Format);
    return P.inputStatus();
  }
  if (M.DumpConfig) {
    AnalysisConfig C = First;
    if (O.Llm.any()) { // the command line over the configuration's LLM:
      LlmOverrides L = C.Llm.value_or(LlmOverrides());
      L.overlay(O.Llm);
      C.Llm = L;
    }
    C.Rules = P.effectiveRules(First);
    if (O.WarningsAsErrors || C.WarningsAsErrors)
      C.WarningsAsErrors = P.effectiveWarningsAsErrors(First);
    outs() << dumpConfig(C, Rules);
    return P.inputStatus();
  }

  // Model proposals (docs/llm.md): with an endpoint, in a mode that verifies.
  bool Llm = P.modelProposalsWanted();
  if (O.Llm.Endpoint && !O.Llm.Endpoint->empty() &&
      O.Verify == VerifyLevel::None) {
    reportError("--llm-endpoint needs --verify=compile or --verify=run: "
                "every proposal is verified before anything is written");
    return 2;
  }
  std::multiset<std::string> Baseline;
  if (!O.Baseline.empty()) {
    std::string Error;
    if (!readBaseline(O.Baseline, Baseline, Error)) {
      reportError("--baseline: " + Error);
      return 2;
    }
  }

  // --fix / -o / --diff / --export-fixes with --verify=run: every fix is
  // verified on the GPU first (also with model proposals, which are shown
  // the rule fixes' speedups).
  bool VerifyFixes =
      (O.wantsFixes() || Llm) && O.Verify == VerifyLevel::Run;
  AnalysisRun Run = P.analyze(VerifyFixes, Llm);
  if (!O.Baseline.empty()) {
    unsigned Known = applyBaseline(Run.Findings, std::move(Baseline));
    if (!O.Quiet && Known)
      errs() << "cuda-l1: " << Known << " finding" << (Known == 1 ? "" : "s")
             << " of the baseline left out\n";
  }
  FixVerifyResult Verified;
  if (VerifyFixes) {
    Verified = P.verifyFixes(Run);
    // A fix in a device function verified through its only caller is that
    // kernel's: composed with its other fixes, under its annotation.
    for (const auto &KV : Verified.Decisions)
      if (!KV.second.Kernel.empty() && KV.first < Run.Findings.size())
        Run.Findings[KV.first].Kernel = KV.second.Kernel;
  }
  ProposalResult Proposed;
  if (Llm)
    Proposed = P.proposeWithModel(Run, VerifyFixes ? &Verified : nullptr);
  // JSON with fixes applied: printed after applying, with the composition.
  bool JsonAfter = O.wantsFixes() && O.Format == OutputFormat::Json;
  if (!JsonAfter)
    printFindings(P, Run, Verified, Proposed);

  int Exit = P.inputStatus();
  if (Verified.Status == 2 || Proposed.Status == 2) {
    if (JsonAfter)
      printFindings(P, Run, Verified, Proposed);
    if (Llm && O.Format == OutputFormat::Text)
      (O.Diff ? errs() : outs()) << Proposed.Summary;
    return 2; // no GPU, or bad input: nothing is written
  }
  if (Verified.Status)
    Exit = 2;
  if (O.wantsFixes())
    Exit = std::max(Exit, P.applyFixes(Run, VerifyFixes ? &Verified : nullptr,
                                       Llm ? &Proposed : nullptr));
  if (JsonAfter)
    printFindings(P, Run, Verified, Proposed, &P.composition());
  if (O.Format == OutputFormat::Text) {
    raw_ostream &OS = O.Diff ? errs() : outs();
    if (O.wantsFixes() && VerifyFixes && Verified.Json)
      OS << Verified.Summary;
    if (O.wantsFixes() && !P.composition().VerifySummary.empty())
      OS << "composed kernels, verified against the original:\n"
         << P.composition().VerifySummary;
    if (Llm)
      OS << Proposed.Summary;
  }
  if (Run.Status.Failed || Run.RuleCrashed)
    return 2;
  if (Exit)
    return Exit;
  return failsAt(Run.Findings, O.FailOn) ? 1 : 0;
}

} // namespace cudal1
