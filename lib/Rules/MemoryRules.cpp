//===- MemoryRules.cpp - const/__restrict__/__ldg, __launch_bounds__ -----===//
//
// memory-const-pointer  read-only pointer parameters of kernels -> const T *
// memory-restrict       pointer parameters -> T *__restrict__ (applied only
//                       when every launch site passes distinct allocations)
// memory-ldg            read-only loads -> __ldg(&p[i]) (offered when
//                       restrict cannot be proven)
// launch-bounds         __launch_bounds__(N) from the launch sites' constant
//                       block sizes
//
//===----------------------------------------------------------------------===//
#include "CheckBase.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "llvm/ADT/StringSet.h"

#include <map>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace cudal1 {
namespace {

/// What the kernel checks share: kernels, their launch sites, references.
struct KernelFacts {
  const FunctionDecl *Def = nullptr; ///< the written definition (pattern)
  std::vector<const CUDAKernelCallExpr *> Launches;
  unsigned Refs = 0; ///< DeclRefExprs naming the kernel
};

const FunctionDecl *kernelOf(const FunctionDecl *FD) {
  if (!FD)
    return nullptr;
  if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
    FD = P;
  return FD->getCanonicalDecl();
}

PointerTypeLoc pointerLoc(const ParmVarDecl *P) {
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

/// Is \p E, at a launch site, a variable that holds its own allocation
/// (cudaMalloc*(&v, ...), never reassigned otherwise)? Returns the variable.
const VarDecl *ownAllocation(ASTContext &Ctx, const Expr *E,
                             const FunctionDecl *Host, std::string &Why) {
  const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const VarDecl *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !V->getType()->isPointerType()) {
    Why = "argument '" + sourceText(Ctx, E->getSourceRange()) +
          "' is not a plain pointer variable";
    return nullptr;
  }
  if (V->getInit() && !V->getInit()->isNullPointerConstant(
                          Ctx, Expr::NPC_ValueDependentIsNotNull)) {
    Why = "'" + V->getName().str() + "' is initialised from another pointer";
    return nullptr;
  }
  if (!Host || !Host->getBody() || !V->isLocalVarDecl()) {
    Why = "'" + V->getName().str() + "' is not a local of the launching "
                                     "function";
    return nullptr;
  }
  unsigned Allocs = 0;
  bool Bad = false;
  struct Vis : RecursiveASTVisitor<Vis> {
    ASTContext &Ctx;
    const VarDecl *V;
    unsigned &Allocs;
    bool &Bad;
    Vis(ASTContext &C, const VarDecl *V, unsigned &A, bool &B)
        : Ctx(C), V(V), Allocs(A), Bad(B) {}
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      if (D->getDecl() != V)
        return true;
      auto P = Ctx.getParents(*D);
      const Expr *Parent = P.empty() ? nullptr : P[0].get<Expr>();
      if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(Parent);
          IC && IC->getCastKind() == CK_LValueToRValue)
        return true; // read
      if (const auto *U = dyn_cast_or_null<UnaryOperator>(Parent);
          U && U->getOpcode() == UO_AddrOf) {
        // &v, possibly cast, as the first argument of cudaMalloc*.
        const Expr *Cur = U;
        while (true) {
          auto PP = Ctx.getParents(*Cur);
          const Expr *Up = PP.empty() ? nullptr : PP[0].get<Expr>();
          if (Up && (isa<CastExpr>(Up) || isa<ParenExpr>(Up))) {
            Cur = Up;
            continue;
          }
          const auto *Call = dyn_cast_or_null<CallExpr>(Up);
          const FunctionDecl *F = Call ? Call->getDirectCallee() : nullptr;
          if (F && F->getIdentifier() && Call->getNumArgs() > 0 &&
              Call->getArg(0)->IgnoreParenCasts() == U->IgnoreParenCasts()) {
            StringRef N = F->getName();
            if (N == "cudaMalloc" || N == "cudaMallocManaged" ||
                N == "cudaMallocAsync" || N == "cudaMallocHost" ||
                N == "cudaHostAlloc" || N == "cudaMallocPitch") {
              ++Allocs;
              return true;
            }
          }
          Bad = true;
          return true;
        }
      }
      Bad = true;
      return true;
    }
  } Visitor(Ctx, V, Allocs, Bad);
  Visitor.TraverseStmt(const_cast<Stmt *>(Host->getBody()));
  if (Bad || Allocs != 1) {
    Why = "'" + V->getName().str() +
          (Bad ? "' is assigned or has its address taken other than by one "
                 "cudaMalloc"
               : "' is not allocated by exactly one cudaMalloc");
    return nullptr;
  }
  return V;
}

class KernelCheckBase : public MatcherCheck {
protected:
  void registerMatchers(MatchFinder &F) override {
    F.addMatcher(functionDecl(isDefinition(), hasAttr(attr::CUDAGlobal))
                     .bind("kernel"),
                 this);
    F.addMatcher(cudaKernelCallExpr().bind("launch"), this);
    F.addMatcher(declRefExpr(to(functionDecl(hasAttr(attr::CUDAGlobal))))
                     .bind("ref"),
                 this);
  }

  void run(const MatchFinder::MatchResult &R) override {
    if (const auto *K = R.Nodes.getNodeAs<FunctionDecl>("kernel")) {
      if (K->isTemplateInstantiation() || isInInstantiation(K))
        return;
      Kernels[K->getCanonicalDecl()].Def = K;
      Order.push_back(K->getCanonicalDecl());
    } else if (const auto *L =
                   R.Nodes.getNodeAs<CUDAKernelCallExpr>("launch")) {
      const FunctionDecl *Callee = L->getDirectCallee();
      const FunctionDecl *Enc = functionOf(*L);
      if (Enc && isInInstantiation(Enc))
        return;
      if (Callee)
        Kernels[kernelOf(Callee)].Launches.push_back(L);
      else
        UnresolvedLaunch = true;
    } else if (const auto *D = R.Nodes.getNodeAs<DeclRefExpr>("ref")) {
      const FunctionDecl *Enc = functionOf(*D);
      if (Enc && isInInstantiation(Enc))
        return;
      ++Kernels[kernelOf(cast<FunctionDecl>(D->getDecl()))].Refs;
    }
  }

  void finish() override {
    for (const FunctionDecl *K : Order) {
      KernelFacts &KF = Kernels[K];
      if (KF.Def && wanted(KF.Def->getLocation(), false))
        checkKernel(KF);
    }
    Kernels.clear();
    Order.clear();
    UnresolvedLaunch = false;
  }

  virtual void checkKernel(KernelFacts &KF) = 0;

  /// Every launch of the kernel is visible here: all its declarations are
  /// in this file (or it has internal linkage), its name is used only in
  /// <<<>>> launches, and there is at least one.
  bool allLaunchesKnown(const KernelFacts &KF, std::string &Why) {
    const SourceManager &SM = Ctx->getSourceManager();
    const FunctionDecl *D = KF.Def;
    if (KF.Launches.empty()) {
      Why = "no launch of the kernel in this file";
      return false;
    }
    if (UnresolvedLaunch) {
      Why = "a launch in a template is not resolved";
      return false;
    }
    if (KF.Refs > KF.Launches.size()) {
      Why = "the kernel's address is used other than in <<<>>> launches";
      return false;
    }
    if (D->isExternallyVisible())
      for (const FunctionDecl *R : D->redecls())
        if (!SM.isInMainFile(SM.getExpansionLoc(R->getLocation()))) {
          Why = "the kernel is declared in a header, so other files may "
                "launch it";
          return false;
        }
    return true;
  }

  /// No two pointer arguments can alias at any launch: each is a variable
  /// holding its own cudaMalloc allocation.
  bool pointerArgsDistinct(const KernelFacts &KF, std::string &Why) {
    if (!allLaunchesKnown(KF, Why))
      return false;
    for (const CUDAKernelCallExpr *L : KF.Launches) {
      const FunctionDecl *Host = functionOf(*L);
      std::set<const VarDecl *> Vars;
      const FunctionDecl *Callee = L->getDirectCallee();
      if (!Callee)
        return false;
      for (unsigned I = 0; I < L->getNumArgs() && I < Callee->getNumParams();
           ++I) {
        if (!Callee->getParamDecl(I)->getType()->isPointerType())
          continue;
        const VarDecl *V = ownAllocation(*Ctx, L->getArg(I), Host, Why);
        if (!V)
          return false;
        if (!Vars.insert(V).second) {
          Why = "'" + V->getName().str() + "' is passed twice";
          return false;
        }
      }
    }
    return true;
  }

  /// Emits \p F with the fix \p X when \p Ok, otherwise with \p Why as the
  /// reason it has none.
  void emitFixOrWhy(Finding F, bool Ok, FixIt X, const std::string &Why) {
    if (Ok)
      F.Fix = std::move(X);
    else
      F.WhyNoFix = Why;
    emit(std::move(F));
  }

  std::vector<const ParmVarDecl *> pointerParams(const FunctionDecl *FD) {
    std::vector<const ParmVarDecl *> Out;
    for (const ParmVarDecl *P : FD->parameters()) {
      QualType T = P->getType();
      if (!T->isPointerType())
        continue;
      QualType Pointee = T->getPointeeType();
      if (Pointee->isFunctionType())
        continue;
      Out.push_back(P);
    }
    return Out;
  }

  std::map<const FunctionDecl *, KernelFacts> Kernels;
  std::vector<const FunctionDecl *> Order;
  bool UnresolvedLaunch = false;
};

// ---------------------------------------------------------------------------
class ConstPointerCheck : public KernelCheckBase {
public:
  RuleInfo info() const override {
    RuleInfo I;
    I.Id = "memory-const-pointer";
    I.Category = "memory";
    I.Summary = "kernel pointer parameter only read through; declare the "
                "pointee const";
    I.Exactness = Exactness::Bitwise;
    I.Help = "A pointer the kernel never writes through can be 'const T *'. "
             "With __restrict__ as well the compiler may load through the "
             "read-only (non-coherent) data path. Adding const changes no "
             "result; every declaration of the kernel in the translation "
             "unit is changed together. The kernel's mangled name changes: a "
             "separate, hand-written declaration in another file must be "
             "updated too.";
    return I;
  }

protected:
  void checkKernel(KernelFacts &KF) override {
    ASTContext &C = *Ctx;
    const FunctionDecl *FD = KF.Def;
    if (!FD->getBody())
      return;
    ExprMutationAnalyzer EMA(*FD->getBody(), C);
    for (const ParmVarDecl *P : pointerParams(FD)) {
      QualType Pointee = P->getType()->getPointeeType();
      if (Pointee.isConstQualified() || Pointee->isVoidType() ||
          Pointee->isPointerType() || Pointee.isVolatileQualified())
        continue;
      if (EMA.isPointeeMutated(P))
        continue;
      // Also not written through in a copy: the analyzer follows those.
      unsigned Index = P->getFunctionScopeIndex();
      std::string Name = P->getName().str();
      Finding F = makeFinding(C, id(), P->getLocation(),
                              "pointer parameter '" + Name +
                                  "' is only read; declare it 'const " +
                                  Pointee.getAsString() +
                                  " *' (with __restrict__ the loads can use "
                                  "the read-only data path)",
                              FD);
      FixIt X;
      X.Description = "make the pointee of '" + Name + "' const";
      X.Exact = Exactness::Bitwise;
      bool Ok = true;
      std::string Why;
      for (const FunctionDecl *R : FD->redecls()) {
        if (Index >= R->getNumParams()) {
          Ok = false;
          break;
        }
        PointerTypeLoc PTL = pointerLoc(R->getParamDecl(Index));
        if (PTL.isNull()) {
          Ok = false;
          Why = "the parameter's type is not written as a pointer (typedef)";
          break;
        }
        SourceLocation B = PTL.getPointeeLoc().getBeginLoc();
        auto ER = editableRange(C, CharSourceRange::getCharRange(B, B), Why);
        if (!ER) {
          Ok = false;
          break;
        }
        if (!wanted(B, false)) {
          Ok = false;
          Why = "a declaration of the kernel is not in user code";
          break;
        }
        X.Edits.push_back(makeInsertion(C, ER->getBegin(), "const "));
      }
      emitFixOrWhy(std::move(F), Ok, std::move(X), Why);
    }
  }
};
CUDAL1_REGISTER_CHECK(ConstPointerCheck);

// ---------------------------------------------------------------------------
class RestrictCheck : public KernelCheckBase {
public:
  RuleInfo info() const override {
    RuleInfo I;
    I.Id = "memory-restrict";
    I.Category = "memory";
    I.Summary = "kernel pointer parameters without __restrict__; the "
                "compiler must assume they alias";
    I.Exactness = Exactness::Bitwise;
    I.Help = "Without __restrict__ every store may change what any other "
             "pointer reads, so loads cannot be reordered, kept in registers "
             "or sent through the read-only path. The fix is applied only "
             "when every launch of the kernel is in the file and passes, for "
             "each pointer, a different variable holding its own cudaMalloc "
             "allocation; otherwise it is offered, never applied "
             "automatically.";
    return I;
  }

protected:
  void checkKernel(KernelFacts &KF) override {
    ASTContext &C = *Ctx;
    const FunctionDecl *FD = KF.Def;
    auto Ptrs = pointerParams(FD);
    if (Ptrs.size() < 2)
      return;
    std::vector<const ParmVarDecl *> Missing;
    for (const ParmVarDecl *P : Ptrs)
      if (!P->getType().isRestrictQualified())
        Missing.push_back(P);
    if (Missing.empty())
      return;
    std::string Names;
    for (const ParmVarDecl *P : Missing)
      Names += (Names.empty() ? "'" : ", '") + P->getName().str() + "'";
    Finding F = makeFinding(
        C, id(), Missing.front()->getLocation(),
        "pointer parameters " + Names +
            " are not __restrict__: the compiler must assume they alias, "
            "which blocks reordering and the read-only data path",
        FD);
    std::string Why;
    bool Proven = pointerArgsDistinct(KF, Why);
    if (!Proven)
      F.Notes.push_back(makeNote(C, FD->getLocation(),
                                 "not applied automatically: no-aliasing is "
                                 "not proven (" + Why + ")"));
    FixIt X;
    X.Description = "add __restrict__ to " + Names;
    X.Exact = Exactness::Bitwise;
    X.Proven = Proven;
    bool Ok = true;
    const SourceManager &SM = C.getSourceManager();
    for (const ParmVarDecl *P : Missing) {
      unsigned Index = P->getFunctionScopeIndex();
      for (const FunctionDecl *R : FD->redecls()) {
        PointerTypeLoc PTL = pointerLoc(R->getParamDecl(Index));
        if (PTL.isNull()) {
          Ok = false;
          Why = "a parameter's type is not written as a pointer (typedef)";
          break;
        }
        SourceLocation Star = PTL.getStarLoc();
        std::string W;
        auto ER = editableRange(
            C, CharSourceRange::getTokenRange(Star, Star), W);
        if (!ER || !wanted(Star, false)) {
          Ok = false;
          Why = W.empty() ? "a declaration is not in user code" : W;
          break;
        }
        SourceLocation After = ER->getEnd();
        bool Invalid = false;
        const char *Next = SM.getCharacterData(After, &Invalid);
        bool Space = !Invalid && (*Next == ' ' || *Next == '\t');
        X.Edits.push_back(
            makeInsertion(C, After, Space ? " __restrict__" : "__restrict__ "));
      }
      if (!Ok)
        break;
    }
    emitFixOrWhy(std::move(F), Ok, std::move(X), Why);
  }
};
CUDAL1_REGISTER_CHECK(RestrictCheck);

// ---------------------------------------------------------------------------
bool ldgType(QualType T) {
  T = T.getCanonicalType().getUnqualifiedType();
  if (const auto *B = T->getAs<BuiltinType>()) {
    switch (B->getKind()) {
    case BuiltinType::Char_S:
    case BuiltinType::Char_U:
    case BuiltinType::SChar:
    case BuiltinType::UChar:
    case BuiltinType::Short:
    case BuiltinType::UShort:
    case BuiltinType::Int:
    case BuiltinType::UInt:
    case BuiltinType::Long:
    case BuiltinType::ULong:
    case BuiltinType::LongLong:
    case BuiltinType::ULongLong:
    case BuiltinType::Float:
    case BuiltinType::Double:
      return true;
    default:
      return false;
    }
  }
  if (const auto *RD = T->getAsRecordDecl()) {
    static const StringSet<> Vec = {
        "char2",  "char4",  "uchar2", "uchar4", "short2", "short4",
        "ushort2", "ushort4", "int2", "int4",   "uint2",  "uint4",
        "longlong2", "ulonglong2", "float2", "float4", "double2",
        "__half", "__half2", "__nv_bfloat16", "__nv_bfloat162"};
    return RD->getIdentifier() && Vec.contains(RD->getName());
  }
  return false;
}

class LdgCheck : public KernelCheckBase {
public:
  RuleInfo info() const override {
    RuleInfo I;
    I.Id = "memory-ldg";
    I.Category = "memory";
    I.Summary = "read-only global loads could use the read-only data path "
                "(__ldg)";
    I.Exactness = Exactness::Bitwise;
    I.Help = "__ldg(&p[i]) loads through the non-coherent read-only path. "
             "It is only correct when nothing writes the data during the "
             "kernel, through any pointer: when that is proven, "
             "memory-restrict (const T *__restrict__) is the better fix and "
             "this rule stays silent; otherwise __ldg is offered, never "
             "applied automatically.";
    return I;
  }

protected:
  void checkKernel(KernelFacts &KF) override {
    ASTContext &C = *Ctx;
    const FunctionDecl *FD = KF.Def;
    if (!FD->getBody())
      return;
    std::string Why;
    if (pointerArgsDistinct(KF, Why))
      return; // memory-restrict covers it
    ExprMutationAnalyzer EMA(*FD->getBody(), C);
    for (const ParmVarDecl *P : pointerParams(FD)) {
      QualType Pointee = P->getType()->getPointeeType();
      if (Pointee->isDependentType() || !ldgType(Pointee) ||
          EMA.isPointeeMutated(P))
        continue;
      if (Pointee.isConstQualified() && P->getType().isRestrictQualified())
        continue; // the compiler may use the read-only path already
      // Loads p[i] read as values.
      std::vector<const ArraySubscriptExpr *> Loads;
      struct Vis : RecursiveASTVisitor<Vis> {
        ASTContext &C;
        const ParmVarDecl *P;
        std::vector<const ArraySubscriptExpr *> &L;
        Vis(ASTContext &C, const ParmVarDecl *P,
            std::vector<const ArraySubscriptExpr *> &L)
            : C(C), P(P), L(L) {}
        bool VisitArraySubscriptExpr(ArraySubscriptExpr *A) {
          const auto *D = dyn_cast<DeclRefExpr>(A->getBase()->IgnoreParenImpCasts());
          if (!D || D->getDecl() != P)
            return true;
          auto Ps = C.getParents(*A);
          const auto *IC = Ps.empty() ? nullptr : Ps[0].get<ImplicitCastExpr>();
          if (IC && IC->getCastKind() == CK_LValueToRValue)
            L.push_back(A);
          return true;
        }
      } V(C, P, Loads);
      V.TraverseStmt(const_cast<Stmt *>(FD->getBody()));
      if (Loads.empty())
        continue;
      std::string Name = P->getName().str();
      Finding F = makeFinding(C, id(), Loads.front()->getBeginLoc(),
                              std::to_string(Loads.size()) + " load" +
                                  (Loads.size() == 1 ? "" : "s") +
                                  " through read-only '" + Name +
                                  "' could use the read-only data path "
                                  "(__ldg)",
                              FD);
      F.Notes.push_back(makeNote(
          C, P->getLocation(),
          "not applied automatically: __ldg is only correct if no other "
          "pointer writes this data during the kernel (" + Why + ")"));
      FixIt X;
      X.Description = "load '" + Name + "' with __ldg";
      X.Exact = Exactness::Bitwise;
      X.Proven = false;
      bool Ok = true;
      std::string W;
      for (const ArraySubscriptExpr *A : Loads) {
        auto ER = editableRange(
            C, CharSourceRange::getTokenRange(A->getSourceRange()), W);
        std::string T = sourceText(C, A->getSourceRange());
        if (!ER || T.empty()) {
          Ok = false;
          break;
        }
        X.Edits.push_back(makeTextEdit(C, *ER, "__ldg(&" + T + ")"));
      }
      emitFixOrWhy(std::move(F), Ok, std::move(X), W);
    }
  }
};
CUDAL1_REGISTER_CHECK(LdgCheck);

// ---------------------------------------------------------------------------
std::optional<uint64_t> evalDim(ASTContext &Ctx, const Expr *E) {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  const Expr *S = E->IgnoreImplicit()->IgnoreParens();
  if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(S))
    S = MT->getSubExpr()->IgnoreImplicit()->IgnoreParens();
  if (S->getType()->isIntegralOrEnumerationType()) {
    Expr::EvalResult R;
    if (S->EvaluateAsInt(R, Ctx))
      return R.Val.getInt().getZExtValue();
    // A const / never-changed local with a constant initialiser.
    if (const auto *D = dyn_cast<DeclRefExpr>(S->IgnoreParenImpCasts()))
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
        if (V->getInit() && V->isLocalVarDecl() &&
            V->getType().isConstQualified())
          return evalDim(Ctx, V->getInit());
    return std::nullopt;
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(S)) {
    if (CE->getNumArgs() == 1 && CE->getArg(0)->getType()->isRecordType())
      return evalDim(Ctx, CE->getArg(0));
    uint64_t P = 1;
    for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
      const Expr *A = CE->getArg(I);
      if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(A))
        A = DA->getExpr();
      auto V = evalDim(Ctx, A);
      if (!V)
        return std::nullopt;
      P *= *V;
    }
    return P;
  }
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(S))
    return evalDim(Ctx, FC->getSubExpr());
  if (const auto *D = dyn_cast<DeclRefExpr>(S))
    if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
      if (V->getInit() && V->isLocalVarDecl()) {
        // dim3 block(16, 16): unchanged after its declaration.
        const FunctionDecl *FD =
            enclosingFunction(Ctx, DynTypedNode::create(*E));
        if (V->getType().isConstQualified())
          return evalDim(Ctx, V->getInit());
        if (FD && FD->getBody()) {
          ExprMutationAnalyzer EMA(*FD->getBody(), Ctx);
          if (!EMA.isMutated(V))
            return evalDim(Ctx, V->getInit());
        }
      }
  return std::nullopt;
}

class LaunchBoundsCheck : public KernelCheckBase {
public:
  RuleInfo info() const override {
    RuleInfo I;
    I.Id = "launch-bounds";
    I.Category = "launch";
    I.Summary = "kernel launched only with constant block sizes has no "
                "__launch_bounds__";
    I.Exactness = Exactness::Bitwise;
    I.Help = "Without __launch_bounds__ the compiler allocates registers for "
             "the largest possible block (1024 threads). When every launch "
             "uses a constant block of at most N threads, "
             "__launch_bounds__(N) lets it use registers for that size. "
             "Results are unchanged; a launch with a larger block would "
             "fail, so the fix is applied only when every launch of the "
             "kernel is visible in the file, and offered otherwise.";
    return I;
  }

protected:
  void checkKernel(KernelFacts &KF) override {
    ASTContext &C = *Ctx;
    const FunctionDecl *FD = KF.Def;
    if (FD->hasAttr<CUDALaunchBoundsAttr>() || KF.Launches.empty())
      return;
    for (const FunctionDecl *R : FD->redecls())
      if (R->hasAttr<CUDALaunchBoundsAttr>())
        return;
    uint64_t Max = 0;
    for (const CUDAKernelCallExpr *L : KF.Launches) {
      const CallExpr *Cfg = L->getConfig();
      if (!Cfg || Cfg->getNumArgs() < 2)
        return;
      auto V = evalDim(C, Cfg->getArg(1));
      if (!V || *V == 0 || *V > 1024)
        return;
      Max = std::max(Max, *V);
    }
    if (Max == 0 || Max == 1024)
      return;
    std::string Why;
    bool Proven = allLaunchesKnown(KF, Why);
    std::string N = std::to_string(Max);
    Finding F = makeFinding(
        C, id(), FD->getLocation(),
        "every launch uses a constant block of at most " + N +
            " threads; '__launch_bounds__(" + N +
            ")' lets the compiler allocate registers for that size",
        FD);
    for (const CUDAKernelCallExpr *L : KF.Launches)
      F.Notes.push_back(makeNote(C, L->getBeginLoc(), "launched here"));
    if (!Proven)
      F.Notes.push_back(makeNote(C, FD->getLocation(),
                                 "not applied automatically: " + Why));
    SourceLocation NameLoc = FD->getLocation();
    auto ER = editableRange(C, CharSourceRange::getTokenRange(NameLoc, NameLoc),
                            Why);
    if (!ER) {
      F.WhyNoFix = Why;
    } else {
      FixIt X;
      X.Description = "add __launch_bounds__(" + N + ")";
      X.Exact = Exactness::Bitwise;
      X.Proven = Proven;
      X.Edits.push_back(
          makeInsertion(C, ER->getBegin(), "__launch_bounds__(" + N + ") "));
      F.Fix = std::move(X);
    }
    emit(std::move(F));
  }
};
CUDAL1_REGISTER_CHECK(LaunchBoundsCheck);

} // namespace
} // namespace cudal1
