//===- LaunchConstants.cpp - kernel arguments every launch agrees on ------===//
#include "LaunchConstants.h"

#include "cudal1/Analysis/Rule.h"
#include "cudal1/Model/KernelInfo.h"

#include "cudal1/Analysis/AstFacts.h"
#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/CompilerInstance.h"

using namespace clang;

namespace cudal1 {

std::vector<const CallExpr *> callsOf(ASTContext &C, const FunctionDecl *Fn) {
  struct V : RecursiveASTVisitor<V> {
    const FunctionDecl *Fn;
    std::vector<const CallExpr *> Out;
    bool shouldVisitTemplateInstantiations() const { return true; }
    bool VisitCallExpr(CallExpr *E) {
      if (const FunctionDecl *D = E->getDirectCallee())
        if (D->getCanonicalDecl() == Fn->getCanonicalDecl())
          Out.push_back(E);
      return true;
    }
  } Vis;
  Vis.Fn = Fn;
  Vis.TraverseDecl(C.getTranslationUnitDecl());
  return Vis.Out;
}

/// \p Arg (at \p Site, a call or launch in a host function) may take
/// different values at different executions of \p Site: a variable it
/// reads is changed in a loop around \p Site (srad's `mul = mul *
/// NUMBER_THREADS` after each launch), or, for a parameter of the host
/// function, so at one of its calls (three calls up). The kernel model
/// evaluates such an argument once, with the value before the loop.
static bool variesAcrossRuns(ASTContext &C, const Stmt *Site, const Expr *Arg,
                             unsigned Depth) {
  std::set<const VarDecl *> Read;
  forEachStmt(Arg, [&](const Stmt *S) {
    if (const auto *D = dyn_cast<DeclRefExpr>(S))
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
        Read.insert(V);
  });
  if (Read.empty())
    return false;
  DynTypedNode N = DynTypedNode::create(*Site);
  const FunctionDecl *Host = nullptr;
  for (unsigned I = 0; I < 256; ++I) {
    auto Ps = C.getParents(N);
    if (Ps.empty())
      break;
    N = Ps[0];
    if (const auto *S = N.get<Stmt>()) {
      if (isLoop(S)) {
        for (const VarDecl *V : varsChangedIn(S))
          if (Read.count(V))
            return true;
        // A field or element of a variable the argument reads, assigned
        // in the loop (`c.s *= 8`, `s[0] *= 8`).
        bool Changed = false;
        forEachStmt(S, [&](const Stmt *X) {
          const Expr *L = nullptr;
          if (const auto *BO = dyn_cast<BinaryOperator>(X);
              BO && BO->isAssignmentOp())
            L = BO->getLHS();
          else if (const auto *UO = dyn_cast<UnaryOperator>(X);
                   UO && UO->isIncrementDecrementOp())
            L = UO->getSubExpr();
          else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(X);
                   OC && OC->isAssignmentOp() && OC->getNumArgs() > 0)
            L = OC->getArg(0);
          while (L) {
            L = L->IgnoreParenImpCasts();
            if (const auto *ME = dyn_cast<MemberExpr>(L))
              L = ME->getBase();
            else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(L))
              L = AS->getBase();
            else
              break;
          }
          if (const VarDecl *V = L ? varOf(L) : nullptr; V && Read.count(V))
            Changed = true;
        });
        if (Changed)
          return true;
      }
    } else if (const auto *FD = N.get<FunctionDecl>()) {
      Host = FD;
      break;
    }
  }
  if (!Host)
    return false;
  for (const VarDecl *V : Read) {
    const auto *P = dyn_cast<ParmVarDecl>(V);
    if (!P || P->getDeclContext() != Host)
      continue;
    if (Host->getBody() && varsWrittenIn(Host->getBody()).count(P))
      return true;
    if (Depth >= 3)
      return true;
    unsigned Idx = P->getFunctionScopeIndex();
    for (const CallExpr *Call : callsOf(C, Host))
      if (Call->getNumArgs() > Idx &&
          variesAcrossRuns(C, Call, Call->getArg(Idx), Depth + 1))
        return true;
  }
  return false;
}

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
  // One value per launch site's arguments, not per execution: an argument
  // that changes between executions (in a loop around the launch) has
  // values the model did not see.
  if (V && CC.CI) {
    ASTContext &C = CC.CI->getASTContext();
    for (const CUDAKernelCallExpr *Site : launchSitesOf(C, CC, K))
      if (Site->getNumArgs() > Idx &&
          variesAcrossRuns(C, Site, Site->getArg(Idx), 0))
        return std::nullopt;
  }
  return V;
}

} // namespace cudal1
