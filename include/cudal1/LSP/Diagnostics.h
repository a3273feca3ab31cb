//===- Diagnostics.h - findings as LSP diagnostics and code actions -*- C++
//-*-===//
//
// The shapes clangd gives its diagnostics, filled from the pipeline's
// findings (cudal1/Analysis/Finding.h):
//   - a Diagnostic per finding: range in UTF-16 positions, severity, code =
//     rule id, codeDescription.href = the rule's page, source "cuda-l1",
//     relatedInformation from the notes (with a location), and data naming
//     the finding for textDocument/codeAction;
//   - one Diagnostic for a file that does not parse, at clang's first error,
//     every error as related information (the rules never run on such a
//     file: their findings and fixes would be guesses);
//   - code actions: the rule's fix as a "quickfix" with the same edits
//     --fix applies when it is proven and bitwise exact and needs no
//     measurement, otherwise a command that verifies it on the GPU first;
//     and NOLINT / NOLINTNEXTLINE suppressions.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LSP_DIAGNOSTICS_H
#define CUDAL1_LSP_DIAGNOSTICS_H

#include "cudal1/Analysis/Finding.h"
#include "cudal1/Frontend/Frontend.h"
#include "cudal1/LSP/Text.h"

#include "llvm/Support/JSON.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudal1 {
namespace lsp {

/// The command that verifies a fix on the GPU and applies it when accepted.
inline const char *verifyFixCommand() { return "cuda-l1.verifyFix"; }

/// The current text of a file: the open document's, else the file on disk;
/// std::nullopt when it cannot be read.
using TextLookup =
    std::function<std::optional<std::string>(const std::string &)>;

/// The highlighted range of \p F in \p Text (the text of F.Loc.File): from
/// the caret to the end of RangeEnd's character, else over the token at the
/// caret (at least one character).
Range findingRange(const Finding &F, llvm::StringRef Text);

/// The diagnostic of finding \p F of document \p Doc (\p Index: its place in
/// the document's findings, carried in data with the version).
llvm::json::Value findingDiagnostic(const Finding &F, size_t Index,
                                    const TextDocument &Doc,
                                    const TextLookup &Lookup,
                                    llvm::StringRef DocsBase);

/// The diagnostic of a document that does not parse, from the frontend's
/// problems for it.
llvm::json::Value parseFailureDiagnostic(const std::vector<ParseProblem> &Ps,
                                         const TextDocument &Doc,
                                         const TextLookup &Lookup);

/// How a finding's fix is offered.
enum class FixOffer {
  None,   ///< no fix
  Apply,  ///< proven, bitwise, no measurement needed: a plain quick fix
  Verify, ///< anything else: verified on the GPU before it is applied
};
FixOffer fixOffer(const Finding &F);

/// What the code actions need to know besides the finding.
struct ActionContext {
  const TextDocument *Doc = nullptr;
  TextLookup Lookup;
  /// The open documents' versions by path (for versioned edits).
  std::map<std::string, int64_t> OpenVersions;
  /// The client takes documentChanges (versioned edits).
  bool DocumentChanges = false;
  /// The client shows disabled actions with their reason.
  bool DisabledSupport = false;
  /// --verify-on-gpu was given: the GPU command is enabled.
  bool GpuConfigured = false;
};

/// The code actions for finding \p F (already known to be in the range the
/// client asked about): its fix, then the suppressions.
std::vector<llvm::json::Value> codeActions(const Finding &F,
                                           const llvm::json::Value &Diagnostic,
                                           const ActionContext &C);

/// A workspace edit making \p Edits (byte offsets in each file's current
/// text); std::nullopt (\p Error set) when a file's text cannot be read or
/// an edit lies outside it.
std::optional<llvm::json::Value>
workspaceEdit(const std::vector<TextEdit> &Edits, const ActionContext &C,
              std::string &Error);

/// The suppression comment edits for \p Rule on 1-based line \p Line of
/// \p Text: appending " // NOLINT(<rule>)" to the line (or adding the rule
/// to a NOLINT(...) already there), and a "// NOLINTNEXTLINE(<rule>)" line
/// above it with the line's indentation. Either is std::nullopt where the
/// comment would break a macro's line continuation.
std::optional<TextEdit> nolintEdit(llvm::StringRef Text, unsigned Line,
                                   llvm::StringRef Rule,
                                   const std::string &File);
std::optional<TextEdit> nolintNextLineEdit(llvm::StringRef Text, unsigned Line,
                                           llvm::StringRef Rule,
                                           const std::string &File);

} // namespace lsp
} // namespace cudal1

#endif
