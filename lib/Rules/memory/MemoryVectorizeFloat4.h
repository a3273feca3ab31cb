//===- MemoryVectorizeFloat4.h - memory-vectorize-float4 --------*- C++ -*-===//
//
// Element-wise float kernels: float4 loads and stores with a run-time
// alignment check and a scalar tail.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_MEMORY_MEMORYVECTORIZEFLOAT4_H
#define CUDAL1_LIB_RULES_MEMORY_MEMORYVECTORIZEFLOAT4_H

#include "../RuleCheck.h"

namespace cudal1 {

class MemoryVectorizeFloat4 : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;

private:
  void runOn(clang::ASTContext &Ctx, const CheckContext &CC,
             const clang::FunctionDecl *K, const FunctionFacts &F,
             std::vector<Finding> &Out);
};

} // namespace cudal1

#endif
