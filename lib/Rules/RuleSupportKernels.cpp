//===- RuleSupportKernels.cpp - kernels, launches, writing code -----------===//
//
// The "kernels and launches" and "writing code" parts of
// cudal1/Rules/RuleSupport.h.
//
//===----------------------------------------------------------------------===//
#include "cudal1/Analysis/AstFacts.h"
#include "cudal1/Rules/BuiltinUse.h"
#include "cudal1/Frontend/UserCode.h"
#include "cudal1/Model/KernelModel.h"
#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>

using namespace clang;
using namespace llvm;

namespace cudal1 {

// --- kernels and launches ----------------------------------------------------

static bool isLocalVar(const VarDecl *V) {
  return V && V->hasLocalStorage() && !isa<ParmVarDecl>(V);
}

namespace {
/// Kernel definitions, launches and references to kernels, outside template
/// instantiations.
class KernelIndexer : public RecursiveASTVisitor<KernelIndexer> {
public:
  KernelIndexer(ASTContext &Ctx, SharedRuleFacts &F, const UserCodeFilter &U)
      : Ctx(Ctx), Facts(F), UserCode(U) {}
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->hasAttr<CUDAGlobalAttr>() && FD->doesThisDeclarationHaveABody() &&
        !FD->isTemplateInstantiation() && !isInInstantiation(FD) &&
        !FD->isInvalidDecl() && UserCode.contains(FD->getLocation()))
      Facts.Kernels.push_back(FD);
    return true;
  }
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E) {
    if (inInstantiation(E))
      return true;
    if (const FunctionDecl *Callee = E->getDirectCallee())
      Facts.Launches[kernelOf(Callee)].Sites.push_back(E);
    else
      Facts.UnresolvedLaunch = true;
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const auto *FD = dyn_cast<FunctionDecl>(E->getDecl());
    if (FD && FD->hasAttr<CUDAGlobalAttr>() && !inInstantiation(E))
      ++Facts.Launches[kernelOf(FD)].Refs;
    return true;
  }

private:
  ASTContext &Ctx;
  SharedRuleFacts &Facts;
  const UserCodeFilter &UserCode;

  static const FunctionDecl *kernelOf(const FunctionDecl *FD) {
    if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
      FD = P;
    return FD->getCanonicalDecl();
  }
  bool inInstantiation(const Stmt *S) {
    const FunctionDecl *Enc = enclosingFunction(Ctx, DynTypedNode::create(*S));
    return Enc && isInInstantiation(Enc);
  }
};
} // namespace

const SharedRuleFacts &sharedFacts(ASTContext &Ctx, const CheckContext &CC) {
  if (CC.Shared)
    return *CC.Shared;
  auto F = std::make_shared<SharedRuleFacts>();
  UserCodeFilter UserCode(Ctx.getSourceManager(), CC.IsUserFile);
  KernelIndexer(Ctx, *F, UserCode).TraverseDecl(Ctx.getTranslationUnitDecl());
  CC.Shared = F;
  return *F;
}

std::vector<const FunctionDecl *> userKernels(ASTContext &Ctx,
                                              const CheckContext &CC) {
  std::vector<const FunctionDecl *> Out;
  for (const FunctionDecl *FD : sharedFacts(Ctx, CC).Kernels)
    if (!FD->getDescribedFunctionTemplate() && !FD->isDependentContext())
      Out.push_back(FD);
  return Out;
}

std::vector<const CUDAKernelCallExpr *>
launchSitesOf(ASTContext &Ctx, const CheckContext &CC,
              const FunctionDecl *Kernel) {
  // An instantiation's launches are indexed under its template.
  if (const FunctionDecl *P = Kernel->getTemplateInstantiationPattern())
    Kernel = P;
  const auto &L = sharedFacts(Ctx, CC).Launches;
  auto It = L.find(Kernel->getCanonicalDecl());
  return It == L.end() ? std::vector<const CUDAKernelCallExpr *>()
                       : It->second.Sites;
}

bool allLaunchesVisible(ASTContext &Ctx, const CheckContext &CC,
                        const FunctionDecl *D, std::string &Why) {
  const SharedRuleFacts &F = sharedFacts(Ctx, CC);
  if (const FunctionDecl *P = D->getTemplateInstantiationPattern())
    D = P;
  auto It = F.Launches.find(D->getCanonicalDecl());
  if (It == F.Launches.end() || It->second.Sites.empty()) {
    Why = "no launch of the kernel in this file";
    return false;
  }
  if (F.UnresolvedLaunch) {
    Why = "a launch in a template is not resolved";
    return false;
  }
  if (It->second.Refs > It->second.Sites.size()) {
    Why = "the kernel's address is used other than in <<<>>> launches";
    return false;
  }
  const SourceManager &SM = Ctx.getSourceManager();
  if (D->isExternallyVisible())
    for (const FunctionDecl *R : D->redecls())
      if (!SM.isInMainFile(SM.getExpansionLoc(R->getLocation()))) {
        Why = "the kernel is declared in a header, so other files may "
              "launch it";
        return false;
      }
  return true;
}

/// \p V (a local of \p Fn) is set only by cudaMalloc-like calls: every use
/// is a read or `&V` passed as the first argument of cudaMalloc*.
static bool onlyCudaMalloced(ASTContext &Ctx, const FunctionDecl *Fn,
                             const VarDecl *V, std::string &Why) {
  if (V->getInit() && !V->getInit()->isNullPointerConstant(
                          Ctx, Expr::NPC_ValueDependentIsNotNull)) {
    Why = "'" + V->getName().str() + "' is initialised from another pointer";
    return false;
  }
  bool Allocated = false, Ok = true;
  forEachStmt(Fn->getBody(), [&](const Stmt *S) {
    if (!Ok)
      return;
    const auto *CE = dyn_cast<CallExpr>(S);
    if (CE && CE->getNumArgs() > 0) {
      const FunctionDecl *Callee = CE->getDirectCallee();
      if (Callee && Callee->getIdentifier() &&
          Callee->getName().starts_with("cudaMalloc")) {
        const Expr *A = CE->getArg(0)->IgnoreParenCasts();
        if (const auto *UO = dyn_cast<UnaryOperator>(A))
          if (UO->getOpcode() == UO_AddrOf && varOf(UO->getSubExpr()) == V)
            Allocated = true;
      }
    }
  });
  // Every other mention must be a plain read.
  std::set<const VarDecl *> W = varsWrittenIn(Fn->getBody());
  if (W.count(V)) {
    // Address taken: allowed only for the cudaMalloc calls counted above.
    unsigned AddrUses = 0, MallocUses = 0;
    forEachStmt(Fn->getBody(), [&](const Stmt *S) {
      if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
        if (UO->getOpcode() == UO_AddrOf && varOf(UO->getSubExpr()) == V)
          ++AddrUses;
        else if (UO->isIncrementDecrementOp() && varOf(UO->getSubExpr()) == V)
          Ok = false;
      }
      if (const auto *BO = dyn_cast<BinaryOperator>(S))
        if (BO->isAssignmentOp() && varOf(BO->getLHS()) == V)
          Ok = false;
      if (const auto *CE = dyn_cast<CallExpr>(S)) {
        const FunctionDecl *Callee = CE->getDirectCallee();
        if (CE->getNumArgs() > 0 && Callee && Callee->getIdentifier() &&
            Callee->getName().starts_with("cudaMalloc")) {
          const Expr *A = CE->getArg(0)->IgnoreParenCasts();
          if (const auto *UO = dyn_cast<UnaryOperator>(A))
            if (UO->getOpcode() == UO_AddrOf && varOf(UO->getSubExpr()) == V)
              ++MallocUses;
        }
      }
    });
    // The template cudaMalloc overload forwards; count the user's calls only
    // once: every &V must be a cudaMalloc argument.
    if (AddrUses > MallocUses)
      Ok = false;
  }
  if (!Ok) {
    Why = "'" + V->getName().str() +
          "' is assigned or its address is used other than by cudaMalloc";
    return false;
  }
  if (!Allocated) {
    Why = "'" + V->getName().str() + "' is not set by cudaMalloc";
    return false;
  }
  return true;
}

/// `A[c]`: an element, at a constant index, of a local array \p A of
/// pointers (`float *d[10];`) in \p Fn.
static const VarDecl *constElementOf(ASTContext &Ctx, const Expr *E,
                                     int64_t &Index) {
  const auto *AS = dyn_cast<ArraySubscriptExpr>(E->IgnoreParenImpCasts());
  if (!AS)
    return nullptr;
  const VarDecl *A = varOf(AS->getBase());
  if (!A || !isLocalVar(A) || !A->getType()->isConstantArrayType())
    return nullptr;
  auto I = evalInt(Ctx, AS->getIdx());
  if (!I)
    return nullptr;
  Index = *I;
  return A;
}

/// Every element of the local pointer array \p A is set only by
/// cudaMalloc-like calls: each mention of \p A is `A[i]` read as a value or
/// `&A[i]` as the first argument of cudaMalloc* (`for (f = 0; f < 10; f++)
/// cudaMalloc(&d[f], n)`): different elements hold different allocations.
static bool onlyCudaMallocedArray(ASTContext &Ctx, const FunctionDecl *Fn,
                                  const VarDecl *A, std::string &Why) {
  if (A->getInit() && !isa<InitListExpr>(A->getInit()->IgnoreImplicit())) {
    Why = "'" + A->getName().str() + "' is initialised from another array";
    return false;
  }
  if (const auto *IL = dyn_cast_or_null<InitListExpr>(
          A->getInit() ? A->getInit()->IgnoreImplicit() : nullptr))
    for (const Expr *E : IL->inits())
      if (!E->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull) &&
          !isa<ImplicitValueInitExpr>(E)) {
        Why = "'" + A->getName().str() + "' is initialised with pointers";
        return false;
      }
  unsigned Refs = 0, Ok = 0, Mallocs = 0;
  forEachStmt(Fn->getBody(), [&](const Stmt *S) {
    if (const auto *D = dyn_cast<DeclRefExpr>(S)) {
      if (D->getDecl() == A)
        ++Refs;
      return;
    }
    if (const auto *CE = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *Callee = CE->getDirectCallee();
      if (CE->getNumArgs() > 0 && Callee && Callee->getIdentifier() &&
          Callee->getName().starts_with("cudaMalloc")) {
        const Expr *Arg = CE->getArg(0)->IgnoreParenCasts();
        if (const auto *UO = dyn_cast<UnaryOperator>(Arg);
            UO && UO->getOpcode() == UO_AddrOf)
          if (const auto *AS = dyn_cast<ArraySubscriptExpr>(
                  UO->getSubExpr()->IgnoreParens()))
            if (varOf(AS->getBase()) == A) {
              ++Ok;
              ++Mallocs;
            }
      }
      return;
    }
    // A[i] read as a value.
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(S))
      if (IC->getCastKind() == CK_LValueToRValue)
        if (const auto *AS =
                dyn_cast<ArraySubscriptExpr>(IC->getSubExpr()->IgnoreParens()))
          if (varOf(AS->getBase()) == A)
            ++Ok;
  });
  // The cudaMalloc template overload forwards its argument: count the
  // user's calls once (as onlyCudaMalloced does).
  if (Mallocs == 0) {
    Why = "the elements of '" + A->getName().str() +
          "' are not set by cudaMalloc";
    return false;
  }
  if (Refs != Ok) {
    Why = "the elements of '" + A->getName().str() +
          "' are assigned or used other than by cudaMalloc and reads";
    return false;
  }
  return true;
}

namespace {
class CallerFinder : public RecursiveASTVisitor<CallerFinder> {
public:
  const FunctionDecl *Fn;
  std::vector<const CallExpr *> Found;
  bool VisitCallExpr(CallExpr *E) {
    if (isa<CUDAKernelCallExpr>(E))
      return true;
    if (const FunctionDecl *C = E->getDirectCallee())
      if (C->getCanonicalDecl() == Fn->getCanonicalDecl())
        Found.push_back(E);
    return true;
  }
};
} // namespace

/// The values of \p AP and \p AQ (arguments in host function \p Fn) point
/// into different objects: different local variables each set only by
/// cudaMalloc; a fresh cudaMalloc allocation and a parameter of \p Fn (it
/// existed before the allocation); or two parameters of \p Fn whose
/// arguments are distinct, recursively, at every call of \p Fn in the file.
static bool distinctArgs(ASTContext &Ctx, const FunctionDecl *Fn,
                         const Expr *AP, const Expr *AQ, unsigned Depth,
                         std::string &Why) {
  const VarDecl *VP = varOf(AP), *VQ = varOf(AQ);
  // Elements of a local array of cudaMalloc'ed pointers (`d[0]`, `d[7]`):
  // different constant indices are different allocations, and an element
  // is an allocation of its own against a plain fresh local or a parameter.
  int64_t IP = 0, IQ = 0;
  const VarDecl *EP = constElementOf(Ctx, AP, IP),
                *EQ = constElementOf(Ctx, AQ, IQ);
  if (EP || EQ) {
    std::string W;
    auto FreshElem = [&](const VarDecl *E) {
      return E && onlyCudaMallocedArray(Ctx, Fn, E, W);
    };
    if (EP && EQ && EP == EQ) {
      if (IP == IQ) {
        Why = "alias: passes '" + EP->getName().str() + "[" +
              std::to_string(IP) + "]' for both";
        return false;
      }
      if (FreshElem(EP))
        return true;
      Why = W;
      return false;
    }
    bool FP = EP ? FreshElem(EP) : false, FQ = EQ ? FreshElem(EQ) : false;
    std::set<const VarDecl *> Wr = varsWrittenIn(Fn->getBody());
    auto Other = [&](const VarDecl *V) {
      std::string W2;
      return V && ((isLocalVar(V) && onlyCudaMalloced(Ctx, Fn, V, W2)) ||
                   (isa<ParmVarDecl>(V) && !Wr.count(V) &&
                    V->getType()->isPointerType()));
    };
    if ((EP && EQ && FP && FQ) || (FP && !EQ && Other(VQ)) ||
        (FQ && !EP && Other(VP)))
      return true;
    Why = !W.empty() ? W
                     : "the arguments are not separate cudaMalloc allocations";
    return false;
  }
  if (!VP || !VQ) {
    Why = "the arguments are not plain variables";
    return false;
  }
  if (VP == VQ) {
    Why = "alias: passes '" + VP->getName().str() + "' for both";
    return false;
  }
  std::set<const VarDecl *> W = varsWrittenIn(Fn->getBody());
  auto IsParam = [&](const VarDecl *V) {
    return isa<ParmVarDecl>(V) && !W.count(V) && V->getType()->isPointerType();
  };
  std::string WP, WQ;
  bool FreshP = isLocalVar(VP) && onlyCudaMalloced(Ctx, Fn, VP, WP);
  bool FreshQ = isLocalVar(VQ) && onlyCudaMalloced(Ctx, Fn, VQ, WQ);
  if (FreshP && FreshQ)
    return true;
  if ((FreshP && IsParam(VQ)) || (FreshQ && IsParam(VP)))
    return true;
  if (IsParam(VP) && IsParam(VQ)) {
    if (Depth >= 3) {
      Why = "the pointers come through too many host functions";
      return false;
    }
    CallerFinder CF;
    CF.Fn = Fn;
    CF.TraverseDecl(Ctx.getTranslationUnitDecl());
    if (CF.Found.empty()) {
      Why = "'" + VP->getName().str() + "' and '" + VQ->getName().str() +
            "' are parameters of '" + Fn->getNameAsString() +
            "', which is not called in this file";
      return false;
    }
    unsigned IP = cast<ParmVarDecl>(VP)->getFunctionScopeIndex();
    unsigned IQ = cast<ParmVarDecl>(VQ)->getFunctionScopeIndex();
    for (const CallExpr *C : CF.Found) {
      const FunctionDecl *G = enclosingFunction(Ctx, DynTypedNode::create(*C));
      if (!G || !G->getBody() || C->getNumArgs() <= std::max(IP, IQ)) {
        Why = "a call of '" + Fn->getNameAsString() + "' is not analysable";
        return false;
      }
      if (!distinctArgs(Ctx, G, C->getArg(IP), C->getArg(IQ), Depth + 1, Why))
        return false;
    }
    return true;
  }
  if (!WP.empty() && !FreshP)
    Why = WP;
  else if (!WQ.empty() && !FreshQ)
    Why = WQ;
  else
    Why = "'" + VP->getName().str() + "' and '" + VQ->getName().str() +
          "' are not separate cudaMalloc allocations";
  return false;
}

bool distinctHostArgs(ASTContext &Ctx, const FunctionDecl *Fn,
                      const Expr *AP, const Expr *AQ, std::string &Why) {
  return distinctArgs(Ctx, Fn, AP, AQ, 0, Why);
}

bool provenDistinct(ASTContext &Ctx, const CheckContext &CC,
                    const FunctionDecl *K, const ParmVarDecl *P,
                    const ParmVarDecl *Q, std::string &How, std::string &Why) {
  if (P == Q) {
    Why = "both accesses go through '" + P->getName().str() + "'";
    return false;
  }
  for (const ParmVarDecl *R : {P, Q})
    if (R->getType().isRestrictQualified()) {
      How = "'" + R->getName().str() + "' is __restrict__";
      return true;
    }
  auto Sites = launchSitesOf(Ctx, CC, K);
  if (Sites.empty()) {
    Why = "'" + P->getName().str() + "' and '" + Q->getName().str() +
          "' may alias: they are not __restrict__ and no launch site of '" +
          K->getName().str() + "' is visible in this file";
    return false;
  }
  unsigned PI = P->getFunctionScopeIndex(), QI = Q->getFunctionScopeIndex();
  for (const CUDAKernelCallExpr *Site : Sites) {
    std::string Loc =
        makeSourceLoc(Ctx.getSourceManager(), Site->getBeginLoc()).str();
    if (Site->getNumArgs() <= std::max(PI, QI)) {
      Why = "the launch at " + Loc + " has too few arguments";
      return false;
    }
    const FunctionDecl *Fn =
        enclosingFunction(Ctx, DynTypedNode::create(*Site));
    if (!Fn || !Fn->getBody()) {
      Why = "the function launching at " + Loc + " is not visible";
      return false;
    }
    std::string W;
    if (!distinctArgs(Ctx, Fn, Site->getArg(PI), Site->getArg(QI), 0, W)) {
      Why = "'" + P->getName().str() + "' and '" + Q->getName().str() +
            "' may alias at the launch at " + Loc + ": " + W;
      if (W.rfind("alias:", 0) == 0)
        Why = "'" + P->getName().str() + "' and '" + Q->getName().str() +
              "' alias: the launch at " + Loc + W.substr(6);
      return false;
    }
  }
  How = "every launch site in this file passes separate cudaMalloc "
        "allocations for '" +
        P->getName().str() + "' and '" + Q->getName().str() + "'";
  return true;
}

bool pointerArgsDistinct(ASTContext &Ctx, const CheckContext &CC,
                         const FunctionDecl *Kernel, std::string &Why) {
  if (!allLaunchesVisible(Ctx, CC, Kernel, Why))
    return false;
  for (const CUDAKernelCallExpr *L : launchSitesOf(Ctx, CC, Kernel)) {
    const FunctionDecl *Host = enclosingFunction(Ctx, DynTypedNode::create(*L));
    const FunctionDecl *Callee = L->getDirectCallee();
    if (!Host || !Host->getBody() || !Callee) {
      Why = "a launch is not analysable";
      return false;
    }
    std::vector<unsigned> Ptrs;
    for (unsigned I = 0; I < L->getNumArgs() && I < Callee->getNumParams(); ++I)
      if (Callee->getParamDecl(I)->getType()->isPointerType())
        Ptrs.push_back(I);
    for (size_t A = 0; A < Ptrs.size(); ++A)
      for (size_t B = A + 1; B < Ptrs.size(); ++B)
        if (!distinctArgs(Ctx, Host, L->getArg(Ptrs[A]), L->getArg(Ptrs[B]), 0,
                          Why)) {
          if (StringRef(Why).starts_with("alias: "))
            Why = Why.substr(7);
          return false;
        }
  }
  return true;
}

std::vector<const ParmVarDecl *> pointerParams(const FunctionDecl *FD) {
  std::vector<const ParmVarDecl *> Out;
  for (const ParmVarDecl *P : FD->parameters()) {
    QualType T = P->getType();
    if (T->isPointerType() && !T->getPointeeType()->isFunctionType())
      Out.push_back(P);
  }
  return Out;
}

PointerTypeLoc pointerTypeLoc(const ParmVarDecl *P) {
  TypeSourceInfo *TSI = P->getTypeSourceInfo();
  if (!TSI)
    return PointerTypeLoc();
  TypeLoc TL = TSI->getTypeLoc();
  while (true) {
    if (auto Q = TL.getAs<QualifiedTypeLoc>()) {
      TL = Q.getUnqualifiedLoc();
      continue;
    }
    if (auto A = TL.getAs<AttributedTypeLoc>()) {
      TL = A.getModifiedLoc();
      continue;
    }
    if (auto P2 = TL.getAs<ParenTypeLoc>()) {
      TL = P2.getInnerLoc();
      continue;
    }
    break;
  }
  return TL.getAs<PointerTypeLoc>();
}

std::optional<std::array<uint64_t, 3>>
constantBlock(const CheckContext &CC, const FunctionDecl *K, std::string &Why) {
  if (!CC.Model) {
    Why = "no kernel model (launch sites unknown)";
    return std::nullopt;
  }
  std::string QN = K->getQualifiedNameAsString();
  std::optional<std::array<uint64_t, 3>> Block;
  unsigned N = 0;
  for (const LaunchSite &S : CC.Model->LaunchSites) {
    if (S.Kernel != QN)
      continue;
    ++N;
    std::optional<std::array<uint64_t, 3>> Dim = S.Block.Dim;
    // Not a constant expression, but one value on every path the model
    // follows to the launch within its own function (`dim3 b; b.x =
    // THREADS;` before it); not a value that comes in through the
    // function's parameters, which callers in other files may pass too.
    if (!Dim && !S.Values.empty() && S.ValuesNote.empty())
      for (const LaunchValues &LV : S.Values) {
        if (LV.Block.Kind != ValueInfo::Dim || !LV.Block.known() ||
            !LV.Path.empty() || (Dim && *Dim != LV.Block.Dims)) {
          Dim.reset();
          break;
        }
        Dim = LV.Block.Dims;
      }
    if (!Dim) {
      Why = "the block size at the launch at " + S.Loc.str() + " ('" +
            S.Block.Text + "') is not a compile-time constant";
      return std::nullopt;
    }
    if (Block && *Block != *Dim) {
      Why = "the launch sites use different block sizes";
      return std::nullopt;
    }
    Block = Dim;
  }
  if (!N) {
    Why = "no launch site of '" + K->getName().str() +
          "' is visible in this file, so its block size is unknown";
    return std::nullopt;
  }
  return Block;
}

namespace {
/// Walks a kernel and its callees for builtinUse.
class BuiltinWalker {
public:
  BuiltinWalker(const ASTContext &Ctx, BuiltinUse &U)
      : SM(Ctx.getSourceManager()), U(U) {}

  void function(const FunctionDecl *FD) {
    if (!FD || !Seen.insert(FD->getCanonicalDecl()).second)
      return;
    const FunctionDecl *Def = FD->getDefinition();
    if (!Def || !Def->hasBody()) {
      unknown("it calls '" + FD->getNameAsString() +
              "', whose body is not visible here");
      return;
    }
    if (const auto *C = dyn_cast<CXXConstructorDecl>(Def))
      for (const CXXCtorInitializer *I : C->inits())
        walk(I->getInit());
    walk(Def->getBody());
  }

private:
  const SourceManager &SM;
  BuiltinUse &U;
  std::set<const FunctionDecl *> Seen;

  void unknown(const std::string &Why) {
    if (U.Unknown.empty())
      U.Unknown = Why;
  }
  void read(const std::string &Name, const Expr *E) {
    U.Reads.emplace(Name, E);
  }
  void callee(const Expr *Call, const FunctionDecl *FD) {
    if (!FD) {
      unknown("it calls a function through a pointer");
      return;
    }
    StringRef N = FD->getIdentifier() ? FD->getName() : "";
    const auto *CE = dyn_cast<CallExpr>(Call);
    if (CE && (N.starts_with("atomic") || N.starts_with("__atomic") ||
               N.starts_with("__nv_atomic") ||
               N.starts_with("__nvvm_atom")) && !U.Atomic)
      U.Atomic = CE;
    if (CE && !U.WarpOp &&
        (N.starts_with("__shfl") || N.starts_with("__ballot") ||
         N.starts_with("__any") || N.starts_with("__all") ||
         N == "__activemask" || N.starts_with("__match") ||
         N.starts_with("__reduce") || N == "__syncwarp"))
      U.WarpOp = CE;
    if (CE && !U.BarrierCount &&
        (N == "__syncthreads_count" || N == "__syncthreads_and" ||
         N == "__syncthreads_or"))
      U.BarrierCount = CE;
    if (FD->getBuiltinID() || FD->isImplicit() || FD->isDefaulted())
      return;
    if (SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation()))) {
      std::string Q = FD->getQualifiedNameAsString();
      for (StringRef Lib : {"cooperative_groups::", "cub::", "thrust::",
                            "cuda::", "cuda_cub::"})
        if (StringRef(Q).starts_with(Lib) ||
            StringRef(Q).contains("::" + Lib.str())) {
          unknown("it calls '" + Q +
                  "', library code that may read the thread index");
          return;
        }
      return; // CUDA's math and intrinsics: no thread index
    }
    function(FD);
  }
  void walk(const Stmt *S) {
    if (!S)
      return;
    if (const auto *E = dyn_cast<Expr>(S)) {
      std::string B = builtinName(E);
      if (!B.empty()) {
        read(B, E);
        return;
      }
    }
    if (const auto *PO = dyn_cast<PseudoObjectExpr>(S)) {
      walk(PO->getSyntacticForm());
      return;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
      const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
      if (V && V->getIdentifier() &&
          SM.isInSystemHeader(SM.getExpansionLoc(V->getLocation()))) {
        StringRef N = V->getName();
        if (N == "threadIdx" || N == "blockIdx" || N == "blockDim" ||
            N == "gridDim")
          for (const char *C : {".x", ".y", ".z"})
            read(N.str() + C, DRE);
      }
      return;
    }
    if (isa<GCCAsmStmt>(S) || isa<MSAsmStmt>(S))
      unknown("it uses inline assembly");
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          walk(V->getInit());
      return;
    }
    if (const auto *CE = dyn_cast<CallExpr>(S)) {
      if (!isa<CUDAKernelCallExpr>(CE))
        callee(CE, CE->getDirectCallee());
    } else if (const auto *CC = dyn_cast<CXXConstructExpr>(S)) {
      callee(CC, CC->getConstructor());
    }
    for (const Stmt *C : S->children())
      walk(C);
  }
};
} // namespace

BuiltinUse builtinUse(const ASTContext &Ctx, const FunctionDecl *Kernel) {
  BuiltinUse U;
  BuiltinWalker(Ctx, U).function(Kernel);
  return U;
}

std::string redundantBlockDimsWhy(const ASTContext &Ctx,
                                  const FunctionDecl *Kernel,
                                  const std::array<uint64_t, 3> &Block) {
  if (Block[1] <= 1 && Block[2] <= 1)
    return "";
  BuiltinUse U = builtinUse(Ctx, Kernel);
  if (!U.Unknown.empty() || U.reads("threadIdx.y") || U.reads("threadIdx.z"))
    return "";
  std::string Shape = std::to_string(Block[0]) + "x" +
                      std::to_string(Block[1]) +
                      (Block[2] > 1 ? "x" + std::to_string(Block[2]) : "");
  return "the block is " + Shape +
         " but the kernel reads only threadIdx.x: " +
         std::to_string(Block[1] * Block[2]) +
         " threads per element do the same work (launch-redundant-threads "
         "launches each once; with a one-dimensional block this rule "
         "applies)";
}

// --- writing code ------------------------------------------------------------

/// Just past statement \p S, including its ';' when it has one.
SourceLocation stmtEnd(ASTContext &Ctx, const Stmt *S) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  SourceLocation E = SM.getExpansionLoc(S->getEndLoc());
  const Stmt *Last = S;
  while (true) {
    if (const auto *F = dyn_cast<ForStmt>(Last))
      Last = F->getBody();
    else if (const auto *W = dyn_cast<WhileStmt>(Last))
      Last = W->getBody();
    else if (const auto *I = dyn_cast<IfStmt>(Last))
      Last = I->getElse() ? I->getElse() : I->getThen();
    else if (const auto *R = dyn_cast<CXXForRangeStmt>(Last))
      Last = R->getBody();
    else if (const auto *A = dyn_cast<AttributedStmt>(Last))
      Last = A->getSubStmt(); // `#pragma unroll` before a loop
    else if (const auto *Lb = dyn_cast<LabelStmt>(Last))
      Last = Lb->getSubStmt();
    else
      break;
  }
  if (isa<CompoundStmt>(Last))
    return Lexer::getLocForEndOfToken(E, 0, SM, LO);
  SourceLocation A = Lexer::findLocationAfterToken(E, tok::semi, SM, LO, false);
  return A.isValid() ? A : Lexer::getLocForEndOfToken(E, 0, SM, LO);
}

SourceLocation afterStmt(ASTContext &Ctx, const Stmt *S) {
  if (!isa<DeclStmt>(S))
    return stmtEnd(Ctx, S);
  const SourceManager &SM = Ctx.getSourceManager();
  return Lexer::getLocForEndOfToken(SM.getExpansionLoc(S->getEndLoc()), 0, SM,
                                    Ctx.getLangOpts());
}

std::string reindent(const std::string &Text, const std::string &Extra) {
  std::string R;
  for (char Ch : Text) {
    R += Ch;
    if (Ch == '\n')
      R += Extra;
  }
  return R;
}

std::string warpShuffleSum(const std::string &Indent, const std::string &Var) {
  return Indent + "for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)\n" +
         Indent + "  " + Var + " += __shfl_down_sync(0xffffffffu, " + Var +
         ", cudal1_o);";
}

std::string indentOf(const ASTContext &Ctx, SourceLocation L) {
  const SourceManager &SM = Ctx.getSourceManager();
  L = SM.getExpansionLoc(L);
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(SM.getFileID(L), &Invalid);
  if (Invalid)
    return "";
  unsigned Off = SM.getFileOffset(L);
  unsigned B = Off;
  while (B > 0 && Buf[B - 1] != '\n')
    --B;
  unsigned E = B;
  while (E < Buf.size() && (Buf[E] == ' ' || Buf[E] == '\t'))
    ++E;
  return Buf.substr(B, E - B).str();
}

std::optional<std::string> lineIndent(const ASTContext &Ctx, SourceLocation L) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (L.isMacroID())
    return std::nullopt;
  auto [FID, Off] = SM.getDecomposedLoc(L);
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(FID, &Invalid);
  if (Invalid)
    return std::nullopt;
  size_t Start = Buf.rfind('\n', Off == 0 ? 0 : Off - 1);
  Start = Start == StringRef::npos ? 0 : Start + 1;
  if (Off < Start)
    Start = Off;
  StringRef Pre = Buf.slice(Start, Off);
  if (!Pre.trim().empty())
    return std::nullopt;
  return Pre.str();
}

/// Every name declared or referred to in \p FD.
static std::set<std::string> namesIn(const FunctionDecl *FD) {
  std::set<std::string> Names;
  for (const ParmVarDecl *P : FD->parameters())
    Names.insert(P->getName().str());
  forEachStmt(FD->getBody(), [&](const Stmt *S) {
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *ND = dyn_cast<NamedDecl>(D))
          if (ND->getIdentifier())
            Names.insert(ND->getName().str());
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      if (DRE->getDecl()->getIdentifier())
        Names.insert(DRE->getDecl()->getName().str());
  });
  return Names;
}

std::string uniqueName(const FunctionDecl *FD, const std::string &Base) {
  std::set<std::string> Names = namesIn(FD);
  if (!Names.count(Base))
    return Base;
  for (unsigned I = 2;; ++I) {
    std::string N = Base + std::to_string(I);
    if (!Names.count(N))
      return N;
  }
}

std::string freshName(ASTContext &Ctx, const CheckContext &CC,
                      const FunctionDecl *FD, StringRef Base) {
  std::set<std::string> Used = namesIn(FD);
  std::set<std::string> &Generated =
      sharedFacts(Ctx, CC).GeneratedNames[FD->getCanonicalDecl()];
  Used.insert(Generated.begin(), Generated.end());
  std::string N = Base.str();
  for (unsigned I = 2; Used.count(N); ++I)
    N = Base.str() + "_" + std::to_string(I);
  Generated.insert(N);
  return N;
}

std::string rewrittenText(
    const ASTContext &Ctx, const Stmt *E,
    const std::vector<std::pair<const Stmt *, std::string>> &Replacements) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E->getSourceRange()), SM, LO);
  if (R.isInvalid())
    return "";
  unsigned B = SM.getFileOffset(R.getBegin()),
           End = SM.getFileOffset(R.getEnd());
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(SM.getFileID(R.getBegin()), &Invalid);
  if (Invalid)
    return "";
  struct Rep {
    unsigned Off, Len;
    std::string Text;
  };
  std::vector<Rep> Reps;
  for (const auto &[Sub, Text] : Replacements) {
    CharSourceRange SR = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Sub->getSourceRange()), SM, LO);
    if (SR.isInvalid())
      return "";
    unsigned SB = SM.getFileOffset(SR.getBegin()),
             SE = SM.getFileOffset(SR.getEnd());
    if (SB < B || SE > End ||
        SM.getFileID(SR.getBegin()) != SM.getFileID(R.getBegin()))
      return "";
    Reps.push_back({SB - B, SE - SB, Text});
  }
  std::sort(Reps.begin(), Reps.end(),
            [](const Rep &A, const Rep &B) { return A.Off > B.Off; });
  std::string S = Buf.substr(B, End - B).str();
  unsigned Prev = S.size() + 1;
  for (const Rep &Rp : Reps) {
    if (Rp.Off + Rp.Len > Prev)
      return ""; // overlapping
    S.replace(Rp.Off, Rp.Len, Rp.Text);
    Prev = Rp.Off;
  }
  return S;
}

const Expr *writtenLaunchDim(const Expr *E) {
  for (unsigned I = 0; I < 8 && E; ++I) {
    E = E->IgnoreParenImpCasts();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = M->getSubExpr();
      continue;
    }
    if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E)) {
      E = B->getSubExpr();
      continue;
    }
    if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = FC->getSubExpr();
      continue;
    }
    if (const auto *C = dyn_cast<CXXConstructExpr>(E);
        C && !isa<CXXTemporaryObjectExpr>(C) && C->getNumArgs() >= 1 &&
        (C->getNumArgs() == 1 || isa<CXXDefaultArgExpr>(C->getArg(1)))) {
      // Implicit conversion (int -> dim3) or copy; `dim3 b(32)` is written.
      if (C->getParenOrBraceRange().isValid())
        return E;
      E = C->getArg(0);
      continue;
    }
    break;
  }
  return E;
}

std::optional<std::vector<const Expr *>>
writtenDimComponents(const Expr *W) {
  std::vector<const Expr *> Args;
  if (const auto *C = dyn_cast<CXXConstructExpr>(W)) {
    if (C->getNumArgs() == 0 || C->getNumArgs() > 3 ||
        !C->getArg(0)->getType()->isIntegralOrEnumerationType())
      return std::nullopt;
    for (const Expr *A : C->arguments()) {
      if (isa<CXXDefaultArgExpr>(A))
        break;
      Args.push_back(A);
    }
    return Args;
  }
  if (const auto *IL = dyn_cast<InitListExpr>(W)) {
    if (IL->getNumInits() > 3)
      return std::nullopt;
    for (const Expr *A : IL->inits())
      if (!A->getType()->isIntegralOrEnumerationType())
        return std::nullopt;
    return std::vector<const Expr *>(IL->inits().begin(), IL->inits().end());
  }
  return std::nullopt;
}

} // namespace cudal1
