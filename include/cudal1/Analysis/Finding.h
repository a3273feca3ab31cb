//===- Finding.h - a diagnostic with an optional fix, as plain data -*- C++ -*-===//
//
// What every check and rule produces (see DESIGN.md, "Core model"). Plain
// data, no Clang types: findings are merged across translation units,
// deduplicated (a finding in a header is reported once), written as text /
// JSON / SARIF, put into LLM prompts and turned into edits by the rewrite
// engine (include/cudal1/Rules/ApplyFixes.h).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_ANALYSIS_FINDING_H
#define CUDAL1_ANALYSIS_FINDING_H

#include "cudal1/Model/KernelInfo.h"
#include "cudal1/Model/Rewrite.h"
#include <optional>
#include <string>
#include <vector>

namespace cudal1 {

struct FixIt {
  std::string Description;
  std::vector<TextEdit> Edits;
  Exactness Exact = Exactness::Bitwise;
  unsigned Ulp = 0;          ///< for Exactness::Ulp
  double Rtol = 0, Atol = 0; ///< for Reassociating / FastMath
  /// For Reassociating sums: error allowed relative to the output buffer's
  /// largest |value| (Tolerance::ScaleRtol), since cancellation makes a
  /// per-element relative error meaningless near zero.
  double ScaleRtol = 0;
  /// Pointer parameters whose elements are float sums of at most one term per
  /// thread that the fix adds in another order (a per-thread atomicAdd
  /// turned into a warp sum): the verifier compares them within a tolerance
  /// that grows with the launch's thread count (Tolerance::GridSums).
  std::vector<std::string> GridSumParams;
  /// False when the fix's legality rests on something not proven statically
  /// (e.g. __restrict__ without proof from every launch site): offered,
  /// never applied without verification.
  bool Proven = true;
  /// True when the fix is legal (and as exact as it says) but not faster
  /// everywhere: plain --fix never applies it; --verify=run applies it where
  /// the GPU measures it faster.
  bool NeedsMeasurement = false;
  /// The fix edits host code only (no kernel changes): there is no kernel
  /// for --verify=run to run, so a proven bitwise one is applied there as
  /// plain --fix applies it (and --app-test runs the user's tests on it).
  bool HostOnly = false;
  /// Applied before every other fix of the round: a fix that moves code
  /// other fixes would edit (launch-fuse-elementwise moves kernel bodies
  /// into device functions) takes it as written and edits it whole; the
  /// overlapping fixes wait for the next round, where they no longer match.
  bool FirstInRound = false;
  /// Source the fix copies into new code (launch-idle-blocks clones the
  /// kernel's definition; only File, Offset and Length are used). Another
  /// fix of the same round that edits it goes first, and this one waits for
  /// the next round, where it copies the edited code: otherwise the copy,
  /// which is what runs, would lose the other fix.
  std::vector<TextEdit> Copies;
};

struct FindingNote {
  SourceLoc Loc;
  std::string Message;
};

struct Finding {
  std::string RuleId;                ///< "<category>-<name>"
  std::string Severity = "warning";  ///< "warning", "error" (after
                                     ///< --warnings-as-errors), "note"
  SourceLoc Loc;                     ///< where the caret goes
  unsigned Offset = 0;               ///< byte offset of Loc in Loc.File
  SourceLoc RangeEnd;                ///< optional: last character of the
                                     ///< highlighted range (File empty = none)
  std::string Message;               ///< why it is slow + estimated effect
  std::vector<FindingNote> Notes;    ///< e.g. the index computation
  std::optional<FixIt> Fix;
  std::string Kernel;                ///< qualified kernel name ("" = none)
  std::string WhyNoFix;              ///< when a rule could not offer a fix

  /// The rule's category: the text before the first '-'.
  std::string category() const;
  /// Identity used to report a finding once (same rule, place, message).
  std::string key() const;
};

/// Sorts by file, line, column, rule id; removes duplicates (same key()),
/// merging nothing: the first one seen wins.
void sortAndDedup(std::vector<Finding> &Findings);

} // namespace cudal1

#endif
