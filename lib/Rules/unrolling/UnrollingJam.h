//===- UnrollingJam.h - unrolling-jam ---------------------------*- C++ -*-===//
//
// An outer loop of a few independent iterations around a loop nest:
// unroll and jam (its iterations move into the innermost loop).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_UNROLLING_UNROLLINGJAM_H
#define CUDAL1_LIB_RULES_UNROLLING_UNROLLINGJAM_H

#include "../RuleCheck.h"

namespace cudal1 {

class UnrollingJam : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;

private:
  void match(const clang::FunctionDecl *K, const FunctionFacts &F,
             const clang::ForStmt *Outer);
};

} // namespace cudal1

#endif
