//===- CoalescingThreadMappingSwap.h - coalescing-thread-mapping-swap -*- C++
//-*-===//
//
// 2-D kernels whose accesses run along the slow dimension: x and y swapped
// in the kernel and at every launch site.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_COALESCING_COALESCINGTHREADMAPPINGSWAP_H
#define CUDAL1_LIB_RULES_COALESCING_COALESCINGTHREADMAPPINGSWAP_H

#include "../RuleCheck.h"

namespace cudal1 {

class CoalescingThreadMappingSwap : public RuleCheck {
public:
  RuleInfo info() const override;

protected:
  void checkKernel(const KernelUnit &Kernel) override;

private:
  void runOn(clang::ASTContext &Ctx, const CheckContext &CC,
             const clang::FunctionDecl *K, const FunctionFacts &F,
             const KernelAnalysis *KA, std::vector<Finding> &Out);
};

} // namespace cudal1

#endif
