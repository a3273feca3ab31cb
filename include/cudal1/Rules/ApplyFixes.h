//===- ApplyFixes.h - turn findings' fixes into edited files ----*- C++ -*-===//
//
// --fix (in place), -o <dir> (rewritten copies), --diff (unified diff on
// stdout) and --export-fixes=<yaml> (clang-tidy's format, applied the same by
// clang-apply-replacements). Guarantees (docs/fixes.md):
//   - only eligible fixes: proven ones, and by default only `bitwise` ones
//     (others need a verifier (--verify=run) or --allow-unverified;
//     fast-math ones also --allow-fast-math); with --verify=run, bitwise
//     ones are verified too (ApplyOptions::VerifyBitwise);
//   - overlapping fixes: the higher-priority one is kept (bitwise before ulp
//     before reassociating before fast-math, then file order) and the other
//     dropped with a note naming both;
//   - a file that changed since it was parsed is never written;
//   - a rewritten file is syntax-checked (clang, host and device side, with
//     the file's own compile command) and each touched kernel, extracted with
//     its context, is compiled with NVRTC; fixes that break either are
//     dropped with a note saying why, and the file is written without them;
//   - files are written to a temporary file in the same folder and renamed.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_RULES_APPLYFIXES_H
#define CUDAL1_RULES_APPLYFIXES_H

#include "cudal1/Analysis/Finding.h"
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace cudal1 {

struct ApplyOptions {
  bool InPlace = false;    ///< --fix
  std::string OutputDir;   ///< -o <dir> ("" = none)
  bool Diff = false;       ///< --diff
  std::string ExportFixes; ///< --export-fixes=<yaml> ("" = none)

  bool AllowUnverified = false; ///< --allow-unverified
  bool AllowFastMath = false;   ///< --allow-fast-math
  /// Checks a non-bitwise fix on the GPU (--verify=run); true = verified.
  /// Null: non-bitwise fixes need AllowUnverified.
  std::function<bool(const Finding &, std::string &Why)> Verify;
  /// With Verify: bitwise fixes are checked by it too (--verify=run applies
  /// only what was verified correct and faster, DESIGN.md).
  bool VerifyBitwise = false;

  /// Syntax-check rewritten files with clang (host and device side).
  bool CheckCompiles = true;
  /// With CheckCompiles: also compile every touched kernel, extracted with
  /// its context, with NVRTC (when libnvrtc can be loaded).
  bool CheckNvrtc = true;
  /// The clang command line used to parse a main file (Frontend::commandFor).
  std::function<std::vector<std::string>(const std::string &File)> CommandFor;
  /// The main files parsed (headers are checked through the main files).
  std::vector<std::string> MainFiles;
  /// For NVRTC checks (when available) and the export's BuildDirectory.
  std::string CudaPath, GpuArch = "sm_90", BuildDirectory;

  /// Composition rounds (docs/fixes.md, "Composition"): the texts to start
  /// from instead of the files on disk (the previous round's result; these
  /// are not checked against their parse).
  std::map<std::string, std::string> Base;
  /// When set, nothing is written, diffed or exported: the rewritten
  /// contents of each changed file go here (a composition round).
  std::map<std::string, std::string> *Result = nullptr;
  /// Every fix given was judged eligible by the caller (the final write of
  /// a composition: each one was checked in its round): no eligibility
  /// checks.
  bool Decided = false;
  /// Eligibility of a composition round after the first under
  /// --verify=run: fixes that are not bitwise are allowed (the composed
  /// kernel is verified against the original at the end), fixes that need
  /// a measurement of their own are not.
  bool VerifiedLater = false;

  bool Quiet = false;
  /// How many of the user's fixes each finding given stands for, in the
  /// note that counts what was applied (a composed kernel's fix: all the
  /// fixes of its rounds). Empty: one each.
  std::vector<unsigned> FixCounts;
  /// Where --diff goes (default: stdout).
  llvm::raw_ostream *DiffOut = nullptr;
};

/// What happened to one fix.
struct FixOutcome {
  const Finding *F = nullptr;
  enum Status { Applied, NotEligible, Conflict, BrokeCompile, FileRefused };
  Status State = NotEligible;
  std::string Why;
};

/// A fix in host code only, proven bitwise exact by the analysis and not
/// waiting for a measurement: --verify=run applies it as plain --fix does
/// (nothing of the user's runs on a GPU for it), and it goes before other
/// fixes when edits overlap.
bool hostProvenFix(const FixIt &X);

/// Applies the fixes of \p Findings as \p Opts says. Notes about fixes not
/// applied go to stderr. Returns the exit status: 0, or 2 when a file could
/// not be read or written or was refused because it changed since parsing.
int applyFixes(const std::vector<Finding> &Findings, const ApplyOptions &Opts,
               std::vector<FixOutcome> *Outcomes = nullptr);

/// An edit of a composition of rounds, in the coordinates of the original
/// text of its file, with the kernels whose fixes made it.
struct ComposedEdit {
  TextEdit Edit;
  std::set<std::string> Kernels;
};

/// Adds \p E, an edit in the coordinates of the text \p Done gives when
/// applied to \p Original, to \p Done (sorted, non-overlapping, in the
/// coordinates of \p Original). An edit that touches earlier ones is merged
/// with them into one edit of the original text whose replacement is what
/// the composed text has there.
void composeEdit(std::vector<ComposedEdit> &Done, const std::string &Original,
                 const TextEdit &E, const std::string &Kernel);

/// The text \p Done gives from \p Original (edits of one file).
std::string applyComposed(const std::vector<ComposedEdit> &Done,
                          const std::string &Original);

/// \p E, an edit of host code proven exact into which later rounds put
/// nothing but launch-shape edits of kernel \p Name (isLaunchShapeEdit; e.g.
/// a block change inside the loop launch-copy-back-pingpong rewrote), as the
/// launch edits it makes to that kernel, appended to \p Out: the grid or
/// block each launch of \p Name in the region \p E replaces in \p Original
/// had, replaced by the one its launches have in the replacement (all
/// alike). What verifying the kernel needs of it: the rest is proven. False
/// when the launches cannot be paired that way (one that cannot be told to
/// be \p Name's or not, as `(k)<<<`; none before or none after; different
/// shapes).
bool hostLaunchEdits(const TextEdit &E, const std::string &Original,
                     const std::string &Name, std::vector<TextEdit> &Out);

/// \p E (an edit of \p Text) replaces exactly the grid or the block argument
/// of a launch of kernel \p Name (its last name) in \p Text.
bool isLaunchShapeEdit(const std::string &Text, const TextEdit &E,
                       const std::string &Name);

/// Unified diff (3 lines of context) of \p Old -> \p New, labelled
/// a/<Path> and b/<Path>; "" when equal.
std::string unifiedDiff(const std::string &Path, const std::string &Old,
                        const std::string &New);

/// The output path of \p File under \p Dir for -o: relative to the current
/// folder when \p File is under it, else its absolute path below \p Dir.
std::string outputPathFor(const std::string &Dir, const std::string &File);

} // namespace cudal1

#endif
