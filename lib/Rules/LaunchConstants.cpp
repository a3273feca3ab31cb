//===- LaunchConstants.cpp - kernel arguments every launch agrees on ------===//
#include "LaunchConstants.h"

#include "cudal1/Analysis/Rule.h"
#include "cudal1/Model/KernelInfo.h"

#include "clang/AST/Decl.h"

using namespace clang;

namespace cudal1 {

/// The value every launch of \p K passes for parameter \p P, when all the
/// model's evaluated launches of the file agree on one integer; \p Sites
/// counts the launches.
std::optional<int64_t> launchConstant(const CheckContext &CC,
                                      const FunctionDecl *K,
                                      const ParmVarDecl *P, unsigned &Sites) {
  if (!CC.Model)
    return std::nullopt;
  unsigned Idx = P->getFunctionScopeIndex();
  std::string QN = K->getQualifiedNameAsString();
  std::optional<int64_t> V;
  Sites = 0;
  for (const LaunchSite &S : CC.Model->LaunchSites) {
    if (S.Kernel != QN)
      continue;
    ++Sites;
    if (S.Values.empty())
      return std::nullopt;
    for (const LaunchValues &LV : S.Values) {
      if (Idx >= LV.Args.size())
        return std::nullopt;
      const ValueInfo &A = LV.Args[Idx];
      if (A.Kind != ValueInfo::Integer || !A.known())
        return std::nullopt;
      if (V && *V != A.Int)
        return std::nullopt;
      V = A.Int;
    }
  }
  return V;
}

} // namespace cudal1
