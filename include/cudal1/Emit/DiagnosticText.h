//===- DiagnosticText.h - findings printed as clang diagnostics -*- C++ -*-===//
//
// The text output of findings: clang's own diagnostic printer over the files
// on disk (source line, caret, highlighted range, fix-it hints, notes), so
// editors and CI parsers that read clang's output read ours.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_EMIT_DIAGNOSTICTEXT_H
#define CUDAL1_EMIT_DIAGNOSTICTEXT_H

#include "cudal1/Analysis/Finding.h"
#include "llvm/Support/raw_ostream.h"
#include <vector>

namespace cudal1 {

/// Prints \p Findings as "file:line:col: warning: message [rule-id]" with
/// the source line, caret, ranges and fix-it hints, then each note.
void printFindingsText(const std::vector<Finding> &Findings,
                       llvm::raw_ostream &OS);

} // namespace cudal1

#endif
