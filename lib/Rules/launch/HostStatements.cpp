//===- HostStatements.cpp - host statements around launches --------------===//
#include "HostStatements.h"
#include "cudal1/Analysis/AstFacts.h"
#include "cudal1/Rules/RuleSupport.h"
#include "../coalescing/RowWalk.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

bool isWideInteger(QualType T) {
  const auto *B = dyn_cast<BuiltinType>(T.getCanonicalType().getTypePtr());
  if (!B)
    return false;
  switch (B->getKind()) {
  case BuiltinType::Int:
  case BuiltinType::UInt:
  case BuiltinType::Long:
  case BuiltinType::ULong:
  case BuiltinType::LongLong:
  case BuiltinType::ULongLong:
    return true;
  default:
    return false;
  }
}

/// \p E without parentheses and casts that keep every bit of a 32-bit
/// unsigned value (not to char, short or bool).
static const Expr *stripWideCasts(const Expr *E) {
  while (E) {
    E = E->IgnoreParens();
    const auto *CE = dyn_cast<CastExpr>(E);
    if (!CE)
      return E;
    QualType T = CE->getType();
    if (T->getAs<BuiltinType>()) {
      if (!isWideInteger(T) &&
          (!isa<ImplicitCastExpr>(CE) || CE->getCastKind() != CK_LValueToRValue))
        return E;
    } else if (!T->isRecordType()) {
      return E;
    }
    E = CE->getSubExpr();
  }
  return E;
}

bool isGlobalIndex(const Expr *E, char Dim) {
  const auto *B = dyn_cast_or_null<BinaryOperator>(stripWideCasts(E));
  if (!B || B->getOpcode() != BO_Add)
    return false;
  std::string Bi = std::string("blockIdx.") + Dim,
              Bd = std::string("blockDim.") + Dim,
              Ti = std::string("threadIdx.") + Dim;
  auto IsMul = [&](const Expr *X) {
    const auto *M = dyn_cast_or_null<BinaryOperator>(stripWideCasts(X));
    if (!M || M->getOpcode() != BO_Mul)
      return false;
    std::string A = builtinName(stripWideCasts(M->getLHS()));
    std::string C = builtinName(stripWideCasts(M->getRHS()));
    return (A == Bi && C == Bd) || (A == Bd && C == Bi);
  };
  auto IsTid = [&](const Expr *X) {
    return builtinName(stripWideCasts(X)) == Ti;
  };
  return (IsTid(B->getRHS()) && IsMul(B->getLHS())) ||
         (IsTid(B->getLHS()) && IsMul(B->getRHS()));
}

bool isGlobalXIndex(const Expr *E) { return isGlobalIndex(E, 'x'); }

namespace {
/// An expression of type cudaError_t (or the driver's CUresult).
bool mentionsCudaError(const Stmt *Cond) {
  bool Any = false;
  forEachStmt(Cond, [&](const Stmt *X) {
    if (const auto *E = dyn_cast<Expr>(X))
      if (const auto *ET = E->getType()->getAs<EnumType>())
        if (const auto *ED = ET->getDecl(); ED && ED->getIdentifier()) {
          StringRef N = ED->getName();
          Any |= N == "cudaError" || N == "cudaError_enum";
        }
  });
  return Any;
}

/// The walk of errorCheckOnly: \p Own are the variables the checked code
/// declares (its own locals, a called function's parameters and locals).
class CheckWalk {
public:
  CheckWalk(const ASTContext &C, const std::set<const VarDecl *> &Avoid,
            const CallExpr *Allowed)
      : C(C), Avoid(Avoid), Allowed(Allowed) {}
  bool Ok = true;

  void walk(const Stmt *X, bool InError, unsigned Depth,
            std::set<const VarDecl *> &Own) {
    if (!X || !Ok || X == Allowed)
      return;
    if (isa<CUDAKernelCallExpr>(X) || isa<ReturnStmt>(X) ||
        isa<GotoStmt>(X) || isa<CXXThrowExpr>(X) || isa<BreakStmt>(X) ||
        isa<ContinueStmt>(X) || isa<GCCAsmStmt>(X)) {
      Ok = false;
      return;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(X))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D)) {
          if (!V->hasLocalStorage()) { // a static local keeps state
            Ok = false;
            return;
          }
          Own.insert(V);
        }
    if (const auto *If = dyn_cast<IfStmt>(X)) {
      walk(If->getInit(), InError, Depth, Own);
      walk(If->getConditionVariableDeclStmt(), InError, Depth, Own);
      walk(If->getCond(), InError, Depth, Own);
      // What runs only when a CUDA call failed: the report and the exit.
      walk(If->getThen(), InError || mentionsCudaError(If->getCond()), Depth,
           Own);
      walk(If->getElse(), InError, Depth, Own);
      return;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        if (Avoid.count(V))
          Ok = false;
    // Writes: only of the code's own variables.
    auto OwnTarget = [&](const Expr *L) {
      const auto *D = dyn_cast<DeclRefExpr>(L->IgnoreParenImpCasts());
      const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
      return V && Own.count(V);
    };
    if (const auto *B = dyn_cast<BinaryOperator>(X))
      if (B->isAssignmentOp() && !OwnTarget(B->getLHS()))
        Ok = false;
    if (const auto *U = dyn_cast<UnaryOperator>(X))
      if (U->isIncrementDecrementOp() && !OwnTarget(U->getSubExpr()))
        Ok = false;
    if (const auto *CE = dyn_cast<CallExpr>(X))
      if (!isa<CXXOperatorCallExpr>(CE) && !call(CE, InError, Depth))
        Ok = false;
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(X))
      if (!InError) // std::cerr << ...: output only on the error path
        Ok = false;
    if (!Ok)
      return;
    if (const auto *PO = dyn_cast<PseudoObjectExpr>(X)) {
      walk(PO->getSyntacticForm(), InError, Depth, Own);
      return;
    }
    if (const auto *DS = dyn_cast<DeclStmt>(X)) {
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          walk(V->getInit(), InError, Depth, Own);
      return;
    }
    for (const Stmt *Ch : X->children())
      walk(Ch, InError, Depth, Own);
  }

private:
  const ASTContext &C;
  const std::set<const VarDecl *> &Avoid;
  const CallExpr *Allowed;

  bool call(const CallExpr *CE, bool InError, unsigned Depth) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD || !FD->getIdentifier())
      return false;
    StringRef N = FD->getName();
    static const std::set<std::string> Cuda = {
        "cudaGetLastError",      "cudaPeekAtLastError",
        "cudaDeviceSynchronize", "cudaThreadSynchronize",
        "cudaGetErrorString",    "cudaGetErrorName"};
    if (Cuda.count(N.str()))
      return true;
    if (N == "cudaStreamSynchronize")
      return CE->getNumArgs() == 1 &&
             CE->getArg(0)->IgnoreParenImpCasts()->isNullPointerConstant(
                 const_cast<ASTContext &>(C),
                 Expr::NPC_ValueDependentIsNotNull);
    if (N.starts_with("cuda") || N.starts_with("cu"))
      return false;
    const SourceManager &SM = C.getSourceManager();
    if (SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())))
      return InError; // fprintf, exit, abort: reporting a failed CUDA call
    const FunctionDecl *Def = nullptr;
    if (Depth >= 2 || !FD->hasBody(Def) || !Def || Def->isTemplated())
      return false;
    std::set<const VarDecl *> Own(Def->param_begin(), Def->param_end());
    walk(Def->getBody(), InError, Depth + 1, Own);
    return Ok;
  }
};
} // namespace

bool defaultStreamNoSharedMemory(const ASTContext &C,
                                 const CUDAKernelCallExpr *Launch) {
  const CallExpr *Cfg = Launch->getConfig();
  if (!Cfg)
    return false;
  for (unsigned A = 2; A < Cfg->getNumArgs(); ++A) {
    const Expr *X = Cfg->getArg(A)->IgnoreParenImpCasts();
    if (isa<CXXDefaultArgExpr>(X))
      continue;
    auto V = evalInt(const_cast<ASTContext &>(C), X);
    if (!(V && *V == 0) &&
        !X->isNullPointerConstant(const_cast<ASTContext &>(C),
                                  Expr::NPC_ValueDependentIsNotNull))
      return false;
  }
  return true;
}

bool errorCheckOnly(const ASTContext &C, const Stmt *S,
                    const std::set<const VarDecl *> &Avoid,
                    const CallExpr *Allowed) {
  CheckWalk W(C, Avoid, Allowed);
  std::set<const VarDecl *> Own;
  W.walk(S, false, 0, Own);
  return W.Ok;
}

const Stmt *statementInBlock(ASTContext &C, const Stmt *E,
                             const CompoundStmt *&Parent) {
  DynTypedNode N = DynTypedNode::create(*E);
  for (unsigned D = 0; D < 16; ++D) {
    auto Ps = C.getParents(N);
    if (Ps.empty())
      return nullptr;
    if (const auto *CS = Ps[0].get<CompoundStmt>()) {
      Parent = CS;
      return N.get<Stmt>();
    }
    if (!Ps[0].get<Expr>() && !Ps[0].get<ExprWithCleanups>())
      return nullptr;
    N = Ps[0];
  }
  return nullptr;
}

const ForStmt *loopOfLaunch(ASTContext &C, const CUDAKernelCallExpr *L,
                            const Stmt *&S, const CompoundStmt *&Body) {
  Body = nullptr;
  S = statementInBlock(C, L, Body);
  if (!S || !Body)
    return nullptr;
  if (const auto *EWC = dyn_cast<ExprWithCleanups>(S)) {
    if (EWC->getSubExpr()->IgnoreImplicit() != L)
      return nullptr;
  } else if (S != L) {
    return nullptr;
  }
  auto Ps = C.getParents(*Body);
  const auto *Loop = Ps.empty() ? nullptr : Ps[0].get<ForStmt>();
  return Loop && Loop->getBody() == Body ? Loop : nullptr;
}

std::optional<std::pair<CharSourceRange, SourceLocation>>
loopEdit(ASTContext &C, const Stmt *Loop, const FunctionDecl *Fn,
         std::string &Why) {
  const SourceManager &SM = C.getSourceManager();
  CharSourceRange LR = CharSourceRange::getTokenRange(Loop->getSourceRange());
  auto ER = editableRange(C, LR, Why);
  const Decl *Top = topLevelDecl(C, Fn);
  if (!ER || !Top || inMacro(Loop->getSourceRange())) {
    if (Why.empty())
      Why = "the loop comes from a macro expansion";
    return std::nullopt;
  }
  SourceLocation TopLoc = SM.getExpansionLoc(Top->getBeginLoc());
  if (SM.getFileID(TopLoc) != SM.getFileID(ER->getBegin())) {
    Why = "the function holding the loop starts in another file";
    return std::nullopt;
  }
  return std::make_pair(*ER, TopLoc);
}

bool pureLaunchValue(ASTContext &C, const Expr *E) {
  if (isPure(C, E))
    return true;
  const auto *CE = dyn_cast<CXXConstructExpr>(E->IgnoreParenImpCasts());
  if (!CE)
    return false;
  for (const Expr *A : CE->arguments())
    if (!isa<CXXDefaultArgExpr>(A) && !isPure(C, A))
      return false;
  return true;
}

bool plainMathCall(const ASTContext &C, const CallExpr *CE) {
  return systemCallee(C, CE) &&
         !containsCallTo(CE, {"atomic*", "__shfl*", "__syncthreads*",
                              "__syncwarp", "__ballot*", "__any*", "__all*",
                              "__activemask", "__match*", "__reduce*",
                              "printf", "clock*", "__nanosleep",
                              "__threadfence*", "assert", "__assert*",
                              "__trap", "__brkpt", "tex*", "surf*", "memcpy",
                              "memset"});
}

std::string threadCooperationWhy(const ASTContext &C, const Stmt *S,
                                 const FunctionDecl *&Callee) {
  Callee = nullptr;
  const SourceManager &SM = C.getSourceManager();
  const char *Shared =
      "it uses shared memory (shared by the threads of a block)";
  if (isa<AsmStmt>(S))
    return "it holds inline assembly";
  if (const auto *DS = dyn_cast<DeclStmt>(S))
    for (const Decl *D : DS->decls())
      if (D->hasAttr<CUDASharedAttr>())
        return Shared;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
      if (V->hasAttr<CUDASharedAttr>())
        return Shared;
  if (const auto *CE = dyn_cast<CallExpr>(S)) {
    const FunctionDecl *Fn = CE->getDirectCallee();
    const FunctionDecl *Def = Fn ? Fn->getDefinition() : nullptr;
    if (Def && Def->hasBody() && !SM.isInSystemHeader(Def->getLocation()))
      Callee = Def;
    else if (!plainMathCall(C, CE))
      return Fn ? "it calls '" + Fn->getNameAsString() +
                      "' (threads may cooperate or read the index there)"
                : "it calls through a pointer";
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(S))
    if (const CXXConstructorDecl *Ctor = CE->getConstructor())
      if (!Ctor->isTrivial() && !SM.isInSystemHeader(Ctor->getLocation()))
        return "it constructs objects with constructors of its own";
  return "";
}

const Decl *topLevelDecl(ASTContext &C, const Decl *D) {
  DynTypedNode N = DynTypedNode::create(*D);
  for (unsigned Depth = 0; Depth < 64; ++Depth) {
    auto Ps = C.getParents(N);
    if (Ps.empty())
      return N.get<Decl>();
    if (Ps[0].get<TranslationUnitDecl>())
      return N.get<Decl>();
    N = Ps[0];
  }
  return nullptr;
}

std::optional<CharSourceRange> statementRange(const ASTContext &C,
                                              const Stmt *S) {
  const SourceManager &SM = C.getSourceManager();
  CharSourceRange R = SM.getExpansionRange(S->getSourceRange());
  SourceLocation B = R.getBegin();
  SourceLocation E = Lexer::findLocationAfterToken(R.getEnd(), tok::semi, SM,
                                                   C.getLangOpts(), false);
  if (E.isInvalid())
    E = Lexer::getLocForEndOfToken(R.getEnd(), 0, SM, C.getLangOpts());
  if (!B.isFileID() || !E.isFileID() || SM.getFileID(B) != SM.getFileID(E))
    return std::nullopt;
  return CharSourceRange::getCharRange(B, E);
}

std::string statementText(const ASTContext &C, const Stmt *S) {
  auto R = statementRange(C, S);
  if (!R)
    return "";
  return std::string(
      Lexer::getSourceText(*R, C.getSourceManager(), C.getLangOpts()));
}

CharSourceRange wholeLines(const ASTContext &C, CharSourceRange R) {
  const SourceManager &SM = C.getSourceManager();
  SourceLocation Begin = R.getBegin(), End = R.getEnd();
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(SM.getFileID(Begin), &Invalid);
  if (Invalid)
    return R;
  unsigned BO = SM.getFileOffset(Begin), EO = SM.getFileOffset(End);
  unsigned LS = BO, LE = EO;
  while (LS > 0 && (Buf[LS - 1] == ' ' || Buf[LS - 1] == '\t'))
    --LS;
  while (LE < Buf.size() && (Buf[LE] == ' ' || Buf[LE] == '\t'))
    ++LE;
  if ((LS == 0 || Buf[LS - 1] == '\n') && LE < Buf.size() && Buf[LE] == '\n')
    return CharSourceRange::getCharRange(
        Begin.getLocWithOffset(-(int)(BO - LS)),
        End.getLocWithOffset(LE - EO + 1));
  return R;
}

} // namespace cudal1
