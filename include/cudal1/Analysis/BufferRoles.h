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

struct KernelAnalysis;
/// Adds to the BufferUses of \p K (already listing every pointer parameter)
/// the accesses of \p KA whose element index depends on values loaded from
/// integer buffers (BufferUse::IndexUses; lib/Analysis/IndexFlow.cpp).
/// Called by addBufferUses.
void addIndexUses(clang::ASTContext &Ctx, const KernelAnalysis &KA,
                  KernelInfo &K);

/// Sets BufferUse::NonNegativeUse of the float buffers of \p K whose
/// loaded values reach a square root or logarithm through + * / only.
/// Called by addBufferUses.
void addDomainUses(clang::ASTContext &Ctx, const KernelAnalysis &KA,
                   KernelInfo &K);

} // namespace cudal1

#endif
