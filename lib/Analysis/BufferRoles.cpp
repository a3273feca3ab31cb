//===- BufferRoles.cpp - how kernels use their pointer parameters ---------===//
#include "cudal1/Analysis/BufferRoles.h"
#include "cudal1/Analysis/AccessAnalysis.h"
#include "cudal1/Model/KernelModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"

using namespace clang;

namespace cudal1 {

namespace {
/// KernelInfo::key() of the kernel (or kernel template) \p K belongs to.
std::string kernelKey(const SourceManager &SM, const FunctionDecl *K) {
  const FunctionDecl *D = K->getTemplateInstantiationPattern();
  if (!D)
    D = K;
  const FunctionTemplateDecl *FTD = D->getDescribedFunctionTemplate();
  SourceRange R = FTD ? FTD->getSourceRange() : D->getSourceRange();
  return D->getQualifiedNameAsString() + "@" +
         makeSourceLoc(SM, R.getBegin()).str();
}
} // namespace

void addBufferUses(ASTContext &Ctx, const AnalysisResults &A,
                   ProjectModel &Model) {
  std::map<std::string, KernelInfo *> ByKey;
  for (KernelInfo &K : Model.Kernels)
    ByKey[K.key()] = &K;
  std::set<KernelInfo *> Seen;
  for (const KernelAnalysis &KA : A.Kernels) {
    auto It = ByKey.find(kernelKey(Ctx.getSourceManager(), KA.Kernel));
    if (It == ByKey.end())
      continue;
    KernelInfo &K = *It->second;
    if (Seen.insert(&K).second)
      K.BufferUses.clear();
    bool UnknownWrites = KA.EscapedBases.count(nullptr);
    for (unsigned I = 0; I < KA.Kernel->getNumParams(); ++I) {
      const ParmVarDecl *P = KA.Kernel->getParamDecl(I);
      if (!P->getType()->isPointerType())
        continue;
      auto U = std::find_if(K.BufferUses.begin(), K.BufferUses.end(),
                            [&](const BufferUse &B) { return B.Param == I; });
      if (U == K.BufferUses.end()) {
        K.BufferUses.push_back(BufferUse());
        U = K.BufferUses.end() - 1;
        U->Param = I;
      }
      U->Read |= KA.ReadBases.count(P) > 0;
      U->Written |= KA.WrittenBases.count(P) > 0;
      U->Escaped |= KA.EscapedBases.count(P) > 0 || UnknownWrites;
    }
    addIndexUses(Ctx, KA, K);
  }
}

} // namespace cudal1
