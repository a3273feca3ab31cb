//===- AccessAnalysis.cpp - symbolic index analysis of kernels ------------===//
#include "cudal1/Analysis/AccessAnalysis.h"
#include "cudal1/Analysis/AstFacts.h"
#include "cudal1/Frontend/UserCode.h"
#include "cudal1/Model/KernelModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecordLayout.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

const char *toString(MemSpace S) {
  switch (S) {
  case MemSpace::Global:
    return "global";
  case MemSpace::Shared:
    return "shared";
  case MemSpace::Constant:
    return "constant";
  case MemSpace::Local:
    return "local";
  case MemSpace::Unknown:
    return "unknown";
  }
  return "unknown";
}

const LoopInfo *KernelAnalysis::loopOf(const Stmt *S) const {
  for (auto &L : Loops)
    if (L->S == S)
      return L.get();
  return nullptr;
}

BlockShape blockShapeFromLaunches(const ProjectModel &Model,
                                  const std::string &QualifiedName,
                                  const std::string &Key,
                                  std::string &Source, SourceLoc *Loc) {
  BlockShape B{0, 0, 0};
  bool Any = false;
  for (const LaunchSite &L : Model.LaunchSites) {
    bool Match = (!Key.empty() && L.KernelKey == Key) ||
                 (L.KernelKey.empty() && L.Kernel == QualifiedName) ||
                 (L.Kernel == QualifiedName);
    if (!Match)
      continue;
    if (!L.Block.Dim) {
      Source.clear();
      return {0, 0, 0};
    }
    BlockShape S{unsigned((*L.Block.Dim)[0]), unsigned((*L.Block.Dim)[1]),
                 unsigned((*L.Block.Dim)[2])};
    if (Any && S != B) {
      Source.clear();
      return {0, 0, 0};
    }
    if (!Any) {
      Source = "launch at " + L.Loc.str();
      if (Loc)
        *Loc = L.Loc;
    }
    B = S;
    Any = true;
  }
  return B;
}

std::string oneLineText(const ASTContext &Ctx, SourceRange R) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange CR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(R), SM, Ctx.getLangOpts());
  if (CR.isInvalid())
    CR = SM.getExpansionRange(R);
  bool Invalid = false;
  StringRef T = Lexer::getSourceText(CR, SM, Ctx.getLangOpts(), &Invalid);
  if (Invalid)
    return "";
  std::string S = T.trim().str();
  // Collapse whitespace runs for one-line display.
  std::string Out;
  bool Space = false;
  for (char C : S) {
    if (C == '\n' || C == '\t' || C == ' ' || C == '\r') {
      Space = true;
      continue;
    }
    if (Space && !Out.empty())
      Out += ' ';
    Space = false;
    Out += C;
  }
  return Out;
}

namespace {

/// A value during evaluation: an integer (affine) or a pointer (base +
/// byte offset).
struct Value {
  AffineExpr Int = AffineExpr::unknown();
  bool IsPtr = false;
  const ValueDecl *Base = nullptr;
  MemSpace Space = MemSpace::Unknown;
  AffineExpr Off = AffineExpr::unknown();
  static Value integer(AffineExpr E) {
    Value V;
    V.Int = std::move(E);
    return V;
  }
  static Value unknownPtr() {
    Value V;
    V.IsPtr = true;
    return V;
  }
  bool ptrKnown() const { return IsPtr && Base && Off.isKnown(); }
};

/// What happens to each local variable / parameter of a function body.
struct VarUses {
  std::vector<const Stmt *> Mods; ///< assignments, ++/--, compound
  bool Escapes = false;           ///< address taken, bound to a reference
};
using ModMap = DenseMap<const VarDecl *, VarUses>;

/// Every change of the pointer \p V is a step from its own value: `V++`,
/// `--V`, `V += n`, `V -= n`, `V = V + n`, `V = n + V`, `V = V - n`.
bool onlySelfSteps(const VarDecl *V, const VarUses &U) {
  for (const Stmt *M : U.Mods) {
    if (isa<UnaryOperator>(M))
      continue;
    const auto *BO = dyn_cast<BinaryOperator>(M);
    if (!BO)
      return false;
    if (BO->getOpcode() == BO_AddAssign || BO->getOpcode() == BO_SubAssign)
      continue;
    if (BO->getOpcode() != BO_Assign)
      return false;
    const auto *R = dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParenImpCasts());
    if (!R || !R->isAdditiveOp())
      return false;
    bool L = varOf(R->getLHS()) == V;
    if (!(L || (R->getOpcode() == BO_Add && varOf(R->getRHS()) == V)))
      return false;
  }
  return true;
}

void collectMods(const Stmt *S, const Stmt *Parent, ModMap &M) {
  if (!S)
    return;
  if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
    if (BO->isAssignmentOp())
      if (const VarDecl *V = varOf(BO->getLHS()))
        M[V].Mods.push_back(BO);
  } else if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
    if (UO->isIncrementDecrementOp()) {
      if (const VarDecl *V = varOf(UO->getSubExpr()))
        M[V].Mods.push_back(UO);
    } else if (UO->getOpcode() == UO_AddrOf) {
      if (const VarDecl *V = varOf(UO->getSubExpr()))
        M[V].Escapes = true;
    }
  } else if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
    // A reference binding or a call taking a non-const reference: the
    // variable may change behind our back.
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl())) {
      (void)V;
    }
  } else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D))
        if (VD->getType()->isReferenceType() && VD->getInit())
          if (const VarDecl *T = varOf(VD->getInit()))
            M[T].Escapes = true;
  } else if (const auto *CE = dyn_cast<CallExpr>(S)) {
    const FunctionDecl *FD = CE->getDirectCallee();
    unsigned Off = isa<CXXOperatorCallExpr>(CE) &&
                           isa_and_nonnull<CXXMethodDecl>(FD)
                       ? 1
                       : 0;
    for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
      const VarDecl *V = varOf(CE->getArg(I));
      if (!V)
        continue;
      if (!FD || I < Off || I - Off >= FD->getNumParams()) {
        if (!FD || I >= Off)
          continue;
        // Object argument of a member operator: may modify.
        M[V].Escapes = true;
        continue;
      }
      QualType PT = FD->getParamDecl(I - Off)->getType();
      if (PT->isReferenceType() &&
          !PT->getPointeeType().isConstQualified())
        M[V].Escapes = true;
    }
  } else if (const auto *MCE = dyn_cast<CXXMemberCallExpr>(S)) {
    (void)MCE;
  }
  for (const Stmt *C : S->children())
    collectMods(C, S, M);
}

bool isWithin(const Stmt *Inner, const Stmt *Outer) {
  if (!Inner || !Outer)
    return false;
  if (Inner == Outer)
    return true;
  for (const Stmt *C : Outer->children())
    if (isWithin(Inner, C))
      return true;
  return false;
}

bool isAtomicName(StringRef N) {
  // nvcc's scoped atomics (CUDA 12.8): the first argument is the address.
  if (N.starts_with("__nv_atomic_") && N != "__nv_atomic_thread_fence")
    return true;
  if (!N.starts_with("atomic"))
    return false;
  static const char *const Names[] = {
      "atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax",
      "atomicInc", "atomicDec", "atomicCAS",  "atomicAnd", "atomicOr",
      "atomicXor"};
  for (const char *A : Names) {
    StringRef S(A);
    if (N == S || N == (S + "_block").str() || N == (S + "_system").str())
      return true;
  }
  return false;
}

bool isPureMathName(StringRef N) {
  static const StringSet<> Names = {
      "min",   "max",   "umin",  "umax",   "llmin", "llmax", "abs",
      "labs",  "llabs", "__mul24", "__umul24", "__mulhi", "__umulhi",
      "__popc", "__clz", "__ffs", "__brev", "sqrtf", "sqrt", "floorf",
      "floor", "ceilf", "ceil", "log2f", "log2", "__float2int_rn",
      "__float2int_rz", "__float2uint_rn", "fminf", "fmaxf", "fabsf",
      "fabs", "rsqrtf", "exp2f", "expf", "logf"};
  return Names.count(N);
}

/// Per-function evaluation context (an inlined call has its own).
struct FnCtx {
  const FunctionDecl *F = nullptr;
  const ModMap *Mods = nullptr;
  DenseMap<const VarDecl *, Value> Env; ///< bound parameters
  std::vector<const CallExpr *> Chain;
  bool IsKernel = false;
};

class KernelAnalyzer {
public:
  KernelAnalyzer(ASTContext &Ctx, KernelAnalysis &KA,
                 std::map<std::string, std::set<std::string>> &OpaqueDeps,
                 const UserCodeFilter &UserCode)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), KA(KA), OpaqueDeps(OpaqueDeps),
        UserCode(UserCode) {}

  void run() {
    const FunctionDecl *K = KA.Kernel;
    FnCtx C;
    C.F = K;
    C.Mods = &modsOf(K);
    C.IsKernel = true;
    bool AllRestrict = true, AnyPtr = false;
    for (const ParmVarDecl *P : K->parameters())
      if (P->getType()->isPointerType()) {
        AnyPtr = true;
        if (!P->getType().isRestrictQualified())
          AllRestrict = false;
      }
    KA.AllPointersRestrict = AnyPtr && AllRestrict;
    walk(K->getBody(), C);
    for (MemAccess &A : KA.Accesses) {
      if (A.Space == MemSpace::Global)
        A.Global = analyzeGlobalRequest(A.Address, A.AccessBytes, A.ElemBytes,
                                        KA.Block);
      else if (A.Space == MemSpace::Shared)
        A.Banks = analyzeSharedRequest(A.Address, A.AccessBytes, KA.Block);
    }
    // Symbols varying with each loop: its own IV symbols plus those of the
    // loops nested in it.
    for (auto &L : KA.Loops)
      for (LoopInfo *P = L->Parent; P; P = P->Parent)
        P->VaryingSyms.insert(L->VaryingSyms.begin(), L->VaryingSyms.end());
  }

private:
  ASTContext &Ctx;
  const SourceManager &SM;
  KernelAnalysis &KA;
  std::map<std::string, std::set<std::string>> &OpaqueDeps;
  const UserCodeFilter &UserCode;
  std::map<const FunctionDecl *, std::unique_ptr<ModMap>> ModCache;
  std::vector<LoopInfo *> LoopStack;
  DenseMap<const VarDecl *, LoopInfo *> IVs;
  SmallPtrSet<const Stmt *, 8> UnrollPragma;
  DenseMap<const Expr *, unsigned> OpaqueIds;
  unsigned Depth = 0;
  unsigned InlineDepth = 0;
  unsigned Sparse = 0; ///< inside conditions keeping only some lanes

  enum class Guard { Uniform, Dense, Sparse };

  /// Does \p E (a condition operand) differ between the threads of a warp?
  /// Unknown values count as thread-dependent.
  bool threadDependent(const Expr *E, const FnCtx &C) {
    if (E->getType()->isIntegralOrEnumerationType() ||
        E->getType()->isPointerType()) {
      AffineExpr V = evalInt(E, C);
      if (V.isKnown())
        return V.dependsOnThread();
    }
    std::set<std::string> Deps;
    return !uniformLeaves(E, C, Deps);
  }

  /// How many lanes of a warp a branch condition keeps: Dense for range
  /// tests (i < n), Sparse for equality and anything else thread-dependent.
  Guard classify(const Expr *E, bool Negated, const FnCtx &C) {
    E = E->IgnoreParenImpCasts();
    if (const auto *UO = dyn_cast<UnaryOperator>(E))
      if (UO->getOpcode() == UO_LNot)
        return classify(UO->getSubExpr(), !Negated, C);
    if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
      if (BO->getOpcode() == BO_LAnd || BO->getOpcode() == BO_LOr) {
        Guard A = classify(BO->getLHS(), Negated, C);
        Guard B = classify(BO->getRHS(), Negated, C);
        if (A == Guard::Sparse || B == Guard::Sparse)
          return Guard::Sparse;
        if (A == Guard::Dense || B == Guard::Dense)
          return Guard::Dense;
        return Guard::Uniform;
      }
      if (BO->isComparisonOp()) {
        if (!threadDependent(BO->getLHS(), C) &&
            !threadDependent(BO->getRHS(), C))
          return Guard::Uniform;
        // Data-dependent tests (bin < NUM_BINS with bin loaded from memory):
        // how many lanes pass is unknown.
        for (const Expr *Side : {BO->getLHS(), BO->getRHS()})
          if (!evalInt(Side, C).isKnown())
            return Guard::Sparse;
        BinaryOperatorKind Op = BO->getOpcode();
        if (Negated)
          Op = BinaryOperator::negateComparisonOp(Op);
        return Op == BO_EQ ? Guard::Sparse : Guard::Dense;
      }
    }
    return threadDependent(E, C) ? Guard::Sparse : Guard::Uniform;
  }

  static bool isReturnOnly(const Stmt *S) {
    if (!S)
      return false;
    if (isa<ReturnStmt>(S))
      return true;
    if (const auto *CS = dyn_cast<CompoundStmt>(S))
      return CS->size() == 1 && isa<ReturnStmt>(CS->body_front());
    return false;
  }
  std::set<std::pair<const Expr *, std::vector<const CallExpr *>>> Recorded;

  const ModMap &modsOf(const FunctionDecl *F) {
    auto &P = ModCache[F];
    if (!P) {
      P = std::make_unique<ModMap>();
      if (F->getBody())
        collectMods(F->getBody(), nullptr, *P);
    }
    return *P;
  }

  unsigned typeSize(QualType T) {
    if (T.isNull() || T->isDependentType() || T->isIncompleteType() ||
        T->isVoidType() || T->isFunctionType())
      return 0;
    return Ctx.getTypeSizeInChars(T).getQuantity();
  }

  bool isUserFunction(const FunctionDecl *FD) {
    if (!FD || !FD->hasBody())
      return false;
    const FunctionDecl *Def = FD->getDefinition();
    return Def && !Def->hasAttr<CUDAGlobalAttr>() &&
           UserCode.contains(Def->getLocation());
  }

  // --- Evaluation -----------------------------------------------------------

  AffineExpr opaque(const Expr *E, const std::set<std::string> &Deps) {
    unsigned &Id = OpaqueIds[E];
    if (!Id)
      Id = OpaqueIds.size();
    std::string Text = oneLineText(Ctx, E->getSourceRange());
    if (Text.empty() || Text.size() > 60)
      Text = "expr";
    std::string Name = "{" + Text + "}@o" + std::to_string(Id);
    OpaqueDeps[Name] = Deps;
    return AffineExpr::symbol(Name);
  }

  /// Is \p E uniform across the warp? Collects the symbols it depends on.
  bool uniformLeaves(const Expr *E, const FnCtx &C, std::set<std::string> &Deps,
                     unsigned D = 0) {
    if (!E || D > 24)
      return false;
    E = E->IgnoreParens();
    if (E->isValueDependent() || E->isTypeDependent())
      return false;
    if (E->getType()->isIntegralOrEnumerationType() ||
        E->getType()->isRealFloatingType()) {
      Expr::EvalResult R;
      if (!E->HasSideEffects(Ctx) && E->EvaluateAsRValue(R, Ctx))
        return true;
    }
    std::string B = builtinName(E);
    if (!B.empty()) {
      if (StringRef(B).starts_with("threadIdx"))
        return false;
      Deps.insert(B);
      return true;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      if (isa<EnumConstantDecl>(DRE->getDecl()))
        return true;
      const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
      if (!V)
        return false;
      if (V->getType()->isArrayType())
        return false;
      Value Val = evalVar(V, C, DRE);
      if (Val.IsPtr)
        return false;
      if (!Val.Int.isKnown() || Val.Int.dependsOnThread())
        return false;
      addDeps(Val.Int, Deps);
      return true;
    }
    if (const auto *ICE = dyn_cast<ImplicitCastExpr>(E)) {
      if (ICE->getCastKind() == CK_LValueToRValue) {
        const Expr *Sub = ICE->getSubExpr()->IgnoreParens();
        if (isa<DeclRefExpr>(Sub))
          return uniformLeaves(Sub, C, Deps, D + 1);
        // A load: uniform when its address is, and the memory is not the
        // thread's own (a local array holds each thread's values: the
        // same element differs from lane to lane).
        MemLoc L = resolveLValue(Sub, C);
        if (!L.Base || !L.Off.isKnown() || L.Off.dependsOnThread() ||
            L.Space == MemSpace::Local)
          return false;
        addDeps(L.Off, Deps);
        Deps.insert("mem");
        return true;
      }
    }
    if (const auto *CE = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *FD = CE->getDirectCallee();
      if (!FD || !isPureMathName(FD->getName()))
        return false;
      for (const Expr *A : CE->arguments())
        if (!uniformLeaves(A, C, Deps, D + 1))
          return false;
      return true;
    }
    if (isa<PseudoObjectExpr>(E) || isa<CallExpr>(E) ||
        isa<CXXConstructExpr>(E) || isa<LambdaExpr>(E))
      return false;
    if (const auto *BO = dyn_cast<BinaryOperator>(E))
      if (BO->isAssignmentOp() || BO->getOpcode() == BO_Comma)
        return false;
    if (const auto *UO = dyn_cast<UnaryOperator>(E))
      if (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf ||
          UO->getOpcode() == UO_Deref)
        return false;
    if (isa<ArraySubscriptExpr>(E) || isa<MemberExpr>(E))
      return false;
    bool Any = false;
    for (const Stmt *Ch : E->children()) {
      const auto *CE = dyn_cast_or_null<Expr>(Ch);
      if (!CE)
        return false;
      if (!uniformLeaves(CE, C, Deps, D + 1))
        return false;
      Any = true;
    }
    return Any;
  }

  void addDeps(const AffineExpr &E, std::set<std::string> &Deps) {
    for (const std::string &S : E.symbols()) {
      Deps.insert(S);
      auto It = OpaqueDeps.find(S);
      if (It != OpaqueDeps.end())
        Deps.insert(It->second.begin(), It->second.end());
    }
  }

  AffineExpr opaqueIfUniform(const Expr *E, const FnCtx &C) {
    std::set<std::string> Deps;
    if (uniformLeaves(E, C, Deps))
      return opaque(E, Deps);
    return AffineExpr::unknown();
  }

  AffineExpr evalInt(const Expr *E, const FnCtx &C) {
    if (!E || ++Depth > 64) {
      --Depth;
      return AffineExpr::unknown();
    }
    AffineExpr R = evalIntImpl(E, C);
    --Depth;
    return R;
  }

  AffineExpr evalIntImpl(const Expr *E, const FnCtx &C) {
    E = E->IgnoreParens();
    if (E->isValueDependent() || E->isTypeDependent())
      return AffineExpr::unknown();
    if (E->getType()->isIntegralOrEnumerationType() && !E->HasSideEffects(Ctx)) {
      Expr::EvalResult R;
      if (E->EvaluateAsInt(R, Ctx) && R.Val.isInt() &&
          R.Val.getInt().getSignificantBits() <= 63)
        return AffineExpr::constant(R.Val.getInt().getExtValue());
    }
    std::string B = builtinName(E);
    if (!B.empty()) {
      StringRef BS(B);
      if (BS.starts_with("blockDim.")) {
        unsigned D = BS.back() - 'x';
        if (D < 3 && KA.Block[D])
          return AffineExpr::constant(KA.Block[D]);
      }
      return AffineExpr::symbol(B);
    }
    if (const auto *CE = dyn_cast<ConstantExpr>(E))
      return evalInt(CE->getSubExpr(), C);
    if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
      return evalInt(EWC->getSubExpr(), C);
    if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E))
      return evalInt(DA->getExpr(), C);
    if (const auto *ST = dyn_cast<SubstNonTypeTemplateParmExpr>(E))
      return evalInt(ST->getReplacement(), C);
    if (const auto *CE = dyn_cast<CastExpr>(E)) {
      switch (CE->getCastKind()) {
      case CK_LValueToRValue: {
        const Expr *Sub = CE->getSubExpr()->IgnoreParens();
        if (const auto *DRE = dyn_cast<DeclRefExpr>(Sub))
          if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
            if (!V->hasGlobalStorage() || V->getType().isConstQualified()) {
              Value Val = evalVar(V, C, DRE);
              return Val.IsPtr ? AffineExpr::unknown() : Val.Int;
            }
        return opaqueIfUniform(E, C);
      }
      case CK_IntegralCast:
      case CK_NoOp:
        return evalInt(CE->getSubExpr(), C);
      default:
        return opaqueIfUniform(E, C);
      }
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl())) {
        Value Val = evalVar(V, C, DRE);
        return Val.IsPtr ? AffineExpr::unknown() : Val.Int;
      }
      return AffineExpr::unknown();
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
      switch (BO->getOpcode()) {
      case BO_Add:
        return evalInt(BO->getLHS(), C) + evalInt(BO->getRHS(), C);
      case BO_Sub:
        return evalInt(BO->getLHS(), C) - evalInt(BO->getRHS(), C);
      case BO_Mul:
        return evalInt(BO->getLHS(), C) * evalInt(BO->getRHS(), C);
      case BO_Shl: {
        AffineExpr L = evalInt(BO->getLHS(), C);
        auto S = evalInt(BO->getRHS(), C).constantValue();
        if (S && *S >= 0 && *S < 40)
          return L * AffineExpr::constant(int64_t(1) << *S);
        return opaqueIfUniform(E, C);
      }
      case BO_Comma:
        return evalInt(BO->getRHS(), C);
      default:
        return opaqueIfUniform(E, C);
      }
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if (UO->getOpcode() == UO_Minus)
        return -evalInt(UO->getSubExpr(), C);
      if (UO->getOpcode() == UO_Plus)
        return evalInt(UO->getSubExpr(), C);
      return opaqueIfUniform(E, C);
    }
    if (const auto *CE = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *FD = CE->getDirectCallee();
      if (FD && isUserFunction(FD) && InlineDepth < 4) {
        const FunctionDecl *Def = FD->getDefinition();
        if (const Expr *Ret = singleReturn(Def)) {
          FnCtx Callee = bindCall(CE, Def, C);
          ++InlineDepth;
          AffineExpr R = evalInt(Ret, Callee);
          --InlineDepth;
          return R;
        }
      }
      return opaqueIfUniform(E, C);
    }
    return opaqueIfUniform(E, C);
  }

  /// The returned expression of a function whose body is declarations
  /// followed by one return.
  const Expr *singleReturn(const FunctionDecl *FD) {
    const auto *Body = dyn_cast_or_null<CompoundStmt>(FD->getBody());
    if (!Body || Body->body_empty())
      return nullptr;
    for (const Stmt *S : Body->body()) {
      if (const auto *R = dyn_cast<ReturnStmt>(S))
        return S == Body->body_back() ? R->getRetValue() : nullptr;
      if (!isa<DeclStmt>(S) && !isa<NullStmt>(S))
        return nullptr;
    }
    return nullptr;
  }

  FnCtx bindCall(const CallExpr *CE, const FunctionDecl *Def,
                 const FnCtx &C) {
    FnCtx N;
    N.F = Def;
    N.Mods = &modsOf(Def);
    N.Chain = C.Chain;
    N.Chain.push_back(CE);
    for (unsigned I = 0; I < Def->getNumParams() && I < CE->getNumArgs(); ++I) {
      const ParmVarDecl *P = Def->getParamDecl(I);
      if (P->getType()->isReferenceType())
        continue;
      auto It = N.Mods->find(P);
      if (It != N.Mods->end() && (!It->second.Mods.empty() ||
                                  It->second.Escapes))
        continue;
      N.Env[P] = evalValue(CE->getArg(I), C);
    }
    return N;
  }

  Value evalValue(const Expr *E, const FnCtx &C) {
    if (E->getType()->isPointerType() || E->getType()->isArrayType())
      return evalPtr(E, C);
    return Value::integer(evalInt(E, C));
  }

  /// The definition of \p V reaching \p Use when every definition of V is
  /// a plain assignment among the top-level statements of the function body
  /// (straight-line code): the last one before the use.
  const Expr *reachingDef(const VarDecl *V, const FnCtx &C, const Expr *Use,
                          const VarUses &U) {
    if (!Use || U.Escapes || !C.F)
      return nullptr;
    const auto *Body = dyn_cast_or_null<CompoundStmt>(C.F->getBody());
    if (!Body)
      return nullptr;
    llvm::SmallPtrSet<const Stmt *, 16> Top(Body->body_begin(),
                                            Body->body_end());
    bool DeclaredAtTop = false;
    for (const Stmt *S : Body->body())
      if (const auto *DS = dyn_cast<DeclStmt>(S))
        for (const Decl *D : DS->decls())
          if (D == V)
            DeclaredAtTop = true;
    if (!DeclaredAtTop && !isa<ParmVarDecl>(V))
      return nullptr;
    SourceLocation UseLoc = SM.getExpansionLoc(Use->getBeginLoc());
    const Expr *Best = nullptr;
    SourceLocation BestLoc;
    auto Consider = [&](const Expr *Value, SourceLocation End) {
      End = SM.getExpansionLoc(End);
      if (!SM.isBeforeInTranslationUnit(End, UseLoc))
        return;
      if (!Best || SM.isBeforeInTranslationUnit(BestLoc, End)) {
        Best = Value;
        BestLoc = End;
      }
    };
    if (V->getInit())
      Consider(V->getInit(), V->getInit()->getEndLoc());
    for (const Stmt *M : U.Mods) {
      const auto *BO = dyn_cast<BinaryOperator>(M);
      if (!BO || BO->getOpcode() != BO_Assign || !Top.count(BO))
        return nullptr;
      Consider(BO->getRHS(), BO->getEndLoc());
    }
    return Best;
  }

  Value evalVar(const VarDecl *V, const FnCtx &C, const Expr *Use = nullptr) {
    auto EnvIt = C.Env.find(V);
    if (EnvIt != C.Env.end())
      return EnvIt->second;
    bool IsPtr = V->getType()->isPointerType();
    auto IVIt = IVs.find(V);
    if (IVIt != IVs.end() && !IsPtr)
      return Value::integer(IVIt->second->IVValue);
    const VarUses *U = nullptr;
    if (C.Mods) {
      auto It = C.Mods->find(V);
      if (It != C.Mods->end())
        U = &It->second;
    }
    bool Modified = U && (!U->Mods.empty() || U->Escapes);
    if (Modified && !V->isStaticLocal() && !V->getType()->isReferenceType() &&
        (!isa<ParmVarDecl>(V) || (C.IsKernel && V->getDeclContext() == C.F))) {
      if (const Expr *Def = reachingDef(V, C, Use, *U)) {
        if (IsPtr)
          return evalPtr(Def, C);
        if (V->getType()->isIntegralOrEnumerationType())
          return Value::integer(evalInt(Def, C));
      }
      // A pointer only stepped through its own array (`p += n`, `p++`,
      // `p = p - k`) stays in the array its initialiser points into: where
      // in it is unknown, which array and which memory space are not.
      if (IsPtr && !U->Escapes && V->getInit() && onlySelfSteps(V, *U)) {
        Value R = evalPtr(V->getInit(), C);
        if (R.Base) {
          R.Off = AffineExpr::unknown();
          return R;
        }
      }
      return IsPtr ? Value::unknownPtr() : Value();
    }
    if (const auto *P = dyn_cast<ParmVarDecl>(V)) {
      if (!C.IsKernel || Modified || P->getDeclContext() != C.F)
        return IsPtr ? Value::unknownPtr() : Value();
      if (IsPtr) {
        Value R = Value::unknownPtr();
        R.Base = P;
        R.Space = MemSpace::Global;
        R.Off = AffineExpr::constant(0);
        return R;
      }
      if (P->getType()->isIntegralOrEnumerationType())
        return Value::integer(AffineExpr::symbol(P->getNameAsString()));
      return Value();
    }
    if (V->hasGlobalStorage() && !V->isStaticLocal()) {
      // __constant__/__device__ scalars: constant only when constexpr.
      return IsPtr ? Value::unknownPtr() : Value();
    }
    if (Modified || !V->getInit() || V->getType()->isReferenceType() ||
        V->isStaticLocal())
      return IsPtr ? Value::unknownPtr() : Value();
    if (IsPtr)
      return evalPtr(V->getInit(), C);
    if (!V->getType()->isIntegralOrEnumerationType())
      return Value();
    return Value::integer(evalInt(V->getInit(), C));
  }

  struct MemLoc {
    const ValueDecl *Base = nullptr;
    MemSpace Space = MemSpace::Unknown;
    AffineExpr Off = AffineExpr::unknown();
  };

  static MemSpace spaceOfVar(const VarDecl *V) {
    if (V->hasAttr<CUDASharedAttr>())
      return MemSpace::Shared;
    if (V->hasAttr<CUDAConstantAttr>())
      return MemSpace::Constant;
    if (V->hasAttr<CUDADeviceAttr>() && V->hasGlobalStorage())
      return MemSpace::Global;
    if (V->hasLocalStorage())
      return MemSpace::Local;
    return MemSpace::Unknown;
  }

  MemLoc resolveLValue(const Expr *E, const FnCtx &C) {
    MemLoc R;
    if (!E || ++Depth > 64) {
      --Depth;
      return R;
    }
    R = resolveLValueImpl(E, C);
    --Depth;
    return R;
  }

  MemLoc resolveLValueImpl(const Expr *E, const FnCtx &C) {
    MemLoc R;
    E = E->IgnoreParens();
    if (const auto *ICE = dyn_cast<ImplicitCastExpr>(E))
      if (ICE->getCastKind() == CK_NoOp)
        return resolveLValue(ICE->getSubExpr(), C);
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(E)) {
      Value P = evalPtr(ASE->getBase(), C);
      R.Base = P.Base;
      R.Space = P.Space;
      unsigned ES = typeSize(ASE->getType());
      AffineExpr I = evalInt(ASE->getIdx(), C);
      R.Off = P.Off + I * AffineExpr::constant(ES);
      if (!ES)
        R.Off = AffineExpr::unknown();
      return R;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if (UO->getOpcode() == UO_Deref) {
        Value P = evalPtr(UO->getSubExpr(), C);
        R.Base = P.Base;
        R.Space = P.Space;
        R.Off = P.Off;
      }
      return R;
    }
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
      if (!FD || FD->isBitField())
        return R;
      const RecordDecl *RD = FD->getParent();
      if (RD->isInvalidDecl() || !RD->getDefinition() || RD->isDependentType())
        return R;
      const ASTRecordLayout &L = Ctx.getASTRecordLayout(RD);
      int64_t FOff = L.getFieldOffset(FD->getFieldIndex()) / 8;
      if (ME->isArrow()) {
        Value P = evalPtr(ME->getBase(), C);
        R.Base = P.Base;
        R.Space = P.Space;
        R.Off = P.Off + AffineExpr::constant(FOff);
      } else {
        R = resolveLValue(ME->getBase(), C);
        R.Off = R.Off + AffineExpr::constant(FOff);
      }
      return R;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl())) {
        R.Base = V;
        R.Space = spaceOfVar(V);
        R.Off = AffineExpr::constant(0);
        if (V->getType()->isReferenceType()) {
          R.Base = nullptr;
          R.Space = MemSpace::Unknown;
        }
      }
      return R;
    }
    return R;
  }

  Value evalPtr(const Expr *E, const FnCtx &C) {
    if (!E || ++Depth > 64) {
      --Depth;
      return Value::unknownPtr();
    }
    Value R = evalPtrImpl(E, C);
    --Depth;
    return R;
  }

  Value evalPtrImpl(const Expr *E, const FnCtx &C) {
    E = E->IgnoreParens();
    if (const auto *CE = dyn_cast<CastExpr>(E)) {
      switch (CE->getCastKind()) {
      case CK_LValueToRValue: {
        const Expr *Sub = CE->getSubExpr()->IgnoreParens();
        if (const auto *DRE = dyn_cast<DeclRefExpr>(Sub))
          if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
            return evalVar(V, C, DRE);
        return Value::unknownPtr();
      }
      case CK_ArrayToPointerDecay: {
        MemLoc L = resolveLValue(CE->getSubExpr(), C);
        Value R = Value::unknownPtr();
        R.Base = L.Base;
        R.Space = L.Space;
        R.Off = L.Off;
        return R;
      }
      case CK_BitCast:
      case CK_NoOp:
      case CK_AddressSpaceConversion:
        return evalPtr(CE->getSubExpr(), C);
      default:
        return Value::unknownPtr();
      }
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        return evalVar(V, C, DRE);
    if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
      if (BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub) {
        const Expr *PE = BO->getLHS(), *IE = BO->getRHS();
        if (!PE->getType()->isPointerType())
          std::swap(PE, IE);
        if (!PE->getType()->isPointerType() ||
            !IE->getType()->isIntegralOrEnumerationType())
          return Value::unknownPtr();
        Value P = evalPtr(PE, C);
        unsigned ES = typeSize(PE->getType()->getPointeeType());
        AffineExpr I = evalInt(IE, C) * AffineExpr::constant(ES);
        if (!ES)
          I = AffineExpr::unknown();
        P.Off = BO->getOpcode() == BO_Add ? P.Off + I : P.Off - I;
        return P;
      }
      if (BO->getOpcode() == BO_Comma)
        return evalPtr(BO->getRHS(), C);
      return Value::unknownPtr();
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if (UO->getOpcode() == UO_AddrOf) {
        MemLoc L = resolveLValue(UO->getSubExpr(), C);
        Value R = Value::unknownPtr();
        R.Base = L.Base;
        R.Space = L.Space;
        R.Off = L.Off;
        return R;
      }
      return Value::unknownPtr();
    }
    return Value::unknownPtr();
  }

  // --- Loops ------------------------------------------------------------------

  LoopInfo *newLoop(const Stmt *S) {
    auto L = std::make_unique<LoopInfo>();
    L->Id = KA.Loops.size() + 1;
    L->S = S;
    L->Parent = LoopStack.empty() ? nullptr : LoopStack.back();
    L->Depth = LoopStack.size();
    L->Loc = makeSourceLoc(SM, S->getBeginLoc());
    L->HasUnrollPragma = UnrollPragma.count(S);
    L->TripText = "unknown";
    KA.Loops.push_back(std::move(L));
    return KA.Loops.back().get();
  }

  void analyzeFor(const ForStmt *FS, LoopInfo &L, const FnCtx &C) {
    const VarDecl *IV = nullptr;
    const Expr *InitE = nullptr;
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(FS->getInit())) {
      if (DS->isSingleDecl())
        if (const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl()))
          if (VD->getInit() && VD->getType()->isIntegralOrEnumerationType()) {
            IV = VD;
            InitE = VD->getInit();
          }
    } else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(FS->getInit())) {
      if (BO->getOpcode() == BO_Assign)
        if (const VarDecl *V = varOf(BO->getLHS())) {
          IV = V;
          InitE = BO->getRHS();
        }
    }
    const Expr *Inc = FS->getInc();
    if (!IV || !Inc)
      return;
    // Inside the loop, the IV must change only in the header's increment.
    // Changes outside it do not matter: a counter declared before the loop
    // and reused by the next loops (`int i; for (i = 0; ...) ...; for (i =
    // 1; ...)`: lud's diagonal kernel) counts each loop alone.
    auto It = C.Mods->find(IV);
    if (It != C.Mods->end()) {
      if (It->second.Escapes)
        return;
      for (const Stmt *M : It->second.Mods)
        if (M != Inc->IgnoreParens() && !isWithin(M, FS->getInit()) &&
            isWithin(M, FS))
          return;
    }
    const Expr *StepE = nullptr;
    bool Neg = false;
    const Expr *IncE = Inc->IgnoreParens();
    if (const auto *UO = dyn_cast<UnaryOperator>(IncE)) {
      if (!UO->isIncrementDecrementOp() || varOf(UO->getSubExpr()) != IV)
        return;
      L.Step = AffineExpr::constant(UO->isIncrementOp() ? 1 : -1);
    } else if (const auto *CAO = dyn_cast<CompoundAssignOperator>(IncE)) {
      if (varOf(CAO->getLHS()) != IV)
        return;
      switch (CAO->getOpcode()) {
      case BO_AddAssign:
        StepE = CAO->getRHS();
        break;
      case BO_SubAssign:
        StepE = CAO->getRHS();
        Neg = true;
        break;
      case BO_MulAssign:
      case BO_DivAssign:
      case BO_ShrAssign:
      case BO_ShlAssign:
        L.Geometric = true;
        break;
      default:
        return;
      }
    } else if (const auto *BO = dyn_cast<BinaryOperator>(IncE)) {
      if (BO->getOpcode() != BO_Assign || varOf(BO->getLHS()) != IV)
        return;
      const auto *RHS = dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParenImpCasts());
      if (!RHS)
        return;
      if (RHS->getOpcode() == BO_Add || RHS->getOpcode() == BO_Sub) {
        if (varOf(RHS->getLHS()) == IV) {
          StepE = RHS->getRHS();
          Neg = RHS->getOpcode() == BO_Sub;
        } else if (RHS->getOpcode() == BO_Add &&
                   varOf(RHS->getRHS()) == IV) {
          StepE = RHS->getLHS();
        } else {
          return;
        }
      } else if (RHS->getOpcode() == BO_Mul || RHS->getOpcode() == BO_Div ||
                 RHS->getOpcode() == BO_Shr || RHS->getOpcode() == BO_Shl) {
        if (varOf(RHS->getLHS()) != IV)
          return;
        L.Geometric = true;
      } else {
        return;
      }
    } else {
      return;
    }
    L.IV = IV;
    L.IVName = IV->getNameAsString();
    L.Init = evalInt(InitE, C);
    if (StepE) {
      L.Step = evalInt(StepE, C);
      if (Neg)
        L.Step = -L.Step;
    }
    std::string Sym = L.IVName + "@" + std::to_string(L.Id);
    if (L.Geometric) {
      if (L.Init.isKnown() && !L.Init.dependsOnThread()) {
        L.IVValue = AffineExpr::symbol(Sym);
        L.VaryingSyms.insert(Sym);
      }
    } else if (L.Init.isKnown() && L.Step.isKnown() &&
               !L.Step.dependsOnThread()) {
      if (!L.Init.dependsOnThread()) {
        L.IVValue = AffineExpr::symbol(Sym);
        L.VaryingSyms.insert(Sym);
      } else {
        std::string Iter = "iter(" + L.IVName + ")@" + std::to_string(L.Id);
        L.IVValue = L.Init + L.Step * AffineExpr::symbol(Iter);
        L.VaryingSyms.insert(Iter);
      }
    }
    IVs[IV] = &L;
    tripCount(FS, L, C);
  }

  void tripCount(const ForStmt *FS, LoopInfo &L, const FnCtx &C) {
    const auto *Cond =
        dyn_cast_or_null<BinaryOperator>(FS->getCond() ? FS->getCond()->IgnoreParenImpCasts() : nullptr);
    if (!Cond || !Cond->isComparisonOp())
      return;
    BinaryOperatorKind Op = Cond->getOpcode();
    const Expr *BoundE;
    if (varOf(Cond->getLHS()) == L.IV) {
      BoundE = Cond->getRHS();
    } else if (varOf(Cond->getRHS()) == L.IV) {
      BoundE = Cond->getLHS();
      Op = BinaryOperator::reverseComparisonOp(Op);
    } else {
      return;
    }
    AffineExpr Bound = evalInt(BoundE, C);
    auto I0 = L.Init.constantValue();
    auto B = Bound.constantValue();
    if (L.Geometric) {
      // Simulate constant geometric loops.
      if (!I0 || !B)
        return;
      const auto *IncE = FS->getInc()->IgnoreParens();
      int64_t V = *I0, N = 0;
      auto Holds = [&](int64_t X) {
        switch (Op) {
        case BO_LT: return X < *B;
        case BO_LE: return X <= *B;
        case BO_GT: return X > *B;
        case BO_GE: return X >= *B;
        case BO_NE: return X != *B;
        default: return false;
        }
      };
      std::optional<int64_t> F;
      BinaryOperatorKind K = BO_Comma;
      if (const auto *CAO = dyn_cast<CompoundAssignOperator>(IncE)) {
        F = evalInt(CAO->getRHS(), C).constantValue();
        K = CAO->getOpcode();
      }
      if (!F)
        return;
      while (Holds(V) && N <= 64) {
        ++N;
        switch (K) {
        case BO_MulAssign: V *= *F; break;
        case BO_DivAssign: if (!*F) return; V /= *F; break;
        case BO_ShrAssign: V >>= *F; break;
        case BO_ShlAssign: V <<= *F; break;
        default: return;
        }
        if (*F == 1 && (K == BO_MulAssign || K == BO_DivAssign))
          return;
      }
      if (N > 64)
        return;
      L.Trip = TripKind::Constant;
      L.TripCount = N;
      L.TripText = std::to_string(N);
      return;
    }
    auto S = L.Step.constantValue();
    if (I0 && B && S && *S != 0) {
      int64_t Lo = *I0, Hi = *B, St = *S, N = 0;
      if (St > 0 && (Op == BO_LT || Op == BO_NE))
        N = Hi > Lo ? (Hi - Lo + St - 1) / St : 0;
      else if (St > 0 && Op == BO_LE)
        N = Hi >= Lo ? (Hi - Lo) / St + 1 : 0;
      else if (St < 0 && (Op == BO_GT || Op == BO_NE))
        N = Lo > Hi ? (Lo - Hi + (-St) - 1) / (-St) : 0;
      else if (St < 0 && Op == BO_GE)
        N = Lo >= Hi ? (Lo - Hi) / (-St) + 1 : 0;
      else
        return;
      L.Trip = TripKind::Constant;
      L.TripCount = N;
      L.TripText = std::to_string(N);
      return;
    }
    if (Bound.isKnown() && !Bound.dependsOnThread() && L.Init.isKnown() &&
        L.Step.isKnown()) {
      L.Trip = TripKind::Parameter;
      std::string T = Bound.str();
      if (L.Init != AffineExpr())
        T = "(" + T + " - (" + L.Init.str() + "))";
      if (L.Step != AffineExpr::constant(1))
        T += " / (" + L.Step.str() + ")";
      L.TripText = T;
    }
  }

  // --- Walking ----------------------------------------------------------------

  void record(const Expr *LV, const Expr *Anchor, bool Read, bool Write,
              bool Compound, bool Atomic, const FnCtx &C,
              const Expr *Full = nullptr) {
    if (!Recorded.insert({Anchor, C.Chain}).second && !Atomic)
      return;
    MemLoc L;
    const Expr *Index = nullptr;
    unsigned Bytes = 0;
    if (Atomic) {
      Value P = evalPtr(LV, C);
      L.Base = P.Base;
      L.Space = P.Space;
      L.Off = P.Off;
      Index = LV;
      if (LV->getType()->isPointerType())
        Bytes = typeSize(LV->getType()->getPointeeType());
    } else {
      L = resolveLValue(LV, C);
      Bytes = typeSize(LV->getType());
      const Expr *S = LV->IgnoreParens();
      if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(S))
        Index = ASE->getIdx();
      else if (const auto *UO = dyn_cast<UnaryOperator>(S))
        Index = UO->getSubExpr();
      else if (const auto *ME = dyn_cast<MemberExpr>(S))
        Index = ME->getBase();
    }
    if (L.Space == MemSpace::Local || L.Space == MemSpace::Constant)
      return;
    if (L.Space == MemSpace::Unknown) {
      // Only a pointer dereference of unknown origin is a memory access of
      // unknown space; plain local values are not.
      const Expr *S = LV->IgnoreParens();
      if (!Atomic && !isa<ArraySubscriptExpr>(S) && !isa<UnaryOperator>(S) &&
          !(isa<MemberExpr>(S) && cast<MemberExpr>(S)->isArrow()))
        return;
      if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(S)) {
        // Subscripts of local arrays are local memory / registers.
        const Expr *B = ASE->getBase()->IgnoreParenImpCasts();
        while (const auto *Inner = dyn_cast<ArraySubscriptExpr>(B))
          B = Inner->getBase()->IgnoreParenImpCasts();
        if (const VarDecl *V = varOf(B))
          if (V->getType()->isArrayType() && V->hasLocalStorage())
            return;
      }
    }
    MemAccess A;
    A.E = Atomic ? Anchor : LV;
    A.Full = Full ? Full : A.E;
    A.Index = Index;
    A.Base = L.Base;
    A.BaseName = L.Base ? L.Base->getNameAsString() : "";
    A.Space = L.Space;
    A.IsRead = Read;
    A.IsWrite = Write;
    A.IsCompound = Compound;
    A.IsAtomic = Atomic;
    A.SparseGuard = Sparse > 0;
    A.Address = L.Base ? L.Off : AffineExpr::unknown();
    A.AccessBytes = Bytes;
    A.ElemBytes = Bytes;
    A.Loops.assign(LoopStack.begin(), LoopStack.end());
    A.CallChain = C.Chain;
    A.Loc = makeSourceLoc(SM, Anchor->getExprLoc());
    A.Text = oneLineText(Ctx, Anchor->getSourceRange());
    if (A.Space == MemSpace::Global || A.Space == MemSpace::Unknown) {
      if (Write || Atomic) {
        for (LoopInfo *Lp : LoopStack)
          Lp->ContainsGlobalStore = true;
        if (L.Base)
          KA.WrittenBases.insert(L.Base);
        else
          KA.EscapedBases.insert(nullptr); // a write through an unknown pointer
      }
      if (Read && L.Base)
        KA.ReadBases.insert(L.Base);
    }
    KA.Accesses.push_back(std::move(A));
  }

  static bool sameLValue(const Expr *A, const Expr *B, ASTContext &Ctx) {
    A = A->IgnoreParenImpCasts();
    B = B->IgnoreParenImpCasts();
    llvm::FoldingSetNodeID IA, IB;
    A->Profile(IA, Ctx, true);
    B->Profile(IB, Ctx, true);
    return IA == IB;
  }

  void noteEscapes(const CallExpr *CE, const FnCtx &C) {
    // Pointer arguments of calls we do not follow may be written through.
    for (const Expr *Arg : CE->arguments()) {
      if (!Arg->getType()->isPointerType())
        continue;
      Value P = evalPtr(Arg, C);
      if (P.Base && P.Space == MemSpace::Global) {
        if (!Arg->getType()->getPointeeType().isConstQualified())
          KA.EscapedBases.insert(P.Base);
      } else if (!P.Base) {
        if (!Arg->getType()->getPointeeType().isConstQualified())
          KA.EscapedBases.insert(nullptr);
      }
    }
  }

  void walk(const Stmt *S, const FnCtx &C) {
    if (!S)
      return;
    if (const auto *AS = dyn_cast<AttributedStmt>(S)) {
      for (const Attr *A : AS->getAttrs())
        if (isa<LoopHintAttr>(A))
          UnrollPragma.insert(AS->getSubStmt());
      walk(AS->getSubStmt(), C);
      return;
    }
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      walk(If->getInit(), C);
      walk(If->getConditionVariableDeclStmt(), C);
      walk(If->getCond(), C);
      if (If->isConsteval()) {
        walk(If->getThen(), C);
        walk(If->getElse(), C);
        return;
      }
      bool ThenSparse = classify(If->getCond(), false, C) == Guard::Sparse;
      Sparse += ThenSparse;
      walk(If->getThen(), C);
      Sparse -= ThenSparse;
      if (If->getElse()) {
        bool ElseSparse = classify(If->getCond(), true, C) == Guard::Sparse;
        Sparse += ElseSparse;
        walk(If->getElse(), C);
        Sparse -= ElseSparse;
      }
      return;
    }
    if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
      // "if (tid != 0) return;" leaves one lane for the rest of the block.
      unsigned Added = 0;
      for (const Stmt *Ch : CS->body()) {
        walk(Ch, C);
        if (const auto *If = dyn_cast<IfStmt>(Ch))
          if (!If->getElse() && isReturnOnly(If->getThen()) &&
              If->getCond() &&
              classify(If->getCond(), true, C) == Guard::Sparse) {
            ++Sparse;
            ++Added;
          }
      }
      Sparse -= Added;
      return;
    }
    if (const auto *FS = dyn_cast<ForStmt>(S)) {
      walk(FS->getInit(), C);
      LoopInfo *L = newLoop(FS);
      analyzeFor(FS, *L, C);
      LoopStack.push_back(L);
      walk(FS->getCond(), C);
      walk(FS->getInc(), C);
      walk(FS->getBody(), C);
      LoopStack.pop_back();
      return;
    }
    if (isa<WhileStmt>(S) || isa<DoStmt>(S) || isa<CXXForRangeStmt>(S)) {
      LoopInfo *L = newLoop(S);
      LoopStack.push_back(L);
      for (const Stmt *Ch : S->children())
        walk(Ch, C);
      LoopStack.pop_back();
      return;
    }
    if (const auto *ICE = dyn_cast<ImplicitCastExpr>(S)) {
      if (ICE->getCastKind() == CK_LValueToRValue)
        record(ICE->getSubExpr(), ICE->getSubExpr(), true, false, false,
               false, C);
    } else if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      if (BO->isAssignmentOp()) {
        bool Compound = BO->isCompoundAssignmentOp();
        if (!Compound)
          if (const auto *R =
                  dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParenImpCasts()))
            if (R->isAdditiveOp() || R->isMultiplicativeOp())
              Compound = sameLValue(R->getLHS(), BO->getLHS(), Ctx) ||
                         sameLValue(R->getRHS(), BO->getLHS(), Ctx);
        record(BO->getLHS(), BO->getLHS(), BO->isCompoundAssignmentOp(), true,
               Compound, false, C, BO);
        walkChildrenOfLValue(BO->getLHS(), C);
        walk(BO->getRHS(), C);
        return;
      }
    } else if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
      if (UO->isIncrementDecrementOp()) {
        record(UO->getSubExpr(), UO->getSubExpr(), true, true, true, false, C,
               UO);
        walkChildrenOfLValue(UO->getSubExpr(), C);
        return;
      }
    } else if (const auto *OCE = dyn_cast<CXXOperatorCallExpr>(S)) {
      if (OCE->getOperator() == OO_Equal && OCE->getNumArgs() == 2) {
        record(OCE->getArg(0), OCE->getArg(0), false, true, false, false, C,
               OCE);
        walkChildrenOfLValue(OCE->getArg(0), C);
        // A copy assignment reads its source in memory: `v = ((uint4 *)in)[i]`
        // loads the whole element, with no lvalue-to-rvalue cast to see.
        const Expr *Src = OCE->getArg(1)->IgnoreParenNoopCasts(Ctx);
        if (Src->isGLValue() && !isa<MaterializeTemporaryExpr>(Src))
          record(Src, Src, true, false, false, false, C);
        walk(OCE->getArg(1), C);
        return;
      }
    } else if (const auto *CCE = dyn_cast<CXXConstructExpr>(S)) {
      if (CCE->getNumArgs() == 1 && CCE->getConstructor() &&
          (CCE->getConstructor()->isCopyConstructor() ||
           CCE->getConstructor()->isMoveConstructor()) &&
          CCE->getArg(0)->isGLValue()) {
        const Expr *A = CCE->getArg(0);
        if (const auto *MTE = dyn_cast<MaterializeTemporaryExpr>(A))
          A = MTE->getSubExpr();
        if (A->isGLValue())
          record(A, A, true, false, false, false, C);
      }
    } else if (const auto *CE = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *FD = CE->getDirectCallee();
      StringRef Name = FD && FD->getIdentifier() ? FD->getName() : "";
      if (Name == "__syncthreads" || Name == "__syncthreads_count" ||
          Name == "__syncthreads_and" || Name == "__syncthreads_or")
        for (LoopInfo *L : LoopStack)
          L->ContainsSync = true;
      if (isAtomicName(Name) && CE->getNumArgs() >= 1) {
        record(CE->getArg(0), CE, true, true, true, true, C);
        for (const Expr *A : CE->arguments())
          walk(A, C);
        return;
      }
      if (FD && isUserFunction(FD) && InlineDepth < 4 &&
          std::find(C.Chain.begin(), C.Chain.end(), CE) == C.Chain.end()) {
        for (const Expr *A : CE->arguments())
          walk(A, C);
        const FunctionDecl *Def = FD->getDefinition();
        bool Recursive = Def == C.F;
        for (const CallExpr *Prev : C.Chain)
          if (Prev->getDirectCallee() &&
              Prev->getDirectCallee()->getDefinition() == Def)
            Recursive = true;
        if (!Recursive) {
          FnCtx N = bindCall(CE, Def, C);
          ++InlineDepth;
          walk(Def->getBody(), N);
          --InlineDepth;
        }
        return;
      }
      if (!(Name.starts_with("__ldg") || Name.starts_with("__ldcg") ||
            Name.starts_with("__ldca") || Name.starts_with("__ldcs") ||
            Name.starts_with("__ldlu") || Name.starts_with("__ldcv") ||
            isPureMathName(Name) || Name.starts_with("__shfl") ||
            Name == "__syncthreads" || Name == "printf"))
        noteEscapes(CE, C);
      if (Name.starts_with("__ld") && CE->getNumArgs() == 1) {
        // __ldg(&p[i]): a read of p[i].
        const Expr *Arg = CE->getArg(0)->IgnoreParenImpCasts();
        if (const auto *UO = dyn_cast<UnaryOperator>(Arg))
          if (UO->getOpcode() == UO_AddrOf)
            record(UO->getSubExpr(), UO->getSubExpr(), true, false, false,
                   false, C);
      }
    } else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D)) {
          if (VD->getInit())
            walk(VD->getInit(), C);
          // Pointers stored in local variables are followed by evalVar.
        }
      return;
    } else if (isa<LambdaExpr>(S)) {
      return;
    }
    for (const Stmt *Ch : S->children())
      walk(Ch, C);
  }

  /// Walks the sub-expressions of an lvalue (its index computations) without
  /// recording the lvalue itself.
  void walkChildrenOfLValue(const Expr *LV, const FnCtx &C) {
    for (const Stmt *Ch : LV->IgnoreParens()->children())
      walk(Ch, C);
  }
};

class KernelFinder : public RecursiveASTVisitor<KernelFinder> {
public:
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->hasAttr<CUDAGlobalAttr>() && FD->doesThisDeclarationHaveABody() &&
        !FD->isDependentContext() && !FD->isInvalidDecl())
      Kernels.push_back(FD);
    return true;
  }
  std::vector<const FunctionDecl *> Kernels;
};

} // namespace

std::unique_ptr<AnalysisResults>
AnalysisResults::analyze(ASTContext &Ctx, const ProjectModel &Model,
                         const std::function<bool(const std::string &)> &IsUser) {
  auto R = std::make_unique<AnalysisResults>();
  KernelFinder F;
  F.TraverseDecl(Ctx.getTranslationUnitDecl());
  UserCodeFilter UserCode(Ctx.getSourceManager(), IsUser);
  for (const FunctionDecl *K : F.Kernels) {
    if (!UserCode.contains(K->getLocation()))
      continue;
    KernelAnalysis KA;
    KA.Kernel = K;
    KA.Name = K->getQualifiedNameAsString();
    const FunctionDecl *Pattern = K->getTemplateInstantiationPattern();
    std::string Key;
    for (const KernelInfo &KI : Model.Kernels)
      if (KI.QualifiedName == KA.Name)
        Key = KI.key();
    (void)Pattern;
    KA.Block = blockShapeFromLaunches(Model, KA.Name, Key, KA.BlockSource,
                                      &KA.BlockLoc);
    KernelAnalyzer A(Ctx, KA, R->OpaqueDeps, UserCode);
    A.run();
    R->Kernels.push_back(std::move(KA));
  }
  return R;
}

bool AnalysisResults::isInvariant(const AffineExpr &E, const LoopInfo &L,
                                  bool MemoryMayChange) const {
  if (!E.isKnown())
    return false;
  for (const std::string &S : E.symbols()) {
    if (L.VaryingSyms.count(S))
      return false;
    auto It = OpaqueDeps.find(S);
    if (It != OpaqueDeps.end()) {
      for (const std::string &D : It->second)
        if (L.VaryingSyms.count(D) || (D == "mem" && MemoryMayChange))
          return false;
    }
  }
  return true;
}

void AnalysisResults::print(raw_ostream &OS) const {
  for (const KernelAnalysis &K : Kernels) {
    OS << "kernel " << K.Name;
    if (K.Block[0])
      OS << " block " << K.Block[0] << "x" << K.Block[1] << "x" << K.Block[2]
         << " (" << K.BlockSource << ")";
    else
      OS << " block unknown";
    OS << "\n";
    for (const auto &L : K.Loops) {
      OS << "  loop " << L->Id << " at " << L->Loc.Line << ":" << L->Loc.Column
         << " depth " << L->Depth;
      if (L->IV)
        OS << " iv " << L->IVName << " = " << L->IVValue.str() << " init "
           << L->Init.str() << " step "
           << (L->Geometric ? std::string("geometric") : L->Step.str());
      OS << " trip "
         << (L->Trip == TripKind::Constant
                 ? "constant"
                 : L->Trip == TripKind::Parameter ? "parameter" : "unknown")
         << " " << L->TripText << (L->HasUnrollPragma ? " unroll-pragma" : "")
         << "\n";
    }
    for (const MemAccess &A : K.Accesses) {
      OS << "  " << A.Loc.Line << ":" << A.Loc.Column << " " << toString(A.Space)
         << " " << (A.IsAtomic ? "atomic" : A.IsRead && A.IsWrite ? "rmw" : A.IsWrite ? "write" : "read")
         << " " << A.Text << " base " << (A.BaseName.empty() ? "?" : A.BaseName)
         << " addr " << A.Address.str() << " bytes " << A.AccessBytes;
      if (!A.Loops.empty()) {
        OS << " loops";
        for (const LoopInfo *L : A.Loops)
          OS << " " << L->Id;
      }
      if (A.Space == MemSpace::Global)
        OS << " -> " << toString(A.Global.Class) << " sectors "
           << A.Global.Sectors << "/" << A.Global.IdealSectors
           << (A.Global.StrideText.empty() ? "" : " stride " + A.Global.StrideText);
      if (A.Space == MemSpace::Shared) {
        if (A.Banks.Known)
          OS << " -> wavefronts " << A.Banks.Wavefronts << "/" << A.Banks.Ideal
             << " ways " << A.Banks.Ways;
        else
          OS << " -> banks unknown";
      }
      if (!A.CallChain.empty())
        OS << " (inlined)";
      OS << "\n";
    }
  }
}

} // namespace cudal1
