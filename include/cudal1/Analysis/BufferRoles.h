//===- BufferRoles.h - how kernels use their pointer parameters --*- C++ -*-===//
//
// The access analysis (AccessAnalysis.h) as plain data for the model: per
// kernel and pointer parameter, whether the kernel reads it, writes it, or
// passes it where the analysis cannot follow (KernelInfo::BufferUses). The
// harness inference takes buffer roles from it, not from `const`.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_ANALYSIS_BUFFERROLES_H
#define CUDAL1_ANALYSIS_BUFFERROLES_H

#include "cudal1/Model/KernelInfo.h"

namespace clang {
class ASTContext;
}

namespace cudal1 {

class AnalysisResults;

/// Fills KernelInfo::BufferUses for every kernel of \p Model that \p A
/// analysed (a template: merged over its instantiations).
void addBufferUses(clang::ASTContext &Ctx, const AnalysisResults &A,
                   ProjectModel &Model);

} // namespace cudal1

#endif
